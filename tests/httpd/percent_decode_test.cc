// httpd::percentDecode: the one decoder of query parameters (lenient) and path segments (strict).
#include <gtest/gtest.h>

#include "httpd/message.h"

namespace attrib::httpd {
namespace {

TEST(PercentDecode, DecodesEscapesAndPlusOnlyWhenAsked) {
  std::string out;
  EXPECT_TRUE(percentDecode("gpu%2F0+a%20b", /*plusIsSpace=*/true, &out));
  EXPECT_EQ(out, "gpu/0 a b");
  EXPECT_TRUE(percentDecode("gpu%2F0+a%20b", /*plusIsSpace=*/false, &out));
  EXPECT_EQ(out, "gpu/0+a b");
  EXPECT_TRUE(percentDecode("%00x", false, &out));
  EXPECT_EQ(out, std::string("\0x", 2));
}

TEST(PercentDecode, ABadEscapeIsKeptAndMakesTheResultFalse) {
  std::string out;
  for (const char* bad : {"a%", "a%2", "a%zz", "%G1b"}) {
    EXPECT_FALSE(percentDecode(bad, true, &out)) << bad;
    EXPECT_EQ(out, bad) << "a malformed escape is copied as it is";
  }
}

TEST(PercentDecode, QueryParametersReadBadEscapesLeniently) {
  Head head;
  head.query = "since=14d&node=a%2Fb+c&bad=%zz";
  EXPECT_EQ(head.param("node"), "a/b c");
  EXPECT_EQ(head.param("bad"), "%zz");
  EXPECT_EQ(head.param("absent"), std::nullopt);
}

}  // namespace
}  // namespace attrib::httpd

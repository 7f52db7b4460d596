// The scan forms of log patterns (compiler/scan_form.h): what Hyperscan scans raw lines with.
#include "compiler/scan_form.h"

#include <gtest/gtest.h>

namespace attrib {
namespace {

struct Case {
  const char* pattern;
  const char* expression;  // "" when an error is expected
  bool multiline;
};

TEST(ScanForm, AnchorsAreDroppedAndMultiLinePatternsScanTheirLastLine) {
  const Case cases[] = {
      {R"(NVRM: Xid \(PCI:[0-9a-f:.]+\): 79\b)", R"(NVRM: Xid \(PCI:[0-9a-f:.]+\): 79\b)", false},
      // `^` is the message's start, somewhere in the raw line.
      {R"(^KeyError: )", R"(KeyError: )", false},
      {R"((?:^|x)Killed$)", R"((?:|x)Killed$)", false},
      // Escaped and bracketed carets are text.
      {R"(a\^b[^x]c)", R"(a\^b[^x]c)", false},
      // `\n` in a class does not span lines.
      {R"([^\n]*block: )", R"([^\n]*block: )", false},
      // The last line after the last top-level `\n` element.
      {R"(^Traceback \(most recent call last\):\n(?:.*\n)*?RuntimeError: DataLoader worker)", R"(RuntimeError: DataLoader worker)", true},
      {R"(NVRM: The NVIDIA GPU (?<gpu>[0-9a-f:.]+)\n.*\n.*fallen off the bus)", R"(fallen off the bus)", true},
      // Alternatives, each by its own last line.
      {R"(Traceback\nKeyError|abc\ndef)", R"((?:KeyError|def))", true},
      {R"(plain|other)", R"(plain|other)", false},
      // A group that ends the pattern: the last line of its body.
      {R"((?:Traceback\nKeyError|abc\ndef))", R"((?:KeyError|def))", true},
      {R"(x\n(?<exc>[A-Z]\w+Error))", R"((?<exc>[A-Z]\w+Error))", true},
      // Unbounded runs of any character: the part between them with the longest literal (the
      // last on a tie), per alternative; never past an inline flag group.
      {R"(^step (?<step>[0-9]+) \|.*\| (?<ms>[0-9]+) ms\/step)", R"(\| (?<ms>[0-9]+) ms\/step)", false},
      {R"(Watchdog caught.*)", R"(Watchdog caught)", false},
      {R"(abcd.+?x|y.{2,}wxyz)", R"(abcd|wxyz)", false},
      {R"(ab.*cd)", R"(cd)", false},
      {R"(a.{2,5}bcde)", R"(a.{2,5}bcde)", false},
      {R"([0-9].*[a-z])", R"([0-9].*[a-z])", false},
      {R"((?i)abc.*defgh)", R"((?i)abc.*defgh)", false},
      {R"(a\.b\(.*\w\wxy)", R"(a\.b\()", false},
      // Nothing after the last `\n`: nothing to find the pattern by.
      {R"(Traceback \(most recent call last\):\n)", "", true},
      {R"((?:a\n))", "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pattern);
    ScanForm f = scanForm(c.pattern);
    EXPECT_EQ(f.expression, c.expression);
    EXPECT_EQ(f.multiline, c.multiline);
    EXPECT_EQ(f.error.empty(), std::string(c.expression) != "");
  }
}

TEST(ScanForm, RequiredLiteralIsATopLevelRunTheScanFormLacks) {
  auto required = [](const std::string& regex, const std::string& flags = "") {
    return requiredLiteral(regex, flags, scanForm(regex).expression);
  };
  // The stdlib's mlx5 carrier pattern: narrowed to "mlx5_core ..." for Hyperscan, so "ink up"
  // is what a line of another mlx5_core message lacks.
  const std::string linkUp =
      R"(mlx5_core (?<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])( (?<iface>[^ :]+))?: .*\b[Ll]ink up\b)";
  EXPECT_EQ(required(linkUp), "ink up");
  EXPECT_EQ(required("NCCL WARN .*Connect to (?<peer>[^ ]+) failed : No route to host"),
            "NCCL WARN ") << "Hyperscan looks for the longer ' failed : No route to host' part";
  EXPECT_EQ(required("Xid \\(PCI:(?<pci>[^)]+)\\): (?<xid>79)"), "") << "not narrowed: the scan form has every literal";
  EXPECT_EQ(required("error: .*(disk|quota) full"), " full") << "an alternation inside a group is not top level";
  EXPECT_EQ(required("^Traceback .*\\nRuntimeError: .*out of memory"), "out of memory")
      << "runs of every line count; the scan form is the last line's 'RuntimeError: '";
  // Nothing that cannot be read safely.
  EXPECT_EQ(required("a .*bcd|x .*yzw"), "") << "top-level alternation";
  EXPECT_EQ(required("abc .*(?x) d e f ghi"), "") << "extended mode";
  EXPECT_EQ(required("abc .*\\x41BCDEF"), "") << "an escape's argument is not literal";
  EXPECT_EQ(required("abc .*\\QDEF\\E"), "");
  EXPECT_EQ(required("abc .*defgh", "u"), "") << "UTF case folding is not ASCII's";
  EXPECT_EQ(required("abc .*de?fgh"), "fgh") << "a quantified character ends the run";
  EXPECT_EQ(required("abcdef .*(xyz)?"), "") << "inside a group is not top level";
}

TEST(ScanForm, GarbageNeverCrashes) {
  for (const char* p : {"(", ")", "[", "\\", "(?", "(?<", "((\\n", "[\\n", "\\Q\\n", "a{", "a{2,", "(?:\\n)+", "|\\n|"}) {
    ScanForm f = scanForm(p);
    EXPECT_TRUE(!f.expression.empty() || !f.error.empty() || std::string(p).find('\n') == std::string::npos) << p;
  }
}

}  // namespace
}  // namespace attrib

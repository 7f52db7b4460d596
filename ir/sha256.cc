#include "ir/sha256.h"

#include <openssl/evp.h>

namespace attrib {

std::string sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), out, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(out), length);
}

std::string digestString(std::string_view raw32) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned char c : raw32) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace attrib

// SHA-256 (OpenSSL's implementation), for rule-set digests and bundle checksums.
#pragma once

#include <string>
#include <string_view>

namespace attrib {

// The 32 raw bytes of SHA-256(data).
std::string sha256(std::string_view data);
// "sha256:" followed by the lowercase hex digest of 32 raw bytes.
std::string digestString(std::string_view raw32);

}  // namespace attrib

#include "service/random_id.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

namespace attrib::service {

bool randomId(std::string* id, std::string* error) {
  unsigned char bytes[16];
  size_t have = 0;
  while (have < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + have, sizeof bytes - have, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("getrandom: ") + std::strerror(errno);
      return false;
    }
    have += static_cast<size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  id->clear();
  for (unsigned char b : bytes) {
    *id += kHex[b >> 4];
    *id += kHex[b & 15];
  }
  return true;
}

}  // namespace attrib::service

// Session ids: 128 bits from the kernel's CSPRNG (getrandom(2)), as 32 hex digits. Knowing any
// number of earlier ids tells nothing about the next one.
#pragma once

#include <string>

namespace attrib::service {

// False (with `error`) only when the kernel cannot give random bytes.
bool randomId(std::string* id, std::string* error);

}  // namespace attrib::service

// Sinks: where verdicts go (the end of the data flow: connectors -> timeline -> scan -> phases
// -> verdict -> sinks). A sink either stores a whole verdict or nothing of it.
#pragma once

#include <string>

#include "runtime/verdict.h"

namespace attrib::sinks {

class Sink {
 public:
  virtual ~Sink() = default;
  // Stores `verdict`; false with a one-line `error` when it could not, and then nothing of it
  // was stored.
  virtual bool write(const runtime::Verdict& verdict, std::string* error) = 0;
};

}  // namespace attrib::sinks

// Applying fix-its (diagnostic.h): what `attribc check --fix` does to a file's text.
#pragma once

#include <string>
#include <vector>

#include "compiler/diagnostic.h"

namespace attrib {

struct FixedText {
  std::string text;
  size_t applied = 0;  // fix-its applied
  size_t skipped = 0;  // left out because they overlap an earlier one
};

// Applies the safe fix-its of `diagnostics` that are in `file` to `text` (that file's text).
// Edits are applied from the end so earlier offsets stay valid; of two overlapping edits the
// one that starts first wins, and the other waits for the next run.
FixedText applySafeFixits(const std::string& text, FileId file, const std::vector<Diagnostic>& diagnostics);

}  // namespace attrib

// The runtime functions compiled predicates call for what is not worth inlining: string
// ordering, captures, regex matches, workload fields, formatting, and the sets behind
// `distinct`. Each mirrors one piece of the interpreter and shares its code where it can
// (runtime/interpreter.h), so the two evaluators cannot drift apart.
//
// The generated code names them by symbol; the JIT binds the symbols to these addresses when it
// links a module or a cached object, so cached code never holds a stale address.
#pragma once

#include <vector>

namespace attrib::jit {

struct HelperSymbol {
  const char* name;
  void* address;
};

const std::vector<HelperSymbol>& helperSymbols();

}  // namespace attrib::jit

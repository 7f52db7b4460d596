// Slurm hostlist expressions: "gpu-[001-004,010],login1" -> gpu-001 ... gpu-004, gpu-010, login1.
// The syntax scontrol accepts: comma-separated items outside brackets; each item a prefix, then
// any number of bracketed range lists (each range `a` or `a-b`, zero padding kept from `a`), then
// a suffix. Several bracket groups form a cross product ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attrib::connectors::slurm {

// Expands `expression` into host names in scontrol's order; duplicates are kept. At most
// `limit` names: a larger expansion is an error, so a hostile "[0-999999999]" cannot exhaust
// memory. Returns false with a one-line `error` on malformed input.
bool expandHostlist(std::string_view expression, std::vector<std::string>* hosts, std::string* error,
                    size_t limit = 1'000'000);

}  // namespace attrib::connectors::slurm

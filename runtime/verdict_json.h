// Reading a verdict back from its JSON (schema "attrib.verdict/v1", docs/verdict.md): what a
// remote attrib Service answers, turned into the runtime::Verdict that sinks store.
//
// Contract: for every verdict v, toJson(*parseVerdictJson(toJson(v))) == toJson(v), byte for
// byte. Fields the JSON does not carry (the workload's user, partition, signal, reason and
// ranks_per_node; the outcomes' actions and confidences) are left empty; `workload.ranks` takes
// the rendered rank count.
//
// Strict: the schema must be attrib.verdict/v1, every field must be present with its type, and
// an unknown field is an error (it would be dropped silently otherwise). The fields added since
// the schema's first form (`symptoms`; `downstream[].last`, `earliest_nodes`, `evidence`) may be
// missing, as in verdicts an older attrib stored: they read as empty (`last` as `first`). Errors are one line
// naming the field: "verdict: 'root_cause.evidence[0].where.offset' must be a non-negative
// integer".
#pragma once

#include <optional>
#include <string>

#include "runtime/verdict.h"

namespace attrib::runtime {

std::optional<Verdict> parseVerdictJson(const std::string& text, std::string* error);

}  // namespace attrib::runtime

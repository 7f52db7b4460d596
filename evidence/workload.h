// The execution context of one workload, normalised across schedulers: what the rules read as
// `workload.*`. Times are nanoseconds since the Unix epoch, UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace attrib::evidence {

struct Workload {
  std::string id;
  std::string scheduler;  // slurm, kueue, static, ...
  std::string name, user, partition;
  ir::State state = ir::State::Unknown;
  std::optional<int64_t> exitCode;
  std::optional<int64_t> signal;
  std::optional<int64_t> start, end;
  std::vector<std::string> nodes;
  std::optional<int64_t> ranksPerNode;
  std::optional<int64_t> ranks;
  // srun tasks per node, when the launch is known: with it an srun --label task id names its
  // node (block distribution: nodes[task / tasksPerNode]), and when it equals ranksPerNode the
  // tasks are the ranks (one task per GPU, as `srun python train.py` starts them).
  std::optional<int64_t> tasksPerNode;
  std::string reason;
};

}  // namespace attrib::evidence

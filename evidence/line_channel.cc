#include "evidence/line_channel.h"

#include <algorithm>
#include <string>

#include "ir/ascii.h"

namespace attrib::evidence {
namespace {

}  // namespace

LineChannel classifyLine(const LinePrefix& prefix, std::string_view line, ir::Channel hint) {
  const std::string_view message = line.substr(std::min(prefix.length, line.size()));
  std::string_view unindented = message;
  while (!unindented.empty() && (unindented.front() == ' ' || unindented.front() == '\t')) unindented.remove_prefix(1);
  for (const ir::ChannelMarker& m : ir::channelMarkers()) {
    bool holds = false;
    switch (m.form) {
      case ir::MarkerForm::Program: holds = !prefix.program.empty() && prefix.program == m.text; break;
      case ir::MarkerForm::Prefix: holds = prefix.kernelTimestamp; break;
      case ir::MarkerForm::Starts: holds = unindented.starts_with(m.text); break;
      case ir::MarkerForm::Contains: holds = message.find(m.text) != std::string_view::npos; break;
    }
    if (holds) return {m.channel, true};
  }
  return {hint, false};
}

ir::Channel channelHint(std::string_view name) {
  std::string base = ir::asciiLower(name.substr(name.find_last_of('/') == std::string_view::npos ? 0 : name.find_last_of('/') + 1));
  // Compression suffixes and rotation numbers ("syslog.2.gz", "messages-20261129").
  for (bool changed = true; changed;) {
    changed = false;
    for (const char* suffix : {".gz", ".xz", ".bz2", ".zst", ".lz4"}) {
      std::string_view s(suffix);
      if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) {
        base.resize(base.size() - s.size());
        changed = true;
      }
    }
    size_t cut = base.find_last_of(".-");
    if (cut != std::string::npos && cut + 1 < base.size() &&
        std::all_of(base.begin() + static_cast<long>(cut) + 1, base.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      base.resize(cut);
      changed = true;
    }
  }
  std::string stem = base.substr(0, base.find('.'));
  ir::Channel c;
  if (ir::channelFromName(stem, &c)) return c;
  if (stem == "applog" || stem == "container") return ir::Channel::Application;
  if (stem == "k8s_events") return ir::Channel::Orchestrator;
  auto has = [&](const char* word) { return base.find(word) != std::string::npos; };
  auto starts = [&](const char* word) { return base.starts_with(word); };
  if (starts("dmesg") || starts("kern.log") || starts("kernel")) return ir::Channel::Kernel;
  if (starts("syslog") || starts("messages") || starts("journal") || starts("daemon.log")) return ir::Channel::System;
  if (starts("slurmd") || starts("slurmctld") || starts("slurmdbd") || starts("sacct")) return ir::Channel::Scheduler;
  if (has("events") || has("describe") || starts("kubelet")) return ir::Channel::Orchestrator;
  if (starts("containerd") || starts("docker") || starts("crio")) return ir::Channel::ContainerRuntime;
  return ir::Channel::Application;
}

}  // namespace attrib::evidence

// The channel of a log line (ir/log_channels.h): what the line says it is, with the file's name
// or the sender's source only a hint for lines that say nothing.
#pragma once

#include <optional>
#include <string_view>

#include "evidence/line_prefix.h"
#include "ir/log_channels.h"

namespace attrib::evidence {

struct LineChannel {
  ir::Channel channel = ir::Channel::Application;
  bool claimed = false;  // a marker said so; otherwise `channel` is the hint
};

// The channel of a line whose prefix is `prefix` (parsed from `line`): the first marker of
// ir::channelMarkers() that holds, else `hint`, unclaimed. Program markers read the prefix's
// program, Prefix markers its kernel timestamp (only as the line's first item, as dmesg writes
// it), Starts markers the message after its indentation, Contains markers the whole message.
LineChannel classifyLine(const LinePrefix& prefix, std::string_view line, ir::Channel hint);

// The channel a line's Program or Prefix marker gives, read from its first bytes alone: a
// syslog or RFC 3339 time, a host and a program of the table ("Nov 29 10:42:00 gpu-7
// slurmstepd[12]: ", "2026-11-29T10:42:00Z gpu-7 kernel: "), or a kernel timestamp as the line's
// first item ("[74889.644138] ", "[  +0.000316] ", "[Sun Nov 29 10:42:00 2026] "); else
// nullopt. It agrees with classifyLine on those forms (a test holds them to each other on every
// line of the corpus and the scenarios) but parses no time and allocates nothing, so the scanner
// can afford it on every line: the markers of these forms are not in the Hyperscan database,
// where, anchored at every line start, they cost more than all the symptoms' patterns together.
std::optional<ir::Channel> prefixChannel(std::string_view line);

// The hint a file name or a source word gives (directories, compression suffixes and rotation
// numbers ignored; case-insensitive): dmesg*, kern.log*, kernel* -> kernel; syslog*, messages*,
// journal*, daemon.log* -> system; slurmd*, slurmctld*, slurmdbd*, sacct* -> scheduler;
// *events*, *describe*, kubelet* -> orchestrator; containerd*, docker*, crio* ->
// container_runtime; the channel names and the legacy source words (applog, container -> application;
// syslog -> system; dmesg -> kernel; k8s_events -> orchestrator; scheduler) as themselves;
// anything else -> application.
ir::Channel channelHint(std::string_view name);

// The channels an unclaimed line of hint `hint` is read by: its hint's and the application's.
inline ir::ChannelMask readersOf(const LineChannel& c) {
  return c.claimed ? ir::maskOf(c.channel) : static_cast<ir::ChannelMask>(ir::maskOf(c.channel) | ir::maskOf(ir::Channel::Application));
}

}  // namespace attrib::evidence

// The channel of a log line (ir/log_channels.h): what the line says it is, with the file's name
// or the sender's source only a hint for lines that say nothing.
#pragma once

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

// Log channels: what a log line is, told from what it says rather than from the file it sits in.
//
// A rule reads channels (`on log(source in [kernel])`); a line gets its channel from its own
// form: the program of a syslog or journal line, the kernel's timestamp, a message that starts
// the way the kernel, Slurm, kubectl or a container runtime print. A line that says nothing about
// itself is *unclaimed*: it counts under its file's hint (dmesg.txt -> kernel, train.log ->
// application) and is read by rules of that channel and by application rules, because what no
// tool claims is the application's own output.
//
// This table is shared by the compiler, which checks `source` words and puts the markers into
// every bundle's Hyperscan database, and the runtime, which classifies lines with it
// (evidence/line_channel.h). docs/workloads.md shows it; a test keeps the two in step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attrib::ir {

enum class Channel : uint8_t { Kernel, System, Scheduler, Orchestrator, ContainerRuntime, Application };
inline constexpr int kChannelCount = 6;
using ChannelMask = uint8_t;  // bit (1 << channel)

inline constexpr ChannelMask maskOf(Channel c) { return static_cast<ChannelMask>(1u << static_cast<unsigned>(c)); }

// "kernel", "system", "scheduler", "orchestrator", "container_runtime", "application".
const char* channelName(Channel channel);
bool channelFromName(std::string_view name, Channel* out);

// The channels a `source` word of `on log(source in [...])` reads: a channel name, or one of the
// source words of rule sets written before channels existed (applog and container ->
// application; syslog -> kernel and system; dmesg -> kernel; k8s_events -> orchestrator). 0 for
// an unknown word.
ChannelMask channelsOfSourceWord(std::string_view word);
// Every word channelsOfSourceWord accepts, channel names first.
const std::vector<std::string>& sourceWords();

// How a marker recognises its lines.
enum class MarkerForm : uint8_t {
  Program,    // the program of a syslog/journal line ("host slurmstepd[12]: ")
  Prefix,     // the line's prefix itself (a kernel timestamp "[12345.678901]")
  Starts,     // the message, after its indentation, starts with `text`
  Contains,   // the message contains `text`
};

struct ChannelMarker {
  Channel channel;
  MarkerForm form;
  std::string_view text;     // Program: the program name; Starts/Contains: the literal; Prefix: a label
  std::string_view example;  // a real line of this form
  std::string_view tool;     // what prints it, with the version the form was checked against
};

// The markers, in precedence order: a line takes the channel of its first marker that holds
// (Program and Prefix markers first: a syslog line's program beats what its message says).
const std::vector<ChannelMarker>& channelMarkers();

// The Hyperscan expressions that find candidate lines for the Starts and Contains markers
// (HS_FLAG_MULTILINE, each matching within one line), compiled into every bundle after the
// symptoms' patterns: one literal alternation per channel, a superset (the literal anywhere in
// the line) that the runtime confirms on the parsed line. Program and Prefix markers have no
// expression: evidence::prefixChannel (evidence/line_channel.h) reads them from each line's
// first bytes.
struct MarkerExpression {
  std::string regex;
  Channel channel;
};
const std::vector<MarkerExpression>& markerExpressions();

// A digest of the marker table; bundles record it, and a bundle built with another table is
// refused (its database would classify lines differently).
const std::string& markerTableDigest();

}  // namespace attrib::ir

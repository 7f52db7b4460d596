// Every diagnostic attribc can report, each fed a bad file, with its exact message, line and
// column. A last test fails when a diagnostic kind is added without a case here.
#include <gtest/gtest.h>

#include <set>

#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

struct Case {
  DiagKind kind;
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> expected;  // header, note and fix-it lines, in order
  // A lower layer under `files` (Compilation::beginLayer): for overrides and replaced packages.
  std::vector<std::pair<std::string, std::string>> below = {};
};

const std::string kLowerOutcome = "package p\noutcome gone { when true family unknown }\n";

const std::string kSym = "symptom s { on log match /abcdef/ family unknown }\n";

std::vector<Case> cases() {
  using K = DiagKind;
  return {
      {K::SyntaxError, {{"a.attr", "symptom x {\n  on log\n  match\n}\n"}},
       {"a.attr:4:1: error: missing a regex before '}' [A001]"}},
      {K::SyntaxError, {{"a.attr", "outcome o {\n  when (1 + 2\n  family unknown\n}\n"}},
       {"a.attr:3:3: error: missing ')' before 'family' [A001]"}},
      {K::UnterminatedString, {{"a.attr", "symptom x \"title {\n}\n"}},
       {"a.attr:1:11: error: unterminated string: missing the closing '\"' on this line [A002]",
        "a.attr:2:1: error: missing '{' before '}' [A001]"}},
      {K::UnterminatedRegex, {{"a.attr", "symptom x {\n  on log\n  match /abc\n}\n"}},
       {"a.attr:3:9: error: unterminated regex: missing the closing '/' on this line [A003]"}},
      {K::UnterminatedComment, {{"a.attr", kSym + "/* never closed\n"}},
       {"a.attr:2:1: error: unterminated block comment: no '*/' before the end of the file [A004]"}},
      {K::InvalidCharacter, {{"a.attr", "symptom x @ { }\n"}},
       {"a.attr:1:11: error: unexpected character '@' [A005]"}},
      {K::InvalidCharacter, {{"a.attr", "outcome o { when workload.exit_code = 1 family unknown }\n"}},
       {"a.attr:1:37: error: unexpected character '='; write '==' to compare [A005]",
        "fix-it:\"a.attr\":{1:37-1:38}:\"==\" (safe)"}},
      {K::InvalidCharacter, {{"a.attr", "symptom s {\n  on log\n  match /abcdef/\n  family unknown\n  ref 'x'\n}\n"}},
       {"a.attr:5:7: error: unexpected character '\''; strings use double quotes [A005]",
        "a.attr:5:9: error: unexpected character '\''; strings use double quotes [A005]"}},
      {K::InvalidUtf8, {{"a.attr", "symptom s { on log match /abcdef/ family unknown } // caf\xff\n"}},
       {"a.attr:1:58: error: invalid UTF-8 byte sequence; rule files must be UTF-8 [A006]"}},
      {K::BinaryFile, {{"a.attr", std::string("symptom\0x", 9)}},
       {"a.attr:1:8: error: this is a binary file (NUL byte at offset 7), not an .attr rule file [A007]"}},
      {K::NestingTooDeep, {{"a.attr", "outcome o { when " + std::string(200, '(') + "true" + std::string(200, ')') + " }\n"}},
       {"a.attr:1:145: error: brackets and prefix operators nest more than 128 levels deep here; split the "
        "expression [A008]"}},
      {K::MalformedLiteral, {{"a.attr", "outcome o {\n  when workload.duration > 5min\n  family unknown\n}\n"}},
       {"a.attr:2:28: error: malformed number or duration '5min'; durations are written like 30s, 5m, 1h30m "
        "(units: ms, us, s, m, h, d) [A009]",
        "fix-it:\"a.attr\":{2:28-2:32}:\"5m\" (safe)"}},
      {K::MalformedLiteral, {{"a.attr", "outcome o {\n  when workload.start > 2026-02-30T10:00:00Z\n  family unknown\n}\n"}},
       {"a.attr:2:25: error: invalid timestamp '2026-02-30T10:00:00Z': not a real date and time [A009]"}},
      {K::MalformedLiteral, {{"a.attr", "outcome o { when workload.name == \"a\\qb\" family unknown }\n"}},
       {"a.attr:1:37: error: unknown escape sequence '\\q' (known: \\\" \\\\ \\n \\t \\r \\/ \\u{XXXX}) [A009]"}},
      {K::TooManyErrors, {{"a.attr", [] { std::string s; for (int i = 0; i < 60; ++i) s += "@\n"; return s; }()}},
       {}},  // checked separately below: 50 errors, then the cap
      {K::UnescapedSlash, {{"a.attr", "symptom s {\n  on log\n  match /upload to s3://x failed/\n  family storage\n}\n"}},
       {"a.attr:3:23: error: this '/' ends the regex early, so the rest of the pattern is read as code; a '/' inside "
        "a pattern is written '\\/' [A012]",
        "fix-it:\"a.attr\":{3:23-3:24}:\"\\/\" (safe)", "fix-it:\"a.attr\":{3:24-3:25}:\"\\/\" (safe)"}},
      {K::UnescapedSlash, {{"a.attr", "symptom s {\n  on log\n  match /path/to/file/i\n  family storage\n}\n"}},
       {"a.attr:3:14: error: this '/' ends the regex early, so the rest of the pattern is read as code; a '/' inside "
        "a pattern is written '\\/' [A012]",
        "fix-it:\"a.attr\":{3:14-3:15}:\"\\/\" (safe)", "fix-it:\"a.attr\":{3:17-3:18}:\"\\/\" (safe)"}},
      {K::SpacedWord, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  family accelerator - gpu\n}\n"}},
       {"a.attr:4:10: error: 'accelerator - gpu' must be written without spaces (as 'accelerator-gpu') [A011]",
        "fix-it:\"a.attr\":{4:10-4:27}:\"accelerator-gpu\" (safe)"}},
      {K::DuplicateDeclaration, {{"a.attr", kSym + "outcome s { when true family unknown }\n"}},
       {"a.attr:2:9: error: redefinition of 's' [A101]", "a.attr:1:9: note: 's' was first defined here"}},
      {K::DuplicateDeclaration, {{"a.attr", "package p\n" + kSym}, {"b.attr", "package p\n" + kSym}},
       {"b.attr:2:9: error: redefinition of 'p.s' [A101]", "a.attr:2:9: note: 'p.s' was first defined here"}},
      {K::UnknownName, {{"a.attr", "symptom xid79 { on log match /Xid 79/ family unknown }\noutcome o {\n  when root is xid97\n  family unknown\n}\n"}},
       {"a.attr:3:16: error: unknown symptom 'xid97'; did you mean 'xid79'? [A102]"}},
      {K::UnknownName, {{"a.attr", "outcome o {\n  when workload.state == FAILD\n  family unknown\n}\n"}},
       {"a.attr:2:26: error: unknown name 'FAILD'; did you mean 'FAILED'? [A102]"}},
      {K::PackageNotImported,
       {{"a.attr", "package std.nccl\nsymptom t { on log match /timeout/ family communication }\n"},
        {"b.attr", "package gpu\noutcome o {\n  when root is std.nccl.t\n  family unknown\n}\n"}},
       {"b.attr:3:16: error: 'std.nccl.t' is in package 'std.nccl', which this file does not import [A103]",
        "note: add 'import std.nccl' after the package line"}},
      {K::UnknownPackage, {{"a.attr", "package a\nimport std.ncl\n" + kSym}},
       {"a.attr:2:8: error: no checked file declares package 'std.ncl' [A104]"}},
      {K::DuplicateAlias, {{"a.attr", kSym + "rule r {\n  when s as a, s as a\n  then mark a as bad\n}\n"}},
       {"a.attr:3:21: error: 'a' is bound twice in this rule [A105]", "a.attr:3:13: note: first bound here"}},
      {K::EmptySelector,
       {{"a.attr", "package empty\noutcome o { when true family unknown }\n"},
        {"b.attr", "package b\nimport empty\nfilter f {\n  drop empty.*\n}\n"}},
       {"b.attr:4:8: error: 'empty.*' matches no symptom [A106]"}},
      {K::DuplicateImport,
       {{"a.attr", "package a\nimport b\nimport b\noutcome o { when root is b.y family unknown }\n"},
        {"b.attr", "package b\nsymptom y { on log match /abcdef/ family unknown }\n"}},
       {"a.attr:3:1: error: package 'b' is imported twice [A107]", "a.attr:2:1: note: the earlier import is here"}},
      {K::UnknownOverride, {{"b.attr", "package q\nimport p\noverride outcome p.gnoe { when true family unknown }\n"}},
       {"b.attr:3:18: error: cannot override outcome 'p.gnoe': no lower layer declares one; did you mean 'p.gone'? "
        "[A108]",
        "fix-it:\"b.attr\":{3:18-3:24}:\"p.gone\""},
       {{"a.attr", kLowerOutcome}}},
      {K::UnknownOverride, {{"b.attr", "package q\nimport p\ndisable rule p.gone\n"}},
       {"b.attr:3:14: error: cannot disable rule 'p.gone': 'p.gone' is an outcome [A108]",
        "a.attr:2:9: note: the outcome is declared here"},
       {{"a.attr", kLowerOutcome}}},
      {K::UnknownOverride, {{"a.attr", kLowerOutcome + "override outcome p.gone { when false family unknown }\n"}},
       {"a.attr:3:18: error: cannot override outcome 'p.gone': it is declared in the same rule set, not a lower "
        "layer; change it there [A108]",
        "a.attr:2:9: note: 'p.gone' is declared here"}},
      {K::DuplicateDeclaration,
       {{"b.attr", "package q\nimport p\ndisable outcome p.gone\noverride outcome p.gone { when false family unknown }\n"}},
       {"b.attr:4:18: error: 'p.gone' is changed twice in this layer [A101]",
        "b.attr:3:1: note: the first override or disable is here"},
       {{"a.attr", kLowerOutcome}}},
      {K::QualifiedDeclaration, {{"b.attr", "package q\nimport p\noutcome p.gone { when true family storage }\n"}},
       {"b.attr:3:9: error: an outcome is named with one name, not 'p.gone'; to replace the outcome 'p.gone' of a "
        "lower layer write 'override outcome p.gone' [A109]",
        "fix-it:\"b.attr\":{3:1-3:1}:\"override \""},
       {{"a.attr", kLowerOutcome}}},
      {K::UnknownProperty, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  familly unknown\n}\n"}},
       {"a.attr:4:3: error: symptom 'x' has no property 'familly'; did you mean 'family'? [A201]",
        "note: its properties are: title, description, ref, tags, status, author, id, family, severity, blame, role, action, message"}},
      {K::DuplicateProperty, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  family unknown\n  family storage\n}\n"}},
       {"a.attr:5:3: error: 'family' is given twice [A202]", "a.attr:4:3: note: first given here"}},
      {K::MissingProperty, {{"a.attr", "symptom x {\n  match /abcdef/\n  family unknown\n}\n"}},
       {"a.attr:1:9: error: symptom 'x' does not say what evidence it reads; add 'on log', 'on metric NAME' or "
        "'on scheduler' [A203]"}},
      {K::MissingProperty, {{"a.attr", "outcome o {\n  family unknown\n}\n"}},
       {"a.attr:1:9: error: outcome 'o' has no 'when' condition [A203]"}},
      {K::InvalidValue, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  family unknown\n  severity huge\n}\n"}},
       {"a.attr:5:12: error: 'huge' is not a valid severity for symptom 'x' [A204]",
        "note: valid values: critical, error, warning, info"}},
      {K::InvalidValue, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  family acelerator-gpu\n}\n"}},
       {"a.attr:4:10: error: 'acelerator-gpu' is not a valid family for symptom 'x'; did you mean "
        "'accelerator-gpu'? [A204]",
        "note: valid values: accelerator-gpu, accelerator-memory, accelerator-fabric, network-fabric, host-hardware, "
        "kernel-fatal, host-oom, device-oom, storage, communication, scheduler-timeout, scheduler-preemption, "
        "scheduler-cancel, node-failure, orchestration, software-framework, user-code, numerics, unknown"}},
      {K::InvalidValue, {{"a.attr", "outcome o {\n  when true\n  family unknown\n  confidence 1.5\n}\n"}},
       {"a.attr:4:14: error: confidence 1.5 is outside [0, 1] [A204]"}},
      {K::StreamMismatch,
       {{"a.attr", "symptom x {\n  on metric DCGM_FI_DEV_GPU_TEMP\n  match /abcdef/\n  when value > 90\n  family unknown\n}\n"}},
       {"a.attr:3:9: error: 'match' reads log lines, but this symptom reads the metric stream; use 'when' [A205]",
        "a.attr:2:6: note: the stream is chosen here"}},
      {K::InvalidAction, {{"a.attr", kSym + "rule r {\n  when s as a\n  then explain z by a\n}\n"}},
       {"a.attr:4:16: error: 'z' is not bound by this rule's 'when'; did you mean 'a'? [A206]"}},
      {K::InvalidAction, {{"a.attr", kSym + "rule r {\n  when s as a\n  then mark a as broken\n}\n"}},
       {"a.attr:4:18: error: 'mark a as broken': a symptom is marked 'bad' or 'interesting' [A206]"}},
      {K::InvalidTest, {{"a.attr", "test \"nothing\" {\n  workload { state FAILED }\n}\n"}},
       {"a.attr:1:6: error: test \"nothing\" expects nothing; add 'expect' lines [A207]"}},
      {K::InvalidTest, {{"a.attr", kSym + "test \"t\" {\n  log n1 syslog at 10:00:00 \"abcdef\"\n  expect root s\n}\n"}},
       {"a.attr:3:20: error: a time of day or '+offset' needs the workload's start: add "
        "'start 2026-01-01T00:00:00Z' to the workload block [A207]"}},
      // A log line without its time: one error at the text, not a syntax error and its cascade.
      {K::InvalidTest, {{"a.attr", kSym + "test \"t\" {\n  log n1 syslog \"abcdef\"\n  expect root s\n}\n"}},
       {"a.attr:3:17: error: a log line needs its time before the text: write 'at 2026-01-01T10:00:05Z', or "
        "'at 10:00:05' with the workload's start [A207]"}},
      {K::InvalidTest, {{"a.attr", kSym + "test \"t\" {\n  metric gpu_temp node n1 85\n  expect root s\n}\n"}},
       {"a.attr:3:27: error: a metric sample needs its time before the value: write 'at 2026-01-01T10:00:05Z', or "
        "'at 10:00:05' with the workload's start [A207]"}},
      {K::InvalidTest, {{"a.attr", kSym + "test \"t\" {\n  expect rot s\n}\n"}},
       {"a.attr:3:10: error: unknown expectation 'rot'; did you mean 'root'? [A207]",
        "note: expectations are: outcome, root, bad_nodes, interesting_nodes, downstream, family, state, confidence, "
        "action, symptom"}},
      {K::TypeMismatch, {{"a.attr", "symptom x {\n  on scheduler\n  when state == 3\n  family unknown\n}\n"}},
       {"a.attr:3:8: error: cannot compare a state with an int [A301]"}},
      {K::TypeMismatch, {{"a.attr", "outcome o {\n  when workload.start + workload.end\n  family unknown\n}\n"}},
       {"a.attr:2:8: error: '+' cannot combine a time and a time [A301]"}},
      {K::TypeMismatch, {{"a.attr", "outcome o {\n  when workload.ranks\n  family unknown\n}\n"}},
       {"a.attr:2:8: error: an outcome condition must be a bool, but this is an int [A301]"}},
      {K::UnknownField, {{"a.attr", "outcome o {\n  when root.nodee == \"n1\"\n  family unknown\n}\n"}},
       {"a.attr:2:13: error: the root cause has no field 'nodee'; did you mean 'node'? [A302]",
        "note: its fields are: time, node, rank, gpu, symptom, family, severity, blame, role, source, text"}},
      {K::UnknownFunction, {{"a.attr", kSym + "outcome o {\n  when cout(s) > 1\n  family unknown\n}\n"}},
       {"a.attr:3:8: error: unknown function 'cout'; did you mean 'count'? [A303]"}},
      {K::ArgumentMismatch, {{"a.attr", "outcome o {\n  when int(\"1\", 2) > 1\n  family unknown\n}\n"}},
       {"a.attr:2:8: error: int() takes 1 argument, not 2 [A304]"}},
      {K::WindowMisuse, {{"a.attr", "symptom x {\n  on metric DCGM_FI_DEV_GPU_TEMP\n  when avg(value) > 90\n  family unknown\n}\n"}},
       {"a.attr:3:8: error: avg() needs a time window: avg(value) over 5m [A305]"}},
      {K::WindowMisuse, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  when true for 5m\n  family unknown\n}\n"}},
       {"a.attr:4:13: error: 'for D' (a condition sustained over time) applies to metric symptoms only [A305]"}},
      {K::InvalidRange, {{"a.attr", kSym + "rule r {\n  when s as a, s as b\n  where b.time in [a.time]\n  then explain b by a\n}\n"}},
       {"a.attr:4:19: error: 'in [start, end]' on a time is an interval and needs exactly two bounds, not 1 [A306]"}},
      {K::InvalidRegex, {{"a.attr", "symptom x {\n  on log\n  match /abc(?=def)/\n  family unknown\n}\n"}},
       {"a.attr:3:10: error: Hyperscan cannot compile this pattern: Zero-width assertions are not supported [A401]"}},
      {K::InvalidRegex, {{"a.attr", "symptom x {\n  on log\n  match /abc(def/\n  family unknown\n}\n"}},
       {"a.attr:3:13: error: Hyperscan cannot compile this pattern: Missing close parenthesis for group started at "
        "index 3 [A401]"}},
      // A pattern that spans a record's lines is found by its last line, so it needs one.
      {K::InvalidRegex, {{"a.attr", "symptom x {\n  on log\n  match /Traceback \\(most recent call last\\):\\n/\n  family unknown\n}\n"}},
       {"a.attr:3:10: error: a pattern that spans lines must end with its last line's text (after the last '\\n'), "
        "which finds it [A401]"}},
      {K::InvalidCaptureRegex, {{"a.attr", "outcome o {\n  when workload.name =~ /abc(/\n  family unknown\n}\n"}},
       {"a.attr:2:30: error: PCRE2 cannot compile this pattern for capture extraction: missing closing parenthesis "
        "[A402]"}},
      {K::UnknownRegexFlag, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/q\n  family unknown\n}\n"}},
       {"a.attr:3:17: error: unknown regex flag 'q'; the flags are i (ignore case), s (dot matches newline) and u "
        "(Unicode) [A403]"}},
      {K::DuplicateCapture, {{"a.attr", "symptom x {\n  on log\n  match /(?<a>abc)(?<a>def)/\n  family unknown\n}\n"}},
       {"a.attr:3:19: error: two named groups in this pattern are both called 'a' [A404]"}},
      {K::UnusedSymptom, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  family communication\n  role consequence\n}\n"}},
       {"a.attr:1:9: warning: consequence symptom 'x' is never used: it cannot be a root cause, and no rule, filter, "
        "outcome or test refers to it [-Wunused-symptom]"}},
      {K::UnreachableOutcome,
       {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  family communication\n  role consequence\n}\n"
                   "outcome o {\n  when root is x\n  family unknown\n}\n"}},
       {"a.attr:8:8: warning: outcome 'o' can never hold: 'x' is never the root cause (consequence and context "
        "symptoms cannot be) [-Wunreachable-outcome]"}},
      {K::UnreachableOutcome, {{"a.attr", "outcome o {\n  when false and workload.ranks > 1\n  family unknown\n}\n"}},
       {"a.attr:2:8: warning: outcome 'o' can never hold: the condition is the constant false [-Wunreachable-outcome]"}},
      {K::ShadowedRule,
       {{"a.attr", "outcome a {\n  when workload.state == FAILED\n  family unknown\n}\noutcome b {\n  when workload.state == FAILED\n  family storage\n}\n"}},
       {"a.attr:5:9: warning: outcome 'b' has the same condition as outcome 'a', which comes first [-Wshadowed-rule]",
        "a.attr:2:8: note: the earlier condition is here"}},
      {K::ShadowedRule,
       {{"a.attr", kSym + "rule a {\n  when s as x, s as y\n  then explain y by x\n}\nrule b {\n  when s as x, s as y\n  then explain y by x\n}\n"}},
       {"a.attr:6:6: warning: rule 'b' repeats rule 'a' exactly, so it can never change a verdict [-Wshadowed-rule]",
        "a.attr:2:6: note: the earlier rule is here"}},
      {K::UnknownSource, {{"a.attr", "symptom x {\n  on log(source == sylog)\n  match /abcdef/\n  family unknown\n}\n"}},
       {"a.attr:2:20: warning: 'sylog' is not a log channel; did you mean 'syslog'? [-Wunknown-source]",
        "note: the channels are kernel, system, scheduler, orchestrator, container_runtime, application; the older "
        "source words applog, container, syslog, dmesg, k8s_events still read theirs"}},
      {K::ImplicitContext,
       {{"a.attr", "symptom s {\n  on log\n  match /abcdef/\n  family unknown\n  blame none\n}\n"
                   "outcome o { when s family unknown }\n"}},
       {"a.attr:5:3: warning: 'blame none' makes symptom 's' a context symptom, which is never the root cause; if it "
        "can be one, add 'role cause' (it then blames nothing); if not, add 'role context' [-Wimplicit-context]",
        "fix-it:\"a.attr\":{5:13-5:13}:\"  role cause\""}},
      {K::ReplacedPackage, {{"b.attr", "package p\noutcome kept { when true family storage }\n"}},
       {"b.attr:1:9: warning: package 'p' replaces the package of that name in stdlib, whose declarations (1 file) "
        "are then not used; to change single declarations, 'override' them instead [-Wreplaced-package]",
        "a.attr:1:9: note: the replaced package is declared here"},
       {{"a.attr", kLowerOutcome}}},
      {K::TypeMismatch, {{"a.attr", "outcome o {\n  when root.time + 20 > workload.start\n  family unknown\n}\n"}},
       {"a.attr:2:8: error: '+' cannot combine a time and an int; did you mean '20m' (or '20s')? A duration carries a "
        "unit: ms, us, s, m, h, d [A301]",
        "fix-it:\"a.attr\":{2:20-2:22}:\"20m\""}},
      {K::UnusedImport,
       {{"a.attr", "package a\nimport b\n"}, {"b.attr", "package b\nsymptom y { on log match /abcdef/ family unknown }\n"}},
       {"a.attr:2:1: warning: package 'b' is imported but never used [-Wunused-import]"}},
      {K::UnusedAlias, {{"a.attr", kSym + "rule r {\n  when s as a, s as b\n  then mark a as bad\n}\n"}},
       {"a.attr:3:21: warning: 'b' is bound but neither the condition nor the actions use it [-Wunused-alias]"}},
      {K::ShadowedCapture, {{"a.attr", "symptom x {\n  on log\n  match /job (?<text>[a-z]+) failed/\n  family unknown\n}\n"}},
       {"a.attr:3:10: warning: the capture 'text' has the name of a built-in field, so 'text' always reads the field; "
        "rename the capture [-Wshadowed-capture]"}},
      {K::WindowMisuse, {{"a.attr", "symptom x {\n  on log\n  match /abcdef/\n  when count(x) > 1\n  family unknown\n}\n"}},
       {"a.attr:4:8: error: count() relates symptom instances, which do not exist yet while a symptom is being "
        "extracted; use it in a rule, filter or outcome [A305]"}},
      {K::WeakPattern, {{"a.attr", "symptom x {\n  on log\n  match /[0-9]+ (ok|no)/\n  family unknown\n}\n"}},
       {"a.attr:3:10: warning: this pattern has no literal text of 3 or more characters, so it is tried on nearly "
        "every line and slows the whole scan [-Wweak-pattern]"}},
      {K::WeakPattern, {{"a.attr", "symptom x {\n  on log\n  match /ab\\d+/\n  family unknown\n}\n"}},
       {"a.attr:3:10: warning: this pattern has no literal text of 3 or more characters, so it is tried on nearly "
        "every line and slows the whole scan [-Wweak-pattern]"}},
  };
}

class DiagnosticCase : public ::testing::TestWithParam<size_t> {};

TEST_P(DiagnosticCase, ReportsExactMessageAndPlace) {
  const Case c = cases()[GetParam()];
  if (c.kind == DiagKind::TooManyErrors) GTEST_SKIP() << "checked by TooManyErrorsStopsAtTheCap";
  auto result = c.below.empty() ? testing::check(c.files) : testing::checkLayers({c.below, c.files});
  EXPECT_EQ(result.lines(), c.expected) << "diagnostic " << info(c.kind).code << " " << info(c.kind).slug;
  bool found = false;
  for (const auto& d : result.sink->diagnostics()) found |= d.kind == c.kind;
  EXPECT_TRUE(found) << "no " << info(c.kind).slug << " diagnostic";
}

INSTANTIATE_TEST_SUITE_P(All, DiagnosticCase, ::testing::Range<size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& p) {
                           std::string slug(attrib::info(cases()[p.param].kind).slug);
                           for (char& ch : slug) if (ch == '-') ch = '_';
                           return std::to_string(p.param) + "_" + slug;
                         });

TEST(Diagnostics, EveryKindHasACase) {
  std::set<DiagKind> covered;
  for (const auto& c : cases()) covered.insert(c.kind);
  for (const auto& k : allDiagKinds()) {
    EXPECT_TRUE(covered.count(k.kind)) << "no test case for " << k.code << " " << k.slug;
  }
}

TEST(Diagnostics, CodesAndSlugsAreUnique) {
  std::set<std::string_view> codes, slugs;
  for (const auto& k : allDiagKinds()) {
    EXPECT_TRUE(codes.insert(k.code).second) << k.code;
    EXPECT_TRUE(slugs.insert(k.slug).second) << k.slug;
  }
}

TEST(Diagnostics, TooManyErrorsStopsAtTheCap) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "@\n";
  auto result = testing::check(text);
  auto lines = result.lines();
  ASSERT_EQ(lines.size(), DiagnosticSink::kDefaultMaxErrorsPerFile + 1);
  EXPECT_EQ(lines.front(), "t.attr:1:1: error: unexpected character '@' [A005]");
  EXPECT_EQ(lines[49], "t.attr:50:1: error: unexpected character '@' [A005]");
  EXPECT_EQ(lines.back(), "t.attr:50:1: error: too many errors in this file; further errors are not reported [A010]");
}

TEST(Diagnostics, ErrorsInEveryFileAreReportedInOneRun) {
  auto result = testing::check({{"a.attr", "symptom x @ { }\n"}, {"b.attr", "outcome o { when nope family unknown }\n"},
                                {"c.attr", "symptom y { on log match /abc(/ family unknown }\n"}});
  auto lines = result.lines();
  ASSERT_EQ(lines.size(), 3u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0].substr(0, 7), "a.attr:");
  EXPECT_EQ(lines[1].substr(0, 7), "b.attr:");
  EXPECT_EQ(lines[2].substr(0, 7), "c.attr:");
}

TEST(Diagnostics, WarningsAsErrorsAndDisabledWarnings) {
  std::string text = "symptom x {\n  on log\n  match /ab\\d+/\n  family unknown\n}\n";
  {
    DiagnosticSink sink;
    sink.setWarningsAsErrors(true);
    Compilation c(sink);
    c.addSource("a.attr", text);
    c.check();
    ASSERT_EQ(sink.errorCount(), 1u);
    EXPECT_EQ(sink.diagnostics()[0].kind, DiagKind::WeakPattern);
  }
  {
    DiagnosticSink sink;
    sink.disableWarning(DiagKind::WeakPattern);
    Compilation c(sink);
    c.addSource("a.attr", text);
    c.check();
    EXPECT_TRUE(sink.diagnostics().empty());
  }
}

}  // namespace
}  // namespace attrib

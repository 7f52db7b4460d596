// What the verdict's words mean to people: the failure families and the action words, with the
// command a site would run for an action. The wording is docs/verdict.md's ("Failure families"
// and "Actions" tables), compiled in at build time, so the report and the documentation cannot
// drift apart: there is one text, and a test checks it covers the language's whole vocabulary.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attrib::report {

// Cells keep the document's inline Markdown (`code` spans); render them with html::inlineMarkdown.
struct FamilyMeaning {
  std::string name;      // e.g. accelerator-gpu
  std::string meaning;   // "the first thing that went wrong"
  std::string evidence;  // "typical evidence" (may be empty)
};

struct ActionMeaning {
  std::string name;  // e.g. drain_node
  std::string meaning;
  // Markdown: the commands in `code` spans, with the placeholders NODES, NODE, JOB, GPU, POD,
  // SCRIPT and REASON (empty: none fits).
  std::string slurm, kubernetes;
};

struct Meanings {
  std::vector<FamilyMeaning> families;
  std::vector<ActionMeaning> actions;
  const FamilyMeaning* family(std::string_view name) const;
  const ActionMeaning* action(std::string_view name) const;
};

// docs/verdict.md's tables, parsed once.
const Meanings& meanings();

// The tables of a verdict.md-shaped document; false with `error` when a table is missing or a
// row does not have its columns.
bool parseMeanings(std::string_view markdown, Meanings* out, std::string* error);

}  // namespace attrib::report

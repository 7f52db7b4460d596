#include "compiler/bundle_writer.h"

#include <fmt/format.h>
#include <hs/hs.h>

#include <algorithm>
#include <memory>

#include "ir/bundle_format.h"
#include "compiler/scan_form.h"
#include "ir/codec.h"
#include "ir/log_channels.h"
#include "ir/sha256.h"
#include "ir/telling_words.h"

namespace attrib {

unsigned scanFlags(const std::string& flags) {
  unsigned out = HS_FLAG_MULTILINE;
  for (char f : flags) {
    if (f == 'i') out |= HS_FLAG_CASELESS;
    if (f == 's') out |= HS_FLAG_DOTALL;
    if (f == 'u') out |= HS_FLAG_UTF8 | HS_FLAG_UCP;
  }
  return out;
}

namespace {

// The digest names what decides verdicts, and nothing else: the text of every file that takes
// part, layer by layer, in the order lowering reads them (which decides precedence). Paths do
// not enter it, so the same rules give the same digest wherever they were built from.
std::string rulesDigest(const Compilation& c) {
  std::vector<std::vector<std::string_view>> layers;
  size_t current = SIZE_MAX;
  for (const ast::Module* m : c.declarationOrder()) {
    if (m->layer != current) {
      layers.emplace_back();
      current = m->layer;
    }
    layers.back().push_back(c.sources().file(m->file).text());
  }
  ir::Writer w;
  w.varint(layers.size());
  for (const auto& texts : layers) {
    w.varint(texts.size());
    for (auto text : texts) w.bytes(text);
  }
  return sha256(w.str());
}

}  // namespace

BundleResult buildBundle(const Compilation& compilation, const LowerOptions& options,
                         const std::string& attribcVersion) {
  BundleResult result;
  ir::Program program = lower(compilation, options);

  // The symptoms' distinct patterns in their scan forms (compiler/scan_form.h; a pattern several
  // symptoms share is one expression), then the channel markers
  // (ir/log_channels.h) and the telling words (ir/telling_words.h), so one pass over the bytes
  // finds them all. And the same without the channel markers, for a chunk whose every line a
  // Program or Prefix marker claims (a dmesg or syslog chunk): there the markers would only find
  // lines already classified, and in kernel logs nearly every line holds one (NVRM, mlx5_core).
  // The ids are the same in both, so one match callback reads either.
  std::vector<std::vector<PatternRef>> table = logExpressionTable(program);
  const auto& markers = ir::markerExpressions();
  auto compileDatabase = [&](bool withMarkers, std::string* database) {
    std::vector<std::string> forms;
    std::vector<unsigned> flags, ids;
    for (size_t i = 0; i < table.size(); ++i) {
      const ir::Pattern& p = program.symptoms[table[i][0].symptom].patterns[table[i][0].pattern];
      forms.push_back(scanForm(p.regex).expression);
      flags.push_back(scanFlags(p.flags));
      ids.push_back(static_cast<unsigned>(i));
    }
    for (size_t m = 0; withMarkers && m < markers.size(); ++m) {
      forms.push_back(markers[m].regex);
      flags.push_back(HS_FLAG_MULTILINE);
      ids.push_back(static_cast<unsigned>(table.size() + m));
    }
    // Then the telling words (ir/telling_words.h): what an unknown verdict shows as candidates.
    const auto& words = ir::tellingWords();
    for (size_t t = 0; t < words.size(); ++t) {
      forms.emplace_back(words[t].regex);
      flags.push_back(HS_FLAG_MULTILINE | HS_FLAG_CASELESS);
      ids.push_back(static_cast<unsigned>(table.size() + markers.size() + t));
    }
    std::vector<const char*> expressions;
    for (const auto& f : forms) expressions.push_back(f.c_str());
    hs_database_t* db = nullptr;
    hs_compile_error_t* error = nullptr;
    if (hs_compile_multi(expressions.data(), flags.data(), ids.data(), static_cast<unsigned>(expressions.size()),
                         HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
      int index = error ? error->expression : -1;
      std::string where = index >= 0 && static_cast<size_t>(index) < table.size()
                              ? fmt::format(" (symptom {})", program.symptoms[table[index][0].symptom].name)
                              : index >= 0 ? " (a channel marker or telling word)" : "";
      result.error = fmt::format("Hyperscan cannot compile the log patterns{}: {}", where,
                                 error && error->message ? error->message : "unknown error");
      hs_free_compile_error(error);
      return false;
    }
    char* bytes = nullptr;
    size_t length = 0;
    hs_error_t status = hs_serialize_database(db, &bytes, &length);
    hs_free_database(db);
    if (status != HS_SUCCESS) {
      result.error = "Hyperscan cannot serialise the log database";
      return false;
    }
    database->assign(bytes, length);
    std::free(bytes);
    return true;
  };
  std::string database, databaseWithoutMarkers;
  if (!compileDatabase(true, &database) || !compileDatabase(false, &databaseWithoutMarkers)) return result;

  std::string digest = rulesDigest(compilation);
  ir::Writer body;
  body.bytes(digest);
  body.bytes(program.name);
  body.bytes(program.version);
  body.bytes(attribcVersion);
  body.bytes(hs_version());
  body.bytes(ir::markerTableDigest());
  body.bytes(ir::encode(program));
  body.varint(2);
  body.u8(static_cast<uint8_t>(ir::StreamKind::Log));
  body.varint(table.size());
  body.varint(markers.size());
  body.bytes(database);
  body.u8(static_cast<uint8_t>(ir::StreamKind::Log));
  body.varint(table.size());
  body.varint(0);
  body.bytes(databaseWithoutMarkers);
  std::string out(kBundleMagic);
  uint32_t version = kBundleFormatVersion;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(version >> (8 * i)));
  out += body.str();
  out += sha256(out);

  result.ok = true;
  result.bytes = std::move(out);
  result.digest = digestString(digest);
  result.symptoms = program.symptoms.size();
  for (const auto& uses : table) result.patterns += uses.size();
  result.expressions = table.size();
  result.rules = program.rules.size();
  result.outcomes = program.outcomes.size();
  return result;
}

}  // namespace attrib

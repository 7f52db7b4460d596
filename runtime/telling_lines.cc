#include "runtime/telling_lines.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "evidence/byte_masks.h"
#include "ir/ascii.h"
#include "ir/telling_words.h"

namespace attrib::runtime {

std::string messageForm(std::string_view message) {
  std::string form;
  messageForm(message, &form);
  return form;
}

void messageForm(std::string_view message, std::string* out) {
  // Every telling line of the evidence is formed (tens of thousands per GB of quiet logs), so the
  // form is built in a fixed buffer with one table load per byte, not a character test call and a
  // string append per byte.
  constexpr size_t kMaxFormBytes = 160;
  enum : uint8_t { kDigit = 1, kHex = 2, kBlank = 4 };
  static constexpr std::array<uint8_t, 256> kClass = [] {
    std::array<uint8_t, 256> t{};
    for (int c = '0'; c <= '9'; ++c) t[c] = kDigit | kHex;
    for (int c = 'a'; c <= 'f'; ++c) t[c] = kHex;
    for (int c = 'A'; c <= 'F'; ++c) t[c] = kHex;
    t[' '] = t['\t'] = t['\r'] = kBlank;
    return t;
  }();
  auto is = [&](size_t i, uint8_t cls) { return (kClass[static_cast<unsigned char>(message[i])] & cls) != 0; };
  char form[kMaxFormBytes];
  size_t n = 0;
  const size_t size = message.size();
  for (size_t i = 0; i < size && n < kMaxFormBytes;) {
    const char c = message[i];
    if (c == '0' && i + 2 < size && (message[i + 1] == 'x' || message[i + 1] == 'X') && is(i + 2, kHex)) {
      for (i += 2; i < size && is(i, kHex); ++i) {
      }
      form[n++] = '#';
    } else if (is(i, kDigit)) {
      for (++i; i < size && is(i, kDigit); ++i) {
      }
      form[n++] = '#';
    } else if (is(i, kBlank)) {
      for (++i; i < size && is(i, kBlank); ++i) {
      }
      if (n > 0) form[n++] = ' ';
    } else {
      form[n++] = c;
      ++i;
    }
  }
  while (n > 0 && form[n - 1] == ' ') --n;
  out->assign(form, n);
}

namespace {

constexpr bool wordByte(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The demotions (ir::tellingDemotions()) that stand in `line` as whole words, compared without
// regard to case, added up. One walk over the line's word starts, each compared only with the
// phrases that begin with its letter: no lowered copy of the line and no search per phrase,
// since every candidate line (a few hundred thousand per GB) comes here.
int demotionsIn(std::string_view line) {
  struct Phrases {
    std::vector<std::string> lowered;
    std::vector<int> weight;
    uint64_t byFirst[256] = {};  // the phrases (bits) that begin with a byte, either case
    std::vector<char> firsts;     // the distinct first bytes, in lower case
  };
  static const Phrases phrases = [] {
    Phrases out;
    const auto& demotions = ir::tellingDemotions();
    for (size_t k = 0; k < demotions.size() && k < 64; ++k) {
      std::string p = ir::asciiLower(demotions[k].phrase);
      if (p.empty()) continue;
      const auto first = static_cast<unsigned char>(p[0]);
      out.byFirst[first] |= uint64_t{1} << out.lowered.size();
      if (first >= 'a' && first <= 'z') out.byFirst[first - 'a' + 'A'] |= uint64_t{1} << out.lowered.size();
      if (std::find(out.firsts.begin(), out.firsts.end(), p[0]) == out.firsts.end()) out.firsts.push_back(p[0]);
      out.lowered.push_back(std::move(p));
      out.weight.push_back(demotions[k].weight);
    }
    return out;
  }();
  static constexpr std::array<bool, 256> kWordByte = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c) t[c] = wordByte(static_cast<char>(c));
    return t;
  }();
  auto isWord = [&](size_t i) { return kWordByte[static_cast<unsigned char>(line[i])]; };
  uint64_t seen = 0;  // each phrase counts once however often it stands in the line
  int weight = 0;
  const size_t size = line.size();
  // The phrases that begin with the byte at i, a word's start, compared there.
  auto tryAt = [&](size_t i) {
    for (uint64_t candidates = phrases.byFirst[static_cast<unsigned char>(line[i])] & ~seen; candidates != 0;
         candidates &= candidates - 1) {
      const auto k = static_cast<size_t>(__builtin_ctzll(candidates));
      const std::string& p = phrases.lowered[k];
      if (p.size() > size - i) continue;
      size_t n = 1;
      while (n < p.size() && ir::asciiLower(line[i + n]) == p[n]) ++n;
      if (n < p.size() || (i + n < size && isWord(i + n))) continue;
      seen |= uint64_t{1} << k;
      weight += phrases.weight[k];
    }
  };
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time: the starts of words whose first byte begins some phrase, from
  // compare masks, so that a line (every telling line of the evidence comes here) is not walked
  // a byte and a branch at a time. The scalar loop below finishes the last bytes.
  if (phrases.firsts.size() <= 8) {
    const __m128i caseBit = _mm_set1_epi8(0x20);
    unsigned previousWord = 0;  // whether the byte before the block is a word byte
    for (; i + 16 <= size; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(line.data() + i));
      const __m128i lowered = _mm_or_si128(v, caseBit);
      const auto word = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_or_si128(evidence::bytesInRange(lowered, 'a', 'z'), evidence::bytesInRange(v, '0', '9'))));
      __m128i first = _mm_setzero_si128();
      for (char c : phrases.firsts) first = _mm_or_si128(first, _mm_cmpeq_epi8(lowered, _mm_set1_epi8(c)));
      const unsigned starts = word & ~((word << 1) | previousWord) & 0xffffu;
      for (unsigned candidates = starts & static_cast<unsigned>(_mm_movemask_epi8(first)); candidates != 0;
           candidates &= candidates - 1) {
        tryAt(i + static_cast<size_t>(__builtin_ctz(candidates)));
      }
      previousWord = (word >> 15) & 1u;
    }
    // The scalar loop goes on at a word's start, or past a word begun in the last block.
    while (i < size && i > 0 && isWord(i) && isWord(i - 1)) ++i;
  }
#endif
  while (i < size) {
    if (!isWord(i)) {
      ++i;
      continue;
    }
    // A word starts at i: the phrases that begin with its byte are compared here, and the rest
    // of the word is skipped, since a phrase starts a word.
    tryAt(i);
    for (++i; i < size && isWord(i); ++i) {
    }
  }
  return weight;
}

}  // namespace

int tellingWeight(const std::vector<uint32_t>& words, std::string_view line) {
  const auto& table = ir::tellingWords();
  int strongest = 0;
  for (uint32_t w : words) {
    if (w < table.size()) strongest = std::max(strongest, table[w].weight);
  }
  if (strongest <= 0) return 0;
  return strongest + demotionsIn(line);
}

bool TellingLines::wantsFirst(const std::string& form, const std::string& writer) {
  if (auto it = index_.find(form); it != index_.end()) {
    TellingLine& line = lines_[it->second];
    ++line.count;
    if (line.writers.size() < kMaxWriters) line.writers.insert(writer);
    return false;
  }
  if (lines_.size() >= kMaxForms) {
    ++dropped_;
    return false;
  }
  return true;
}

void TellingLines::add(TellingLine line) {
  if (line.count == 0) line.count = 1;
  index_.emplace(line.form, lines_.size());
  lines_.push_back(std::move(line));
}

void TellingLines::merge(TellingLines&& other) {
  dropped_ += other.dropped_;
  for (auto& line : other.lines_) {
    auto it = index_.find(line.form);
    if (it == index_.end()) {
      if (lines_.size() >= kMaxForms) {
        dropped_ += line.count;
        continue;
      }
      index_.emplace(line.form, lines_.size());
      lines_.push_back(std::move(line));
      continue;
    }
    TellingLine& mine = lines_[it->second];
    mine.count += line.count;
    for (const auto& w : line.writers) {
      if (mine.writers.size() >= kMaxWriters) break;
      mine.writers.insert(w);
    }
    if (earlier(line.first, mine.first)) mine.first = std::move(line.first);
  }
}

std::vector<Candidate> TellingLines::best(size_t n) const {
  std::vector<const TellingLine*> order;
  for (const auto& l : lines_) order.push_back(&l);
  auto key = [](const TellingLine* l) {
    return std::make_tuple(-l->weight, l->writers.size(), l->first.time, l->first.sequence, l->form);
  };
  std::sort(order.begin(), order.end(), [&](const TellingLine* a, const TellingLine* b) { return key(a) < key(b); });
  std::vector<Candidate> out;
  for (size_t i = 0; i < order.size() && i < n; ++i) {
    const TellingLine& l = *order[i];
    Candidate c;
    c.evidence = evidenceLineOf(l.first);
    c.rank = l.first.rank;
    c.weight = l.weight;
    c.count = l.count;
    c.writers = l.writers.size();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace attrib::runtime

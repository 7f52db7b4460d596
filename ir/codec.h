// Binary encoding of an ir::Program, for bundles. The decoder treats its input as untrusted:
// every length and count is checked against the bytes left, enums against their ranges and
// expression nesting against a limit, so a truncated or corrupted program is an error, never a
// crash or an unbounded allocation.
#pragma once

#include <string>
#include <string_view>

#include "ir/ir.h"

namespace attrib::ir {

std::string encode(const Program& program);

// Decodes `bytes` into `program`; on failure returns false and sets `error` to one line
// ("truncated program at byte 1234", "bad operator 99 at byte 17", ...).
bool decode(std::string_view bytes, Program* program, std::string* error);

// Low-level pieces shared with the bundle format.
class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void varint(uint64_t v);
  void svarint(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void f64(double v);
  void bytes(std::string_view s);  // length-prefixed
  void raw(std::string_view s) { out_.append(s); }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool u8(uint8_t* v);
  bool varint(uint64_t* v);
  bool svarint(int64_t* v);
  bool f64(double* v);
  bool bytes(std::string_view* s);  // a view into the input
  bool string(std::string* s);
  bool raw(size_t n, std::string_view* s);
  // A count of items that each take at least `minBytes`: refuses counts the input cannot hold.
  bool count(uint64_t* n, size_t minBytes = 1);
  size_t position() const { return pos_; }
  size_t remaining() const { return in_.size() - pos_; }
  bool failed() const { return failed_; }
  // Marks the reader failed with a reason (the first one wins).
  bool fail(std::string reason);
  const std::string& error() const { return error_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  bool failed_ = false;
  std::string error_;
};

}  // namespace attrib::ir

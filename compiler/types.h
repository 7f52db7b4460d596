// The types of the .attr expression language.
//
// Values are scalars (bool, int, float, string, time, duration, terminal state), symptom
// instances (one matched event: `root`, a rule's alias, `first(xid48)`), symptom sets (what a
// selector such as `std.nccl.*` denotes), lists and ranges of scalars, and regexes. `Error` is
// the type of an expression that already produced a diagnostic: every check accepts it
// silently, so one mistake is reported once, not at every enclosing operator.
#pragma once

#include <memory>
#include <string>

namespace attrib {

enum class TypeKind {
  Error,
  Bool,
  Int,
  Float,
  String,
  Time,
  Duration,
  State,     // a normalised terminal state: COMPLETED, FAILED, TIMEOUT, ...
  Instance,  // one symptom instance, or none
  SymptomSet,
  Workload,
  List,      // elements: `element`
  Range,     // `[a .. b]`; elements: `element`
  None,      // the literal `none`
};

class Type {
 public:
  Type() = default;
  static Type error() { return Type(TypeKind::Error); }
  static Type of(TypeKind kind) { return Type(kind); }
  static Type listOf(const Type& element);
  static Type rangeOf(const Type& element);

  TypeKind kind() const { return kind_; }
  bool isError() const { return kind_ == TypeKind::Error; }
  bool isNumeric() const { return kind_ == TypeKind::Int || kind_ == TypeKind::Float; }
  bool is(TypeKind k) const { return kind_ == k; }
  // The element type of a List or Range.
  const Type& element() const;

  std::string name() const;
  // The name with an article: "an int", "a string".
  std::string withArticle() const;
  bool operator==(const Type& other) const;

 private:
  explicit Type(TypeKind kind) : kind_(kind) {}
  TypeKind kind_ = TypeKind::Error;
  std::shared_ptr<const Type> element_;
};

}  // namespace attrib

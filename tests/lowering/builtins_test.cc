// compiler/builtins.h: the one table of scalar built-ins that the checker and lowering read.
#include "compiler/builtins.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "compiler/compilation.h"
#include "compiler/lower.h"

namespace attrib {
namespace {

TEST(Builtins, TheLanguagesFunctionsAreInTheTableOnceWithDistinctOps) {
  // docs/language.md, "Functions": the scalar built-ins.
  const std::set<std::string> documented = {"int", "float", "string", "abs", "len", "lower",
                                            "contains", "starts_with", "ends_with", "min", "max"};
  std::set<std::string> names;
  std::set<ir::Op> ops;
  for (const auto& b : builtins()) {
    EXPECT_TRUE(names.insert(std::string(b.name)).second) << b.name << " twice";
    EXPECT_TRUE(ops.insert(b.op).second) << b.name << " shares its op";
    EXPECT_TRUE(b.arity == 1 || b.arity == 2) << b.name;
    EXPECT_EQ(findBuiltin(b.name), &b);
  }
  EXPECT_EQ(names, documented);
  EXPECT_EQ(findBuiltin("count"), nullptr);  // an aggregate, not a scalar built-in
  EXPECT_EQ(findBuiltin("avg"), nullptr);    // a window aggregate
  EXPECT_EQ(findBuiltin("in"), nullptr);
}

// What the checker accepts, lowering emits with the table's op: each built-in called with
// arguments of its kinds lowers to one node of that op.
TEST(Builtins, EachCallLowersToItsOp) {
  auto argument = [](BuiltinArg kind) -> std::string {
    switch (kind) {
      case BuiltinArg::NumberOrString: return "text";
      case BuiltinArg::Scalar: return "rank";
      case BuiltinArg::NumberOrDuration: return "rank";
      case BuiltinArg::String: return "text";
      case BuiltinArg::Ordered: return "rank";
    }
    return "";
  };
  for (const auto& b : builtins()) {
    SCOPED_TRACE(std::string(b.name));
    std::string call = std::string(b.name) + "(" + argument(b.args[0]);
    if (b.arity == 2) call += ", " + argument(b.args[1]);
    call += ")";
    std::string compare = b.result == BuiltinResult::Bool ? call : "string(" + call + ") != \"\"";
    if (b.name == "string") compare = call + " != \"\"";
    DiagnosticSink sink;
    Compilation c(sink);
    c.addSource("t.attr", "package t\nsymptom s { on log match /x/ family storage when " + compare + " }\n");
    c.check();
    ASSERT_EQ(sink.errorCount(), 0u) << call;
    ir::Program p = lower(c);
    ASSERT_EQ(p.symptoms.size(), 1u);
    // Find the node: the when-clause is (ne (to-string CALL) "") or CALL itself.
    const ir::Expr* e = &p.symptoms[0].when;
    if (e->op == ir::Op::Ne) e = &e->operands[0];
    if (e->op == ir::Op::ToString && b.op != ir::Op::ToString) e = &e->operands[0];
    EXPECT_EQ(e->op, b.op) << ir::dump(p.symptoms[0].when);
    EXPECT_EQ(e->operands.size(), b.arity);
  }
}

}  // namespace
}  // namespace attrib

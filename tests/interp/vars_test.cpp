// Tests of the variable store (interp/vars.hpp): its name table keeps every binding where it is while the
// table grows, a copy is independent of the original, and scopes push and pop over both.
#include "interp/vars.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bashkit::interp {
namespace {

std::string value_of(const VarStore& vs, const std::string& name) {
    const Var* v = vs.find(name);
    return v && v->set ? v->str() : "<unset>";
}

Var& set(VarStore& vs, const std::string& name, const std::string& value) {
    Var& v = vs.lookup_or_create(name);
    v.set_str(value);
    v.set = true;
    return v;
}

TEST(VarStore, BindingsStayWhereTheyAreWhileTheTableGrows) {
    VarStore vs;
    Var& first = set(vs, "first", "1");
    const Var* first_seen = vs.find("first");
    // Past several chunks of entries and index sizes.
    for (int i = 0; i < 5000; ++i) set(vs, "v" + std::to_string(i), std::to_string(i * 7));
    EXPECT_EQ(&first, vs.find("first"));
    EXPECT_EQ(first_seen, vs.find("first"));
    first.set_str("changed");
    EXPECT_EQ(value_of(vs, "first"), "changed");
    for (int i = 0; i < 5000; i += 499) EXPECT_EQ(value_of(vs, "v" + std::to_string(i)), std::to_string(i * 7));
    EXPECT_EQ(vs.find("v5000"), nullptr);
    EXPECT_EQ(vs.find(""), nullptr);
    EXPECT_EQ(vs.visible().size(), 5001u);
    EXPECT_EQ(vs.names_with_prefix("v499").size(), 11u);  // v499, v4990 ... v4999
}

TEST(VarStore, ACopyIsIndependentOfTheOriginal) {
    VarStore vs;
    for (int i = 0; i < 100; ++i) set(vs, "n" + std::to_string(i), "orig" + std::to_string(i));
    set(vs, "long", std::string(200, 'x'));
    VarStore copy(vs);
    set(copy, "n3", "copy");
    set(copy, "only_in_copy", "c");
    copy.find("long")->str_mut() += "y";
    EXPECT_TRUE(copy.unset("n4", 0));
    EXPECT_EQ(value_of(vs, "n3"), "orig3");
    EXPECT_EQ(value_of(vs, "n4"), "orig4");
    EXPECT_EQ(value_of(vs, "only_in_copy"), "<unset>");
    EXPECT_EQ(vs.find("long")->str().size(), 200u);
    EXPECT_EQ(value_of(copy, "n3"), "copy");
    EXPECT_EQ(value_of(copy, "n4"), "<unset>");
    EXPECT_EQ(copy.find("long")->str().size(), 201u);
    // The copy goes on growing on its own, and so does the original.
    for (int i = 0; i < 300; ++i) set(copy, "c" + std::to_string(i), "x");
    for (int i = 0; i < 300; ++i) set(vs, "o" + std::to_string(i), "y");
    EXPECT_EQ(value_of(copy, "c299"), "x");
    EXPECT_EQ(value_of(copy, "o0"), "<unset>");
    EXPECT_EQ(value_of(vs, "o299"), "y");
    EXPECT_EQ(value_of(vs, "c0"), "<unset>");
    // Assignment and moves carry the whole table.
    VarStore assigned;
    set(assigned, "gone", "1");
    assigned = copy;
    EXPECT_EQ(value_of(assigned, "gone"), "<unset>");
    EXPECT_EQ(value_of(assigned, "c150"), "x");
    VarStore moved(std::move(assigned));
    EXPECT_EQ(value_of(moved, "n3"), "copy");
    VarStore target;
    set(target, "t", "1");
    target = std::move(moved);
    EXPECT_EQ(value_of(target, "long").size(), 201u);
    EXPECT_EQ(value_of(target, "t"), "<unset>");
}

TEST(VarStore, ScopesPushAndPopOverCopies) {
    VarStore vs;
    set(vs, "x", "global");
    Var& local = vs.declare_at("x", 1);
    local.set_str("local");
    local.set = true;
    vs.declare_at("fresh", 1).set = true;
    VarStore copy(vs);
    EXPECT_EQ(value_of(copy, "x"), "local");
    copy.pop_scope(1);
    EXPECT_EQ(value_of(copy, "x"), "global");
    EXPECT_EQ(copy.find("fresh"), nullptr);
    EXPECT_EQ(value_of(vs, "x"), "local");
    EXPECT_EQ(vs.scope_of("x"), 1);
    vs.pop_scope(1);
    EXPECT_EQ(value_of(vs, "x"), "global");
    EXPECT_EQ(vs.scope_of("x"), 0);
    EXPECT_EQ(vs.scope_of("fresh"), -1);
}

}  // namespace
}  // namespace bashkit::interp

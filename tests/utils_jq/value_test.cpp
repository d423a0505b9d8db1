// jq's value representation: copy on write, short strings held inline, and what a parsed document is charged
// to the session's memory budget (a 100 MB JSON input must fit the default 1 GiB budget: about 6 bytes of
// values per byte of text for an array of small objects, where the 32-byte values with a shared_ptr each took
// 11).
#include <gtest/gtest.h>

#include <string>

#include "utils/jq/value.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::jq {
namespace {

TEST(JqValue, StringsOfEveryLengthRoundTrip) {
    for (size_t n : {0u, 1u, 12u, 13u, 14u, 15u, 16u, 100u}) {
        std::string s(n, 'a');
        for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
        Value v = Value::string(s);
        ASSERT_TRUE(v.is_string());
        EXPECT_EQ(v.str(), s) << n;
        Value moved = std::move(v);
        EXPECT_EQ(moved.str(), s) << n;
        Value copy = moved;
        EXPECT_EQ(copy.str(), s) << n;
        EXPECT_TRUE(equal(copy, moved));
    }
}

TEST(JqValue, MutatingACopyLeavesTheOriginal) {
    Value shortv = Value::string("abc");
    Value shortc = shortv;
    shortc.str_mut() += "defghijklmnopqrstuvwxyz";  // an inline string moved to the heap by the change
    EXPECT_EQ(shortv.str(), "abc");
    EXPECT_EQ(shortc.str(), "abcdefghijklmnopqrstuvwxyz");

    Value a = Value::array({Value::number(1), Value::string("x")});
    Value b = a;
    b.arr_mut().push_back(Value::null());
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(b.size(), 3u);

    Value o = Value::object();
    o.set("k", Value::number(1));
    Value p = o;
    p.set("k", Value::number(2));
    p.set("other", Value::boolean(true));
    EXPECT_EQ(o.get("k")->num(), 1);
    EXPECT_EQ(o.size(), 1u);
    EXPECT_EQ(p.get("k")->num(), 2);
    EXPECT_TRUE(p.erase("k"));
    EXPECT_EQ(o.get("k")->num(), 1);
    EXPECT_EQ(p.get("k"), nullptr);
}

TEST(JqValue, LargeObjectsFindTheirKeysAfterGrowth) {
    Value o = Value::object();
    for (int i = 0; i < 200; ++i) o.set("key number " + std::to_string(i), Value::number(i));
    for (int i = 0; i < 200; i += 7) {
        const Value* v = o.get("key number " + std::to_string(i));
        ASSERT_NE(v, nullptr) << i;
        EXPECT_EQ(v->num(), i);
    }
    EXPECT_TRUE(o.erase("key number 3"));
    EXPECT_EQ(o.get("key number 3"), nullptr);
    EXPECT_EQ(o.get("key number 4")->num(), 4);
}

TEST(JqValue, LiteralNumbersKeepTheirTextAndValue) {
    Value v = number_from_token("1.000");
    EXPECT_EQ(v.num(), 1);
    ASSERT_NE(v.literal(), nullptr);
    EXPECT_EQ(v.literal()->text, "1.000");
    Value plain = number_from_token("2.5");
    EXPECT_EQ(plain.num(), 2.5);
    EXPECT_EQ(plain.literal(), nullptr);
}

std::string small_objects(int n) {
    std::string text = "[";
    for (int i = 0; i < n; ++i) {
        if (i) text += ",\n";
        text += R"({"id":)" + std::to_string(i) + R"(,"x":)" + std::to_string(i % 11) +
                R"(,"name":"losika","score":293.4,"ok":false,"tags":["gu","de"]})";
    }
    return text + "]";
}

TEST(JqValue, AParsedDocumentIsChargedAFewTimesItsText) {
    const std::string text = small_objects(20000);
    interp::MemoryBudget budget;
    {
        BudgetScope scope(&budget);
        Value doc;
        std::string err;
        ASSERT_TRUE(parse_json(text, doc, err)) << err;
        ASSERT_EQ(doc.size(), 20000u);
        EXPECT_LE(budget.used(), text.size() * 7) << "bytes charged per byte of JSON text: "
                                                  << static_cast<double>(budget.used()) / static_cast<double>(text.size());
        EXPECT_GT(budget.used(), text.size());  // the document is charged at all
    }
    EXPECT_EQ(budget.used(), 0u);  // and every charge is given back
}

TEST(JqValue, ADocumentPastTheBudgetStopsTheParse) {
    const std::string text = small_objects(20000);
    interp::MemoryBudget budget(text.size());  // less than the values need
    BudgetScope scope(&budget);
    Value doc;
    std::string err;
    EXPECT_THROW(parse_json(text, doc, err), interp::MemoryLimitExceeded);
}

}  // namespace
}  // namespace bashkit::utils::jq

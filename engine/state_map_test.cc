// Goal: StateMap is copy on write at the scope list and at each scope: a copy shares everything
// with its original, a write through one never shows through the other, and a write copies only
// the scope it changes (the other scopes stay the very same objects). Reads behave like the
// std::map of scopes it replaced (sorted iteration, at/find/count, empty scopes dropped on erase).
// Method: small maps, written and copied in every order; sharing checked by object identity
// (SharesScopeWith, SharesAllWith), isolation by value.
#include "engine/state_map.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace stepfault {
namespace {

StateMap ThreeScopes() {
  StateMap m;
  m.Set("executor:b", "v", Json("b0"));
  m.Set("executor:a", "v", Json("a0"));
  m.Set("shared:s", "k", Json(1));
  m.Set("shared:s", "j", Json(2));
  return m;
}

TEST(StateMapTest, IteratesScopesAndKeysInSortedOrderLikeAMapOfMaps) {
  const StateMap m = ThreeScopes();
  std::vector<std::string> seen;
  for (const auto& [scope, values] : m) {
    for (const auto& [key, value] : values) seen.push_back(scope + "/" + key + "=" + value->dump());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"executor:a/v=\"a0\"", "executor:b/v=\"b0\"",
                                            "shared:s/j=2", "shared:s/k=1"}));
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.count("shared:s"), 1u);
  EXPECT_EQ(m.count("shared:t"), 0u);
  EXPECT_EQ(m.at("shared:s").at("k").get(), Json(1));
  EXPECT_THROW(m.at("nope"), std::out_of_range);
  ASSERT_NE(m.Find("executor:a", "v"), nullptr);
  EXPECT_EQ(m.Find("executor:a", "w"), nullptr);
  EXPECT_EQ(m.Find("executor:c", "v"), nullptr);
}

TEST(StateMapTest, ACopySharesEverythingUntilOneSideWrites) {
  const StateMap original = ThreeScopes();
  StateMap copy = original;
  EXPECT_TRUE(copy.SharesAllWith(original));
  copy.Set("executor:b", "v", Json("b1"));
  // Only the written scope was copied; the original still reads its own value.
  EXPECT_FALSE(copy.SharesAllWith(original));
  EXPECT_FALSE(copy.SharesScopeWith(original, "executor:b"));
  EXPECT_TRUE(copy.SharesScopeWith(original, "executor:a"));
  EXPECT_TRUE(copy.SharesScopeWith(original, "shared:s"));
  EXPECT_EQ(original.at("executor:b").at("v").get(), Json("b0"));
  EXPECT_EQ(copy.at("executor:b").at("v").get(), Json("b1"));
  EXPECT_NE(copy, original);
}

TEST(StateMapTest, ASoleOwnerWritesInPlaceWithoutCopyingTheScope) {
  StateMap m = ThreeScopes();
  const StateMap before = m;  // shares everything
  m.Set("shared:s", "k", Json(5));
  const StateMap after_first = m;  // shares with m, not with `before` for shared:s
  ASSERT_FALSE(after_first.SharesScopeWith(before, "shared:s"));
  // Once the copy is dropped, m owns its scopes alone again: a write keeps the object.
  StateMap sole = ThreeScopes();
  const StateScope* object = &*sole.find("shared:s");
  sole.Set("shared:s", "k", Json(6));
  sole.Set("shared:s", "new", Json(7));
  EXPECT_EQ(&*sole.find("shared:s"), object);
  EXPECT_EQ(sole.at("shared:s").size(), 3u);
}

TEST(StateMapTest, EraseDropsAnEmptiedScopeAndNeverTouchesACopy) {
  const StateMap original = ThreeScopes();
  StateMap m = original;
  m.Erase("executor:a", "v");
  m.Erase("shared:s", "k");
  m.Erase("shared:s", "absent");      // no-op
  m.Erase("executor:zzz", "absent");  // no-op
  EXPECT_EQ(m.count("executor:a"), 0u);
  EXPECT_EQ(m.at("shared:s").size(), 1u);
  EXPECT_TRUE(m.SharesScopeWith(original, "executor:b"));
  EXPECT_EQ(original, ThreeScopes());
  m.Erase("executor:b", "v");
  m.Erase("shared:s", "j");
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m, StateMap());
}

TEST(StateMapTest, IndexingForWritesCopiesASharedScopeFirst) {
  const StateMap original = ThreeScopes();
  StateMap m = original;
  m["shared:s"]["k"] = Json("changed");
  m["fresh"]["x"] = Json(true);
  EXPECT_EQ(original.at("shared:s").at("k").get(), Json(1));
  EXPECT_EQ(original.count("fresh"), 0u);
  EXPECT_EQ(m.at("fresh").at("x").get(), Json(true));
  EXPECT_TRUE(m.SharesScopeWith(original, "executor:a"));
}

TEST(StateMapTest, EqualityComparesValuesNotIdentity) {
  StateMap a = ThreeScopes();
  StateMap b = ThreeScopes();  // built separately: no object in common
  EXPECT_FALSE(a.SharesScopeWith(b, "shared:s"));
  EXPECT_EQ(a, b);
  b.SetScope("empty", {});
  EXPECT_NE(a, b);  // an empty scope is a scope (encoders keep it)
  std::ostringstream os;
  os << a;
  EXPECT_EQ(os.str(),
            R"({"executor:a":{"v":"a0"},"executor:b":{"v":"b0"},"shared:s":{"j":2,"k":1}})");
}

}  // namespace
}  // namespace stepfault

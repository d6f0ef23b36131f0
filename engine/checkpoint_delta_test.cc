// Goal: incremental checkpoints (format version 3) hold only what changed since their base and
// resolve to exactly the full checkpoint; a damaged or missing link is a typed error, never a
// silently wrong checkpoint; full checkpoints of the older versions decode as before.
// Method: a chain full -> delta -> delta over a map of stored bytes, compared with the full
// checkpoints it stands for; the delta's state checked to carry only the changed key; then every
// kind of broken link (missing base, damaged base bytes, a loop, another session) and every
// truncation of a delta, each required to be kCorruption (or kIncompatible where a reader that does
// not follow chains is handed a delta); CheckpointDeltaBase, which reads no body, required to fail
// on every 7th bit flipped and every 3rd truncation of a full checkpoint and of a delta.
#include <gtest/gtest.h>

#include <map>

#include "engine/checkpoint.h"
#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Msg;

Checkpoint Step(int step, const std::string& parent) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = step;
  c.workflow = testing::ApprovalLikeWorkflow()->signature();
  c.instantiated = std::vector<std::string>{"apply", "prepare"};
  c.queued.Mutable()["apply"] = {
      Envelope{Msg("Decision", Json{{"step", step}}), "prepare", {}, ""}};
  c.state["executor:prepare"]["big"] = std::string(5000, 'b');
  c.state["executor:prepare"]["gone"] = "soon";
  c.state["shared:x"]["counter"] = step;
  if (!parent.empty()) c.parent = CheckpointInfo{"s", parent};
  return c;
}

struct Chain {
  std::map<std::string, std::string> bytes;  // id -> stored bytes
  std::map<std::string, Checkpoint> full;    // id -> what it stands for
  CheckpointFetch Fetch() {
    return [this](const std::string& id) -> Result<std::string> {
      auto it = bytes.find(id);
      if (it == bytes.end()) return Status::NotFound("no " + id);
      return it->second;
    };
  }
};

Chain MakeChain() {
  Chain chain;
  Checkpoint c0 = Step(0, "");
  Checkpoint c1 = Step(1, "c0");
  c1.state["executor:prepare"]["big"] = c0.state["executor:prepare"]["big"];  // shared
  Checkpoint c2 = Step(2, "c1");
  c2.state["executor:prepare"].erase("gone");
  chain.bytes["c0"] = EncodeCheckpoint(c0);
  chain.bytes["c1"] = EncodeCheckpointDelta(c1, c0, "c0");
  chain.bytes["c2"] = EncodeCheckpointDelta(c2, c1, "c1");
  chain.full["c0"] = c0;
  chain.full["c1"] = c1;
  chain.full["c2"] = c2;
  return chain;
}

TEST(CheckpointDeltaTest, AChainResolvesToExactlyTheFullCheckpointsItStandsFor) {
  Chain chain = MakeChain();
  for (const auto& [id, bytes] : chain.bytes) {
    Result<Checkpoint> resolved = ResolveCheckpoint(bytes, chain.Fetch());
    ASSERT_TRUE(resolved.ok()) << id << ": " << resolved.status().ToString();
    EXPECT_TRUE(CheckpointsEqual(*resolved, chain.full[id])) << id;
    Result<std::string> as_bytes = ResolveCheckpointBytes(bytes, chain.Fetch());
    ASSERT_TRUE(as_bytes.ok());
    EXPECT_EQ(*as_bytes, EncodeCheckpoint(chain.full[id])) << id;
  }
}

// Applying a delta gives the sorted union of the base's instantiated ids and the ids the delta
// added, also when the base's list is out of order (bytes are not trusted) or nothing was added.
TEST(CheckpointDeltaTest, ApplyingADeltaGivesTheSortedUnionOfInstantiatedIds) {
  Checkpoint base = Step(0, "");
  base.instantiated = std::vector<std::string>{"a", "c"};
  Checkpoint next = Step(1, "c0");
  next.instantiated = std::vector<std::string>{"a", "b", "c", "d"};
  const std::string added = EncodeCheckpointDelta(next, base, "c0");
  Result<Checkpoint> merged = ApplyCheckpointDelta(base, added);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->instantiated.Sorted(), (std::vector<std::string>{"a", "b", "c", "d"}));

  Checkpoint unsorted = base;
  unsorted.instantiated = std::vector<std::string>{"c", "a"};
  Result<Checkpoint> sorted = ApplyCheckpointDelta(unsorted, added);
  ASSERT_TRUE(sorted.ok());
  EXPECT_EQ(sorted->instantiated.Sorted(), (std::vector<std::string>{"a", "b", "c", "d"}));

  Checkpoint same = Step(1, "c0");
  same.instantiated = base.instantiated;
  Result<Checkpoint> shared = ApplyCheckpointDelta(base, EncodeCheckpointDelta(same, base, "c0"));
  ASSERT_TRUE(shared.ok());
  EXPECT_EQ(shared->instantiated.Sorted(), (std::vector<std::string>{"a", "c"}));
  Result<Checkpoint> resorted =
      ApplyCheckpointDelta(unsorted, EncodeCheckpointDelta(same, base, "c0"));
  ASSERT_TRUE(resorted.ok());
  EXPECT_EQ(resorted->instantiated.Sorted(), (std::vector<std::string>{"a", "c"}));
}

TEST(CheckpointDeltaTest, ADeltaCarriesOnlyTheChangedValuesAndNamesItsBase) {
  Chain chain = MakeChain();
  EXPECT_EQ(*CheckpointDeltaBase(chain.bytes["c0"]), std::nullopt);
  EXPECT_EQ(*CheckpointDeltaBase(chain.bytes["c1"]), std::optional<std::string>("c0"));
  EXPECT_EQ(*CheckpointDeltaBase(chain.bytes["c2"]), std::optional<std::string>("c1"));
  // The 5000-byte value did not change: the delta is a fraction of the full checkpoint.
  EXPECT_LT(chain.bytes["c1"].size() * 2, chain.bytes["c0"].size());
  EXPECT_EQ(chain.bytes["c1"].find(std::string(5000, 'b')), std::string::npos);
  EXPECT_TRUE(chain.bytes["c1"].starts_with("stepfault.checkpoint v3 "));
  EXPECT_NE(chain.bytes["c2"].find("[\"executor:prepare\",\"gone\"]"), std::string::npos);
}

TEST(CheckpointDeltaTest, AReaderThatDoesNotFollowChainsGetsATypedErrorForADelta) {
  Chain chain = MakeChain();
  Result<Checkpoint> d = DecodeCheckpoint(chain.bytes["c2"]);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kIncompatible);
  EXPECT_NE(d.status().message().find("ResolveCheckpoint"), std::string::npos);
  // Full checkpoints of the previous versions decode as before (v2 is what a full snapshot is).
  EXPECT_TRUE(DecodeCheckpoint(chain.bytes["c0"]).ok());
  EXPECT_TRUE(DecodeCheckpoint(EncodeCheckpointJson(chain.full["c0"])).ok());
}

TEST(CheckpointDeltaTest, EveryBrokenLinkIsCorruptionNamingTheLink) {
  {
    Chain chain = MakeChain();
    chain.bytes.erase("c0");  // missing
    Result<Checkpoint> r = ResolveCheckpoint(chain.bytes["c2"], chain.Fetch());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find("c0"), std::string::npos);
  }
  {
    Chain chain = MakeChain();
    chain.bytes["c1"][chain.bytes["c1"].size() / 2] ^= 0x10;  // damaged middle link
    Result<Checkpoint> r = ResolveCheckpoint(chain.bytes["c2"], chain.Fetch());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find("c1"), std::string::npos);
  }
  {
    Chain chain = MakeChain();  // a loop: c0 replaced by a delta on c2
    chain.bytes["c0"] = EncodeCheckpointDelta(chain.full["c0"], chain.full["c2"], "c2");
    Result<Checkpoint> r = ResolveCheckpoint(chain.bytes["c2"], chain.Fetch());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
  {
    Chain chain = MakeChain();  // a base from another session
    Checkpoint other = chain.full["c0"];
    other.session_id = "other";
    chain.bytes["c0"] = EncodeCheckpoint(other);
    Result<Checkpoint> r = ResolveCheckpoint(chain.bytes["c1"], chain.Fetch());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  }
}

// Base links are decoded partially: the fields a chain does not use are skipped by a scan of
// brackets and strings (checkpoint.cc, ParseLinkMetadata). Strings full of brackets, quotes and
// escapes, framed blobs in the skipped fields, and nested state values must not confuse it.
TEST(CheckpointDeltaTest, BaseLinksWhoseSkippedFieldsHoldBracketsQuotesAndBlobsResolveExactly) {
  const std::string tricky = "}]{[\"\\\",:\n\t\u00e9 \"}";
  auto step = [&](int n, const std::string& parent) {
    Checkpoint c = Step(n, parent);
    c.queued.Mutable()["apply"] = {
        Envelope{Msg("Decision", Json{{tricky, tricky},
                                      {"big", std::string(300, '{')},
                                      {"list", Json::array({tricky, n, nullptr})}}),
                 "prepare",
                 {},
                 ""}};
    c.outstanding = {PendingRequest{"r" + tricky, "approve", Msg("Ask", Json{{"q", tricky}})}};
    c.state["shared:" + tricky][tricky] = Json{{"k", Json::array({tricky, Json::object(), n})}};
    c.state["executor:prepare"]["blob"] = std::string(200, ']') + std::to_string(n);
    return c;
  };
  std::map<std::string, std::string> bytes;
  Checkpoint c0 = step(0, ""), c1 = step(1, "c0"), c2 = step(2, "c1");
  c1.state["executor:prepare"].erase("gone");  // removed by a base link
  c2.state["executor:prepare"].erase("gone");
  bytes["c0"] = EncodeCheckpoint(c0);
  bytes["c1"] = EncodeCheckpointDelta(c1, c0, "c0");
  bytes["c2"] = EncodeCheckpointDelta(c2, c1, "c1");
  CheckpointFetch fetch = [&](const std::string& id) -> Result<std::string> {
    return bytes.at(id);
  };
  Result<Checkpoint> resolved = ResolveCheckpoint(bytes["c2"], fetch);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_TRUE(CheckpointsEqual(*resolved, c2));
  EXPECT_EQ(resolved->state, c2.state);
  EXPECT_EQ(resolved->state.count("executor:prepare"), 1u);
  EXPECT_EQ(resolved->state.at("executor:prepare").count("gone"), 0u);
}

TEST(CheckpointDeltaTest, EveryTruncationOfADeltaIsATypedError) {
  Chain chain = MakeChain();
  const std::string& delta = chain.bytes["c2"];
  for (size_t n = 0; n < delta.size(); ++n) {
    Result<Checkpoint> r = ResolveCheckpoint(delta.substr(0, n), chain.Fetch());
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << n;
  }
}

// CheckpointDeltaBase answers from the header, the seal and the metadata line without building the
// body (pruning asks it of every stored checkpoint): damage anywhere must still be an error, so
// pruning never follows a base it read from damaged bytes.
TEST(CheckpointDeltaTest, DeltaBaseIsAnErrorForEveryBitFlipAndEveryTruncation) {
  Chain chain = MakeChain();
  for (const char* id : {"c0", "c2"}) {
    const std::string& good = chain.bytes[id];
    ASSERT_TRUE(CheckpointDeltaBase(good).ok()) << id;
    for (size_t bit = 0; bit < good.size() * 8; bit += 7) {
      std::string bad = good;
      bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
      EXPECT_FALSE(CheckpointDeltaBase(bad).ok()) << id << " bit " << bit;
    }
    for (size_t n = 0; n < good.size(); n += 3) {
      EXPECT_FALSE(CheckpointDeltaBase(good.substr(0, n)).ok()) << id << " truncated to " << n;
    }
  }
}

}  // namespace
}  // namespace stepfault

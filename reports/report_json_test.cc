// Goal: report.json is canonical, round-trips exactly, matches its published JSON Schema, and a
// bad document is rejected with the JSON pointer of the bad value and the reason. Method: render
// the sample report; validate it with a small draft 2020-12 subset validator written here (no
// schema library is packaged) that refuses schema keywords it does not understand, so the
// schema cannot silently outgrow the check; then break one value at a time and read it back.
#include "reports/report_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "reports/test_reports.h"

namespace stepfault::reports {
namespace {

using Json = nlohmann::json;

// Checks a document against the subset of JSON Schema that report.schema.json uses.
class SchemaValidator {
 public:
  explicit SchemaValidator(Json root) : root_(std::move(root)) {}

  std::vector<std::string> Validate(const Json& doc) {
    errors_.clear();
    Check(root_, doc, "");
    return errors_;
  }

 private:
  void Fail(const std::string& path, const std::string& why) {
    errors_.push_back((path.empty() ? "/" : path) + ": " + why);
  }

  static bool TypeMatches(const std::string& t, const Json& v) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    ADD_FAILURE() << "schema uses unknown type " << t;
    return false;
  }

  void Check(const Json& schema, const Json& v, const std::string& path) {
    static const std::set<std::string> kKnown = {
        "$schema",  "$id",        "title", "description", "type",  "additionalProperties",
        "required", "properties", "$defs", "$ref",        "anyOf", "enum",
        "minimum",  "maximum",    "items"};
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (!kKnown.count(it.key()))
        ADD_FAILURE() << "validator does not understand keyword " << it.key();
    }
    if (schema.contains("$ref")) {
      std::string ref = schema["$ref"].get<std::string>();
      ASSERT_EQ(ref.rfind("#/$defs/", 0), 0u) << ref;
      const Json& target = root_["$defs"][ref.substr(8)];
      ASSERT_TRUE(target.is_object()) << "dangling $ref " << ref;
      Check(target, v, path);
    }
    if (schema.contains("anyOf")) {
      bool any = false;
      for (const Json& alt : schema["anyOf"]) {
        SchemaValidator sub(root_);
        sub.Check(alt, v, path);
        any |= sub.errors_.empty();
      }
      if (!any) Fail(path, "matches no anyOf alternative");
    }
    if (schema.contains("type")) {
      const Json& t = schema["type"];
      bool ok = false;
      if (t.is_string()) ok = TypeMatches(t.get<std::string>(), v);
      for (const Json& alt : t.is_array() ? t : Json::array())
        ok |= TypeMatches(alt.get<std::string>(), v);
      if (!ok) return Fail(path, "wrong type, expected " + t.dump());
    }
    if (schema.contains("enum")) {
      bool ok = false;
      for (const Json& e : schema["enum"]) ok |= e == v;
      if (!ok) Fail(path, "not one of " + schema["enum"].dump());
    }
    if (v.is_number() && schema.contains("minimum") &&
        v.get<double>() < schema["minimum"].get<double>()) {
      Fail(path, "below minimum");
    }
    if (v.is_number() && schema.contains("maximum") &&
        v.get<double>() > schema["maximum"].get<double>()) {
      Fail(path, "above maximum");
    }
    if (v.is_object()) {
      for (const Json& key : schema.value("required", Json::array())) {
        if (!v.contains(key.get<std::string>()))
          Fail(path + "/" + key.get<std::string>(), "required member missing");
      }
      const Json props = schema.value("properties", Json::object());
      for (auto it = v.begin(); it != v.end(); ++it) {
        std::string p = path + "/" + it.key();
        if (props.contains(it.key())) {
          Check(props[it.key()], *it, p);
        } else if (schema.contains("additionalProperties")) {
          const Json& extra = schema["additionalProperties"];
          if (extra.is_boolean() && !extra.get<bool>()) {
            Fail(p, "member not allowed");
          } else if (extra.is_object()) {
            Check(extra, *it, p);
          }
        }
      }
    }
    if (v.is_array() && schema.contains("items")) {
      for (size_t i = 0; i < v.size(); ++i)
        Check(schema["items"], v[i], path + "/" + std::to_string(i));
    }
  }

  Json root_;
  std::vector<std::string> errors_;
};

SchemaValidator LoadSchema() {
  Result<std::string> text =
      PosixEnv()->ReadFile(JoinPath(testing::SourceDir(), "reports/schema/report.schema.json"));
  SF_CHECK(text.ok());
  Json schema = Json::parse(*text);
  // Every object schema in the document is closed: the schema must stay strict.
  std::function<void(const Json&)> closed = [&](const Json& s) {
    if (!s.is_object()) return;
    if (s.value("type", Json()) == "object" && s.contains("properties")) {
      EXPECT_EQ(s.value("additionalProperties", Json(true)), Json(false))
          << s.dump().substr(0, 120);
    }
    for (auto& [k, sub] : s.items()) {
      if (sub.is_object()) closed(sub);
      if (sub.is_array())
        for (const Json& e : sub) closed(e);
    }
  };
  closed(schema);
  return SchemaValidator(schema);
}

TEST(ReportJsonTest, SampleReportRoundTripsExactly) {
  Report r = testing::SampleReport();
  Result<Report> back = FromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  EXPECT_TRUE(std::isnan(back->bench[2].ratio));
  EXPECT_EQ(ToJson(*back), ToJson(r));
}

TEST(ReportJsonTest, OutputIsCanonicalWithSortedKeysDerivedMembersAndNullForNan) {
  std::string text = ToJson(testing::SampleReport());
  EXPECT_EQ(text, ToJson(testing::SampleReport()));
  EXPECT_EQ(text.back(), '\n');
  Json doc = Json::parse(text);
  EXPECT_EQ(doc["verdict"], "violation");
  EXPECT_EQ(doc["coverage"]["cells_total"], 14);
  EXPECT_EQ(doc["coverage"]["cells_exercised"], 11);
  EXPECT_EQ(doc["coverage"]["cells_filtered"], 1);
  EXPECT_EQ(doc["coverage"]["recovery_windows"], 1);
  EXPECT_EQ(doc["coverage"]["crash_states"]["distinct"], 6);
  EXPECT_EQ(doc["coverage"]["points"]["registered"], 6);
  EXPECT_EQ(doc["coverage"]["points"]["unreached"], Json::array({"output.publish.before"}));
  EXPECT_EQ(doc["coverage"]["actions"]["filtered"], Json::array({"corrupt"}));
  EXPECT_EQ(doc["coverage"]["variants"][2]["status"],
            "skipped: indistinct: its fault-free run is identical to 'fan-in'");
  EXPECT_TRUE(doc["bench"][2]["ratio"].is_null());
  EXPECT_EQ(doc["scenarios"][0]["cells"][5]["outcome"], "n/a");
  // Keys at the top level appear in byte order.
  EXPECT_LT(text.find("\n  \"bench\""), text.find("\n  \"command\""));
  EXPECT_LT(text.find("\n  \"verdict\""), text.find("\n  \"violations\""));
  EXPECT_NE(text.find("\n  \"violations\""), std::string::npos);
}

// ToJson dumps each scenario on its own and splices it in (memory); the bytes must be those of
// dumping the whole document as one tree, which is what parsing and dumping the text again gives.
TEST(ReportJsonTest, ScenariosDumpedOneByOneGiveTheBytesOfTheWholeDocumentDumpedAtOnce) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}}) {
    Report r = testing::SampleReport();
    ASSERT_FALSE(r.scenarios.empty());
    while (r.scenarios.size() < n) r.scenarios.push_back(r.scenarios.back());
    r.scenarios.resize(n);
    const std::string text = ToJson(r);
    EXPECT_EQ(Json::parse(text).dump(2, ' ', false, Json::error_handler_t::replace) + "\n", text)
        << n << " scenarios";
    EXPECT_EQ(Json::parse(text)["scenarios"].size(), n);
  }
}

TEST(ReportJsonTest, SampleAndMinimalReportsValidateAgainstTheSchema) {
  SchemaValidator validator = LoadSchema();
  EXPECT_EQ(validator.Validate(Json::parse(ToJson(testing::SampleReport()))),
            std::vector<std::string>{});
  EXPECT_EQ(validator.Validate(Json::parse(ToJson(Report{}))), std::vector<std::string>{});
}

TEST(ReportJsonTest, ThePersistenceModelAndItsLabelsRoundTripAndAreAbsentOtherwise) {
  // Black-box reports name their persistence model and label violations; every other report
  // stays as it was (no fs_model, no holds_under: the goldens do not change).
  Report r = testing::SampleReport();
  EXPECT_EQ(Json::parse(ToJson(r)).count("fs_model"), 0u);
  EXPECT_EQ(Json::parse(ToJson(r))["violations"][0].count("holds_under"), 0u);
  r.fs_model = "posix";
  r.violations[0].holds_under = {"posix"};
  Json doc = Json::parse(ToJson(r));
  EXPECT_EQ(doc["fs_model"], "posix");
  EXPECT_EQ(doc["violations"][0]["holds_under"], Json::array({"posix"}));
  EXPECT_EQ(LoadSchema().Validate(doc), std::vector<std::string>{});
  Result<Report> back = FromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  doc["fs_model"] = "";
  EXPECT_FALSE(FromJson(doc.dump()).ok());
  EXPECT_EQ(HoldsUnderText({"posix"}), "posix only");
  EXPECT_EQ(HoldsUnderText({"posix", "ext4-ordered", "xfs", "btrfs"}),
            "posix, ext4-ordered, xfs, btrfs");
}

TEST(ReportJsonTest, SchemaValidatorRejectsExtraMembersWrongEnumsAndMissingFields) {
  // Guards the validator itself: a validator that accepts everything would make the test above
  // empty.
  SchemaValidator validator = LoadSchema();
  Json doc = Json::parse(ToJson(testing::SampleReport()));
  Json extra = doc;
  extra["scenarios"][0]["cells"][0]["colour"] = "red";
  EXPECT_EQ(validator.Validate(extra),
            std::vector<std::string>{"/scenarios/0/cells/0/colour: member not allowed"});
  Json bad_enum = doc;
  bad_enum["scenarios"][0]["cells"][0]["outcome"] = "ok";
  EXPECT_EQ(validator.Validate(bad_enum).size(), 1u);
  Json missing = doc;
  missing["violations"][0].erase("replay");
  EXPECT_EQ(validator.Validate(missing),
            std::vector<std::string>{"/violations/0/replay: required member missing"});
  Json bad_states = doc;
  bad_states["scenarios"][0]["crash_states"] = 3;
  EXPECT_FALSE(validator.Validate(bad_states).empty());
}

// Applies `edit` to the sample document and returns FromJson's error message.
std::string ErrorAfter(const std::function<void(Json&)>& edit) {
  Json doc = Json::parse(ToJson(testing::SampleReport()));
  edit(doc);
  Result<Report> r = FromJson(doc.dump());
  if (r.ok()) return "(accepted)";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(ReportJsonTest, MalformedDocumentsAreRejectedWithPathAndReason) {
  EXPECT_EQ(ErrorAfter([](Json& d) { d["scenarios"][0]["cells"][3]["outcome"] = "bogus"; }),
            "/scenarios/0/cells/3/outcome: expected one of pass|violation|n/a|not-run|filtered");
  EXPECT_EQ(ErrorAfter([](Json& d) { d.erase("seed"); }), "/seed: missing required member");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["violations"][0]["seed"] = -1; }),
            "/violations/0/seed: expected a non-negative integer");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["runs"] = 1.5; }), "/runs: expected an integer");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["bench"][0]["labels"]["k"] = 8; }),
            "/bench/0/labels/k: expected a string");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["mutants"][1]["killed"] = "no"; }),
            "/mutants/1/killed: expected true or false");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["scenarios"][0]["windows"][2] = "w"; }),
            "/scenarios/0/windows/2: expected an object");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["scenarios"][0]["windows"][3]["recovery"] = 1; }),
            "/scenarios/0/windows/3/recovery: expected true or false");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["scenarios"][0]["crash_states"]["distinct"] = -2; }),
            "/scenarios/0/crash_states/distinct: expected a non-negative integer");
  EXPECT_EQ(ErrorAfter([](Json& d) { d["hazards"] = {1}; }), "/hazards/0: expected a string");
  EXPECT_EQ(
      ErrorAfter([](Json& d) { d["timestamp"] = "now"; }).rfind("/timestamp: unknown member", 0),
      0u);
  EXPECT_EQ(ErrorAfter([](Json& d) { d["schema_version"] = 1; }),
            "/schema_version: this build reads schema_version 2, 3 and 4, the document has 1");
  EXPECT_EQ(ErrorAfter([](Json& d) { d = Json::array(); }), "/: expected an object");
  Result<Report> not_json = FromJson("{\"schema_version\": ");
  ASSERT_FALSE(not_json.ok());
  // Issue 16, item 8: a syntax error names its line and column.
  EXPECT_NE(not_json.status().message().find("report.json: not valid JSON at line 1, column"),
            std::string::npos)
      << not_json.status().message();
}

TEST(ReportJsonTest, LargeSeedsAndCountersSurviveTheRoundTrip) {
  Report r;
  r.seed = 0xFFFFFFFFFFFFFFFFull;
  r.runs = int64_t{1} << 60;
  r.min_coverage_pct = 99.95;
  Result<Report> back = FromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
}

TEST(ReportJsonTest, GoldenReportJsonValidatesAgainstTheSchemaAndReadsBackAsTheSample) {
  Result<std::string> golden =
      PosixEnv()->ReadFile(JoinPath(testing::SourceDir(), "reports/testdata/report.json"));
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  EXPECT_EQ(LoadSchema().Validate(Json::parse(*golden)), std::vector<std::string>{});
  Result<Report> r = FromJson(*golden);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, testing::SampleReport());
}

// Version 3 added the optional schedules block of a scenario explored by schedules: it round-trips
// (in SampleReport), is checked member by member, and a version-2 document (no such block) still
// reads.
TEST(ReportJsonTest, TheSchedulesBlockIsStrictAndVersionTwoDocumentsStillRead) {
  Json doc = Json::parse(ToJson(testing::SampleReport()));
  ASSERT_TRUE(doc["scenarios"][3].contains("schedules"));
  EXPECT_FALSE(doc["scenarios"][0].contains("schedules"));
  EXPECT_EQ(doc["scenarios"][3]["schedules"]["window_names"].size(), 3u);
  Json extra = doc;
  extra["scenarios"][3]["schedules"]["percent"] = 50;
  Result<Report> bad = FromJson(extra.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().substr(0, 35), "/scenarios/3/schedules/percent: unk");
  Json negative = doc;
  negative["scenarios"][3]["schedules"]["context_switches"] = -1;
  bad = FromJson(negative.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/scenarios/3/schedules/context_switches"),
            std::string::npos);
  // The bounded phase inside it is optional and as strict.
  Json no_phase = doc;
  no_phase["scenarios"][3]["schedules"].erase("bounded");
  Result<Report> without = FromJson(no_phase.dump());
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  EXPECT_FALSE(without->scenarios[3].schedules->bounded.has_value());
  EXPECT_EQ(LoadSchema().Validate(no_phase), std::vector<std::string>{});
  Json odd_phase = doc;
  odd_phase["scenarios"][3]["schedules"]["bounded"]["percent"] = 50;
  bad = FromJson(odd_phase.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().substr(0, 43), "/scenarios/3/schedules/bounded/percent: unk");
  Report old = testing::SampleReport();
  old.scenarios.pop_back();
  old.schema_version = 2;
  Result<Report> v2 = FromJson(ToJson(old));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->schema_version, 2);
  EXPECT_EQ(LoadSchema().Validate(Json::parse(ToJson(old))), std::vector<std::string>{});
}

}  // namespace
}  // namespace stepfault::reports

// DefaultParams, ResolveParams and DescribeParams (see params.h).
#include "scenarios/params.h"

#include "engine/suggest.h"

namespace stepfault::scenarios {
namespace {

std::string TypeText(const ParamDecl& d) {
  switch (d.type) {
    case ParamType::kInt:
      return "integer " + std::to_string(d.min) + ".." + std::to_string(d.max);
    case ParamType::kString:
      return "string of " + std::to_string(d.min) + ".." + std::to_string(d.max) + " bytes";
    case ParamType::kChoice: {
      std::string c;
      for (const std::string& x : d.choices) c += (c.empty() ? "" : "|") + x;
      return "one of " + c;
    }
  }
  return "?";
}

Status CheckValue(const std::string& where, const ParamDecl& d, const Json& v) {
  const std::string expected = "; expected " + TypeText(d);
  switch (d.type) {
    case ParamType::kInt: {
      if (!v.is_number_integer())
        return Status::InvalidArgument(where + " is " + v.dump() + expected);
      bool in_range = false;
      if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        in_range = d.max >= 0 && u <= static_cast<uint64_t>(d.max) &&
                   (d.min <= 0 || u >= static_cast<uint64_t>(d.min));
      } else {
        const int64_t i = v.get<int64_t>();
        in_range = i >= d.min && i <= d.max;
      }
      if (!in_range)
        return Status::InvalidArgument(where + " = " + v.dump() + " is out of range" + expected);
      return Status::Ok();
    }
    case ParamType::kString: {
      if (!v.is_string()) return Status::InvalidArgument(where + " is " + v.dump() + expected);
      const auto n = static_cast<int64_t>(v.get_ref<const std::string&>().size());
      if (n < d.min || n > d.max)
        return Status::InvalidArgument(where + " has " + std::to_string(n) + " bytes" + expected);
      return Status::Ok();
    }
    case ParamType::kChoice: {
      if (v.is_string()) {
        for (const std::string& c : d.choices)
          if (v.get_ref<const std::string&>() == c) return Status::Ok();
      }
      return Status::InvalidArgument(where + " is " + v.dump() + expected);
    }
  }
  return Status::Ok();
}

}  // namespace

Json DefaultParams(const std::vector<ParamDecl>& decls) {
  Json out = Json::object();
  for (const ParamDecl& d : decls) out[d.name] = d.default_value;
  return out;
}

Result<Json> ResolveParams(const std::string& scenario, const std::vector<ParamDecl>& decls,
                           const Json& given) {
  Json out = DefaultParams(decls);
  if (given.is_null()) return out;
  if (!given.is_object()) {
    return Status::InvalidArgument("--params must be a JSON object, e.g. '{\"width\":4}' (got " +
                                   std::string(given.type_name()) + ")");
  }
  std::vector<std::string> names;
  for (const ParamDecl& d : decls) names.push_back(d.name);
  for (const auto& [key, value] : given.items()) {
    const ParamDecl* decl = nullptr;
    for (const ParamDecl& d : decls) decl = d.name == key ? &d : decl;
    if (decl == nullptr) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      return Status::InvalidArgument(
          "scenario '" + scenario + "' has no parameter '" + key + "'" + DidYouMean(key, names) +
          (list.empty() ? "; it takes no parameters" : "; its parameters are: " + list) +
          " (`stepfault list params`)");
    }
    const std::string where = "parameter '" + key + "' of scenario '" + scenario + "'";
    SF_RETURN_IF_ERROR(CheckValue(where, *decl, value));
    if (decl->check) SF_RETURN_IF_ERROR(decl->check(value).WithContext(where));
    out[key] = value;
  }
  return out;
}

std::string DescribeParams(const std::vector<ParamDecl>& decls, const std::string& indent) {
  if (decls.empty()) return indent + "(no parameters)\n";
  std::string out;
  for (const ParamDecl& d : decls) {
    out += indent + d.name + ": " + TypeText(d) + ", default " + d.default_value.dump() + "; " +
           d.doc + "\n";
  }
  return out;
}

ParamDecl CheckpointModeParam() {
  return {kCheckpointModeParam,
          ParamType::kChoice,
          0,
          0,
          {"incremental", "full"},
          "incremental",
          "incremental: a full checkpoint every " + std::to_string(kDefaultFullSnapshotEvery) +
              " commits, deltas between; full: every checkpoint full (MAF's mode)"};
}

ParamDecl FullEveryParam() {
  return {kFullEveryParam,
          ParamType::kInt,
          1,
          kDefaultFullSnapshotEvery,
          {},
          kDefaultFullSnapshotEvery,
          "with checkpoints=incremental: a full checkpoint every this many commits of a chain, "
          "deltas between (1: every checkpoint full)",
          5};  // small K as often as not, so chains and their bases are crashed (issue 29)
}

StoreCheckpointOptions CheckpointOptionsOf(const Json& params) {
  StoreCheckpointOptions options;
  if (params.is_object() && params.contains(kFullEveryParam) &&
      params[kFullEveryParam].is_number_integer()) {
    options.full_every = params[kFullEveryParam].get<int>();
  }
  if (params.is_object() && params.value(kCheckpointModeParam, std::string()) == "full") {
    // MAF's form: every checkpoint full and self-contained, its topology signature inline.
    options.full_every = 1;
    options.topology_records = false;
  }
  return options;
}

}  // namespace stepfault::scenarios

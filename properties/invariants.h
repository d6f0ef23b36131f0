// The invariants, by stable id (DESIGN.md §6), with the statement reports print.
#pragma once

#include <string>
#include <vector>

namespace stepfault::properties {

struct InvariantInfo {
  std::string id;
  std::string statement;
};

// Every invariant, in report order.
const std::vector<InvariantInfo>& AllInvariants();
// The statement of `id` ("" when unknown).
std::string InvariantStatement(const std::string& id);

}  // namespace stepfault::properties

// Black-box plan text (see bb_plan.h).
#include "properties/blackbox/bb_plan.h"

#include <algorithm>

namespace stepfault::properties::blackbox {

const std::vector<std::string>& AllBbActions() {
  static const auto* list =
      new std::vector<std::string>{"crash", "powerloss", "reorder", "ioerror", "ioerror:ENOSPC"};
  return *list;
}

bool IsCrashLike(const std::string& action) {
  return action == "crash" || action == "powerloss" || action == "reorder";
}

Result<std::vector<BbFault>> ParseBbPlan(std::string_view text) {
  const std::string form =
      "; expected action@point[role]#N joined by ';', e.g. powerloss@fs.write[state.json]#1";
  std::vector<BbFault> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find(';', at);
    if (end == std::string_view::npos) end = text.size();
    std::string f(text.substr(at, end - at));
    std::string where = "plan fault " + std::to_string(out.size() + 1) + " '" + f + "'";
    size_t amp = f.find('@');
    if (amp == std::string::npos) return Status::InvalidArgument(where + ": no '@'" + form);
    BbFault fault{f.substr(0, amp), f.substr(amp + 1)};
    if (fault.action == "ioerror:EIO") fault.action = "ioerror";
    const auto& actions = AllBbActions();
    if (std::find(actions.begin(), actions.end(), fault.action) == actions.end())
      return Status::InvalidArgument(
          where + ": unknown action '" + fault.action +
          "'; expected crash, powerloss, reorder, ioerror or ioerror:ENOSPC");
    size_t hash = fault.window.rfind('#');
    size_t open = fault.window.find('[');
    bool digits = hash != std::string::npos && hash + 1 < fault.window.size() &&
                  std::all_of(fault.window.begin() + static_cast<std::ptrdiff_t>(hash) + 1,
                              fault.window.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || open == std::string::npos || open == 0 || fault.window[hash - 1] != ']' ||
        fault.window.substr(hash + 1) == "0")
      return Status::InvalidArgument(where + ": the window must read point[role]#N with N >= 1" +
                                     form);
    out.push_back(std::move(fault));
    at = end + 1;
  }
  if (out.size() > 2) return Status::InvalidArgument("plan: at most two faults (depth 2)" + form);
  return out;
}

std::string PrintBbPlan(const std::vector<BbFault>& plan) {
  std::string out;
  for (const BbFault& f : plan) out += (out.empty() ? "" : ";") + f.action + "@" + f.window;
  return out;
}

}  // namespace stepfault::properties::blackbox

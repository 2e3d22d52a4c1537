#include "core/metrics/validate.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace resched {
namespace {

// The processors an item may use: its group's, or the cluster's; nullopt for a group index
// out of range.
std::optional<int> CapacityFor(const ScheduleToValidate& schedule, const ScheduledItem& item) {
  if (schedule.groups.empty()) return schedule.capacity;
  if (item.group < 0 || item.group >= static_cast<int>(schedule.groups.size())) {
    return std::nullopt;
  }
  return schedule.groups[item.group].count;
}

bool WellFormed(const ScheduleToValidate& schedule, const ScheduledItem& item) {
  const Allocation& a = item.allocation;
  const std::optional<int> capacity = CapacityFor(schedule, item);
  return capacity && a.k >= 1 && a.k <= *capacity && a.start <= a.end;
}

void CheckItem(const ScheduleToValidate& schedule, const ScheduledItem& item,
               std::vector<Violation>& out) {
  const Allocation& a = item.allocation;
  const std::optional<int> capacity = CapacityFor(schedule, item);
  if (!capacity) {
    out.push_back({ViolationKind::kMalformed,
                   absl::StrFormat("%s names processor group %d; the schedule has %d", item.id,
                                   item.group, schedule.groups.size())});
    return;
  }
  if (!WellFormed(schedule, item)) {
    out.push_back({ViolationKind::kMalformed,
                   absl::StrFormat("%s: allocation k=%d over [%d, %d) is malformed on %d "
                                   "processors",
                                   item.id, a.k, a.start, a.end, *capacity)});
    return;
  }
  if (a.start < item.release) {
    out.push_back({ViolationKind::kRelease, absl::StrFormat("%s starts at %d before its release %d",
                                                            item.id, a.start, item.release)});
  }
  if (item.model != nullptr) {
    const RuntimeModel model = schedule.groups.empty()
                                   ? *item.model
                                   : item.model->OnSpeed(schedule.groups[item.group].speed);
    const auto widths = model.Widths(*capacity);
    if (!std::binary_search(widths.begin(), widths.end(), a.k)) {
      out.push_back({ViolationKind::kDuration,
                     absl::StrFormat("%s runs on %d processors, a width its %s model does not "
                                     "allow",
                                     item.id, a.k, model.KindName())});
    } else {
      const Duration expected = model.TimeOn(a.k);
      const Duration length = a.end - a.start;
      if (length > expected || (!item.ended_early && length != expected)) {
        out.push_back({ViolationKind::kDuration,
                       absl::StrFormat("%s lasts %d us on %d processors; its model says %d us",
                                       item.id, length, a.k, expected)});
      }
    }
  }
  if (item.promised_deadline && a.end > *item.promised_deadline) {
    out.push_back(
        {ViolationKind::kDeadline, absl::StrFormat("%s ends at %d after its promised deadline %d",
                                                   item.id, a.end, *item.promised_deadline)});
  }
}

struct Event {
  Time t;
  int delta;
};

void AddEvents(const Allocation& a, std::vector<Event>& events) {
  events.push_back({a.start, a.k});
  events.push_back({a.end, -a.k});
}

// Sweep over start/end events; ends sort before starts at the same instant (half-open
// intervals touch without overlapping). `where` names the pool in the message.
void SweepCapacity(std::vector<Event> events, int capacity, const std::string& where,
                   std::vector<Violation>& out) {
  std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return x.t != y.t ? x.t < y.t : x.delta < y.delta;
  });
  long long busy = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    busy += events[i].delta;
    const bool last_at_instant = i + 1 == events.size() || events[i + 1].t != events[i].t;
    if (last_at_instant && busy > capacity) {
      out.push_back(
          {ViolationKind::kCapacity, absl::StrFormat("%d processors busy at %d on %s of %d", busy,
                                                     events[i].t, where, capacity)});
      return;  // one report is enough: later instants usually repeat it
    }
  }
}

void CheckCapacity(const ScheduleToValidate& schedule, std::vector<Violation>& out) {
  std::vector<Event> all;
  std::vector<std::vector<Event>> per_group(schedule.groups.size());
  for (const auto& item : schedule.items) {
    // Malformed items are reported once, by CheckItem.
    if (item.allocation.start < item.allocation.end && WellFormed(schedule, item)) {
      AddEvents(item.allocation, all);
      if (!schedule.groups.empty()) AddEvents(item.allocation, per_group[item.group]);
    }
  }
  for (size_t i = 0; i < schedule.holds.size(); ++i) {
    const Allocation& h = schedule.holds[i];
    if (h.start >= h.end || h.k <= 0) continue;
    AddEvents(h, all);
    const int group = i < schedule.hold_groups.size() ? schedule.hold_groups[i] : -1;
    if (group == -1) continue;
    if (group < 0 || group >= static_cast<int>(per_group.size())) {
      out.push_back({ViolationKind::kMalformed,
                     absl::StrFormat("hold %d names processor group %d; the schedule has %d", i,
                                     group, per_group.size())});
      continue;
    }
    AddEvents(h, per_group[group]);
  }
  SweepCapacity(std::move(all), schedule.capacity, "a cluster", out);
  for (size_t g = 0; g < per_group.size(); ++g) {
    SweepCapacity(std::move(per_group[g]), schedule.groups[g].count,
                  absl::StrFormat("group '%s'", schedule.groups[g].name), out);
  }
}

void CheckPrecedences(const ScheduleToValidate& schedule, std::vector<Violation>& out) {
  const int n = static_cast<int>(schedule.items.size());
  for (const auto& p : schedule.precedences) {
    if (p.before < 0 || p.before >= n || p.after < 0 || p.after >= n) {
      out.push_back({ViolationKind::kMalformed,
                     absl::StrFormat("precedence %d -> %d names no item", p.before, p.after)});
      continue;
    }
    const auto& before = schedule.items[p.before];
    const auto& after = schedule.items[p.after];
    if (after.allocation.start < before.allocation.end + p.delay) {
      out.push_back(
          {ViolationKind::kPrecedence,
           absl::StrFormat("%s starts at %d before %s ends at %d (+%d us delay)", after.id,
                           after.allocation.start, before.id, before.allocation.end, p.delay)});
    }
  }
}

}  // namespace

std::vector<Violation> FindViolations(const ScheduleToValidate& schedule) {
  std::vector<Violation> out;
  for (const auto& item : schedule.items) CheckItem(schedule, item, out);
  CheckCapacity(schedule, out);
  CheckPrecedences(schedule, out);
  return out;
}

absl::Status ValidateSchedule(const ScheduleToValidate& schedule) {
  const auto violations = FindViolations(schedule);
  if (violations.empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  lines.reserve(violations.size());
  for (const auto& v : violations) {
    lines.push_back(absl::StrCat(ViolationKindName(v.kind), ": ", v.message));
  }
  return absl::InternalError(absl::StrCat("invalid schedule: ", absl::StrJoin(lines, "; ")));
}

const char* ViolationKindName(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kMalformed:
      return "malformed";
    case ViolationKind::kCapacity:
      return "capacity";
    case ViolationKind::kPrecedence:
      return "precedence";
    case ViolationKind::kRelease:
      return "release";
    case ViolationKind::kDuration:
      return "duration";
    case ViolationKind::kDeadline:
      return "deadline";
  }
  return "unknown";
}

}  // namespace resched

// The schedule validator: every schedule an algorithm or RPC produces can be checked here,
// independently of the code that made it (tests and experiments do). It reports every violation
// it finds, each with its kind, so tests can assert on the exact failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/model/runtime_model.h"
#include "core/model/time.h"

namespace resched {

struct ScheduledItem {
  std::string id;
  Allocation allocation;
  Time release = 0;
  const RuntimeModel* model = nullptr;  // null: duration not checked
  // Set when the item really ended early (reported finish, cancel): its length may be shorter
  // than the model's time, never longer.
  bool ended_early = false;
  std::optional<Time> promised_deadline;  // checked only where the schedule promised it
  // The index of its processor group, when the schedule has groups: it runs inside that group,
  // on the group's speed.
  int group = -1;
};

struct PrecedenceConstraint {
  int before = 0;  // indices into ScheduleToValidate::items
  int after = 0;
  Duration delay = 0;  // the successor starts at least this long after the predecessor ends
};

struct ScheduleToValidate {
  int capacity = 0;
  // Processor groups of different speeds, whose counts sum to `capacity`; empty for one pool of
  // reference-speed processors. With groups, every item names one; at no instant do the items of
  // a group use more than its count; a model's times (given for the reference processor) are
  // divided by its group's speed. Holds may take processors from any group.
  std::vector<ProcessorGroup> groups;
  std::vector<ScheduledItem> items;
  std::vector<Allocation> holds;  // external reservations
  // With groups: the group of each hold that names one (an index into `groups`), -1 for a hold
  // that takes processors from any group; empty when no hold names one.
  std::vector<int> hold_groups;
  std::vector<PrecedenceConstraint> precedences;
};

enum class ViolationKind {
  kMalformed,   // start > end, k < 1, k > capacity
  kCapacity,    // more than P processors (or a group's count) busy at some instant
  kPrecedence,  // a task starts before a predecessor's end (+ delay)
  kRelease,     // a job starts before its release time
  kDuration,    // length or width inconsistent with the runtime model
  kDeadline,    // a promised deadline is missed
};

struct Violation {
  ViolationKind kind;
  std::string message;
};

std::vector<Violation> FindViolations(const ScheduleToValidate& schedule);

// OK, or INTERNAL with every violation listed (for tests and server self-checks).
absl::Status ValidateSchedule(const ScheduleToValidate& schedule);

const char* ViolationKindName(ViolationKind kind);

}  // namespace resched

// What the bridge reads of one resched cluster, apart from gRPC: the work it has planned (jobs,
// DAG task reservations, holds) and what it changes there (holds for the batch system's load,
// the starts and ends of the batch jobs that ran in resched's reservations).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/time.h"

namespace resched::bridge {

enum class PlannedKind { kJob, kDagTask, kHold };

// A job (QUEUED or RUNNING), a DAG task that still holds processors (reserved or running), or a
// hold: something resched has promised processors to over [start, end).
struct PlannedWork {
  PlannedKind kind = PlannedKind::kJob;
  std::string id;    // the job's or the hold's id; the DAG reservation's id for a task
  std::string task;  // a DAG task's name
  Time start = 0;
  Time end = 0;
  int processors = 0;
  bool running = false;  // a job RUNNING, a task whose start was reported
  std::string reason;    // a hold's reason
  std::string owner;     // the tenant of a job or DAG reservation; empty when none
};

struct ReschedView {
  Time now = 0;
  int capacity = 0;
  std::vector<PlannedWork> work;
};

// A hold the bridge adds to resched for load it does not schedule.
struct HoldSpec {
  std::string reason;  // the key: one hold per reason (see reconcile.h)
  Time start = 0;
  Time end = 0;
  int processors = 0;
};

enum class WorkEvent { kStarted, kFinished, kFailed };

// A batch job's start or end, reported for the job or DAG task of the reservation it ran in.
struct EventReport {
  PlannedKind kind = PlannedKind::kJob;  // kJob or kDagTask
  std::string id;
  std::string task;
  WorkEvent event = WorkEvent::kStarted;
  Time at = 0;
  std::string batch_job;  // the batch job's id, for request ids and logs
};

}  // namespace resched::bridge

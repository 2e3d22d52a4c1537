// A JOB_CHANGED event as the server sends it, and a SCHEDULE of many jobs, for the benchmarks of
// what the watch streams cost (bench/message_json_bench.cc, bench/schedule_feed_bench.cc).
#pragma once

#include "absl/strings/str_cat.h"
#include "resched/v1/service.pb.h"

namespace resched::bench {

// A queued rigid job on 12 processors.
inline void FillJob(int index, resched::v1::Job& job) {
  job.set_id(absl::StrCat("j", index));
  job.set_cluster("loadgen-0");
  job.mutable_spec()->set_owner("loadgen");
  job.mutable_spec()->set_weight(1);
  job.mutable_spec()->mutable_model()->mutable_rigid()->set_k(12);
  job.mutable_spec()->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(7045);
  job.set_state(resched::v1::QUEUED);
  job.mutable_allocation()->set_processors(12);
  job.mutable_allocation()->mutable_start()->set_seconds(242842 + index);
  job.mutable_allocation()->mutable_end()->set_seconds(249887 + index);
  for (int i = 0; i < 12; ++i) job.mutable_allocation()->add_processor_ids((index * 7 + i) % 1024);
  job.set_guaranteed(true);
  job.mutable_submitted()->set_seconds(index);
  job.mutable_sequential_time()->set_seconds(84540);
}

// Event `sequence`: job `sequence`'s JOB_CHANGED when `jobs` is 0, else a SCHEDULE of `jobs` jobs.
inline resched::v1::ScheduleEvent JobEvent(int sequence, int jobs = 0) {
  resched::v1::ScheduleEvent event;
  event.set_sequence(sequence);
  event.mutable_now()->set_seconds(1);
  if (jobs == 0) {
    event.set_kind(resched::v1::ScheduleEvent::JOB_CHANGED);
    FillJob(sequence, *event.mutable_job());
  } else {
    event.set_kind(resched::v1::ScheduleEvent::SCHEDULE);
    for (int i = 0; i < jobs; ++i) FillJob(i, *event.mutable_schedule()->add_jobs());
  }
  return event;
}

}  // namespace resched::bench

// The JSON of the web view's events and answers (server/web/message_json.h) against protobuf's
// printer (the baseline), same run: a JOB_CHANGED event as a page's stream carries it, and a
// SCHEDULE of 8,000 jobs as a page's first event carries it.
#include <benchmark/benchmark.h>
#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "resched/v1/service.pb.h"
#include "server/web/message_json.h"

namespace {

namespace pb = ::resched::v1;

// A queued rigid job on 12 processors, as the server sends it.
void FillJob(int index, pb::Job& job) {
  job.set_id(absl::StrCat("j", index));
  job.set_cluster("loadgen-0");
  job.mutable_spec()->set_owner("loadgen");
  job.mutable_spec()->set_weight(1);
  job.mutable_spec()->mutable_model()->mutable_rigid()->set_k(12);
  job.mutable_spec()->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(7045);
  job.set_state(pb::QUEUED);
  job.mutable_allocation()->set_processors(12);
  job.mutable_allocation()->mutable_start()->set_seconds(242842 + index);
  job.mutable_allocation()->mutable_end()->set_seconds(249887 + index);
  for (int i = 0; i < 12; ++i) job.mutable_allocation()->add_processor_ids((index * 7 + i) % 1024);
  job.set_guaranteed(true);
  job.mutable_submitted()->set_seconds(index);
  job.mutable_sequential_time()->set_seconds(84540);
}

pb::ScheduleEvent Event(int jobs) {
  pb::ScheduleEvent event;
  event.set_sequence(8006);
  event.mutable_now()->set_seconds(1);
  if (jobs == 0) {
    event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
    FillJob(8006, *event.mutable_job());
  } else {
    event.set_kind(pb::ScheduleEvent::SCHEDULE);
    for (int i = 0; i < jobs; ++i) FillJob(i, *event.mutable_schedule()->add_jobs());
  }
  return event;
}

// range(0): jobs in a SCHEDULE; 0 for a JOB_CHANGED.
void BM_ProtobufPrinter(benchmark::State& state) {
  const pb::ScheduleEvent event = Event(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string json;
    benchmark::DoNotOptimize(google::protobuf::util::MessageToJsonString(event, &json));
    benchmark::DoNotOptimize(json);
  }
}
BENCHMARK(BM_ProtobufPrinter)->Arg(0)->Arg(8000)->Unit(benchmark::kMicrosecond);

void BM_MessageJson(benchmark::State& state) {
  const pb::ScheduleEvent event = Event(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(resched::server::web::MessageJson(event));
}
BENCHMARK(BM_MessageJson)->Arg(0)->Arg(8000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

// The JSON of the web view's events and answers (server/web/message_json.h) against protobuf's
// printer (the baseline), same run: a JOB_CHANGED event as a page's stream carries it, and a
// SCHEDULE of 8,000 jobs as a page's first event carries it.
#include <benchmark/benchmark.h>
#include <google/protobuf/util/json_util.h>

#include <string>

#include "bench/job_event.h"
#include "resched/v1/service.pb.h"
#include "server/web/message_json.h"

namespace {

namespace pb = ::resched::v1;

// range(0): jobs in a SCHEDULE; 0 for a JOB_CHANGED.
void BM_ProtobufPrinter(benchmark::State& state) {
  const pb::ScheduleEvent event = resched::bench::JobEvent(8006, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string json;
    benchmark::DoNotOptimize(google::protobuf::util::MessageToJsonString(event, &json));
    benchmark::DoNotOptimize(json);
  }
}
BENCHMARK(BM_ProtobufPrinter)->Arg(0)->Arg(8000)->Unit(benchmark::kMicrosecond);

void BM_MessageJson(benchmark::State& state) {
  const pb::ScheduleEvent event = resched::bench::JobEvent(8006, static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(resched::server::web::MessageJson(event));
}
BENCHMARK(BM_MessageJson)->Arg(0)->Arg(8000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

// Replan through the real server on loopback: a SIMULATED cluster of 200
// processors (conservative backfilling) holding up to 1,000 reservations and 400 queued Amdahl
// jobs (replan_bench's workload), one dry-run Replan per iteration. The server reports the
// offline planner's own time (planner_time); the counters give it and the rest of the call
// (snapshot, problem, lower bound, the trial on a copy, the answer, the round trip). Baseline in
// the same run: GetCluster, a round trip alone. Argument: the instance's seed (three instances:
// one says little of another).
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

#include "bench/loopback_server.h"

namespace {

namespace pb = ::resched::v1;
using resched::bench::LoopbackServer;

constexpr int kProcessors = 200;
constexpr int kQueued = 400;
constexpr int kReservations = 1000;

void FillCluster(pb::Resched::Stub& stub, std::uint64_t seed) {
  resched::bench::CreateSimulatedCluster(stub, "c", kProcessors);
  std::mt19937_64 rng(seed);
  // The first hold takes the whole machine for 10 minutes: every job stays queued (none starts
  // now, where Replan would not move it).
  for (int r = 0; r < kReservations; ++r) {
    pb::AddReservationRequest hold;
    hold.set_cluster("c");
    const auto start = r == 0 ? 0 : static_cast<std::int64_t>(rng() % (24 * 3600));
    const auto length = r == 0 ? 600 : 60 + static_cast<std::int64_t>(rng() % 3600);
    hold.set_processors(r == 0 ? kProcessors : 1 + static_cast<int>(rng() % 10));
    hold.mutable_start()->set_seconds(start);
    hold.mutable_end()->set_seconds(start + length);
    pb::Reservation held;
    grpc::ClientContext c;
    (void)stub.AddReservation(&c, hold, &held);  // one that does not fit is skipped
  }
  for (int i = 0; i < kQueued; ++i) {
    pb::SubmitJobRequest request;
    request.set_cluster("c");
    auto* amdahl = request.mutable_job()->mutable_model()->mutable_amdahl();
    amdahl->mutable_t1()->set_seconds(60 * (1 + static_cast<std::int64_t>(rng() % 10)));
    amdahl->set_alpha(static_cast<double>(rng() % 31) / 100);
    request.mutable_job()->set_weight(1 + static_cast<double>(rng() % 10));
    pb::SubmitJobResponse response;
    grpc::ClientContext c;
    if (!stub.SubmitJob(&c, request, &response).ok()) std::abort();
  }
}

void ReplanDryRun(benchmark::State& state, const std::string& algorithm,
                  pb::ReplanObjective objective) {
  LoopbackServer server;
  FillCluster(server.stub(), static_cast<std::uint64_t>(state.range(0)));
  pb::ReplanRequest request;
  request.set_cluster("c");
  request.mutable_algorithm()->set_name(algorithm);
  request.set_objective(objective);
  request.set_dry_run(true);
  double planner_seconds = 0;
  double call_seconds = 0;
  for (auto _ : state) {
    pb::ReplanResponse response;
    grpc::ClientContext context;
    const auto sent = std::chrono::steady_clock::now();
    if (!server.stub().Replan(&context, request, &response).ok()) std::abort();
    call_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    planner_seconds += static_cast<double>(response.planner_time().seconds()) +
                       response.planner_time().nanos() / 1e9;
    if (response.before().jobs() != kQueued) std::abort();
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["planner_ms"] = planner_seconds / n * 1e3;
  state.counters["rest_of_call_ms"] = (call_seconds - planner_seconds) / n * 1e3;
}

void BM_ReplanDryRun_Mrt(benchmark::State& state) { ReplanDryRun(state, "mrt", pb::MAKESPAN); }
void BM_ReplanDryRun_Bicriteria(benchmark::State& state) {
  ReplanDryRun(state, "bicriteria", pb::MAKESPAN);
}
void BM_ReplanDryRun_ListSaf(benchmark::State& state) {
  ReplanDryRun(state, "list-saf", pb::MAKESPAN);
}
// The bi-criteria objective adds the LP lower bound on sum w C to the call.
void BM_ReplanDryRun_BicriteriaWithLpBound(benchmark::State& state) {
  ReplanDryRun(state, "bicriteria", pb::BICRITERIA);
}

void BM_GetClusterRoundTrip(benchmark::State& state) {
  LoopbackServer server;
  FillCluster(server.stub(), static_cast<std::uint64_t>(state.range(0)));
  pb::GetClusterRequest request;
  request.set_name("c");
  for (auto _ : state) {
    pb::Cluster cluster;
    grpc::ClientContext context;
    if (!server.stub().GetCluster(&context, request, &cluster).ok()) std::abort();
  }
}

}  // namespace

BENCHMARK(BM_GetClusterRoundTrip)->Arg(42)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReplanDryRun_Mrt)
    ->Arg(42)
    ->Arg(43)
    ->Arg(44)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ReplanDryRun_Bicriteria)
    ->Arg(42)
    ->Arg(43)
    ->Arg(44)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ReplanDryRun_ListSaf)
    ->Arg(42)
    ->Arg(43)
    ->Arg(44)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ReplanDryRun_BicriteriaWithLpBound)
    ->Arg(42)
    ->Arg(43)
    ->Arg(44)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_MAIN();

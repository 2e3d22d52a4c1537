// SubmitJob through the real server on loopback: one SIMULATED cluster (64 processors,
// conservative backfilling) pre-filled with Q queued jobs, then one submission per iteration.
// Reports per-call latency percentiles (p50, p99) and throughput. Baselines in the same run:
// Q = 0 (an empty cluster) and GetCluster (the cost of a round trip alone).
// BM_ConcurrentSubmit: 16 or 64 clients over 8 clusters, ephemeral and durable (a data directory
// in /tmp, every answer after its fsync) in alternating pairs, for the durable/ephemeral
// throughput ratio; a third round journals to /dev/shm (tmpfs: the same calls, the fsync writes
// nothing), so that the ratio splits into the journal's own cost and the disk flush's.
// BM_ConcurrentSubmitTraced: the same, ephemeral, with tracing off or sampling 0, 10 % or every
// call, the spans going to an exporter that drops them: the server's own cost of tracing.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/loopback_server.h"
#include "bench/submit_round.h"
#include "core/plan/cluster_plan.h"
#include "proto/resched/convert.h"
#include "server/rpc/service.h"

namespace {

namespace pb = ::resched::v1;
using resched::bench::LoopbackServer;
using resched::bench::RandomJobSpec;

void CreateFilledCluster(pb::Resched::Stub& stub, const std::string& name, int queued,
                         std::mt19937_64& rng) {
  resched::bench::CreateSimulatedCluster(stub, name, 64);
  resched::bench::SubmitRandomJobs(stub, name, queued, rng);
}

// Times each call of `call` (one per iteration) and reports p50, p99 and calls per second.
template <class Call>
void MeasureCalls(benchmark::State& state, Call call) {
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const grpc::Status status = call();
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
    if (!status.ok()) state.SkipWithError(status.error_message().c_str());
  }
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) { return micros[static_cast<size_t>(q * (micros.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["calls_per_s"] =
      benchmark::Counter(static_cast<double>(micros.size()), benchmark::Counter::kIsRate);
}

void BM_SubmitJob(benchmark::State& state) {
  LoopbackServer server;
  std::mt19937_64 rng(42);
  CreateFilledCluster(server.stub(), "bench", static_cast<int>(state.range(0)), rng);
  MeasureCalls(state, [&] {
    pb::SubmitJobRequest request;
    request.set_cluster("bench");
    *request.mutable_job() = RandomJobSpec(rng);
    pb::SubmitJobResponse response;
    grpc::ClientContext context;
    return server.stub().SubmitJob(&context, request, &response);
  });
}
BENCHMARK(BM_SubmitJob)
    ->Arg(0)
    ->Arg(10'000)
    ->Iterations(2000)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_GetClusterRoundTrip(benchmark::State& state) {
  LoopbackServer server;
  std::mt19937_64 rng(42);
  CreateFilledCluster(server.stub(), "bench", 0, rng);
  MeasureCalls(state, [&] {
    pb::GetClusterRequest request;
    request.set_name("bench");
    pb::Cluster cluster;
    grpc::ClientContext context;
    return server.stub().GetCluster(&context, request, &cluster);
  });
}
BENCHMARK(BM_GetClusterRoundTrip)->Iterations(2000)->UseRealTime()->Unit(benchmark::kMicrosecond);

// One round on a fresh server: ephemeral, or durable in a data directory under `data_parent`.
resched::bench::SubmitRound RunRound(int clients, bool durable, double sample_ratio,
                                     const std::string& data_parent = "/tmp") {
  LoopbackServer server(durable, sample_ratio, {}, data_parent);
  return resched::bench::RunSubmitRound(server, clients);
}

// Argument: the number of clients. Each iteration is three rounds, ephemeral, durable and durable
// on tmpfs, so that the machine's drift touches all alike; `durable_ratio` and
// `tmpfs_durable_ratio` are the ratios of throughputs to the ephemeral round's (the aggregates
// give their medians over the repetitions).
void BM_ConcurrentSubmit(benchmark::State& state) {
  const int clients = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const resched::bench::SubmitRound ephemeral = RunRound(clients, false, -1);
    const resched::bench::SubmitRound durable = RunRound(clients, true, -1);
    const resched::bench::SubmitRound in_memory = RunRound(clients, true, -1, "/dev/shm");
    state.counters["ephemeral_calls_per_s"] = ephemeral.calls_per_s;
    state.counters["ephemeral_p50_us"] = ephemeral.p50_us;
    state.counters["ephemeral_cpu_us_per_call"] = ephemeral.cpu_us_per_call;
    state.counters["durable_calls_per_s"] = durable.calls_per_s;
    state.counters["durable_p50_us"] = durable.p50_us;
    state.counters["durable_p99_us"] = durable.p99_us;
    state.counters["durable_cpu_us_per_call"] = durable.cpu_us_per_call;
    state.counters["calls_per_commit"] = durable.calls_per_commit;
    state.counters["durable_ratio"] = durable.calls_per_s / ephemeral.calls_per_s;
    state.counters["tmpfs_cpu_us_per_call"] = in_memory.cpu_us_per_call;
    state.counters["tmpfs_durable_ratio"] = in_memory.calls_per_s / ephemeral.calls_per_s;
  }
}
// 11 triples: this machine's speed drifts by a third within a minute.
BENCHMARK(BM_ConcurrentSubmit)
    ->Arg(16)
    ->Arg(64)
    ->Iterations(1)
    ->Repetitions(11)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Argument: -1 tracing off, else the sample ratio in per mille.
void BM_ConcurrentSubmitTraced(benchmark::State& state) {
  for (auto _ : state) {
    const resched::bench::SubmitRound round =
        RunRound(16, false, static_cast<double>(state.range(0)) / 1000.0);
    state.counters["calls_per_s"] = round.calls_per_s;
    state.counters["p50_us"] = round.p50_us;
    state.counters["p99_us"] = round.p99_us;
  }
}
BENCHMARK(BM_ConcurrentSubmitTraced)
    ->Arg(-1)
    ->Arg(0)
    ->Arg(100)
    ->Arg(1000)
    ->Iterations(1)
    ->Repetitions(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same placements without gRPC: ClusterPlan::Submit alone, to split the latency between the
// scheduling work and the transport.
void BM_PlanSubmitWithoutGrpc(benchmark::State& state) {
  resched::ClusterSpec spec{
      "core", {{"", 64, 1.0}}, resched::ClockKind::kSimulated, "conservative", {}};
  auto plan = *resched::ClusterPlan::Create(spec, {}, 0);
  std::mt19937_64 rng(42);
  auto next_job = [&] { return *resched::FromProto(RandomJobSpec(rng), plan->now()); };
  for (int i = 0; i < state.range(0); ++i) (void)plan->Submit(next_job());
  for (auto _ : state) {
    state.PauseTiming();
    auto job = next_job();
    state.ResumeTiming();
    benchmark::DoNotOptimize(plan->Submit(std::move(job)));
  }
}
BENCHMARK(BM_PlanSubmitWithoutGrpc)
    ->Arg(0)
    ->Arg(10'000)
    ->Iterations(2000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

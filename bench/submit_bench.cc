// SubmitJob through the real server on loopback: one SIMULATED cluster (64 processors,
// conservative backfilling) pre-filled with Q queued jobs, then one submission per iteration.
// Reports per-call latency percentiles (p50, p99) and throughput. Baselines in the same run:
// Q = 0 (an empty cluster) and GetCluster (the cost of a round trip alone).
// BM_ConcurrentSubmit: 16 clients over 8 clusters, ephemeral and durable (a data directory in
// /tmp, every answer after its fsync), for the durable/ephemeral throughput ratio.
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
#include "core/plan/cluster_plan.h"
#include "proto/resched/convert.h"
#include "server/service.h"

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

// 16 clients, each submitting 400 jobs round-robin over 8 clusters (an empty cluster each at the
// start): the throughput and latency percentiles of all 6,400 calls, ephemeral (0) or durable (1).
void RunConcurrentSubmit(benchmark::State& state, bool durable, double sample_ratio) {
  constexpr int kClients = 16;
  constexpr int kClusters = 8;
  constexpr int kPerClient = 400;
  for (auto _ : state) {
    state.PauseTiming();
    LoopbackServer server(durable, sample_ratio);
    std::mt19937_64 rng(42);
    for (int c = 0; c < kClusters; ++c) {
      CreateFilledCluster(server.stub(), absl::StrCat("c", c), 0, rng);
    }
    const std::int64_t commits_before =
        durable ? server.service().journal()->commits() : std::int64_t{0};
    std::vector<std::vector<double>> micros(kClients);
    std::vector<std::thread> clients;
    clients.reserve(kClients);
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    for (int client = 0; client < kClients; ++client) {
      clients.emplace_back([&, client] {
        std::mt19937_64 mine(client);
        for (int i = 0; i < kPerClient; ++i) {
          pb::SubmitJobRequest request;
          request.set_cluster(absl::StrCat("c", (client + i) % kClusters));
          *request.mutable_job() = RandomJobSpec(mine);
          pb::SubmitJobResponse response;
          grpc::ClientContext context;
          const auto called = std::chrono::steady_clock::now();
          if (!server.stub().SubmitJob(&context, request, &response).ok()) std::abort();
          micros[client].push_back(
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - called)
                  .count());
        }
      });
    }
    for (auto& client : clients) client.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.PauseTiming();
    std::vector<double> all;
    for (const auto& m : micros) all.insert(all.end(), m.begin(), m.end());
    std::sort(all.begin(), all.end());
    auto at = [&](double q) { return all[static_cast<size_t>(q * (all.size() - 1))]; };
    state.counters["calls_per_s"] = static_cast<double>(all.size()) / seconds;
    state.counters["p50_us"] = at(0.50);
    state.counters["p99_us"] = at(0.99);
    if (durable) {
      // Records per fsync: how much the group commit shares.
      state.counters["calls_per_commit"] =
          static_cast<double>(all.size()) /
          static_cast<double>(server.service().journal()->commits() - commits_before);
    }
    state.ResumeTiming();
  }
}

void BM_ConcurrentSubmit(benchmark::State& state) {
  RunConcurrentSubmit(state, state.range(0) == 1, -1);
}
BENCHMARK(BM_ConcurrentSubmit)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->Repetitions(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Argument: -1 tracing off, else the sample ratio in per mille.
void BM_ConcurrentSubmitTraced(benchmark::State& state) {
  RunConcurrentSubmit(state, false, static_cast<double>(state.range(0)) / 1000.0);
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

// SubmitJob at the transport's limit: 16 clients over 8 clusters of 64 processors
// (SIMULATED clock, conservative backfilling), each cluster holding 10k queued jobs, on loopback.
//
// The same 16 client threads and channel run, five rounds in a row (a machine's speed drifts
// between seconds, so each round's ratio compares phases a second apart, and the counters are
// the medians over rounds):
// 1. the baseline: grpc.health.v1.Health/Check as fast as the clients can call it (the
//    transport's own limit on this machine, no scheduling work);
// 2. GetJob (one queued job per cluster) as fast as they can: the service's own cost per call
//    (authorization, metrics, the worker thread, the cluster's lock) without planning;
// 3. SubmitJob as fast as they can on a service that answers each call at once with a fill's
//    answer to the same kind of job (bench/canned_submit_service.h, a server of its own in this
//    process, with a channel of its own): the ceiling that the transport and protobuf leave a
//    SubmitJob, without resched's handler;
// 4. SubmitJob as fast as they can (closed loop), round-robin over the clusters.
// Then SubmitJob open-loop at half the median rate of phase 4, each client on a fixed schedule,
// its latency counted from the scheduled send time (so a late send counts as waiting).
// Counters: health_per_s, get_job_per_s, submit_per_s, submit_vs_health (the target:
// >= 0.8), and the p50 / p99 of the closed and the half-rate SubmitJob in µs (the target: p99 <=
// 2 ms at half rate). health_cpu_us, get_job_cpu_us and submit_cpu_us: the process's CPU time
// (user and system, clients and server together, as they share the machine's cores) per call
// of each closed phase, which says how much of a call's cost is the service's own work.
// canned_per_s, canned_vs_health and canned_cpu_us: the same for phase 3. handler_cpu_us: what
// a SubmitJob costs beyond the canned one, resched's handler; handler_budget_us: what it may cost
// for submit_vs_health to reach 0.8, with the calls' rate following their CPU (health_cpu_us /
// 0.8 - canned_cpu_us). Both are medians of each round's figure.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/canned_submit_service.h"
#include "bench/loopback_server.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace {

namespace pb = ::resched::v1;
namespace health = ::grpc::health::v1;
using resched::bench::CannedSubmitService;
using resched::bench::LoopbackServer;
using resched::bench::RandomJobSpec;
using Clock = std::chrono::steady_clock;

constexpr int kClients = 16;
constexpr int kClusters = 8;
constexpr int kQueuedPerCluster = 10'000;
constexpr int kCallsPerClient = 300;
constexpr int kRounds = 5;

// The job's id, or empty when the call failed. With `answers`, keeps the answer by the kind of
// the job's model.
std::string Submit(pb::Resched::Stub& stub, int cluster, std::mt19937_64& rng,
                   std::map<int, pb::SubmitJobResponse>* answers = nullptr) {
  pb::SubmitJobRequest request;
  request.set_cluster(absl::StrCat("c", cluster));
  *request.mutable_job() = RandomJobSpec(rng);
  pb::SubmitJobResponse response;
  grpc::ClientContext context;
  if (!stub.SubmitJob(&context, request, &response).ok()) return {};
  if (answers != nullptr) (*answers)[request.job().model().kind_case()] = response;
  return response.job().id();
}

struct Phase {
  double calls_per_s = 0;
  double cpu_us_per_call = 0;  // the whole process's (clients and server), user and system
  double p50_us = 0;
  double p99_us = 0;
};

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Runs `call(client, i)` kCallsPerClient times on each of kClients threads. With a positive
// `rate` (calls per second over all clients) each client sends on a fixed schedule and a call's
// latency counts from its scheduled time.
Phase RunClients(const std::function<bool(int, int)>& call, double rate) {
  std::vector<std::vector<double>> micros(kClients);
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  const double cpu_before = ProcessCpuSeconds();
  const auto start = Clock::now();
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&, client] {
      const auto period = std::chrono::duration<double>(rate > 0 ? kClients / rate : 0);
      // Clients start spread over one period, not all at once.
      auto next = start + std::chrono::duration_cast<Clock::duration>(period * client / kClients);
      for (int i = 0; i < kCallsPerClient; ++i) {
        auto from = Clock::now();
        if (rate > 0) {
          std::this_thread::sleep_until(next);
          from = next;
          next += std::chrono::duration_cast<Clock::duration>(period);
        }
        if (!call(client, i)) std::abort();
        micros[client].push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - from).count());
      }
    });
  }
  for (auto& client : clients) client.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (const auto& m : micros) all.insert(all.end(), m.begin(), m.end());
  std::sort(all.begin(), all.end());
  auto at = [&](double q) { return all[static_cast<size_t>(q * (all.size() - 1))]; };
  const double cpu_us = (ProcessCpuSeconds() - cpu_before) * 1e6 / static_cast<double>(all.size());
  return {static_cast<double>(all.size()) / seconds, cpu_us, at(0.5), at(0.99)};
}

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double Median(const std::vector<Phase>& phases, double Phase::*field) {
  std::vector<double> values;
  values.reserve(phases.size());
  for (const Phase& phase : phases) values.push_back(phase.*field);
  return MedianOf(std::move(values));
}

void BM_SubmitAtTheTransportsLimit(benchmark::State& state) {
  grpc::EnableDefaultHealthCheckService(true);
  for (auto _ : state) {
    state.PauseTiming();
    LoopbackServer server;
    std::mt19937_64 fill(42);
    std::vector<std::string> some_job(kClusters);
    std::map<int, pb::SubmitJobResponse> answers;
    for (int c = 0; c < kClusters; ++c) {
      resched::bench::CreateSimulatedCluster(server.stub(), absl::StrCat("c", c), 64);
      for (int i = 0; i < kQueuedPerCluster; ++i) {
        some_job[c] = Submit(server.stub(), c, fill, &answers);
        if (some_job[c].empty()) std::abort();
      }
    }
    auto health_stub = health::Health::NewStub(server.channel());
    CannedSubmitService canned(answers);
    std::vector<std::mt19937_64> rngs, canned_rngs;
    rngs.reserve(kClients);
    canned_rngs.reserve(kClients);
    for (int client = 0; client < kClients; ++client) {
      rngs.emplace_back(client);
      canned_rngs.emplace_back(client);
    }
    state.ResumeTiming();

    auto check = [&](int, int) {
      health::HealthCheckRequest request;
      health::HealthCheckResponse response;
      grpc::ClientContext context;
      return health_stub->Check(&context, request, &response).ok();
    };
    auto get_job = [&](int client, int i) {
      const int cluster = (client + i) % kClusters;
      pb::GetJobRequest request;
      request.set_cluster(absl::StrCat("c", cluster));
      request.set_id(some_job[cluster]);
      pb::Job response;
      grpc::ClientContext context;
      return server.stub().GetJob(&context, request, &response).ok();
    };
    auto submit = [&](int client, int i) {
      return !Submit(server.stub(), (client + i) % kClusters, rngs[client]).empty();
    };
    auto canned_submit = [&](int client, int i) {
      return !Submit(canned.stub(), (client + i) % kClusters, canned_rngs[client]).empty();
    };
    std::vector<Phase> checks, gets, canneds, closed;
    std::vector<double> ratios, canned_ratios, handler_cpu, handler_budget;
    for (int round = 0; round < kRounds; ++round) {
      checks.push_back(RunClients(check, 0));
      gets.push_back(RunClients(get_job, 0));
      canneds.push_back(RunClients(canned_submit, 0));
      closed.push_back(RunClients(submit, 0));
      ratios.push_back(closed.back().calls_per_s / checks.back().calls_per_s);
      canned_ratios.push_back(canneds.back().calls_per_s / checks.back().calls_per_s);
      handler_cpu.push_back(closed.back().cpu_us_per_call - canneds.back().cpu_us_per_call);
      handler_budget.push_back(checks.back().cpu_us_per_call / 0.8 -
                               canneds.back().cpu_us_per_call);
    }
    const double submit_per_s = Median(closed, &Phase::calls_per_s);
    const Phase half = RunClients(submit, submit_per_s / 2);

    state.counters["health_per_s"] = Median(checks, &Phase::calls_per_s);
    state.counters["get_job_per_s"] = Median(gets, &Phase::calls_per_s);
    state.counters["health_cpu_us"] = Median(checks, &Phase::cpu_us_per_call);
    state.counters["get_job_cpu_us"] = Median(gets, &Phase::cpu_us_per_call);
    state.counters["submit_cpu_us"] = Median(closed, &Phase::cpu_us_per_call);
    state.counters["canned_per_s"] = Median(canneds, &Phase::calls_per_s);
    state.counters["canned_vs_health"] = MedianOf(canned_ratios);
    state.counters["canned_cpu_us"] = Median(canneds, &Phase::cpu_us_per_call);
    state.counters["handler_cpu_us"] = MedianOf(handler_cpu);
    state.counters["handler_budget_us"] = MedianOf(handler_budget);
    state.counters["submit_per_s"] = submit_per_s;
    state.counters["submit_vs_health"] = MedianOf(ratios);
    state.counters["submit_p50_us"] = Median(closed, &Phase::p50_us);
    state.counters["submit_p99_us"] = Median(closed, &Phase::p99_us);
    state.counters["half_rate_per_s"] = half.calls_per_s;
    state.counters["half_rate_p50_us"] = half.p50_us;
    state.counters["half_rate_p99_us"] = half.p99_us;
  }
}
BENCHMARK(BM_SubmitAtTheTransportsLimit)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// One round of concurrent SubmitJob calls against a loopback server (bench/loopback_server.h):
// `clients` clients each submit 400 jobs round-robin over 8 clusters, created empty first. For
// the server benchmarks that compare ways of running the service in the same run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/loopback_server.h"
#include "bench/process_cpu.h"

namespace resched::bench {

struct SubmitRound {
  double calls_per_s = 0;
  double p50_us = 0;
  double p99_us = 0;
  double calls_per_commit = 0;  // durable only: records per commit, what the group commit shares
  double cpu_us_per_call = 0;   // this process's CPU time (clients included) per call
};

inline SubmitRound RunSubmitRound(LoopbackServer& server, int clients) {
  constexpr int kClusters = 8;
  constexpr int kPerClient = 400;
  std::mt19937_64 rng(42);
  for (int c = 0; c < kClusters; ++c) {
    CreateSimulatedCluster(server.stub(), absl::StrCat("c", c), 64);
  }
  server::Journal* journal = server.app().journal();
  const std::int64_t commits_before = journal != nullptr ? journal->commits() : 0;
  std::vector<std::vector<double>> micros(clients);
  std::vector<std::thread> threads;
  threads.reserve(clients);
  const double cpu_before = ProcessCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  for (int client = 0; client < clients; ++client) {
    threads.emplace_back([&, client] {
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
  for (auto& thread : threads) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_seconds = ProcessCpuSeconds() - cpu_before;
  std::vector<double> all;
  for (const auto& m : micros) all.insert(all.end(), m.begin(), m.end());
  std::sort(all.begin(), all.end());
  auto at = [&](double q) { return all[static_cast<std::size_t>(q * (all.size() - 1))]; };
  SubmitRound result;
  const auto calls = static_cast<double>(all.size());
  result.calls_per_s = calls / seconds;
  result.p50_us = at(0.50);
  result.p99_us = at(0.99);
  result.cpu_us_per_call = cpu_seconds * 1e6 / calls;
  if (journal != nullptr) {
    result.calls_per_commit = calls / static_cast<double>(journal->commits() - commits_before);
  }
  return result;
}

}  // namespace resched::bench

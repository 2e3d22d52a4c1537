// SubmitJob at 16 clients with the journal in etcd, against the local store (a data directory in
// /tmp, SQLite, one fsync per group commit) and ephemeral, in alternating rounds of the same run
// (bench/submit_round.h): the etcd/local throughput ratio, the figure docs/ha.md tracks, and the
// CPU per call of each, etcd's own process counted for the etcd rounds. etcd is started by the
// benchmark on loopback (Debian's etcd-server): one member, or three (Arg), every member on this
// machine's cores, where a deployment has each on its own. BM_EtcdDatabaseSizeFor100kJobs: what
// etcd's database holds for 100k live jobs.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/loopback_server.h"
#include "bench/process_cpu.h"
#include "bench/submit_round.h"
#include "server/store/etcd_journal_store.h"
#include "tests/testing/etcd_cluster.h"

namespace resched {
namespace {

constexpr int kClients = 16;

double EtcdCpuMicros(const testing::EtcdCluster& etcd) {
  double micros = 0;
  for (int member = 0; member < etcd.size(); ++member) {
    micros += bench::ProcessCpuMicros(etcd.pid(member));
  }
  return micros;
}

// Argument: etcd's members.
void BM_SubmitWithEtcdStore(benchmark::State& state) {
  testing::EtcdCluster etcd(static_cast<int>(state.range(0)));
  if (!etcd.started().ok()) {
    state.SkipWithError(std::string(etcd.started().message()).c_str());
    return;
  }
  int round = 0;
  for (auto _ : state) {
    bench::SubmitRound ephemeral;
    bench::SubmitRound local;
    {
      bench::LoopbackServer server(false);
      ephemeral = bench::RunSubmitRound(server, kClients);
    }
    {
      bench::LoopbackServer server(true);
      local = bench::RunSubmitRound(server, kClients);
    }
    server::EtcdStoreOptions options;
    options.client.endpoints = etcd.endpoints();
    options.prefix = absl::StrCat("/bench/round", round++);  // a fresh journal each round
    auto store = server::EtcdJournalStore::Connect(options);
    if (!store.ok()) {
      state.SkipWithError(std::string(store.status().message()).c_str());
      return;
    }
    const double etcd_cpu_before = EtcdCpuMicros(etcd);
    bench::SubmitRound in_etcd;
    {
      bench::LoopbackServer server(*std::move(store));
      in_etcd = bench::RunSubmitRound(server, kClients);
    }
    const double calls = kClients * 400.0;  // bench/submit_round.h's calls per round
    state.counters["ephemeral_calls_per_s"] = ephemeral.calls_per_s;
    state.counters["ephemeral_cpu_us_per_call"] = ephemeral.cpu_us_per_call;
    state.counters["local_calls_per_s"] = local.calls_per_s;
    state.counters["local_cpu_us_per_call"] = local.cpu_us_per_call;
    state.counters["local_p50_us"] = local.p50_us;
    state.counters["etcd_calls_per_s"] = in_etcd.calls_per_s;
    state.counters["etcd_p50_us"] = in_etcd.p50_us;
    state.counters["etcd_p99_us"] = in_etcd.p99_us;
    state.counters["etcd_calls_per_commit"] = in_etcd.calls_per_commit;
    // resched's CPU per call, and etcd's (every member) per call.
    state.counters["etcd_cpu_us_per_call"] = in_etcd.cpu_us_per_call;
    state.counters["etcd_server_cpu_us_per_call"] = (EtcdCpuMicros(etcd) - etcd_cpu_before) / calls;
    state.counters["etcd_local_ratio"] = in_etcd.calls_per_s / local.calls_per_s;
  }
}
// Alternating triples: this machine's speed drifts within a minute.
BENCHMARK(BM_SubmitWithEtcdStore)
    ->Arg(1)
    ->Arg(3)
    ->Iterations(1)
    ->Repetitions(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// What etcd's database holds for 100k live jobs: 10 clusters of 10k queued jobs each, submitted
// by a client per cluster, with the default snapshot interval (a snapshot, and the records before
// it dropped and the history compacted, every 10k records of a cluster). Counters: the size of
// etcd's database file, and the bytes per live job.
void BM_EtcdDatabaseSizeFor100kJobs(benchmark::State& state) {
  constexpr int kClusters = 10;
  constexpr int kJobsPerCluster = 10000;
  testing::EtcdCluster etcd;
  if (!etcd.started().ok()) {
    state.SkipWithError(std::string(etcd.started().message()).c_str());
    return;
  }
  for (auto _ : state) {
    server::EtcdStoreOptions options;
    options.client.endpoints = etcd.endpoints();
    auto store = server::EtcdJournalStore::Connect(options);
    if (!store.ok()) {
      state.SkipWithError(std::string(store.status().message()).c_str());
      return;
    }
    bench::LoopbackServer server(*std::move(store));
    std::vector<std::thread> clients;
    clients.reserve(kClusters);
    for (int c = 0; c < kClusters; ++c) {
      clients.emplace_back([&, c] {
        const std::string name = absl::StrCat("c", c);
        bench::CreateSimulatedCluster(server.stub(), name, 64);
        std::mt19937_64 rng(c);
        bench::SubmitRandomJobs(server.stub(), name, kJobsPerCluster, rng);
      });
    }
    for (std::thread& client : clients) client.join();
    server.app().FlushSnapshots();
    auto client = server::etcd::Client::Create(options.client);
    if (!client.ok()) std::abort();
    absl::StatusOr<std::int64_t> bytes = (*client)->DatabaseSize();
    if (!bytes.ok()) std::abort();
    state.counters["db_bytes"] = static_cast<double>(*bytes);
    state.counters["bytes_per_job"] =
        static_cast<double>(*bytes) / static_cast<double>(kClusters * kJobsPerCluster);
  }
}
BENCHMARK(BM_EtcdDatabaseSizeFor100kJobs)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace resched

BENCHMARK_MAIN();

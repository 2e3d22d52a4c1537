// What a takeover costs the replica that takes a large cluster over (docs/ha.md): loading it
// from the warm copy it kept by following the cluster's records (Application::FollowCluster),
// which applies only the records written since its last catch-up, against reading it whole from
// etcd (its snapshot, then its later records), in the same run. The cluster: Arg jobs queued
// under conservative backfilling on 64 processors, journaled in etcd (one member on loopback,
// started by the benchmark) with the default snapshot interval; then 200 more jobs that the
// follower has not caught up with when the owner goes.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/loopback_server.h"
#include "server/store/etcd_journal_store.h"
#include "tests/testing/etcd_cluster.h"

namespace resched {
namespace {

constexpr int kJobsAfterTheCopy = 200;

// An application on the etcd journal under `prefix` that serves nothing yet, as a replica does
// before its coordinator adopts a cluster.
std::unique_ptr<server::Application> Follower(const testing::EtcdCluster& etcd,
                                              const std::string& prefix, const std::string& id) {
  server::EtcdStoreOptions options;
  options.client.endpoints = etcd.endpoints();
  options.prefix = prefix;
  options.replica_id = id;
  auto store = server::EtcdJournalStore::Connect(options);
  if (!store.ok()) std::abort();
  auto app = std::make_unique<server::Application>();
  if (!app->OpenSpreadStore(*std::move(store), {}).ok()) std::abort();
  return app;
}

double MillisToAdopt(server::Application& app, const std::string& cluster) {
  const auto started = std::chrono::steady_clock::now();
  if (!app.AdoptCluster(cluster).ok()) std::abort();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
      .count();
}

void BM_TakeoverOfALargeCluster(benchmark::State& state) {
  testing::EtcdCluster etcd;
  if (!etcd.started().ok()) {
    state.SkipWithError(std::string(etcd.started().message()).c_str());
    return;
  }
  int round = 0;
  for (auto _ : state) {
    const std::string prefix = absl::StrCat("/bench/takeover", round++);
    std::unique_ptr<server::Application> warm = Follower(etcd, prefix, "warm");
    std::unique_ptr<server::Application> cold = Follower(etcd, prefix, "cold");
    {
      server::EtcdStoreOptions options;
      options.client.endpoints = etcd.endpoints();
      options.prefix = prefix;
      options.replica_id = "owner";
      auto store = server::EtcdJournalStore::Connect(options);
      if (!store.ok()) std::abort();
      bench::LoopbackServer owner(*std::move(store));
      bench::CreateSimulatedCluster(owner.stub(), "big", 64);
      std::mt19937_64 rng(round);
      bench::SubmitRandomJobs(owner.stub(), "big", static_cast<int>(state.range(0)), rng);
      owner.app().FlushSnapshots();
      if (!warm->FollowCluster("big").ok()) std::abort();
      bench::SubmitRandomJobs(owner.stub(), "big", kJobsAfterTheCopy, rng);
    }  // the owner goes, its lease revoked
    const double warm_ms = MillisToAdopt(*warm, "big");
    const double whole_ms = MillisToAdopt(*cold, "big");
    state.counters["warm_copy_ms"] = warm_ms;
    state.counters["read_whole_ms"] = whole_ms;
    state.counters["whole_warm_ratio"] = whole_ms / warm_ms;
  }
}
BENCHMARK(BM_TakeoverOfALargeCluster)
    ->Arg(20000)
    ->Iterations(1)
    ->Repetitions(3)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace resched

BENCHMARK_MAIN();

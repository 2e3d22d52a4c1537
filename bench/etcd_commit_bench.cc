// What a batch of journal records costs to make durable: one etcd transaction of N puts,
// conditioned on a key's lease (as a fenced owner's commit would be), through the JSON gateway,
// against the local journal's group commit of the same N records (server/store/journal.h, SQLite
// in WAL mode, one fsync), in the same run and on the same disk (/tmp). One etcd member on
// loopback, started by the benchmark (Debian's etcd-server). Records are 512 bytes.
// Counters: records per second, and for etcd the CPU its process spent per batch (the client's is
// the CPU column).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/process_cpu.h"
#include "server/store/etcd_client.h"
#include "server/store/journal.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/temp_dir.h"

namespace resched {
namespace {

constexpr std::size_t kRecordBytes = 512;

using bench::ProcessCpuMicros;

void BM_EtcdTxnCommit(benchmark::State& state) {
  const int records = static_cast<int>(state.range(0));
  testing::EtcdCluster etcd;
  if (!etcd.started().ok()) {
    state.SkipWithError(std::string(etcd.started().message()).c_str());
    return;
  }
  server::etcd::ClientOptions options;
  options.endpoints = etcd.endpoints();
  auto client = server::etcd::Client::Create(options);
  if (!client.ok()) std::abort();
  auto lease = (*client)->GrantLease(absl::Seconds(10));
  if (!lease.ok() || !(*client)->Put("owner/c", "me", lease->id).ok()) std::abort();
  const std::string payload(kRecordBytes, 'r');
  std::int64_t lsn = 0;
  const double etcd_cpu_before = ProcessCpuMicros(etcd.pid(0));
  for (auto _ : state) {
    std::vector<server::etcd::Op> puts;
    puts.reserve(records);
    for (int i = 0; i < records; ++i) {
      puts.push_back(server::etcd::Op::Put(absl::StrFormat("journal/c/%020d", ++lsn), payload));
    }
    auto done = (*client)->Txn({server::etcd::Compare::LeaseIs("owner/c", lease->id)}, puts, {});
    if (!done.ok() || !done->succeeded) std::abort();
    if (lsn % 4096 < static_cast<std::int64_t>(records)) {
      (void)(*client)->KeepAlive(lease->id);
    }
  }
  state.counters["records_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * records, benchmark::Counter::kIsRate);
  // etcd's own CPU per batch (the process's clock ticks: coarse, so over all iterations).
  state.counters["etcd_cpu_us"] =
      (ProcessCpuMicros(etcd.pid(0)) - etcd_cpu_before) / static_cast<double>(state.iterations());
}

void BM_LocalJournalCommit(benchmark::State& state) {
  const int records = static_cast<int>(state.range(0));
  testing::TempDir dir("journal-bench");
  auto journal = server::Journal::Open(dir.path() + "/data");
  if (!journal.ok()) std::abort();
  const std::string payload(kRecordBytes, 'r');
  for (auto _ : state) {
    std::int64_t last = 0;
    for (int i = 0; i < records; ++i) last = (*journal)->Append("c", payload);
    if (!(*journal)->WaitDurable(last).ok()) std::abort();
  }
  state.counters["records_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * records, benchmark::Counter::kIsRate);
}

// Batches of 1, 16 and 128 records, timed by the wall clock (the commit waits on a disk or on
// etcd, not on this thread's CPU).
void BatchSizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("records")->Arg(1)->Arg(16)->Arg(128)->UseRealTime()->Unit(
      benchmark::kMicrosecond);
}
BENCHMARK(BM_LocalJournalCommit)->Apply(BatchSizes);
BENCHMARK(BM_EtcdTxnCommit)->Apply(BatchSizes);

}  // namespace
}  // namespace resched

BENCHMARK_MAIN();

// Memory an open WatchSchedule stream holds in the server, and whether it is given back when the
// stream ends (docs/security.md): streams that never read, on a cluster of 3,000 queued jobs and
// on one of 10,000. The streams' channels take almost nothing ahead of their readers
// (as a reader that stopped reading over a network), so the snapshot each stream is sent stays
// in the server's buffers.
//
// Heap bytes in use (glibc mallinfo2, as memory_bench.cc) before the streams, with them open,
// and after they have ended; the client side of the streams is in the same process but holds
// a few kilobytes each. Counters: bytes_per_stream (open), kept_after_end_bytes (after every
// stream ended, against before), counted_per_stream (what the streams' memory budget counts,
// resched_watch_pending_bytes, server/app/watch_budget.h), and the resident set's growth with the
// streams open (rss_MiB) and a second after they ended (rss_kept_MiB). Built twice: with
// glibc's allocator (watch_memory_bench: the heap counters) and with the server's
// (watch_memory_tcmalloc_bench: the resident set as the server keeps it; its heap counters
// read glibc's, unused there).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "bench/loopback_server.h"

namespace {

namespace pb = ::resched::v1;

double HeapBytesInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  double resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE));
}

struct OpenStream {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::Resched::Stub> stub;
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<pb::ScheduleEvent>> reader;
};

// A gauge of the server's metrics; -1 when it has none of that name.
double GaugeOf(resched::bench::LoopbackServer& server, const std::string& name) {
  for (const auto& collectable : server.app().MetricsCollectables()) {
    for (const auto& family : collectable->Collect()) {
      if (family.name == name) return family.metric.at(0).gauge.value;
    }
  }
  return -1;
}

double PendingBytes(resched::bench::LoopbackServer& server) {
  return GaugeOf(server, "resched_watch_pending_bytes");
}

// Waits until the server counts `n` open watch streams (its metric), at most 60 s.
void WaitForStreams(resched::bench::LoopbackServer& server, int n) {
  for (int i = 0; i < 6000; ++i) {
    if (static_cast<int>(GaugeOf(server, "resched_watch_streams")) == n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::abort();
}

void BM_WatchStreamMemory(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  const int jobs = static_cast<int>(state.range(1));
  resched::server::ServiceLimits limits;
  limits.max_watch_streams = streams;
  limits.max_watch_streams_per_client = streams;   // all from one address here
  limits.max_watch_bytes = std::size_t{16} << 30;  // measured here, not limited
  resched::bench::LoopbackServer server(/*durable=*/false, /*sample_ratio=*/-1, limits);
  resched::bench::CreateSimulatedCluster(server.stub(), "watched", 64);
  std::mt19937_64 rng(42);
  resched::bench::SubmitRandomJobs(server.stub(), "watched", jobs, rng);
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1);
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  for (auto _ : state) {
    malloc_trim(0);
    const double heap_before = HeapBytesInUse();
    const double rss_before = ResidentBytes();
    std::vector<std::unique_ptr<OpenStream>> open;
    for (int i = 0; i < streams; ++i) {
      auto stream = std::make_unique<OpenStream>();
      stream->channel =
          grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args);
      stream->stub = pb::Resched::NewStub(stream->channel);
      pb::WatchScheduleRequest request;
      request.set_cluster("watched");
      stream->reader = stream->stub->WatchSchedule(&stream->context, request);
      open.push_back(std::move(stream));
    }
    WaitForStreams(server, streams);
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the snapshots are written out
    const double heap_open = HeapBytesInUse();
    const double rss_open = ResidentBytes();
    const double counted = PendingBytes(server);
    for (auto& stream : open) stream->context.TryCancel();
    for (auto& stream : open) {
      pb::ScheduleEvent event;
      while (stream->reader->Read(&event)) {
      }
      (void)stream->reader->Finish();
    }
    open.clear();
    WaitForStreams(server, 0);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const double rss_after = ResidentBytes();
    malloc_trim(0);
    const double heap_after = HeapBytesInUse();
    state.counters["bytes_per_stream"] = (heap_open - heap_before) / streams;
    state.counters["kept_after_end_bytes"] = heap_after - heap_before;
    state.counters["rss_MiB"] = (rss_open - rss_before) / (1 << 20);
    state.counters["rss_kept_MiB"] = (rss_after - rss_before) / (1 << 20);
    state.counters["counted_per_stream"] = counted / streams;
  }
}
// {streams, queued jobs}: the reproduction's cluster, and one of 10,000 jobs.
BENCHMARK(BM_WatchStreamMemory)
    ->Args({100, 3000})
    ->Args({50, 10000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

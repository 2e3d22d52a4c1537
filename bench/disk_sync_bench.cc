// What the journal's disk flush costs on this machine, apart from resched: an 8 KiB pwrite and
// an fdatasync per iteration in a file under /tmp, the size of a small commit's log frames.
// Argument 0 rewrites blocks the file already has (a write-ahead log reused after a checkpoint);
// 1 appends (a log still growing, whose size change the file system must journal too).
// The CPU column is the thread's own time, kernel included; `switches` counts the times the
// thread gave up its core per iteration.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

long ContextSwitches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

void BM_Fdatasync(benchmark::State& state) {
  constexpr off_t kBlock = 8192;
  constexpr off_t kBlocks = 4096;  // 32 MiB, so that appends never wrap
  const bool append = state.range(0) != 0;
  std::string path = "/tmp/resched-disk-sync-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) std::abort();
  const std::vector<char> block(kBlock, 'x');
  if (!append) {
    for (off_t i = 0; i < kBlocks; ++i) {
      if (pwrite(fd, block.data(), kBlock, i * kBlock) != kBlock) std::abort();
    }
    if (fsync(fd) != 0) std::abort();
  }
  off_t next = 0;
  const long switches_before = ContextSwitches();
  for (auto _ : state) {
    if (pwrite(fd, block.data(), kBlock, next * kBlock) != kBlock) std::abort();
    if (fdatasync(fd) != 0) std::abort();
    next = (next + 1) % kBlocks;
  }
  state.counters["switches"] = static_cast<double>(ContextSwitches() - switches_before) /
                               static_cast<double>(state.iterations());
  close(fd);
  unlink(path.c_str());
}
BENCHMARK(BM_Fdatasync)
    ->ArgName("append")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(2000)
    ->Repetitions(5)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

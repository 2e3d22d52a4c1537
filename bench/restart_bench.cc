// Restart time of a durable server (the target: a restart with 100k live jobs and 1M journaled
// changes within 5 s): 16 SIMULATED FCFS clusters of 10,000 processors hold 100,000 running jobs
// between them (long, one processor each), then 900,000 more changes (a short job submitted, then
// the clock moved a second, which ends it) go through the real service on an in-process channel. 16
// clusters, not one: a change costs time linear in its cluster's live jobs today (the plan scans
// its running jobs at every event), which would make building one cluster of 100,000 take hours.
// The data directory is built once per configuration; each iteration opens it in a fresh service.
//
//   BM_Restart/1: snapshots on (the default, a snapshot every 10,000 records or a quarter of the
//                 cluster's size): start-up loads the snapshot and replays the records after it.
//   BM_Restart/0: the baseline, snapshots off: start-up replays every record.
//   BM_RestartEmpty: a data directory with the 16 clusters empty, the fixed cost of opening.
//   BM_ProcessRestart: what an operator waits for: a resched-server process on the data
//                 directory with snapshots, under load (clients submitting and moving clocks
//                 over TCP), is stopped, and a new process is started on it and timed from fork
//                 to the health check's SERVING. /1: stopped by kill -9 (the log left to
//                 recover); /0, the baseline: stopped cleanly (SIGTERM).
//
// RESCHED_RESTART_CHANGES scales the log down (e.g. 100000) for a quick run; the live jobs are
// a tenth of it.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "server/rpc/service.h"

namespace {

namespace pb = ::resched::v1;
using resched::server::Application;
using resched::server::ReschedService;
using resched::server::ServiceLimits;

constexpr int kClients = 32;
constexpr int kClusters = 16;

std::string ClusterOf(std::int64_t i) { return absl::StrCat("c", i % kClusters); }

std::int64_t Changes() {
  const char* env = std::getenv("RESCHED_RESTART_CHANGES");
  return env != nullptr ? std::atoll(env) : 1'000'000;
}

pb::JobSpec OneProcessor(int seconds) {
  pb::JobSpec spec;
  spec.mutable_model()->mutable_rigid()->set_k(1);
  spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(seconds);
  return spec;
}

// Runs `calls` calls of `call(client, i)` on kClients threads; aborts on the first error.
void OnClients(std::int64_t calls,
               const std::function<grpc::Status(pb::Resched::Stub&, std::int64_t)>& call,
               const std::shared_ptr<grpc::Channel>& channel) {
  std::atomic<std::int64_t> next{0};
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      auto stub = pb::Resched::NewStub(channel);
      for (std::int64_t i = next++; i < calls; i = next++) {
        if (grpc::Status s = call(*stub, i); !s.ok()) {
          std::fprintf(stderr, "restart_bench: call failed: %s\n", s.error_message().c_str());
          std::abort();
        }
      }
    });
  }
  for (auto& client : clients) client.join();
}

// A data directory holding `changes` journaled changes, a tenth of them long jobs still running.
class DataDir {
 public:
  DataDir(bool snapshots, std::int64_t changes) {
    char pattern[] = "/tmp/resched-restart-XXXXXX";
    if (mkdtemp(pattern) == nullptr) std::abort();
    path_ = pattern;
    ServiceLimits limits;
    limits.max_active_jobs_per_cluster = 1'000'000;
    limits.snapshots = snapshots;
    const auto started = std::chrono::steady_clock::now();
    {
      Application app(limits);
      if (!app.OpenDataDir(path_).ok()) std::abort();
      ReschedService service(app);
      grpc::ServerBuilder builder;
      builder.RegisterService(&service);
      std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
      std::shared_ptr<grpc::Channel> channel = server->InProcessChannel({});
      auto stub = pb::Resched::NewStub(channel);
      for (int c = 0; c < kClusters; ++c) {
        pb::CreateClusterRequest create;
        create.mutable_spec()->set_name(ClusterOf(c));
        create.mutable_spec()->set_processors(10'000);
        create.mutable_spec()->set_clock(pb::SIMULATED);
        create.mutable_spec()->mutable_policy()->set_name("fcfs");
        pb::Cluster cluster;
        grpc::ClientContext context;
        if (!stub->CreateCluster(&context, create, &cluster).ok()) std::abort();
      }
      live_jobs_ = changes / 10;
      OnClients(
          live_jobs_,
          [](pb::Resched::Stub& s, std::int64_t i) {
            pb::SubmitJobRequest request;
            request.set_cluster(ClusterOf(i));
            *request.mutable_job() = OneProcessor(30 * 24 * 3600);
            pb::SubmitJobResponse response;
            grpc::ClientContext c;
            return s.SubmitJob(&c, request, &response);
          },
          channel);
      OnClients(
          changes - live_jobs_,
          [](pb::Resched::Stub& s, std::int64_t i) {
            grpc::ClientContext c;
            // Each cluster in turn gets a job, then a clock move.
            if ((i / kClusters) % 2 == 0) {
              pb::SubmitJobRequest request;
              request.set_cluster(ClusterOf(i));
              *request.mutable_job() = OneProcessor(1);
              pb::SubmitJobResponse response;
              return s.SubmitJob(&c, request, &response);
            }
            pb::AdvanceClockRequest request;
            request.set_cluster(ClusterOf(i));
            request.mutable_by()->set_seconds(1);
            pb::AdvanceClockResponse response;
            return s.AdvanceClock(&c, request, &response);
          },
          channel);
      snapshots_written_ = app.FlushSnapshots();
      app.BeginShutdown();
      server->Shutdown();
    }
    build_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  ~DataDir() { std::filesystem::remove_all(path_); }

  const std::string& path() const { return path_; }
  std::int64_t live_jobs() const { return live_jobs_; }
  std::int64_t snapshots_written() const { return snapshots_written_; }
  double build_seconds() const { return build_seconds_; }

 private:
  std::string path_;
  std::int64_t live_jobs_ = 0;
  std::int64_t snapshots_written_ = 0;
  double build_seconds_ = 0;
};

DataDir& Shared(bool snapshots) {
  static std::map<bool, std::unique_ptr<DataDir>> dirs;
  auto& dir = dirs[snapshots];
  if (dir == nullptr) dir = std::make_unique<DataDir>(snapshots, Changes());
  return *dir;
}

void Restart(benchmark::State& state, const std::string& path) {
  std::int64_t records = 0;
  for (auto _ : state) {
    ServiceLimits limits;
    limits.max_active_jobs_per_cluster = 1'000'000;
    const auto started = std::chrono::steady_clock::now();
    Application app(limits);
    if (!app.OpenDataDir(path).ok()) std::abort();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (app.ClusterCount() != kClusters) std::abort();
    records = 0;
    if (!app.journal()
             ->Scan([&](const resched::server::StoredRecord&) {
               ++records;
               return absl::OkStatus();
             })
             .ok()) {
      std::abort();
    }
  }
  state.counters["records_replayed"] = static_cast<double>(records);
}

// Medians of 3 restarts, each timed on its own.
void MediansOfThree(benchmark::internal::Benchmark* family) {
  family->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(true)->UseManualTime()->Unit(
      benchmark::kMillisecond);
}

void BM_Restart(benchmark::State& state) {
  const DataDir& dir = Shared(state.range(0) == 1);
  Restart(state, dir.path());
  state.counters["changes"] = static_cast<double>(Changes());
  state.counters["live_jobs"] = static_cast<double>(dir.live_jobs());
  state.counters["snapshots_written"] = static_cast<double>(dir.snapshots_written());
  state.counters["build_s"] = dir.build_seconds();
}
BENCHMARK(BM_Restart)->Arg(1)->Arg(0)->Apply(MediansOfThree);

void BM_RestartEmpty(benchmark::State& state) {
  char pattern[] = "/tmp/resched-restart-XXXXXX";
  if (mkdtemp(pattern) == nullptr) std::abort();
  const std::string path = pattern;
  {
    Application app;
    if (!app.OpenDataDir(path).ok()) std::abort();
    pb::ServerConfig config;
    for (int c = 0; c < kClusters; ++c) {
      pb::ClusterSpec* spec = config.add_clusters();
      spec->set_name(ClusterOf(c));
      spec->set_processors(10'000);
      spec->set_clock(pb::SIMULATED);
    }
    if (!app.CreateConfiguredClusters(config).ok()) std::abort();
  }
  Restart(state, path);
  std::filesystem::remove_all(path);
}
BENCHMARK(BM_RestartEmpty)->Apply(MediansOfThree);

// A loopback port nothing listens on now.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    std::abort();
  }
  close(fd);
  return ntohs(address.sin_port);
}

// A resched-server process serving `dir` on a loopback port, its log discarded.
class ServerProcess {
 public:
  explicit ServerProcess(const std::string& dir)
      : address_(absl::StrCat("127.0.0.1:", FreePort())) {
    pid_ = fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      if (std::freopen("/dev/null", "w", stderr) == nullptr) _exit(126);
      execl(RESCHED_SERVER_BINARY, RESCHED_SERVER_BINARY, "--data-dir", dir.c_str(), "--listen",
            address_.c_str(), "--audit-log", "none", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~ServerProcess() { Stop(SIGKILL); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Polls the health check (a new channel each time, so that no reconnect back-off delays it)
  // until it says SERVING; aborts if the process exits first.
  void WaitServing() const {
    for (;;) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        std::fprintf(stderr, "restart_bench: resched-server exited before serving\n");
        std::abort();
      }
      auto health = grpc::health::v1::Health::NewStub(
          grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
      grpc::health::v1::HealthCheckRequest request;
      grpc::health::v1::HealthCheckResponse response;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
      if (health->Check(&context, request, &response).ok() &&
          response.status() == grpc::health::v1::HealthCheckResponse::SERVING) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  // Sends `signal` and waits for the process to end.
  void Stop(int signal) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
  }
  const std::string& address() const { return address_; }

 private:
  std::string address_;
  pid_t pid_ = 0;
};

// Clients submitting short jobs and moving the clusters' clocks, until stopped or refused.
class Load {
 public:
  explicit Load(const std::string& address) {
    auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
    for (int c = 0; c < kClusters; ++c) {
      clients_.emplace_back([this, channel, c] {
        auto stub = pb::Resched::NewStub(channel);
        for (std::int64_t i = 0; !stop_; ++i) {
          grpc::ClientContext context;
          grpc::Status status;
          if (i % 2 == 0) {
            pb::SubmitJobRequest request;
            request.set_cluster(ClusterOf(c));
            *request.mutable_job() = OneProcessor(1);
            pb::SubmitJobResponse response;
            status = stub->SubmitJob(&context, request, &response);
          } else {
            pb::AdvanceClockRequest request;
            request.set_cluster(ClusterOf(c));
            request.mutable_by()->set_seconds(1);
            pb::AdvanceClockResponse response;
            status = stub->AdvanceClock(&context, request, &response);
          }
          if (!status.ok()) return;  // the server is gone
          ++calls_;
        }
      });
    }
  }
  ~Load() { Stop(); }
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  void Stop() {
    stop_ = true;
    for (auto& client : clients_) {
      if (client.joinable()) client.join();
    }
  }
  std::int64_t calls() const { return calls_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> calls_{0};
  std::vector<std::thread> clients_;
};

void BM_ProcessRestart(benchmark::State& state) {
  const bool killed = state.range(0) == 1;
  const DataDir& dir = Shared(true);
  std::int64_t calls_before_stop = 0;
  for (auto _ : state) {
    {
      ServerProcess before(dir.path());
      before.WaitServing();
      Load load(before.address());
      std::this_thread::sleep_for(std::chrono::seconds(1));
      if (killed) {
        before.Stop(SIGKILL);  // while the clients still call
        load.Stop();
      } else {
        load.Stop();
        before.Stop(SIGTERM);
      }
      calls_before_stop = load.calls();
    }
    const auto started = std::chrono::steady_clock::now();
    ServerProcess after(dir.path());
    after.WaitServing();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    after.Stop(SIGTERM);
  }
  state.counters["calls_before_stop"] = static_cast<double>(calls_before_stop);
  state.counters["changes"] = static_cast<double>(Changes());
}
// After the in-process cases: it adds the load's changes to the shared directory.
BENCHMARK(BM_ProcessRestart)->Arg(1)->Arg(0)->Apply(MediansOfThree);

}  // namespace

BENCHMARK_MAIN();

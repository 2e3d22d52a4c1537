// A resched service on a loopback port for the server benchmarks: ephemeral or durable (a fresh
// data directory in /tmp, or in /dev/shm, removed afterwards, or a journal store such as etcd),
// traced or not.
#pragma once

#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "resched/v1/service.grpc.pb.h"
#include "server/process/process_settings.h"
#include "server/rpc/service.h"
#include "server/store/etcd_journal_store.h"

namespace resched::bench {

namespace pb = ::resched::v1;

// Takes every batch and keeps nothing: what tracing costs the server, without a collector.
class DiscardingExporter final : public server::trace::SpanExporter {
 public:
  absl::Status Export(const std::vector<server::trace::SpanData>& spans) override {
    benchmark::DoNotOptimize(spans.data());
    return absl::OkStatus();
  }
};

// bench/job_mix.h's mixed jobs as the API takes them.
inline pb::JobSpec RandomJobSpec(std::mt19937_64& rng) {
  pb::JobSpec spec;
  const int seconds = 60 + static_cast<int>(rng() % 7200);
  if (rng() % 2 == 0) {
    spec.mutable_model()->mutable_rigid()->set_k(1 + static_cast<int>(rng() % 32));
    spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(seconds);
  } else {
    auto* amdahl = spec.mutable_model()->mutable_amdahl();
    amdahl->mutable_t1()->set_seconds(seconds * 8);
    amdahl->set_alpha(0.05 + static_cast<double>(rng() % 20) / 100.0);
    amdahl->set_k_max(32);
  }
  return spec;
}

// A SIMULATED cluster `name` of `processors` under conservative backfilling, created through
// `stub`; aborts when it cannot be.
inline void CreateSimulatedCluster(pb::Resched::Stub& stub, const std::string& name,
                                   int processors) {
  pb::CreateClusterRequest create;
  create.mutable_spec()->set_name(name);
  create.mutable_spec()->set_processors(processors);
  create.mutable_spec()->set_clock(pb::SIMULATED);
  create.mutable_spec()->mutable_policy()->set_name("conservative");
  pb::Cluster cluster;
  grpc::ClientContext context;
  if (!stub.CreateCluster(&context, create, &cluster).ok()) std::abort();
}

// Submits `count` of RandomJobSpec's jobs to `cluster` through `stub`; aborts when one is refused.
inline void SubmitRandomJobs(pb::Resched::Stub& stub, const std::string& cluster, int count,
                             std::mt19937_64& rng) {
  for (int i = 0; i < count; ++i) {
    pb::SubmitJobRequest request;
    request.set_cluster(cluster);
    *request.mutable_job() = RandomJobSpec(rng);
    pb::SubmitJobResponse response;
    grpc::ClientContext context;
    if (!stub.SubmitJob(&context, request, &response).ok()) std::abort();
  }
}

class LoopbackServer {
 public:
  // `durable`: the service journals to a fresh data directory under `data_parent`, removed
  // afterwards. /dev/shm (tmpfs, where fsync writes nothing) prices the journal apart from the
  // disk's flush.
  // `sample_ratio` >= 0: calls are traced with that ratio (DiscardingExporter); < 0: not.
  explicit LoopbackServer(bool durable = false, double sample_ratio = -1,
                          server::ServiceLimits limits = {},
                          const std::string& data_parent = "/tmp")
      : app_(limits) {
    server::ApplyServingProcessSettings();  // as resched-server runs
    if (sample_ratio >= 0) {
      server::trace::TracerOptions options;
      options.sample_ratio = sample_ratio;
      app_.EnableTracing(std::make_unique<DiscardingExporter>(), options);
    }
    if (durable) {
      std::string pattern = data_parent + "/resched-bench-XXXXXX";
      if (mkdtemp(pattern.data()) == nullptr) std::abort();
      data_dir_ = pattern;
      if (!app_.OpenDataDir(data_dir_).ok()) std::abort();
    }
    Listen();
  }
  // Journals to `store` (an etcd store), as the one replica: it serves every cluster it creates.
  explicit LoopbackServer(std::unique_ptr<server::EtcdJournalStore> store) {
    server::ApplyServingProcessSettings();
    server::EtcdJournalStore* etcd = store.get();
    server::ClusterClaims claims;
    claims.claim_new = [etcd](const std::string& name) -> absl::StatusOr<std::int64_t> {
      if (absl::Status claimed = etcd->Acquire(name, true); !claimed.ok()) return claimed;
      return etcd->LastRecordLsn(name);
    };
    claims.forget = [etcd](const std::string& name) { (void)etcd->Forget(name); };
    if (!app_.OpenSpreadStore(std::move(store), std::move(claims)).ok()) std::abort();
    Listen();
  }
  ~LoopbackServer() {
    app_.BeginShutdown();
    server_->Shutdown();
    if (!data_dir_.empty()) std::filesystem::remove_all(data_dir_);
  }
  pb::Resched::Stub& stub() { return *stub_; }
  // HOST:PORT, for channels of other settings.
  const std::string& address() const { return address_; }
  // The stub's channel, for other services' stubs (the health check).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  server::Application& app() { return app_; }
  grpc::Server& server() { return *server_; }
  server::ReschedService& service() { return service_; }

 private:
  void Listen() {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    address_ = "127.0.0.1:" + std::to_string(port);
    channel_ = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
    stub_ = pb::Resched::NewStub(channel_);
  }

  std::string data_dir_;
  std::string address_;
  server::Application app_;
  server::ReschedService service_{app_};
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Resched::Stub> stub_;
};

}  // namespace resched::bench

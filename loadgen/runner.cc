#include "loadgen/runner.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "loadgen/ack_log.h"
#include "transport/bearer_token.h"
#include "transport/server_list.h"

namespace resched::loadgen {
namespace {

namespace pb = ::resched::v1;
using Clock = std::chrono::steady_clock;

// A channel of its own per client: separate connections, as separate clients would have.
Stubs Connect(const transport::ChannelTarget& target,
              const std::shared_ptr<grpc::ChannelCredentials>& credentials,
              const std::string& token, int client) {
  grpc::ChannelArguments args;
  args.SetInt("resched.loadgen.client", client);  // distinct arguments: no shared subchannel
  transport::ConfigureChannel(target, args);
  std::shared_ptr<grpc::Channel> channel =
      transport::CreateChannelWithToken(target.target, credentials, args, token);
  return Stubs{pb::Resched::NewStub(channel), ::grpc::health::v1::Health::NewStub(channel)};
}

absl::Status CreateClusters(const Options& options, Stubs& stubs, std::vector<std::string>& names) {
  for (int c = 0; c < options.clusters; ++c) {
    names.push_back(absl::StrCat("loadgen-", c));
    pb::CreateClusterRequest request;
    request.mutable_spec()->set_name(names.back());
    request.mutable_spec()->set_processors(options.processors);
    request.mutable_spec()->set_clock(pb::SIMULATED);
    request.mutable_spec()->mutable_policy()->set_name(options.policy);
    pb::Cluster created;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    const grpc::Status status = stubs.resched->CreateCluster(&context, request, &created);
    if (!status.ok() && status.error_code() != grpc::StatusCode::ALREADY_EXISTS) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          absl::StrCat("cannot create cluster ", names.back(), " on ",
                                       options.target, ": ", status.error_message()));
    }
  }
  return absl::OkStatus();
}

// Picks a call kind by weight.
class Picker {
 public:
  explicit Picker(const std::map<Op, double>& mix) {
    double total = 0;
    for (const auto& [op, weight] : mix) {
      if (weight <= 0) continue;
      total += weight;
      cumulative_.emplace_back(total, op);
    }
  }
  Op Pick(std::mt19937_64& rng) const {
    const double x = std::uniform_real_distribution<double>(0, cumulative_.back().first)(rng);
    for (const auto& [bound, op] : cumulative_) {
      if (x < bound) return op;
    }
    return cumulative_.back().second;
  }

 private:
  std::vector<std::pair<double, Op>> cumulative_;
};

}  // namespace

absl::StatusOr<RunResult> Run(const Options& options, std::ostream& progress) {
  RunResult result;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      transport::MakeChannelCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<transport::ChannelTarget> target =
      transport::ResolveServers(options.target, "--target");
  if (!target.ok()) return target.status();
  Stubs setup = Connect(*target, *credentials, options.token, -1);
  std::vector<std::string> names;
  if (absl::Status s = CreateClusters(options, setup, names); !s.ok()) return s;

  if (options.health_baseline > 0) {
    LatencyLog log;
    ClientState state(options.seed, options.clusters);
    const auto started = Clock::now();
    for (int i = 0; i < options.health_baseline; ++i) {
      const auto called = Clock::now();
      const grpc::Status status = Call(Op::kHealth, names, 0, setup, state);
      log.Record(Op::kHealth,
                 std::chrono::duration<double, std::micro>(Clock::now() - called).count(),
                 status.error_code());
    }
    result.baseline =
        Summarize({log}, std::chrono::duration<double>(Clock::now() - started).count());
  }

  std::unique_ptr<AckLog> acks;
  if (!options.acks.empty()) {
    absl::StatusOr<std::unique_ptr<AckLog>> opened = AckLog::Open(options.acks);
    if (!opened.ok()) return opened.status();
    acks = *std::move(opened);
  }
  const Picker picker(options.mix);
  const auto deadline = Clock::now() + absl::ToChronoNanoseconds(options.duration);
  std::atomic<std::int64_t> issued{0};
  std::atomic<std::int64_t> answered{0};
  std::atomic<std::int64_t> failed{0};
  std::atomic<bool> done{false};
  std::vector<LatencyLog> logs(options.clients);
  std::vector<std::thread> clients;
  clients.reserve(options.clients);
  const auto started = Clock::now();
  for (int c = 0; c < options.clients; ++c) {
    clients.emplace_back([&, c] {
      Stubs stubs = Connect(*target, *credentials, options.token, c);
      ClientState state(options.seed * 1'000'003 + static_cast<std::uint64_t>(c), options.clusters);
      // Open loop: this client's share of the rate, its calls due at fixed intervals from a
      // phase of its own; a call is timed from when it was due.
      const double per_client = options.rate / options.clients;
      const auto interval = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(per_client > 0 ? 1 / per_client : 0));
      auto due = started + interval * c / options.clients;
      for (std::int64_t k = 0;; ++k) {
        if (options.count > 0 ? issued.fetch_add(1) >= options.count : Clock::now() >= deadline) {
          break;
        }
        // What the call acts on, untimed (ops.h, Prepare).
        const Op op = picker.Pick(state.rng);
        const int cluster = static_cast<int>(state.rng() % names.size());
        const std::optional<std::string> target = Prepare(op, names, cluster, stubs, state);
        if (per_client > 0) {
          due = started + interval * c / options.clients + interval * k;
          if (due >= deadline && options.count == 0) break;
          std::this_thread::sleep_until(due);
        }
        if (!target) {
          logs[c].NotMade(op);
          continue;
        }
        const auto called = per_client > 0 ? due : Clock::now();
        Acknowledgement acknowledged;
        const grpc::Status status = Call(op, names, cluster, stubs, state, *target, &acknowledged);
        if (status.ok() && acks != nullptr) acks->Record(op, names[cluster], acknowledged);
        logs[c].Record(op, std::chrono::duration<double, std::micro>(Clock::now() - called).count(),
                       status.error_code());
        answered.fetch_add(1);
        if (!status.ok()) failed.fetch_add(1);
      }
    });
  }
  std::thread reporter([&] {
    std::int64_t last = 0;
    auto last_at = started;
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const auto now = Clock::now();
      if (now - last_at < std::chrono::seconds(1) && !done.load()) continue;
      const std::int64_t calls = answered.load();
      const double window = std::chrono::duration<double>(now - last_at).count();
      progress << absl::StrFormat("resched-loadgen: %5.1f s  %d calls  %.0f calls/s  %d errors\n",
                                  std::chrono::duration<double>(now - started).count(), calls,
                                  static_cast<double>(calls - last) / window, failed.load())
               << std::flush;
      last = calls;
      last_at = now;
    }
  });
  for (auto& client : clients) client.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  done = true;
  reporter.join();
  result.ops = Summarize(logs, result.seconds);
  return result;
}

}  // namespace resched::loadgen

// resched-slurm: keeps one resched cluster and one Slurm partition in step (bridge/reconcile.h
// says what that means). Flags: --help (bridge/slurm/bridge_options.h).
#include <grpcpp/support/channel_arguments.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bridge/resched_cluster.h"
#include "bridge/slurm/bridge_options.h"
#include "bridge/slurm/slurm_batch_system.h"
#include "bridge/sync_loop.h"
#include "bridge/wakeup.h"
#include "server/base/log.h"
#include "transport/bearer_token.h"
#include "transport/server_list.h"

namespace {

using resched::server::Log;
using resched::server::LogLevel;
namespace bridge = resched::bridge;

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested.store(true); }

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(
    const bridge::slurm::BridgeOptions& options) {
  auto credentials = resched::transport::MakeChannelCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  auto target = resched::transport::ResolveServers(options.server, "--server");
  if (!target.ok()) return target.status();
  auto token = options.token_file.empty()
                   ? resched::transport::TokenFromEnvironment()
                   : resched::transport::ReadTokenFile("--token-file", options.token_file);
  if (!token.ok()) return token.status();
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(1 << 30);  // a long schedule
  resched::transport::ConfigureChannel(*target, arguments);
  return resched::transport::CreateChannelWithToken(target->target, *credentials, arguments,
                                                    *token);
}

int Fail(const absl::Status& status) {
  Log(LogLevel::kError, "fatal", status.message());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  resched::server::SetLogProgram("resched-slurm");
  auto options = bridge::slurm::ParseBridgeOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) {
    std::fprintf(stderr, "resched-slurm: %s\n", std::string(options.status().message()).c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(bridge::slurm::kBridgeUsage, stdout);
    return 0;
  }
  if (options->log_format == "json")
    resched::server::SetLogFormat(resched::server::LogFormat::kJson);
  auto channel = OpenChannel(*options);
  if (!channel.ok()) return Fail(channel.status());
  auto slurm = bridge::slurm::SlurmBatchSystem::Open(options->slurm);
  if (!slurm.ok()) return Fail(slurm.status());
  bridge::ReschedCluster resched(*channel, options->cluster, options->call_timeout);

  signal(SIGTERM, RequestStop);
  signal(SIGINT, RequestStop);
  // Both sides must be up and agree on the capacity before the first round.
  absl::Status ready = absl::UnknownError("not tried");
  std::string last_wait;
  while (!stop_requested.load()) {
    auto snapshot = (*slurm)->Read();
    ready = snapshot.ok() ? resched.Ensure(snapshot->capacity) : snapshot.status();
    if (ready.ok() || ready.code() == absl::StatusCode::kFailedPrecondition ||
        ready.code() == absl::StatusCode::kInvalidArgument ||
        ready.code() == absl::StatusCode::kNotFound || options->once) {
      break;
    }
    if (last_wait != ready.message()) {
      last_wait = std::string(ready.message());
      Log(LogLevel::kWarning, "waiting", absl::StrCat("waiting for both sides: ", last_wait));
    }
    absl::SleepFor(options->interval);
  }
  if (stop_requested.load()) return 0;
  if (!ready.ok()) return Fail(ready);

  bridge::SyncLoop loop(**slurm, resched, options->sync);
  if (options->once) {
    auto counts = loop.Round();
    if (!counts.ok()) return Fail(counts.status());
    return counts->in_step() && counts->refused == 0 ? 0 : 3;
  }
  Log(LogLevel::kInfo, "started",
      absl::StrCat("keeping cluster '", options->cluster, "' and partition '",
                   options->slurm.partition, "' in step every ",
                   absl::FormatDuration(options->interval)));
  bridge::Wakeup wakeup;
  std::thread watcher([&] { resched.WatchChanges(wakeup); });
  loop.Run(options->interval, wakeup, stop_requested);
  resched.StopWatching();
  watcher.join();
  Log(LogLevel::kInfo, "stopped", "stopped");
  return 0;
}

#include "loadgen/swf_replay.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/sim/replay.h"
#include "core/workload/swf_file.h"
#include "core/workload/swf_workload.h"
#include "loadgen/grpc_sim_driver.h"
#include "loadgen/wall_replay.h"
#include "transport/bearer_token.h"
#include "transport/server_list.h"

namespace resched::loadgen {
namespace {

namespace pb = ::resched::v1;
using Clock = std::chrono::steady_clock;

constexpr char kCluster[] = "loadgen-swf";

// A fresh cluster for the replay: one left by an earlier run holds its jobs and its clock.
absl::Status FreshCluster(pb::Resched::Stub& stub, const Options& options, int processors) {
  {
    pb::DeleteClusterRequest request;
    request.set_name(kCluster);
    request.set_force(true);
    pb::DeleteClusterResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const grpc::Status deleted = stub.DeleteCluster(&context, request, &response);
    if (!deleted.ok() && deleted.error_code() != grpc::StatusCode::NOT_FOUND) {
      return absl::UnavailableError(absl::StrCat("cannot delete cluster ", kCluster, " on ",
                                                 options.target, ": ", deleted.error_message()));
    }
  }
  pb::CreateClusterRequest request;
  request.mutable_spec()->set_name(kCluster);
  request.mutable_spec()->set_processors(processors);
  request.mutable_spec()->set_clock(options.wall ? pb::WALL : pb::SIMULATED);
  request.mutable_spec()->mutable_policy()->set_name(options.policy);
  pb::Cluster created;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  const grpc::Status status = stub.CreateCluster(&context, request, &created);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("cannot create cluster ", kCluster, " on ",
                                               options.target, ": ", status.error_message()));
  }
  return absl::OkStatus();
}

// core/sim's loop against the SIMULATED cluster, paced by the speedup when there is one.
absl::Status ReplaySimulated(const Workload& workload, const Options& options,
                             pb::Resched::Stub& stub, LatencyLog& log, ReplaySummary& summary,
                             std::ostream& progress) {
  const auto started = Clock::now();
  const auto deadline = started + absl::ToChronoNanoseconds(options.duration);
  absl::Status stopped = absl::DeadlineExceededError("--duration reached");
  Time latest = 0;
  GrpcSimDriver driver(stub, kCluster);
  driver.set_log(&log);
  driver.set_pace([&](Time t) -> absl::Status {
    latest = t;
    if (options.speedup > 0) {
      const auto due = started + std::chrono::microseconds(static_cast<std::int64_t>(
                                     static_cast<double>(t) / options.speedup));
      if (options.duration_set && due > deadline) return stopped;
      std::this_thread::sleep_until(due);
    }
    if (options.duration_set && Clock::now() >= deadline) return stopped;
    return absl::OkStatus();
  });
  ReplayOptions replay;
  // Told of every release, so that the count stays exact when --duration stops the replay; the
  // line is printed once a second, and at the end.
  replay.progress_every = 1;
  auto last_line = started;
  replay.progress = [&](const SimProgress& p) {
    summary.submitted = p.released;
    const auto now = Clock::now();
    if (now - last_line < std::chrono::seconds(1) && p.released < p.total) return;
    last_line = now;
    progress << absl::StrFormat("resched-loadgen: %5.1f s  %d/%d jobs submitted  log time %.1f h\n",
                                std::chrono::duration<double>(Clock::now() - started).count(),
                                p.released, p.total, static_cast<double>(p.now) / 3.6e9)
             << std::flush;
  };
  absl::StatusOr<std::vector<SimJobRecord>> replayed = Replay(workload, driver, replay);
  summary.log_seconds = static_cast<double>(latest) / 1e6;
  if (!replayed.ok() && replayed.status() == stopped) {
    summary.stopped = true;
    return absl::OkStatus();
  }
  if (!replayed.ok()) return replayed.status();
  summary.submitted = static_cast<std::int64_t>(replayed->size());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunResult> ReplaySwf(const Options& options, std::ostream& progress) {
  SwfReadOptions read;
  read.lenient = true;  // archive logs carry a few malformed lines; they are counted
  absl::StatusOr<SwfLog> log = ReadSwfFile(options.swf, read);
  if (!log.ok()) return log.status();
  SwfConversionOptions conversion;
  conversion.max_jobs = options.count;
  conversion.processors = options.processors_set ? options.processors : 0;
  absl::StatusOr<SwfWorkload> converted = SwfToRigidWorkload(*log, conversion);
  if (!converted.ok()) {
    return absl::Status(converted.status().code(),
                        absl::StrCat(options.swf, ": ", converted.status().message()));
  }
  const Workload& workload = converted->workload;

  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      transport::MakeChannelCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<transport::ChannelTarget> target =
      transport::ResolveServers(options.target, "--target");
  if (!target.ok()) return target.status();
  grpc::ChannelArguments arguments;
  transport::ConfigureChannel(*target, arguments);
  std::unique_ptr<pb::Resched::Stub> stub = pb::Resched::NewStub(
      transport::CreateChannelWithToken(target->target, *credentials, arguments, options.token));
  if (absl::Status s = FreshCluster(*stub, options, workload.processors); !s.ok()) return s;

  RunResult result;
  ReplaySummary summary;
  summary.log = options.swf;
  summary.cluster = kCluster;
  summary.processors = workload.processors;
  summary.jobs = static_cast<std::int64_t>(workload.jobs.size());
  summary.skipped = converted->stats.records_examined - converted->stats.kept;
  LatencyLog calls;
  const auto started = Clock::now();
  const absl::Status replayed =
      options.wall ? ReplayOnWallClock(workload, kCluster, options, *stub, calls, summary, progress)
                   : ReplaySimulated(workload, options, *stub, calls, summary, progress);
  if (!replayed.ok()) return replayed;
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  result.ops = Summarize({calls}, result.seconds);
  result.replay = summary;
  return result;
}

}  // namespace resched::loadgen

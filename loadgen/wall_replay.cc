#include "loadgen/wall_replay.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>

#include "absl/strings/str_format.h"
#include "proto/resched/convert.h"

namespace resched::loadgen {
namespace {

namespace pb = ::resched::v1;
using Clock = std::chrono::steady_clock;

constexpr auto kTick = std::chrono::milliseconds(20);

bool Ended(pb::JobState state) {
  return state == pb::FINISHED || state == pb::FAILED || state == pb::CANCELLED;
}

// What the watcher, the submitter and the ender share.
struct Shared {
  std::mutex mu;
  std::condition_variable changed;
  std::map<std::string, Duration> early_run;  // submitted, ends early, start not seen yet
  std::map<std::string, Time> started;        // seen running before its submission answered
  std::int64_t submitted = 0;
  std::int64_t ended = 0;                    // of the submitted jobs
  std::map<std::string, bool> ours;          // ended or not
  using Due = std::pair<Time, std::string>;  // wall-clock instant (us), job id
  std::priority_queue<Due, std::vector<Due>, std::greater<>> ends;
  bool stop = false;
  std::optional<grpc::Status> watch_ended;  // the stream ended before the replay did
};

// The job's end is due `run` after its start: queue it for the ender.
void ScheduleEnd(Shared& shared, const std::string& id, Time start, Duration run) {
  shared.ends.emplace(start + run, id);
  shared.changed.notify_all();
}

Time Micros(const google::protobuf::Timestamp& ts) { return FromProto(ts, "time").value_or(0); }

Time WallMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

absl::Status ReplayOnWallClock(const Workload& workload, const std::string& cluster,
                               const Options& options, pb::Resched::Stub& stub, LatencyLog& log,
                               ReplaySummary& summary, std::ostream& progress) {
  Shared shared;
  // Watch first, so that no start is missed; the snapshot it begins with is empty.
  grpc::ClientContext watch_context;
  pb::WatchScheduleRequest watch_request;
  watch_request.set_cluster(cluster);
  std::unique_ptr<grpc::ClientReader<pb::ScheduleEvent>> events =
      stub.WatchSchedule(&watch_context, watch_request);
  std::thread watcher([&] {
    pb::ScheduleEvent event;
    while (events->Read(&event)) {
      if (event.kind() != pb::ScheduleEvent::JOB_CHANGED) continue;
      const pb::Job& job = event.job();
      std::lock_guard lock(shared.mu);
      if (job.state() == pb::RUNNING) {
        const Time start = Micros(job.allocation().start());
        auto early = shared.early_run.find(job.id());
        if (early != shared.early_run.end()) {
          ScheduleEnd(shared, job.id(), start, early->second);
          shared.early_run.erase(early);
        } else if (!shared.ours.contains(job.id())) {
          shared.started[job.id()] = start;
        }
      } else if (Ended(job.state())) {
        auto it = shared.ours.find(job.id());
        if (it != shared.ours.end() && !it->second) {
          it->second = true;
          ++shared.ended;
          shared.changed.notify_all();
        }
      }
    }
    const grpc::Status finished = events->Finish();
    std::lock_guard lock(shared.mu);
    shared.watch_ended = finished;
    shared.changed.notify_all();
  });
  std::thread ender([&] {
    std::unique_lock lock(shared.mu);
    while (!shared.stop) {
      if (shared.ends.empty()) {
        shared.changed.wait(lock);
        continue;
      }
      const auto [due, id] = shared.ends.top();
      const auto wait = std::chrono::microseconds(due - WallMicros());
      if (wait.count() > 0) {
        shared.changed.wait_for(lock, wait);
        continue;
      }
      shared.ends.pop();
      lock.unlock();
      pb::ReportJobEventRequest request;
      request.set_cluster(cluster);
      request.set_id(id);
      request.set_kind(pb::FINISHED_EVENT);
      *request.mutable_time() = ToTimestamp(due);
      pb::Job response;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      const auto called = Clock::now();
      const grpc::Status status = stub.ReportJobEvent(&context, request, &response);
      log.Record(Op::kReport,
                 std::chrono::duration<double, std::micro>(Clock::now() - called).count(),
                 status.error_code());
      lock.lock();
    }
  });

  // A WALL cluster moves its clock when it is called: starts and planned ends reach the watch
  // stream at the next call, so a ticker calls every few milliseconds.
  std::thread ticker([&] {
    while (true) {
      {
        std::unique_lock lock(shared.mu);
        if (shared.changed.wait_for(lock, kTick, [&] { return shared.stop; })) return;
      }
      pb::GetClusterRequest request;
      request.set_name(cluster);
      pb::Cluster response;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      const auto called = Clock::now();
      const grpc::Status status = stub.GetCluster(&context, request, &response);
      log.Record(Op::kGetCluster,
                 std::chrono::duration<double, std::micro>(Clock::now() - called).count(),
                 status.error_code());
    }
  });

  const auto started = Clock::now();
  const auto deadline = started + absl::ToChronoNanoseconds(options.duration);
  auto last_progress = started;
  for (const WorkloadJob& wj : workload.jobs) {
    const auto due = started + std::chrono::microseconds(static_cast<std::int64_t>(
                                   static_cast<double>(wj.job.release) / options.speedup));
    if (options.duration_set && due >= deadline) {
      summary.stopped = true;
      break;
    }
    {
      std::lock_guard lock(shared.mu);
      if (shared.watch_ended) break;  // the server or the cluster is gone
    }
    std::this_thread::sleep_until(due);
    const auto& rigid = std::get<RigidModel>(wj.job.model.params());
    const Duration estimate = std::max<Duration>(
        1, static_cast<Duration>(std::ceil(static_cast<double>(rigid.time) / options.speedup)));
    Job job = wj.job;
    job.model = RuntimeModel(RigidModel{rigid.k, estimate});
    pb::SubmitJobRequest request;
    request.set_cluster(cluster);
    *request.mutable_job() = ToProto(job);
    request.mutable_job()->clear_release();  // the cluster's now
    pb::SubmitJobResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const grpc::Status status = stub.SubmitJob(&context, request, &response);
    // Open loop: timed from when the submission was due.
    log.Record(Op::kSubmit, std::chrono::duration<double, std::micro>(Clock::now() - due).count(),
               status.error_code());
    summary.log_seconds = static_cast<double>(wj.job.release) / 1e6;
    if (status.ok()) {
      std::lock_guard lock(shared.mu);
      const std::string& id = response.job().id();
      ++shared.submitted;
      shared.ours[id] = Ended(response.job().state());
      if (shared.ours[id]) ++shared.ended;
      const auto run = static_cast<Duration>(
          std::ceil(wj.runtime_fraction * static_cast<double>(estimate) - 1e-6));
      if (run < estimate && !shared.ours[id]) {
        if (auto seen = shared.started.find(id); seen != shared.started.end()) {
          ScheduleEnd(shared, id, seen->second, run);
          shared.started.erase(seen);
        } else if (response.job().state() == pb::RUNNING) {
          ScheduleEnd(shared, id, Micros(response.job().allocation().start()), run);
        } else {
          shared.early_run[id] = run;
        }
      }
    }
    ++summary.submitted;
    if (Clock::now() - last_progress >= std::chrono::seconds(1)) {
      last_progress = Clock::now();
      std::lock_guard lock(shared.mu);
      progress << absl::StrFormat(
                      "resched-loadgen: %5.1f s  %d/%d jobs submitted  %d ended  log time "
                      "%.1f h\n",
                      std::chrono::duration<double>(last_progress - started).count(),
                      summary.submitted, workload.jobs.size(), shared.ended,
                      summary.log_seconds / 3600)
               << std::flush;
    }
  }
  // The replay ends when the jobs it submitted have ended (or at --duration).
  {
    std::unique_lock lock(shared.mu);
    // Without the stream no end would be seen: the replay stops with its status.
    auto done = [&] { return shared.ended >= shared.submitted || shared.watch_ended.has_value(); };
    if (options.duration_set) {
      if (!shared.changed.wait_until(lock, deadline, done)) summary.stopped = true;
    } else {
      shared.changed.wait(lock, done);
    }
    shared.stop = true;
  }
  shared.changed.notify_all();
  watch_context.TryCancel();
  ender.join();
  ticker.join();
  watcher.join();
  if (shared.ended < shared.submitted && shared.watch_ended && !summary.stopped) {
    return absl::UnavailableError(absl::StrFormat(
        "the schedule stream of cluster %s ended with %d of %d jobs still running: %s", cluster,
        shared.submitted - shared.ended, shared.submitted, shared.watch_ended->error_message()));
  }
  return absl::OkStatus();
}

}  // namespace resched::loadgen

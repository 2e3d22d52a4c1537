#include "client/trace_export.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/durations.h"
#include "core/model/runtime_model.h"
#include "proto/resched/convert.h"

namespace resched::cli {
namespace {

namespace v1 = resched::v1;

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

std::int64_t FloorSeconds(std::int64_t micros) {
  return micros >= 0 ? micros / kMicrosPerSecond
                     : -((-micros + kMicrosPerSecond - 1) / kMicrosPerSecond);
}

std::int64_t CeilSeconds(std::int64_t micros) { return -FloorSeconds(-micros); }

// The n of "j<n>", or 0 when the id has another form.
std::int64_t JobNumber(const std::string& id) {
  std::int64_t n = 0;
  if (id.size() < 2 || id[0] != 'j' || !absl::SimpleAtoi(id.substr(1), &n) || n <= 0) return 0;
  return n;
}

std::int64_t SwfStatus(v1::JobState state) {
  switch (state) {
    case v1::FINISHED:
      return 1;
    case v1::FAILED:
      return 0;
    case v1::CANCELLED:
      return 5;
    default:
      return -1;  // still queued or running
  }
}

}  // namespace

absl::StatusOr<SwfLog> JobsToSwf(const std::vector<v1::Job>& jobs, const v1::Cluster& cluster) {
  const bool simulated = cluster.spec().clock() == v1::SIMULATED;
  std::int64_t origin = 0;  // seconds since the Unix epoch (a simulated clock starts at 0)
  if (!simulated) {
    std::int64_t first = ToMicros(cluster.now());
    for (const v1::Job& job : jobs) first = std::min(first, ToMicros(job.spec().release()));
    origin = FloorSeconds(first);
  }
  SwfLog log;
  std::map<std::string, std::int64_t> users;
  std::int64_t next_number = 1;
  for (const v1::Job& job : jobs) {
    SwfRecord r;
    const std::int64_t number = JobNumber(job.id());
    r.job_number = number > 0 ? number : next_number;
    next_number = std::max(next_number, r.job_number) + 1;
    const std::int64_t submit = FloorSeconds(ToMicros(job.spec().release()));
    r.submit_time = submit - origin;
    const int k = job.allocation().processors();
    const bool ran = k > 0 && (job.state() == v1::RUNNING || job.state() == v1::FINISHED ||
                               job.state() == v1::FAILED || job.state() == v1::CANCELLED);
    absl::StatusOr<RuntimeModel> model = FromProto(job.spec().model(), "job.model");
    if (!model.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("job '", job.id(), "': ", model.status().message()));
    }
    if (ran) {
      const std::int64_t start = FloorSeconds(ToMicros(job.allocation().start()));
      r.wait_time = start - submit;
      r.allocated_processors = k;
      r.requested_processors = k;
      r.requested_time = CeilSeconds(model->TimeOn(k));
      if (job.state() != v1::RUNNING) {
        r.run_time = FloorSeconds(ToMicros(job.allocation().end())) - start;
      }
    } else if (model->IsRigid()) {
      const RigidModel& rigid = std::get<RigidModel>(model->params());
      r.requested_processors = rigid.k;
      r.requested_time = CeilSeconds(rigid.time);
    }
    r.status = SwfStatus(job.state());
    if (!job.spec().owner().empty()) {
      auto [it, added] = users.try_emplace(job.spec().owner(), users.size() + 1);
      r.user_id = it->second;
    }
    log.records.push_back(r);
  }
  // The format lists jobs by ascending submit time. A job's is its release, which may lie after
  // later submissions' (a job submitted for later), so the jobs' order is not always it.
  std::stable_sort(
      log.records.begin(), log.records.end(),
      [](const SwfRecord& a, const SwfRecord& b) { return a.submit_time < b.submit_time; });

  log.comments = {
      "; Version: 2.2",
      absl::StrCat("; Computer: resched cluster '", cluster.spec().name(), "'"),
      "; Installation: resched trace export",
      absl::StrCat("; MaxJobs: ", log.records.size()),
      absl::StrCat("; MaxRecords: ", log.records.size()),
      absl::StrCat("; MaxProcs: ", cluster.capacity()),
      "; Preemption: No",
  };
  if (simulated) {
    log.comments.emplace_back("; Note: a SIMULATED clock; times are seconds since its start");
  } else {
    log.comments.push_back(absl::StrCat("; UnixStartTime: ", origin));
    log.comments.emplace_back("; TimeZoneString: UTC");
  }
  log.comments.emplace_back(
      "; Note: status 1 finished, 0 failed, 5 cancelled, -1 queued or running at export");
  log.comments.push_back(absl::StrCat("; Note: policy ", cluster.spec().policy().name()));
  std::vector<std::pair<std::int64_t, std::string>> by_number;
  by_number.reserve(users.size());
  for (const auto& [owner, id] : users) by_number.emplace_back(id, owner);
  std::sort(by_number.begin(), by_number.end());
  for (const auto& [id, owner] : by_number) {
    log.comments.push_back(absl::StrCat("; Note: user ", id, " is '", owner, "'"));
  }
  return log;
}

namespace {

nlohmann::json Slice(const std::string& name, const char* category, std::int64_t start,
                     std::int64_t end, int processor, nlohmann::json args) {
  return {{"name", name},       {"cat", category}, {"ph", "X"},        {"ts", start},
          {"dur", end - start}, {"pid", 1},        {"tid", processor}, {"args", std::move(args)}};
}

}  // namespace

std::string ScheduleToTraceEvents(const v1::Schedule& schedule) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"ph", "M"},
                    {"pid", 1},
                    {"name", "process_name"},
                    {"args",
                     {{"name", absl::StrCat("cluster ", schedule.cluster(), " (",
                                            schedule.capacity(), " processors)")}}}});
  for (int p = 0; p < schedule.capacity(); ++p) {
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", p},
                      {"name", "thread_name"},
                      {"args", {{"name", absl::StrCat("processor ", p)}}}});
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", p},
                      {"name", "thread_sort_index"},
                      {"args", {{"sort_index", p}}}});
  }
  for (const v1::Job& job : schedule.jobs()) {
    const nlohmann::json args = {{"id", job.id()},
                                 {"name", job.spec().name()},
                                 {"owner", job.spec().owner()},
                                 {"state", v1::JobState_Name(job.state())},
                                 {"processors", job.allocation().processors()},
                                 {"submitted_us", ToMicros(job.submitted())}};
    const std::string label =
        job.spec().name().empty() ? job.id() : absl::StrCat(job.id(), " ", job.spec().name());
    for (int p : job.allocation().processor_ids()) {
      events.push_back(Slice(label, "job", ToMicros(job.allocation().start()),
                             ToMicros(job.allocation().end()), p, args));
    }
  }
  for (const v1::DagTaskSlot& task : schedule.dag_tasks()) {
    const nlohmann::json args = {{"dag_id", task.dag_id()},
                                 {"task", task.task()},
                                 {"processors", task.allocation().processors()}};
    for (int p : task.allocation().processor_ids()) {
      events.push_back(Slice(absl::StrCat(task.dag_id(), "/", task.task()), "dag_task",
                             ToMicros(task.allocation().start()), ToMicros(task.allocation().end()),
                             p, args));
    }
  }
  for (const v1::Reservation& hold : schedule.reservations()) {
    const nlohmann::json args = {
        {"id", hold.id()}, {"reason", hold.reason()}, {"processors", hold.processors()}};
    for (int p : hold.processor_ids()) {
      events.push_back(Slice(hold.reason().empty() ? hold.id() : hold.reason(), "reservation",
                             ToMicros(hold.start()), ToMicros(hold.end()), p, args));
    }
  }
  events.push_back(
      {{"ph", "i"}, {"s", "g"}, {"name", "now"}, {"ts", ToMicros(schedule.now())}, {"pid", 1}});
  const nlohmann::json trace = {{"displayTimeUnit", "ms"}, {"traceEvents", std::move(events)}};
  return trace.dump();
}

}  // namespace resched::cli

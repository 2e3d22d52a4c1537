#include "bridge/slurm/slurm_json.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace resched::bridge::slurm {
namespace {

using nlohmann::json;

// Parses an answer and checks the `errors` list Slurm fills when it refused the request.
absl::StatusOr<json> Parse(absl::string_view body, absl::string_view what) {
  json document = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return absl::DataLossError(absl::StrCat("slurmrestd's answer to ", what, " is not JSON"));
  }
  if (auto errors = document.find("errors");
      errors != document.end() && errors->is_array() && !errors->empty()) {
    const json& first = errors->front();
    return absl::UnavailableError(absl::StrCat("slurmrestd refused ", what, ": ",
                                               first.value("description", ""), " (",
                                               first.value("error", std::string("error")), ")"));
  }
  return document;
}

const json& ArrayField(const json& document, const char* field) {
  static const json kEmpty = json::array();
  auto it = document.find(field);
  return it != document.end() && it->is_array() ? *it : kEmpty;
}

template <typename T>
T Value(const json& object, const char* field, T fallback) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->get<std::string>() : fallback;
  } else {
    return it->is_number() ? it->get<T>() : fallback;
  }
}

Time FromSeconds(std::int64_t seconds) { return seconds * kMicrosPerSecond; }

bool Contains(const json& list, absl::string_view value) {
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(),
                     [&](const json& v) { return v.is_string() && v.get<std::string>() == value; });
}

std::optional<BatchJobState> JobState(absl::string_view state) {
  if (state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD") {
    return BatchJobState::kPending;
  }
  // A completing job has ended but still holds its CPUs until its epilog is done.
  if (state == "RUNNING" || state == "SUSPENDED" || state == "COMPLETING" ||
      state == "CONFIGURING" || state == "STAGE_OUT" || state == "SIGNALING") {
    return BatchJobState::kRunning;
  }
  if (state == "COMPLETED") return BatchJobState::kCompleted;
  if (state == "CANCELLED" || state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL" ||
      state == "PREEMPTED" || state == "BOOT_FAIL" || state == "DEADLINE" ||
      state == "OUT_OF_MEMORY") {
    return BatchJobState::kFailed;
  }
  return std::nullopt;  // a state this version does not know: not load the bridge can place
}

}  // namespace

absl::StatusOr<PartitionInfo> ParsePartition(absl::string_view body, absl::string_view partition) {
  auto document = Parse(body, "the partition query");
  if (!document.ok()) return document.status();
  for (const json& p : ArrayField(*document, "partitions")) {
    if (Value<std::string>(p, "name", "") != partition) continue;
    return PartitionInfo{Value<int>(p, "total_cpus", 0), Value<std::string>(p, "nodes", "")};
  }
  return absl::NotFoundError(absl::StrCat("Slurm has no partition '", partition, "'"));
}

absl::StatusOr<std::vector<BatchNode>> ParseNodes(absl::string_view body,
                                                  absl::string_view partition) {
  auto document = Parse(body, "the node query");
  if (!document.ok()) return document.status();
  std::vector<BatchNode> nodes;
  for (const json& n : ArrayField(*document, "nodes")) {
    if (!Contains(n.value("partitions", json::array()), partition)) continue;
    const json flags = n.value("state_flags", json::array());
    BatchNode node;
    node.name = Value<std::string>(n, "name", "");
    node.cpus = Value<int>(n, "cpus", 0);
    node.allocated_cpus = Value<int>(n, "alloc_cpus", 0);
    node.unavailable = Value<std::string>(n, "state", "") == "down" || Contains(flags, "DRAIN") ||
                       Contains(flags, "FAIL");
    nodes.push_back(std::move(node));
  }
  return nodes;
}

absl::StatusOr<std::vector<BatchReservation>> ParseReservations(absl::string_view body) {
  auto document = Parse(body, "the reservation query");
  if (!document.ok()) return document.status();
  std::vector<BatchReservation> reservations;
  for (const json& r : ArrayField(*document, "reservations")) {
    BatchReservation reservation;
    reservation.name = Value<std::string>(r, "name", "");
    reservation.start = FromSeconds(Value<std::int64_t>(r, "start_time", 0));
    reservation.end = FromSeconds(Value<std::int64_t>(r, "end_time", 0));
    reservation.cores = Value<int>(r, "core_count", 0);
    reservation.users = Value<std::string>(r, "users", "");
    reservation.accounts = Value<std::string>(r, "accounts", "");
    reservations.push_back(std::move(reservation));
  }
  return reservations;
}

absl::StatusOr<std::vector<BatchJob>> ParseJobs(absl::string_view body,
                                                absl::string_view partition) {
  auto document = Parse(body, "the job query");
  if (!document.ok()) return document.status();
  std::vector<BatchJob> jobs;
  for (const json& j : ArrayField(*document, "jobs")) {
    // A pending job may name several partitions ("a,b"): it is this one's load if it names it.
    const std::string partitions = Value<std::string>(j, "partition", "");
    const std::vector<absl::string_view> names = absl::StrSplit(partitions, ',');
    if (std::find(names.begin(), names.end(), partition) == names.end()) continue;
    const auto state = JobState(Value<std::string>(j, "job_state", ""));
    if (!state) continue;
    BatchJob job;
    job.id = absl::StrCat(Value<std::int64_t>(j, "job_id", 0));
    job.state = *state;
    job.start = FromSeconds(Value<std::int64_t>(j, "start_time", 0));
    job.end = FromSeconds(Value<std::int64_t>(j, "end_time", 0));
    // An unlimited job's end is a placeholder Slurm sets years ahead: no end known.
    if (j.contains("time_limit") && j["time_limit"].is_null() &&
        job.state != BatchJobState::kCompleted && job.state != BatchJobState::kFailed) {
      job.end = 0;
    }
    job.cpus = Value<int>(j, "cpus", 0);
    job.reservation = Value<std::string>(j, "resv_name", "");
    job.note = Value<std::string>(j, "admin_comment", "");
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace resched::bridge::slurm

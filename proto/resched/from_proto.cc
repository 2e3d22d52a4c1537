#include "proto/resched/from_proto.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched {
namespace {

constexpr int kMaxTableEntries = 4096;
constexpr size_t kMaxLabel = 256;

absl::Status Invalid(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", what));
}

// Core errors name fields relative to the model ("amdahl.alpha ..."); prefix the wire path.
absl::Status Prefixed(const std::string& prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, ".", status.message()));
}

}  // namespace

absl::StatusOr<Time> FromProto(const google::protobuf::Timestamp& ts, const std::string& field) {
  if (ts.nanos() < 0 || ts.nanos() > 999'999'999) {
    return Invalid(field, absl::StrFormat("nanos must be in [0, 999999999], got %d", ts.nanos()));
  }
  // Year 1970 to about year 9999: the arithmetic stays far from overflow.
  constexpr std::int64_t kMaxSeconds = 253'402'300'799;
  if (ts.seconds() < 0 || ts.seconds() > kMaxSeconds) {
    return Invalid(
        field, absl::StrFormat("seconds must be in [0, %d], got %d", kMaxSeconds, ts.seconds()));
  }
  return ts.seconds() * kMicrosPerSecond + (ts.nanos() + 999) / 1000;
}

absl::StatusOr<Duration> FromProto(const google::protobuf::Duration& d, const std::string& field) {
  constexpr std::int64_t kMaxSeconds = kMaxJobDuration / kMicrosPerSecond;
  if (d.seconds() < 0 || d.nanos() < 0 || d.seconds() > kMaxSeconds || d.nanos() > 999'999'999) {
    return Invalid(field, absl::StrFormat("must be in [0, %d] seconds, got %ds %dns", kMaxSeconds,
                                          d.seconds(), d.nanos()));
  }
  return d.seconds() * kMicrosPerSecond + (d.nanos() + 999) / 1000;
}

absl::StatusOr<RuntimeModel> FromProto(const pb::RuntimeModel& model, const std::string& field) {
  RuntimeModelParams params;
  switch (model.kind_case()) {
    case pb::RuntimeModel::kTable: {
      if (model.table().entries_size() > kMaxTableEntries) {
        return Invalid(field + ".table.entries",
                       absl::StrFormat("must have at most %d entries, got %d", kMaxTableEntries,
                                       model.table().entries_size()));
      }
      TableModel m;
      for (int i = 0; i < model.table().entries_size(); ++i) {
        const auto& e = model.table().entries(i);
        auto time = FromProto(e.time(), absl::StrFormat("%s.table.entries[%d].time", field, i));
        if (!time.ok()) return time.status();
        m.entries.push_back({e.k(), *time});
      }
      params = m;
      break;
    }
    case pb::RuntimeModel::kAmdahl: {
      const auto& a = model.amdahl();
      auto t1 = FromProto(a.t1(), field + ".amdahl.t1");
      if (!t1.ok()) return t1.status();
      params = AmdahlModel{*t1, a.alpha(), a.k_min() == 0 ? 1 : a.k_min(), a.k_max()};
      break;
    }
    case pb::RuntimeModel::kDowney: {
      const auto& d = model.downey();
      auto t1 = FromProto(d.t1(), field + ".downey.t1");
      if (!t1.ok()) return t1.status();
      params = DowneyModel{*t1, d.a(), d.sigma(), d.k_min() == 0 ? 1 : d.k_min(), d.k_max()};
      break;
    }
    case pb::RuntimeModel::kRigid: {
      auto time = FromProto(model.rigid().time(), field + ".rigid.time");
      if (!time.ok()) return time.status();
      params = RigidModel{model.rigid().k(), *time};
      break;
    }
    case pb::RuntimeModel::kPowerOfTwo: {
      PowerOfTwoModel m;
      for (int i = 0; i < model.power_of_two().times_size() && i < 64; ++i) {
        auto time = FromProto(model.power_of_two().times(i),
                              absl::StrFormat("%s.power_of_two.times[%d]", field, i));
        if (!time.ok()) return time.status();
        m.times.push_back(*time);
      }
      if (model.power_of_two().times_size() > 64) m.times.resize(65);  // Validate reports it
      params = m;
      break;
    }
    case pb::RuntimeModel::kCeil: {
      auto time = FromProto(model.ceil().req_time(), field + ".ceil.req_time");
      if (!time.ok()) return time.status();
      params = CeilModel{model.ceil().req_procs(), *time};
      break;
    }
    case pb::RuntimeModel::kCommunication: {
      const auto& c = model.communication();
      params =
          CommunicationModel{c.flops(),     c.matrix_size(),     c.latency_seconds(),
                             c.bandwidth(), c.processor_speed(), c.k_min() == 0 ? 1 : c.k_min(),
                             c.k_max()};
      break;
    }
    case pb::RuntimeModel::KIND_NOT_SET:
      return Invalid(field,
                     "must set one runtime model kind (table, amdahl, downey, rigid, "
                     "power_of_two, ceil, communication)");
  }
  RuntimeModel out(std::move(params));
  if (auto status = out.Validate(); !status.ok()) return Prefixed(field, status);
  return out;
}

absl::StatusOr<ReplanObjective> FromProto(pb::ReplanObjective objective, const std::string& planner,
                                          const std::string& field) {
  switch (objective) {
    case pb::REPLAN_OBJECTIVE_UNSPECIFIED:
      return planner == "bicriteria" ? ReplanObjective::kBicriteria : ReplanObjective::kMakespan;
    case pb::MAKESPAN:
      return ReplanObjective::kMakespan;
    case pb::WEIGHTED_COMPLETION:
      return ReplanObjective::kWeightedCompletion;
    case pb::MAX_STRETCH:
      return ReplanObjective::kMaxStretch;
    case pb::BICRITERIA:
      return ReplanObjective::kBicriteria;
    default:
      return Invalid(field, absl::StrFormat("must be MAKESPAN, WEIGHTED_COMPLETION, MAX_STRETCH "
                                            "or BICRITERIA, got %d",
                                            static_cast<int>(objective)));
  }
}

absl::StatusOr<ClusterSpec> FromProto(const pb::ClusterSpec& spec) {
  ClusterSpec out;
  out.name = spec.name();
  if (spec.processors() != 0 && spec.groups_size() != 0) {
    return Invalid("cluster.processors", "and cluster.groups are exclusive: give one of them");
  }
  if (spec.groups_size() > 1024) {
    return Invalid("cluster.groups",
                   absl::StrFormat("must have at most 1024 groups, got %d", spec.groups_size()));
  }
  if (spec.processors() < 0 || spec.processors() > kMaxClusterProcessors) {
    return Invalid("cluster.processors", absl::StrFormat("must be in [1, %d], got %d",
                                                         kMaxClusterProcessors, spec.processors()));
  }
  if (spec.processors() != 0) {
    out.groups.push_back({"", spec.processors(), 1.0});
  }
  for (const auto& g : spec.groups()) {
    out.groups.push_back({g.name(), g.count(), g.speed() == 0 ? 1.0 : g.speed()});
  }
  if (out.groups.empty()) {
    return Invalid("cluster.processors", "must be in [1, 1048576] (or give cluster.groups)");
  }
  out.clock = spec.clock() == pb::SIMULATED ? ClockKind::kSimulated : ClockKind::kWall;
  out.policy = spec.policy().name().empty() ? "conservative" : spec.policy().name();
  if (spec.has_replan_every()) {
    absl::StatusOr<Duration> every = FromProto(spec.replan_every(), "cluster.replan_every");
    if (!every.ok()) return every.status();
    out.replan.every = *every;
  }
  if (!spec.replan_algorithm().name().empty())
    out.replan.algorithm = spec.replan_algorithm().name();
  out.replan.params = FromProto(spec.replan_algorithm());
  absl::StatusOr<ReplanObjective> objective =
      FromProto(spec.replan_objective(), out.replan.algorithm, "cluster.replan_objective");
  if (!objective.ok()) return objective.status();
  out.replan.objective = *objective;
  if (auto status = ValidateClusterSpec(out); !status.ok()) return status;
  if (out.replan.every > 0) {
    if (auto status = CheckAlgorithm("cluster.replan_algorithm", out.replan.algorithm,
                                     AlgorithmKind::kPlanner, out.replan.params);
        !status.ok()) {
      return status;
    }
  }
  if (auto status = CheckAlgorithm("cluster.policy", out.policy, AlgorithmKind::kPolicy,
                                   FromProto(spec.policy()));
      !status.ok()) {
    return status;
  }
  return out;
}

AlgorithmParams FromProto(const pb::AlgorithmSpec& spec) {
  return AlgorithmParams(spec.params().begin(), spec.params().end());
}

absl::StatusOr<Job> FromProto(const pb::JobSpec& spec, Time now) {
  if (spec.name().size() > kMaxLabel || spec.owner().size() > kMaxLabel) {
    return Invalid("job.name",
                   absl::StrFormat("and job.owner must have at most %d characters", kMaxLabel));
  }
  if (!spec.has_model()) return Invalid("job.model", "is required");
  Job job;
  job.name = spec.name();
  job.owner = spec.owner();
  job.weight = spec.weight() == 0 ? 1.0 : spec.weight();
  auto model = FromProto(spec.model(), "job.model");
  if (!model.ok()) return model.status();
  job.model = *std::move(model);
  job.release = now;
  if (spec.has_release()) {
    auto release = FromProto(spec.release(), "job.release");
    if (!release.ok()) return release.status();
    job.release = *release;
  }
  if (spec.has_deadline()) {
    auto deadline = FromProto(spec.deadline(), "job.deadline");
    if (!deadline.ok()) return deadline.status();
    job.deadline = *deadline;
  }
  return job;
}

absl::StatusOr<Dag> FromProto(const pb::Dag& proto) {
  Dag dag;
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < proto.tasks_size(); ++i) {
    const pb::DagTask& t = proto.tasks(i);
    const std::string field = absl::StrFormat("dag.tasks[%d]", i);
    if (t.name().empty() || t.name().size() > 256) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.name must have 1 to 256 characters, got %d", field, t.name().size()));
    }
    if (!index.emplace(t.name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.name '%s' is used twice", field, t.name()));
    }
    absl::StatusOr<RuntimeModel> model = FromProto(t.model(), field + ".model");
    if (!model.ok()) return model.status();
    dag.tasks.push_back({t.name(), *std::move(model)});
  }
  for (int i = 0; i < proto.edges_size(); ++i) {
    const pb::DagEdge& e = proto.edges(i);
    const std::string field = absl::StrFormat("dag.edges[%d]", i);
    const auto from = index.find(e.from());
    if (from == index.end()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.from names no task of the DAG: '%s'", field, e.from()));
    }
    const auto to = index.find(e.to());
    if (to == index.end()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.to names no task of the DAG: '%s'", field, e.to()));
    }
    Duration transfer = 0;
    if (e.has_transfer()) {
      absl::StatusOr<Duration> d = FromProto(e.transfer(), field + ".transfer");
      if (!d.ok()) return d.status();
      transfer = *d;
    }
    dag.edges.push_back({from->second, to->second, transfer});
  }
  return dag;
}

}  // namespace resched

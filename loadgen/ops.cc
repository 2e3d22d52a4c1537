#include "loadgen/ops.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "google/rpc/status.pb.h"
#include "transport/call_retry.h"

namespace resched::loadgen {
namespace {

namespace pb = ::resched::v1;

// Rigid jobs of 1 to 16 processors and 1 minute to 2 hours; moldable ones of the same work.
pb::JobSpec Job(std::mt19937_64& rng, bool moldable) {
  pb::JobSpec spec;
  const int seconds = 60 + static_cast<int>(rng() % 7200);
  if (moldable) {
    auto* amdahl = spec.mutable_model()->mutable_amdahl();
    amdahl->mutable_t1()->set_seconds(seconds * 8);
    amdahl->set_alpha(0.05 + static_cast<double>(rng() % 20) / 100.0);
    amdahl->set_k_max(16);
  } else {
    spec.mutable_model()->mutable_rigid()->set_k(1 + static_cast<int>(rng() % 16));
    spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(seconds);
  }
  return spec;
}

// A fork-join workflow of 1 + width + 1 moldable tasks.
pb::Dag ForkJoin(std::mt19937_64& rng) {
  pb::Dag dag;
  const int width = 2 + static_cast<int>(rng() % 4);
  auto task = [&](const std::string& name) {
    pb::DagTask* t = dag.add_tasks();
    t->set_name(name);
    t->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(600 + rng() % 3600);
    t->mutable_model()->mutable_amdahl()->set_alpha(0.1);
  };
  auto edge = [&](const std::string& from, const std::string& to) {
    pb::DagEdge* e = dag.add_edges();
    e->set_from(from);
    e->set_to(to);
  };
  task("split");
  task("join");
  for (int i = 0; i < width; ++i) {
    const std::string name = absl::StrCat("work", i);
    task(name);
    edge("split", name);
    edge(name, "join");
  }
  return dag;
}

// A job no clock move of a run ends: ten years on one processor.
pb::JobSpec LongJob() {
  pb::JobSpec spec;
  spec.mutable_model()->mutable_rigid()->set_k(1);
  spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(10LL * 365 * 24 * 3600);
  spec.set_name("resched-loadgen-target");
  return spec;
}

std::string Pop(std::vector<std::string>& jobs) {
  std::string id = std::move(jobs.back());
  jobs.pop_back();
  return id;
}

grpc::ClientContext* WithDeadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return &context;
}

// Submits a long job; returns whether it runs (false: queued, or refused: `id` stays empty).
bool SubmitLong(const std::string& cluster, Stubs& stubs, std::string* id) {
  pb::SubmitJobRequest request;
  request.set_cluster(cluster);
  *request.mutable_job() = LongJob();
  pb::SubmitJobResponse response;
  grpc::ClientContext context;
  if (!stubs.resched->SubmitJob(WithDeadline(context), request, &response).ok()) return false;
  *id = response.job().id();
  return response.job().state() == pb::RUNNING;
}

// Moves the cluster's clock to a queued job's planned start; returns whether it then runs.
bool AdvanceToStart(const std::string& cluster, const std::string& id, Stubs& stubs) {
  pb::GetJobRequest get;
  get.set_cluster(cluster);
  get.set_id(id);
  pb::Job job;
  grpc::ClientContext get_context;
  if (!stubs.resched->GetJob(WithDeadline(get_context), get, &job).ok()) return false;
  if (job.state() == pb::RUNNING) return true;
  if (job.state() != pb::QUEUED) return false;
  pb::AdvanceClockRequest advance;
  advance.set_cluster(cluster);
  *advance.mutable_to() = job.allocation().start();
  pb::AdvanceClockResponse advanced;
  grpc::ClientContext advance_context;
  if (!stubs.resched->AdvanceClock(WithDeadline(advance_context), advance, &advanced).ok()) {
    return false;
  }
  grpc::ClientContext again;
  return stubs.resched->GetJob(WithDeadline(again), get, &job).ok() && job.state() == pb::RUNNING;
}

}  // namespace

const std::vector<std::pair<Op, std::string>>& OpNames() {
  static const auto* const kNames = new std::vector<std::pair<Op, std::string>>{
      {Op::kSubmit, "submit"},
      {Op::kSubmitMoldable, "submit-moldable"},
      {Op::kDryRun, "dry-run"},
      {Op::kCancel, "cancel"},
      {Op::kReport, "report"},
      {Op::kAdvance, "advance"},
      {Op::kReserve, "reserve"},
      {Op::kReserveDag, "reserve-dag"},
      {Op::kQueryDeadline, "query-deadline"},
      {Op::kGetSchedule, "get-schedule"},
      {Op::kGetCluster, "get-cluster"},
      {Op::kListJobs, "list-jobs"},
      {Op::kHealth, "health"},
  };
  return *kNames;
}

const std::string& OpName(Op op) {
  for (const auto& [known, name] : OpNames()) {
    if (known == op) return name;
  }
  static const std::string kUnknown = "unknown";
  return kUnknown;
}

std::optional<std::string> Prepare(Op op, const std::vector<std::string>& names, int cluster,
                                   Stubs& stubs, ClientState& state) {
  if (op != Op::kCancel && op != Op::kReport) return std::string();
  const std::string& name = names[cluster];
  std::vector<std::string>& running = state.running[cluster];
  std::vector<std::string>& queued = state.queued[cluster];
  if (op == Op::kCancel) {
    if (!queued.empty()) return Pop(queued);
    if (!running.empty()) return Pop(running);
    std::string id;
    (void)SubmitLong(name, stubs, &id);
    if (id.empty()) return std::nullopt;
    return id;
  }
  if (!running.empty()) return Pop(running);
  // A queued one of its own, else a new one, brought to its start: a few tries, as other
  // clients' holds and submissions may move its start meanwhile.
  constexpr int kTries = 3;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    std::string id;
    if (!queued.empty()) {
      id = Pop(queued);
    } else if (SubmitLong(name, stubs, &id)) {
      return id;
    }
    if (id.empty()) return std::nullopt;
    if (AdvanceToStart(name, id, stubs)) return id;
    queued.push_back(id);  // still queued: a cancel takes it
  }
  return std::nullopt;
}

namespace {

// One try of Call, within `deadline`; its changes carry `request_id`.
// `status`, with `response` filled from its details when it is ALREADY_EXISTS: the first answer
// to an earlier try of the same request id.
template <class Response>
grpc::Status WithFirstAnswer(const grpc::Status& status, Response& response) {
  if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    google::rpc::Status rich;
    if (!rich.ParseFromString(status.error_details()) || rich.details_size() == 0 ||
        !rich.details(0).UnpackTo(&response)) {
      response.Clear();
    }
  }
  return status;
}

// One try of Call; `id` gets what the change's answer names (the job, the hold, the DAG
// reservation), its first answer's for ALREADY_EXISTS.
grpc::Status CallOnce(Op op, const std::vector<std::string>& names, int cluster, Stubs& stubs,
                      ClientState& state, const std::string& target,
                      std::chrono::system_clock::time_point deadline, const std::string& request_id,
                      std::string& id) {
  grpc::ClientContext context;
  context.set_deadline(deadline);
  const std::string& name = names[cluster];
  pb::Resched::Stub& stub = *stubs.resched;
  switch (op) {
    case Op::kSubmit:
    case Op::kSubmitMoldable:
    case Op::kDryRun: {
      pb::SubmitJobRequest request;
      request.set_cluster(name);
      *request.mutable_job() = Job(state.rng, op == Op::kSubmitMoldable);
      request.set_dry_run(op == Op::kDryRun);
      if (op != Op::kDryRun) request.set_request_id(request_id);
      pb::SubmitJobResponse response;
      grpc::Status s = WithFirstAnswer(stub.SubmitJob(&context, request, &response), response);
      id = response.job().id();
      return s;
    }
    case Op::kCancel:
    case Op::kReport: {
      pb::Job response;
      if (op == Op::kCancel) {
        pb::CancelJobRequest request;
        request.set_cluster(name);
        request.set_id(target);
        request.set_request_id(request_id);
        grpc::Status s = WithFirstAnswer(stub.CancelJob(&context, request, &response), response);
        id = response.id();
        return s;
      }
      pb::ReportJobEventRequest request;
      request.set_cluster(name);
      request.set_id(target);
      request.set_kind(pb::FINISHED_EVENT);
      request.set_request_id(request_id);
      grpc::Status s = WithFirstAnswer(stub.ReportJobEvent(&context, request, &response), response);
      id = response.id();
      return s;
    }
    case Op::kAdvance: {
      pb::AdvanceClockRequest request;
      request.set_cluster(name);
      request.mutable_by()->set_seconds(60);
      request.set_request_id(request_id);
      pb::AdvanceClockResponse response;
      return stub.AdvanceClock(&context, request, &response);
    }
    case Op::kReserve: {
      pb::GetClusterRequest get;
      get.set_name(name);
      pb::Cluster described;
      grpc::ClientContext get_context;
      get_context.set_deadline(deadline);
      if (grpc::Status s = stub.GetCluster(&get_context, get, &described); !s.ok()) return s;
      pb::AddReservationRequest request;
      request.set_cluster(name);
      request.set_processors(1 + static_cast<int>(state.rng() % 4));
      const std::int64_t start = described.now().seconds() + 3600 * (1 + state.rng() % 48);
      request.mutable_start()->set_seconds(start);
      request.mutable_end()->set_seconds(start + 1800);
      request.set_displace_queued(true);
      request.set_reason("resched-loadgen");
      request.set_request_id(request_id);
      pb::Reservation response;
      grpc::Status s = WithFirstAnswer(stub.AddReservation(&context, request, &response), response);
      id = response.id();
      return s;
    }
    case Op::kReserveDag: {
      pb::ReserveDAGRequest request;
      request.set_cluster(name);
      *request.mutable_dag() = ForkJoin(state.rng);
      request.set_label("resched-loadgen");
      request.set_request_id(request_id);
      pb::ReserveDAGResponse response;
      grpc::Status s = WithFirstAnswer(stub.ReserveDAG(&context, request, &response), response);
      id = response.dag_id();
      return s;
    }
    case Op::kQueryDeadline: {
      pb::QueryDeadlineRequest request;
      request.set_cluster(name);
      *request.mutable_dag() = ForkJoin(state.rng);
      pb::QueryDeadlineResponse response;
      return stub.QueryDeadline(&context, request, &response);
    }
    case Op::kGetSchedule: {
      pb::GetScheduleRequest request;
      request.set_cluster(name);
      pb::Schedule response;
      return stub.GetSchedule(&context, request, &response);
    }
    case Op::kGetCluster: {
      pb::GetClusterRequest request;
      request.set_name(name);
      pb::Cluster response;
      return stub.GetCluster(&context, request, &response);
    }
    case Op::kListJobs: {
      pb::ListJobsRequest request;
      request.set_cluster(name);
      request.add_states(pb::QUEUED);
      request.add_states(pb::RUNNING);
      request.set_page_size(100);
      pb::ListJobsResponse response;
      return stub.ListJobs(&context, request, &response);
    }
    case Op::kHealth: {
      ::grpc::health::v1::HealthCheckRequest request;
      ::grpc::health::v1::HealthCheckResponse response;
      return stubs.health->Check(&context, request, &response);
    }
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, "unknown operation");
}

}  // namespace

grpc::Status Call(Op op, const std::vector<std::string>& names, int cluster, Stubs& stubs,
                  ClientState& state, const std::string& target, Acknowledgement* acknowledged) {
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(30);
  const std::string request_id = transport::NewRequestId("loadgen-");
  bool retried = false;
  std::string id;
  grpc::Status status = transport::CallUntilAnswered(
      deadline,
      [&] {
        id.clear();
        return CallOnce(op, names, cluster, stubs, state, target, deadline, request_id, id);
      },
      &retried);
  // A retry whose first try was applied: the first answer, which this call takes as its own.
  if (retried && status.error_code() == grpc::StatusCode::ALREADY_EXISTS) status = grpc::Status::OK;
  if (status.ok() && acknowledged != nullptr) *acknowledged = Acknowledgement{request_id, id};
  return status;
}

}  // namespace resched::loadgen

#include "bridge/resched_cluster.h"

#include <grpcpp/client_context.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "proto/resched/convert.h"

namespace resched::bridge {
namespace {

absl::Status FromGrpc(const grpc::Status& status, absl::string_view call) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(call, ": ", status.error_message()));
}

v1::JobEventKind EventKind(WorkEvent event) {
  switch (event) {
    case WorkEvent::kStarted:
      return v1::STARTED;
    case WorkEvent::kFinished:
      return v1::FINISHED_EVENT;
    case WorkEvent::kFailed:
      return v1::FAILED_EVENT;
  }
  return v1::JOB_EVENT_KIND_UNSPECIFIED;
}

const char* EventName(WorkEvent event) {
  switch (event) {
    case WorkEvent::kStarted:
      return "started";
    case WorkEvent::kFinished:
      return "finished";
    case WorkEvent::kFailed:
      return "failed";
  }
  return "unknown";
}

Time Micros(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * kMicrosPerSecond + ts.nanos() / 1000;
}

void AddAllocation(ReschedView& view, PlannedKind kind, const v1::Allocation& a, PlannedWork work) {
  work.kind = kind;
  work.start = Micros(a.start());
  work.end = Micros(a.end());
  work.processors = a.processors();
  view.work.push_back(std::move(work));
}

}  // namespace

ReschedCluster::ReschedCluster(std::shared_ptr<grpc::Channel> channel, std::string cluster,
                               absl::Duration call_timeout)
    : stub_(v1::Resched::NewStub(std::move(channel))),
      cluster_(std::move(cluster)),
      call_timeout_(call_timeout) {}

void ReschedCluster::Prepare(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(call_timeout_));
}

absl::Status ReschedCluster::Ensure(int capacity) {
  grpc::ClientContext get_context;
  Prepare(get_context);
  v1::GetClusterRequest get;
  get.set_name(cluster_);
  v1::Cluster cluster;
  const grpc::Status got = stub_->GetCluster(&get_context, get, &cluster);
  if (got.error_code() == grpc::StatusCode::NOT_FOUND) {
    grpc::ClientContext create_context;
    Prepare(create_context);
    v1::CreateClusterRequest create;
    create.mutable_spec()->set_name(cluster_);
    create.mutable_spec()->set_processors(capacity);
    create.mutable_spec()->set_clock(v1::WALL);
    create.set_request_id(absl::StrCat("bridge-create-", cluster_, "-", capacity));
    return FromGrpc(stub_->CreateCluster(&create_context, create, &cluster), "CreateCluster");
  }
  if (!got.ok()) return FromGrpc(got, "GetCluster");
  if (cluster.spec().clock() == v1::SIMULATED) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster '", cluster_, "' has a simulated clock; the bridge needs a WALL one"));
  }
  if (cluster.capacity() != capacity) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster '", cluster_, "' has ", cluster.capacity(),
                     " processors and the partition ", capacity, " CPUs: they must be equal"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ReschedView> ReschedCluster::Read() {
  grpc::ClientContext context;
  Prepare(context);
  v1::GetScheduleRequest request;
  request.set_cluster(cluster_);
  v1::Schedule schedule;
  if (auto status = FromGrpc(stub_->GetSchedule(&context, request, &schedule), "GetSchedule");
      !status.ok()) {
    return status;
  }
  ReschedView view;
  view.now = Micros(schedule.now());
  view.capacity = schedule.capacity();
  for (const v1::Job& job : schedule.jobs()) {
    if (job.state() != v1::QUEUED && job.state() != v1::RUNNING) continue;
    PlannedWork work;
    work.id = job.id();
    work.running = job.state() == v1::RUNNING;
    work.owner = job.spec().owner();
    AddAllocation(view, PlannedKind::kJob, job.allocation(), std::move(work));
  }
  for (const v1::DagTaskSlot& slot : schedule.dag_tasks()) {
    if (slot.state() != v1::TASK_RESERVED && slot.state() != v1::TASK_RUNNING) continue;
    PlannedWork work;
    work.id = slot.dag_id();
    work.task = slot.task();
    work.running = slot.state() == v1::TASK_RUNNING;
    work.owner = slot.owner();
    AddAllocation(view, PlannedKind::kDagTask, slot.allocation(), std::move(work));
  }
  for (const v1::Reservation& hold : schedule.reservations()) {
    PlannedWork work;
    work.kind = PlannedKind::kHold;
    work.id = hold.id();
    work.reason = hold.reason();
    work.start = Micros(hold.start());
    work.end = Micros(hold.end());
    work.processors = hold.processors();
    view.work.push_back(std::move(work));
  }
  return view;
}

absl::Status ReschedCluster::AddHold(const HoldSpec& hold) {
  grpc::ClientContext context;
  Prepare(context);
  v1::AddReservationRequest request;
  request.set_cluster(cluster_);
  request.set_processors(hold.processors);
  *request.mutable_start() = ToTimestamp(hold.start);
  *request.mutable_end() = ToTimestamp(hold.end);
  request.set_reason(hold.reason);
  request.set_displace_queued(true);
  v1::Reservation added;
  return FromGrpc(stub_->AddReservation(&context, request, &added), "AddReservation");
}

absl::Status ReschedCluster::RemoveHold(const std::string& id) {
  grpc::ClientContext context;
  Prepare(context);
  v1::RemoveReservationRequest request;
  request.set_cluster(cluster_);
  request.set_id(id);
  v1::RemoveReservationResponse removed;
  const grpc::Status status = stub_->RemoveReservation(&context, request, &removed);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) return absl::OkStatus();  // gone
  return FromGrpc(status, "RemoveReservation");
}

absl::Status ReschedCluster::Report(const EventReport& report, const std::string& source) {
  grpc::ClientContext context;
  Prepare(context);
  const std::string request_id =
      absl::StrCat(source, "-job-", report.batch_job, "-", EventName(report.event));
  if (report.kind == PlannedKind::kDagTask) {
    v1::ReportDagTaskEventRequest request;
    request.set_cluster(cluster_);
    request.set_id(report.id);
    request.set_task(report.task);
    request.set_kind(EventKind(report.event));
    *request.mutable_time() = ToTimestamp(report.at);
    request.set_request_id(request_id);
    v1::DagReservation dag;
    return FromGrpc(stub_->ReportDagTaskEvent(&context, request, &dag), "ReportDagTaskEvent");
  }
  v1::ReportJobEventRequest request;
  request.set_cluster(cluster_);
  request.set_id(report.id);
  request.set_kind(EventKind(report.event));
  *request.mutable_time() = ToTimestamp(report.at);
  request.set_request_id(request_id);
  v1::Job job;
  return FromGrpc(stub_->ReportJobEvent(&context, request, &job), "ReportJobEvent");
}

void ReschedCluster::WatchChanges(Wakeup& wakeup) {
  while (true) {
    grpc::ClientContext context;
    {
      absl::MutexLock lock(&watch_mu_);
      if (stop_watching_) return;
      watch_context_ = &context;
    }
    v1::WatchScheduleRequest request;
    request.set_cluster(cluster_);
    auto reader = stub_->WatchSchedule(&context, request);
    v1::ScheduleEvent event;
    while (reader->Read(&event)) wakeup.Notify();
    (void)reader->Finish();  // why it ended does not matter: it is opened again
    absl::MutexLock lock(&watch_mu_);
    watch_context_ = nullptr;
    if (stop_watching_) return;
    watch_mu_.AwaitWithTimeout(absl::Condition(&stop_watching_), absl::Seconds(1));
  }
}

void ReschedCluster::StopWatching() {
  absl::MutexLock lock(&watch_mu_);
  stop_watching_ = true;
  if (watch_context_ != nullptr) watch_context_->TryCancel();
}

}  // namespace resched::bridge

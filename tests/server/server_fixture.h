// An in-process resched server on a free loopback port, and helpers to check its answers.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>

#include "core/dag/dag_plan.h"
#include "core/metrics/validate.h"
#include "core/timeline/timeline.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "proto/resched/convert.h"
#include "resched/v1/service.grpc.pb.h"
#include "server/process/config.h"
#include "server/rpc/service.h"
#include "tests/testing/status.h"

namespace resched::server::testing {

namespace pb = ::resched::v1;

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }
  void TearDown() override { Stop(); }

  // Starts the service, durable in data_dir_ when a fixture sets it; the configured clusters
  // are created in a new data directory only, as resched-server does.
  void Start() {
    auto config = ParseConfig(kDefaultConfigYaml);
    ASSERT_OK(config);
    app_ = std::make_unique<Application>(limits_);
    Configure(*app_);
    bool fresh = true;
    if (!data_dir_.empty()) {
      absl::StatusOr<bool> opened = app_->OpenDataDir(data_dir_);
      ASSERT_OK(opened);
      fresh = *opened;
    }
    if (fresh) {
      ASSERT_OK(app_->CreateConfiguredClusters(*config));
    }
    service_ = std::make_unique<ReschedService>(*app_);
    grpc::EnableDefaultHealthCheckService(true);  // as resched-server does
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", ServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    target_ = "127.0.0.1:" + std::to_string(port);
    stub_ = pb::Resched::NewStub(grpc::CreateChannel(target_, ChannelCredentials()));
  }
  // How the server listens and how stub_ connects: plaintext unless a fixture secures both.
  virtual std::shared_ptr<grpc::ServerCredentials> ServerCredentials() {
    return grpc::InsecureServerCredentials();
  }
  virtual std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() {
    return grpc::InsecureChannelCredentials();
  }
  // What a fixture sets on the application before it opens its data directory and serves.
  virtual void Configure(Application&) {}
  // Stops the server and destroys the application (its journal, if any, is closed).
  void Stop() {
    if (app_ == nullptr) return;
    app_->BeginShutdown();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_.reset();
    service_.reset();
    app_.reset();
  }

  // A SIMULATED cluster with `processors` processors and `policy`.
  void CreateSim(const std::string& name, int processors, const std::string& policy) {
    CreateSimOn(name, {{"", processors, 1.0}}, policy);
  }
  // A SIMULATED cluster of processor groups (one group without name or speed: `processors`).
  void CreateSimOn(const std::string& name, const std::vector<ProcessorGroup>& groups,
                   const std::string& policy) {
    pb::CreateClusterRequest request;
    request.mutable_spec()->set_name(name);
    if (groups.size() == 1 && groups[0].name.empty() && groups[0].speed == 1.0) {
      request.mutable_spec()->set_processors(groups[0].count);
    } else {
      for (const ProcessorGroup& g : groups) *request.mutable_spec()->add_groups() = ToProto(g);
    }
    request.mutable_spec()->set_clock(pb::SIMULATED);
    request.mutable_spec()->mutable_policy()->set_name(policy);
    pb::Cluster cluster;
    grpc::ClientContext context;
    ASSERT_OK(stub_->CreateCluster(&context, request, &cluster));
  }

  static pb::JobSpec Rigid(int k, int seconds) {
    pb::JobSpec spec;
    spec.mutable_model()->mutable_rigid()->set_k(k);
    spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(seconds);
    return spec;
  }

  grpc::Status Submit(const std::string& cluster, const pb::JobSpec& spec,
                      pb::SubmitJobResponse* response, const std::string& request_id = "") {
    pb::SubmitJobRequest request;
    request.set_cluster(cluster);
    *request.mutable_job() = spec;
    request.set_request_id(request_id);
    grpc::ClientContext context;
    return stub_->SubmitJob(&context, request, response);
  }

  grpc::Status Cancel(const std::string& cluster, const std::string& id) {
    pb::CancelJobRequest request;
    request.set_cluster(cluster);
    request.set_id(id);
    pb::Job job;
    grpc::ClientContext context;
    return stub_->CancelJob(&context, request, &job);
  }

  // Moves a SIMULATED cluster's clock forward by `seconds`.
  grpc::Status AdvanceBy(const std::string& cluster, int seconds,
                         pb::AdvanceClockResponse* response) {
    pb::AdvanceClockRequest request;
    request.set_cluster(cluster);
    request.mutable_by()->set_seconds(seconds);
    grpc::ClientContext context;
    return stub_->AdvanceClock(&context, request, response);
  }

  pb::Schedule Schedule(const std::string& cluster, bool include_finished = true) {
    pb::GetScheduleRequest request;
    request.set_cluster(cluster);
    request.set_include_finished(include_finished);
    request.mutable_from()->set_seconds(0);
    pb::Schedule schedule;
    grpc::ClientContext context;
    EXPECT_OK(stub_->GetSchedule(&context, request, &schedule));
    return schedule;
  }

  // A WatchSchedule stream and its context.
  struct Stream {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<pb::ScheduleEvent>> reader;
  };
  // `after_sequence`: resume after it (WatchScheduleRequest.after_sequence).
  std::unique_ptr<Stream> Watch(const std::string& cluster, std::int64_t after_sequence = 0) {
    auto stream = std::make_unique<Stream>();
    pb::WatchScheduleRequest request;
    request.set_cluster(cluster);
    request.set_after_sequence(after_sequence);
    stream->reader = stub_->WatchSchedule(&stream->context, request);
    return stream;
  }
  // Reads to the end of the stream and returns its status.
  static grpc::Status Drain(Stream& stream) {
    pb::ScheduleEvent event;
    while (stream.reader->Read(&event)) {
    }
    return stream.reader->Finish();
  }

  // Every schedule a test sees goes through the validator, with the jobs' own models; with
  // `what_if`, also a dry run's job beside them (it has no processor ids to check).
  static void ExpectValid(const pb::Schedule& schedule, const pb::Job* what_if = nullptr) {
    ScheduleToValidate s;
    s.capacity = schedule.capacity();
    std::vector<int> group_first_id;  // on groups of several speeds, each group's ids
    for (const pb::ProcessorGroup& g : schedule.groups()) {
      group_first_id.push_back(s.groups.empty() ? 0
                                                : group_first_id.back() + s.groups.back().count);
      s.groups.push_back({g.name(), g.count(), g.speed()});
    }
    std::vector<const pb::Job*> jobs;
    for (const pb::Job& job : schedule.jobs()) jobs.push_back(&job);
    if (what_if != nullptr) jobs.push_back(what_if);
    std::vector<RuntimeModel> models(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const pb::Job& job = *jobs[i];
      auto model = FromProto(job.spec().model(), "model");
      ASSERT_OK(model);
      models[i] = *model;
      ScheduledItem item;
      item.id = job.id();
      item.allocation = {job.allocation().processors(), *FromProto(job.allocation().start(), "s"),
                         *FromProto(job.allocation().end(), "e")};
      item.release = *FromProto(job.spec().release(), "r");
      item.ended_early = job.state() != pb::QUEUED && job.state() != pb::RUNNING;
      item.group = job.has_group() ? job.group() : -1;
      s.items.push_back(item);
      if (&job == what_if) continue;
      // Processor ids for display: exactly k distinct ids below P, of the job's group if any.
      std::set<int> ids(job.allocation().processor_ids().begin(),
                        job.allocation().processor_ids().end());
      EXPECT_EQ(static_cast<int>(ids.size()), job.allocation().processors()) << job.id();
      if (!ids.empty()) {
        EXPECT_LT(*ids.rbegin(), schedule.capacity());
      }
      if (!ids.empty() && item.group >= 0 && item.group < static_cast<int>(s.groups.size())) {
        EXPECT_GE(*ids.begin(), group_first_id[item.group]) << job.id();
        EXPECT_LT(*ids.rbegin(), group_first_id[item.group] + s.groups[item.group].count)
            << job.id();
      }
    }
    for (std::size_t i = 0; i < jobs.size(); ++i) s.items[i].model = &models[i];
    for (const auto& r : schedule.reservations()) {
      s.holds.push_back({r.processors(), *FromProto(r.start(), "s"), *FromProto(r.end(), "e")});
      s.hold_groups.push_back(r.has_group() ? r.group() : -1);
    }
    for (const auto& t : schedule.dag_tasks()) {
      const auto& a = t.allocation();
      s.holds.push_back({a.processors(), *FromProto(a.start(), "s"), *FromProto(a.end(), "e")});
      s.hold_groups.push_back(t.has_group() ? t.group() : -1);
      EXPECT_EQ(a.processor_ids_size(), a.processors()) << t.dag_id() << "/" << t.task();
      if (t.has_group() && t.group() >= 0 && t.group() < static_cast<int>(s.groups.size())) {
        for (int id : a.processor_ids()) {
          EXPECT_GE(id, group_first_id[t.group()]) << t.dag_id() << "/" << t.task();
          EXPECT_LT(id, group_first_id[t.group()] + s.groups[t.group()].count)
              << t.dag_id() << "/" << t.task();
        }
      }
    }
    const auto status = ValidateSchedule(s);
    EXPECT_OK(status);
    ExpectRowsApart(schedule);
  }

  // No processor id is drawn for two items (jobs, holds, DAG tasks) at the same instant.
  static void ExpectRowsApart(const pb::Schedule& schedule) {
    struct Drawn {
      std::string what;
      Time start;
      Time end;
      std::set<int> ids;
    };
    std::vector<Drawn> drawn;
    auto add = [&](std::string what, const auto& start, const auto& end, const auto& ids) {
      drawn.push_back({std::move(what), *FromProto(start, "s"), *FromProto(end, "e"),
                       std::set<int>(ids.begin(), ids.end())});
    };
    for (const auto& j : schedule.jobs()) {
      add(j.id(), j.allocation().start(), j.allocation().end(), j.allocation().processor_ids());
    }
    for (const auto& r : schedule.reservations())
      add(r.id(), r.start(), r.end(), r.processor_ids());
    for (const auto& t : schedule.dag_tasks()) {
      add(t.dag_id() + "/" + t.task(), t.allocation().start(), t.allocation().end(),
          t.allocation().processor_ids());
    }
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      for (std::size_t j = i + 1; j < drawn.size(); ++j) {
        // Items of no length occupy no instant (a job cancelled at its start).
        if (drawn[i].end <= drawn[j].start || drawn[j].end <= drawn[i].start ||
            drawn[i].start == drawn[i].end || drawn[j].start == drawn[j].end) {
          continue;
        }
        for (int id : drawn[i].ids) {
          EXPECT_FALSE(drawn[j].ids.contains(id))
              << drawn[i].what << " and " << drawn[j].what << " both on processor " << id;
        }
      }
    }
  }

  // The placements through the DAG validator: capacity against the cluster's other bookings
  // (the schedule minus this plan), precedence, models, and the deadline when promised.
  static void ExpectValidPlan(
      const pb::Dag& proto, const google::protobuf::RepeatedPtrField<pb::TaskPlacement>& placements,
      const pb::Schedule& others, std::optional<Time> deadline = std::nullopt) {
    absl::StatusOr<Dag> dag = FromProto(proto);
    ASSERT_OK(dag);
    ASSERT_EQ(placements.size(), proto.tasks_size());
    Timeline booked(others.capacity());
    for (const auto& r : others.reservations()) {
      ASSERT_OK(booked.Add(*FromProto(r.start(), "s"), *FromProto(r.end(), "e"), r.processors()));
    }
    for (const auto& j : others.jobs()) {
      if (j.state() != pb::QUEUED && j.state() != pb::RUNNING) continue;
      const auto& a = j.allocation();
      ASSERT_OK(booked.Add(*FromProto(a.start(), "s"), *FromProto(a.end(), "e"), a.processors()));
    }
    DagPlan plan;
    for (int i = 0; i < placements.size(); ++i) {
      ASSERT_EQ(placements[i].task(), proto.tasks(i).name());
      const auto& a = placements[i].allocation();
      plan.tasks.push_back(
          {a.processors(), *FromProto(a.start(), "s"), *FromProto(a.end(), "e"), {}});
    }
    Summarize(plan);
    const absl::Status s = ValidateSchedule(DagPlanToValidate(*dag, plan, booked, 0, deadline));
    EXPECT_OK(s);
  }

  // The google.rpc.BadRequest field named by an INVALID_ARGUMENT status.
  static std::string ViolatedField(const grpc::Status& status) {
    google::rpc::Status rich;
    if (!rich.ParseFromString(status.error_details()) || rich.details_size() == 0) return "";
    google::rpc::BadRequest bad;
    if (!rich.details(0).UnpackTo(&bad) || bad.field_violations_size() == 0) return "";
    return bad.field_violations(0).field();
  }

  ServiceLimits limits_;  // a fixture may change them in its constructor
  std::string data_dir_;  // durable there when set (before SetUp)
  std::unique_ptr<Application> app_;
  std::unique_ptr<ReschedService> service_;  // the gRPC adapter over app_
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<pb::Resched::Stub> stub_;
  std::string target_;  // HOST:PORT of the server
};

}  // namespace resched::server::testing

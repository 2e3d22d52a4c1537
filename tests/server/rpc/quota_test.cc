// Per-tenant quotas and rate limits on the real service: a submission or DAG reservation over a
// quota is refused with RESOURCE_EXHAUSTED naming it and leaves nothing behind, with a
// google.rpc.RetryInfo where waiting helps (a WALL cluster); quotas count per cluster; a tenant
// over its rate limit is refused while the others are served. A moldable job or a DAG counts
// with the allocation chosen for it, not its least work.
#include "server/auth/tenant_limits.h"
#include "tests/server/tenant_fixture.h"
#include "tests/testing/retry_info.h"

namespace resched::server::testing {
namespace {

constexpr char kAliceQuotaToken[] = "alice-token-quota-1";
constexpr char kBobQuotaToken[] = "bob-token-quota-2";
constexpr char kCarolQuotaToken[] = "carol-token-quota-3";
constexpr char kOpsQuotaToken[] = "ops-token-quota-4";
constexpr char kDaveQuotaToken[] = "dave-token-quota-5";

using resched::testing::RetryDelayOf;

class QuotaTest : public TokenServerFixture {
 protected:
  std::string TokensYaml() const override {
    return absl::StrCat(
        "tokens:\n", GrantLine(kAliceQuotaToken, "alice", "user"),
        GrantLine(kBobQuotaToken, "bob", "user"), GrantLine(kCarolQuotaToken, "carol", "user"),
        GrantLine(kDaveQuotaToken, "dave", "user"), GrantLine(kOpsQuotaToken, "ops", "admin"));
  }
  void ConfigureMore(Application& app) override {
    absl::StatusOr<::resched::v1::ServerConfig> config = ParseConfig(
        "tenant_limits:\n"
        "  - {tenant: alice, max_active_jobs: 2}\n"
        "  - {tenant: bob, max_processor_hours_ahead: 3}\n"
        "  - {tenant: carol, calls_per_second: 0.2, burst: 2}\n"
        "  - {tenant: dave, max_processor_hours_ahead: 100}\n");
    ASSERT_OK(config);
    absl::StatusOr<auth::TenantLimits> limits = auth::TenantLimits::FromConfig(*config);
    ASSERT_OK(limits);
    app.SetTenantLimits(std::make_shared<const auth::TenantLimits>(*std::move(limits)));
  }
  void SetUp() override {
    TokenServerFixture::SetUp();
    CreateClusterAs(kOpsQuotaToken, "sim", 8);
    CreateClusterAs(kOpsQuotaToken, "other", 8);
    CreateClusterAs(kOpsQuotaToken, "wall", 8, pb::WALL);
    CreateClusterAs(kOpsQuotaToken, "big", 32);
  }

  // Amdahl's law with a sequential fraction of 0.9 and 90 hours on one processor: 90
  // processor-hours on one, 2,601 on 32 (81.28 hours), which the earliest completion chooses.
  static pb::RuntimeModel MostlySequential(int k_max = 0) {
    pb::RuntimeModel model;
    model.mutable_amdahl()->mutable_t1()->set_seconds(90 * 3600);
    model.mutable_amdahl()->set_alpha(0.9);
    model.mutable_amdahl()->set_k_max(k_max);
    return model;
  }

  static pb::Dag OneTaskDag(const pb::RuntimeModel& model) {
    pb::Dag dag;
    pb::DagTask* task = dag.add_tasks();
    task->set_name("solve");
    *task->mutable_model() = model;
    return dag;
  }

  grpc::Status SubmitAs(const char* token, const std::string& cluster, int k, int seconds,
                        std::string* id = nullptr) {
    pb::SubmitJobRequest request;
    request.set_cluster(cluster);
    *request.mutable_job() = Rigid(k, seconds);
    pb::SubmitJobResponse response;
    grpc::Status status = Call(token, &pb::Resched::Stub::SubmitJob, request, &response);
    if (id != nullptr) *id = response.job().id();
    return status;
  }

  // ReserveDAG of two chained 2-processor, 10-minute tasks (2/3 processor-hour).
  grpc::Status ReserveAs(const char* token, const std::string& cluster) {
    pb::ReserveDAGRequest request;
    request.set_cluster(cluster);
    for (const char* name : {"a", "b"}) {
      pb::DagTask* task = request.mutable_dag()->add_tasks();
      task->set_name(name);
      task->mutable_model()->mutable_rigid()->set_k(2);
      task->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(600);
    }
    pb::DagEdge* edge = request.mutable_dag()->add_edges();
    edge->set_from("a");
    edge->set_to("b");
    pb::ReserveDAGResponse response;
    return Call(token, &pb::Resched::Stub::ReserveDAG, request, &response);
  }

  pb::Schedule ScheduleOf(const std::string& cluster) {
    pb::GetScheduleRequest get;
    get.set_cluster(cluster);
    pb::Schedule schedule;
    EXPECT_OK(Call(kOpsQuotaToken, &pb::Resched::Stub::GetSchedule, get, &schedule));
    return schedule;
  }

  int JobCount(const std::string& cluster) {
    pb::ListJobsRequest request;
    request.set_cluster(cluster);
    pb::ListJobsResponse response;
    EXPECT_OK(Call(kOpsQuotaToken, &pb::Resched::Stub::ListJobs, request, &response));
    return response.jobs_size();
  }
};

TEST_F(QuotaTest, ActiveJobsOverTheQuotaAreRefusedAndNothingIsApplied) {
  std::string first;
  ASSERT_OK(SubmitAs(kAliceQuotaToken, "sim", 1, 3600, &first));
  ASSERT_OK(SubmitAs(kAliceQuotaToken, "sim", 1, 3600));
  const grpc::Status refused = SubmitAs(kAliceQuotaToken, "sim", 1, 3600);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused.error_message(),
            "tenant 'alice' has 2 queued or running jobs on cluster 'sim', the quota "
            "(tenant_limits: max_active_jobs 2)");
  EXPECT_FALSE(RetryDelayOf(refused).has_value());  // a SIMULATED clock waits for no one
  EXPECT_EQ(JobCount("sim"), 2);
  ASSERT_OK(SubmitAs(kAliceQuotaToken, "other", 1, 3600));  // the quota counts per cluster
  ASSERT_OK(SubmitAs(kOpsQuotaToken, "sim", 1, 3600));      // others are not counted
  pb::CancelJobRequest cancel;
  cancel.set_cluster("sim");
  cancel.set_id(first);
  pb::Job cancelled;
  ASSERT_OK(Call(kAliceQuotaToken, &pb::Resched::Stub::CancelJob, cancel, &cancelled));
  EXPECT_OK(SubmitAs(kAliceQuotaToken, "sim", 1, 3600));  // room again
}

TEST_F(QuotaTest, OnAWallClusterTheRefusalSaysWhenAJobOfTheTenantEnds) {
  ASSERT_OK(SubmitAs(kAliceQuotaToken, "wall", 1, 600));
  ASSERT_OK(SubmitAs(kAliceQuotaToken, "wall", 1, 3600));
  const grpc::Status refused = SubmitAs(kAliceQuotaToken, "wall", 1, 60);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  const std::optional<absl::Duration> retry = RetryDelayOf(refused);
  ASSERT_TRUE(retry.has_value());
  EXPECT_GT(*retry, absl::Seconds(590));  // the 10-minute job's end
  EXPECT_LE(*retry, absl::Seconds(600));
}

TEST_F(QuotaTest, ProcessorHoursAheadCountJobsAndDagReservations) {
  ASSERT_OK(SubmitAs(kBobQuotaToken, "sim", 2, 3600));  // 2 processor-hours
  const grpc::Status job_refused = SubmitAs(kBobQuotaToken, "sim", 2, 3600);
  EXPECT_EQ(job_refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(job_refused.error_message(),
            "tenant 'bob' holds 2 processor-hours ahead on cluster 'sim'; this job would add at "
            "least 2 more on any width it may take, passing the quota (tenant_limits: "
            "max_processor_hours_ahead 3)");
  ASSERT_OK(ReserveAs(kBobQuotaToken, "sim"));  // 2.67
  const grpc::Status dag_refused = ReserveAs(kBobQuotaToken, "sim");
  EXPECT_EQ(dag_refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  pb::ListDagReservationsRequest list;
  list.set_cluster("sim");
  pb::ListDagReservationsResponse dags;
  ASSERT_OK(Call(kOpsQuotaToken, &pb::Resched::Stub::ListDagReservations, list, &dags));
  EXPECT_EQ(dags.dags_size(), 1);  // the refused one booked nothing
  EXPECT_EQ(JobCount("sim"), 1);
  ExpectValid(ScheduleOf("sim"));
  // As the clock passes, what is behind no longer counts.
  pb::AdvanceClockRequest advance;
  advance.set_cluster("sim");
  advance.mutable_by()->set_seconds(3600);
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(Call(kOpsQuotaToken, &pb::Resched::Stub::AdvanceClock, advance, &advanced));
  EXPECT_OK(SubmitAs(kBobQuotaToken, "sim", 2, 3600));
}

TEST_F(QuotaTest, AMoldableJobCountsTheAllocationThePolicyChoseNotItsLeastWork) {
  pb::SubmitJobRequest request;
  request.set_cluster("big");
  *request.mutable_job()->mutable_model() = MostlySequential();
  pb::SubmitJobResponse response;
  const grpc::Status refused =
      Call(kDaveQuotaToken, &pb::Resched::Stub::SubmitJob, request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused.error_message(),
            "tenant 'dave' holds 0 processor-hours ahead on cluster 'big'; with this job on the "
            "32 processors for 81.2812 hours the policy chose, it would hold 2601, passing the "
            "quota (tenant_limits: max_processor_hours_ahead 100)");
  request.set_dry_run(true);  // a what-if answers as the submission would
  EXPECT_EQ(Call(kDaveQuotaToken, &pb::Resched::Stub::SubmitJob, request, &response).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(JobCount("big"), 0);
  // Two processors would hold 171 processor-hours; one holds 90, within the quota.
  request.set_dry_run(false);
  *request.mutable_job()->mutable_model() = MostlySequential(2);
  EXPECT_EQ(Call(kDaveQuotaToken, &pb::Resched::Stub::SubmitJob, request, &response).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  *request.mutable_job()->mutable_model() = MostlySequential(1);
  ASSERT_OK(Call(kDaveQuotaToken, &pb::Resched::Stub::SubmitJob, request, &response));
  EXPECT_EQ(response.job().allocation().processors(), 1);
  // Past the quota on any width: refused before any placement is tried.
  const grpc::Status past =
      Call(kDaveQuotaToken, &pb::Resched::Stub::SubmitJob, request, &response);
  EXPECT_EQ(past.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(past.error_message(),
            "tenant 'dave' holds 90 processor-hours ahead on cluster 'big'; this job would add at "
            "least 90 more on any width it may take, passing the quota (tenant_limits: "
            "max_processor_hours_ahead 100)");
  EXPECT_EQ(JobCount("big"), 1);
  ExpectValid(ScheduleOf("big"));
}

TEST_F(QuotaTest, ADagCountsThePlanItsPlannerChose) {
  // One Amdahl task: 90 processor-hours on one processor, but the planner widens it to finish
  // sooner. ReserveDAG and a committing QueryDeadline both book that plan, so both are refused.
  pb::ReserveDAGRequest reserve;
  reserve.set_cluster("big");
  *reserve.mutable_dag() = OneTaskDag(MostlySequential());
  reserve.set_dry_run(true);
  pb::ReserveDAGResponse planned;
  ASSERT_OK(Call(kDaveQuotaToken, &pb::Resched::Stub::ReserveDAG, reserve, &planned));
  ASSERT_GT(planned.cpu_hours(), 100);  // the plan itself is over the quota
  reserve.set_dry_run(false);
  pb::ReserveDAGResponse reserved;
  const grpc::Status refused =
      Call(kDaveQuotaToken, &pb::Resched::Stub::ReserveDAG, reserve, &reserved);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("tenant 'dave' holds 0 processor-hours ahead"),
            std::string::npos)
      << refused.error_message();

  pb::QueryDeadlineRequest query;
  query.set_cluster("big");
  *query.mutable_dag() = OneTaskDag(MostlySequential());
  query.set_commit(true);
  pb::QueryDeadlineResponse answer;
  EXPECT_EQ(Call(kDaveQuotaToken, &pb::Resched::Stub::QueryDeadline, query, &answer).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);

  pb::ListDagReservationsRequest list;
  list.set_cluster("big");
  pb::ListDagReservationsResponse dags;
  ASSERT_OK(Call(kOpsQuotaToken, &pb::Resched::Stub::ListDagReservations, list, &dags));
  EXPECT_EQ(dags.dags_size(), 0);
  // The same task held to one processor fits.
  *reserve.mutable_dag() = OneTaskDag(MostlySequential(1));
  ASSERT_OK(Call(kDaveQuotaToken, &pb::Resched::Stub::ReserveDAG, reserve, &reserved));
  EXPECT_NEAR(reserved.cpu_hours(), 90, 1e-9);
  ExpectValid(ScheduleOf("big"));
}

TEST_F(QuotaTest, ATenantOverItsRateLimitIsRefusedWhileOthersAreServed) {
  pb::ListClustersRequest request;
  pb::ListClustersResponse response;
  ASSERT_OK(Call(kCarolQuotaToken, &pb::Resched::Stub::ListClusters, request, &response));
  ASSERT_OK(Call(kCarolQuotaToken, &pb::Resched::Stub::ListClusters, request, &response));
  const grpc::Status refused =
      Call(kCarolQuotaToken, &pb::Resched::Stub::ListClusters, request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("tenant 'carol' is over its rate limit"),
            std::string::npos);
  const std::optional<absl::Duration> retry = RetryDelayOf(refused);
  ASSERT_TRUE(retry.has_value());
  EXPECT_GT(*retry, absl::Seconds(4));
  EXPECT_LE(*retry, absl::Seconds(5));
  for (int i = 0; i < 5; ++i) {
    EXPECT_OK(Call(kAliceQuotaToken, &pb::Resched::Stub::ListClusters, request, &response));
  }
}

}  // namespace
}  // namespace resched::server::testing

// The JSON API's conversions: query parameters into a request, statuses into HTTP codes.
#include "server/web/json_gateway.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "resched/v1/service.pb.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;
using ::testing::HasSubstr;

TEST(MergeQuery, FieldsByProtoOrJsonNameWithTimesEnumsAndLists) {
  pb::GetScheduleRequest schedule;
  ASSERT_TRUE(
      MergeQuery({{"includeFinished", "true"}, {"from", "2026-01-02T03:04:05Z"}}, &schedule).ok());
  EXPECT_TRUE(schedule.include_finished());
  EXPECT_EQ(schedule.from().seconds(), 1767323045);

  pb::ListJobsRequest jobs;
  ASSERT_TRUE(
      MergeQuery({{"states", "QUEUED,RUNNING"}, {"states", "FAILED"}, {"page_size", "5"}}, &jobs)
          .ok());
  ASSERT_EQ(jobs.states_size(), 3);
  EXPECT_EQ(jobs.states(2), pb::FAILED);
  EXPECT_EQ(jobs.page_size(), 5);
}

TEST(MergeQuery, ABadParameterIsNamedAndChangesNothing) {
  pb::ListJobsRequest jobs;
  jobs.set_cluster("c");
  auto status = MergeQuery({{"page_size", "7"}, {"states", "SLEEPING"}}, &jobs);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("query parameter 'states' must be one of queued, running, "));
  EXPECT_EQ(jobs.page_size(), 0);
  EXPECT_EQ(jobs.cluster(), "c");

  pb::SubmitJobRequest submit;
  status = MergeQuery({{"job", "x"}}, &submit);
  EXPECT_THAT(status.message(),
              HasSubstr("query parameter 'job' is not a field of SubmitJobRequest that a query "
                        "can set"));
  status = MergeQuery({{"dry_run", "yes"}}, &submit);
  EXPECT_THAT(status.message(), HasSubstr("'dry_run' must be true or false, got 'yes'"));
}

TEST(HttpStatusOf, GrpcCodesMapAsGatewaysMapThem) {
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::OK), 200);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::INVALID_ARGUMENT), 400);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNAUTHENTICATED), 401);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::PERMISSION_DENIED), 403);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::NOT_FOUND), 404);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::RESOURCE_EXHAUSTED), 429);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNIMPLEMENTED), 501);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::INTERNAL), 500);
  const HttpReply reply = ErrorReply(grpc::Status(grpc::StatusCode::NOT_FOUND, "no 'x'"));
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.body, R"({"code":"NOT_FOUND","message":"no 'x'"})");
}

}  // namespace
}  // namespace resched::server::web

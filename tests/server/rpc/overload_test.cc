// Load shedding: a call that finds max_waiting_calls calls waiting for a worker is refused
// with RESOURCE_EXHAUSTED, unapplied. A limit of 0 refuses every call that needs a worker; one
// that gRPC's thread answers at once (server/app/call_context.h) waits for none.
#include "tests/server/server_fixture.h"

namespace resched::server::testing {
namespace {

class OverloadTest : public ServerTest {
 protected:
  OverloadTest() { limits_.max_waiting_calls = 0; }
};

TEST_F(OverloadTest, CallsBeyondTheWaitingLimitAreRefused) {
  pb::SubmitJobRequest dry_run;
  dry_run.set_cluster("default");
  *dry_run.mutable_job() = Rigid(1, 10);
  dry_run.set_dry_run(true);  // a copy of the plan: always on a worker
  pb::SubmitJobResponse response;
  grpc::ClientContext context;
  const grpc::Status refused = stub_->SubmitJob(&context, dry_run, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("max_waiting_calls"), std::string::npos)
      << refused.error_message();

  auto watch = Watch("default");
  EXPECT_EQ(Drain(*watch).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(OverloadTest, ACallAnsweredOnGrpcsThreadWaitsForNoWorker) {
  pb::SubmitJobResponse response;
  ASSERT_OK(Submit("default", Rigid(1, 10), &response));
  EXPECT_FALSE(response.job().id().empty());
  // A call that needs a worker is still refused.
  grpc::ClientContext schedule_context;
  pb::GetScheduleRequest schedule;
  schedule.set_cluster("default");
  pb::Schedule out;
  EXPECT_EQ(stub_->GetSchedule(&schedule_context, schedule, &out).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace resched::server::testing

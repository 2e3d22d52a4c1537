// Load shedding: a call that finds max_waiting_calls calls waiting for a worker is refused
// with RESOURCE_EXHAUSTED, unapplied. A limit of 0 refuses every call.
#include "tests/server/server_fixture.h"

namespace resched::server::testing {
namespace {

class OverloadTest : public ServerTest {
 protected:
  OverloadTest() { limits_.max_waiting_calls = 0; }
};

TEST_F(OverloadTest, CallsBeyondTheWaitingLimitAreRefused) {
  pb::SubmitJobResponse response;
  const grpc::Status submitted = Submit("default", Rigid(1, 10), &response);
  EXPECT_EQ(submitted.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(submitted.error_message().find("max_waiting_calls"), std::string::npos)
      << submitted.error_message();

  auto watch = Watch("default");
  EXPECT_EQ(Drain(*watch).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace resched::server::testing

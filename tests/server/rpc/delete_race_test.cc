// DeleteCluster against calls that found the cluster just before: the "no active jobs" check and
// the deletion are one step, so a submission is either refused with the cluster gone or lands
// before the check (which then refuses the deletion); never acknowledged into a deleted cluster.
#include <thread>

#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

class DeleteRaceTest : public ServerTest {
 protected:
  grpc::Status Delete(const std::string& name, bool force) {
    grpc::ClientContext context;
    pb::DeleteClusterRequest request;
    request.set_name(name);
    request.set_force(force);
    pb::DeleteClusterResponse response;
    return stub_->DeleteCluster(&context, request, &response);
  }
};

TEST_F(DeleteRaceTest, ASubmissionIsNeverAcknowledgedIntoADeletedCluster) {
  for (int round = 0; round < 300; ++round) {
    const std::string name = "race" + std::to_string(round);
    CreateSim(name, 4, "fcfs");
    grpc::Status submitted;
    grpc::Status deleted;
    std::thread submitter([&] {
      pb::SubmitJobResponse response;
      submitted = Submit(name, Rigid(1, 10), &response);
    });
    std::thread deleter([&] { deleted = Delete(name, /*force=*/false); });
    submitter.join();
    deleter.join();
    SCOPED_TRACE("round " + std::to_string(round));
    if (deleted.ok()) {
      EXPECT_EQ(submitted.error_code(), grpc::StatusCode::NOT_FOUND) << submitted.error_message();
    } else {
      EXPECT_EQ(deleted.error_code(), grpc::StatusCode::FAILED_PRECONDITION)
          << deleted.error_message();
      EXPECT_OK(submitted) << submitted.error_message();
      ASSERT_OK(Delete(name, /*force=*/true)) << "stay under max_clusters";
    }
  }
}

}  // namespace
}  // namespace resched::server::testing

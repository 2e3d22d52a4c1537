// The access table covers every RPC of the service (walked from its descriptor, so a new RPC
// cannot be forgotten), and each role gets what docs/security.md promises.
#include "server/auth/access.h"

#include <gtest/gtest.h>

#include "resched/v1/service.grpc.pb.h"

namespace resched::server::auth {
namespace {

TEST(Access, EveryMethodOfTheServiceHasARule) {
  // Through a message of the same file, so that the linker keeps the descriptors.
  const google::protobuf::ServiceDescriptor* service =
      resched::v1::SubmitJobRequest::descriptor()->file()->FindServiceByName("Resched");
  ASSERT_NE(service, nullptr);
  ASSERT_GT(service->method_count(), 20);
  for (int i = 0; i < service->method_count(); ++i) {
    EXPECT_TRUE(AccessOf(service->method(i)->name()).has_value()) << service->method(i)->name();
  }
  EXPECT_FALSE(AccessOf("NoSuchMethod").has_value());
}

TEST(Access, RolesAndClusterGrants) {
  const Principal admin{"ops", Role::kAdmin, {}};
  const Principal operator_of_default{"ops", Role::kOperator, {"default"}};
  const Principal user{"alice", Role::kUser, {}};
  const Principal user_of_gpu{"bob", Role::kUser, {"gpu"}};
  EXPECT_TRUE(Authorize(admin, "CreateCluster", "").ok());
  EXPECT_TRUE(Authorize(admin, "Replan", "any").ok());
  EXPECT_EQ(Authorize(operator_of_default, "DeleteCluster", "").message(),
            "DeleteCluster needs the admin role; tenant 'ops' has operator");
  EXPECT_TRUE(Authorize(operator_of_default, "AddReservation", "default").ok());
  EXPECT_TRUE(Authorize(operator_of_default, "SubmitJob", "default").ok());
  EXPECT_EQ(Authorize(operator_of_default, "AdvanceClock", "gpu").message(),
            "AdvanceClock: tenant 'ops' is not granted cluster 'gpu'");
  EXPECT_EQ(Authorize(user, "Replan", "default").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Authorize(user, "ReportJobEvent", "default").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Authorize(user, "ReserveDAG", "default").ok());
  EXPECT_TRUE(Authorize(user_of_gpu, "SubmitJob", "gpu").ok());
  EXPECT_EQ(Authorize(user_of_gpu, "SubmitJob", "default").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Authorize(user_of_gpu, "ListClusters", "").ok());
  EXPECT_EQ(Authorize(admin, "NoSuchMethod", "").message(),
            "NoSuchMethod: no access rule for this method, so nobody may call it");
}

}  // namespace
}  // namespace resched::server::auth

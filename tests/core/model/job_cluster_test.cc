#include <gtest/gtest.h>

#include "core/model/cluster.h"
#include "core/model/job.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

TEST(JobTest, ValidatesAgainstTheCluster) {
  Job job;
  job.model = RuntimeModel(RigidModel{8, 1000});
  EXPECT_OK(ValidateJob(job, 8));
  EXPECT_NE(ValidateJob(job, 4).message().find("no allowed width fits the cluster's 4"),
            std::string::npos);
  job.weight = 0;
  EXPECT_NE(ValidateJob(job, 8).message().find("job.weight must be"), std::string::npos);
  job.weight = 1;
  job.deadline = -5;
  EXPECT_NE(ValidateJob(job, 8).message().find("job.deadline must be after"), std::string::npos);
  job.deadline.reset();
  job.model = RuntimeModel(RigidModel{1, kMaxJobDuration + 1});
  EXPECT_NE(ValidateJob(job, 8).message().find("run time on 1 processors"), std::string::npos);
  job.model = RuntimeModel(AmdahlModel{10, 2.0, 1, 0});
  EXPECT_NE(ValidateJob(job, 8).message().find("job.model.amdahl.alpha"), std::string::npos);
}

TEST(ClusterTest, ValidatesNameGroupsAndSize) {
  ClusterSpec spec{"c1", {{"", 64, 1.0}}, ClockKind::kWall, "conservative", {}};
  EXPECT_OK(ValidateClusterSpec(spec));
  EXPECT_EQ(spec.capacity(), 64);
  EXPECT_TRUE(spec.homogeneous());
  spec.name = "bad name";
  EXPECT_NE(ValidateClusterSpec(spec).message().find("cluster.name may hold only"),
            std::string::npos);
  spec.name = "c1";
  spec.groups = {{"a", 0, 1.0}};
  EXPECT_EQ(ValidateClusterSpec(spec).message(),
            "cluster.groups[0].count must be in [1, 1048576], got 0");
  spec.groups = {{"a", 4, 1.0}, {"b", 4, 2.0}};
  EXPECT_OK(ValidateClusterSpec(spec));
  EXPECT_FALSE(spec.homogeneous());
  spec.groups = {{"a", 4, -1.0}};
  EXPECT_NE(ValidateClusterSpec(spec).message().find("speed must be"), std::string::npos);
  spec.groups = {{"a", 1 << 20, 1.0}, {"b", 1, 1.0}};
  EXPECT_NE(ValidateClusterSpec(spec).message().find("must total at most"), std::string::npos);
}

}  // namespace
}  // namespace resched

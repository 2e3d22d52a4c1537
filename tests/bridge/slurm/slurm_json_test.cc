#include "bridge/slurm/slurm_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace resched::bridge::slurm {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr Time kSecond = kMicrosPerSecond;

// Trimmed from slurmrestd 22.05.8's answers (OpenAPI v0.0.38).
constexpr char kPartitions[] = R"({"meta":{},"errors":[],"partitions":[
  {"flags":["default"],"name":"batch","nodes":"node[1-2]","state":"UP","total_cpus":16,
   "total_nodes":2}]})";

constexpr char kNodes[] = R"({"errors":[],"nodes":[
  {"name":"node1","state":"mixed","state_flags":["DRAIN","RESERVED"],"cpus":8,"alloc_cpus":2,
   "idle_cpus":6,"partitions":["batch"],"reason":"disk"},
  {"name":"node2","state":"idle","state_flags":["RESERVED","NOT_RESPONDING"],"cpus":8,
   "alloc_cpus":0,"partitions":["batch"]},
  {"name":"node3","state":"down","state_flags":[],"cpus":4,"alloc_cpus":0,"partitions":["batch"]},
  {"name":"gpu1","state":"down","state_flags":[],"cpus":4,"alloc_cpus":0,"partitions":["gpu"]}]})";

constexpr char kReservations[] = R"({"errors":[],"reservations":[
  {"flags":[],"accounts":"","core_count":4,"end_time":1796076617,"name":"rs_test",
   "node_list":"node1","partition":"batch","start_time":1796076317,"users":"root"},
  {"flags":["MAINT","SPEC_NODES"],"accounts":"","core_count":8,"end_time":1796077457,
   "name":"maint","node_list":"node1","partition":"","start_time":1796076857,"users":"root"}]})";

constexpr char kJobs[] = R"({"errors":[],"jobs":[
  {"job_id":1,"job_state":"PENDING","start_time":0,"end_time":0,"time_limit":null,"cpus":4,
   "partition":"batch","resv_name":"rs_test","admin_comment":""},
  {"job_id":2,"job_state":"RUNNING","start_time":1796076263,"end_time":1796076563,
   "time_limit":5,"cpus":2,"partition":"batch","resv_name":""},
  {"job_id":3,"job_state":"PENDING","start_time":1796076661,"end_time":1796076841,
   "time_limit":3,"cpus":8,"partition":"gpu,batch","resv_name":""},
  {"job_id":4,"job_state":"RUNNING","start_time":1796076263,"end_time":1827612263,
   "time_limit":null,"cpus":1,"partition":"batch","resv_name":""},
  {"job_id":5,"job_state":"CANCELLED","start_time":1796076838,"end_time":1796076845,
   "time_limit":1,"cpus":2,"partition":"batch","resv_name":"y1"},
  {"job_id":6,"job_state":"COMPLETED","start_time":1796076846,"end_time":1796076856,
   "time_limit":1,"cpus":2,"partition":"batch","resv_name":"y2"},
  {"job_id":7,"job_state":"RUNNING","start_time":1,"end_time":2,"time_limit":1,"cpus":2,
   "partition":"gpu","resv_name":""},
  {"job_id":8,"job_state":"PENDING","start_time":0,"end_time":0,"time_limit":1,"cpus":2,
   "partition":"batch","resv_name":"","admin_comment":"resched-bridge: waiting for reservation x"}]})";

TEST(SlurmJsonTest, PartitionGivesItsCpus) {
  auto partition = ParsePartition(kPartitions, "batch");
  ASSERT_TRUE(partition.ok()) << partition.status();
  EXPECT_EQ(partition->cpus, 16);
  EXPECT_EQ(partition->nodes, "node[1-2]");
  EXPECT_EQ(ParsePartition(kPartitions, "gpu").status().code(), absl::StatusCode::kNotFound);
}

TEST(SlurmJsonTest, DrainedAndDownNodesAreUnavailableAndANotRespondingOneIsNot) {
  auto nodes = ParseNodes(kNodes, "batch");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_THAT(*nodes, SizeIs(3));  // gpu1 is another partition's
  EXPECT_TRUE((*nodes)[0].unavailable);
  EXPECT_EQ((*nodes)[0].allocated_cpus, 2);
  EXPECT_FALSE((*nodes)[1].unavailable);
  EXPECT_TRUE((*nodes)[2].unavailable);
  EXPECT_EQ((*nodes)[2].cpus, 4);
}

TEST(SlurmJsonTest, ReservationsInMicroseconds) {
  auto reservations = ParseReservations(kReservations);
  ASSERT_TRUE(reservations.ok()) << reservations.status();
  ASSERT_THAT(*reservations, SizeIs(2));
  EXPECT_EQ((*reservations)[0].name, "rs_test");
  EXPECT_EQ((*reservations)[0].start, 1796076317 * kSecond);
  EXPECT_EQ((*reservations)[0].end, 1796076617 * kSecond);
  EXPECT_EQ((*reservations)[0].cores, 4);
  EXPECT_EQ((*reservations)[1].cores, 8);
  EXPECT_EQ((*reservations)[1].users, "root");
}

TEST(SlurmJsonTest, JobsOfThePartitionWithTheirStatesAndReservations) {
  auto jobs = ParseJobs(kJobs, "batch");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_THAT(*jobs, SizeIs(7));  // job 7 is the gpu partition's alone
  EXPECT_EQ((*jobs)[0].state, BatchJobState::kPending);
  EXPECT_EQ((*jobs)[0].reservation, "rs_test");
  EXPECT_EQ((*jobs)[1].state, BatchJobState::kRunning);
  EXPECT_EQ((*jobs)[1].end, 1796076563 * kSecond);
  EXPECT_EQ((*jobs)[2].id, "3");  // pending on two partitions, one of them this one
  EXPECT_EQ((*jobs)[2].start, 1796076661 * kSecond);
  EXPECT_EQ((*jobs)[3].end, 0);  // unlimited: Slurm's far-off end is no end
  EXPECT_EQ((*jobs)[4].state, BatchJobState::kFailed);
  EXPECT_EQ((*jobs)[4].end, 1796076845 * kSecond);  // an ended job keeps its actual end
  EXPECT_EQ((*jobs)[5].state, BatchJobState::kCompleted);
  EXPECT_EQ((*jobs)[6].note, "resched-bridge: waiting for reservation x");
}

TEST(SlurmJsonTest, RefusalsAndGarbageAreErrors) {
  auto refused = ParseJobs(R"({"errors":[{"error":"Unable to query","description":"denied"}],
                               "jobs":[]})",
                           "batch");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.status().message(), HasSubstr("denied"));
  EXPECT_EQ(ParseNodes("<html>", "batch").status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace resched::bridge::slurm

// Rendezvous placement (server/app/cluster_placement.h): every replica computes the same owner
// whatever the order it lists the replicas in; clusters spread evenly; a replica that joins takes
// clusters only for itself, about 1/(n+1) of them, and one that leaves gives away only its own;
// the weights are fixed values, the same in every build.
#include "server/app/cluster_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

std::vector<std::string> Names(const std::string& stem, int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(absl::StrCat(stem, i));
  return names;
}

TEST(ClusterPlacement, TheWeightsAreFixedValues) {
  // Pinned (computed apart, in Python, from the definition): replicas of two builds must agree.
  EXPECT_EQ(PlacementWeight("a", "b"), PlacementWeight("a", "b"));
  EXPECT_NE(PlacementWeight("ab", "c"), PlacementWeight("a", "bc"));
  EXPECT_EQ(PlacementWeight("resched-0:1.00000000", "default"), 0xbbd9b2e714736134ULL);
}

TEST(ClusterPlacement, NoReplicaPlacesNothing) { EXPECT_EQ(PlacementOf("default", {}), ""); }

TEST(ClusterPlacement, TheOrderOfTheReplicasDoesNotMatter) {
  std::vector<std::string> replicas = Names("replica-", 5);
  const std::vector<std::string> clusters = Names("cluster-", 200);
  std::map<std::string, std::string> first;
  for (const std::string& c : clusters) first[c] = PlacementOf(c, replicas);
  std::mt19937 random(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(replicas.begin(), replicas.end(), random);
    for (const std::string& c : clusters) EXPECT_EQ(PlacementOf(c, replicas), first[c]);
  }
}

TEST(ClusterPlacement, ClustersSpreadEvenly) {
  const std::vector<std::string> replicas = Names("10.0.0.", 4);
  std::map<std::string, int> count;
  const int clusters = 20000;
  for (const std::string& c : Names("c", clusters)) ++count[PlacementOf(c, replicas)];
  ASSERT_EQ(count.size(), replicas.size());
  for (const auto& [replica, n] : count) {
    // 5000 expected; a binomial's standard deviation is about 61.
    EXPECT_NEAR(n, clusters / 4, 400) << replica;
  }
}

TEST(ClusterPlacement, AJoiningReplicaTakesItsShareAndNothingElseMoves) {
  std::vector<std::string> replicas = Names("replica-", 3);
  const std::vector<std::string> clusters = Names("cluster-", 6000);
  std::map<std::string, std::string> before;
  for (const std::string& c : clusters) before[c] = PlacementOf(c, replicas);
  replicas.push_back("replica-new");
  int moved = 0;
  for (const std::string& c : clusters) {
    const std::string after = PlacementOf(c, replicas);
    if (after == before[c]) continue;
    EXPECT_EQ(after, "replica-new") << c;
    ++moved;
  }
  EXPECT_NEAR(moved, 6000 / 4, 150);
  // And when it leaves again, exactly those clusters go back where they were.
  replicas.pop_back();
  for (const std::string& c : clusters) EXPECT_EQ(PlacementOf(c, replicas), before[c]);
}

TEST(ClusterPlacement, ALeavingReplicaGivesAwayOnlyItsOwn) {
  std::vector<std::string> replicas = Names("replica-", 5);
  const std::vector<std::string> clusters = Names("cluster-", 3000);
  std::map<std::string, std::string> before;
  for (const std::string& c : clusters) before[c] = PlacementOf(c, replicas);
  replicas.erase(replicas.begin() + 2);
  for (const std::string& c : clusters) {
    if (before[c] != "replica-2")
      EXPECT_EQ(PlacementOf(c, replicas), before[c]) << c;
    else
      EXPECT_NE(PlacementOf(c, replicas), "replica-2");
  }
}

}  // namespace
}  // namespace resched::server

// Tests of the daggen-like generator (Aida & Casanova 2008, §3.1; daggen's rules:
// docs/algorithms.md, "Workloads").
#include "core/workload/dag_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/model/runtime_model.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

const AmdahlModel& Amdahl(const Task& task) { return std::get<AmdahlModel>(task.model.params()); }

TEST(DagGeneratorTest, DefaultsArePaperTable1) {
  DagGeneratorOptions o;
  EXPECT_EQ(o.n, 50);
  EXPECT_DOUBLE_EQ(o.alpha_max, 0.20);
  EXPECT_DOUBLE_EQ(o.width, 0.5);
  EXPECT_DOUBLE_EQ(o.density, 0.5);
  EXPECT_DOUBLE_EQ(o.regularity, 0.5);
  EXPECT_EQ(o.jump, 1);
  EXPECT_EQ(o.t1_min, 60 * kMicrosPerSecond);
  EXPECT_EQ(o.t1_max, 36000 * kMicrosPerSecond);
}

using Shape = std::tuple<int, double, double, double, int>;  // n, width, density, regularity, jump

class DagGeneratorShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(DagGeneratorShapeTest, HasThePaperProperties) {
  const auto [n, width, density, regularity, jump] = GetParam();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    DagGeneratorOptions o;
    o.n = n;
    o.width = width;
    o.density = density;
    o.regularity = regularity;
    o.jump = jump;
    o.seed = seed;
    absl::StatusOr<GeneratedDag> g = GenerateDag(o);
    ASSERT_OK(g);
    const Dag& dag = g->dag;
    const int total = n + 2;
    ASSERT_EQ(static_cast<int>(dag.tasks.size()), total);
    ASSERT_OK(ValidateDag(dag, 1));  // acyclic, unique names, no repeated edges
    for (int i = 0; i < total; ++i) EXPECT_EQ(dag.tasks[i].name, absl::StrCat("t", i));

    // Single entry and exit.
    EXPECT_EQ(g->entry, 0);
    EXPECT_EQ(g->exit, total - 1);
    std::vector<int> indeg(total, 0), outdeg(total, 0);
    for (const Edge& e : dag.edges) {
      ++indeg[e.to];
      ++outdeg[e.from];
      EXPECT_EQ(e.transfer, 0);
    }
    for (int i = 0; i < total; ++i) {
      if (i != g->entry) {
        EXPECT_GT(indeg[i], 0) << "task " << i << " is a second entry";
      }
      if (i != g->exit) {
        EXPECT_GT(outdeg[i], 0) << "task " << i << " is a second exit";
      }
    }
    EXPECT_EQ(indeg[g->entry], 0);
    EXPECT_EQ(outdeg[g->exit], 0);
    EXPECT_EQ(Amdahl(dag.tasks[g->entry]).t1, 1);
    EXPECT_EQ(Amdahl(dag.tasks[g->exit]).k_max, 1);

    // Levels partition the computational tasks in index order; edges span 1..jump levels.
    std::vector<int> level(total, -1);
    int next = 1;
    for (int l = 0; l < static_cast<int>(g->levels.size()); ++l) {
      ASSERT_FALSE(g->levels[l].empty());
      for (int t : g->levels[l]) {
        EXPECT_EQ(t, next++);
        level[t] = l;
      }
    }
    EXPECT_EQ(next, total - 1);
    for (const Edge& e : dag.edges) {
      if (e.from == g->entry) {
        EXPECT_EQ(level[e.to], 0);
        continue;
      }
      if (e.to == g->exit) continue;
      const int span = level[e.to] - level[e.from];
      EXPECT_GE(span, 1);
      EXPECT_LE(span, jump);
    }
    // Every task below level 0 has a generated parent; level-0 tasks only the entry.
    for (int t = 1; t < total - 1; ++t) {
      if (level[t] == 0) {
        EXPECT_EQ(indeg[t], 1);
      } else {
        EXPECT_GE(indeg[t], 1);
      }
    }

    // Amdahl parameters in the paper's ranges.
    for (int t = 1; t < total - 1; ++t) {
      const AmdahlModel& m = Amdahl(dag.tasks[t]);
      EXPECT_GE(m.t1, 60 * kMicrosPerSecond);
      EXPECT_LE(m.t1, 36000 * kMicrosPerSecond);
      EXPECT_GE(m.alpha, 0);
      EXPECT_LT(m.alpha, 0.20);
      EXPECT_EQ(m.k_min, 1);
      EXPECT_EQ(m.k_max, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Table1, DagGeneratorShapeTest,
                         ::testing::Combine(::testing::Values(1, 10, 50, 100),
                                            ::testing::Values(0.1, 0.5, 0.9),
                                            ::testing::Values(0.1, 0.9),
                                            ::testing::Values(0.1, 0.9),
                                            ::testing::Values(1, 2, 4)));

TEST(DagGeneratorTest, DeterministicPerSeed) {
  DagGeneratorOptions o;
  o.jump = 3;
  o.seed = 17;
  absl::StatusOr<GeneratedDag> a = GenerateDag(o);
  absl::StatusOr<GeneratedDag> b = GenerateDag(o);
  o.seed = 18;
  absl::StatusOr<GeneratedDag> c = GenerateDag(o);
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(c);
  auto same = [](const GeneratedDag& x, const GeneratedDag& y) {
    if (x.levels != y.levels || x.dag.edges.size() != y.dag.edges.size()) return false;
    for (size_t i = 0; i < x.dag.edges.size(); ++i) {
      if (x.dag.edges[i].from != y.dag.edges[i].from || x.dag.edges[i].to != y.dag.edges[i].to) {
        return false;
      }
    }
    for (size_t i = 0; i < x.dag.tasks.size(); ++i) {
      if (Amdahl(x.dag.tasks[i]).t1 != Amdahl(y.dag.tasks[i]).t1 ||
          Amdahl(x.dag.tasks[i]).alpha != Amdahl(y.dag.tasks[i]).alpha) {
        return false;
      }
    }
    return true;
  };
  EXPECT_TRUE(same(*a, *b));
  EXPECT_FALSE(same(*a, *c));
}

TEST(DagGeneratorTest, WithoutEntryExitHasOnlyTheNTasks) {
  DagGeneratorOptions o;
  o.single_entry_exit = false;
  absl::StatusOr<GeneratedDag> g = GenerateDag(o);
  ASSERT_OK(g);
  EXPECT_EQ(g->dag.tasks.size(), 50u);
  EXPECT_EQ(g->entry, -1);
  EXPECT_EQ(g->exit, -1);
  EXPECT_EQ(g->levels.front().front(), 0);
}

// Reference: with regularity 1 every level has exactly floor(n^width) tasks (the last one the
// remainder), as daggen's level loop gives.
TEST(DagGeneratorTest, RegularityOneGivesEqualLevels) {
  for (int n : {10, 25, 50, 75, 100}) {
    for (double width : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      DagGeneratorOptions o;
      o.n = n;
      o.width = width;
      o.regularity = 1;
      absl::StatusOr<GeneratedDag> g = GenerateDag(o);
      ASSERT_OK(g);
      const int perfect = static_cast<int>(std::floor(std::exp(width * std::log(n))));
      const int levels = (n + perfect - 1) / perfect;
      ASSERT_EQ(static_cast<int>(g->levels.size()), levels) << n << " " << width;
      for (int l = 0; l + 1 < levels; ++l)
        EXPECT_EQ(static_cast<int>(g->levels[l].size()), perfect);
      EXPECT_EQ(static_cast<int>(g->levels.back().size()), n - perfect * (levels - 1));
    }
  }
}

// Reference for density, jump 1: a task draws 1 + floor(U * density * W) parents among the W tasks
// of the previous level (never more than W, so all draws succeed), mean 1 + E[floor(U x)].
TEST(DagGeneratorTest, ParentCountsFollowDensity) {
  for (double density : {0.0, 0.2, 0.5, 0.9, 1.0}) {
    double parents = 0;
    int tasks = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      DagGeneratorOptions o;
      o.n = 100;
      o.width = 0.5;  // 10 tasks per level
      o.regularity = 1;
      o.density = density;
      o.seed = seed;
      absl::StatusOr<GeneratedDag> g = GenerateDag(o);
      ASSERT_OK(g);
      ASSERT_EQ(g->levels[0].size(), 10u);
      std::vector<int> indeg(g->dag.tasks.size(), 0);
      for (const Edge& e : g->dag.edges) ++indeg[e.to];
      for (size_t l = 1; l < g->levels.size(); ++l) {
        for (int t : g->levels[l]) {
          parents += indeg[t];
          ++tasks;
          if (density == 0) {
            EXPECT_EQ(indeg[t], 1);
          }
        }
      }
    }
    const double x = density * 10;
    double expected_floor = 0;  // E[floor(U x)] for U ~ U[0, 1)
    for (int j = 1; j < x; ++j) expected_floor += (x - j) / x;
    EXPECT_NEAR(parents / tasks, 1 + expected_floor, 0.1) << "density " << density;
  }
}

TEST(DagGeneratorTest, AlphaAndT1SpanTheirRanges) {
  DagGeneratorOptions o;
  o.n = 2000;
  o.alpha_max = 0.1;
  absl::StatusOr<GeneratedDag> g = GenerateDag(o);
  ASSERT_OK(g);
  double alpha_sum = 0, t1_sum = 0, alpha_max = 0;
  for (int t = 1; t <= o.n; ++t) {
    const AmdahlModel& m = Amdahl(g->dag.tasks[t]);
    alpha_sum += m.alpha;
    alpha_max = std::max(alpha_max, m.alpha);
    t1_sum += static_cast<double>(m.t1) / kMicrosPerSecond;
  }
  EXPECT_NEAR(alpha_sum / o.n, 0.05, 0.004);
  EXPECT_GT(alpha_max, 0.099);
  EXPECT_LT(alpha_max, 0.1);
  EXPECT_NEAR(t1_sum / o.n, (60.0 + 36000.0) / 2, 600);
}

TEST(DagGeneratorTest, RejectsBadOptionsNamingThem) {
  struct Case {
    void (*mutate)(DagGeneratorOptions&);
    const char* field;
  };
  const Case cases[] = {
      {[](DagGeneratorOptions& o) { o.n = 0; }, "n must be"},
      {[](DagGeneratorOptions& o) { o.width = 1.5; }, "width"},
      {[](DagGeneratorOptions& o) { o.density = -0.1; }, "density"},
      {[](DagGeneratorOptions& o) { o.regularity = 2; }, "regularity"},
      {[](DagGeneratorOptions& o) { o.jump = 0; }, "jump"},
      {[](DagGeneratorOptions& o) { o.alpha_max = 1.5; }, "alpha_max"},
      {[](DagGeneratorOptions& o) { o.alpha_min = 0.5; }, "alpha_min"},
      {[](DagGeneratorOptions& o) { o.t1_min = 0; }, "t1_min"},
      {[](DagGeneratorOptions& o) { o.t1_max = 1; }, "t1_max"},
  };
  for (const Case& c : cases) {
    DagGeneratorOptions o;
    c.mutate(o);
    absl::StatusOr<GeneratedDag> g = GenerateDag(o);
    ASSERT_FALSE(g.ok()) << c.field;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(g.status().message().find(c.field), absl::string_view::npos) << g.status();
  }
}

}  // namespace
}  // namespace resched

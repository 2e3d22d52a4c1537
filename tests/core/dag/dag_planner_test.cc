#include "core/dag/dag_planner.h"

#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/dag/resscheddl.h"
#include "core/registry/registry.h"
#include "dag_test_util.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::Amdahl;
using testing::kHour;

// Planners are chosen by name through the registry, as the server chooses them.
absl::StatusOr<DagPlan> PlanDag(std::string_view name, const AlgorithmParams& params,
                                const DagPlanningInput& input) {
  absl::StatusOr<std::unique_ptr<DagPlanner>> planner = MakeDagPlanner(name, params);
  if (!planner.ok()) return planner.status();
  return (*planner)->Plan(input);
}

absl::StatusOr<DeadlineAnswer> AnswerDeadline(std::string_view name, const AlgorithmParams& params,
                                              const DagPlanningInput& input,
                                              std::optional<Time> deadline) {
  absl::StatusOr<std::unique_ptr<DagPlanner>> planner = MakeDagPlanner(name, params);
  if (!planner.ok()) return planner.status();
  return (*planner)->AnswerDeadline(input, deadline);
}

TEST(DagPlanner, EveryBuiltDagPlannerProducesAValidPlanByName) {
  std::mt19937_64 rng(8);
  const Dag dag = testing::RandomDag(rng, 20);
  const Timeline busy = testing::RandomTimeline(rng, 48, 150, 48 * kHour);
  const DagPlanningInput input{&dag, &busy, 2 * kHour, 30, {}, {}};
  int built = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kDagPlanner) continue;
    ++built;
    absl::StatusOr<DagPlan> plan = PlanDag(info.name, {}, input);
    ASSERT_OK(plan) << info.name << ": " << plan.status();
    testing::ExpectValidPlan(dag, *plan, busy, input.release);
  }
  EXPECT_GE(built, 24);  // cpa, 16 RESSCHED, 5 RESSCHEDDL, heft, barbosa
}

// The call's deadline or cancellation reaches every planner during its run, not only between
// tightest-deadline probes: each asks its control more than once, and once told to stop (at the
// first question, or halfway through its run) it answers CANCELLED within a few more questions.
TEST(DagPlanner, EveryBuiltDagPlannerStopsWhenToldTo) {
  std::mt19937_64 rng(11);
  const Dag dag = testing::RandomDag(rng, 30);
  const Timeline busy = testing::RandomTimeline(rng, 32, 100, 48 * kHour);
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kDagPlanner) continue;
    SCOPED_TRACE(info.name);
    int asked = 0;
    DagPlanningInput input{&dag, &busy, 2 * kHour, 30, {}, {}};
    input.control.should_stop = [&asked] {
      ++asked;
      return false;
    };
    ASSERT_OK(PlanDag(info.name, {}, input));
    const int whole_run = asked;
    ASSERT_GT(whole_run, 1);
    for (const int stop_at : {1, (whole_run + 1) / 2}) {
      asked = 0;
      input.control.should_stop = [&asked, stop_at] { return ++asked >= stop_at; };
      absl::StatusOr<DagPlan> stopped = PlanDag(info.name, {}, input);
      EXPECT_EQ(stopped.status().code(), absl::StatusCode::kCancelled) << stopped.status();
      EXPECT_LE(asked, stop_at + 3);
    }
  }
}

TEST(DagPlanner, UnknownNamesAndBadParametersNameTheField) {
  const Dag dag{{{"t", Amdahl(kHour, 0)}}, {}};
  const Timeline empty(4);
  const DagPlanningInput input{&dag, &empty, 0, 0, {}, {}};
  absl::Status s = PlanDag("bl_x_bd_y", {}, input).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "algorithm.name")) << s;
  s = PlanDag("dl_rc_cpar", {{"lambda", -1}}, input).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "algorithm.params.lambda")) << s;
  const Dag cyclic{{{"a", Amdahl(kHour, 0)}, {"b", Amdahl(kHour, 0)}}, {{0, 1, 0}, {1, 0, 0}}};
  s = PlanDag("cpa", {}, DagPlanningInput{&cyclic, &empty, 0, 0, {}, {}}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "dag")) << s;
}

TEST(DagPlanner, DeadlineAnswersForBothKindsOfPlanner) {
  std::mt19937_64 rng(4);
  const Dag dag = testing::RandomDag(rng, 12);
  const Timeline busy = testing::RandomTimeline(rng, 32, 80, 24 * kHour);
  const DagPlanningInput input{&dag, &busy, 0, 20, {}, {}};
  for (const char* name : {"bl_cpar_bd_cpar", "dl_rc_cpar", "dl_bd_cpa"}) {
    absl::StatusOr<DeadlineAnswer> tightest = AnswerDeadline(name, {}, input, std::nullopt);
    ASSERT_OK(tightest);
    ASSERT_TRUE(tightest->feasible && tightest->plan && tightest->tightest) << name;
    testing::ExpectValidPlan(dag, *tightest->plan, busy, 0, *tightest->tightest);

    absl::StatusOr<DeadlineAnswer> met = AnswerDeadline(name, {}, input, *tightest->tightest);
    ASSERT_OK(met);
    EXPECT_TRUE(met->feasible) << name;
    ASSERT_TRUE(met->plan);
    testing::ExpectValidPlan(dag, *met->plan, busy, 0, *tightest->tightest);

    absl::StatusOr<DeadlineAnswer> missed = AnswerDeadline(name, {}, input, kHour / 60);
    ASSERT_OK(missed);
    EXPECT_FALSE(missed->feasible);
    EXPECT_FALSE(missed->plan);
    ASSERT_TRUE(missed->tightest) << "an infeasible answer says what would work";
  }
}

// A deadline answer says when its plan is not the heuristic's own for that deadline: exactly when
// the heuristic run for the deadline alone finds none, and then the plan, the tightest search's,
// still meets the deadline.
TEST(DagPlanner, AnAnswerSaysWhenItsPlanCameFromTheTightestSearch) {
  std::mt19937_64 rng(17);
  int substituted = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const Dag dag = testing::RandomDag(rng, 12);
    const Timeline busy = testing::RandomTimeline(rng, 32, 80, 24 * kHour);
    const DagPlanningInput input{&dag, &busy, 0, 20, {}, {}};
    for (const char* name : {"dl_rc_cpa", "dl_rc_cpar", "dl_bd_cpar"}) {
      const AlgorithmParams params = absl::StartsWith(name, "dl_rc")
                                         ? AlgorithmParams{{"lambda", 1}, {"fallback", 0}}
                                         : AlgorithmParams{};
      absl::StatusOr<DeadlineAnswer> tightest = AnswerDeadline(name, params, input, std::nullopt);
      ASSERT_OK(tightest);
      ASSERT_TRUE(tightest->tightest);
      EXPECT_FALSE(tightest->from_tightest_search) << "no deadline was asked";
      for (Time deadline : {*tightest->tightest + kHour / 4, *tightest->tightest * 5 / 4}) {
        SCOPED_TRACE(absl::StrCat(name, " trial ", trial, " deadline ", deadline));
        absl::StatusOr<DeadlineAnswer> answer = AnswerDeadline(name, params, input, deadline);
        ASSERT_OK(answer);
        ASSERT_TRUE(answer->feasible) << "a deadline after the tightest one is met";
        testing::ExpectValidPlan(dag, *answer->plan, busy, 0, deadline);
        ResschedDlOptions o;
        for (const ResschedDlOptions& v : ResschedDlVariants()) {
          if (ResschedDlName(v) == name) o = v;
        }
        o.q = 20;
        o.lambda = 1;
        absl::StatusOr<DagGraph> g = BuildDagGraph(dag, 32);
        ASSERT_OK(g);
        const bool direct = PlanByDeadline(*g, busy, 0, deadline, o).has_value();
        EXPECT_EQ(answer->from_tightest_search, !direct);
        substituted += answer->from_tightest_search ? 1 : 0;
      }
    }
  }
  RecordProperty("substituted", substituted);
}

TEST(AverageFree, IsTheTimeWeightedMeanOfFreeProcessors) {
  Timeline t(10);
  ASSERT_OK(t.Add(0, 50, 4));
  EXPECT_EQ(AverageFree(t, 0, 100), 8);  // 6 for half the window, 10 for the other half
  EXPECT_EQ(AverageFree(t, 0, 50), 6);
  ASSERT_OK(t.Add(0, 100, 6));
  EXPECT_EQ(AverageFree(t, 0, 50), 1) << "clamped to at least one processor";
  EXPECT_EQ(AverageFree(t, 100, 100), 10) << "an empty window assumes the whole machine";
}

}  // namespace
}  // namespace resched

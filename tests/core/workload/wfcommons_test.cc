// Tests of the WfCommons reader on the shared WfInstances (shared/data/workflows) and on malformed
// documents.
#include "core/workload/wfcommons.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "nlohmann/json.hpp"
#include "tests/core/workload/test_data.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using Json = nlohmann::json;

const AmdahlModel& WfCommonsAmdahl(const Task& task) {
  return std::get<AmdahlModel>(task.model.params());
}

absl::StatusOr<Dag> WfCommonsFromText(const std::string& text,
                                      const WorkflowImportOptions& options = {}) {
  std::istringstream in(text);
  return ReadWfCommons(in, options);
}

TEST(WfCommonsTest, ReadsEverySharedInstance) {
  const auto files = testing::SharedDataFiles("workflows", ".json");
  REQUIRE_SHARED_DATA(!files.empty(), "shared/data/workflows");
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream file(path);
    ASSERT_TRUE(file);
    absl::StatusOr<Dag> dag = ReadWfCommons(file);
    ASSERT_OK(dag);
    EXPECT_OK(ValidateDag(*dag, 1));

    // The reference, straight from the JSON.
    std::ifstream again(path);
    const Json root = Json::parse(again);
    const Json& tasks = root["workflow"]["specification"]["tasks"];
    ASSERT_EQ(dag->tasks.size(), tasks.size());
    absl::flat_hash_map<std::string, int> index;
    for (size_t i = 0; i < tasks.size(); ++i) {
      EXPECT_EQ(dag->tasks[i].name, tasks[i]["id"].get<std::string>());
      index[dag->tasks[i].name] = static_cast<int>(i);
    }
    std::set<std::pair<int, int>> from_parents, from_children;
    for (size_t i = 0; i < tasks.size(); ++i) {
      const int t = static_cast<int>(i);
      for (const Json& p : tasks[i]["parents"]) from_parents.insert({index.at(p), t});
      for (const Json& c : tasks[i]["children"]) from_children.insert({t, index.at(c)});
    }
    EXPECT_EQ(from_parents, from_children) << "parents and children lists disagree";
    std::set<std::pair<int, int>> read;
    for (const Edge& e : dag->edges) read.insert({e.from, e.to});
    EXPECT_EQ(read.size(), dag->edges.size());
    EXPECT_EQ(read, from_parents);

    for (const Json& run : root["workflow"]["execution"]["tasks"]) {
      const Task& task = dag->tasks[index.at(run["id"].get<std::string>())];
      const double seconds = run["runtimeInSeconds"].get<double>();
      EXPECT_EQ(WfCommonsAmdahl(task).t1, std::max<Duration>(1, CeilMicros(seconds))) << task.name;
      EXPECT_DOUBLE_EQ(WfCommonsAmdahl(task).alpha, 0.1);
    }
  }
}

constexpr const char* kSplit = R"({
  "schemaVersion": "1.5",
  "workflow": {
    "specification": {"tasks": [
      {"name": "a", "id": "a", "parents": [], "children": ["b"]},
      {"name": "b", "id": "b", "parents": ["a"], "children": []}]},
    "execution": {"tasks": [
      {"id": "b", "runtimeInSeconds": 0},
      {"id": "a", "runtimeInSeconds": 2.5}]}}})";

TEST(WfCommonsTest, ReadsSplitSchemaAndMapsRuntimes) {
  WorkflowImportOptions options;
  options.alpha = 0.25;
  options.k_max = 8;
  absl::StatusOr<Dag> dag = WfCommonsFromText(kSplit, options);
  ASSERT_OK(dag);
  ASSERT_EQ(dag->tasks.size(), 2u);
  EXPECT_EQ(WfCommonsAmdahl(dag->tasks[0]).t1, 2'500'000);
  EXPECT_EQ(WfCommonsAmdahl(dag->tasks[1]).t1, 1);  // a zero run time becomes min_t1
  EXPECT_DOUBLE_EQ(WfCommonsAmdahl(dag->tasks[0]).alpha, 0.25);
  EXPECT_EQ(WfCommonsAmdahl(dag->tasks[0]).k_max, 8);
  ASSERT_EQ(dag->edges.size(), 1u);  // listed twice (parents and children), read once
  EXPECT_EQ(dag->edges[0].from, 0);
  EXPECT_EQ(dag->edges[0].to, 1);
}

TEST(WfCommonsTest, ReadsOlderSchemas) {
  absl::StatusOr<Dag> v14 = WfCommonsFromText(R"({"workflow": {"tasks": [
      {"name": "x", "id": "x1", "runtimeInSeconds": 1, "parents": [], "children": ["y1"]},
      {"name": "y", "id": "y1", "runtimeInSeconds": 3}]}})");
  ASSERT_OK(v14);
  EXPECT_EQ(v14->tasks[1].name, "y1");
  EXPECT_EQ(v14->edges.size(), 1u);
  absl::StatusOr<Dag> hub = WfCommonsFromText(R"({"workflow": {"jobs": [
      {"name": "x", "runtime": 1.5},
      {"name": "y", "runtime": 3, "parents": ["x"]}]}})");
  ASSERT_OK(hub);
  EXPECT_EQ(WfCommonsAmdahl(hub->tasks[0]).t1, 1'500'000);
  EXPECT_EQ(hub->edges.size(), 1u);
}

TEST(WfCommonsTest, MalformedInputNamesThePath) {
  struct Case {
    const char* json;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"workflow": )", "JSON syntax error at byte"},
      {R"([1, 2])", "must be a JSON object"},
      {R"({"name": "x"})", "workflow is missing"},
      {R"({"workflow": {"specification": {"tasks": {}}}})",
       "workflow.specification.tasks must be an array"},
      {R"({"workflow": {"specification": {"tasks": [{"id": 3}]}}})",
       "workflow.specification.tasks[0].id must be a string"},
      {R"({"workflow": {"specification": {"tasks": [{"parents": []}]}}})",
       "workflow.specification.tasks[0] has neither an id nor a name"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}, {"id": "a"}]}}})",
       "workflow.specification.tasks[1].id 'a' is used twice"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a", "parents": ["zz"]}]}}})",
       "workflow.specification.tasks[0].parents[0]: unknown task 'zz'"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a", "children": [1]}]}}})",
       "workflow.specification.tasks[0].children[0] must be a string"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a", "parents": ["a"]}]}}})",
       "depends on itself"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}]}}})",
       "workflow.execution is missing"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}]},
           "execution": {"tasks": [{"id": "a", "runtimeInSeconds": "5"}]}}})",
       "workflow.execution.tasks[0].runtimeInSeconds must be a number"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}]},
           "execution": {"tasks": [{"id": "a", "runtimeInSeconds": -1}]}}})",
       "workflow.execution.tasks[0].runtimeInSeconds must be in [0, 1e+09] seconds, got -1"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}]},
           "execution": {"tasks": [{"id": "a"}]}}})",
       "workflow.execution.tasks[0].runtimeInSeconds is missing"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}, {"id": "b"}]},
           "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1}]}}})",
       "workflow.execution.tasks has no entry for task 'b'"},
      {R"({"workflow": {"specification": {"tasks": [{"id": "a"}]},
           "execution": {"tasks": [{"id": "q", "runtimeInSeconds": 1}]}}})",
       "workflow.execution.tasks[0].id: unknown task 'q'"},
      {R"({"workflow": {"tasks": [{"id": "a", "runtime": 1, "parents": ["b"]},
                                  {"id": "b", "runtime": 1, "parents": ["a"]}]}})",
       "cycle"},
      {R"({"workflow": {"tasks": [{"id": "a", "runtime": null}]}})",
       "workflow.tasks[0].runtimeInSeconds is missing"},
      {R"({"workflow": {}})", "workflow.specification.tasks is missing"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Dag> dag = WfCommonsFromText(c.json);
    ASSERT_FALSE(dag.ok()) << c.json;
    EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument) << dag.status();
    EXPECT_NE(dag.status().message().find(c.expected), absl::string_view::npos)
        << "got: " << dag.status().message() << "\nwanted: " << c.expected;
  }
}

TEST(WfCommonsTest, RejectsBadOptions) {
  WorkflowImportOptions options;
  options.alpha = 1.5;
  absl::StatusOr<Dag> dag = WfCommonsFromText(kSplit, options);
  ASSERT_FALSE(dag.ok());
  EXPECT_NE(dag.status().message().find("alpha must be in [0, 1]"), absl::string_view::npos);
  options = {};
  options.min_t1 = 0;
  EXPECT_FALSE(WfCommonsFromText(kSplit, options).ok());
}

}  // namespace
}  // namespace resched

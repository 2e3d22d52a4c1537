#include "proto/resched/dag_import.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "proto/resched/convert.h"
#include "tests/testing/status.h"
#include "tests/testing/text_proto.h"

namespace resched::api {
namespace {

using resched::testing::EqualsText;

namespace v1 = resched::v1;

constexpr const char* kWfCommons = R"({
  "schemaVersion": "1.5",
  "workflow": {
    "specification": {"tasks": [
      {"name": "a", "id": "a", "parents": [], "children": ["b", "c"]},
      {"name": "b", "id": "b", "parents": ["a"], "children": ["c"]},
      {"name": "c", "id": "c", "parents": ["a", "b"], "children": []}]},
    "execution": {"tasks": [
      {"id": "a", "runtimeInSeconds": 2.5},
      {"id": "b", "runtimeInSeconds": 60},
      {"id": "c", "runtimeInSeconds": 0}]}}})";

constexpr const char* kDax = R"(<?xml version="1.0"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1" name="w">
  <job id="ID0" name="prep" runtime="13.5"/>
  <job id="ID1" name="run" runtime="100"/>
  <child ref="ID1"><parent ref="ID0"/></child>
</adag>)";

TEST(ParseDagFormat, NamesAndErrors) {
  EXPECT_EQ(*ParseDagFormat("dag"), DagFormat::kDag);
  EXPECT_EQ(*ParseDagFormat("WfCommons"), DagFormat::kWfCommons);
  EXPECT_EQ(*ParseDagFormat("dax"), DagFormat::kDax);
  absl::StatusOr<DagFormat> bad = ParseDagFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "xml: expected dag, wfcommons or dax");
  EXPECT_EQ(DagFormatName(DagFormat::kWfCommons), "wfcommons");
}

TEST(DetectDagFormat, ByExtensionThenContent) {
  // The extension wins: a DAX file may start with a comment or a BOM.
  EXPECT_EQ(DetectDagFormat("w/Montage_25.xml", "{}"), DagFormat::kDax);
  EXPECT_EQ(DetectDagFormat("w/MONTAGE.DAX", ""), DagFormat::kDax);
  EXPECT_EQ(DetectDagFormat("-", "\n  <?xml version=\"1.0\"?><adag/>"), DagFormat::kDax);
  EXPECT_EQ(DetectDagFormat("w.json", kWfCommons), DagFormat::kWfCommons);
  EXPECT_EQ(DetectDagFormat("-", " {\"workflow\": {\"jobs\": []}}"), DagFormat::kWfCommons);
  // A resched Dag: JSON with tasks, YAML, an empty file, "workflow" that is not an object,
  // and JSON that does not parse (left to the Dag parser, which says where it fails).
  EXPECT_EQ(DetectDagFormat("d.json", R"({"tasks": [{"name": "x"}]})"), DagFormat::kDag);
  EXPECT_EQ(DetectDagFormat("d.yaml", "tasks:\n  - name: x\n"), DagFormat::kDag);
  EXPECT_EQ(DetectDagFormat("/dev/null", ""), DagFormat::kDag);
  EXPECT_EQ(DetectDagFormat("d.json", R"({"workflow": "x"})"), DagFormat::kDag);
  EXPECT_EQ(DetectDagFormat("d.json", R"({"workflow": {)"), DagFormat::kDag);
}

TEST(DagToProto, ConvertsEveryModelAndEdge) {
  resched::Dag dag;
  dag.tasks.push_back(
      {"amdahl", resched::RuntimeModel(resched::AmdahlModel{2'500'000, 0.1, 2, 8})});
  dag.tasks.push_back({"rigid", resched::RuntimeModel(resched::RigidModel{4, 60'000'000})});
  dag.tasks.push_back(
      {"downey", resched::RuntimeModel(resched::DowneyModel{1'000'001, 16, 0.5, 1, 0})});
  dag.tasks.push_back(
      {"table", resched::RuntimeModel(resched::TableModel{{{1, 10'000'000}, {2, 6'000'000}}})});
  dag.tasks.push_back(
      {"pow2", resched::RuntimeModel(resched::PowerOfTwoModel{{8'000'000, 4'500'000}})});
  dag.tasks.push_back({"ceil", resched::RuntimeModel(resched::CeilModel{8, 30'000'000})});
  dag.tasks.push_back({"comm", resched::RuntimeModel(resched::CommunicationModel{
                                   1e12, 1000, 0.001, 1e8, 1e9, 1, 64})});
  dag.edges = {{0, 1, 0}, {0, 2, 1'500'000}, {1, 6, 0}, {2, 6, 0}};

  v1::Dag out = resched::ToProto(dag);
  ASSERT_EQ(out.tasks_size(), 7);
  ASSERT_EQ(out.edges_size(), 4);
  EXPECT_EQ(out.tasks(0).name(), "amdahl");
  const v1::AmdahlModel& a = out.tasks(0).model().amdahl();
  EXPECT_EQ(a.t1().seconds(), 2);
  EXPECT_EQ(a.t1().nanos(), 500'000'000);
  EXPECT_DOUBLE_EQ(a.alpha(), 0.1);
  EXPECT_EQ(a.k_min(), 2);
  EXPECT_EQ(a.k_max(), 8);
  EXPECT_TRUE(EqualsText(out.tasks(1).model(), "rigid { k: 4 time { seconds: 60 } }"));
  EXPECT_TRUE(EqualsText(out.tasks(2).model(),
                         "downey { t1 { seconds: 1 nanos: 1000 } a: 16 sigma: 0.5 k_min: 1 }"));
  EXPECT_TRUE(EqualsText(
      out.tasks(3).model(),
      "table { entries { k: 1 time { seconds: 10 } } entries { k: 2 time { seconds: 6 } } }"));
  EXPECT_TRUE(
      EqualsText(out.tasks(4).model(),
                 "power_of_two { times { seconds: 8 } times { seconds: 4 nanos: 500000000 } }"));
  EXPECT_TRUE(EqualsText(out.tasks(5).model(), "ceil { req_procs: 8 req_time { seconds: 30 } }"));
  EXPECT_TRUE(
      EqualsText(out.tasks(6).model(),
                 "communication { flops: 1000000000000 matrix_size: 1000 latency_seconds: 0.001 "
                 "bandwidth: 100000000 processor_speed: 1000000000 k_min: 1 k_max: 64 }"));
  // Edges by name; a zero transfer is left unset (the server reads unset as 0).
  EXPECT_TRUE(EqualsText(out.edges(0), "from: \"amdahl\" to: \"rigid\""));
  EXPECT_TRUE(EqualsText(
      out.edges(1), "from: \"amdahl\" to: \"downey\" transfer { seconds: 1 nanos: 500000000 }"));
  EXPECT_TRUE(EqualsText(out.edges(3), "from: \"downey\" to: \"comm\""));
}

TEST(DagToProto, RoundTripsThroughTheDagFileFormat) {
  // What an import produces can be saved as a Dag file and read back unchanged.
  resched::WorkflowImportOptions options;
  options.alpha = 0.2;
  absl::StatusOr<v1::Dag> imported = ParseDagText("w.json", kWfCommons, DagFormat::kAuto, options);
  ASSERT_OK(imported);
  std::string json;
  ASSERT_OK(google::protobuf::util::MessageToJsonString(*imported, &json));
  absl::StatusOr<v1::Dag> back = ParseDagText("saved.json", json, DagFormat::kAuto, {});
  ASSERT_OK(back) << back.status() << "\n" << json;
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*imported, *back))
      << imported->ShortDebugString() << "\n"
      << back->ShortDebugString();
}

TEST(ParseDagText, WfCommons) {
  resched::WorkflowImportOptions options;
  options.alpha = 0.2;
  absl::StatusOr<v1::Dag> dag = ParseDagText("-", kWfCommons, DagFormat::kAuto, options);
  ASSERT_OK(dag);
  ASSERT_EQ(dag->tasks_size(), 3);
  EXPECT_TRUE(EqualsText(dag->tasks(0).model(),
                         "amdahl { t1 { seconds: 2 nanos: 500000000 } alpha: 0.2 k_min: 1 }"));
  EXPECT_EQ(dag->tasks(2).model().amdahl().t1().nanos(), 1000);  // 0 s -> min_t1, 1 us
  ASSERT_EQ(dag->edges_size(), 3);
  EXPECT_TRUE(EqualsText(dag->edges(0), "from: \"a\" to: \"b\""));
  EXPECT_TRUE(EqualsText(dag->edges(1), "from: \"a\" to: \"c\""));
  EXPECT_TRUE(EqualsText(dag->edges(2), "from: \"b\" to: \"c\""));
}

TEST(ParseDagText, DaxDetectedByContent) {
  absl::StatusOr<v1::Dag> dag = ParseDagText("-", kDax, DagFormat::kAuto, {});
  ASSERT_OK(dag);
  ASSERT_EQ(dag->tasks_size(), 2);
  EXPECT_EQ(dag->tasks(0).name(), "ID0");
  EXPECT_TRUE(
      EqualsText(dag->tasks(1).model(), "amdahl { t1 { seconds: 100 } alpha: 0.1 k_min: 1 }"));
  ASSERT_EQ(dag->edges_size(), 1);
  EXPECT_TRUE(EqualsText(dag->edges(0), "from: \"ID0\" to: \"ID1\""));
}

TEST(ParseDagText, DagJsonAndYaml) {
  absl::StatusOr<v1::Dag> dag = ParseDagText(
      "d.yaml",
      "tasks:\n  - name: a\n    model: {rigid: {k: 2, time: 90s}}\n  - name: b\n"
      "    model: {amdahl: {t1: 3600s, alpha: 0.1}}\nedges:\n  - {from: a, to: b, transfer: 5s}\n",
      DagFormat::kAuto, {});
  ASSERT_OK(dag);
  EXPECT_EQ(dag->tasks_size(), 2);
  EXPECT_EQ(dag->edges(0).transfer().seconds(), 5);
}

TEST(ParseDagText, ErrorsSayWhichFormatWasRead) {
  absl::StatusOr<v1::Dag> dag = ParseDagText("d.json", R"({"tasks": 3})", DagFormat::kDax, {});
  ASSERT_FALSE(dag.ok());
  EXPECT_EQ(dag.status().message().substr(0, 15), "as a DAX file: ") << dag.status();
  dag = ParseDagText("d.json", R"({"tasks": []})", DagFormat::kWfCommons, {});
  ASSERT_FALSE(dag.ok());
  EXPECT_EQ(dag.status().message(), "as a WfCommons workflow: workflow is missing");
  dag = ParseDagText("d.json", R"({"taskz": []})", DagFormat::kAuto, {});
  ASSERT_FALSE(dag.ok());
  EXPECT_NE(dag.status().message().find("taskz"), absl::string_view::npos) << dag.status();
  dag = ParseDagText("x.xml", "<adag><job id=\"a\" runtime=\"-1\"/></adag>", DagFormat::kAuto, {});
  ASSERT_FALSE(dag.ok());
  EXPECT_NE(dag.status().message().find("runtime"), absl::string_view::npos) << dag.status();
}

}  // namespace
}  // namespace resched::api

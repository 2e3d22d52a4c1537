// Tests of the Pegasus DAX reader on the shared DAX files (shared/data/dax) and on malformed input.
#include "core/workload/dax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "tests/core/workload/test_data.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

const AmdahlModel& DaxAmdahl(const Task& task) {
  return std::get<AmdahlModel>(task.model.params());
}

absl::StatusOr<Dag> DaxFromText(const std::string& text,
                                const WorkflowImportOptions& options = {}) {
  std::istringstream in(text);
  return ReadDax(in, options);
}

TEST(DaxTest, ReadsEverySharedFile) {
  const auto files = testing::SharedDataFiles("dax", ".xml");
  REQUIRE_SHARED_DATA(!files.empty(), "shared/data/dax");
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream file(path);
    ASSERT_TRUE(file);
    absl::StatusOr<Dag> dag = ReadDax(file);
    ASSERT_OK(dag);
    EXPECT_OK(ValidateDag(*dag, 1));

    // The reference, by regular expressions over the text (the files are generator output, one
    // element per line).
    std::ifstream again(path);
    const std::string text((std::istreambuf_iterator<char>(again)),
                           std::istreambuf_iterator<char>());
    const std::regex job(R"re(<job id="([^"]+)"[^>]*runtime="([^"]+)")re");
    absl::flat_hash_map<std::string, int> index;
    int jobs = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), job);
         it != std::sregex_iterator(); ++it, ++jobs) {
      ASSERT_LT(jobs, static_cast<int>(dag->tasks.size()));
      const Task& task = dag->tasks[jobs];
      EXPECT_EQ(task.name, (*it)[1].str());
      EXPECT_EQ(DaxAmdahl(task).t1, std::max<Duration>(1, CeilMicros(std::stod((*it)[2].str()))));
      EXPECT_DOUBLE_EQ(DaxAmdahl(task).alpha, 0.1);
      index[task.name] = jobs;
    }
    EXPECT_EQ(jobs, static_cast<int>(dag->tasks.size()));

    std::set<std::pair<int, int>> expected;
    const std::regex block(R"re(<child ref="([^"]+)">([\s\S]*?)</child>)re");
    const std::regex parent(R"re(<parent ref="([^"]+)")re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), block);
         it != std::sregex_iterator(); ++it) {
      const int child = index.at((*it)[1].str());
      const std::string body = (*it)[2].str();
      for (auto p = std::sregex_iterator(body.begin(), body.end(), parent);
           p != std::sregex_iterator(); ++p) {
        expected.insert({index.at((*p)[1].str()), child});
      }
    }
    std::set<std::pair<int, int>> read;
    for (const Edge& e : dag->edges) read.insert({e.from, e.to});
    EXPECT_EQ(read.size(), dag->edges.size());
    EXPECT_EQ(read, expected);
    EXPECT_FALSE(expected.empty());
  }
}

TEST(DaxTest, ReadsASmallDaxWithProfilesAndNamespaces) {
  absl::StatusOr<Dag> dag = DaxFromText(R"(<?xml version="1.0"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="3.4" name="w">
  <job id="A" name="prep" runtime="0">
    <uses file="f" link="output" size="100"/>
  </job>
  <job id="B" name="run">
    <profile namespace="pegasus" key="runtime">42.25</profile>
  </job>
  <child ref="B"><parent ref="A"/><parent ref="A"/></child>
</adag>)");
  ASSERT_OK(dag);
  ASSERT_EQ(dag->tasks.size(), 2u);
  EXPECT_EQ(DaxAmdahl(dag->tasks[0]).t1, 1);  // zero run time -> min_t1
  EXPECT_EQ(DaxAmdahl(dag->tasks[1]).t1, 42'250'000);
  ASSERT_EQ(dag->edges.size(), 1u);
  EXPECT_EQ(dag->edges[0].from, 0);
  EXPECT_EQ(dag->edges[0].to, 1);
}

TEST(DaxTest, MalformedInputNamesTheProblem) {
  struct Case {
    const char* xml;
    const char* expected;
  };
  const Case cases[] = {
      {"<adag><job id=\"a\" runtime=\"1\">", "XML error"},
      {"not xml at all", "line 1: XML error"},
      {"<dag/>", "the root element must be <adag>, got <dag>"},
      {"<adag/>", "<adag> has no <job> element"},
      {"<adag>\n<job runtime=\"1\"/></adag>", "line 2: <job> has no id attribute"},
      {"<adag><job id=\"a\"/></adag>", "job 'a' has no runtime attribute"},
      {"<adag><job id=\"a\" runtime=\"fast\"/></adag>",
       "job 'a': runtime must be a number of seconds, got 'fast'"},
      {"<adag><job id=\"a\" runtime=\"-3\"/></adag>",
       "job 'a': runtime must be in [0, 1e+09] seconds, got -3"},
      {"<adag><job id=\"a\" runtime=\"1\"/><job id=\"a\" runtime=\"1\"/></adag>",
       "job 'a': id is used twice"},
      {"<adag><job id=\"a\" runtime=\"1\"/><child ref=\"z\"><parent ref=\"a\"/></child></adag>",
       "<child ref='z'>: unknown job"},
      {"<adag><job id=\"a\" runtime=\"1\"/><child ref=\"a\"><parent ref=\"q\"/></child></adag>",
       "<parent ref='q'>: unknown job"},
      {"<adag><job id=\"a\" runtime=\"1\"/><child ref=\"a\"><parent ref=\"a\"/></child></adag>",
       "job 'a' is its own parent"},
      {"<adag><job id=\"a\" runtime=\"1\"/><parent ref=\"a\"/></adag>",
       "<parent> outside a <child> element"},
      {"<adag><job id=\"a\" runtime=\"1\"/><child><parent ref=\"a\"/></child></adag>",
       "<child> has no ref attribute"},
      {"<adag><job id=\"a\" runtime=\"1\"/><job id=\"b\" runtime=\"1\"/>"
       "<child ref=\"a\"><parent ref=\"b\"/></child><child ref=\"b\"><parent ref=\"a\"/></child>"
       "</adag>",
       "cycle"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Dag> dag = DaxFromText(c.xml);
    ASSERT_FALSE(dag.ok()) << c.xml;
    EXPECT_EQ(dag.status().code(), absl::StatusCode::kInvalidArgument) << dag.status();
    EXPECT_NE(dag.status().message().find(c.expected), absl::string_view::npos)
        << "got: " << dag.status().message() << "\nwanted: " << c.expected;
  }
}

}  // namespace
}  // namespace resched

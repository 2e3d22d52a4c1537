#include "proto/resched/yaml_json.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "resched/v1/service.pb.h"
#include "tests/testing/status.h"

namespace resched::api {
namespace {

std::string Json(absl::string_view yaml) {
  absl::StatusOr<std::string> json = YamlToJson(std::string(yaml));
  EXPECT_OK(json);
  return json.ok() ? *json : "";
}

TEST(YamlToJson, Scalars) {
  EXPECT_EQ(Json("a: 1"), R"({"a":1})");
  EXPECT_EQ(Json("a: -12"), R"({"a":-12})");
  EXPECT_EQ(Json("a: +007"), R"({"a":7})");
  EXPECT_EQ(Json("a: 0x1F"), R"({"a":31})");
  EXPECT_EQ(Json("a: 0o17"), R"({"a":15})");
  EXPECT_EQ(Json("a: 1.5"), R"({"a":1.5})");
  EXPECT_EQ(Json("a: .5"), R"({"a":0.5})");
  EXPECT_EQ(Json("a: 1e3"), R"({"a":1000})");
  EXPECT_EQ(Json("a: 2."), R"({"a":2})");
  EXPECT_EQ(Json("a: .inf"), R"({"a":"Infinity"})");
  EXPECT_EQ(Json("a: -.inf"), R"({"a":"-Infinity"})");
  EXPECT_EQ(Json("a: .nan"), R"({"a":"NaN"})");
  EXPECT_EQ(Json("a: true\nb: False"), R"({"a":true,"b":false})");
  EXPECT_EQ(Json("a: null\nb: ~\nc:"), R"({"a":null,"b":null,"c":null})");
  EXPECT_EQ(Json("a: 90s\nb: hello world"), R"({"a":"90s","b":"hello world"})");
  EXPECT_EQ(Json("a: 2026-11-22T10:00:00Z"), R"({"a":"2026-11-22T10:00:00Z"})");
  EXPECT_EQ(Json("a: yes"), R"({"a":"yes"})");  // YAML 1.2: not a boolean
  EXPECT_EQ(Json("a: 99999999999999999999999"), R"({"a":"99999999999999999999999"})");
}

TEST(YamlToJson, QuotedAndTaggedScalarsStayStrings) {
  EXPECT_EQ(Json("a: \"1\"\nb: 'true'\nc: !!str 2"), R"({"a":"1","b":"true","c":"2"})");
  EXPECT_EQ(Json("a: \"line\\n\\\"q\\\"\\t\\u0001\""), R"({"a":"line\n\"q\"\t\u0001"})");
}

TEST(YamlToJson, Structure) {
  EXPECT_EQ(Json("a:\n  - 1\n  - x\n  - {b: [true, null]}\n"),
            R"({"a":[1,"x",{"b":[true,null]}]})");
  EXPECT_EQ(Json("[1, 2]"), "[1,2]");
  EXPECT_EQ(Json("1: one"), R"({"1":"one"})");  // keys are strings
  EXPECT_EQ(Json(""), "null");
}

TEST(YamlToJson, ErrorsNameTheLine) {
  absl::StatusOr<std::string> json = YamlToJson("a: 1\nb: [1, 2\n");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("YAML line "), std::string::npos) << json.status();
  json = YamlToJson("a: 1\n? [x]\n: 2\n");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().message(), "YAML line 2, column 3: map keys must be scalars");
}

// Nine anchors, each a list of the previous one nine times: 9^9 scalars from 300 bytes.
TEST(YamlToJson, AliasesThatExpandWithoutBoundAreRefused) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string previous = absl::StrCat("*a", level - 1);
    absl::StrAppend(&yaml, "a", level, ": &a", level, " [", previous);
    for (int i = 1; i < 9; ++i) absl::StrAppend(&yaml, ", ", previous);
    absl::StrAppend(&yaml, "]\n");
  }
  const absl::StatusOr<std::string> json = YamlToJson(yaml);
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("aliases expand the document past 65536 bytes of JSON"),
            std::string::npos)
      << json.status();
  // An alias used a few times is fine.
  EXPECT_EQ(Json("base: &b {k: 1}\none: *b\ntwo: *b\n"),
            R"({"base":{"k":1},"one":{"k":1},"two":{"k":1}})");
}

resched::v1::JobSpec JobSpecText(const std::string& text) {
  resched::v1::JobSpec m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

TEST(ParseJsonOrYaml, YamlAndJsonGiveTheSameMessage) {
  const resched::v1::JobSpec expected = JobSpecText(
      R"pb(name: "a"
           weight: 2
           release { seconds: 3600 }
           model {
             table {
               entries {
                 k: 1
                 time { seconds: 90 }
               }
               entries {
                 k: 2
                 time { seconds: 50 nanos: 500000000 }
               }
             }
           })pb");
  const char* yaml = R"(
name: a
weight: 2
release: 1970-01-01T01:00:00Z
model:
  table:
    entries:
      - {k: 1, time: 90s}
      - k: 2
        time: 50.5s
)";
  const char* json = R"(  {"name": "a", "weight": 2, "release": "1970-01-01T01:00:00Z",
    "model": {"table": {"entries": [{"k": 1, "time": "90s"}, {"k": 2, "time": "50.5s"}]}}})";
  for (const char* text : {yaml, json}) {
    resched::v1::JobSpec m;
    absl::Status st = ParseJsonOrYaml(text, &m);
    ASSERT_OK(st);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(m, expected))
        << m.ShortDebugString();
  }
}

TEST(ParseJsonOrYaml, CamelCaseAndEnumsAndEmpty) {
  resched::v1::ClusterSpec spec;
  ASSERT_OK(
      ParseJsonOrYaml("name: sim\nprocessors: 8\nclock: SIMULATED\n"
                      "policy: {name: easy, params: {rho: 0.5}}\n",
                      &spec));
  EXPECT_EQ(spec.clock(), resched::v1::SIMULATED);
  EXPECT_EQ(spec.policy().params().at("rho"), 0.5);
  resched::v1::AmdahlModel amdahl;
  ASSERT_OK(ParseJsonOrYaml("kMin: 2\nk_max: 4\n", &amdahl));
  EXPECT_EQ(amdahl.k_min(), 2);
  EXPECT_EQ(amdahl.k_max(), 4);
  EXPECT_OK(ParseJsonOrYaml("", &amdahl));
  EXPECT_OK(ParseJsonOrYaml("# only a comment\n", &amdahl));
}

TEST(ParseJsonOrYaml, ErrorsSayWhatAndWhere) {
  resched::v1::JobSpec m;
  absl::Status st = ParseJsonOrYaml("name: a\nmodell: {}\n", &m);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("modell"), std::string::npos) << st;
  st = ParseJsonOrYaml("model:\n  rigid: {k: 4, time: 1h}\n", &m);
  EXPECT_NE(st.message().find("model.rigid.time"), std::string::npos) << st;
  st = ParseJsonOrYaml("model:\n  rigid: {k: x}\n", &m);
  EXPECT_NE(st.message().find("model.rigid.k"), std::string::npos) << st;
  st = ParseJsonOrYaml("{\"name\": ", &m);
  EXPECT_FALSE(st.ok());
  st = ParseJsonOrYaml("- 1\n- 2\n", &m);
  EXPECT_EQ(st.message(), "YAML: the document must be a map of the fields of resched.v1.JobSpec");
  st = ParseJsonOrYaml("name: [unclosed\n", &m);
  EXPECT_NE(st.message().find("YAML line 2"), std::string::npos) << st;
}

}  // namespace
}  // namespace resched::api

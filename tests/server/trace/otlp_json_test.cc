// The OTLP/HTTP JSON encoding: the shape a collector expects (hex ids, 64-bit numbers as
// strings, enums as numbers, typed attribute values).
#include "server/trace/otlp_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace resched::server::trace {
namespace {

TEST(OtlpJsonTest, EncodesAResourceAScopeAndItsSpans) {
  SpanData root;
  root.trace_id =
      ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")->trace_id;
  root.span_id = NewSpanId();
  root.name = "resched.v1.Resched/SubmitJob";
  root.kind = SpanKind::kServer;
  root.start_unix_nanos = 1'764'000'000'123'456'789;
  root.end_unix_nanos = 1'764'000'000'223'456'789;
  root.attributes = {{"rpc.method", std::string("SubmitJob")},
                     {"rpc.grpc.status_code", std::int64_t{5}},
                     {"resched.dag.cpu_hours", 1.5},
                     {"resched.deadline.feasible", true}};
  root.status = SpanStatus::kError;
  root.status_message = "job 'j9' not found";
  SpanData child;
  child.trace_id = root.trace_id;
  child.parent_span_id = root.span_id;
  child.span_id = NewSpanId();
  child.name = "resched.lock_wait";

  const nlohmann::json request = nlohmann::json::parse(EncodeOtlpJson({root, child}, "svc"));
  const nlohmann::json& resource = request["resourceSpans"][0];
  EXPECT_EQ(resource["resource"]["attributes"][0]["key"], "service.name");
  EXPECT_EQ(resource["resource"]["attributes"][0]["value"]["stringValue"], "svc");
  EXPECT_EQ(resource["scopeSpans"][0]["scope"]["name"], "resched");
  const nlohmann::json& spans = resource["scopeSpans"][0]["spans"];
  ASSERT_EQ(spans.size(), 2u);

  const nlohmann::json& s = spans[0];
  EXPECT_EQ(s["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(s["spanId"], ToHex(root.span_id));
  EXPECT_FALSE(s.contains("parentSpanId"));  // a root span has none
  EXPECT_EQ(s["name"], "resched.v1.Resched/SubmitJob");
  EXPECT_EQ(s["kind"], 2);
  EXPECT_EQ(s["startTimeUnixNano"], "1764000000123456789");
  EXPECT_EQ(s["endTimeUnixNano"], "1764000000223456789");
  EXPECT_EQ(s["attributes"][0]["value"]["stringValue"], "SubmitJob");
  EXPECT_EQ(s["attributes"][1]["value"]["intValue"], "5");
  EXPECT_EQ(s["attributes"][2]["value"]["doubleValue"], 1.5);
  EXPECT_EQ(s["attributes"][3]["value"]["boolValue"], true);
  EXPECT_EQ(s["status"]["code"], 2);
  EXPECT_EQ(s["status"]["message"], "job 'j9' not found");

  EXPECT_EQ(spans[1]["parentSpanId"], ToHex(root.span_id));
  EXPECT_EQ(spans[1]["kind"], 1);
  EXPECT_EQ(spans[1]["status"]["code"], 0);
  EXPECT_FALSE(spans[1]["status"].contains("message"));
}

}  // namespace
}  // namespace resched::server::trace

// Where traces go and how many are kept: flags over the standard OpenTelemetry variables over
// the configuration file, and clear errors for a bad ratio.
#include "server/process/tracing_settings.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/testing/status.h"

namespace resched::server {
namespace {

using ::resched::testing::StatusIs;
using ::testing::HasSubstr;

struct Env {
  std::map<std::string, std::string> vars;
  std::string operator()(const char* name) const {
    auto it = vars.find(name);
    return it == vars.end() ? "" : it->second;
  }
};

TEST(TracingSettingsTest, NothingSetMeansNoTracing) {
  auto settings = ResolveTracing({}, {}, Env{});
  ASSERT_OK(settings);
  EXPECT_EQ(settings->traces_url, "");
  EXPECT_EQ(settings->service_name, "resched-server");
  EXPECT_EQ(settings->sample_ratio, 1.0);
}

TEST(TracingSettingsTest, FlagsOverVariablesOverTheConfig) {
  ::resched::v1::ServerConfig config;
  config.set_otlp_endpoint("http://from-config:4318");
  config.set_trace_sample_ratio(0.5);
  Env env{{{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://from-env:4318/"},
           {"OTEL_TRACES_SAMPLER_ARG", "0.25"},
           {"OTEL_SERVICE_NAME", "scheduler-eu"},
           {"OTEL_EXPORTER_OTLP_HEADERS", "api-key=secret"}}};

  auto from_config = ResolveTracing({}, config, Env{});
  ASSERT_OK(from_config);
  EXPECT_EQ(from_config->traces_url, "http://from-config:4318/v1/traces");
  EXPECT_EQ(from_config->sample_ratio, 0.5);

  auto from_env = ResolveTracing({}, config, env);
  ASSERT_OK(from_env);
  EXPECT_EQ(from_env->traces_url, "http://from-env:4318/v1/traces");
  EXPECT_EQ(from_env->sample_ratio, 0.25);
  EXPECT_EQ(from_env->service_name, "scheduler-eu");
  EXPECT_EQ(from_env->headers, "api-key=secret");

  TracingFlags flags;
  flags.otlp_endpoint = "http://from-flag:4318/v1/traces";
  flags.trace_sample_ratio = 0.1;
  auto from_flags = ResolveTracing(flags, config, env);
  ASSERT_OK(from_flags);
  EXPECT_EQ(from_flags->traces_url, "http://from-flag:4318/v1/traces");
  EXPECT_EQ(from_flags->sample_ratio, 0.1);
}

TEST(TracingSettingsTest, TheTracesVariableIsUsedAsWritten) {
  Env env{{{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318"},
           {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:9999/custom"}}};
  auto settings = ResolveTracing({}, {}, env);
  ASSERT_OK(settings);
  EXPECT_EQ(settings->traces_url, "http://traces:9999/custom");
}

TEST(TracingSettingsTest, ARatioOutsideZeroToOneNamesWhereItCameFrom) {
  TracingFlags flags;
  flags.trace_sample_ratio = 1.5;
  EXPECT_THAT(ResolveTracing(flags, {}, Env{}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--trace-sample-ratio")));
  EXPECT_THAT(ResolveTracing({}, {}, Env{{{"OTEL_TRACES_SAMPLER_ARG", "half"}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("OTEL_TRACES_SAMPLER_ARG")));
  ::resched::v1::ServerConfig config;
  config.set_trace_sample_ratio(-0.1);
  EXPECT_THAT(ResolveTracing({}, config, Env{}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace_sample_ratio")));
}

}  // namespace
}  // namespace resched::server

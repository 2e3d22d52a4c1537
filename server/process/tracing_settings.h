// Where resched-server's traces go and how many calls are traced, from its flags, the standard
// OpenTelemetry environment variables and its configuration file, in that order of precedence
// (docs/observability.md).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "resched/v1/config.pb.h"

namespace resched::server {

struct TracingFlags {
  std::string otlp_endpoint;                 // --otlp-endpoint
  std::optional<double> trace_sample_ratio;  // --trace-sample-ratio
};

struct TracingSettings {
  std::string traces_url;  // empty: tracing is off
  std::string service_name;
  std::string headers;  // OTEL_EXPORTER_OTLP_HEADERS' form
  double sample_ratio = 1.0;
};

// `env` reads an environment variable ("" when unset). Reads OTEL_EXPORTER_OTLP_ENDPOINT (a base
// URL), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full traces URL, before the base),
// OTEL_EXPORTER_OTLP_HEADERS (or its _TRACES_ form), OTEL_SERVICE_NAME (default resched-server)
// and OTEL_TRACES_SAMPLER_ARG. INVALID_ARGUMENT naming the flag, variable or field when a ratio
// is not a number in [0, 1].
absl::StatusOr<TracingSettings> ResolveTracing(const TracingFlags& flags,
                                               const ::resched::v1::ServerConfig& config,
                                               const std::function<std::string(const char*)>& env);

}  // namespace resched::server

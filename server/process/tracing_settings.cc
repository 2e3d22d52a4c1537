#include "server/process/tracing_settings.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/trace/otlp_http_exporter.h"

namespace resched::server {
namespace {

absl::Status CheckRatio(const char* source, double ratio) {
  if (ratio >= 0.0 && ratio <= 1.0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(source, " must be a number in [0, 1], got ", ratio));
}

}  // namespace

absl::StatusOr<TracingSettings> ResolveTracing(const TracingFlags& flags,
                                               const ::resched::v1::ServerConfig& config,
                                               const std::function<std::string(const char*)>& env) {
  TracingSettings settings;
  if (!flags.otlp_endpoint.empty()) {
    settings.traces_url = trace::OtlpTracesUrl(flags.otlp_endpoint);
  } else if (std::string url = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); !url.empty()) {
    settings.traces_url = url;  // the signal-specific variable is used as written
  } else if (std::string base = env("OTEL_EXPORTER_OTLP_ENDPOINT"); !base.empty()) {
    settings.traces_url = trace::OtlpTracesUrl(base);
  } else if (!config.otlp_endpoint().empty()) {
    settings.traces_url = trace::OtlpTracesUrl(config.otlp_endpoint());
  }
  settings.service_name = env("OTEL_SERVICE_NAME");
  if (settings.service_name.empty()) settings.service_name = "resched-server";
  settings.headers = env("OTEL_EXPORTER_OTLP_TRACES_HEADERS");
  if (settings.headers.empty()) settings.headers = env("OTEL_EXPORTER_OTLP_HEADERS");

  if (flags.trace_sample_ratio) {
    if (auto s = CheckRatio("--trace-sample-ratio", *flags.trace_sample_ratio); !s.ok()) return s;
    settings.sample_ratio = *flags.trace_sample_ratio;
  } else if (std::string arg = env("OTEL_TRACES_SAMPLER_ARG"); !arg.empty()) {
    double ratio = 0;
    if (!absl::SimpleAtod(arg, &ratio)) {
      return absl::InvalidArgumentError(
          absl::StrCat("OTEL_TRACES_SAMPLER_ARG must be a number in [0, 1], got '", arg, "'"));
    }
    if (auto s = CheckRatio("OTEL_TRACES_SAMPLER_ARG", ratio); !s.ok()) return s;
    settings.sample_ratio = ratio;
  } else if (config.has_trace_sample_ratio()) {
    if (auto s = CheckRatio("trace_sample_ratio", config.trace_sample_ratio()); !s.ok()) return s;
    settings.sample_ratio = config.trace_sample_ratio();
  }
  return settings;
}

}  // namespace resched::server

// Sends batches of spans to an OpenTelemetry collector over OTLP/HTTP with the JSON encoding,
// through libcurl. Used by the tracer's export thread only.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/trace/tracer.h"

namespace resched::server::trace {

struct OtlpHttpOptions {
  std::string url;  // where spans are POSTed, e.g. http://localhost:4318/v1/traces
  std::string service_name = "resched-server";
  // Extra request headers ("key=value,key2=value2", values percent-decoded), the form of
  // OTEL_EXPORTER_OTLP_HEADERS: typically a collector's API key.
  std::string headers;
  std::chrono::milliseconds timeout{5000};  // a whole request, connection included
};

class OtlpHttpExporter final : public SpanExporter {
 public:
  // INVALID_ARGUMENT naming the field when the url or the headers cannot be used.
  static absl::StatusOr<std::unique_ptr<OtlpHttpExporter>> Create(OtlpHttpOptions options);
  ~OtlpHttpExporter() override;
  OtlpHttpExporter(const OtlpHttpExporter&) = delete;
  OtlpHttpExporter& operator=(const OtlpHttpExporter&) = delete;

  // UNAVAILABLE naming the url when the collector cannot be reached or answers other than 2xx.
  absl::Status Export(const std::vector<SpanData>& spans) override;

 private:
  OtlpHttpExporter(OtlpHttpOptions options, void* curl, void* header_list);

  const OtlpHttpOptions options_;
  void* curl_;         // CURL*, reused so that the connection is kept alive
  void* header_list_;  // curl_slist*
};

// The traces URL of an OTLP/HTTP endpoint: a base URL (OTEL_EXPORTER_OTLP_ENDPOINT's form, e.g.
// http://collector:4318) gets /v1/traces appended; a URL already ending in /v1/traces is kept.
std::string OtlpTracesUrl(const std::string& endpoint);

}  // namespace resched::server::trace

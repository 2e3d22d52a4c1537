#include "server/trace/otlp_http_exporter.h"

#include <curl/curl.h>

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "server/base/curl_global.h"
#include "server/trace/otlp_json.h"

namespace resched::server::trace {
namespace {

// The collector's answer body is read only to leave the connection reusable.
size_t Discard(char*, size_t size, size_t count, void*) { return size * count; }

std::string Unescape(CURL* curl, absl::string_view s) {
  int length = 0;
  char* decoded = curl_easy_unescape(curl, s.data(), static_cast<int>(s.size()), &length);
  if (decoded == nullptr) return std::string(s);
  std::string out(decoded, static_cast<size_t>(length));
  curl_free(decoded);
  return out;
}

}  // namespace

std::string OtlpTracesUrl(const std::string& endpoint) {
  const absl::string_view base = absl::StripSuffix(endpoint, "/");
  if (absl::EndsWith(base, "/v1/traces")) return std::string(base);
  return absl::StrCat(base, "/v1/traces");
}

absl::StatusOr<std::unique_ptr<OtlpHttpExporter>> OtlpHttpExporter::Create(
    OtlpHttpOptions options) {
  if (!absl::StartsWith(options.url, "http://") && !absl::StartsWith(options.url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("otlp_endpoint must be an http:// or https:// URL, got '", options.url, "'"));
  }
  InitCurlOnce();
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("libcurl could not make a handle");
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  for (absl::string_view pair : absl::StrSplit(options.headers, ',', absl::SkipWhitespace())) {
    const std::vector<absl::string_view> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    const absl::string_view key = absl::StripAsciiWhitespace(kv[0]);
    if (kv.size() != 2 || key.empty()) {
      curl_slist_free_all(headers);
      curl_easy_cleanup(curl);
      return absl::InvalidArgumentError(absl::StrCat(
          "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas, got '", pair,
          "'"));
    }
    const std::string line =
        absl::StrCat(key, ": ", Unescape(curl, absl::StripAsciiWhitespace(kv[1])));
    headers = curl_slist_append(headers, line.c_str());
  }
  return std::unique_ptr<OtlpHttpExporter>(new OtlpHttpExporter(std::move(options), curl, headers));
}

OtlpHttpExporter::OtlpHttpExporter(OtlpHttpOptions options, void* curl, void* header_list)
    : options_(std::move(options)), curl_(curl), header_list_(header_list) {
  CURL* handle = static_cast<CURL*>(curl_);
  curl_easy_setopt(handle, CURLOPT_URL, options_.url.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(header_list_));
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout.count()));
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM (threads)
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &Discard);
}

OtlpHttpExporter::~OtlpHttpExporter() {
  curl_slist_free_all(static_cast<curl_slist*>(header_list_));
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

absl::Status OtlpHttpExporter::Export(const std::vector<SpanData>& spans) {
  const std::string body = EncodeOtlpJson(spans, options_.service_name);
  CURL* handle = static_cast<CURL*>(curl_);
  curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  const CURLcode code = curl_easy_perform(handle);
  if (code != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("POST ", options_.url, ": ", curl_easy_strerror(code)));
  }
  long http_status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &http_status);
  if (http_status < 200 || http_status >= 300) {
    return absl::UnavailableError(
        absl::StrCat("POST ", options_.url, ": the collector answered HTTP ", http_status));
  }
  return absl::OkStatus();
}

}  // namespace resched::server::trace

#include "server/store/etcd_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "server/base/curl_global.h"
#include "server/store/etcd_json.h"

namespace resched::server::etcd {
namespace {

using json::Json;

// etcd's answer as JSON; INTERNAL when it is not JSON.
absl::StatusOr<Json> ParseAnswer(const std::string& text, absl::string_view path) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InternalError(
        absl::StrCat("etcd's answer to ", path, " is not a JSON object: ", text.substr(0, 200)));
  }
  return json;
}

// The error in a gateway answer ({"error": ..., "code": N, "message": ...}), if it is one.
std::optional<absl::Status> ErrorOf(const Json& json) {
  const auto code = json.find("code");
  if (code == json.end() || !code->is_number_integer()) return std::nullopt;
  const int value = code->get<int>();
  if (value == 0) return std::nullopt;
  std::string message = json.value("message", std::string());
  if (message.empty()) message = json.value("error", std::string());
  return absl::Status(static_cast<absl::StatusCode>(value), absl::StrCat("etcd: ", message));
}

std::size_t AppendTo(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// The connection never carried the request (it was not made, or TLS refused it): another
// endpoint may be tried.
bool Unreachable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string PrefixStart(absl::string_view prefix) {
  return prefix.empty() ? std::string(1, '\0') : std::string(prefix);
}

std::string PrefixEnd(absl::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key: etcd's "from key on"
}

namespace {

Compare MakeCompare(std::string key, Compare::Target target, std::int64_t number,
                    std::string value = {}) {
  Compare compare;
  compare.key = std::move(key);
  compare.target = target;
  compare.number = number;
  compare.value = std::move(value);
  return compare;
}

Op MakeOp(Op::Kind kind, std::string key, std::string range_end = {}, std::string value = {},
          std::int64_t lease = 0) {
  Op op;
  op.kind = kind;
  op.key = std::move(key);
  op.range_end = std::move(range_end);
  op.value = std::move(value);
  op.lease = lease;
  return op;
}

}  // namespace

Compare Compare::ValueIs(std::string key, std::string value) {
  return MakeCompare(std::move(key), Target::kValue, 0, std::move(value));
}
Compare Compare::LeaseIs(std::string key, std::int64_t lease) {
  return MakeCompare(std::move(key), Target::kLease, lease);
}
Compare Compare::Missing(std::string key) {
  return MakeCompare(std::move(key), Target::kCreateRevision, 0);
}
Compare Compare::ModRevisionIs(std::string key, std::int64_t revision) {
  return MakeCompare(std::move(key), Target::kModRevision, revision);
}

Op Op::Put(std::string key, std::string value, std::int64_t lease) {
  return MakeOp(Kind::kPut, std::move(key), {}, std::move(value), lease);
}
Op Op::Delete(std::string key) { return MakeOp(Kind::kDeleteRange, std::move(key)); }
Op Op::DeletePrefix(absl::string_view prefix) {
  return MakeOp(Kind::kDeleteRange, PrefixStart(prefix), PrefixEnd(prefix));
}
Op Op::DeleteRange(std::string key, std::string range_end) {
  return MakeOp(Kind::kDeleteRange, std::move(key), std::move(range_end));
}
Op Op::Get(std::string key) { return MakeOp(Kind::kRange, std::move(key)); }

absl::StatusOr<std::unique_ptr<Client>> Client::Create(ClientOptions options) {
  if (options.endpoints.empty()) {
    return absl::InvalidArgumentError("etcd endpoints: at least one is needed");
  }
  for (std::string& endpoint : options.endpoints) {
    if (!absl::StartsWith(endpoint, "http://") && !absl::StartsWith(endpoint, "https://")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "etcd endpoints: '", endpoint, "' is not an http:// or https:// URL of a member"));
    }
    while (absl::EndsWith(endpoint, "/")) endpoint.pop_back();
  }
  if (options.request_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("etcd request timeout: must be positive");
  }
  InitCurlOnce();
  auto client = std::unique_ptr<Client>(new Client(std::move(options)));
  if (absl::Status connected = client->ConnectMembers(); !connected.ok()) return connected;
  return client;
}

Client::Client(ClientOptions options) : options_(std::move(options)) {}

Client::~Client() {
  MutexLock lock(&mu_);
  for (void* handle : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void Client::SetPost(void* handle, const std::string& url, void* headers,
                     const std::string& body) const {
  auto* curl = static_cast<CURL*>(handle);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(headers));
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (!options_.cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, options_.cert_file.c_str());
  }
  if (!options_.key_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, options_.key_file.c_str());
}

absl::StatusOr<std::string> Client::AuthHeader(const std::string& endpoint) {
  if (options_.user.empty()) return std::string();
  {
    MutexLock lock(&mu_);
    if (!token_.empty()) return absl::StrCat("Authorization: ", token_);
  }
  bool unreachable = false;
  const Json request = {{"name", options_.user}, {"password", options_.password}};
  // Without the header: PostTo asks for it only for other paths.
  absl::StatusOr<std::string> text =
      PostTo(endpoint, "/v3/auth/authenticate", request.dump(), unreachable);
  if (!text.ok()) return text.status();
  absl::StatusOr<Json> json = ParseAnswer(*text, "/v3/auth/authenticate");
  if (!json.ok()) return json.status();
  const std::string token = json->value("token", std::string());
  if (token.empty()) return absl::UnauthenticatedError("etcd gave no authentication token");
  MutexLock lock(&mu_);
  token_ = token;
  return absl::StrCat("Authorization: ", token_);
}

absl::StatusOr<std::string> Client::PostTo(const std::string& endpoint, const std::string& path,
                                           const std::string& body, bool& unreachable) {
  unreachable = false;
  std::string auth;
  if (path != "/v3/auth/authenticate") {
    absl::StatusOr<std::string> header = AuthHeader(endpoint);
    if (!header.ok()) {
      unreachable = absl::IsUnavailable(header.status());
      return header.status();
    }
    auth = *std::move(header);
  }
  CURL* curl = nullptr;
  {
    MutexLock lock(&mu_);
    if (!idle_handles_.empty()) {
      curl = static_cast<CURL*>(idle_handles_.back());
      idle_handles_.pop_back();
    }
  }
  if (curl == nullptr) curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("libcurl could not make a handle");
  curl_easy_reset(curl);
  const std::string url = endpoint + path;
  std::string answer;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!auth.empty()) headers = curl_slist_append(headers, auth.c_str());
  SetPost(curl, url, headers, body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.request_timeout)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendTo);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  const CURLcode code = curl_easy_perform(curl);
  long http_status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  curl_slist_free_all(headers);
  {
    MutexLock lock(&mu_);
    idle_handles_.push_back(curl);
  }
  if (code != CURLE_OK) {
    unreachable = Unreachable(code);
    return absl::UnavailableError(
        absl::StrCat("etcd at ", endpoint, ": ", curl_easy_strerror(code),
                     unreachable ? "" : " (the request may or may not have been applied)"));
  }
  if (http_status == 200) return answer;
  absl::StatusOr<Json> json = ParseAnswer(answer, path);
  if (json.ok()) {
    if (std::optional<absl::Status> error = ErrorOf(*json)) return *error;
  }
  return absl::UnavailableError(absl::StrCat("etcd at ", endpoint, " answered ", path,
                                             " with HTTP ", http_status, ": ",
                                             answer.substr(0, 200)));
}

absl::StatusOr<std::optional<KeyValue>> Client::Get(const std::string& key) {
  absl::StatusOr<RangeResult> range = Range(key, "", 1);
  if (!range.ok()) return range.status();
  if (range->kvs.empty()) return std::nullopt;
  return std::move(range->kvs.front());
}

absl::StatusOr<RangeResult> Client::GetPrefix(absl::string_view prefix, std::int64_t limit) {
  return Range(PrefixStart(prefix), PrefixEnd(prefix), limit);
}

}  // namespace resched::server::etcd

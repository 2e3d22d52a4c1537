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

using json::Encode;
using json::Flag;
using json::Json;
using json::KeyValueOf;
using json::Number;
using json::RevisionOf;

RangeResult RangeOf(const Json& response) {
  RangeResult range;
  if (const auto kvs = response.find("kvs"); kvs != response.end() && kvs->is_array()) {
    for (const Json& kv : *kvs) range.kvs.push_back(KeyValueOf(kv));
  }
  range.more = Flag(response, "more");
  range.count = Number(response, "count");
  range.revision = RevisionOf(response);
  return range;
}

Json OpJson(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kPut: {
      Json put = {{"key", Encode(op.key)}, {"value", Encode(op.value)}};
      if (op.lease != 0) put["lease"] = std::to_string(op.lease);
      return {{"request_put", put}};
    }
    case Op::Kind::kDeleteRange: {
      Json del = {{"key", Encode(op.key)}};
      if (!op.range_end.empty()) del["range_end"] = Encode(op.range_end);
      return {{"request_delete_range", del}};
    }
    case Op::Kind::kRange: {
      Json range = {{"key", Encode(op.key)}};
      if (!op.range_end.empty()) range["range_end"] = Encode(op.range_end);
      if (op.limit != 0) range["limit"] = std::to_string(op.limit);
      return {{"request_range", range}};
    }
  }
  return {};
}

Json CompareJson(const Compare& compare) {
  static constexpr const char* kResults[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};
  Json json = {{"key", Encode(compare.key)},
               {"result", kResults[static_cast<int>(compare.result)]}};
  switch (compare.target) {
    case Compare::Target::kVersion:
      json["target"] = "VERSION";
      json["version"] = std::to_string(compare.number);
      break;
    case Compare::Target::kCreateRevision:
      json["target"] = "CREATE";
      json["create_revision"] = std::to_string(compare.number);
      break;
    case Compare::Target::kModRevision:
      json["target"] = "MOD";
      json["mod_revision"] = std::to_string(compare.number);
      break;
    case Compare::Target::kValue:
      json["target"] = "VALUE";
      json["value"] = Encode(compare.value);
      break;
    case Compare::Target::kLease:
      json["target"] = "LEASE";
      json["lease"] = std::to_string(compare.number);
      break;
  }
  return json;
}

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
  return std::unique_ptr<Client>(new Client(std::move(options)));
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

absl::StatusOr<std::string> Client::Post(const std::string& path, const std::string& body) {
  std::size_t first = 0;
  {
    MutexLock lock(&mu_);
    first = current_;
  }
  const std::size_t n = options_.endpoints.size();
  std::vector<std::string> failures;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t index = (first + i) % n;
    const std::string& endpoint = options_.endpoints[index];
    bool unreachable = false;
    absl::StatusOr<std::string> answer = PostTo(endpoint, path, body, unreachable);
    if (absl::IsUnauthenticated(answer.status()) && !options_.user.empty()) {
      // The token expired (etcd's simple tokens do after five minutes): once more with a new one.
      {
        MutexLock lock(&mu_);
        token_.clear();
      }
      answer = PostTo(endpoint, path, body, unreachable);
    }
    // A member that answered without a leader, or timed out, is left for the next request;
    // one that could not be reached is passed over for this one.
    if (!answer.ok() && absl::IsUnavailable(answer.status())) {
      MutexLock lock(&mu_);
      if (current_ == index) current_ = (index + 1) % n;
    }
    if (!unreachable) return answer;
    failures.push_back(std::string(answer.status().message()));
  }
  return absl::UnavailableError(
      absl::StrCat("no etcd endpoint could be reached: ", absl::StrJoin(failures, "; ")));
}

absl::StatusOr<Json> Client::PostJson(const std::string& path, const std::string& body) {
  absl::StatusOr<std::string> text = Post(path, body);
  if (!text.ok()) return text.status();
  return ParseAnswer(*text, path);
}

absl::StatusOr<std::optional<KeyValue>> Client::Get(const std::string& key) {
  absl::StatusOr<RangeResult> range = Range(key, "", 1);
  if (!range.ok()) return range.status();
  if (range->kvs.empty()) return std::nullopt;
  return std::move(range->kvs.front());
}

absl::StatusOr<RangeResult> Client::Range(const std::string& key, const std::string& range_end,
                                          std::int64_t limit, std::int64_t revision) {
  Json request = {{"key", Encode(key)}};
  if (!range_end.empty()) request["range_end"] = Encode(range_end);
  if (limit != 0) request["limit"] = std::to_string(limit);
  if (revision != 0) request["revision"] = std::to_string(revision);
  absl::StatusOr<Json> json = PostJson("/v3/kv/range", request.dump());
  if (!json.ok()) return json.status();
  return RangeOf(*json);
}

absl::StatusOr<RangeResult> Client::GetPrefix(absl::string_view prefix, std::int64_t limit) {
  return Range(PrefixStart(prefix), PrefixEnd(prefix), limit);
}

absl::StatusOr<std::int64_t> Client::Put(const std::string& key, const std::string& value,
                                         std::int64_t lease) {
  Json request = {{"key", Encode(key)}, {"value", Encode(value)}};
  if (lease != 0) request["lease"] = std::to_string(lease);
  absl::StatusOr<Json> json = PostJson("/v3/kv/put", request.dump());
  if (!json.ok()) return json.status();
  return RevisionOf(*json);
}

absl::StatusOr<std::int64_t> Client::DeletePrefix(absl::string_view prefix) {
  const Json request = {{"key", Encode(PrefixStart(prefix))},
                        {"range_end", Encode(PrefixEnd(prefix))}};
  absl::StatusOr<Json> json = PostJson("/v3/kv/deleterange", request.dump());
  if (!json.ok()) return json.status();
  return Number(*json, "deleted");
}

absl::StatusOr<TxnResult> Client::Txn(const std::vector<Compare>& compares,
                                      const std::vector<Op>& success,
                                      const std::vector<Op>& failure) {
  Json request = {
      {"compare", Json::array()}, {"success", Json::array()}, {"failure", Json::array()}};
  for (const Compare& compare : compares) request["compare"].push_back(CompareJson(compare));
  for (const Op& op : success) request["success"].push_back(OpJson(op));
  for (const Op& op : failure) request["failure"].push_back(OpJson(op));
  absl::StatusOr<Json> json = PostJson("/v3/kv/txn", request.dump());
  if (!json.ok()) return json.status();
  TxnResult result;
  result.succeeded = Flag(*json, "succeeded");
  result.revision = RevisionOf(*json);
  if (const auto responses = json->find("responses");
      responses != json->end() && responses->is_array()) {
    for (const Json& response : *responses) {
      const auto range = response.find("response_range");
      result.ranges.push_back(range == response.end() ? RangeResult() : RangeOf(*range));
    }
  }
  return result;
}

absl::StatusOr<Lease> Client::GrantLease(absl::Duration ttl) {
  const std::int64_t seconds =
      std::max<std::int64_t>(1, absl::ToInt64Seconds(absl::Ceil(ttl, absl::Seconds(1))));
  const Json request = {{"TTL", std::to_string(seconds)}};
  absl::StatusOr<Json> json = PostJson("/v3/lease/grant", request.dump());
  if (!json.ok()) return json.status();
  Lease lease{.id = Number(*json, "ID"), .ttl_seconds = Number(*json, "TTL")};
  if (lease.id == 0) {
    return absl::InternalError(absl::StrCat("etcd granted no lease: ", json->dump()));
  }
  return lease;
}

absl::StatusOr<std::int64_t> Client::KeepAlive(std::int64_t lease) {
  const Json request = {{"ID", std::to_string(lease)}};
  // A stream of one answer: {"result": {...}} or {"error": {...}}.
  absl::StatusOr<Json> json = PostJson("/v3/lease/keepalive", request.dump());
  if (!json.ok()) return json.status();
  if (const auto error = json->find("error"); error != json->end() && error->is_object()) {
    if (std::optional<absl::Status> status = ErrorOf(*error)) return *status;
  }
  const auto result = json->find("result");
  const std::int64_t ttl = result == json->end() ? 0 : Number(*result, "TTL");
  if (ttl <= 0) {
    return absl::NotFoundError(absl::StrCat("etcd lease ", lease, " has expired"));
  }
  return ttl;
}

absl::Status Client::RevokeLease(std::int64_t lease) {
  const Json request = {{"ID", std::to_string(lease)}};
  return Post("/v3/lease/revoke", request.dump()).status();
}

absl::Status Client::Compact(std::int64_t revision) {
  const Json request = {{"revision", std::to_string(revision)}};
  return Post("/v3/kv/compaction", request.dump()).status();
}

absl::StatusOr<std::int64_t> Client::DatabaseSize() {
  absl::StatusOr<Json> json = PostJson("/v3/maintenance/status", "{}");
  if (!json.ok()) return json.status();
  return Number(*json, "dbSize");
}

}  // namespace resched::server::etcd

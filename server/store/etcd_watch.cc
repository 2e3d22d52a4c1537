// Client::StartWatch (server/store/etcd_client.h): etcd's watch through the JSON gateway is one
// long POST whose answer is a stream of JSON messages, one per line. It runs on libcurl's multi
// interface so that the watch's destruction wakes it at once (curl_multi_wakeup).
#include <curl/curl.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/store/etcd_client.h"
#include "server/store/etcd_json.h"

namespace resched::server::etcd {
namespace {

using json::Json;
using json::KeyValueOf;
using json::Number;
using json::RevisionOf;

// Splits the streamed answer into lines for `on_line`; a false from it ends the transfer.
struct LineSplitter {
  std::string pending;
  const std::function<bool(absl::string_view)>* on_line = nullptr;
  bool stopped = false;
};

std::size_t SplitLines(char* data, std::size_t size, std::size_t count, void* user) {
  auto* splitter = static_cast<LineSplitter*>(user);
  splitter->pending.append(data, size * count);
  std::size_t start = 0;
  for (std::size_t end = splitter->pending.find('\n'); end != std::string::npos;
       end = splitter->pending.find('\n', start)) {
    const absl::string_view line(splitter->pending.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \r\t") == absl::string_view::npos) continue;
    if (!(*splitter->on_line)(line)) {
      splitter->stopped = true;
      return 0;  // libcurl ends the transfer
    }
  }
  splitter->pending.erase(0, start);
  return size * count;
}

}  // namespace

Watch::~Watch() {
  stopping_ = true;
  if (multi_ != nullptr) curl_multi_wakeup(static_cast<CURLM*>(multi_));
  if (thread_.joinable()) thread_.join();
  if (multi_ != nullptr) curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

std::unique_ptr<Watch> Client::StartWatch(std::string key, std::string range_end,
                                          std::int64_t start_revision,
                                          std::function<void(WatchBatch)> deliver,
                                          absl::Duration give_up_after) {
  std::unique_ptr<Watch> watch(new Watch());
  watch->multi_ = curl_multi_init();
  Watch* raw = watch.get();
  watch->thread_ = std::thread([this, raw, key = std::move(key), range_end = std::move(range_end),
                                start_revision, deliver = std::move(deliver), give_up_after] {
    WatchLoop(*raw, key, range_end, start_revision, deliver, give_up_after);
  });
  return watch;
}

absl::Status Client::Stream(Watch& watch, const std::string& endpoint, const std::string& path,
                            const std::string& body,
                            const std::function<bool(absl::string_view)>& on_line) {
  absl::StatusOr<std::string> auth = AuthHeader(endpoint);
  if (!auth.ok()) return auth.status();
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("libcurl could not make a handle");
  const std::string url = endpoint + path;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!auth->empty()) headers = curl_slist_append(headers, auth->c_str());
  LineSplitter splitter;
  splitter.on_line = &on_line;
  SetPost(curl, url, headers, body);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.request_timeout)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, SplitLines);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &splitter);
  auto* multi = static_cast<CURLM*>(watch.multi_);
  curl_multi_add_handle(multi, curl);
  int running = 1;
  while (running > 0 && !watch.stopping_) {
    if (curl_multi_perform(multi, &running) != CURLM_OK) break;
    if (running > 0) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  CURLcode code = CURLE_OK;
  int left = 0;
  while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
    if (message->msg == CURLMSG_DONE) code = message->data.result;
  }
  long http_status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  curl_multi_remove_handle(multi, curl);
  curl_easy_cleanup(curl);
  curl_slist_free_all(headers);
  if (watch.stopping_ || splitter.stopped) return absl::OkStatus();
  if (code != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("etcd watch at ", endpoint, ": ", curl_easy_strerror(code)));
  }
  return absl::UnavailableError(
      absl::StrCat("etcd watch at ", endpoint, " ended its stream (HTTP ", http_status, ")"));
}

void Client::WatchLoop(Watch& watch, const std::string& key, const std::string& range_end,
                       std::int64_t start_revision, const std::function<void(WatchBatch)>& deliver,
                       absl::Duration give_up_after) {
  // The first revision not delivered yet; 0 until etcd says where "now" is.
  std::int64_t next = start_revision;
  std::size_t endpoint = 0;
  {
    MutexLock lock(&mu_);
    endpoint = current_;
  }
  absl::Time give_up = absl::Now() + give_up_after;
  absl::Status last_failure;
  while (!watch.stopping_) {
    Json create = {{"key", json::Encode(key)}};
    if (!range_end.empty()) create["range_end"] = json::Encode(range_end);
    if (next != 0) create["start_revision"] = std::to_string(next);
    const Json request = {{"create_request", create}};
    absl::Status ended;
    absl::Status failed;
    const absl::Status stream = Stream(
        watch, options_.endpoints[endpoint], "/v3/watch", request.dump(),
        [&](absl::string_view line) {
          const Json message = Json::parse(line, nullptr, /*allow_exceptions=*/false);
          if (message.is_discarded() || !message.is_object()) {
            ended = absl::InternalError(
                absl::StrCat("etcd watch: a message that is not JSON: ", line.substr(0, 200)));
            return false;
          }
          // A stream's error is {"error": {"code": N, ...}}; a refused request's, the message
          // itself with its "code".
          if (message.contains("error") || message.contains("code")) {
            const Json& error = message.contains("error") && message["error"].is_object()
                                    ? message["error"]
                                    : message;
            const std::int64_t code = Number(error, "code");
            const absl::Status status(static_cast<absl::StatusCode>(code == 0 ? 2 : code),
                                      absl::StrCat("etcd watch at ", options_.endpoints[endpoint],
                                                   ": ", error.value("message", error.dump())));
            // A member without a leader, or going away: another may answer.
            (absl::IsUnavailable(status) ? failed : ended) = status;
            return false;
          }
          const auto result = message.find("result");
          if (result == message.end()) return true;
          const std::int64_t revision = RevisionOf(*result);
          if (const std::int64_t compacted = Number(*result, "compact_revision"); compacted > 0) {
            ended = absl::OutOfRangeError(absl::StrCat("etcd compacted its history up to revision ",
                                                       compacted, "; the watch needed revision ",
                                                       next, " on"));
            return false;
          }
          if (result->value("canceled", false)) {
            ended = absl::CancelledError(
                absl::StrCat("etcd cancelled the watch: ", result->value("cancel_reason", "")));
            return false;
          }
          give_up = absl::Now() + give_up_after;  // this endpoint answers
          if (next == 0) next = revision + 1;
          const auto events = result->find("events");
          if (events == result->end() || !events->is_array() || events->empty()) return true;
          WatchBatch batch;
          batch.revision = revision;
          for (const Json& event : *events) {
            WatchEvent out;
            out.type = event.value("type", "PUT") == "DELETE" ? WatchEvent::Type::kDelete
                                                              : WatchEvent::Type::kPut;
            out.kv = KeyValueOf(event.value("kv", Json::object()));
            next = std::max(next, out.kv.mod_revision + 1);
            batch.events.push_back(std::move(out));
          }
          deliver(std::move(batch));
          return !watch.stopping_;
        });
    if (watch.stopping_) return;
    last_failure = failed.ok() ? stream : failed;
    if (ended.ok() && absl::Now() >= give_up) {
      ended = absl::UnavailableError(absl::StrCat("etcd watch: no endpoint answered for ",
                                                  absl::FormatDuration(give_up_after),
                                                  "; last: ", last_failure.message()));
    }
    if (!ended.ok()) {
      WatchBatch end;
      end.ended = ended;
      deliver(std::move(end));
      return;
    }
    // On to the next member, after a pause that the watch's end cuts short.
    endpoint = (endpoint + 1) % options_.endpoints.size();
    curl_multi_poll(static_cast<CURLM*>(watch.multi_), nullptr, 0, 100, nullptr);
  }
}

}  // namespace resched::server::etcd

#include "bridge/slurm/rest_client.h"

#include <curl/curl.h>

#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace resched::bridge::slurm {
namespace {

std::size_t AppendTo(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RestClient>> RestClient::Open(RestEndpoint endpoint) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::string base_url, socket_path;
  if (absl::StartsWith(endpoint.address, "unix:")) {
    socket_path = endpoint.address.substr(5);
    base_url = "http://slurmrestd";  // the host is not used over a socket
  } else if (absl::StartsWith(endpoint.address, "http://") ||
             absl::StartsWith(endpoint.address, "https://")) {
    base_url = endpoint.address;
    while (absl::EndsWith(base_url, "/")) base_url.pop_back();
  }
  if (base_url.empty() || (socket_path.empty() && absl::StartsWith(endpoint.address, "unix:"))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--slurmrestd must be unix:/path/to/socket or http://host:port, got '",
                     endpoint.address, "'"));
  }
  return std::unique_ptr<RestClient>(
      new RestClient(std::move(endpoint), std::move(base_url), std::move(socket_path)));
}

RestClient::RestClient(RestEndpoint endpoint, std::string base_url, std::string socket_path)
    : endpoint_(std::move(endpoint)),
      base_url_(std::move(base_url)),
      socket_path_(std::move(socket_path)),
      curl_(curl_easy_init()) {}

RestClient::~RestClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

absl::StatusOr<std::string> RestClient::Get(absl::string_view path) {
  CURL* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return absl::InternalError("libcurl could not make a handle");
  curl_easy_reset(curl);
  const std::string url = absl::StrCat(base_url_, path);
  std::string body;
  curl_slist* headers = nullptr;
  if (!endpoint_.token.empty()) {
    headers =
        curl_slist_append(headers, absl::StrCat("X-SLURM-USER-NAME: ", endpoint_.user).c_str());
    headers =
        curl_slist_append(headers, absl::StrCat("X-SLURM-USER-TOKEN: ", endpoint_.token).c_str());
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (!socket_path_.empty()) curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socket_path_.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(endpoint_.timeout)));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendTo);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  const CURLcode code = curl_easy_perform(curl);
  long http_status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("slurmrestd at ", endpoint_.address, ": ", curl_easy_strerror(code)));
  }
  if (http_status != 200) {
    return absl::UnavailableError(absl::StrCat("slurmrestd answered GET ", path, " with HTTP ",
                                               http_status, ": ", body.substr(0, 300)));
  }
  return body;
}

}  // namespace resched::bridge::slurm

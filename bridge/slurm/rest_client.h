// GET requests to slurmrestd, over its Unix socket (rest_auth/local: Slurm authenticates the
// bridge's process by its user id) or over TCP with a JSON Web Token (rest_auth/jwt).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace resched::bridge::slurm {

struct RestEndpoint {
  // "unix:/path/to/socket" or "http://host:port".
  std::string address;
  std::string user;   // X-SLURM-USER-NAME with a token
  std::string token;  // X-SLURM-USER-TOKEN; empty: none (a Unix socket needs none)
  absl::Duration timeout = absl::Seconds(10);
};

class RestClient {
 public:
  // INVALID_ARGUMENT naming --slurmrestd when the address has neither form.
  static absl::StatusOr<std::unique_ptr<RestClient>> Open(RestEndpoint endpoint);
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  // The body of a 200 answer; UNAVAILABLE with the reason otherwise.
  absl::StatusOr<std::string> Get(absl::string_view path);

 private:
  RestClient(RestEndpoint endpoint, std::string base_url, std::string socket_path);

  RestEndpoint endpoint_;
  std::string base_url_;
  std::string socket_path_;
  void* curl_ = nullptr;  // one kept-alive handle: the bridge reads from one thread
};

}  // namespace resched::bridge::slurm

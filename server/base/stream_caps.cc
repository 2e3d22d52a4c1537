#include "server/base/stream_caps.h"

#include "absl/strings/str_cat.h"

namespace resched::server {

StreamCaps::StreamCaps(std::string what, int total, int per_client, std::string total_hint,
                       std::string per_client_hint)
    : what_(std::move(what)),
      total_(total),
      per_client_(per_client),
      total_hint_(std::move(total_hint)),
      per_client_hint_(std::move(per_client_hint)) {}

absl::Status StreamCaps::Acquire(const std::string& client) {
  MutexLock lock(&mu_);
  if (open_ >= total_) {
    return absl::ResourceExhaustedError(
        absl::StrCat(total_, " ", what_, " are open, the limit; ", total_hint_));
  }
  int& mine = per_client_open_[client];
  if (mine >= per_client_) {
    if (mine == 0) per_client_open_.erase(client);
    return absl::ResourceExhaustedError(absl::StrCat(per_client_, " ", what_,
                                                     " are open for one client, the limit per "
                                                     "client; ",
                                                     per_client_hint_));
  }
  ++mine;
  ++open_;
  return absl::OkStatus();
}

void StreamCaps::Release(const std::string& client) {
  MutexLock lock(&mu_);
  auto it = per_client_open_.find(client);
  if (it == per_client_open_.end()) return;
  if (--it->second == 0) per_client_open_.erase(it);
  --open_;
}

int StreamCaps::open() const {
  MutexLock lock(&mu_);
  return open_;
}

}  // namespace resched::server

#include "server/auth/denied_lines.h"

#include <algorithm>

namespace resched::server::auth {
namespace {

constexpr char kUntracked[] = "(untracked peers)";

}  // namespace

absl::string_view DeniedLineLimiter::AddressOf(absl::string_view peer) {
  // A scheme-less or port-less peer ("inproc", "unix:/path") is its own address.
  const std::size_t colon = peer.rfind(':');
  const std::size_t scheme = peer.find(':');
  if (colon == absl::string_view::npos || colon == scheme) return peer;
  return peer.substr(0, colon);
}

void DeniedLineLimiter::ForgetFullBucketsLocked(absl::Time now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const double refilled =
        it->second.lines + absl::ToDoubleSeconds(now - it->second.refilled) * kDeniedLinesPerSecond;
    if (refilled >= kDeniedLineBurst && it->second.suppressed == 0) {
      it = buckets_.erase(it);
    } else {
      ++it;
    }
  }
}

bool DeniedLineLimiter::Admit(absl::string_view peer, absl::Time now, std::int64_t* suppressed) {
  absl::string_view address = AddressOf(peer);
  MutexLock lock(&mu_);
  auto it = buckets_.find(address);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxDeniedPeers && now - last_sweep_ >= absl::Seconds(1)) {
      last_sweep_ = now;
      ForgetFullBucketsLocked(now);
    }
    if (buckets_.size() >= kMaxDeniedPeers) address = kUntracked;
    it = buckets_.try_emplace(std::string(address), Bucket{kDeniedLineBurst, now, 0}).first;
  }
  Bucket& bucket = it->second;
  bucket.lines =
      std::min(kDeniedLineBurst,
               bucket.lines + absl::ToDoubleSeconds(now - bucket.refilled) * kDeniedLinesPerSecond);
  bucket.refilled = now;
  if (bucket.lines < 1) {
    ++bucket.suppressed;
    return false;
  }
  bucket.lines -= 1;
  *suppressed = bucket.suppressed;
  bucket.suppressed = 0;
  return true;
}

}  // namespace resched::server::auth

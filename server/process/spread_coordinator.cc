#include "server/process/spread_coordinator.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "server/app/cluster_placement.h"
#include "server/base/log.h"
#include "server/base/status_details.h"

namespace resched::server {
namespace {

// About the time a cluster takes to move: a poll, then its adoption.
constexpr absl::Duration kMoveRetry = absl::Milliseconds(200);
// Between two tries to adopt a cluster that could not be read, or to copy one.
constexpr absl::Duration kAdoptBackoff = absl::Seconds(2);
// How long a poll goes on catching copies up (each catch-up that starts finishes): a takeover
// waits for the poll in progress.
constexpr absl::Duration kFollowBudget = absl::Milliseconds(50);

CallRoute Refuse(const std::string& why) {
  return CallRoute{.kind = CallRoute::Kind::kRefuse,
                   .replica = {},
                   .address = {},
                   .refusal = WithRetryDelay(absl::UnavailableError(why), kMoveRetry)};
}

std::vector<std::string> Replicas(const EtcdDirectory& directory) {
  std::vector<std::string> replicas;
  replicas.reserve(directory.members.size());
  for (const auto& [replica, address] : directory.members) replicas.push_back(replica);
  return replicas;
}

}  // namespace

SpreadCoordinator::SpreadCoordinator(EtcdJournalStore& store, Application& app, absl::Duration poll)
    : store_(store), app_(app), poll_(poll) {}

SpreadCoordinator::~SpreadCoordinator() { Stop(); }

void SpreadCoordinator::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void SpreadCoordinator::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SpreadCoordinator::Lost(const std::vector<std::string>& clusters) {
  {
    MutexLock lock(&mu_);
    lost_.insert(clusters.begin(), clusters.end());
  }
  wake_.notify_all();
}

void SpreadCoordinator::Loop() {
  while (true) {
    Poll();
    Follow();
    MutexLock lock(&mu_);
    if (!stopping_ && lost_.empty()) mu_.WaitFor(wake_, absl::ToChronoMilliseconds(poll_));
    if (stopping_) return;
  }
}

void SpreadCoordinator::Poll() {
  const std::string& self = store_.replica_id();
  std::set<std::string> lost;
  {
    MutexLock lock(&mu_);
    lost.swap(lost_);
  }
  for (const std::string& cluster : lost) {
    (void)app_.RetireCluster(
        cluster,
        WithRetryDelay(absl::UnavailableError(absl::StrCat(
                           "replica ", self, " lost cluster '", cluster,
                           "' (its lease expired): another replica serves it now; retry")),
                       kMoveRetry),
        /*lost=*/true);
  }
  // What this replica owns, before the directory, which then lists every cluster it claimed.
  const std::set<std::string> owned = store_.owned();
  {
    // A key lost with the lease needs no release.
    MutexLock lock(&mu_);
    std::erase_if(unreleased_, [&owned](const std::string& c) { return !owned.contains(c); });
  }
  absl::StatusOr<EtcdDirectory> directory = store_.ReadDirectory();
  if (!directory.ok()) return;  // etcd unreachable: the next poll tries again
  {
    MutexLock lock(&mu_);
    directory_ = *directory;
    directory_read_ = true;
  }
  // Without its own member key (its lease just expired) a replica neither adopts nor hands over.
  if (!directory->members.contains(self)) return;
  const std::vector<std::string> replicas = Replicas(*directory);
  const absl::Time now = absl::Now();
  // Before the first copies are read: every record written from then on marks its cluster.
  if (records_watch_ == nullptr) WatchRecords();
  for (const std::string& cluster : directory->clusters) {
    const std::string placed = PlacementOf(cluster, replicas);
    const auto owner = directory->owners.find(cluster);
    const bool ours = owner != directory->owners.end() && owner->second == self;
    if (placed == self && (owner == directory->owners.end() || (ours && !app_.Serves(cluster)))) {
      {
        MutexLock lock(&mu_);
        const auto wait = retry_after_.find(cluster);
        if (wait != retry_after_.end() && now < wait->second) continue;
      }
      absl::Status adopted = ours ? absl::OkStatus() : store_.Acquire(cluster, /*create=*/false);
      if (adopted.ok()) adopted = app_.AdoptCluster(cluster);
      if (adopted.ok()) {
        Log(LogLevel::kInfo, "cluster_adopted",
            absl::StrCat(self, " serves cluster '", cluster, "'"), {{"cluster", cluster}});
        MutexLock lock(&mu_);
        retry_after_.erase(cluster);
        unreleased_.erase(cluster);  // placed back here before its release
        continue;
      }
      if (absl::IsFailedPrecondition(adopted)) continue;  // another took it first
      if (absl::IsNotFound(adopted)) {
        // Deleted, its directory entry left behind (the deletion's cleanup failed): gone now.
        (void)store_.Forget(cluster);
        continue;
      }
      Log(LogLevel::kError, "cluster_adoption_failed",
          absl::StrCat(self, " cannot serve cluster '", cluster, "': ", adopted.message()),
          {{"cluster", cluster}});
      (void)store_.Release(cluster);
      MutexLock lock(&mu_);
      retry_after_[cluster] = now + kAdoptBackoff;
    } else if (ours && placed != self && owned.contains(cluster)) {
      HandOver(cluster, placed);
    }
  }
}

void SpreadCoordinator::HandOver(const std::string& cluster, const std::string& placed) {
  const std::string& self = store_.replica_id();
  if (app_.Serves(cluster)) {
    // Its last record's outcome first (durable, or failed for good: nothing of it is left to
    // write), then its key, which the other replica takes.
    const absl::Status why =
        WithRetryDelay(absl::UnavailableError(absl::StrCat(
                           "cluster '", cluster, "' moves to replica ", placed, "; retry")),
                       kMoveRetry);
    if (absl::Status retired = app_.RetireCluster(cluster, why, /*lost=*/false); !retired.ok()) {
      // Its callers were told; a record etcd took after all is fenced by the key, or read by
      // the next owner.
      Log(LogLevel::kWarning, "cluster_handover_unsettled",
          absl::StrCat("cluster '", cluster,
                       "' handed over with its last records failed: ", retired.message()),
          {{"cluster", cluster}});
    }
    MutexLock lock(&mu_);
    unreleased_.insert(cluster);
  } else {
    // Not retired here (a creation under way owns its key before the cluster is served): only
    // a key a retirement left is released.
    MutexLock lock(&mu_);
    if (!unreleased_.contains(cluster)) return;
  }
  // Until the key is released, no replica serves the cluster: a release that fails is tried again
  // at the next poll.
  if (absl::Status released = store_.Release(cluster); !released.ok()) {
    Log(LogLevel::kWarning, "cluster_release_failed",
        absl::StrCat(self, " could not give cluster '", cluster, "' up yet: ", released.message()),
        {{"cluster", cluster}});
    return;
  }
  {
    MutexLock lock(&mu_);
    unreleased_.erase(cluster);
  }
  Log(LogLevel::kInfo, "cluster_handed_over",
      absl::StrCat(self, " handed cluster '", cluster, "' over to ", placed),
      {{"cluster", cluster}, {"to", placed}});
}

void SpreadCoordinator::WatchRecords() {
  records_watch_ = store_.WatchRecords([this](const std::string& cluster) {
    MutexLock lock(&mu_);
    if (cluster.empty()) {
      watch_ended_ = true;
    } else {
      stale_.insert(cluster);
    }
  });
}

void SpreadCoordinator::Follow() {
  std::set<std::string> stale;
  EtcdDirectory directory;
  bool restart_watch = false;
  {
    MutexLock lock(&mu_);
    stale.swap(stale_);
    directory = directory_;
    restart_watch = watch_ended_;
    watch_ended_ = false;
  }
  if (records_watch_ == nullptr) return;  // no directory read yet
  if (restart_watch) {
    // Records may have been written unseen: every copy catches up once the new watch runs.
    records_watch_.reset();
    WatchRecords();
    stale.insert(directory.clusters.begin(), directory.clusters.end());
  }
  const absl::Time now = absl::Now();
  const absl::Time until = now + kFollowBudget;
  std::set<std::string> followed;
  std::set<std::string> later;
  for (const std::string& cluster : directory.clusters) {
    if (app_.Serves(cluster)) continue;
    followed.insert(cluster);
    if (!stale.contains(cluster) && app_.HasCopy(cluster)) continue;
    {
      MutexLock lock(&mu_);
      const auto wait = follow_after_.find(cluster);
      if (wait != follow_after_.end() && now < wait->second) {
        later.insert(cluster);
        continue;
      }
    }
    if (absl::Now() >= until) {
      later.insert(cluster);
      continue;
    }
    const absl::Status copied = app_.FollowCluster(cluster);
    MutexLock lock(&mu_);
    if (copied.ok() || absl::IsNotFound(copied)) {
      follow_after_.erase(cluster);
    } else {
      follow_after_[cluster] = absl::Now() + kAdoptBackoff;
      later.insert(cluster);
    }
  }
  app_.DropCopiesExcept(followed);
  MutexLock lock(&mu_);
  stale_.insert(later.begin(), later.end());
}

CallRoute SpreadCoordinator::Route(absl::string_view cluster) const {
  const std::string name(cluster);
  if (!name.empty() && app_.Serves(name)) return CallRoute{};
  const std::string& self = store_.replica_id();
  MutexLock lock(&mu_);
  // Before the first directory read, a cluster another replica serves would look like none at
  // all (NOT_FOUND), and ListClusters would leave out the other replicas' clusters.
  if (!directory_read_) {
    return Refuse(absl::StrCat("replica ", self,
                               " has not yet read which replica serves which cluster; retry"));
  }
  if (name.empty()) return CallRoute{};
  const auto owner = directory_.owners.find(name);
  if (owner != directory_.owners.end()) {
    if (owner->second == self) {
      return Refuse(absl::StrCat("replica ", self, " is loading cluster '", name, "'; retry"));
    }
    const auto member = directory_.members.find(owner->second);
    if (member == directory_.members.end()) {
      return Refuse(absl::StrCat("replica ", owner->second, " serves cluster '", name,
                                 "' but has not said where; retry"));
    }
    return CallRoute{.kind = CallRoute::Kind::kForward,
                     .replica = owner->second,
                     .address = member->second,
                     .refusal = {}};
  }
  if (directory_.clusters.contains(name)) {
    return Refuse(absl::StrCat("no replica serves cluster '", name,
                               "' now (a takeover is under way); retry"));
  }
  // A cluster that does not exist: where it would be created, which answers for it.
  const std::string placed = PlacementOf(name, Replicas(directory_));
  if (placed.empty() || placed == self) return CallRoute{};
  const auto member = directory_.members.find(placed);
  return CallRoute{.kind = CallRoute::Kind::kForward,
                   .replica = placed,
                   .address = member->second,
                   .refusal = {}};
}

std::vector<std::pair<std::string, std::string>> SpreadCoordinator::Peers() const {
  std::vector<std::pair<std::string, std::string>> peers;
  MutexLock lock(&mu_);
  for (const auto& [replica, address] : directory_.members) {
    if (replica != store_.replica_id()) peers.emplace_back(replica, address);
  }
  return peers;
}

}  // namespace resched::server

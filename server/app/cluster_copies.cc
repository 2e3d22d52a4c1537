// Warm copies of the clusters other replicas serve (docs/ha.md): each replica reads every other
// cluster once and then applies the records its owner commits, so that a takeover applies only
// the records written since the copy's last catch-up instead of the cluster's snapshot and all
// its later records. A copy is never served: it has no journal attached, and AdoptCluster takes
// it only once this replica holds the cluster's owner key, when no one else can write to it.
#include "absl/strings/str_cat.h"
#include "server/app/application.h"
#include "server/base/log.h"

namespace resched::server {

absl::Status Application::CatchUp(const std::string& name, ClusterCopy& copy,
                                  std::int64_t* applied) {
  *applied = 0;
  if (copy.state != nullptr) {
    bool broken = false;  // a record did not apply: the copy is half-changed
    absl::Status read = journal_->ScanAfter(
        [&](const StoredRecord& stored) {
          if (absl::Status s = ApplyToCopy(copy.state, stored, name); !s.ok()) {
            broken = !absl::IsNotFound(s);
            return s;
          }
          copy.last_lsn = stored.lsn;
          ++*applied;
          return absl::OkStatus();
        },
        name, copy.last_lsn);
    if (read.ok()) return read;
    if (absl::IsNotFound(read) && !broken) {
      copy = {};
      return read;  // deleted
    }
    if (!broken && !absl::IsOutOfRange(read) && !absl::IsDataLoss(read)) {
      return read;  // etcd unreachable: the copy stays as it is, for the next try
    }
    // Gone into a snapshot unseen, or a record that does not apply: read whole below.
    if (!absl::IsOutOfRange(read)) {
      Log(LogLevel::kWarning, "cluster_copy_reread",
          absl::StrCat("the copy of cluster '", name, "' is read again whole: ", read.message()),
          {{"cluster", name}});
    }
    copy = {};
  }
  *applied = -1;
  absl::StatusOr<std::shared_ptr<ClusterState>> state = RebuildCluster(name, &copy.last_lsn);
  if (!state.ok()) {
    copy = {};
    return state.status();
  }
  copy.state = *std::move(state);
  return absl::OkStatus();
}

absl::Status Application::FollowCluster(const std::string& name) {
  ClusterCopy copy = TakeCopy(name);
  if (Serves(name)) return absl::OkStatus();
  std::int64_t applied = 0;
  absl::Status caught = CatchUp(name, copy, &applied);
  KeepCopy(name, std::move(copy));
  return caught;
}

void Application::KeepCopy(const std::string& name, ClusterCopy copy) {
  if (copy.state == nullptr) return;
  MutexLock lock(&copies_mu_);
  copies_[name] = std::move(copy);
}

Application::ClusterCopy Application::TakeCopy(const std::string& name) {
  MutexLock lock(&copies_mu_);
  const auto found = copies_.find(name);
  if (found == copies_.end()) return {};
  ClusterCopy copy = std::move(found->second);
  copies_.erase(found);
  return copy;
}

void Application::DropCopiesExcept(const std::set<std::string>& keep) {
  MutexLock lock(&copies_mu_);
  std::erase_if(copies_, [&keep](const auto& copy) { return !keep.contains(copy.first); });
}

bool Application::HasCopy(const std::string& name) {
  MutexLock lock(&copies_mu_);
  return copies_.contains(name);
}

}  // namespace resched::server

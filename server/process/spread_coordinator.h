// Clusters spread over the replicas that share a journal in etcd (docs/ha.md). Every poll, the
// coordinator reads who is alive, who serves what and which clusters exist
// (EtcdJournalStore::ReadDirectory), adopts the clusters placed on this replica
// (server/app/cluster_placement.h) that no one serves, and hands over those placed on another
// live replica: it retires them (calls in progress finish, their records become durable) and
// gives their owner keys back, and the other replica takes them at its next poll. Clusters whose
// owner keys this replica lost (its lease expired) are retired at once. Between polls it keeps a
// warm copy of every cluster another replica serves, following the records etcd's watch says
// were written (Application::FollowCluster), so that a takeover applies only the latest. It also
// routes each call to the replica that serves its cluster (server/app/call_route.h).
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "server/app/application.h"
#include "server/app/call_route.h"
#include "server/base/mutex.h"
#include "server/store/etcd_journal_store.h"

namespace resched::server {

class SpreadCoordinator final : public CallRouter {
 public:
  // `store` and `app` outlive the coordinator.
  SpreadCoordinator(EtcdJournalStore& store, Application& app,
                    absl::Duration poll = absl::Milliseconds(100));
  // Stops polling.
  ~SpreadCoordinator() override;
  SpreadCoordinator(const SpreadCoordinator&) = delete;
  SpreadCoordinator& operator=(const SpreadCoordinator&) = delete;

  // Starts polling, on a thread of its own.
  void Start();
  // Stops polling (before the server shuts down).
  void Stop();
  // The store lost these clusters' owner keys (EtcdStoreOptions::on_clusters_lost): they are
  // retired at the next poll, from the coordinator's thread (the store's thread may be the
  // journal's, which a retirement waits on).
  void Lost(const std::vector<std::string>& clusters);

  CallRoute Route(absl::string_view cluster) const override;
  const std::string& replica_id() const override { return store_.replica_id(); }
  // The other live replicas and where they serve, for the calls every replica answers a part of
  // (ListClusters).
  std::vector<std::pair<std::string, std::string>> Peers() const override;

 private:
  void Loop();
  void Poll();
  // Retires `cluster`, served here and placed on `placed`, and gives its owner key up; or gives
  // up the key of one retired earlier whose release failed.
  void HandOver(const std::string& cluster, const std::string& placed);
  // Catches up the copies of the clusters other replicas serve that records were written to,
  // and copies those without one, for about kFollowBudget (Application::FollowCluster).
  void Follow();
  // Starts records_watch_, which marks the clusters records are written to as stale.
  void WatchRecords();

  EtcdJournalStore& store_;
  Application& app_;
  const absl::Duration poll_;

  mutable Mutex mu_;
  std::condition_variable wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  EtcdDirectory directory_ ABSL_GUARDED_BY(mu_);
  // Whether directory_ was read once: until then every call routed is refused.
  bool directory_read_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::string> lost_ ABSL_GUARDED_BY(mu_);
  // Clusters retired to be handed over whose owner keys are not released yet.
  std::set<std::string> unreleased_ ABSL_GUARDED_BY(mu_);
  // Clusters whose adoption failed, and when to try again.
  std::map<std::string, absl::Time> retry_after_ ABSL_GUARDED_BY(mu_);
  // Records written to each cluster, from the moment the first poll found the directory:
  // clusters whose copies are behind, and whether the watch ended (all may be).
  std::unique_ptr<etcd::Watch> records_watch_;  // the coordinator's thread only
  std::set<std::string> stale_ ABSL_GUARDED_BY(mu_);
  bool watch_ended_ ABSL_GUARDED_BY(mu_) = false;
  // Clusters whose copy could not be read, and when to try again.
  std::map<std::string, absl::Time> follow_after_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace resched::server

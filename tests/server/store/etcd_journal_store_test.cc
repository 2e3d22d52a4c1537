// The journal store in etcd (server/store/etcd_journal_store.h) against a real etcd on
// loopback: records come back in LSN order, large records and snapshots in parts, a snapshot
// drops what it covers and the previous one and etcd's history is compacted; each cluster's
// writes are fenced by its owner's key: a replica writes only the clusters it acquired, hands one
// over by releasing it, gives all back at once when it closes, and loses every one when its lease
// expires (and says so), then goes on under a new lease. A replica following another's cluster
// reads the records after its last and hears of new ones. The journal over it commits long queues
// in batches etcd accepts.
#include "server/store/etcd_journal_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/base/mutex.h"
#include "server/store/journal.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/status.h"

namespace resched::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Seen = std::vector<std::pair<std::int64_t, std::string>>;

// What a scan of the store's records (or snapshots) calls back with: each LSN and
// "CLUSTER:PAYLOAD".
Seen Collect(const JournalStore& store, bool snapshots, const std::string* cluster) {
  Seen seen;
  const auto collect = [&](const StoredRecord& r) {
    seen.emplace_back(r.lsn, absl::StrCat(r.cluster, ":", r.payload));
    return absl::OkStatus();
  };
  EXPECT_OK(snapshots ? store.ScanSnapshots(collect, cluster) : store.Scan(collect, cluster));
  return seen;
}

Seen ScanAll(const JournalStore& store, const std::string* cluster = nullptr) {
  return Collect(store, false, cluster);
}

Seen Snapshots(const JournalStore& store) { return Collect(store, true, nullptr); }

class EtcdJournalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(etcd_.started());
    etcd::ClientOptions client;
    client.endpoints = etcd_.endpoints();
    auto raw = etcd::Client::Create(client);
    ASSERT_OK(raw);
    raw_ = *std::move(raw);
  }

  EtcdStoreOptions Options(std::string replica) const {
    EtcdStoreOptions options;
    options.client.endpoints = etcd_.endpoints();
    options.prefix = "/test";
    options.replica_id = std::move(replica);
    options.lease_ttl = absl::Seconds(1);
    return options;
  }

  // A replica connected, serving `clusters` (creating them when `create`).
  std::unique_ptr<EtcdJournalStore> OpenStore(EtcdStoreOptions options,
                                              const std::vector<std::string>& clusters,
                                              bool create = true) {
    auto store = EtcdJournalStore::Connect(std::move(options));
    EXPECT_OK(store);
    if (!store.ok()) return nullptr;
    for (const std::string& cluster : clusters) EXPECT_OK((*store)->Acquire(cluster, create));
    return *std::move(store);
  }

  // How many keys the store holds under `under` (after its prefix).
  std::int64_t KeysUnder(const std::string& under) {
    absl::StatusOr<etcd::RangeResult> range = raw_->GetPrefix(absl::StrCat("/test/", under));
    EXPECT_OK(range);
    return range.ok() ? static_cast<std::int64_t>(range->kvs.size()) : -1;
  }

  ::resched::testing::EtcdCluster etcd_;
  std::unique_ptr<etcd::Client> raw_;
};

TEST_F(EtcdJournalStoreTest, RecordsComeBackInLsnOrderAcrossClustersAndReopens) {
  {
    auto store = OpenStore(Options("a"), {"west", "east"});
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->last_lsn(), 0);
    ASSERT_OK(store->Commit({{1, "west", "w1"}, {2, "east", "e2"}}));
    ASSERT_OK(store->Commit({{3, "west", "w3"}, {4, "east", std::string("e\0\xff", 3)}}));
    EXPECT_THAT(ScanAll(*store), ElementsAre(std::pair<std::int64_t, std::string>(1, "west:w1"),
                                             std::pair<std::int64_t, std::string>(2, "east:e2"),
                                             std::pair<std::int64_t, std::string>(3, "west:w3"),
                                             std::pair<std::int64_t, std::string>(
                                                 4, std::string("east:e\0\xff", 8))));
    const std::string west = "west";
    EXPECT_THAT(ScanAll(*store, &west),
                ElementsAre(std::pair<std::int64_t, std::string>(1, "west:w1"),
                            std::pair<std::int64_t, std::string>(3, "west:w3")));
  }
  // The first gave its clusters back as it closed (its lease revoked): the next takes them at
  // once, without waiting for the TTL, and finds every record.
  EXPECT_EQ(KeysUnder("owners/"), 0);
  EXPECT_EQ(KeysUnder("members/"), 0);
  auto reopened = OpenStore(Options("b"), {"west", "east"}, /*create=*/false);
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(ScanAll(*reopened).size(), 4u);
}

TEST_F(EtcdJournalStoreTest, LargeRecordsAndSnapshotsAreWrittenInParts) {
  EtcdStoreOptions options = Options("a");
  options.part_bytes = 1024;
  options.max_txn_bytes = 4096;
  auto store = OpenStore(options, {"c"});
  ASSERT_NE(store, nullptr);
  std::string large(5000, '\0');
  for (std::size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>(i * 7);
  ASSERT_OK(store->Commit({{1, "c", "small"}, {2, "c", large}, {3, "c", "after"}}));
  EXPECT_EQ(KeysUnder("parts/c/"), 5);
  auto records = ScanAll(*store);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].second, "c:" + large);

  // A snapshot at LSN 2 of five parts drops records 1 and 2 and the large record's parts.
  ASSERT_OK(store->WriteSnapshot("c", 2, large));
  EXPECT_EQ(KeysUnder("parts/"), 0);
  EXPECT_EQ(KeysUnder("snapshot-parts/c/"), 5);
  EXPECT_THAT(ScanAll(*store), ElementsAre(std::pair<std::int64_t, std::string>(3, "c:after")));
  EXPECT_THAT(Snapshots(*store),
              ElementsAre(std::pair<std::int64_t, std::string>(2, "c:" + large)));

  // The next snapshot replaces it, its parts included; one part goes with the header.
  ASSERT_OK(store->WriteSnapshot("c", 3, "state at 3"));
  EXPECT_EQ(KeysUnder("snapshot-parts/c/"), 1);
  EXPECT_TRUE(ScanAll(*store).empty());
  EXPECT_THAT(Snapshots(*store),
              ElementsAre(std::pair<std::int64_t, std::string>(3, "c:state at 3")));
}

TEST_F(EtcdJournalStoreTest, ASnapshotCleansPartsAnOwnerLeftBehindAndCompactsHistory) {
  auto store = OpenStore(Options("a"), {"c"});
  ASSERT_NE(store, nullptr);
  ASSERT_OK(raw_->Put("/test/snapshot-parts/c/00000000000000000001-0-0/000000", "orphan"));
  ASSERT_OK(store->Commit({{1, "c", "one"}}));
  ASSERT_OK(store->WriteSnapshot("c", 1, "s1"));
  EXPECT_EQ(KeysUnder("snapshot-parts/c/"), 1);
  ASSERT_OK(store->Commit({{2, "c", "two"}}));
  ASSERT_OK(store->WriteSnapshot("c", 2, "s2"));
  // History up to the first snapshot is gone: a read at revision 2 is refused.
  absl::StatusOr<etcd::RangeResult> old = raw_->Range("/test/records/", "", 0, 2);
  EXPECT_TRUE(absl::IsOutOfRange(old.status())) << old.status();
  EXPECT_THAT(Snapshots(*store), ElementsAre(std::pair<std::int64_t, std::string>(2, "c:s2")));
}

// What a replica that follows another's cluster reads: the records after the last it applied,
// parts and all, and OUT_OF_RANGE once some went into a snapshot; and the watch that tells it
// which clusters records were written to.
TEST_F(EtcdJournalStoreTest, AFollowerReadsTheRecordsAfterItsLastAndHearsOfNewOnes) {
  EtcdStoreOptions options = Options("owner");
  options.part_bytes = 1024;
  options.max_txn_bytes = 4096;
  auto owner = OpenStore(options, {"c", "d"});
  ASSERT_NE(owner, nullptr);
  auto follower = OpenStore(Options("follower"), {});
  ASSERT_NE(follower, nullptr);
  Mutex mu;
  std::condition_variable heard_cv;
  std::vector<std::string> heard;
  std::unique_ptr<etcd::Watch> watch = follower->WatchRecords([&](const std::string& cluster) {
    MutexLock lock(&mu);
    heard.push_back(cluster);
    heard_cv.notify_all();
  });
  const std::string large(3000, 'x');
  ASSERT_OK(owner->Commit({{1, "c", "one"}, {2, "d", "d2"}, {3, "c", large}, {4, "c", "four"}}));
  Seen after;
  const auto collect = [&](const StoredRecord& r) {
    after.emplace_back(r.lsn, absl::StrCat(r.cluster, ":", r.payload));
    return absl::OkStatus();
  };
  ASSERT_OK(follower->ScanAfter(collect, "c", 1));
  EXPECT_THAT(after, ElementsAre(std::pair<std::int64_t, std::string>(3, "c:" + large),
                                 std::pair<std::int64_t, std::string>(4, "c:four")));
  after.clear();
  ASSERT_OK(follower->ScanAfter(collect, "c", 4));
  EXPECT_TRUE(after.empty());
  {
    MutexLock lock(&mu);
    for (int i = 0; i < 100 && (std::find(heard.begin(), heard.end(), "c") == heard.end() ||
                                std::find(heard.begin(), heard.end(), "d") == heard.end());
         ++i) {
      mu.WaitFor(heard_cv, std::chrono::milliseconds(50));
    }
    EXPECT_NE(std::find(heard.begin(), heard.end(), "c"), heard.end());
    EXPECT_NE(std::find(heard.begin(), heard.end(), "d"), heard.end());
    EXPECT_EQ(std::find(heard.begin(), heard.end(), ""), heard.end()) << "the watch ended";
  }
  // Records 1 to 3 go into a snapshot: a copy at 2 cannot follow, one at 3 can.
  ASSERT_OK(owner->WriteSnapshot("c", 3, "state at 3"));
  const absl::Status gone = follower->ScanAfter(collect, "c", 2);
  EXPECT_TRUE(absl::IsOutOfRange(gone)) << gone;
  EXPECT_THAT(gone.message(), HasSubstr("'c'"));
  ASSERT_OK(follower->ScanAfter(collect, "c", 3));
  EXPECT_THAT(after, ElementsAre(std::pair<std::int64_t, std::string>(4, "c:four")));
}

TEST_F(EtcdJournalStoreTest, DroppingAClusterKeepsItsLaterRecords) {
  auto store = OpenStore(Options("a"), {"c", "d"});
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Commit({{1, "c", "create"}, {2, "d", "other"}, {3, "c", "change"}}));
  ASSERT_OK(store->WriteSnapshot("c", 1, "s"));
  ASSERT_OK(store->Commit({{4, "c", "delete"}}));
  ASSERT_OK(store->DropClusterBefore("c", 4));
  EXPECT_THAT(ScanAll(*store), ElementsAre(std::pair<std::int64_t, std::string>(2, "d:other"),
                                           std::pair<std::int64_t, std::string>(4, "c:delete")));
  EXPECT_TRUE(Snapshots(*store).empty());
  // A cluster created again under the name goes on after the deletion's record.
  absl::StatusOr<std::int64_t> last = store->LastRecordLsn("c");
  ASSERT_OK(last);
  EXPECT_EQ(*last, 4);
  last = store->LastRecordLsn("never");
  ASSERT_OK(last);
  EXPECT_EQ(*last, 0);
}

TEST_F(EtcdJournalStoreTest, TheLeaseStaysAlivePastTheTtl) {
  auto store = OpenStore(Options("a"), {"c"});
  ASSERT_NE(store, nullptr);
  absl::SleepFor(absl::Seconds(3));  // three TTLs
  ASSERT_OK(store->Commit({{1, "c", "one"}}));
}

TEST_F(EtcdJournalStoreTest, TheJournalCommitsALongQueueInBatchesEtcdTakes) {
  EtcdStoreOptions options = Options("a");
  options.max_txn_records = 10;
  auto store = OpenStore(options, {"a", "b"});
  ASSERT_NE(store, nullptr);
  std::unique_ptr<Journal> journal = Journal::Start(std::move(store));
  std::int64_t last = 0;
  for (int i = 0; i < 95; ++i) last = journal->Append(i % 2 == 0 ? "a" : "b", absl::StrCat(i));
  ASSERT_OK(journal->WaitDurable(last));
  EXPECT_GE(journal->commits(), 10);
  std::vector<std::int64_t> lsns;
  ASSERT_OK(journal->Scan([&](const StoredRecord& r) {
    lsns.push_back(r.lsn);
    return absl::OkStatus();
  }));
  ASSERT_EQ(lsns.size(), 95u);
  for (std::size_t i = 0; i < lsns.size(); ++i)
    EXPECT_EQ(lsns[i], static_cast<std::int64_t>(i + 1));
}

// A replica connected, serving at `address`.
std::unique_ptr<EtcdJournalStore> SpreadReplica(EtcdStoreOptions options,
                                                const std::string& address) {
  auto store = EtcdJournalStore::Connect(std::move(options));
  EXPECT_OK(store);
  if (!store.ok()) return nullptr;
  EXPECT_OK((*store)->Publish(address));
  return *std::move(store);
}

TEST_F(EtcdJournalStoreTest, EachClusterIsFencedByItsOwnersKey) {
  auto a = SpreadReplica(Options("a"), "10.0.0.1:50051");
  auto b = SpreadReplica(Options("b"), "10.0.0.2:50051");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_OK(a->Acquire("x", /*create=*/true));
  ASSERT_OK(b->Acquire("y", /*create=*/true));
  ASSERT_OK(a->Acquire("x", /*create=*/false));  // ours already: nothing to do
  absl::Status taken = b->Acquire("x", /*create=*/false);
  EXPECT_TRUE(absl::IsFailedPrecondition(taken)) << taken;
  EXPECT_THAT(taken.message(), HasSubstr("replica a serves cluster 'x'"));

  absl::StatusOr<EtcdDirectory> directory = b->ReadDirectory();
  ASSERT_OK(directory);
  EXPECT_EQ(directory->members,
            (std::map<std::string, std::string>{{"a", "10.0.0.1:50051"}, {"b", "10.0.0.2:50051"}}));
  EXPECT_EQ(directory->owners, (std::map<std::string, std::string>{{"x", "a"}, {"y", "b"}}));
  EXPECT_EQ(directory->clusters, (std::set<std::string>{"x", "y"}));
  EXPECT_EQ(a->owned(), std::set<std::string>{"x"});

  // Each writes its own clusters, LSNs of their own; neither can write the other's.
  ASSERT_OK(a->Commit({{1, "x", "a1"}, {2, "x", "a2"}}));
  ASSERT_OK(b->Commit({{1, "y", "b1"}}));
  absl::Status refused = a->Commit({{3, "x", "a3"}, {4, "y", "not a's"}});
  EXPECT_TRUE(absl::IsUnavailable(refused)) << refused;
  EXPECT_THAT(refused.message(),
              HasSubstr("no longer serves cluster 'y' (replica b serves it now)"));
  EXPECT_FALSE(a->WriteSnapshot("y", 1, "not a's").ok());

  // Handed over: the next owner goes on where the last stopped, and the last can write no more.
  ASSERT_OK(a->Release("x"));
  ASSERT_OK(b->Acquire("x", /*create=*/false));
  ASSERT_OK(b->Commit({{3, "x", "b3"}}));
  EXPECT_FALSE(a->Commit({{4, "x", "stale"}}).ok());
  const std::string x = "x";
  EXPECT_THAT(ScanAll(*b, &x), ElementsAre(std::pair<std::int64_t, std::string>(1, "x:a1"),
                                           std::pair<std::int64_t, std::string>(2, "x:a2"),
                                           std::pair<std::int64_t, std::string>(3, "x:b3")));
  // A deleted cluster leaves the directory.
  ASSERT_OK(b->DropClusterBefore("x", 3));
  directory = b->ReadDirectory();
  ASSERT_OK(directory);
  EXPECT_EQ(directory->clusters, std::set<std::string>{"y"});
}

TEST_F(EtcdJournalStoreTest, AnExpiredLeaseLosesEveryClusterAndSaysSo) {
  std::mutex mu;
  std::vector<std::string> lost;
  EtcdStoreOptions options = Options("a");
  options.on_clusters_lost = [&](const std::vector<std::string>& clusters) {
    std::lock_guard<std::mutex> lock(mu);
    lost.insert(lost.end(), clusters.begin(), clusters.end());
  };
  auto a = SpreadReplica(options, "10.0.0.1:50051");
  ASSERT_NE(a, nullptr);
  ASSERT_OK(a->Acquire("x", /*create=*/true));
  ASSERT_OK(a->Acquire("y", /*create=*/true));
  // Paused past its lease, as etcd sees it: the keep-alive finds it gone.
  ASSERT_OK(raw_->RevokeLease(a->lease()));
  for (int i = 0; i < 50 && !a->owned().empty(); ++i) absl::SleepFor(absl::Milliseconds(100));
  EXPECT_TRUE(a->owned().empty());
  {
    std::lock_guard<std::mutex> lock(mu);
    std::sort(lost.begin(), lost.end());
    EXPECT_EQ(lost, (std::vector<std::string>{"x", "y"}));
  }
  auto b = SpreadReplica(Options("b"), "10.0.0.2:50051");
  ASSERT_NE(b, nullptr);
  ASSERT_OK(b->Acquire("x", /*create=*/false));
  EXPECT_TRUE(absl::IsUnavailable(a->Commit({{1, "x", "stale"}})));
  // The replica goes on, under a new lease with its member key, and may serve clusters again.
  for (int i = 0; i < 50 && KeysUnder("members/") != 2; ++i) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(KeysUnder("members/"), 2);
  for (int i = 0; i < 50 && !a->Acquire("y", /*create=*/false).ok(); ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_OK(a->Commit({{1, "y", "one"}}));
}

TEST(EtcdJournalStoreOptionsTest, BadOptionsAreRefusedNamingTheOption) {
  EtcdStoreOptions options;
  options.client.endpoints = {"http://127.0.0.1:1"};
  options.prefix = "/ends/";
  EXPECT_THAT(EtcdJournalStore::Connect(options).status().message(), HasSubstr("etcd prefix"));
  options.prefix = "/p";
  options.lease_ttl = absl::Milliseconds(10);
  EXPECT_THAT(EtcdJournalStore::Connect(options).status().message(), HasSubstr("etcd lease TTL"));
  options.lease_ttl = absl::Seconds(2);
  options.client.endpoints.clear();
  EXPECT_TRUE(absl::IsInvalidArgument(EtcdJournalStore::Connect(options).status()));
  options.client.endpoints = {"http://127.0.0.1:1"};
  options.client.request_timeout = absl::Milliseconds(500);
  absl::StatusOr<std::unique_ptr<EtcdJournalStore>> unreachable =
      EtcdJournalStore::Connect(options);
  EXPECT_TRUE(absl::IsUnavailable(unreachable.status())) << unreachable.status();
  EXPECT_THAT(unreachable.status().message(), HasSubstr("etcd store /p at http://127.0.0.1:1"));
}

}  // namespace
}  // namespace resched::server

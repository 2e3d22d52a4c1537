// The etcd client (server/store/etcd_client.h) against a real etcd on loopback
// (tests/testing/etcd_cluster.h): bytes in and out, transactions that run only when their
// conditions hold, leases that take their keys when not kept alive, watches that deliver every
// change once and in order, through the loss of the member they read from, clean errors when
// no member, or no majority, answers, etcd's authentication (a known user gets in, a wrong
// password does not) and TLS (the CA and a client certificate are needed).
#include "server/store/etcd_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/testing/etcd_cluster.h"
#include "tests/testing/free_port.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"
#include "tests/transport/test_certificates.h"

namespace resched::server::etcd {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Client> Connect(const std::vector<std::string>& endpoints,
                                absl::Duration timeout = absl::Seconds(5)) {
  ClientOptions options;
  options.endpoints = endpoints;
  options.request_timeout = timeout;
  auto client = Client::Create(options);
  EXPECT_OK(client);
  return client.ok() ? *std::move(client) : nullptr;
}

// What a watch delivered, for the test thread to wait on.
class Heard {
 public:
  void Add(WatchBatch batch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!batch.ended.ok()) ended_ = batch.ended;
    for (WatchEvent& event : batch.events) events_.push_back(std::move(event));
    changed_.notify_all();
  }
  // Waits up to 10 s for `count` events, or the watch's end; returns what was heard.
  std::vector<WatchEvent> WaitFor(std::size_t count) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(10),
                      [&] { return events_.size() >= count || !ended_.ok(); });
    return events_;
  }
  absl::Status WaitForEnd() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return !ended_.ok(); });
    return ended_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<WatchEvent> events_;
  absl::Status ended_;
};

// One member, and a client of it.
class EtcdClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(etcd_.started());
    client_ = Connect(etcd_.endpoints());
    ASSERT_NE(client_, nullptr);
  }

  ::resched::testing::EtcdCluster etcd_;
  std::unique_ptr<Client> client_;
};

TEST_F(EtcdClientTest, KeysAndValuesAreBytes) {
  Client* client = client_.get();
  const std::string key("j/\0\xff", 4);
  const std::string value("\x01\0\x7f\xfe", 4);
  ASSERT_OK(client->Put(key, value));
  ASSERT_OK(client->Put("j/b", "2"));
  ASSERT_OK(client->Put("k/c", "3"));
  absl::StatusOr<std::optional<KeyValue>> got = client->Get(key);
  ASSERT_OK(got);
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->value, value);
  EXPECT_EQ((*got)->version, 1);
  absl::StatusOr<std::optional<KeyValue>> missing = client->Get("j/none");
  ASSERT_OK(missing);
  EXPECT_FALSE(missing->has_value());

  absl::StatusOr<RangeResult> prefix = client->GetPrefix("j/");
  ASSERT_OK(prefix);
  ASSERT_EQ(prefix->kvs.size(), 2u);
  EXPECT_EQ(prefix->kvs[0].key, key);
  EXPECT_EQ(prefix->kvs[1].key, "j/b");
  absl::StatusOr<RangeResult> limited = client->GetPrefix("j/", 1);
  ASSERT_OK(limited);
  EXPECT_EQ(limited->kvs.size(), 1u);
  EXPECT_TRUE(limited->more);
  EXPECT_EQ(limited->count, 2);

  absl::StatusOr<std::int64_t> deleted = client->DeletePrefix("j/");
  ASSERT_OK(deleted);
  EXPECT_EQ(*deleted, 2);
  absl::StatusOr<RangeResult> rest = client->GetPrefix("");
  ASSERT_OK(rest);
  ASSERT_EQ(rest->kvs.size(), 1u);
  EXPECT_EQ(rest->kvs[0].key, "k/c");
}

TEST_F(EtcdClientTest, ATransactionRunsItsSuccessOnlyWhenEveryConditionHolds) {
  Client* client = client_.get();
  // Created only when missing.
  absl::StatusOr<TxnResult> create =
      client->Txn({Compare::Missing("owner")}, {Op::Put("owner", "a"), Op::Get("owner")}, {});
  ASSERT_OK(create);
  EXPECT_TRUE(create->succeeded);
  ASSERT_EQ(create->ranges.size(), 2u);
  ASSERT_EQ(create->ranges[1].kvs.size(), 1u);
  const std::int64_t written = create->ranges[1].kvs[0].mod_revision;
  EXPECT_EQ(written, create->revision);

  absl::StatusOr<TxnResult> again =
      client->Txn({Compare::Missing("owner")}, {Op::Put("owner", "b")}, {Op::Get("owner")});
  ASSERT_OK(again);
  EXPECT_FALSE(again->succeeded);
  ASSERT_EQ(again->ranges.size(), 1u);
  ASSERT_EQ(again->ranges[0].kvs.size(), 1u);
  EXPECT_EQ(again->ranges[0].kvs[0].value, "a");

  // Conditioned on what was read: a second writer that read the same revision loses.
  absl::StatusOr<TxnResult> first =
      client->Txn({Compare::ModRevisionIs("owner", written), Compare::ValueIs("owner", "a")},
                  {Op::Put("owner", "c"), Op::Put("log/1", "x")}, {});
  ASSERT_OK(first);
  EXPECT_TRUE(first->succeeded);
  absl::StatusOr<TxnResult> second =
      client->Txn({Compare::ModRevisionIs("owner", written)}, {Op::Put("log/1", "y")}, {});
  ASSERT_OK(second);
  EXPECT_FALSE(second->succeeded);
  absl::StatusOr<std::optional<KeyValue>> log = client->Get("log/1");
  ASSERT_OK(log);
  ASSERT_TRUE(log->has_value());
  EXPECT_EQ((*log)->value, "x");

  absl::StatusOr<TxnResult> removed =
      client->Txn({}, {Op::DeletePrefix("log/"), Op::Delete("owner")}, {});
  ASSERT_OK(removed);
  absl::StatusOr<RangeResult> all = client->GetPrefix("");
  ASSERT_OK(all);
  EXPECT_TRUE(all->kvs.empty());
}

TEST_F(EtcdClientTest, ALeaseNotKeptAliveTakesItsKeysAndFencesItsHolder) {
  Client* client = client_.get();
  absl::StatusOr<Lease> kept = client->GrantLease(absl::Seconds(1));
  absl::StatusOr<Lease> dropped = client->GrantLease(absl::Seconds(1));
  ASSERT_OK(kept);
  ASSERT_OK(dropped);
  EXPECT_GE(kept->ttl_seconds, 1);
  ASSERT_OK(client->Put("owner/kept", "me", kept->id));
  ASSERT_OK(client->Put("owner/dropped", "me", dropped->id));
  absl::StatusOr<TxnResult> owned = client->Txn({Compare::LeaseIs("owner/dropped", dropped->id)},
                                                {Op::Put("journal/1", "a")}, {});
  ASSERT_OK(owned);
  EXPECT_TRUE(owned->succeeded);

  // Three seconds: `kept` renewed every 300 ms, `dropped` left to expire.
  const absl::Time until = absl::Now() + absl::Seconds(3);
  while (absl::Now() < until) {
    ASSERT_OK(client->KeepAlive(kept->id));
    absl::SleepFor(absl::Milliseconds(300));
  }
  absl::StatusOr<std::optional<KeyValue>> still = client->Get("owner/kept");
  ASSERT_OK(still);
  EXPECT_TRUE(still->has_value());
  absl::StatusOr<std::optional<KeyValue>> gone = client->Get("owner/dropped");
  ASSERT_OK(gone);
  EXPECT_FALSE(gone->has_value());
  EXPECT_THAT(client->KeepAlive(dropped->id),
              ::resched::testing::StatusIs(absl::StatusCode::kNotFound, HasSubstr("expired")));
  // The paused owner's write, conditioned on its lease, cannot land.
  absl::StatusOr<TxnResult> late = client->Txn({Compare::LeaseIs("owner/dropped", dropped->id)},
                                               {Op::Put("journal/2", "b")}, {});
  ASSERT_OK(late);
  EXPECT_FALSE(late->succeeded);
  absl::StatusOr<std::optional<KeyValue>> journal = client->Get("journal/2");
  ASSERT_OK(journal);
  EXPECT_FALSE(journal->has_value());

  ASSERT_OK(client->RevokeLease(kept->id));
  absl::StatusOr<std::optional<KeyValue>> revoked = client->Get("owner/kept");
  ASSERT_OK(revoked);
  EXPECT_FALSE(revoked->has_value());
}

TEST_F(EtcdClientTest, AWatchDeliversEveryChangeFromItsRevisionInOrder) {
  Client* client = client_.get();
  absl::StatusOr<std::int64_t> first = client->Put("c/1", "a");
  ASSERT_OK(first);
  ASSERT_OK(client->Put("other", "x"));
  ASSERT_OK(client->Put("c/2", "b"));
  Heard heard;
  // From before the watch began: the history is delivered first.
  std::unique_ptr<Watch> watch = client->StartWatch(
      "c/", PrefixEnd("c/"), *first, [&](WatchBatch batch) { heard.Add(std::move(batch)); });
  ASSERT_OK(client->Put("c/1", "a2"));
  ASSERT_OK(client->DeletePrefix("c/"));
  const std::vector<WatchEvent> events = heard.WaitFor(5);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].kv.key, "c/1");
  EXPECT_EQ(events[0].kv.value, "a");
  EXPECT_EQ(events[1].kv.key, "c/2");
  EXPECT_EQ(events[2].kv.value, "a2");
  EXPECT_EQ(events[3].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(events[4].type, WatchEvent::Type::kDelete);
  for (std::size_t i = 1; i < events.size(); ++i) {
    EXPECT_GE(events[i].kv.mod_revision, events[i - 1].kv.mod_revision);
  }
}

TEST_F(EtcdClientTest, AWatchFromACompactedRevisionEndsWithOutOfRange) {
  Client* client = client_.get();
  absl::StatusOr<std::int64_t> first = client->Put("c/1", "a");
  ASSERT_OK(first);
  absl::StatusOr<std::int64_t> last = client->Put("c/1", "b");
  ASSERT_OK(last);
  ASSERT_OK(client->Compact(*last));
  Heard heard;
  std::unique_ptr<Watch> watch = client->StartWatch(
      "c/", PrefixEnd("c/"), *first, [&](WatchBatch batch) { heard.Add(std::move(batch)); });
  EXPECT_THAT(heard.WaitForEnd(),
              ::resched::testing::StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("compacted")));
}

TEST(EtcdClientFaultTest, TheLossOfOneMemberOfThreeGoesUnnoticedAndOfTwoIsAClearRefusal) {
  ::resched::testing::EtcdCluster etcd(3);
  ASSERT_OK(etcd.started());
  // The member the client talks to first dies; requests and the watch go on through the others.
  auto client = Connect(etcd.endpoints(), absl::Seconds(2));
  ASSERT_NE(client, nullptr);
  absl::StatusOr<std::int64_t> start = client->Put("c/0", "0");
  ASSERT_OK(start);
  Heard heard;
  std::unique_ptr<Watch> watch = client->StartWatch(
      "c/", PrefixEnd("c/"), *start + 1, [&](WatchBatch batch) { heard.Add(std::move(batch)); });
  ASSERT_OK(client->Put("c/1", "1"));
  ASSERT_EQ(heard.WaitFor(1).size(), 1u);
  etcd.Kill(0);
  // The first writes may meet an election: each is retried by the test, as a caller would.
  for (int i = 2; i <= 10; ++i) {
    absl::Status put;
    for (int attempt = 0; attempt < 20; ++attempt) {
      put = client->Put(absl::StrCat("c/", i), std::to_string(i)).status();
      if (put.ok()) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    ASSERT_OK(put);
  }
  // Every change once, in order, across the watch's move to another member. (A put that timed
  // out in the election and was retried may have landed twice: two changes of one key.)
  const std::vector<WatchEvent> events = heard.WaitFor(10);
  ASSERT_GE(events.size(), 10u);
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(events[i].kv.mod_revision, events[i - 1].kv.mod_revision);
    }
    if (keys.empty() || keys.back() != events[i].kv.key) keys.push_back(events[i].kv.key);
  }
  std::vector<std::string> expected;
  for (int i = 1; i <= 10; ++i) expected.push_back(absl::StrCat("c/", i));
  EXPECT_EQ(keys, expected);

  // Without a majority a write gets UNAVAILABLE, within the request timeout. (A leader that lost
  // its majority may still commit it once the majority is back: its outcome is unknown, and the
  // message says so.)
  etcd.Kill(1);
  absl::StatusOr<std::int64_t> refused = client->Put("c/refused", "x");
  EXPECT_THAT(refused.status(),
              ::resched::testing::StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  ASSERT_OK(etcd.Restart(1));
  absl::StatusOr<std::optional<KeyValue>> after = Connect({etcd.endpoints()[1]})->Get("c/10");
  ASSERT_OK(after);
  EXPECT_TRUE(after->has_value());
}

TEST(EtcdClientFaultTest, NoReachableEndpointIsUnavailableNamingThem) {
  const int port = ::resched::testing::FreeLoopbackPort();
  auto client = Connect({absl::StrCat("http://127.0.0.1:", port)}, absl::Seconds(1));
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(client->Put("k", "v").status(),
              ::resched::testing::StatusIs(absl::StatusCode::kUnavailable,
                                           HasSubstr(absl::StrCat("127.0.0.1:", port))));
}

TEST_F(EtcdClientTest, WithAuthenticationOnlyAKnownUserGetsIn) {
  // etcd's own API turns authentication on: a root user with the root role, then enable.
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/v3/auth/user/add", R"({"name": "root", "password": "secret"})"},
           {"/v3/auth/user/grant", R"({"user": "root", "role": "root"})"},
           {"/v3/auth/enable", "{}"}}) {
    httplib::Client http(etcd_.endpoints()[0]);
    httplib::Result answer = http.Post(path, body, "application/json");
    ASSERT_TRUE(answer) << path;
    ASSERT_EQ(answer->status, 200) << path << ": " << answer->body;
  }
  EXPECT_THAT(client_->Put("k", "v").status(),
              ::resched::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("user name is empty")));
  ClientOptions options;
  options.endpoints = etcd_.endpoints();
  options.user = "root";
  options.password = "secret";
  auto root = Client::Create(options);
  ASSERT_OK(root);
  ASSERT_OK((*root)->Put("k", "v"));
  absl::StatusOr<std::optional<KeyValue>> got = (*root)->Get("k");
  ASSERT_OK(got);
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->value, "v");
  options.password = "guess";
  auto stranger = Client::Create(options);
  ASSERT_OK(stranger);
  EXPECT_THAT((*stranger)->Get("k").status(),
              ::resched::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("authentication failed")));
}

TEST(EtcdClientTlsTest, ATlsMemberIsReachedWithTheCaAndAClientCertificateOnly) {
  const ::resched::testing::TempDir dir("etcd-tls");
  const ::resched::testing::TestCertificateAuthority ca("etcd test CA");
  const ::resched::testing::KeyAndCertificate member = ca.Issue("etcd");
  const ::resched::testing::KeyAndCertificate resched = ca.Issue("resched");
  using ::resched::testing::WriteTestFile;
  const std::string ca_file = WriteTestFile(dir.path(), "ca.pem", ca.certificate_pem());
  ClientOptions options;
  options.ca_file = ca_file;
  options.cert_file = WriteTestFile(dir.path(), "client.pem", resched.certificate_pem);
  options.key_file = WriteTestFile(dir.path(), "client.key", resched.key_pem);
  ::resched::testing::EtcdCluster etcd(
      1,
      ::resched::testing::EtcdTls{
          .cert_file = WriteTestFile(dir.path(), "member.pem", member.certificate_pem),
          .key_file = WriteTestFile(dir.path(), "member.key", member.key_pem),
          .client_ca_file = ca_file},
      options);
  ASSERT_OK(etcd.started());
  ASSERT_TRUE(absl::StartsWith(etcd.endpoints()[0], "https://"));
  options.endpoints = etcd.endpoints();
  options.request_timeout = absl::Seconds(2);
  auto client = Client::Create(options);
  ASSERT_OK(client);
  ASSERT_OK((*client)->Put("k", "v"));

  // Without a client certificate etcd refuses the connection.
  ClientOptions anonymous = options;
  anonymous.cert_file.clear();
  anonymous.key_file.clear();
  EXPECT_THAT(Client::Create(anonymous).value()->Get("k").status(),
              ::resched::testing::StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  // Without the CA the member's certificate is not trusted: the request never leaves.
  ClientOptions untrusting = options;
  untrusting.ca_file.clear();
  EXPECT_THAT(Client::Create(untrusting).value()->Get("k").status(),
              ::resched::testing::StatusIs(absl::StatusCode::kUnavailable,
                                           HasSubstr("no etcd endpoint could be reached")));
}

TEST(EtcdClientOptionsTest, EndpointsMustBeHttpUrls) {
  EXPECT_THAT(
      Client::Create({}).status(),
      ::resched::testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least one")));
  ClientOptions options;
  options.endpoints = {"127.0.0.1:2379"};
  EXPECT_THAT(Client::Create(options).status(),
              ::resched::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  HasSubstr("'127.0.0.1:2379' is not an http:// or https:// URL")));
}

}  // namespace
}  // namespace resched::server::etcd

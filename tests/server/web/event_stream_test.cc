// EventStream on the service's own watches (server/rpc/watch_opener.h): a page's stream is held to
// the limits of any watcher (its backlog, the memory all streams share, the streams a client may
// have open) and gives back what it holds when it ends; it passes the same gate, and a user's
// page sees other tenants' work as a gRPC watcher with the same token does.
#include "server/web/event_stream.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/server/tenant_fixture.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

// A stream of `cluster` for `caller` (a heartbeat no test waits for).
std::shared_ptr<EventStream> StreamOf(ReschedService& service, EventChunks& chunks,
                                      const std::string& cluster, const WebCaller& caller = {}) {
  return std::make_shared<EventStream>(service.watches(), cluster, caller, std::chrono::seconds(30),
                                       chunks);
}

// The chunks of `stream` up to and including the first that starts with `kind` (an SSE event
// name line); the last is empty when the stream ended first.
std::string NextOfKind(EventStream& stream, const std::string& kind) {
  std::string chunk;
  while (stream.Next(chunk)) {
    if (chunk.starts_with(absl::StrCat("event: ", kind, "\n"))) return chunk;
  }
  return chunk;
}

class StreamTest : public resched::server::testing::ServerTest {
 protected:
  // `count` one-processor jobs submitted to `cluster`, one every 10 ms, on a thread of its own.
  std::thread SubmitEveryTenMilliseconds(const std::string& cluster, int count) {
    return std::thread([this, cluster, count] {
      for (int i = 0; i < count; ++i) {
        pb::SubmitJobResponse submitted;
        EXPECT_OK(Submit(cluster, Rigid(1, 60), &submitted));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }

  // A stream of a new cluster of 4,096 processors, past its first schedule.
  std::shared_ptr<EventStream> StreamOfANewCluster(const std::string& cluster) {
    CreateSim(cluster, 4096, "fcfs");
    auto stream = StreamOf(*service_, chunks_, cluster);
    EXPECT_TRUE(NextOfKind(*stream, "SCHEDULE").starts_with("event: SCHEDULE\n"));
    return stream;
  }

  EventChunks chunks_{1 << 20};
};

class EventStreamTest : public StreamTest {
 protected:
  EventStreamTest() {
    limits_.max_watch_backlog = 5;
    limits_.max_watch_streams_per_client = 2;
  }
};

TEST_F(EventStreamTest, APageThatStopsReadingIsCutOffByTheBacklogLimit) {
  CreateSim("sim", 64, "fcfs");
  auto stream = StreamOf(*service_, chunks_, "sim");
  EXPECT_TRUE(NextOfKind(*stream, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  // The page reads nothing while the cluster changes 300 times.
  constexpr int kSubmissions = 300;
  for (int i = 0; i < kSubmissions; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("sim", Rigid(1, 10), &submitted));
  }
  std::string chunk;
  int events = 0;
  while (stream->Next(chunk)) {
    ASSERT_FALSE(chunk.starts_with(": heartbeat"))
        << "the watch went quiet after " << events << " events instead of ending";
    ++events;
  }
  EXPECT_TRUE(chunk.starts_with("event: end\n")) << chunk;
  EXPECT_NE(chunk.find("RESOURCE_EXHAUSTED"), std::string::npos) << chunk;
  EXPECT_NE(chunk.find("5 events behind"), std::string::npos) << chunk;
  EXPECT_LE(events, 5);
  EXPECT_FALSE(stream->Next(chunk));  // ended for good
  EXPECT_TRUE(chunk.empty());
  stream->Cancel();
  EXPECT_EQ(app_->watch_budget().held(), 0u) << "the dropped events' memory is given back";
}

TEST_F(EventStreamTest, EventsFollowTheFirstScheduleInOrderAndAnEndedClusterEndsTheStream) {
  CreateSim("sim", 8, "fcfs");
  auto stream = StreamOf(*service_, chunks_, "sim");
  EXPECT_TRUE(NextOfKind(*stream, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(2, 60), &submitted));
  const std::string changed = NextOfKind(*stream, "JOB_CHANGED");
  EXPECT_NE(changed.find(absl::StrCat("\"id\":\"", submitted.job().id(), "\"")), std::string::npos)
      << changed;
  pb::DeleteClusterRequest request;
  request.set_name("sim");
  request.set_force(true);
  pb::DeleteClusterResponse response;
  grpc::ClientContext context;
  ASSERT_OK(stub_->DeleteCluster(&context, request, &response));
  std::string chunk;
  while (stream->Next(chunk)) {
  }
  EXPECT_TRUE(chunk.starts_with("event: end\n")) << chunk;
  EXPECT_NE(chunk.find("NOT_FOUND"), std::string::npos) << chunk;
  stream->Cancel();
}

TEST_F(EventStreamTest, EventsThatWaitForTheReaderGoOutInOneWriteInOrder) {
  CreateSim("sim", 8, "fcfs");
  auto stream = StreamOf(*service_, chunks_, "sim");
  EXPECT_TRUE(NextOfKind(*stream, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("sim", Rigid(1, 60), &submitted));
    ids.push_back(submitted.job().id());
  }
  std::string chunk;
  ASSERT_TRUE(stream->Next(chunk));
  std::size_t at = 0;
  for (const std::string& id : ids) {
    at = chunk.find("event: JOB_CHANGED\n", at);
    ASSERT_NE(at, std::string::npos) << "job " << id << " missing from " << chunk;
    at = chunk.find(absl::StrCat("\"id\":\"", id, "\""), at);
    ASSERT_NE(at, std::string::npos) << "job " << id << " out of order in " << chunk;
  }
  stream->Cancel();
}

TEST_F(EventStreamTest, AStreamHoldsOneOfItsClientsStreamsUntilCancelled) {
  CreateSim("sim", 8, "fcfs");
  auto first = StreamOf(*service_, chunks_, "sim");
  auto second = StreamOf(*service_, chunks_, "sim");
  for (auto* stream : {first.get(), second.get()}) {
    EXPECT_TRUE(NextOfKind(*stream, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  }
  // A third stream from the same address passes max_watch_streams_per_client (2).
  auto third = StreamOf(*service_, chunks_, "sim");
  const std::string refused = NextOfKind(*third, "SCHEDULE");
  EXPECT_TRUE(refused.starts_with("event: end\n")) << refused;
  EXPECT_NE(refused.find("RESOURCE_EXHAUSTED"), std::string::npos) << refused;
  EXPECT_NE(refused.find("max_watch_streams_per_client"), std::string::npos) << refused;
  third->Cancel();

  first->Cancel();
  std::string chunk;
  EXPECT_FALSE(first->Next(chunk));  // returns at once, though the heartbeat is 30 s away
  EXPECT_TRUE(chunk.empty());
  auto fourth = StreamOf(*service_, chunks_, "sim");
  EXPECT_TRUE(NextOfKind(*fourth, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  second->Cancel();
  fourth->Cancel();
  EXPECT_EQ(app_->watch_budget().held(), 0u);
}

// The page's connection closes while its stream waits on a quiet cluster: the stream ends then,
// not at its heartbeat 30 s later, and gives its client's stream back.
TEST_F(EventStreamTest, AStreamEndsWhenItsClientHangsUp) {
  CreateSim("sim", 8, "fcfs");
  std::array<int, 2> connection{-1, -1};  // [0] the server's end, [1] the page's
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, connection.data()), 0);
  auto first = StreamOf(*service_, chunks_, "sim");
  auto second = StreamOf(*service_, chunks_, "sim");
  std::string chunk;
  ASSERT_TRUE(first->Next(chunk, connection[0]));
  EXPECT_TRUE(chunk.starts_with("event: SCHEDULE\n")) << chunk;
  EXPECT_TRUE(NextOfKind(*second, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  std::thread page_leaves([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    close(connection[1]);
  });
  EXPECT_FALSE(first->Next(chunk, connection[0]));
  page_leaves.join();
  close(connection[0]);
  EXPECT_TRUE(chunk.empty()) << chunk;
  EXPECT_TRUE(first->Closed());
  // Its place under max_watch_streams_per_client (2) is free again.
  auto third = StreamOf(*service_, chunks_, "sim");
  EXPECT_TRUE(NextOfKind(*third, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  second->Cancel();
  third->Cancel();
}

// A reader that keeps up is never cut off by its gathering: with a backlog of 5 events, submissions
// every 10 ms would fill it within one gathering of 0.1 s, and the reader takes them once it is
// half full.
TEST_F(EventStreamTest, AReaderThatKeepsUpIsNotCutOffWhileItGathers) {
  auto stream = StreamOfANewCluster("sim");
  constexpr int kSubmissions = 60;
  std::thread submitter = SubmitEveryTenMilliseconds("sim", kSubmissions);
  int events = 0;
  std::string chunk;
  while (events < kSubmissions && stream->Next(chunk)) {
    for (std::size_t at = chunk.find("event: JOB_CHANGED\n"); at != std::string::npos;
         at = chunk.find("event: JOB_CHANGED\n", at + 1)) {
      ++events;
    }
  }
  submitter.join();
  EXPECT_EQ(events, kSubmissions) << "cut off: " << chunk;
  stream->Cancel();
}

class EventStreamGatheringTest : public StreamTest {
 protected:
  struct Writes {
    int count = 0;
    std::chrono::steady_clock::duration longest_gap{};  // between two, or before the first
  };

  // The writes of `stream` (heartbeats aside) until it carried event `last`, checking that the
  // events come in order, none missing.
  static Writes WritesUntil(EventStream& stream, std::int64_t last) {
    Writes writes;
    std::int64_t last_sequence = 0;
    auto last_write = std::chrono::steady_clock::now();
    std::string chunk;
    while (last_sequence < last && stream.Next(chunk)) {
      if (chunk.starts_with(": heartbeat")) continue;
      const auto now = std::chrono::steady_clock::now();
      ++writes.count;
      writes.longest_gap = std::max(writes.longest_gap, now - last_write);
      last_write = now;
      for (std::size_t at = chunk.find("\nid: "); at != std::string::npos;
           at = chunk.find("\nid: ", at + 1)) {
        const std::int64_t sequence = std::stoll(chunk.substr(at + 5));
        EXPECT_EQ(sequence, last_sequence + 1) << chunk;
        last_sequence = sequence;
      }
    }
    EXPECT_EQ(last_sequence, last);
    return writes;
  }
};

// Submissions every 10 ms for 2 s: the reader gathers them for longer and longer (0.1 s, then
// twice as long each time events came meanwhile, 1 s at most), so that they go out in a few
// writes, each in order. Gathering 0.1 s each time would take about 20; a stall of the submitting
// thread past a gathering starts the doubling again, which the bound leaves room for.
TEST_F(EventStreamGatheringTest, EventsThatKeepComingGoOutInFewerWritesInOrder) {
  auto stream = StreamOfANewCluster("sim");
  constexpr int kSubmissions = 200;
  std::thread submitter = SubmitEveryTenMilliseconds("sim", kSubmissions);
  const Writes writes = WritesUntil(*stream, kSubmissions);
  submitter.join();
  EXPECT_LE(writes.count, 14) << "events that keep coming were written too often";
  stream->Cancel();
}

// Events that keep coming for 4 s: the gatherings grow to 0.1, 0.2, 0.4, 0.8 and then 1 s, so that
// writes come up to 1 s apart, in order. Unbounded, they would grow to 1.6 and 3.2 s.
TEST_F(EventStreamGatheringTest, GatheringsGrowToASecondWhileEventsKeepComing) {
  auto stream = StreamOfANewCluster("sim");
  constexpr int kSubmissions = 400;
  std::thread submitter = SubmitEveryTenMilliseconds("sim", kSubmissions);
  const Writes writes = WritesUntil(*stream, kSubmissions);
  submitter.join();
  EXPECT_GE(writes.longest_gap, std::chrono::milliseconds(700));
  EXPECT_LE(writes.longest_gap, std::chrono::milliseconds(1900)) << "a gathering outgrew its limit";
  stream->Cancel();
}

TEST_F(EventStreamTest, AStreamCancelledBeforeItOpensNeverOpens) {
  CreateSim("sim", 8, "fcfs");
  auto stream = StreamOf(*service_, chunks_, "sim");
  stream->Cancel();
  std::string chunk;
  EXPECT_FALSE(stream->Next(chunk));
  EXPECT_TRUE(chunk.empty());
  // It took none of the client's two streams.
  auto one = StreamOf(*service_, chunks_, "sim");
  auto two = StreamOf(*service_, chunks_, "sim");
  for (auto* open : {one.get(), two.get()}) {
    EXPECT_TRUE(NextOfKind(*open, "SCHEDULE").starts_with("event: SCHEDULE\n"));
    open->Cancel();
  }
}

constexpr char kAlice[] = "alice-token-5e21";
constexpr char kBob[] = "bob-token-77c0";
constexpr char kOps[] = "ops-token-d913";

class EventStreamTenantTest : public resched::server::testing::TokenServerFixture {
 protected:
  std::string TokensYaml() const override {
    using resched::server::testing::GrantLine;
    return absl::StrCat("tokens:\n", GrantLine(kAlice, "alice", "user"),
                        GrantLine(kBob, "bob", "user"), GrantLine(kOps, "ops", "admin"));
  }

  static WebCaller As(const char* token) { return {absl::StrCat("Bearer ", token), ""}; }

  EventChunks chunks_{1 << 20};
};

TEST_F(EventStreamTenantTest, AUsersPageSeesOtherTenantsWorkAsCapacityAndABadTokenIsRefused) {
  CreateClusterAs(kOps, "sim", 8);
  auto alice = StreamOf(*service_, chunks_, "sim", As(kAlice));
  auto ops = StreamOf(*service_, chunks_, "sim", As(kOps));
  EXPECT_TRUE(NextOfKind(*alice, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  EXPECT_TRUE(NextOfKind(*ops, "SCHEDULE").starts_with("event: SCHEDULE\n"));
  pb::SubmitJobRequest request;
  request.set_cluster("sim");
  *request.mutable_job() = Rigid(2, 600);
  request.mutable_job()->set_name("bobs-secret-run");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Call(kBob, &pb::Resched::Stub::SubmitJob, request, &submitted));
  const std::string id = absl::StrCat("\"id\":\"", submitted.job().id(), "\"");

  const std::string seen_by_alice = NextOfKind(*alice, "JOB_CHANGED");
  EXPECT_TRUE(seen_by_alice.starts_with("event: JOB_CHANGED\n")) << seen_by_alice;
  EXPECT_EQ(seen_by_alice.find(id), std::string::npos) << seen_by_alice;
  EXPECT_EQ(seen_by_alice.find("bobs-secret-run"), std::string::npos) << seen_by_alice;
  EXPECT_EQ(seen_by_alice.find("\"bob\""), std::string::npos) << seen_by_alice;
  const std::string seen_by_ops = NextOfKind(*ops, "JOB_CHANGED");
  EXPECT_NE(seen_by_ops.find(id), std::string::npos) << seen_by_ops;
  EXPECT_NE(seen_by_ops.find("bobs-secret-run"), std::string::npos) << seen_by_ops;

  auto stranger = StreamOf(*service_, chunks_, "sim", As("no-such-token"));
  const std::string refused = NextOfKind(*stranger, "SCHEDULE");
  EXPECT_TRUE(refused.starts_with("event: end\n")) << refused;
  EXPECT_NE(refused.find("UNAUTHENTICATED"), std::string::npos) << refused;
  for (auto* stream : {alice.get(), ops.get(), stranger.get()}) stream->Cancel();
}

}  // namespace
}  // namespace resched::server::web

// EventStream against the service over TCP: it reads its WatchSchedule call only a bounded way
// ahead of the page, so that a page that stops reading is cut off by the server's backlog limit
// as any slow watcher is, instead of piling the cluster's events up in the web view's memory.
#include "server/web/event_stream.h"

#include <chrono>
#include <memory>
#include <string>

#include "tests/server/server_fixture.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

class EventStreamTest : public resched::server::testing::ServerTest {
 protected:
  EventStreamTest() { limits_.max_watch_backlog = 5; }

  // A channel that takes almost nothing ahead of its reader (as tests/server/watch_test.cc's
  // slow watcher), so that what the stream does not read holds up the server's writes.
  std::unique_ptr<pb::Resched::Stub> SlowStub() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1);
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    return pb::Resched::NewStub(
        grpc::CreateCustomChannel(target_, grpc::InsecureChannelCredentials(), args));
  }

  // A stream of `cluster` over `stub` (a heartbeat no test waits for) that has sent its first
  // schedule.
  std::unique_ptr<EventStream> StreamAfterFirstSchedule(pb::Resched::Stub& stub,
                                                        const std::string& cluster) {
    auto stream = std::make_unique<EventStream>(stub, cluster, WebCaller{},
                                                std::chrono::seconds(30), chunks_);
    std::string chunk;
    EXPECT_TRUE(stream->Next(chunk));
    EXPECT_TRUE(chunk.starts_with("event: SCHEDULE\n")) << chunk;
    return stream;
  }

  EventChunks chunks_{1 << 20};
};

TEST_F(EventStreamTest, APageThatStopsReadingIsCutOffByTheServersBacklogLimit) {
  CreateSim("sim", 64, "fcfs");
  auto stub = SlowStub();
  auto stream = StreamAfterFirstSchedule(*stub, "sim");
  std::string chunk;
  // One event per call, well apart: a reader that took every event as it came would keep up.
  // This one stops taking them once it holds its read-ahead, and the page reads nothing.
  constexpr int kSubmissions = 300;
  for (int i = 0; i < kSubmissions; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("sim", Rigid(1, 10), &submitted));
  }
  int events = 0;
  bool more = true;
  while (more) {
    more = stream->Next(chunk);
    ASSERT_FALSE(chunk.starts_with(": heartbeat"))
        << "the watch went quiet after " << events << " events instead of ending";
    if (more) ++events;
  }
  EXPECT_TRUE(chunk.starts_with("event: end\n")) << chunk;
  EXPECT_NE(chunk.find("RESOURCE_EXHAUSTED"), std::string::npos) << chunk;
  EXPECT_NE(chunk.find("5 events behind"), std::string::npos) << chunk;
  EXPECT_LT(events, kSubmissions);
  EXPECT_FALSE(stream->Next(chunk));  // ended for good
  EXPECT_TRUE(chunk.empty());
}

TEST_F(EventStreamTest, ACancelledStreamEndsWithoutAnEndEvent) {
  CreateSim("sim", 8, "fcfs");
  auto stub = SlowStub();
  auto stream = StreamAfterFirstSchedule(*stub, "sim");
  stream->Cancel();
  std::string chunk;
  EXPECT_FALSE(stream->Next(chunk));  // returns at once, though the heartbeat is 30 s away
  EXPECT_TRUE(chunk.empty());
}

}  // namespace
}  // namespace resched::server::web

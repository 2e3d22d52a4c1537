// WatchSchedule on the callback API: streams hold no thread, end with a status saying why, and
// a reader that stops reading is cut off instead of holding events without bound, by count and
// by the memory all streams share.
#include <gmock/gmock.h>

#include <memory>
#include <thread>
#include <vector>

#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

class WatchTest : public ServerTest {
 protected:
  WatchTest() {
    limits_.max_watch_backlog = 5;
    limits_.max_watch_streams_per_client = 64;  // the tests' streams all come from one address
  }

  // A stream on `cluster` past its first schedule.
  std::unique_ptr<Stream> WatchAfterFirstSchedule(const std::string& cluster) {
    auto stream = Watch(cluster);
    pb::ScheduleEvent event;
    EXPECT_TRUE(stream->reader->Read(&event));
    EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
    return stream;
  }

  // The same on a channel that takes almost nothing ahead of its reader: the server's writes
  // then wait while the reader does not read, as they would over a slow network. (On the
  // fixture's channel the transport buffers every event of a test, and a writer thread that
  // gets the processor between two publications keeps up with them.)
  std::unique_ptr<Stream> SlowWatchAfterFirstSchedule(const std::string& cluster) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1);
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    slow_stub_ = pb::Resched::NewStub(
        grpc::CreateCustomChannel(target_, grpc::InsecureChannelCredentials(), args));
    auto stream = std::make_unique<Stream>();
    pb::WatchScheduleRequest request;
    request.set_cluster(cluster);
    stream->reader = slow_stub_->WatchSchedule(&stream->context, request);
    pb::ScheduleEvent event;
    EXPECT_TRUE(stream->reader->Read(&event));
    EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
    return stream;
  }

  std::unique_ptr<pb::Resched::Stub> slow_stub_;
};

TEST_F(WatchTest, ManyStreamsHoldNoThread) {
  CreateSim("sim", 4, "conservative");
  // More streams than the service has worker threads: each still gets its first schedule and the
  // next change, and unary calls are answered meanwhile.
  std::vector<std::unique_ptr<Stream>> streams;
  streams.reserve(3 * kWorkerThreads);
  for (int i = 0; i < 3 * kWorkerThreads; ++i) streams.push_back(Watch("sim"));
  pb::ScheduleEvent event;
  for (auto& stream : streams) {
    ASSERT_TRUE(stream->reader->Read(&event));
    EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
  }
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(1, 10), &submitted));
  for (auto& stream : streams) {
    ASSERT_TRUE(stream->reader->Read(&event));
    EXPECT_EQ(event.kind(), pb::ScheduleEvent::JOB_CHANGED);
    EXPECT_EQ(event.job().id(), submitted.job().id());
    EXPECT_EQ(event.sequence(), 1);
  }
  for (auto& stream : streams) {
    stream->context.TryCancel();
    EXPECT_EQ(Drain(*stream).error_code(), grpc::StatusCode::CANCELLED);
  }
  ExpectValid(Schedule("sim"));
}

TEST_F(WatchTest, DeletingTheClusterEndsItsStreams) {
  CreateSim("sim", 4, "conservative");
  auto stream = WatchAfterFirstSchedule("sim");
  pb::DeleteClusterRequest request;
  request.set_name("sim");
  pb::DeleteClusterResponse response;
  grpc::ClientContext context;
  ASSERT_OK(stub_->DeleteCluster(&context, request, &response));
  const grpc::Status status = Drain(*stream);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "cluster 'sim' was deleted");
  // A stream on a cluster that does not exist ends at once.
  auto missing = Watch("sim");
  EXPECT_EQ(Drain(*missing).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(WatchTest, ShutdownEndsStreamsAsUnavailable) {
  CreateSim("sim", 4, "conservative");
  auto stream = WatchAfterFirstSchedule("sim");
  app_->BeginShutdown();
  EXPECT_EQ(Drain(*stream).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(WatchTest, AReaderTooFarBehindIsCutOff) {
  CreateSim("sim", 64, "conservative");
  auto stream = SlowWatchAfterFirstSchedule("sim");
  pb::JobSpec later = Rigid(1, 10);
  later.mutable_release()->set_seconds(1);
  for (int i = 0; i < 40; ++i) {
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("sim", later, &r));
  }
  // One clock move starts forty jobs: forty events published at once, far more than the
  // backlog of 5 the fixture allows behind the one being written.
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(AdvanceBy("sim", 2, &advanced));
  ASSERT_EQ(advanced.started_size(), 40);
  const grpc::Status status = Drain(*stream);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("5 events behind"), std::string::npos)
      << status.error_message();
  // The cluster goes on, and a new stream starts from a fresh first schedule.
  auto again = Watch("sim");
  pb::ScheduleEvent event;
  ASSERT_TRUE(again->reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
  EXPECT_EQ(event.schedule().jobs_size(), 40);
  again->context.TryCancel();
  Drain(*again);
  ExpectValid(Schedule("sim"));
}

// The memory all streams hold in unwritten events, against a small budget: 64 KiB, of which each
// of the 4 streams that may be open can always fill 16 KiB.
class WatchMemoryTest : public WatchTest {
 protected:
  WatchMemoryTest() {
    limits_.max_watch_backlog = 10'000;  // the budget, not the count, is what cuts here
    limits_.max_watch_bytes = 64 << 10;
    limits_.max_watch_streams = 4;
  }

  double PendingBytes() {
    for (const auto& collectable : app_->MetricsCollectables()) {
      for (const auto& family : collectable->Collect()) {
        if (family.name == "resched_watch_pending_bytes") return family.metric.at(0).gauge.value;
      }
    }
    return -1;
  }
};

TEST_F(WatchMemoryTest, ASnapshotPastTheBudgetIsRefusedAndASmallerOneServed) {
  CreateSim("big", 64, "conservative");
  for (int i = 0; i < 300; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("big", Rigid(1 + i % 8, 60), &submitted));
  }
  auto refused = Watch("big");
  const grpc::Status status = Drain(*refused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("this stream's first schedule of"));
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("(max_watch_memory_mib"));
  CreateSim("small", 4, "conservative");
  auto served = WatchAfterFirstSchedule("small");
  served->context.TryCancel();
  Drain(*served);
  ExpectValid(Schedule("big"));
}

TEST_F(WatchMemoryTest, AReaderBehindIsCutOffWhenTheBudgetIsFullAndOneKeepingUpIsNot) {
  CreateSim("sim", 64, "conservative");
  auto slow = SlowWatchAfterFirstSchedule("sim");
  auto keeping_up = WatchAfterFirstSchedule("sim");
  constexpr int kJobs = 400;
  for (int i = 0; i < kJobs; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("sim", Rigid(1, 60), &submitted));
  }
  const grpc::Status status = Drain(*slow);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("bytes of events not yet written, the limit "
                                   "(max_watch_memory_mib 0), and this stream's reader is"));
  // The other stream has every job, and is still open.
  int jobs_seen = 0;
  pb::ScheduleEvent event;
  while (jobs_seen < kJobs && keeping_up->reader->Read(&event)) {
    if (event.kind() == pb::ScheduleEvent::JOB_CHANGED) ++jobs_seen;
  }
  EXPECT_EQ(jobs_seen, kJobs);
  keeping_up->context.TryCancel();
  EXPECT_EQ(Drain(*keeping_up).error_code(), grpc::StatusCode::CANCELLED);
  // What the streams held is given back once gRPC is done with them.
  for (int i = 0; i < 500 && PendingBytes() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(PendingBytes(), 0);
  ExpectValid(Schedule("sim"));
}

class WatchCapTest : public ServerTest {
 protected:
  WatchCapTest() {
    limits_.max_watch_streams = 5;
    limits_.max_watch_streams_per_client = 3;
  }
  // A stream whose end, if it was refused, is read at once; nullptr-safe status.
  static grpc::Status EndOf(Stream& stream) {
    pb::ScheduleEvent event;
    while (stream.reader->Read(&event)) {
      if (event.kind() == pb::ScheduleEvent::SCHEDULE) return grpc::Status::OK;
    }
    return stream.reader->Finish();
  }
};

// The per-client cap refuses one client's extra stream, naming the cap; a stream that ends gives
// its place back.
TEST_F(WatchCapTest, OneClientHoldsAtMostItsShareAndGetsItBack) {
  CreateSim("sim", 4, "conservative");
  std::vector<std::unique_ptr<Stream>> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back(Watch("sim"));
    ASSERT_OK(EndOf(*streams.back()));
  }
  auto refused = Watch("sim");
  const grpc::Status status = EndOf(*refused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("3 WatchSchedule streams are open for one client, the limit "
                                   "per client; close one first (max_watch_streams_per_client"));
  streams.back()->context.TryCancel();
  Drain(*streams.back());
  streams.pop_back();
  // The place comes back once gRPC is done with the cancelled stream.
  grpc::Status again;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto stream = Watch("sim");
    again = EndOf(*stream);
    if (again.ok()) {
      streams.push_back(std::move(stream));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_OK(again);
  for (auto& stream : streams) {
    stream->context.TryCancel();
    Drain(*stream);
  }
}

}  // namespace
}  // namespace resched::server::testing

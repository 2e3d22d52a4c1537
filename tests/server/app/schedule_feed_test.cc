// ScheduleFeed: a change's events reach the watchers only once its record is durable, in
// sequence order, each once; a watcher that resumes gets exactly what it missed; a rollback ends
// the streams and sends nothing held.
#include "server/app/schedule_feed.h"

#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/app/shared_event.h"
#include "server/app/watch_budget.h"
#include "server/base/mutex.h"

namespace resched::server {
namespace {

class RecordingSink : public ScheduleSink {
 public:
  void Push(const SharedEvent& event) override {
    MutexLock lock(&mu_);
    sequences_.push_back(event.event->sequence());
    events_.push_back(event);
  }
  void End(const absl::Status& status) override {
    MutexLock lock(&mu_);
    ended_ = status;
  }
  bool Closed() const override {
    MutexLock lock(&mu_);
    return ended_.has_value();
  }
  std::vector<std::int64_t> sequences() const {
    MutexLock lock(&mu_);
    return sequences_;
  }
  std::optional<absl::Status> ended() const {
    MutexLock lock(&mu_);
    return ended_;
  }
  std::vector<SharedEvent> events() const {
    MutexLock lock(&mu_);
    return events_;
  }

 private:
  mutable Mutex mu_;
  std::vector<std::int64_t> sequences_ ABSL_GUARDED_BY(mu_);
  std::vector<SharedEvent> events_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
};

std::vector<pb::ScheduleEvent> Change(std::int64_t first, int count) {
  std::vector<pb::ScheduleEvent> events(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) events[static_cast<size_t>(i)].set_sequence(first + i);
  return events;
}

std::vector<std::int64_t> Range(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  for (std::int64_t s = from; s <= to; ++s) out.push_back(s);
  return out;
}

TEST(ScheduleFeed, EventsWaitForTheirRecordAndGoInOrder) {
  ScheduleFeed feed(100);
  auto sink = std::make_shared<RecordingSink>();
  feed.Subscribe(sink, 0);
  feed.Publish(Change(1, 2), /*lsn=*/5, /*durable=*/false);
  feed.Publish(Change(3, 1), /*lsn=*/6, /*durable=*/false);
  EXPECT_TRUE(sink->sequences().empty()) << "nothing before record 5 is durable";
  feed.Release(5);
  EXPECT_EQ(sink->sequences(), Range(1, 2));
  // A read's events behind a held change wait for it too.
  feed.Publish(Change(4, 1), /*lsn=*/6, /*durable=*/false);
  feed.Publish(Change(5, 1), /*lsn=*/6, /*durable=*/true);
  EXPECT_EQ(sink->sequences(), Range(1, 5));
  feed.Publish(Change(6, 1), /*lsn=*/0, /*durable=*/true);
  EXPECT_EQ(sink->sequences(), Range(1, 6));
}

TEST(ScheduleFeed, WatchersAndResumesShareOneCopyOfEachEventWithItsSize) {
  ScheduleFeed feed(100);
  auto first = std::make_shared<RecordingSink>();
  auto second = std::make_shared<RecordingSink>();
  feed.Subscribe(first, 0);
  feed.Subscribe(second, 0);
  std::vector<pb::ScheduleEvent> change = Change(1, 2);
  change[1].mutable_job()->set_id("j1");
  feed.Publish(change, /*lsn=*/0, /*durable=*/true);
  const std::vector<SharedEvent> got = first->events();
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(second->events().size(), 2u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].event, second->events()[i].event) << "one copy, not one per watcher";
    EXPECT_EQ(got[i].event->SerializeAsString(), change[i].SerializeAsString());
    EXPECT_EQ(got[i].bytes, WatchBudget::BytesOf(change[i]));
  }
  // The history kept for resumes holds the same events, not copies.
  auto resumed = std::make_shared<RecordingSink>();
  ASSERT_TRUE(feed.Resume(resumed, 0));
  ASSERT_EQ(resumed->events().size(), 2u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(resumed->events()[i].event, got[i].event);
    EXPECT_EQ(resumed->events()[i].bytes, got[i].bytes);
  }
}

TEST(ScheduleFeed, ANewWatcherGetsOnlyWhatItsScheduleLacks) {
  ScheduleFeed feed(100);
  feed.Publish(Change(1, 3), 1, false);
  auto sink = std::make_shared<RecordingSink>();
  feed.Subscribe(sink, 3);  // its schedule includes the held change
  feed.Publish(Change(4, 1), 2, false);
  feed.Release(2);
  EXPECT_EQ(sink->sequences(), Range(4, 4));
}

TEST(ScheduleFeed, AResumeGetsWhatWasSentAfterItsLastAndThenTheRest) {
  ScheduleFeed feed(100);
  feed.Publish(Change(1, 4), 1, true);
  feed.Publish(Change(5, 2), 2, false);  // held
  auto sink = std::make_shared<RecordingSink>();
  ASSERT_TRUE(feed.Resume(sink, 2));
  EXPECT_EQ(sink->sequences(), Range(3, 4));
  feed.Release(2);
  EXPECT_EQ(sink->sequences(), Range(3, 6));
  EXPECT_FALSE(feed.Resume(std::make_shared<RecordingSink>(), 7)) << "7 was never sent";
}

TEST(ScheduleFeed, ARollbackEndsTheStreamsAndSendsNothingHeld) {
  ScheduleFeed feed(100);
  auto sink = std::make_shared<RecordingSink>();
  feed.Subscribe(sink, 0);
  feed.Publish(Change(1, 1), 1, true);
  feed.Publish(Change(2, 1), 2, false);
  feed.Reset(1, absl::UnavailableError("rolled back"));
  feed.Release(2);
  EXPECT_EQ(sink->sequences(), Range(1, 1));
  ASSERT_TRUE(sink->ended().has_value());
  EXPECT_EQ(sink->ended()->code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(feed.Resume(std::make_shared<RecordingSink>(), 0)) << "the history is gone";
}

TEST(ScheduleFeed, ReplayedEventsServeAResumeAtAChangesStartOnly) {
  ScheduleFeed feed(100);
  feed.Replayed(Change(1, 3), 3, /*rebuilt=*/true);
  feed.Replayed(Change(4, 2), 5, /*rebuilt=*/true);
  auto sink = std::make_shared<RecordingSink>();
  ASSERT_TRUE(feed.Resume(sink, 3));
  EXPECT_EQ(sink->sequences(), Range(4, 5));
  EXPECT_FALSE(feed.Resume(std::make_shared<RecordingSink>(), 4))
      << "a replay's order within a change may differ from what the watcher saw";
  feed.Replayed({}, 7, /*rebuilt=*/false);
  EXPECT_FALSE(feed.Resume(std::make_shared<RecordingSink>(), 5));
}

TEST(ScheduleFeed, ReleasesFromTheJournalsThreadKeepTheOrder) {
  ScheduleFeed feed(10'000);
  auto sink = std::make_shared<RecordingSink>();
  feed.Subscribe(sink, 0);
  constexpr int kChanges = 2000;
  std::thread journal([&feed] {
    for (int lsn = 1; lsn <= kChanges; lsn += 7) feed.Release(lsn);
    feed.Release(kChanges);
  });
  for (int lsn = 1; lsn <= kChanges; ++lsn) feed.Publish(Change(lsn, 1), lsn, false);
  journal.join();
  feed.Release(kChanges);
  EXPECT_EQ(sink->sequences(), Range(1, kChanges));
}

}  // namespace
}  // namespace resched::server

// Tests of the reservation schedules of Aida & Casanova 2008, §3.2.1 on small hand-made logs and
// on the shared SWF logs of the paper (shared/data/swf).
#include "core/workload/reservation_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/core/workload/test_data.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Time kS = kMicrosPerSecond;
constexpr std::int64_t kDay = 86400;

SwfRecord Job(std::int64_t number, std::int64_t submit, std::int64_t wait, std::int64_t run,
              std::int64_t k, std::int64_t partition = 1) {
  SwfRecord r;
  r.job_number = number;
  r.submit_time = submit;
  r.wait_time = wait;
  r.run_time = run;
  r.allocated_processors = k;
  r.partition = partition;
  return r;
}

// Brute force: the largest total k over time.
int PeakLoad(const std::vector<LogReservation>& reservations) {
  std::vector<std::pair<Time, int>> events;
  for (const auto& r : reservations) {
    events.push_back({r.start, r.k});
    events.push_back({r.end, -r.k});
  }
  std::sort(events.begin(), events.end());  // ends (-k) before starts at the same instant
  int load = 0, peak = 0;
  for (const auto& [t, d] : events) peak = std::max(peak, load += d);
  return peak;
}

// The paper's logs (Table 2), read once: CTC alone has 77,000 jobs.
const SwfLog* CachedLog(const std::string& name) {
  static auto* logs = new std::map<std::string, SwfLog>();
  auto it = logs->find(name);
  if (it != logs->end()) return &it->second;
  absl::StatusOr<SwfLog> log = testing::ReadTestLog(name, 0);
  if (!log.ok()) return nullptr;
  return &logs->emplace(name, *std::move(log)).first->second;
}

TEST(ReservationScheduleTest, DecayNamesRoundTrip) {
  for (auto d : {ReservationDecay::kNone, ReservationDecay::kReal, ReservationDecay::kLinear,
                 ReservationDecay::kExpo}) {
    absl::StatusOr<ReservationDecay> parsed = ParseReservationDecay(ReservationDecayName(d));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, d);
  }
  EXPECT_FALSE(ParseReservationDecay("quadratic").ok());
}

TEST(ReservationScheduleTest, ProcessorCountFromHeaderOrRecords) {
  SwfLog log;
  log.records = {Job(1, 0, 0, 10, 7), Job(2, 0, 0, 10, 12)};
  EXPECT_EQ(SwfProcessorCount(log), 12);
  log.header_fields = {{"MaxNodes", "64"}};
  EXPECT_EQ(SwfProcessorCount(log), 64);
  log.header_fields = {{"MaxNodes", "64"}, {"MaxProcs", "128 (a note)"}};
  EXPECT_EQ(SwfProcessorCount(log), 128);
}

// A tiny log where every job is tagged (phi = 1): the decay rules can be checked one by one.
SwfLog TinyLog() {
  SwfLog log;
  log.header_fields = {{"MaxProcs", "10"}};
  log.records = {
      Job(1, 0, 0, 50, 4),       // ends before T = 100: only history
      Job(2, 50, 10, 100, 3),    // running at T: start clipped to T
      Job(3, 90, 60, 20, 2),     // queued at T, submitted before: kept by real
      Job(4, 120, 0, 30, 5),     // submitted after T: dropped by real
      Job(5, 100, 0, 10, 1),     // submitted at T: kept by real
      Job(6, 0, -1, 10, 1),      // unknown wait: unusable
      Job(7, 10, 0, 0, 1),       // zero run time: unusable
      Job(8, 99, 1, 1000, 9),    // over capacity next to job 2: dropped
      Job(9, 100, 0, 10, 1, 2),  // another partition
  };
  return log;
}

TEST(ReservationScheduleTest, RealKeepsWhatWasKnownAtT) {
  ReservationScheduleOptions o;
  o.phi = 1;
  o.decay = ReservationDecay::kReal;
  o.time_seconds = 100;
  o.history_window = 100 * kS;
  absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(TinyLog(), o);
  ASSERT_OK(s);
  EXPECT_EQ(s->processors, 10);
  EXPECT_EQ(s->now, 100 * kS);
  EXPECT_EQ(s->usable_jobs, 7);
  EXPECT_EQ(s->skipped_records, 2);
  EXPECT_EQ(s->tagged_jobs, 7);
  EXPECT_EQ(s->dropped_over_capacity, 1);  // job 8 (9 processors while job 2 holds 3)
  std::map<std::int64_t, LogReservation> by_job;
  for (const auto& r : s->reservations) by_job[r.job_number] = r;
  ASSERT_EQ(by_job.size(), 4u);
  EXPECT_EQ(by_job[2].start, 100 * kS);  // clipped
  EXPECT_EQ(by_job[2].end, 160 * kS);
  EXPECT_EQ(by_job[3].start, 150 * kS);
  EXPECT_EQ(by_job[3].end, 170 * kS);
  EXPECT_EQ(by_job[3].k, 2);
  EXPECT_TRUE(by_job.count(5));
  EXPECT_TRUE(by_job.count(9));  // no partition filter
  EXPECT_FALSE(by_job.count(4));
  // History over [0, 100): job 1 holds 4 on [0, 50), job 2 holds 3 on [60, 100), job 8 holds 9
  // on [100, ...) (outside). Available: 6 * 50 + 10 * 10 + 7 * 40 = 680 over 100 s.
  EXPECT_DOUBLE_EQ(s->historical_available, 6.8);
  for (size_t i = 1; i < s->reservations.size(); ++i) {
    EXPECT_LE(s->reservations[i - 1].start, s->reservations[i].start);
  }
}

TEST(ReservationScheduleTest, PartitionFilterAndProcessorOverride) {
  ReservationScheduleOptions o;
  o.phi = 1;
  o.decay = ReservationDecay::kNone;
  o.time_seconds = 100;
  o.partition = 2;
  absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(TinyLog(), o);
  ASSERT_OK(s);
  EXPECT_EQ(s->processors, 1);  // largest allocation in the partition, not the header
  ASSERT_EQ(s->reservations.size(), 1u);
  EXPECT_EQ(s->reservations[0].job_number, 9);
  o.processors = 32;
  s = BuildReservationSchedule(TinyLog(), o);
  ASSERT_OK(s);
  EXPECT_EQ(s->processors, 32);
  o.partition = 7;
  s = BuildReservationSchedule(TinyLog(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("partition 7"), absl::string_view::npos);
}

TEST(ReservationScheduleTest, PartitionProcessorsFromTheHeaderList) {
  SwfLog log = TinyLog();
  log.header_fields = {{"MaxProcs", "1664 (72, 1368, 224)"}};
  for (SwfRecord& r : log.records) r.partition = 3;
  ReservationScheduleOptions o;
  o.partition = 3;
  o.time_seconds = 100;
  absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(log, o);
  ASSERT_OK(s);
  EXPECT_EQ(s->processors, 224);
  o.partition = -1;
  s = BuildReservationSchedule(log, o);
  ASSERT_OK(s);
  EXPECT_EQ(s->processors, 1664);
}

// SDSC_DS in the paper: partition 3 only, 224 processors (from the header's per-partition list).
// The partition's records alone overlap beyond 224 at times (864 processors at once at worst),
// so the schedule only fits thanks to the capacity pass.
TEST(ReservationScheduleTest, SdscDsPartitionThree) {
  const SwfLog* log = CachedLog("SDSC-DS-2004-2.1-cln.swf.gz");
  REQUIRE_SHARED_DATA(log != nullptr, "the SDSC-DS log");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    ReservationScheduleOptions o;
    o.partition = 3;
    o.decay = ReservationDecay::kNone;
    o.seed = seed;
    absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(*log, o);
    ASSERT_OK(s);
    EXPECT_EQ(s->processors, 224);
    EXPECT_LE(PeakLoad(s->reservations), 224);
    EXPECT_GT(s->reservations.size(), 0u);
    EXPECT_GE(s->historical_available, 0);
    EXPECT_LE(s->historical_available, 224);
  }
}

TEST(ReservationScheduleTest, RejectsBadOptionsNamingThem) {
  struct Case {
    void (*mutate)(ReservationScheduleOptions&);
    const char* field;
  };
  const Case cases[] = {
      {[](ReservationScheduleOptions& o) { o.phi = 0; }, "phi must be in (0, 1]"},
      {[](ReservationScheduleOptions& o) { o.phi = 1.5; }, "phi"},
      {[](ReservationScheduleOptions& o) { o.time_seconds = -1; }, "time_seconds"},
      {[](ReservationScheduleOptions& o) { o.horizon = 0; }, "horizon"},
      {[](ReservationScheduleOptions& o) { o.expo_half_life = 0; }, "expo_half_life"},
      {[](ReservationScheduleOptions& o) { o.history_window = -1; }, "history_window"},
      {[](ReservationScheduleOptions& o) { o.processors = -2; }, "processors"},
  };
  for (const Case& c : cases) {
    ReservationScheduleOptions o;
    c.mutate(o);
    absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(TinyLog(), o);
    ASSERT_FALSE(s.ok()) << c.field;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.field), absl::string_view::npos) << s.status();
  }
  EXPECT_FALSE(BuildReservationSchedule(SwfLog{}, {}).ok());
}

TEST(ReservationScheduleTest, HistoricalAvailableIsATimeWeightedAverage) {
  // P = 10 over [0, 100): 4 on [0, 50), 8 on [25, 75) (over-booked 12 on [25, 50): counts as 0).
  std::vector<LogReservation> r = {{0, 50, 4}, {25, 75, 8}};
  EXPECT_DOUBLE_EQ(HistoricalAvailableProcessors(r, 10, 0, 100),
                   (6 * 25 + 0 + 2 * 25 + 10 * 25) / 100.0);
  EXPECT_DOUBLE_EQ(HistoricalAvailableProcessors(r, 10, 50, 50), 10);
  EXPECT_DOUBLE_EQ(HistoricalAvailableProcessors({}, 10, 0, 100), 10);
}

TEST(ReservationScheduleTest, TimelineHelperSkipsWhatDoesNotFit) {
  Timeline timeline(4);
  std::vector<LogReservation> r = {{0, 10, 3}, {5, 15, 3}, {10, 20, 1}, {0, 5, 9}};
  absl::StatusOr<TimelineFill> fill = AddReservationsToTimeline(r, timeline);
  ASSERT_OK(fill);
  EXPECT_EQ(fill->added, 2);
  EXPECT_EQ(fill->skipped, 2);
  EXPECT_EQ(fill->ids.size(), 2u);
  EXPECT_EQ(timeline.FreeAt(12), 3);
  std::vector<LogReservation> bad = {{10, 10, 1}};
  EXPECT_FALSE(AddReservationsToTimeline(bad, timeline).ok());
}

class LogTest : public ::testing::TestWithParam<const char*> {
 protected:
  static const SwfLog* Log(const std::string& name) { return CachedLog(name); }
};

TEST_P(LogTest, SchedulesFitAndRespectTheirDecay) {
  const SwfLog* log = Log(GetParam());
  REQUIRE_SHARED_DATA(log != nullptr, "the log " << GetParam());
  for (auto decay : {ReservationDecay::kNone, ReservationDecay::kReal, ReservationDecay::kLinear,
                     ReservationDecay::kExpo}) {
    for (double phi : {0.1, 0.2, 0.5}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE(absl::StrCat(ReservationDecayName(decay), " phi ", phi, " seed ", seed));
        ReservationScheduleOptions o;
        o.phi = phi;
        o.decay = decay;
        o.seed = seed;
        absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(*log, o);
        ASSERT_OK(s);
        EXPECT_EQ(s->processors, SwfProcessorCount(*log));
        EXPECT_EQ(s->tagged_jobs, std::llround(phi * static_cast<double>(s->usable_jobs)));
        EXPECT_LE(PeakLoad(s->reservations), s->processors);
        EXPECT_GE(s->historical_available, 0);
        EXPECT_LE(s->historical_available, s->processors);
        EXPECT_LT(s->dropped_over_capacity, 1 + s->tagged_jobs / 100) << "too many drops";
        for (const auto& r : s->reservations) {
          ASSERT_GE(r.start, s->now);
          ASSERT_GT(r.end, r.start);
          ASSERT_GE(r.k, 1);
          ASSERT_LE(r.k, s->processors);
          if (decay == ReservationDecay::kReal) {
            ASSERT_LE(r.submit, s->now);
          }
          if (decay == ReservationDecay::kLinear || decay == ReservationDecay::kExpo) {
            ASSERT_LT(r.start, s->now + 7 * kDay * kS);
          }
        }
        Timeline timeline(s->processors);
        absl::StatusOr<TimelineFill> fill = AddReservationsToTimeline(s->reservations, timeline);
        ASSERT_OK(fill);
        EXPECT_EQ(fill->skipped, 0);
        EXPECT_EQ(fill->added, static_cast<int>(s->reservations.size()));

        // Deterministic per seed.
        absl::StatusOr<ReservationSchedule> again = BuildReservationSchedule(*log, o);
        ASSERT_OK(again);
        EXPECT_EQ(again->now, s->now);
        ASSERT_EQ(again->reservations.size(), s->reservations.size());
        for (size_t i = 0; i < s->reservations.size(); ++i) {
          EXPECT_EQ(again->reservations[i].job_number, s->reservations[i].job_number);
        }
      }
    }
  }
}

// Without decay, a fraction phi of the jobs still active or to come at T are reservations.
TEST_P(LogTest, PhiFractionOfTheActiveJobs) {
  const SwfLog* log = Log(GetParam());
  REQUIRE_SHARED_DATA(log != nullptr, "the log " << GetParam());
  std::int64_t first = log->records.front().submit_time;
  std::int64_t last = log->records.back().submit_time;
  const std::int64_t t = first + (last - first) / 4;
  std::int64_t active = 0;
  for (const SwfRecord& r : log->records) {
    if (r.submit_time >= 0 && r.wait_time >= 0 && r.run_time > 0 && r.allocated_processors >= 1 &&
        r.submit_time + r.wait_time + r.run_time > t) {
      ++active;
    }
  }
  for (double phi : {0.1, 0.2, 0.5}) {
    ReservationScheduleOptions o;
    o.phi = phi;
    o.decay = ReservationDecay::kNone;
    o.time_seconds = t;
    absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(*log, o);
    ASSERT_OK(s);
    const double kept = static_cast<double>(s->reservations.size() + s->dropped_over_capacity);
    EXPECT_NEAR(kept / static_cast<double>(active), phi, 0.05 * phi) << "phi " << phi;
  }
  // The tagged sets are nested for one seed, so more reservations leave fewer processors.
  ReservationScheduleOptions o;
  o.decay = ReservationDecay::kNone;
  o.time_seconds = t;
  double previous = 1e18;
  for (double phi : {0.1, 0.2, 0.5, 1.0}) {
    o.phi = phi;
    absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(*log, o);
    ASSERT_OK(s);
    EXPECT_LE(s->historical_available, previous + 1e-9);
    previous = s->historical_available;
  }
}

// real = none minus the jobs submitted after T (same seed and T: same tags).
TEST_P(LogTest, RealIsNoneWithoutLaterSubmissions) {
  const SwfLog* log = Log(GetParam());
  REQUIRE_SHARED_DATA(log != nullptr, "the log " << GetParam());
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    ReservationScheduleOptions o;
    o.seed = seed;
    o.decay = ReservationDecay::kNone;
    absl::StatusOr<ReservationSchedule> none = BuildReservationSchedule(*log, o);
    o.decay = ReservationDecay::kReal;
    absl::StatusOr<ReservationSchedule> real = BuildReservationSchedule(*log, o);
    ASSERT_OK(none);
    ASSERT_OK(real);
    ASSERT_EQ(none->now, real->now);
    EXPECT_DOUBLE_EQ(none->historical_available, real->historical_available);
    std::set<std::int64_t> expected, got;
    for (const auto& r : none->reservations) {
      if (r.submit <= none->now) expected.insert(r.job_number);
    }
    for (const auto& r : real->reservations) got.insert(r.job_number);
    if (none->dropped_over_capacity == 0) {
      EXPECT_EQ(got, expected);
    } else {
      EXPECT_TRUE(std::includes(got.begin(), got.end(), expected.begin(), expected.end()));
    }
  }
}

// linear / expo thin the stationary schedule: per day d after T, the share of the reservations
// kept is about 1 - (d + 1/2) / 7 (linear) or 2^-(d + 1/2) (expo, one-day half life).
TEST_P(LogTest, DecayThinsPerDay) {
  const SwfLog* log = Log(GetParam());
  REQUIRE_SHARED_DATA(log != nullptr, "the log " << GetParam());
  for (auto decay : {ReservationDecay::kLinear, ReservationDecay::kExpo}) {
    std::vector<double> none_count(7, 0), kept_count(7, 0);
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      ReservationScheduleOptions o;
      o.phi = 0.5;
      o.seed = seed;
      o.decay = ReservationDecay::kNone;
      absl::StatusOr<ReservationSchedule> none = BuildReservationSchedule(*log, o);
      o.decay = decay;
      absl::StatusOr<ReservationSchedule> kept = BuildReservationSchedule(*log, o);
      ASSERT_OK(none);
      ASSERT_OK(kept);
      auto count = [](const ReservationSchedule& s, std::vector<double>& per_day) {
        for (const auto& r : s.reservations) {
          if (r.start == s.now) continue;  // active at T: never thinned
          const std::int64_t day = (r.start - s.now) / (kDay * kS);
          if (day < 7) per_day[day] += 1;
        }
      };
      count(*none, none_count);
      count(*kept, kept_count);
    }
    for (int d = 0; d < 7; ++d) {
      SCOPED_TRACE(absl::StrCat(ReservationDecayName(decay), " day ", d));
      ASSERT_GT(none_count[d], 0);
      const double share = kept_count[d] / none_count[d];
      const double expected =
          decay == ReservationDecay::kLinear ? 1 - (d + 0.5) / 7 : std::exp2(-(d + 0.5));
      // Expo averages 2^-x over the day: a little above 2^-(d + 1/2).
      EXPECT_NEAR(share, expected, 0.06 + 0.1 * expected);
      if (d > 0) {
        EXPECT_LT(kept_count[d], kept_count[d - 1] * 1.05);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PaperLogs, LogTest,
                         ::testing::Values("CTC-SP2-1996-3.1-cln.swf.gz",
                                           "OSC-Clust-2000-3.1-cln.swf.gz"));

}  // namespace
}  // namespace resched

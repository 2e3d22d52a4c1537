// Synthetic advance-reservation schedules from a batch log, after Aida & Casanova 2008, §3.2.1:
// a fraction phi of the log's jobs, drawn uniformly, become reservations (start = submit + wait,
// end = start + run time, k = allocated processors); the other jobs are dropped. At a random time T
// of the log, the schedule is what is active or starts at or after T, optionally made
// non-stationary by one of the paper's three methods:
//   real   - drop reservations of jobs submitted after T (what was known at T);
//   linear - keep a reservation starting d days after T with probability 1 - d / 7, none from
//            T + 7 days on: the number per day falls linearly to zero at T + 7 days;
//   expo   - keep it with probability 2^(-d) (the rate halves every day; the paper gives no
//            rate) and none from T + 7 days on, as for linear.
// Deviations and choices: the paper "adds and removes" reservations for linear and expo; we only
// remove (thin), since the stationary schedule already has the day-0 rate. Exactly round(phi * N)
// jobs are tagged (at least one). Reservations active at T are kept with their start clipped to T.
// A reservation that does not fit the machine next to the ones before it (SWF logs have a few
// inconsistent records) is dropped and counted. T is drawn uniformly among whole seconds of
// [first submit + history window, last submit - horizon] when the log is long enough, else of
// [first submit, last submit]. `none` (no decay, the stationary schedule of earlier work) is
// provided for comparison.
//
// q, "the historical average number of available processors" of §4.2 (BL_CPAR, BD_CPAR), is the
// time-weighted average of max(0, P - reserved) over the window [T - history_window, T) (clipped
// to the log's first submit) of the tagged jobs' reservations, without decay (the past is known).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/model/time.h"
#include "core/timeline/timeline.h"
#include "core/workload/swf.h"

namespace resched {

inline constexpr Duration kMicrosPerDay = 24 * 3600 * kMicrosPerSecond;

enum class ReservationDecay { kNone, kReal, kLinear, kExpo };

// "none", "real", "linear", "expo".
const char* ReservationDecayName(ReservationDecay decay);
// The inverse; INVALID_ARGUMENT listing the names otherwise.
absl::StatusOr<ReservationDecay> ParseReservationDecay(std::string_view name);

struct ReservationScheduleOptions {
  double phi = 0.2;  // fraction of the jobs tagged as reservations, in (0, 1]
  ReservationDecay decay = ReservationDecay::kReal;
  std::optional<std::int64_t> time_seconds;  // T in log seconds; nullopt: drawn at random
  Duration horizon = 7 * kMicrosPerDay;      // linear, expo: nothing starts at T + horizon or later
  Duration expo_half_life = kMicrosPerDay;   // expo: the rate halves every half life
  Duration history_window = 7 * kMicrosPerDay;  // for historical_available (q)
  int processors = 0;  // P; 0: from the log (SwfProcessorCount, see partition)
  int partition = -1;  // only jobs of this SWF partition (field 16); -1: all jobs
  std::uint64_t seed = 1;
};

struct LogReservation {
  Time start = 0;  // microseconds of log time; >= the schedule's `now`
  Time end = 0;    // exclusive
  int k = 0;
  std::int64_t job_number = -1;  // the SWF job it comes from
  Time submit = 0;               // that job's submit time, microseconds
};

struct ReservationSchedule {
  int processors = 0;                        // P
  Time now = 0;                              // T in microseconds of log time
  std::vector<LogReservation> reservations;  // sorted by (start, end, job_number); fit within P
  double historical_available = 0;           // q, in [0, P]
  // How the log was used.
  std::int64_t usable_jobs = 0;      // records with known submit, wait, run time and processors
  std::int64_t skipped_records = 0;  // the others (and those outside `partition`)
  std::int64_t tagged_jobs = 0;      // round(phi * usable_jobs)
  std::int64_t dropped_over_capacity = 0;
};

// The log's processor count: header MaxProcs, else MaxNodes, else the largest allocation of a
// record; 0 when none is known.
int SwfProcessorCount(const SwfLog& log);

// Errors: INVALID_ARGUMENT naming the option and its limit, or when the log has no usable job.
// With a partition and no `processors`, P is the partition's entry of a "MaxProcs: total (p1,
// p2, ...)" header (SDSC-DS: 224 for partition 3, as in the paper's Table 2), else the largest
// allocation in that partition.
absl::StatusOr<ReservationSchedule> BuildReservationSchedule(
    const SwfLog& log, const ReservationScheduleOptions& options = {});

// Time-weighted average over [from, to) of max(0, processors - reserved(t)); `processors` for an
// empty window.
double HistoricalAvailableProcessors(absl::Span<const LogReservation> reservations, int processors,
                                     Time from, Time to);

struct TimelineFill {
  int added = 0;
  int skipped = 0;                 // did not fit next to what the timeline already held
  std::vector<ReservationId> ids;  // of the added ones, in input order
};

// Adds the reservations to `timeline` in order, skipping (and counting) those that do not fit.
// Errors other than RESOURCE_EXHAUSTED from Timeline::Add are returned (and leave the earlier
// additions in place).
absl::StatusOr<TimelineFill> AddReservationsToTimeline(
    absl::Span<const LogReservation> reservations, Timeline& timeline);

}  // namespace resched

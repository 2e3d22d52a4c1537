// Reservation schedules from SWF logs (Aida & Casanova 2008, §3.2.1) and the historical average
// of available processors (§4.2); choices and deviations are documented in the header.
#include "core/workload/reservation_schedule.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/model/cluster.h"
#include "core/workload/random.h"

namespace resched {
namespace {

constexpr std::int64_t kMaxLogSeconds = std::int64_t{1} << 40;  // ~35,000 years, far from overflow

absl::Status CheckOptions(const ReservationScheduleOptions& o) {
  if (!(o.phi > 0 && o.phi <= 1)) {
    return absl::InvalidArgumentError(absl::StrFormat("phi must be in (0, 1], got %g", o.phi));
  }
  if (o.time_seconds.has_value() && (*o.time_seconds < 0 || *o.time_seconds > kMaxLogSeconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_seconds must be in [0, ", kMaxLogSeconds, "], got ", *o.time_seconds));
  }
  const Duration max_span = kMaxLogSeconds * kMicrosPerSecond;
  if (o.horizon < 1 || o.horizon > max_span) {
    return absl::InvalidArgumentError(
        absl::StrCat("horizon must be in [1, ", max_span, "] microseconds, got ", o.horizon));
  }
  if (o.expo_half_life < 1 || o.expo_half_life > max_span) {
    return absl::InvalidArgumentError(absl::StrCat("expo_half_life must be in [1, ", max_span,
                                                   "] microseconds, got ", o.expo_half_life));
  }
  if (o.history_window < 0 || o.history_window > max_span) {
    return absl::InvalidArgumentError(absl::StrCat("history_window must be in [0, ", max_span,
                                                   "] microseconds, got ", o.history_window));
  }
  if (o.processors < 0 || o.processors > kMaxClusterProcessors) {
    return absl::InvalidArgumentError(
        absl::StrCat("processors must be in [0, ", kMaxClusterProcessors, "], got ", o.processors));
  }
  return absl::OkStatus();
}

bool Usable(const SwfRecord& r, int partition) {
  if (partition >= 0 && r.partition != partition) return false;
  return r.submit_time >= 0 && r.submit_time <= kMaxLogSeconds && r.wait_time >= 0 &&
         r.wait_time <= kMaxLogSeconds && r.run_time > 0 && r.run_time <= kMaxLogSeconds &&
         r.allocated_processors >= 1 && r.allocated_processors <= kMaxClusterProcessors;
}

// A whole number of seconds uniform in [lo, hi].
std::int64_t UniformSeconds(WorkloadRng& rng, std::int64_t lo, std::int64_t hi) {
  const double span = static_cast<double>(hi - lo) + 1.0;
  return std::min(hi, lo + static_cast<std::int64_t>(rng.Uniform01() * span));
}

// The partition's entry of a "MaxProcs: total (p1, p2, ...)" header (SDSC-DS), or 0.
int PartitionProcessorsFromHeader(const SwfLog& log, int partition) {
  const std::optional<std::string> value = log.HeaderValue("MaxProcs");
  if (!value || partition < 1) return 0;
  const std::size_t open = value->find('(');
  const std::size_t close = value->find(')', open);
  if (open == std::string::npos || close == std::string::npos) return 0;
  const std::vector<std::string> parts =
      absl::StrSplit(value->substr(open + 1, close - open - 1), ',');
  if (static_cast<int>(parts.size()) < partition) return 0;
  int count = 0;
  if (!absl::SimpleAtoi(parts[partition - 1], &count) || count < 1 ||
      count > kMaxClusterProcessors) {
    return 0;
  }
  return count;
}

}  // namespace

const char* ReservationDecayName(ReservationDecay decay) {
  switch (decay) {
    case ReservationDecay::kNone:
      return "none";
    case ReservationDecay::kReal:
      return "real";
    case ReservationDecay::kLinear:
      return "linear";
    case ReservationDecay::kExpo:
      return "expo";
  }
  return "?";
}

absl::StatusOr<ReservationDecay> ParseReservationDecay(std::string_view name) {
  for (ReservationDecay d : {ReservationDecay::kNone, ReservationDecay::kReal,
                             ReservationDecay::kLinear, ReservationDecay::kExpo}) {
    if (name == ReservationDecayName(d)) return d;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("decay must be one of none, real, linear, expo; got '", std::string(name), "'"));
}

int SwfProcessorCount(const SwfLog& log) {
  for (const char* key : {"MaxProcs", "MaxNodes"}) {
    if (std::optional<std::int64_t> v = log.HeaderInt(key);
        v.has_value() && *v >= 1 && *v <= kMaxClusterProcessors) {
      return static_cast<int>(*v);
    }
  }
  std::int64_t most = 0;
  for (const SwfRecord& r : log.records) most = std::max(most, r.allocated_processors);
  return static_cast<int>(std::min<std::int64_t>(most, kMaxClusterProcessors));
}

absl::StatusOr<ReservationSchedule> BuildReservationSchedule(const SwfLog& log,
                                                             const ReservationScheduleOptions& o) {
  if (absl::Status status = CheckOptions(o); !status.ok()) return status;
  ReservationSchedule out;
  std::vector<const SwfRecord*> jobs;
  for (const SwfRecord& r : log.records) {
    if (Usable(r, o.partition)) jobs.push_back(&r);
  }
  out.usable_jobs = static_cast<std::int64_t>(jobs.size());
  out.skipped_records = static_cast<std::int64_t>(log.records.size()) - out.usable_jobs;
  if (jobs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the log has no job with known submit time, wait time, run time > 0 and allocated "
        "processors",
        o.partition >= 0 ? absl::StrCat(" in partition ", o.partition) : ""));
  }

  if (o.processors > 0) {
    out.processors = o.processors;
  } else if (o.partition >= 0) {
    out.processors = PartitionProcessorsFromHeader(log, o.partition);
    if (out.processors == 0) {
      for (const SwfRecord* r : jobs) {
        out.processors = std::max(out.processors, static_cast<int>(r->allocated_processors));
      }
    }
  } else {
    out.processors = SwfProcessorCount(log);
  }
  if (out.processors < 1) {
    return absl::InvalidArgumentError("the log gives no processor count: set processors");
  }

  WorkloadRng rng(o.seed);
  // Exactly round(phi * N) jobs: a partial Fisher-Yates shuffle, then back to log order.
  const std::size_t n = jobs.size();
  const std::size_t tagged = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::llround(o.phi * static_cast<double>(n))), 1, n);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t i = 0; i < tagged; ++i) {
    const std::size_t j =
        std::min(n - 1, i + static_cast<std::size_t>(rng.Uniform01() * static_cast<double>(n - i)));
    std::swap(order[i], order[j]);
  }
  order.resize(tagged);
  std::sort(order.begin(), order.end());
  out.tagged_jobs = static_cast<std::int64_t>(tagged);

  std::int64_t first_submit = jobs.front()->submit_time;
  std::int64_t last_submit = first_submit;
  for (const SwfRecord* r : jobs) {
    first_submit = std::min(first_submit, r->submit_time);
    last_submit = std::max(last_submit, r->submit_time);
  }
  std::int64_t t_seconds = 0;
  if (o.time_seconds.has_value()) {
    t_seconds = *o.time_seconds;
  } else {
    // Leave room for a full history window before T and a full horizon after it when possible.
    const std::int64_t lo = first_submit + o.history_window / kMicrosPerSecond;
    const std::int64_t hi = last_submit - o.horizon / kMicrosPerSecond;
    t_seconds =
        lo <= hi ? UniformSeconds(rng, lo, hi) : UniformSeconds(rng, first_submit, last_submit);
  }
  const Time now = t_seconds * kMicrosPerSecond;
  out.now = now;

  const Time history_from = std::max(now - o.history_window, first_submit * kMicrosPerSecond);
  std::vector<LogReservation> history;
  std::vector<LogReservation> candidates;
  for (std::size_t index : order) {
    const SwfRecord& r = *jobs[index];
    LogReservation res;
    res.start = (r.submit_time + r.wait_time) * kMicrosPerSecond;
    res.end = res.start + r.run_time * kMicrosPerSecond;
    res.k = static_cast<int>(r.allocated_processors);
    res.job_number = r.job_number;
    res.submit = r.submit_time * kMicrosPerSecond;
    if (res.start < now && res.end > history_from) history.push_back(res);
    if (res.end <= now) continue;
    bool keep = true;
    const double ahead = static_cast<double>(res.start - now);
    switch (o.decay) {
      case ReservationDecay::kNone:
        break;
      case ReservationDecay::kReal:
        keep = res.submit <= now;
        break;
      case ReservationDecay::kLinear:
      case ReservationDecay::kExpo:
        if (res.start >= now + o.horizon) {
          keep = false;
        } else if (res.start > now) {
          const double p = o.decay == ReservationDecay::kLinear
                               ? 1.0 - ahead / static_cast<double>(o.horizon)
                               : std::exp2(-ahead / static_cast<double>(o.expo_half_life));
          keep = rng.Uniform01() < p;
        }
        break;
    }
    if (!keep) continue;
    res.start = std::max(res.start, now);
    candidates.push_back(res);
  }
  out.historical_available =
      HistoricalAvailableProcessors(history, out.processors, history_from, now);

  std::sort(
      candidates.begin(), candidates.end(), [](const LogReservation& a, const LogReservation& b) {
        return std::tie(a.start, a.end, a.job_number) < std::tie(b.start, b.end, b.job_number);
      });
  Timeline timeline(out.processors);
  for (const LogReservation& res : candidates) {
    if (res.k <= out.processors && timeline.Add(res.start, res.end, res.k).ok()) {
      out.reservations.push_back(res);
    } else {
      ++out.dropped_over_capacity;
    }
  }
  return out;
}

double HistoricalAvailableProcessors(absl::Span<const LogReservation> reservations, int processors,
                                     Time from, Time to) {
  if (to <= from) return processors;
  std::vector<std::pair<Time, int>> events;
  for (const LogReservation& r : reservations) {
    const Time s = std::max(r.start, from);
    const Time e = std::min(r.end, to);
    if (s >= e) continue;
    events.emplace_back(s, r.k);
    events.emplace_back(e, -r.k);
  }
  std::sort(events.begin(), events.end());
  double area = 0;  // processor-microseconds available
  std::int64_t reserved = 0;
  Time t = from;
  for (const auto& [when, delta] : events) {
    area += static_cast<double>(std::max<std::int64_t>(0, processors - reserved)) *
            static_cast<double>(when - t);
    t = when;
    reserved += delta;
  }
  area += static_cast<double>(std::max<std::int64_t>(0, processors - reserved)) *
          static_cast<double>(to - t);
  return area / static_cast<double>(to - from);
}

absl::StatusOr<TimelineFill> AddReservationsToTimeline(
    absl::Span<const LogReservation> reservations, Timeline& timeline) {
  TimelineFill fill;
  for (const LogReservation& r : reservations) {
    absl::StatusOr<ReservationId> id = timeline.Add(r.start, r.end, r.k);
    if (id.ok()) {
      ++fill.added;
      fill.ids.push_back(*id);
    } else if (absl::IsResourceExhausted(id.status())) {
      ++fill.skipped;
    } else {
      return id.status();
    }
  }
  return fill;
}

}  // namespace resched

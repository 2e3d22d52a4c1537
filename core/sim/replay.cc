#include "core/sim/replay.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched {
namespace {

// What the loop knows about a submitted job; parallel to the records, in submission order.
struct Live {
  bool started = false;
  Time planned_end = 0;
  Time actual_end = 0;
  double fraction = 1;
  std::int64_t seen = -1;  // the last stop whose snapshot listed the job
};

absl::Status CheckWorkload(const Workload& workload, const std::vector<int>& order) {
  for (int i : order) {
    const WorkloadJob& w = workload.jobs[i];
    if (!(w.runtime_fraction > 0 && w.runtime_fraction <= 1)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "workload.jobs[%d].runtime_fraction must be in (0, 1], got %g", i, w.runtime_fraction));
    }
    // The cluster would move an earlier release to its now (0) and change the job.
    if (w.job.release < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("workload.jobs[%d].job.release must be >= 0, got %d", i, w.job.release));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Duration ActualLength(Duration length, double runtime_fraction) {
  const double x = runtime_fraction * static_cast<double>(length);
  const double rounded = std::round(x);
  const double whole = std::fabs(x - rounded) < 1e-6 ? rounded : std::ceil(x);
  return std::clamp<Duration>(static_cast<Duration>(whole), 1, length);
}

absl::StatusOr<std::vector<SimJobRecord>> Replay(const Workload& workload, SimDriver& driver,
                                                 const ReplayOptions& options) {
  std::vector<int> order(workload.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return workload.jobs[a].job.release < workload.jobs[b].job.release;
  });
  if (options.max_jobs > 0 && static_cast<size_t>(options.max_jobs) < order.size()) {
    order.resize(options.max_jobs);
  }
  if (auto status = CheckWorkload(workload, order); !status.ok()) return status;

  const int total = static_cast<int>(order.size());
  const std::int64_t max_stops = 8 * static_cast<std::int64_t>(total) + 64;
  std::vector<SimJobRecord> records;  // submission order
  std::vector<Live> live;
  records.reserve(total);
  live.reserve(total);
  absl::flat_hash_map<JobId, size_t> slot_of;
  std::vector<size_t> open;  // submitted and not seen ended, submission order
  size_t next = 0;           // into `order`
  Time now = 0;
  auto report = [&] {
    if (options.progress) options.progress(SimProgress{static_cast<int>(next), total, now});
  };

  for (std::int64_t stop = 0;; ++stop) {
    auto active = driver.ActiveJobs();
    if (!active.ok()) return active.status();
    // Learn the starts of this instant; check the cluster kept to the rules.
    for (const JobView& view : *active) {
      auto it = slot_of.find(view.id);
      if (it == slot_of.end()) {
        return absl::InternalError(absl::StrCat("the cluster lists unknown job '", view.id, "'"));
      }
      const size_t s = it->second;
      Live& l = live[s];
      l.seen = stop;
      if (view.state == JobState::kRunning && !l.started) {
        if (view.allocation.start != now) {
          return absl::InternalError(
              absl::StrFormat("job '%s' started at %d, between two stops (now %d)", view.id,
                              view.allocation.start, now));
        }
        SimJobRecord& r = records[s];
        r.k = view.allocation.k;
        r.start = view.allocation.start;
        r.group = view.group;
        l.started = true;
        l.planned_end = view.allocation.end;
        l.actual_end = r.start + ActualLength(l.planned_end - r.start, l.fraction);
      } else if (view.state == JobState::kQueued && l.started) {
        return absl::InternalError(absl::StrCat("running job '", view.id, "' went back to queue"));
      }
    }
    // Jobs no longer listed have ended: at their actual end, which is never after now.
    size_t kept = 0;
    for (size_t s : open) {
      Live& l = live[s];
      if (l.seen == stop) {
        open[kept++] = s;
        continue;
      }
      if (!l.started || l.actual_end > now) {
        return absl::InternalError(absl::StrFormat(
            "job '%s' ended at %d without running to its actual end", records[s].id, now));
      }
      records[s].end = l.actual_end;
      records[s].ended_early = l.actual_end < l.planned_end;
    }
    open.resize(kept);
    if (next == order.size() && open.empty()) break;

    std::optional<Time> t;
    auto consider = [&](Time candidate) {
      if (!t || candidate < *t) t = candidate;
    };
    if (next < order.size()) consider(workload.jobs[order[next]].job.release);
    for (const JobView& view : *active) {
      const Live& l = live[slot_of[view.id]];
      if (l.started) {
        consider(l.actual_end);
      } else if (view.allocation.start > now) {
        consider(view.allocation.start);
      }
    }
    if (!t) {
      return absl::InternalError(absl::StrFormat(
          "%d jobs are queued with no planned start after %d and no release is left", open.size(),
          now));
    }
    if (*t < now || (*t == now && stop > 0)) {
      return absl::InternalError(
          absl::StrFormat("the next stop %d is not after the previous one %d", *t, now));
    }
    if (stop >= max_stops) {
      return absl::InternalError(absl::StrFormat(
          "replay of %d jobs made %d stops without ending, at %d", total, stop, now));
    }

    if (auto status = driver.AdvanceTo(*t); !status.ok()) return status;
    now = *t;
    for (const JobView& view : *active) {
      const Live& l = live[slot_of[view.id]];
      if (l.started && l.actual_end == now && l.actual_end < l.planned_end) {
        if (auto status = driver.ReportEnded(view.id, now); !status.ok()) return status;
      }
    }
    while (next < order.size() && workload.jobs[order[next]].job.release <= now) {
      const WorkloadJob& w = workload.jobs[order[next]];
      auto id = driver.Submit(w.job);
      if (!id.ok()) return id.status();
      if (!slot_of.emplace(*id, records.size()).second) {
        return absl::InternalError(absl::StrCat("the cluster reused job id '", *id, "'"));
      }
      SimJobRecord r;
      r.index = order[next];
      r.id = *id;
      r.release = w.job.release;
      r.sequential_time = w.job.model.SequentialTime();
      open.push_back(records.size());
      records.push_back(std::move(r));
      live.push_back(Live{.fraction = w.runtime_fraction});
      ++next;
      if (options.progress_every > 0 && next % options.progress_every == 0) report();
    }
  }
  report();
  std::sort(records.begin(), records.end(),
            [](const SimJobRecord& a, const SimJobRecord& b) { return a.index < b.index; });
  return records;
}

}  // namespace resched

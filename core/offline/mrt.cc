#include "core/offline/mrt.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"
#include "core/offline/list_schedule.h"

namespace resched {
namespace {

using Work = __int128;  // processors x microseconds, summed over jobs: beyond int64
constexpr Work kNoWork = std::numeric_limits<std::int64_t>::max() * Work{1024};

struct Guess {
  bool accepted = false;
  std::vector<int> width;
  std::vector<int> width_for_d;
  std::vector<MrtShelf> shelf;
};

class DualTest {
 public:
  DualTest(const std::vector<OfflineJob>& jobs, int m) : jobs_(jobs), m_(m) {
    widths_.reserve(jobs.size());
    times_.reserve(jobs.size());
    monotonic_.reserve(jobs.size());
    for (const OfflineJob& job : jobs) {
      widths_.push_back(job.model.Widths(m));
      std::vector<Duration>& times = times_.emplace_back();
      // RuntimeModel::CheckMonotony's test (a microsecond of rounding is no violation), on the
      // times read once.
      bool monotonic = true;
      for (int k : widths_.back()) {
        const Duration t = job.model.TimeOn(k);
        if (!times.empty()) {
          const int previous = widths_.back()[times.size() - 1];
          monotonic =
              monotonic && t <= times.back() && Work{k} * (t + 1) >= Work{previous} * times.back();
        }
        times.push_back(t);
      }
      monotonic_.push_back(monotonic);
    }
  }

  // Job i's allowed width of least work running in at most `h` (2 t <= 2h compared in
  // integers), the narrowest of equal works, or 0. For a monotonic job (time non-increasing, work
  // non-decreasing in k) that is MRT's canonical allotment, its least width within h, found by
  // bisection; a job that is not may do less work wider, and the knapsack must see it or it
  // rejects guesses a schedule meets.
  int Allotment(std::size_t i, Duration h2) const {
    const std::vector<int>& widths = widths_[i];
    const std::vector<Duration>& times = times_[i];
    if (monotonic_[i]) {
      const auto fits =
          std::partition_point(times.begin(), times.end(), [h2](Duration t) { return 2 * t > h2; });
      return fits == times.end() ? 0 : widths[fits - times.begin()];
    }
    int best = 0;
    Work best_work = kNoWork;
    for (std::size_t w = 0; w < widths.size(); ++w) {
      if (2 * times[w] > h2) continue;
      const Work work = Work{widths[w]} * times[w];
      if (work < best_work) {
        best = widths[w];
        best_work = work;
      }
    }
    return best;
  }

  bool monotonic(std::size_t i) const { return monotonic_[i]; }
  Duration TimeOn(std::size_t i, int k) const {
    const std::vector<int>& widths = widths_[i];
    return times_[i][std::lower_bound(widths.begin(), widths.end(), k) - widths.begin()];
  }

  // MRT's knapsack for the guess d.
  Guess Test(Duration d) const {
    Guess guess;
    const std::size_t n = jobs_.size();
    guess.width.assign(n, 0);
    guess.shelf.assign(n, MrtShelf::kSmall);
    Work small_work = 0;
    std::vector<int> large;
    std::vector<int> first_width(n, 0);
    std::vector<int> second_width(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      first_width[i] = Allotment(i, 2 * d);
      if (first_width[i] == 0) return guess;  // runs longer than d on every width
      // Small: at most d/2 on one processor, where it does its least work (always, for a
      // monotonic job; a superlinear one does less work wider, and stays in the knapsack).
      if (first_width[i] == 1 && 2 * TimeOn(i, 1) <= d) {
        guess.width[i] = 1;
        small_work += TimeOn(i, 1);
        continue;
      }
      second_width[i] = Allotment(i, d);
      large.push_back(static_cast<int>(i));
    }
    // work[j]: the least work of the large jobs with j processors in shelf 1; in_first[x][j]:
    // whether large job x is in shelf 1 in that optimum.
    std::vector<Work> work(m_ + 1, kNoWork);
    work[0] = 0;
    std::vector<std::vector<bool>> in_first(large.size(), std::vector<bool>(m_ + 1, false));
    for (std::size_t x = 0; x < large.size(); ++x) {
      const int i = large[x];
      const int k1 = first_width[i];
      const Work a1 = Work{k1} * TimeOn(i, k1);
      const int k2 = second_width[i];
      const Work a2 = k2 == 0 ? kNoWork : Work{k2} * TimeOn(i, k2);
      std::vector<Work> next(m_ + 1, kNoWork);
      for (int j = 0; j <= m_; ++j) {
        if (work[j] < kNoWork && a2 < kNoWork) next[j] = work[j] + a2;
        if (j >= k1 && work[j - k1] < kNoWork && work[j - k1] + a1 < next[j]) {
          next[j] = work[j - k1] + a1;
          in_first[x][j] = true;
        }
      }
      work.swap(next);
    }
    const auto best = std::min_element(work.begin(), work.end());
    if (*best >= kNoWork || *best > Work{m_} * d - small_work) return guess;
    guess.accepted = true;
    guess.width_for_d = first_width;
    int j = static_cast<int>(best - work.begin());
    for (std::size_t x = large.size(); x-- > 0;) {
      const int i = large[x];
      if (in_first[x][j]) {
        guess.shelf[i] = MrtShelf::kFirst;
        guess.width[i] = first_width[i];
        j -= first_width[i];
      } else {
        guess.shelf[i] = MrtShelf::kSecond;
        guess.width[i] = second_width[i];
      }
    }
    return guess;
  }

  const std::vector<int>& widths(std::size_t i) const { return widths_[i]; }

 private:
  const std::vector<OfflineJob>& jobs_;
  const int m_;
  std::vector<std::vector<int>> widths_;
  std::vector<std::vector<Duration>> times_;  // per job, per width of widths_
  std::vector<bool> monotonic_;
};

// While shelf 2 is wider than the machine, its widest job that fits the room left in shelf 1
// moves there, at its allotment for d (MRT's repair, as far as mrt.h says we follow it).
void MoveUntilShelfTwoFits(MrtShelves& shelves, int m) {
  int first = 0;
  int second = 0;
  for (std::size_t i = 0; i < shelves.shelf.size(); ++i) {
    if (shelves.shelf[i] == MrtShelf::kFirst) first += shelves.width[i];
    if (shelves.shelf[i] == MrtShelf::kSecond) second += shelves.width[i];
  }
  while (second > m) {
    int move = -1;
    for (std::size_t i = 0; i < shelves.shelf.size(); ++i) {
      if (shelves.shelf[i] != MrtShelf::kSecond || shelves.width_for_d[i] > m - first) continue;
      if (move < 0 || shelves.width[i] > shelves.width[move]) move = static_cast<int>(i);
    }
    if (move < 0) return;
    second -= shelves.width[move];
    shelves.shelf[move] = MrtShelf::kFirst;
    shelves.width[move] = shelves.width_for_d[move];
    first += shelves.width[move];
  }
}

class MrtPlanner final : public OfflinePlanner {
 public:
  explicit MrtPlanner(double epsilon) : epsilon_(epsilon) {}

  absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                   const PlanControl& control) const override {
    const int m = problem.free.capacity();
    absl::StatusOr<MrtShelves> shelves = MrtDualApproximation(problem.jobs, m, epsilon_, control);
    if (!shelves.ok()) return shelves.status();
    MoveUntilShelfTwoFits(*shelves, m);
    std::vector<ListEntry> order;
    order.reserve(shelves->order.size());
    for (int i : shelves->order) {
      const Time not_before =
          shelves->shelf[i] == MrtShelf::kSecond ? problem.now + shelves->d : problem.now;
      order.push_back({i, shelves->width[i], not_before});
    }
    return ListPlan(problem, order, shelves->lower_bound);
  }

 private:
  const double epsilon_;
};

}  // namespace

absl::StatusOr<MrtShelves> MrtDualApproximation(const std::vector<OfflineJob>& jobs, int m,
                                                double epsilon, const PlanControl& control) {
  MrtShelves out;
  if (jobs.empty()) return out;
  DualTest test(jobs, m);
  // The area bound and the longest job bound; the jobs one after another at their fastest is
  // a schedule, so its length is accepted.
  Work least_area = 0;
  Duration longest = 0;
  Duration one_by_one = 0;
  bool monotonic = true;  // MRT's rejection argument needs it (work non-decreasing in k)
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    monotonic = monotonic && test.monotonic(i);
    const std::vector<int>& widths = test.widths(i);
    if (widths.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("job '%s' fits on no width of a %d-processor machine", jobs[i].id, m));
    }
    Work area = kNoWork;
    Duration fastest = std::numeric_limits<Duration>::max();
    for (int k : widths) {
      const Duration t = test.TimeOn(i, k);
      area = std::min(area, Work{k} * t);
      fastest = std::min(fastest, t);
    }
    least_area += area;
    longest = std::max(longest, fastest);
    one_by_one += fastest;
  }
  const auto area_bound = static_cast<Duration>((least_area + m - 1) / m);
  Duration lo = std::max(area_bound, longest);
  Duration hi = std::max(lo, one_by_one);
  Duration max_rejected = 0;
  Guess accepted = test.Test(hi);
  if (!accepted.accepted) {
    return absl::InternalError("MRT rejected the length of a sequential schedule");
  }
  while (hi > lo) {
    if (control.Stop()) return absl::CancelledError("MRT: planning was stopped");
    if (static_cast<double>(hi - lo) <= epsilon * static_cast<double>(lo)) break;
    const Duration mid = lo + (hi - lo) / 2;
    Guess guess = test.Test(mid);
    if (guess.accepted) {
      hi = mid;
      accepted = std::move(guess);
    } else {
      max_rejected = mid;
      lo = mid + 1;
    }
  }
  out.d = hi;
  out.lower_bound = std::max(area_bound, longest);
  if (monotonic) out.lower_bound = std::max(out.lower_bound, max_rejected + 1);
  out.width = std::move(accepted.width);
  out.width_for_d = std::move(accepted.width_for_d);
  out.shelf = std::move(accepted.shelf);
  out.order.resize(jobs.size());
  std::iota(out.order.begin(), out.order.end(), 0);
  auto rank = [](MrtShelf s) { return static_cast<int>(s); };
  std::stable_sort(out.order.begin(), out.order.end(), [&](int a, int b) {
    if (out.shelf[a] != out.shelf[b]) return rank(out.shelf[a]) < rank(out.shelf[b]);
    return jobs[a].model.TimeOn(out.width[a]) > jobs[b].model.TimeOn(out.width[b]);
  });
  return out;
}

std::unique_ptr<OfflinePlanner> MakeMrtPlanner(const MrtOptions& options) {
  return std::make_unique<MrtPlanner>(options.epsilon);
}

}  // namespace resched

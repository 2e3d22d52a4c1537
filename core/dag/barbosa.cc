// Barbosa & Monteiro §3-§4, Algorithms 1 and 2; choices and deviations are listed in barbosa.h.
#include "core/dag/barbosa.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/dag/heft.h"

namespace resched {
namespace {

// Busy intervals per processor: the plan's tasks and the timeline's blocks (heft.h convention).
class Calendar {
 public:
  explicit Calendar(int processors) : busy_(processors) {}

  bool BusyAt(int j, Time t) const {
    const auto& b = busy_[j];
    auto it = b.upper_bound(t);
    if (it == b.begin()) return false;
    --it;
    return it->second > t;
  }
  // For j free at t: the start of its next busy interval, kTimeMax if none.
  Time NextBusy(int j, Time t) const {
    const auto it = busy_[j].upper_bound(t);
    return it == busy_[j].end() ? kTimeMax : it->first;
  }
  bool FreeOver(int j, Time s, Time e) const {
    if (s >= e) return true;
    return !BusyAt(j, s) && NextBusy(j, s) >= e;
  }
  void Add(int j, Time s, Time e) {
    if (s >= e) return;  // an empty interval blocks nothing
    busy_[j][s] = e;
    if (e < kTimeMax) ends_.insert(e);
  }
  void Remove(int j, Time s, Time e) {
    if (s >= e) return;
    busy_[j].erase(s);
    if (e < kTimeMax) ends_.erase(ends_.find(e));
  }
  // The first instant after t at which some processor becomes free.
  std::optional<Time> NextEnd(Time t) const {
    const auto it = ends_.upper_bound(t);
    if (it == ends_.end()) return std::nullopt;
    return *it;
  }

 private:
  std::vector<std::map<Time, Time>> busy_;  // start -> end, disjoint
  std::multiset<Time> ends_;
};

struct GlobalTask {
  int job = 0;
  int local = 0;
  const RuntimeModel* model = nullptr;
  std::vector<int> widths;                      // allowed, ascending
  std::vector<std::pair<int, Duration>> preds;  // (global id, transfer)
  std::vector<std::pair<int, Duration>> succs;
  int pool = 0;  // 0: users without a share; u > 0: the u-th user with one
  Duration t_star = 0;
  double s_star = 0;
  Duration bl_star = 0;
  Duration tail = 0;  // max over successors of (transfer + their b-level)
  // Placement.
  Time start = 0;
  Duration time = 0;
  std::vector<int> procs;
  double capacity = 0;
};

struct Placement {
  Time start = 0;
  Duration time = 0;
  std::vector<int> procs;
  double capacity = 0;
};

bool Allowed(const GlobalTask& t, int w) {
  return w >= 1 && std::binary_search(t.widths.begin(), t.widths.end(), w);
}

class Scheduler {
 public:
  Scheduler(std::vector<double> speeds, const ProcessorFree& free, Time release,
            const BarbosaOptions& options)
      : speeds_(std::move(speeds)),
        m_(static_cast<int>(speeds_.size())),
        free_(free),
        release_(release),
        options_(options),
        cal_(m_) {
    order_.resize(m_);
    for (int j = 0; j < m_; ++j) order_[j] = j;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int a, int b) { return speeds_[a] > speeds_[b]; });
    fastest_.assign(m_ + 1, 0);
    for (int p = 0; p < m_; ++p) fastest_[p + 1] = fastest_[p] + speeds_[order_[p]];
    // Per group, the capacity of its p fastest processors; the groups by their slowest speed.
    group_fastest_.assign(free_.groups(), {0.0});
    for (int j : order_) {
      std::vector<double>& prefix = group_fastest_[free_.group_of(j)];
      prefix.push_back(prefix.back() + speeds_[j]);
    }
    if (free_.groups() == 1) {
      candidate_groups_ = {kAnyGroup};
    } else {
      for (int g = 0; g < free_.groups(); ++g) candidate_groups_.push_back(g);
      auto slowest = [&](int g) {
        double v = speeds_[free_.first(g)];
        for (int j = free_.first(g); j < free_.first(g) + free_.count(g); ++j) {
          v = std::min(v, speeds_[j]);
        }
        return v;
      };
      std::stable_sort(candidate_groups_.begin(), candidate_groups_.end(),
                       [&](int a, int b) { return slowest(a) < slowest(b); });
    }
    BlockTimelines();
  }

  double s_max() const { return fastest_[m_]; }

  absl::StatusOr<BarbosaResult> Run(const std::vector<BarbosaJob>& jobs,
                                    const std::vector<JobPrecedence>& master,
                                    const std::vector<double>& pool_limits,
                                    const std::vector<int>& job_pool);

 private:
  // In each group, its i-th processor is blocked wherever i >= free(t) (processor_free.h);
  // blocks are merged.
  void BlockTimelines() {
    for (int g = 0; g < free_.groups(); ++g) {
      const Timeline* timeline = free_.timeline(g);
      if (timeline == nullptr) continue;
      const int first = free_.first(g);
      const int count = free_.count(g);
      std::vector<Time> open(count, kTimeMin);
      int prev = count;
      timeline->ForEachStep(release_, kTimeMax, [&](const TimelineStep& step) {
        const int f = std::clamp(step.free, 0, count);
        for (int i = f; i < prev; ++i) open[i] = step.start;
        for (int i = prev; i < f; ++i) {
          cal_.Add(first + i, open[i], step.start);
          open[i] = kTimeMin;
        }
        prev = f;
      });
      for (int i = prev; i < count; ++i) cal_.Add(first + i, open[i], kTimeMax);
    }
  }

  Duration TimeOf(const GlobalTask& t, int p, double speed_sum) const {
    return BarbosaTaskTime(*t.model, p, speed_sum);
  }

  Time DataReady(const GlobalTask& t) const {
    Time ready = release_;
    if (t.preds.empty()) return ready;
    if (options_.sum_incoming_transfers) {
      Time latest = kTimeMin;
      Duration sum = 0;
      for (const auto& [p, c] : t.preds) {
        latest = std::max(latest, tasks_[p].start + tasks_[p].time);
        sum += c;
      }
      return std::max(ready, latest + sum);
    }
    for (const auto& [p, c] : t.preds) {
      ready = std::max(ready, tasks_[p].start + tasks_[p].time + c);
    }
    return ready;
  }

  std::optional<Placement> Grow(const GlobalTask& t, Time s, double target, int group) const;
  std::optional<Placement> Place(const GlobalTask& t, Time ready, double target) const;
  bool TryMove(int r, int k);
  void Correct(const std::vector<int>& pool_tasks, BarbosaRound& round);
  void Commit(int g) {
    const GlobalTask& t = tasks_[g];
    for (int j : t.procs) cal_.Add(j, t.start, t.start + t.time);
  }
  void Uncommit(int g) {
    const GlobalTask& t = tasks_[g];
    for (int j : t.procs) cal_.Remove(j, t.start, t.start + t.time);
  }
  Time BLevel(int g) const { return tasks_[g].start + tasks_[g].time + tasks_[g].tail; }

  static constexpr int kAnyGroup = -1;

  std::vector<double> speeds_;
  int m_;
  const ProcessorFree& free_;
  Time release_;
  BarbosaOptions options_;
  Calendar cal_;
  std::vector<int> order_;       // processors, fastest first (ties: lower id)
  std::vector<double> fastest_;  // fastest_[p]: capacity of the p fastest processors
  std::vector<std::vector<double>> group_fastest_;  // the same inside each group
  // The groups a task may take its processors from, tried in this order: kAnyGroup on one
  // group; else each group alone, slowest first (so a tie keeps fast processors free).
  std::vector<int> candidate_groups_;
  std::vector<GlobalTask> tasks_;
  double eps_ = 1e-9;
};

// Alg. 2 lines 4-5 at one start s: the fastest processors free at s (of `group` only, unless
// kAnyGroup), the smallest allowed width first, then one more while S < S' and the time
// decreases.
std::optional<Placement> Scheduler::Grow(const GlobalTask& t, Time s, double target,
                                         int group) const {
  struct Cand {
    int j;
    Time free_until;
  };
  std::vector<Cand> cand;
  for (int j : order_) {
    if (group != kAnyGroup && free_.group_of(j) != group) continue;
    if (!cal_.BusyAt(j, s)) cand.push_back({j, cal_.NextBusy(j, s)});
  }
  const int w0 = t.widths.front();
  if (static_cast<int>(cand.size()) < w0) return std::nullopt;
  // Smallest width: drop processors not free long enough and refill with slower ones until the set
  // holds (each pass drops one at least).
  std::vector<char> excluded(cand.size(), 0);
  std::vector<int> chosen;
  double sum = 0;
  Duration d = 0;
  while (true) {
    chosen.clear();
    sum = 0;
    for (std::size_t x = 0; x < cand.size() && static_cast<int>(chosen.size()) < w0; ++x) {
      if (excluded[x]) continue;
      chosen.push_back(static_cast<int>(x));
      sum += speeds_[cand[x].j];
    }
    if (static_cast<int>(chosen.size()) < w0) return std::nullopt;
    d = TimeOf(t, w0, sum);
    bool ok = true;
    for (int x : chosen) {
      if (cand[x].free_until < s + d) {
        excluded[x] = 1;
        ok = false;
      }
    }
    if (ok) break;
  }
  // Growth. Widths the model skips collect pending processors until the next allowed one.
  std::vector<int> pending;
  double pending_sum = 0;
  for (std::size_t x = chosen.back() + 1; x < cand.size(); ++x) {
    if (sum >= target - eps_) break;
    const int w = static_cast<int>(chosen.size() + pending.size()) + 1;
    if (w > t.widths.back()) break;
    const Cand& c = cand[x];
    if (Allowed(t, w)) {
      const double sum2 = sum + pending_sum + speeds_[c.j];
      const Duration d2 = TimeOf(t, w, sum2);
      if (d2 >= d) break;                   // t_{i,p} < t_{i,p-1} no longer holds
      if (c.free_until < s + d2) continue;  // not free long enough: try a slower one
      chosen.insert(chosen.end(), pending.begin(), pending.end());
      chosen.push_back(static_cast<int>(x));
      pending.clear();
      pending_sum = 0;
      sum = sum2;
      d = d2;
    } else {
      // Free for the current duration, hence for the shorter one of the next width.
      if (c.free_until < s + d) continue;
      pending.push_back(static_cast<int>(x));
      pending_sum += speeds_[c.j];
    }
  }
  Placement p{s, d, {}, sum};
  for (int x : chosen) p.procs.push_back(cand[x].j);
  std::sort(p.procs.begin(), p.procs.end());
  return p;
}

// Alg. 2 lines 3-5: the earliest start first, then every later start at which a processor frees up,
// as long as it could still finish earlier.
std::optional<Placement> Scheduler::Place(const GlobalTask& t, Time ready, double target) const {
  std::optional<Placement> best;
  std::optional<Time> s = ready;
  while (s) {
    if (best && *s >= best->start + best->time) break;
    for (int group : candidate_groups_) {
      auto p = Grow(t, *s, target, group);
      if (p && (!best || p->start + p->time < best->start + best->time)) best = std::move(p);
    }
    s = cal_.NextEnd(*s);
  }
  return best;
}

// Lines 11-13: one processor from r to k, if both new intervals fit and the pair's larger b-level
// goes below k's (docs/algorithms.md, "Barbosa & Monteiro in detail").
bool Scheduler::TryMove(int r, int k) {
  GlobalTask& tr = tasks_[r];
  GlobalTask& tk = tasks_[k];
  const int wr = static_cast<int>(tr.procs.size()) - 1;
  const int wk = static_cast<int>(tk.procs.size()) + 1;
  if (!Allowed(tr, wr) || !Allowed(tk, wk)) return false;
  // A task's processors stay in one group.
  if (free_.group_of(tr.procs.front()) != free_.group_of(tk.procs.front())) return false;
  const Time bk_old = BLevel(k);
  std::vector<int> givers;
  for (int q : tr.procs) {
    if (!std::binary_search(tk.procs.begin(), tk.procs.end(), q)) givers.push_back(q);
  }
  std::stable_sort(givers.begin(), givers.end(),
                   [&](int a, int b) { return speeds_[a] > speeds_[b]; });
  Uncommit(r);
  Uncommit(k);
  for (int q : givers) {
    const double sum_r = tr.capacity - speeds_[q];
    const double sum_k = tk.capacity + speeds_[q];
    const Duration time_r = TimeOf(tr, wr, sum_r);
    const Duration time_k = TimeOf(tk, wk, sum_k);
    if (time_k >= tk.time) continue;
    if (std::max(tr.start + time_r + tr.tail, tk.start + time_k + tk.tail) >= bk_old) continue;
    std::vector<int> procs_r;
    for (int j : tr.procs) {
      if (j != q) procs_r.push_back(j);
    }
    std::vector<int> procs_k = tk.procs;
    procs_k.insert(std::upper_bound(procs_k.begin(), procs_k.end(), q), q);
    bool ok = true;
    for (int j : procs_r) ok = ok && cal_.FreeOver(j, tr.start, tr.start + time_r);
    if (!ok) continue;
    for (int j : procs_r) cal_.Add(j, tr.start, tr.start + time_r);
    // Checked after r' is in: r and k may share processors at different times.
    for (int j : procs_k) ok = ok && cal_.FreeOver(j, tk.start, tk.start + time_k);
    for (int j : procs_r) cal_.Remove(j, tr.start, tr.start + time_r);
    if (!ok) continue;
    tr.procs = std::move(procs_r);
    tr.time = time_r;
    tr.capacity = sum_r;
    tk.procs = std::move(procs_k);
    tk.time = time_k;
    tk.capacity = sum_k;
    Commit(r);
    Commit(k);
    return true;
  }
  Commit(r);
  Commit(k);
  return false;
}

// Lines 6-14 on the tasks of one pool of the current round.
void Scheduler::Correct(const std::vector<int>& pool_tasks, BarbosaRound& round) {
  if (pool_tasks.size() < 2) return;
  std::set<int> been_max;
  while (true) {
    ++round.correction_iterations;
    auto by_level = [&](int a, int b) {
      const Time la = BLevel(a);
      const Time lb = BLevel(b);
      return la != lb ? la < lb : a < b;
    };
    // Highest b-level; ties to the lower id.
    int k = pool_tasks.front();
    for (int g : pool_tasks) {
      if (BLevel(g) > BLevel(k) || (BLevel(g) == BLevel(k) && g < k)) k = g;
    }
    been_max.insert(k);
    std::vector<int> donors;
    for (int g : pool_tasks) {
      if (g != k) donors.push_back(g);
    }
    std::sort(donors.begin(), donors.end(), by_level);
    if (been_max.count(donors.front()) > 0) break;  // line 10
    bool moved = false;
    for (int r : donors) {
      if (been_max.count(r) > 0) continue;
      if (TryMove(r, k)) {
        moved = true;
        ++round.correction_moves;
        break;
      }
    }
    if (!moved) break;
  }
}

absl::StatusOr<BarbosaResult> Scheduler::Run(const std::vector<BarbosaJob>& jobs,
                                             const std::vector<JobPrecedence>& master,
                                             const std::vector<double>& pool_limits,
                                             const std::vector<int>& job_pool) {
  const int num_jobs = static_cast<int>(jobs.size());
  std::vector<int> offset(num_jobs + 1, 0);
  for (int u = 0; u < num_jobs; ++u) {
    offset[u + 1] = offset[u] + static_cast<int>(jobs[u].dag.tasks.size());
  }
  const int n = offset[num_jobs];
  tasks_.assign(n, GlobalTask{});
  for (int u = 0; u < num_jobs; ++u) {
    const Dag& dag = jobs[u].dag;
    for (int i = 0; i < static_cast<int>(dag.tasks.size()); ++i) {
      GlobalTask& t = tasks_[offset[u] + i];
      t.job = u;
      t.local = i;
      t.model = &dag.tasks[i].model;
      t.widths = t.model->Widths(m_);
      t.pool = job_pool[u];
    }
    for (const Edge& e : dag.edges) {
      tasks_[offset[u] + e.from].succs.emplace_back(offset[u] + e.to, e.transfer);
      tasks_[offset[u] + e.to].preds.emplace_back(offset[u] + e.from, e.transfer);
    }
  }
  // Master DAG: exit tasks of `before` -> entry tasks of `after`, no communication.
  std::vector<char> entry(n), exit(n);
  for (int g = 0; g < n; ++g) {
    entry[g] = tasks_[g].preds.empty();
    exit[g] = tasks_[g].succs.empty();
  }
  for (const JobPrecedence& mp : master) {
    for (int a = offset[mp.before]; a < offset[mp.before + 1]; ++a) {
      if (!exit[a]) continue;
      for (int b = offset[mp.after]; b < offset[mp.after + 1]; ++b) {
        if (!entry[b]) continue;
        tasks_[a].succs.emplace_back(b, 0);
        tasks_[b].preds.emplace_back(a, 0);
      }
    }
  }
  // t*_i and S*_i on the fastest processors of one group (fewest processors on ties), then
  // b-levels.
  for (GlobalTask& t : tasks_) {
    t.t_star = kTimeMax;
    for (const std::vector<double>& fastest : group_fastest_) {
      for (int w : t.widths) {
        if (w >= static_cast<int>(fastest.size())) break;
        const Duration d = TimeOf(t, w, fastest[w]);
        if (d < t.t_star) {
          t.t_star = d;
          t.s_star = fastest[w];
        }
      }
    }
    if (t.t_star == kTimeMax) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "jobs[%d].dag.tasks[%d] ('%s'): its smallest allowed width, %d, fits no processor "
          "group (a task runs inside one group)",
          t.job, t.local, jobs[t.job].dag.tasks[t.local].name, t.widths.front()));
    }
  }
  std::vector<int> indegree(n, 0);
  for (const GlobalTask& t : tasks_) {
    for (const auto& [s, c] : t.succs) ++indegree[s];
  }
  std::vector<int> topo;
  {
    std::vector<int> deg = indegree;
    std::queue<int> q;
    for (int g = 0; g < n; ++g) {
      if (deg[g] == 0) q.push(g);
    }
    while (!q.empty()) {
      const int g = q.front();
      q.pop();
      topo.push_back(g);
      for (const auto& [s, c] : tasks_[g].succs) {
        if (--deg[s] == 0) q.push(s);
      }
    }
  }
  // Not std::ranges::reverse_view: clang-tidy's clang 14 cannot parse libstdc++ 12's ranges.
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {  // NOLINT(modernize-loop-convert)
    GlobalTask& t = tasks_[*it];
    t.tail = 0;
    for (const auto& [s, c] : t.succs) t.tail = std::max(t.tail, c + tasks_[s].bl_star);
    t.bl_star = t.t_star + t.tail;
  }

  BarbosaResult result;
  std::vector<int> ready;
  for (int g = 0; g < n; ++g) {
    if (indegree[g] == 0) ready.push_back(g);
  }
  const int pools = static_cast<int>(pool_limits.size());
  while (!ready.empty()) {
    if (options_.control.Stop()) return absl::CancelledError("Barbosa's scheduler was stopped");
    std::vector<int> round_tasks;
    round_tasks.swap(ready);
    BarbosaRound round;
    // Algorithm 1: S'_i per pool; the shared pools first, the rest gets what they left.
    std::vector<double> target(round_tasks.size(), 0);
    double left = s_max();
    for (int pass = 0; pass < 2; ++pass) {
      for (int pool = 0; pool < pools; ++pool) {
        if ((pool == 0) != (pass == 1)) continue;
        const double limit = pool == 0 ? std::max(left, 0.0) : pool_limits[pool];
        double wanted = 0;
        for (int g : round_tasks) {
          if (tasks_[g].pool == pool) wanted += tasks_[g].s_star;
        }
        for (std::size_t x = 0; x < round_tasks.size(); ++x) {
          const GlobalTask& t = tasks_[round_tasks[x]];
          if (t.pool != pool) continue;
          target[x] = wanted > limit ? limit / wanted * t.s_star : t.s_star;
          if (pool > 0) left -= target[x];
        }
      }
    }
    // Algorithm 2, lines 1-5: by increasing t-level (ties: higher b-level, lower id).
    std::vector<Time> t_level(round_tasks.size());
    std::vector<int> by_t(round_tasks.size());
    for (std::size_t x = 0; x < round_tasks.size(); ++x) {
      t_level[x] = DataReady(tasks_[round_tasks[x]]);
      by_t[x] = static_cast<int>(x);
    }
    std::sort(by_t.begin(), by_t.end(), [&](int a, int b) {
      if (t_level[a] != t_level[b]) return t_level[a] < t_level[b];
      const Duration la = tasks_[round_tasks[a]].bl_star;
      const Duration lb = tasks_[round_tasks[b]].bl_star;
      if (la != lb) return la > lb;
      return round_tasks[a] < round_tasks[b];
    });
    for (int x : by_t) {
      const int g = round_tasks[x];
      GlobalTask& t = tasks_[g];
      auto p = Place(t, t_level[x], target[x]);
      if (!p) {
        return absl::ResourceExhaustedError(
            absl::StrFormat("jobs[%d] task '%s' never fits: the cluster's reservations never "
                            "leave %d processors "
                            "free",
                            t.job, jobs[t.job].dag.tasks[t.local].name, t.widths.front()));
      }
      t.start = p->start;
      t.time = p->time;
      t.procs = std::move(p->procs);
      t.capacity = p->capacity;
      Commit(g);
    }
    for (std::size_t x = 0; x < round_tasks.size(); ++x) {
      const GlobalTask& t = tasks_[round_tasks[x]];
      round.entries.push_back({t.job, t.local, t.s_star, target[x], t.capacity, 0});
    }
    // Lines 6-14, pool by pool.
    if (options_.correction) {
      for (int pool = 0; pool < pools; ++pool) {
        std::vector<int> members;
        for (int g : round_tasks) {
          if (tasks_[g].pool == pool) members.push_back(g);
        }
        Correct(members, round);
      }
    }
    for (std::size_t x = 0; x < round_tasks.size(); ++x) {
      round.entries[x].final_capacity = tasks_[round_tasks[x]].capacity;
    }
    result.rounds.push_back(std::move(round));
    for (int g : round_tasks) {
      for (const auto& [s, c] : tasks_[g].succs) {
        if (--indegree[s] == 0) ready.push_back(s);
      }
    }
    std::sort(ready.begin(), ready.end());
    ready.erase(std::unique(ready.begin(), ready.end()), ready.end());
  }

  result.plans.resize(num_jobs);
  for (int u = 0; u < num_jobs; ++u) {
    DagPlan& plan = result.plans[u];
    for (int g = offset[u]; g < offset[u + 1]; ++g) {
      const GlobalTask& t = tasks_[g];
      plan.tasks.push_back(
          TaskReservation{static_cast<int>(t.procs.size()), t.start, t.start + t.time, t.procs,
                          free_.groups() > 1 ? free_.group_of(t.procs.front()) : -1});
    }
    Summarize(plan);
  }
  return result;
}

}  // namespace

Duration BarbosaTaskTime(const RuntimeModel& model, int p, double speed_sum) {
  if (speed_sum == static_cast<double>(p)) return model.TimeOn(p);
  if (const auto* m = std::get_if<CommunicationModel>(&model.params())) {
    // Eq. (1): only the parallel part f(n) / sum S_i depends on the speeds.
    CommunicationModel scaled = *m;
    scaled.processor_speed = m->processor_speed * speed_sum / p;
    return RuntimeModel(scaled).TimeOn(p);
  }
  return ScaleDuration(model.TimeOn(p), speed_sum / p);
}

absl::StatusOr<BarbosaResult> BarbosaSchedule(const std::vector<BarbosaJob>& jobs,
                                              const std::vector<JobPrecedence>& master,
                                              const std::vector<double>& speeds, Time release,
                                              const Timeline* timeline,
                                              const BarbosaOptions& options) {
  const int m = static_cast<int>(speeds.size());
  if (timeline != nullptr && timeline->capacity() != m) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%d processor speeds for a timeline of %d processors", m, timeline->capacity()));
  }
  return BarbosaScheduleOn(jobs, master, speeds, release, ProcessorFree(m, timeline), options);
}

absl::StatusOr<BarbosaResult> BarbosaScheduleOn(const std::vector<BarbosaJob>& jobs,
                                                const std::vector<JobPrecedence>& master,
                                                const std::vector<double>& speeds, Time release,
                                                const ProcessorFree& free,
                                                const BarbosaOptions& options) {
  if (speeds.empty()) return absl::InvalidArgumentError("speeds: no processor");
  for (std::size_t j = 0; j < speeds.size(); ++j) {
    if (!(speeds[j] > 0) || !std::isfinite(speeds[j])) {
      return absl::InvalidArgumentError(
          absl::StrFormat("speeds[%d] must be > 0, got %g", j, speeds[j]));
    }
  }
  const int m = static_cast<int>(speeds.size());
  if (free.processors() != m) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d processor speeds for %d processors", m, free.processors()));
  }
  const int num_jobs = static_cast<int>(jobs.size());
  // Pools: 0 for jobs without a share, one per user with a share.
  absl::flat_hash_map<std::string, int> user_pool;
  std::vector<double> shares{0};
  std::vector<int> job_pool(num_jobs, 0);
  double share_sum = 0;
  for (int u = 0; u < num_jobs; ++u) {
    const BarbosaJob& job = jobs[u];
    if (auto s = ValidateDag(job.dag, m); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("jobs[", u, "].", s.message()));
    }
    if (!(job.share >= 0 && job.share <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("jobs[%d].share must be in [0, 1], got %g", u, job.share));
    }
    const std::string key = job.user.empty() ? absl::StrCat("#", u) : job.user;
    const auto it = user_pool.find(key);
    if (it != user_pool.end()) {
      if (shares[it->second] != job.share) {
        return absl::InvalidArgumentError(
            absl::StrFormat("jobs[%d].share %g differs from the share %g of "
                            "user '%s''s other jobs",
                            u, job.share, shares[it->second], key));
      }
      job_pool[u] = it->second;
      continue;
    }
    int pool = 0;
    if (job.share > 0) {
      pool = static_cast<int>(shares.size());
      shares.push_back(job.share);
      share_sum += job.share;
    }
    user_pool[key] = pool;
    // Users without a share all map to pool 0 and record share 0 there.
    job_pool[u] = pool;
  }
  if (share_sum > 1 + 1e-9) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the users' shares sum to %g, above the whole cluster (1)", share_sum));
  }
  for (std::size_t x = 0; x < master.size(); ++x) {
    const JobPrecedence& p = master[x];
    if (p.before < 0 || p.before >= num_jobs || p.after < 0 || p.after >= num_jobs ||
        p.before == p.after) {
      return absl::InvalidArgumentError(
          absl::StrFormat("master[%d] must join two different jobs in [0, %d), got %d -> %d", x,
                          num_jobs, p.before, p.after));
    }
  }
  {
    std::vector<int> deg(num_jobs, 0);
    std::vector<std::vector<int>> next(num_jobs);
    for (const JobPrecedence& p : master) {
      next[p.before].push_back(p.after);
      ++deg[p.after];
    }
    std::vector<int> q;
    for (int u = 0; u < num_jobs; ++u) {
      if (deg[u] == 0) q.push_back(u);
    }
    int seen = 0;
    while (!q.empty()) {
      const int u = q.back();
      q.pop_back();
      ++seen;
      for (int v : next[u]) {
        if (--deg[v] == 0) q.push_back(v);
      }
    }
    if (seen != num_jobs)
      return absl::InvalidArgumentError("master: the job precedences form a cycle");
  }
  Scheduler scheduler(speeds, free, release, options);
  std::vector<double> limits(shares.size(), 0);
  for (std::size_t p = 1; p < shares.size(); ++p) limits[p] = shares[p] * scheduler.s_max();
  return scheduler.Run(jobs, master, limits, job_pool);
}

absl::StatusOr<DagPlan> BarbosaPlan(const Dag& dag, const std::vector<double>& speeds, Time release,
                                    const Timeline* timeline, const BarbosaOptions& options) {
  std::vector<BarbosaJob> jobs{{dag, 0, ""}};
  auto result = BarbosaSchedule(jobs, {}, speeds, release, timeline, options);
  if (!result.ok()) return result.status();
  return std::move(result->plans.front());
}

absl::StatusOr<DagPlan> BarbosaPlanOn(const Dag& dag, const std::vector<double>& speeds,
                                      Time release, const ProcessorFree& free,
                                      const BarbosaOptions& options) {
  std::vector<BarbosaJob> jobs{{dag, 0, ""}};
  auto result = BarbosaScheduleOn(jobs, {}, speeds, release, free, options);
  if (!result.ok()) return result.status();
  return std::move(result->plans.front());
}

}  // namespace resched

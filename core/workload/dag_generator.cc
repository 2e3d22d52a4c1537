// daggen-like DAG generator with Amdahl tasks (Aida & Casanova 2008, §3.1); the choices and
// deviations are documented in dag_generator.h.
#include "core/workload/dag_generator.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/job.h"
#include "core/model/runtime_model.h"
#include "core/workload/random.h"

namespace resched {
namespace {

absl::Status CheckOptions(const DagGeneratorOptions& o) {
  if (o.n < 1 || o.n > kMaxGeneratedDagTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("n must be in [1, ", kMaxGeneratedDagTasks, "], got ", o.n));
  }
  auto unit = [](const char* name, double v) -> absl::Status {
    if (v >= 0 && v <= 1) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrFormat("%s must be in [0, 1], got %g", name, v));
  };
  if (auto s = unit("width", o.width); !s.ok()) return s;
  if (auto s = unit("regularity", o.regularity); !s.ok()) return s;
  if (auto s = unit("density", o.density); !s.ok()) return s;
  // A jump beyond level 0 is clamped to it, as daggen does.
  if (o.jump < 1 || o.jump > kMaxGeneratedDagTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("jump must be in [1, ", kMaxGeneratedDagTasks, "], got ", o.jump));
  }
  if (!(o.alpha_min >= 0 && o.alpha_min <= o.alpha_max && o.alpha_max <= 1)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "alpha_min and alpha_max must satisfy 0 <= alpha_min <= alpha_max <= 1, got %g and %g",
        o.alpha_min, o.alpha_max));
  }
  if (o.t1_min < 1 || o.t1_min > o.t1_max || o.t1_max > kMaxJobDuration) {
    return absl::InvalidArgumentError(
        absl::StrCat("t1_min and t1_max must satisfy 1 <= t1_min <= t1_max <= ", kMaxJobDuration,
                     " microseconds, got ", o.t1_min, " and ", o.t1_max));
  }
  return absl::OkStatus();
}

// daggen's getIntRandomNumberAround: x varied by a uniform +-perc percent, truncated, at least 1.
int IntAround(WorkloadRng& rng, int x, double perc) {
  const double r = rng.Uniform(-perc, perc);
  return std::max(1, static_cast<int>(static_cast<double>(x) * (1.0 + r / 100.0)));
}

// daggen's generateTasks: level widths around the perfect width until n tasks are placed.
std::vector<int> LevelWidths(WorkloadRng& rng, const DagGeneratorOptions& o) {
  const int perfect = static_cast<int>(std::floor(std::exp(o.width * std::log(o.n))));
  std::vector<int> widths;
  int total = 0;
  while (total < o.n) {
    const int w = std::min(IntAround(rng, perfect, 100.0 - 100.0 * o.regularity), o.n - total);
    widths.push_back(w);
    total += w;
  }
  return widths;
}

}  // namespace

absl::StatusOr<GeneratedDag> GenerateDag(const DagGeneratorOptions& o) {
  if (absl::Status status = CheckOptions(o); !status.ok()) return status;
  WorkloadRng rng(o.seed);
  const std::vector<int> widths = LevelWidths(rng, o);
  const int levels = static_cast<int>(widths.size());

  GeneratedDag out;
  Dag& dag = out.dag;
  const int first = o.single_entry_exit ? 1 : 0;
  const int total = o.n + 2 * first;
  dag.tasks.resize(total);
  for (int i = 0; i < total; ++i) dag.tasks[i].name = absl::StrCat("t", i);

  // Costs, in task order (daggen draws them right after the level widths).
  out.levels.resize(levels);
  int next = first;
  for (int l = 0; l < levels; ++l) {
    for (int j = 0; j < widths[l]; ++j) {
      AmdahlModel m;
      // Integer draw so that both ends of [t1_min, t1_max] are reachable, as in the paper.
      const double span = static_cast<double>(o.t1_max - o.t1_min) + 1.0;
      m.t1 = std::min(o.t1_max, o.t1_min + static_cast<Duration>(rng.Uniform01() * span));
      m.alpha = rng.Uniform(o.alpha_min, o.alpha_max);
      dag.tasks[next].model = RuntimeModel(m);
      out.levels[l].push_back(next++);
    }
  }

  // daggen's generateDependencies: every task below level 0 draws 1 + U[0, density * |L_{i-1}|)
  // parents (at most |L_{i-1}|), each from level i - U[1, jump + 1) (at least 0); a parent
  // already taken is replaced by the next task of that level, cyclically; when the whole level
  // is taken the draw is dropped.
  std::vector<std::vector<int>> parents(total);
  for (int l = 1; l < levels; ++l) {
    const int previous = widths[l - 1];
    for (int child : out.levels[l]) {
      const int count = std::min(
          1 + static_cast<int>(rng.Uniform(0.0, o.density * static_cast<double>(previous))),
          previous);
      std::vector<int>& mine = parents[child];
      for (int k = 0; k < count; ++k) {
        const int span = static_cast<int>(rng.Uniform(1.0, static_cast<double>(o.jump) + 1.0));
        const int pl = std::max(0, l - span);
        const int size = widths[pl];
        int index = static_cast<int>(rng.Uniform(0.0, static_cast<double>(size)));
        for (int tries = 0; tries < size; ++tries) {
          const int candidate = out.levels[pl][index];
          if (std::find(mine.begin(), mine.end(), candidate) == mine.end()) {
            mine.push_back(candidate);
            break;
          }
          index = (index + 1) % size;
        }
      }
    }
  }

  std::vector<bool> has_child(total, false);
  for (int child = 0; child < total; ++child) {
    for (int parent : parents[child]) {
      dag.edges.push_back({parent, child, 0});
      has_child[parent] = true;
    }
  }
  if (o.single_entry_exit) {
    // 1 microsecond on one processor: the smallest task the runtime models accept.
    const RuntimeModel dummy(AmdahlModel{.t1 = 1, .alpha = 0, .k_min = 1, .k_max = 1});
    out.entry = 0;
    out.exit = total - 1;
    dag.tasks[out.entry].model = dummy;
    dag.tasks[out.exit].model = dummy;
    for (int t : out.levels[0]) dag.edges.push_back({out.entry, t, 0});
    for (int t = first; t < total - 1; ++t) {
      if (!has_child[t]) dag.edges.push_back({t, out.exit, 0});
    }
  }
  std::sort(dag.edges.begin(), dag.edges.end(), [](const Edge& a, const Edge& b) {
    return std::pair(a.from, a.to) < std::pair(b.from, b.to);
  });
  if (absl::Status status = ValidateDag(dag, 1); !status.ok()) {
    return absl::InternalError(absl::StrCat("generated DAG is invalid: ", status.message()));
  }
  return out;
}

}  // namespace resched

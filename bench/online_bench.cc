// Online policies on the workloads of Saule et al., driven through a ClusterPlan as the server and
// the simulator drive it (SIMULATED clock: AdvanceTo the release, then Submit).
//
// - sequential: §4.1, m = 300 processors, 20,000 sequential tasks of uniform size in [60 s,
//   delta·60 s], exponential inter-arrival times scaled to the requested load (the paper's load,
//   sum of p_i over the release span: 220 to 310).
// - moldable: in the manner of §7 (logs + Downey model), 8,000 tasks on 512 processors: a
//   "recorded" width w (power of two up to 64) and run time (log-uniform, 1 min to 12 h) give
//   t1 = w·time; Downey A uniform in [w, 512], sigma uniform in [0, 2]; exponential arrivals at
//   the requested load of sequential work.
//
// For each policy: the wall time of every Submit (median, p99, max), of the whole run (submits,
// clock moves and the final drain), and the schedule's stretch, validated at the end. Baselines
// (fcfs, conservative) run in the same process on the same jobs.
//
// Usage: online_bench [--tasks=N] [--load=L] [--delta=D] [--moldable_tasks=N]
//                     [--moldable_load=L] [--seed=S] [--only=sequential|moldable]
//                     [--policy=LABEL_PREFIX]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/metrics/validate.h"
#include "core/plan/cluster_plan.h"

namespace resched {
namespace {

using Clock = std::chrono::steady_clock;
constexpr Duration kS = kMicrosPerSecond;

struct Options {
  int tasks = 20'000;
  double load = 280;
  int delta = 20;
  int moldable_tasks = 8'000;
  double moldable_load = 272;
  std::uint64_t seed = 1;
  std::string only;
  std::string policy;  // run only the policies whose label starts with this
};

Options options;

std::vector<Job> SequentialWorkload(const Options& o) {
  std::mt19937_64 rng(o.seed);
  const Duration a = 60 * kS;
  std::uniform_int_distribution<Duration> size(a, a * o.delta);
  const double mean_seconds = 60.0 * (1 + o.delta) / 2;
  std::exponential_distribution<double> gap(o.load / mean_seconds);
  std::vector<Job> jobs;
  double t = 0;
  for (int i = 0; i < o.tasks; ++i) {
    t += gap(rng);
    Job job;
    job.release = static_cast<Time>(t * kS);
    job.model = RuntimeModel(RigidModel{1, size(rng)});
    jobs.push_back(job);
  }
  return jobs;
}

std::vector<Job> MoldableWorkload(const Options& o) {
  std::mt19937_64 rng(o.seed + 1);
  std::uniform_int_distribution<int> log_width(0, 6);
  std::uniform_real_distribution<double> log_time(std::log(60.0), std::log(12 * 3600.0));
  std::uniform_real_distribution<double> sigma(0, 2);
  std::vector<Job> jobs;
  double work = 0;
  for (int i = 0; i < o.moldable_tasks; ++i) {
    const int w = 1 << log_width(rng);
    const double seconds = std::exp(log_time(rng));
    Job job;
    job.model = RuntimeModel(DowneyModel{static_cast<Duration>(w * seconds * kS),
                                         std::uniform_real_distribution<double>(w, 512)(rng),
                                         sigma(rng), 1, 0});
    work += w * seconds;
    jobs.push_back(job);
  }
  // Arrivals spread so that the sequential work over the release span is the requested load.
  std::exponential_distribution<double> gap(o.moldable_load * o.moldable_tasks / work);
  double t = 0;
  for (Job& job : jobs) {
    t += gap(rng);
    job.release = static_cast<Time>(t * kS);
  }
  return jobs;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(std::lround(q * (v.size() - 1))))];
}

void Run(const std::string& label, const std::string& policy, const AlgorithmParams& params,
         int processors, const std::vector<Job>& jobs) {
  if (label.rfind(options.policy, 0) != 0) return;
  ClusterSpec spec{"bench", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
  auto created = ClusterPlan::Create(spec, params, 0);
  if (!created.ok()) {
    std::fprintf(stderr, "%s: %s\n", policy.c_str(),
                 std::string(created.status().message()).c_str());
    std::exit(1);
  }
  ClusterPlan& plan = **created;
  std::vector<double> submit_us;
  submit_us.reserve(jobs.size());
  std::size_t max_queue = 0;
  const auto start = Clock::now();
  for (const Job& job : jobs) {
    (void)plan.AdvanceTo(std::max(plan.now(), job.release));
    (void)plan.TakeChangedJobs();  // as the server does after every request
    const auto t0 = Clock::now();
    auto placed = plan.Submit(job);
    const auto t1 = Clock::now();
    if (!placed.ok()) std::abort();
    (void)plan.TakeChangedJobs();
    submit_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    max_queue = std::max(max_queue, static_cast<std::size_t>(plan.queued_count()));
  }
  Time horizon = plan.now();
  for (const Job& job : jobs) horizon += job.model.SequentialTime();
  (void)plan.AdvanceTo(horizon);
  const double total_s = std::chrono::duration<double>(Clock::now() - start).count();
  const bool valid = ValidateSchedule(plan.ToValidate()).ok();
  double max_stretch = 0, sum_stretch = 0, cpu_hours = 0;
  int finished = 0;
  for (const JobRecord* job : plan.Jobs()) {
    if (job->state != JobState::kFinished) continue;
    ++finished;
    const double s = static_cast<double>(job->allocation.end - job->job.release) /
                     static_cast<double>(job->job.model.SequentialTime());
    max_stretch = std::max(max_stretch, s);
    sum_stretch += s;
    cpu_hours += job->allocation.k *
                 static_cast<double>(job->allocation.end - job->allocation.start) / kS / 3600;
  }
  std::printf(
      "%-22s submit p50 %9.1f us  p99 %9.1f us  max %9.1f us | run %7.2f s | max queue %5zu | "
      "stretch max %8.2f mean %7.3f | cpu %9.0f h | %d/%zu done | %s\n",
      label.c_str(), Percentile(submit_us, 0.5), Percentile(submit_us, 0.99),
      Percentile(submit_us, 1.0), total_s, max_queue, max_stretch,
      finished ? sum_stretch / finished : 0, cpu_hours, finished, jobs.size(),
      valid ? "valid" : "INVALID");
  std::fflush(stdout);
}

double Load(const std::vector<Job>& jobs) {
  double work = 0;
  for (const Job& job : jobs) work += static_cast<double>(job.model.SequentialTime());
  return work / static_cast<double>(jobs.back().release - jobs.front().release);
}

}  // namespace
}  // namespace resched

int main(int argc, char** argv) {
  resched::Options& o = resched::options;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    auto value = [&](const char* name) -> const char* {
      const std::size_t n = std::strlen(name);
      return std::strncmp(a, name, n) == 0 && a[n] == '=' ? a + n + 1 : nullptr;
    };
    if (const char* v = value("--tasks")) {
      o.tasks = std::atoi(v);
    } else if (const char* v = value("--load")) {
      o.load = std::atof(v);
    } else if (const char* v = value("--delta")) {
      o.delta = std::atoi(v);
    } else if (const char* v = value("--moldable_tasks")) {
      o.moldable_tasks = std::atoi(v);
    } else if (const char* v = value("--moldable_load")) {
      o.moldable_load = std::atof(v);
    } else if (const char* v = value("--seed")) {
      o.seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("--only")) {
      o.only = v;
    } else if (const char* v = value("--policy")) {
      o.policy = v;
    } else {
      std::fprintf(stderr, "unknown flag %s (see the header of online_bench.cc)\n", a);
      return 2;
    }
  }
  if (o.only.empty() || o.only == "sequential") {
    const auto jobs = resched::SequentialWorkload(o);
    std::printf("sequential (Saule 4.1): %d tasks, 300 processors, delta %d, load %.1f\n", o.tasks,
                o.delta, resched::Load(jobs));
    for (const char* policy : {"fcfs", "conservative", "dasedf"}) {
      resched::Run(policy, policy, {}, 300, jobs);
    }
  }
  if (o.only.empty() || o.only == "moldable") {
    const auto jobs = resched::MoldableWorkload(o);
    std::printf("moldable (Saule 7, Downey): %d tasks, 512 processors, load %.1f\n",
                o.moldable_tasks, resched::Load(jobs));
    resched::Run("fcfs", "fcfs", {}, 512, jobs);
    resched::Run("conservative", "conservative", {}, 512, jobs);
    resched::Run("dbos(rho=1)", "dbos", {{"rho", 1}}, 512, jobs);
    resched::Run("dbos(rho=1.5)", "dbos", {{"rho", 1.5}}, 512, jobs);
  }
  return 0;
}

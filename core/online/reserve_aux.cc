// The main/auxiliary machine reservation scheme — Saule, Bozdağ, Çatalyürek, "Optimizing the
// stretch of independent tasks on a cluster", §4: the cluster is cut into a main part of P - X
// processors and an auxiliary part of X, each planned by its own instance of an online policy
// (FCFS or DASEDF in the paper). When a task is released, the main part is re-planned with it;
// if the maximum stretch of that plan is below the threshold T, it is kept. Otherwise the
// auxiliary part is re-planned with the task too, the task goes to the part whose plan has the
// smaller maximum stretch (the main part on a tie), and the other part is left as it was. §4.1
// tests X in {1, 2, 5, 10, 15, 20, 30} on 300 processors and T in [1.2, 10] (FCFS) or [1.2, 3]
// (DASEDF).
//
// Reading and deviations:
// - "The maximum stretch of the schedule" of a part is taken over its queued jobs, the new one
//   included: running jobs' stretches no longer depend on the decision. Stretch is
//   (C - r) / p(1) (§5), so moldable jobs may have stretch < 1 and T may be below 1.
// - A task stays in its part; when capacity is freed or at events, each part's policy
//   re-plans its own queue.
// - X is clamped to [0, P - 1] so the main part is never empty. The paper's tasks are
//   sequential: a job with no width its part can hold is not offered to that part, and a job
//   that fits neither part runs on the whole cluster, planned by a third policy instance.
// - The parts share one count-based timeline with external holds (partition.h). A hold belongs
//   to no part: where processors run short, it costs the part that books last.
// - The part of each job is remembered by the policy, and Copy copies it with the partition's
//   bookings, so a dry run on a copied plan decides as the plan itself would.
// - On a cluster of processor groups of different speeds, each group gets its own main and
//   auxiliary parts (X clamped to the group's count - 1) and whole-group part, as a cluster of its
//   own would; the scheme chooses a part in each group, and the job goes to the group whose
//   chosen plan ends it earliest, ties to the slower group (partitioned_policy.h).
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/online/partitioned_policy.h"
#include "core/online/policies.h"

namespace resched {
namespace {

constexpr int kMain = 0;
constexpr int kAux = 1;
constexpr int kWhole = 2;

class ReserveAux final : public PartitionedPolicy {
 public:
  ReserveAux(InnerPolicyFactory make_inner, double x, double threshold)
      : PartitionedPolicy(std::move(make_inner)), x_(x), threshold_(threshold) {}
  std::unique_ptr<OnlinePolicy> Copy() const override {
    return std::make_unique<ReserveAux>(*this);
  }
  // The partition, and kJobPartsTable: a row per queued job, its part.
  static constexpr char kJobPartsTable[] = "reserve_aux.job_parts";
  PolicyImage Image() const override {
    PolicyImage image = PartitionedPolicy::Image();
    PolicyImage::Table job_parts;
    for (const auto& [job, part] : part_of_) job_parts.push_back({job, {part}});
    image.Put(kJobPartsTable, std::move(job_parts));
    return image;
  }
  absl::Status LoadImage(const PolicyImage& image, int capacity) override {
    if (absl::Status s =
            image.KeepsOnly({Partition::kLastStartTable, Partition::kBookingsTable, kJobPartsTable},
                            "the reservation scheme");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = LoadPartition(image, capacity); !s.ok()) return s;
    part_of_.clear();
    const PolicyImage::Table* job_parts = image.Find(kJobPartsTable);
    if (job_parts == nullptr) return absl::OkStatus();
    // Three parts per group (one group on one pool).
    const int parts = 3 * std::max<int>(1, static_cast<int>(groups().size()));
    for (const PolicyImage::Row& row : *job_parts) {
      if (absl::Status s = CheckRowShape(row, kJobPartsTable, 1, true); !s.ok()) return s;
      const std::int64_t part = row.values[0];
      if (part < 0 || part >= parts) {
        return absl::DataLossError(absl::StrCat("the policy image puts job ", row.job, " in part ",
                                                part, "; the scheme has parts 0 to ", parts - 1));
      }
      part_of_[row.job] = static_cast<int>(part);
    }
    return absl::OkStatus();
  }

  void PlaceNew(PlanState& state, JobRecord& job) override {
    if (!groups().empty()) {
      PlaceInEarliestGroup(state, job, groups(), groups_slowest_first());
      return;
    }
    Prepare(state);
    CommitNew(state, job, TryNew(state, job, 0));
  }

 protected:
  // The scheme's choice in `group`: the main part, unless its plan's maximum stretch reaches
  // the threshold and the auxiliary part's plan has a smaller one.
  Partition::Trial TryNew(PlanState& state, JobRecord& job, int group) override {
    const int main_part = FirstPart(group) + kMain;
    const int aux_part = FirstPart(group) + kAux;
    const bool fits_main = Fits(job, main_part);
    const bool fits_aux = Fits(job, aux_part);
    if (!fits_main && !fits_aux) return TryNewIn(state, job, FirstPart(group) + kWhole);
    std::optional<Partition::Trial> main;
    double main_stretch = std::numeric_limits<double>::infinity();
    if (fits_main) {
      main = TryNewIn(state, job, main_part);
      main_stretch = MaxStretch(*main);
      if (main_stretch < threshold_) return *std::move(main);
    }
    if (fits_aux) {
      Partition::Trial aux = TryNewIn(state, job, aux_part);
      if (!main || MaxStretch(aux) < main_stretch) return aux;
    }
    return *std::move(main);
  }

  void CommitNew(PlanState& state, JobRecord& job, const Partition::Trial& trial) override {
    part_of_[job.job.id] = trial.part;
    partition().Commit(state, trial);
  }

 private:
  // Main part P - X, auxiliary part X (X clamped so the main part is never empty), then the
  // whole cluster for jobs neither part can hold.
  std::vector<int> PartCapacities(int /*group*/, int capacity) override {
    const int aux = static_cast<int>(std::clamp<double>(x_, 0, capacity - 1));
    return {capacity - aux, aux, capacity};
  }

  // Forgets the parts of jobs that left the queue.
  void BeforeSync(PlanState& state) override {
    std::map<JobId, int> kept;
    for (const JobRecord* job : state.queue()) {
      if (auto it = part_of_.find(job->job.id); it != part_of_.end()) kept.insert(*it);
    }
    part_of_.swap(kept);
  }

  bool Fits(const JobRecord& job, int part) const {
    return partition().capacity(part) > 0 &&
           !job.job.model.Widths(partition().capacity(part)).empty();
  }

  int PartOf(const JobRecord& job) const override {
    if (auto it = part_of_.find(job.job.id); it != part_of_.end()) return it->second;
    const int first = FirstPart(GroupOf(job));
    return first + (Fits(job, first + kMain) ? kMain : Fits(job, first + kAux) ? kAux : kWhole);
  }

  static double MaxStretch(const Partition::Trial& trial) {
    double worst = 0;
    for (size_t i = 0; i < trial.jobs.size(); ++i) {
      if (!trial.allocations[i]) return std::numeric_limits<double>::infinity();
      const Job& job = trial.jobs[i]->job;
      const double flow = static_cast<double>(trial.allocations[i]->end - job.release);
      worst = std::max(worst, flow / static_cast<double>(job.model.SequentialTime()));
    }
    return worst;
  }

  double x_;
  double threshold_;
  std::map<JobId, int> part_of_;  // queued jobs' parts
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeReserveAuxPolicy(const ReserveAuxOptions& options,
                                                   InnerPolicyFactory make_inner) {
  return std::make_unique<ReserveAux>(std::move(make_inner), options.x, options.t);
}

}  // namespace resched

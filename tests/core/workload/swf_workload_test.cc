#include "core/workload/swf_workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/model/job.h"
#include "core/workload/downey_workload.h"
#include "core/workload/workload_stats.h"
#include "tests/core/workload/test_data.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Duration kSecond = kMicrosPerSecond;

SwfLog Parse(const std::string& text) {
  std::istringstream in(text);
  absl::StatusOr<SwfLog> log = ReadSwf(in);
  EXPECT_OK(log);
  return log.ok() ? *std::move(log) : SwfLog{};
}

// Fields: number submit wait run alloc cpu mem req_procs req_time req_mem status user ...
constexpr char kWorkloadLog[] =
    "; MaxProcs: 64\n"
    "10 1000 0  300 16 -1 -1 32  600 -1 1  7 -1 -1 -1 -1 -1 -1\n"   // estimate
                                                                    // 600
    "11 1010 0   -1  8 -1 -1  8  100 -1 0  7 -1 -1 -1 -1 -1 -1\n"   // no run time
    "12 1020 0    0  8 -1 -1  8  100 -1 0  7 -1 -1 -1 -1 -1 -1\n"   // run time 0
    "13 1030 0  100 -1 -1 -1 -1  100 -1 1  7 -1 -1 -1 -1 -1 -1\n"   // no
                                                                    // processors
    "14   -1 0  100  4 -1 -1  4  100 -1 1  7 -1 -1 -1 -1 -1 -1\n"   // no submit
                                                                    // time
    "15 1040 0  500 -1 -1 -1  4  400 -1 1 -1 -1 -1 -1 -1 -1 -1\n"   // ran over
                                                                    // its request
    "16 1050 0  200 99 -1 -1 99   -1 -1 1  8 -1 -1 -1 -1 -1 -1\n"   // wider than
                                                                    // the machine
    "16 1060 0   50  1 -1 -1  1   60 -1 1  8 -1 -1 -1 -1 -1 -1\n"   // repeated
                                                                    // job number
    "17  990 0   10  2 -1 -1  2   20 -1 1  8 -1 -1 -1 -1 -1 -1\n";  // submitted
                                                                    // earliest

TEST(SwfWorkloadTest, ConvertsRecordsToRigidJobs) {
  const SwfLog log = Parse(kWorkloadLog);
  EXPECT_EQ(SwfMachineSize(log), 64);
  absl::StatusOr<SwfWorkload> result = SwfToRigidWorkload(log);
  ASSERT_OK(result);
  const SwfConversionStats& stats = result->stats;
  EXPECT_EQ(stats.records_examined, 9);
  EXPECT_EQ(stats.kept, 5);
  EXPECT_EQ(stats.skipped_no_run_time, 2);
  EXPECT_EQ(stats.skipped_no_processors, 1);
  EXPECT_EQ(stats.skipped_no_submit_time, 1);
  EXPECT_EQ(stats.clamped_processors, 1);

  const Workload& w = result->workload;
  EXPECT_EQ(w.processors, 64);
  ASSERT_EQ(w.jobs.size(), 5u);
  // Sorted by release, relative to the earliest kept job (17, at 990 s).
  EXPECT_EQ(w.jobs[0].job.id, "17");
  EXPECT_EQ(w.jobs[0].job.release, 0);
  const WorkloadJob& j10 = w.jobs[1];
  EXPECT_EQ(j10.job.id, "10");
  EXPECT_EQ(j10.job.owner, "u7");
  EXPECT_EQ(j10.job.release, 10 * kSecond);
  const auto& rigid = std::get<RigidModel>(j10.job.model.params());
  EXPECT_EQ(rigid.k, 16);  // allocated wins over requested
  EXPECT_EQ(rigid.time, 600 * kSecond);
  EXPECT_DOUBLE_EQ(j10.runtime_fraction, 0.5);
  // Requested processors when allocated are unknown; run time when it exceeds the request.
  const WorkloadJob& j15 = w.jobs[2];
  EXPECT_EQ(j15.job.owner, "");
  EXPECT_EQ(std::get<RigidModel>(j15.job.model.params()).k, 4);
  EXPECT_EQ(std::get<RigidModel>(j15.job.model.params()).time, 500 * kSecond);
  EXPECT_DOUBLE_EQ(j15.runtime_fraction, 1.0);
  // Unknown request: the run time; clamped to the machine.
  EXPECT_EQ(std::get<RigidModel>(w.jobs[3].job.model.params()).k, 64);
  EXPECT_DOUBLE_EQ(w.jobs[3].runtime_fraction, 1.0);
  EXPECT_EQ(w.jobs[4].job.id, "r7");  // the repeated job number
  for (const WorkloadJob& wj : w.jobs) {
    EXPECT_OK(ValidateJob(wj.job, w.processors)) << wj.job.id;
  }
}

TEST(SwfWorkloadTest, FirstNJobsAndOptions) {
  const SwfLog log = Parse(kWorkloadLog);
  SwfConversionOptions options;
  options.max_jobs = 2;
  options.processors = 8;
  absl::StatusOr<SwfWorkload> result = SwfToRigidWorkload(log, options);
  ASSERT_OK(result);
  ASSERT_EQ(result->workload.jobs.size(), 2u);
  EXPECT_EQ(result->stats.records_examined,
            6);  // jobs 10 and 15 are the first two usable
  EXPECT_EQ(result->workload.processors, 8);
  EXPECT_EQ(std::get<RigidModel>(result->workload.jobs[0].job.model.params()).k, 8);

  options.processors = -1;
  EXPECT_EQ(SwfToRigidWorkload(log, options).status().code(), absl::StatusCode::kInvalidArgument);
  const absl::Status none = SwfToRigidWorkload(Parse("; only a header\n")).status();
  EXPECT_EQ(none.code(), absl::StatusCode::kInvalidArgument);
}

TEST(DowneyWorkloadTest, DrawsParametersInRangeAndReproducesTheLog) {
  const SwfLog log = Parse(kWorkloadLog);
  DowneyWorkloadOptions options;
  options.processors = 128;
  absl::StatusOr<SwfWorkload> result = SwfToDowneyWorkload(log, options);
  ASSERT_OK(result);
  absl::StatusOr<std::vector<SwfJobBasis>> bases = [&] {
    SwfConversionStats stats;
    return SelectSwfJobs(log, {0, 128, "x"}, stats);
  }();
  ASSERT_OK(bases);
  const Workload& w = result->workload;
  ASSERT_EQ(w.jobs.size(), bases->size());
  EXPECT_EQ(w.processors, 128);
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const auto& m = std::get<DowneyModel>(w.jobs[i].job.model.params());
    const int k = (*bases)[i].k;
    EXPECT_GE(m.a, k);
    EXPECT_LE(m.a, 128);
    EXPECT_GE(m.sigma, 0);
    EXPECT_LE(m.sigma, 2);
    EXPECT_EQ(m.k_max, 128);
    EXPECT_NEAR(w.jobs[i].job.model.TimeOn(k), (*bases)[i].run_time, 2);
    EXPECT_GE(m.t1, (*bases)[i].run_time);
    EXPECT_DOUBLE_EQ(w.jobs[i].runtime_fraction, 1.0);
    EXPECT_OK(ValidateJob(w.jobs[i].job, 128));
  }
  EXPECT_DOUBLE_EQ(DowneySpeedup(4, 0.5, 2), 8 / 4.25);
  EXPECT_DOUBLE_EQ(DowneySpeedup(4, 2, 3), 36.0 / 16);
}

TEST(DowneyWorkloadTest, RejectsBadOptions) {
  const SwfLog log = Parse(kWorkloadLog);
  DowneyWorkloadOptions options;
  options.processors = 0;
  EXPECT_EQ(SwfToDowneyWorkload(log, options).status().code(), absl::StatusCode::kInvalidArgument);
  options = {};
  options.sigma_min = 3;
  EXPECT_EQ(SwfToDowneyWorkload(log, options).status().code(), absl::StatusCode::kInvalidArgument);
}

struct RealLog {
  const char* file;
  int max_procs;
  double paper_load;  // Saule et al. §7, first 8,000 jobs with Downey's model
};

void PrintTo(const RealLog& log, std::ostream* os) { *os << log.file; }

class RealLogTest : public ::testing::TestWithParam<RealLog> {};

TEST_P(RealLogTest, FirstThousandJobsAreSane) {
  absl::StatusOr<SwfLog> log = testing::ReadTestLog(GetParam().file, 1000);
  REQUIRE_SHARED_DATA(!absl::IsNotFound(log.status()), log.status());
  ASSERT_OK(log);
  EXPECT_EQ(log->HeaderInt("MaxProcs"), GetParam().max_procs);
  EXPECT_EQ(log->HeaderValue("Version"), "2.2");
  ASSERT_EQ(log->records.size(), 1000u);
  std::int64_t previous_submit = 0;
  for (const SwfRecord& r : log->records) {
    EXPECT_GE(r.submit_time,
              previous_submit);  // the archive sorts by submit time
    previous_submit = r.submit_time;
    EXPECT_LE(r.allocated_processors, GetParam().max_procs);
    EXPECT_GE(r.run_time, -1);
    EXPECT_LT(r.run_time, 30 * 24 * 3600);
  }
  EXPECT_EQ(log->records.front().job_number, 1);

  absl::StatusOr<SwfWorkload> rigid = SwfToRigidWorkload(*log);
  ASSERT_OK(rigid);
  EXPECT_EQ(rigid->workload.processors, GetParam().max_procs);
  EXPECT_GT(rigid->stats.kept, 900);
  EXPECT_EQ(rigid->stats.kept + rigid->stats.skipped_no_run_time +
                rigid->stats.skipped_no_processors + rigid->stats.skipped_no_submit_time +
                rigid->stats.skipped_out_of_range,
            1000);
  for (const WorkloadJob& wj : rigid->workload.jobs) {
    ASSERT_OK(ValidateJob(wj.job, rigid->workload.processors)) << wj.job.id;
    ASSERT_GT(wj.runtime_fraction, 0);
    ASSERT_LE(wj.runtime_fraction, 1);
  }

  DowneyWorkloadOptions options;
  absl::StatusOr<SwfWorkload> moldable = SwfToDowneyWorkload(*log, options);
  ASSERT_OK(moldable);
  for (const WorkloadJob& wj : moldable->workload.jobs) {
    ASSERT_OK(ValidateJob(wj.job, 512)) << wj.job.id;
  }
  // Same seed, same workload; another seed, other parameters.
  absl::StatusOr<SwfWorkload> again = SwfToDowneyWorkload(*log, options);
  options.seed = 2;
  absl::StatusOr<SwfWorkload> other = SwfToDowneyWorkload(*log, options);
  ASSERT_OK(again);
  ASSERT_OK(other);
  int same = 0;
  for (std::size_t i = 0; i < moldable->workload.jobs.size(); ++i) {
    const auto& m = std::get<DowneyModel>(moldable->workload.jobs[i].job.model.params());
    const auto& a = std::get<DowneyModel>(again->workload.jobs[i].job.model.params());
    const auto& o = std::get<DowneyModel>(other->workload.jobs[i].job.model.params());
    ASSERT_EQ(m.t1, a.t1);
    ASSERT_EQ(m.a, a.a);
    ASSERT_EQ(m.sigma, a.sigma);
    same += m.a == o.a;
  }
  EXPECT_EQ(same, 0);
}

// Checks our reading of the paper's t1 (run time * S(k), see downey_workload.h): the paper reports
// the load of these instances, and with another t1 it would come out different.
TEST_P(RealLogTest, DowneyInstancesHaveThePaperLoad) {
  absl::StatusOr<SwfLog> log = testing::ReadTestLog(GetParam().file, 9000);  // a few are unusable
  REQUIRE_SHARED_DATA(!absl::IsNotFound(log.status()), log.status());
  ASSERT_OK(log);
  for (std::uint64_t seed : {1, 2}) {
    DowneyWorkloadOptions options;
    options.seed = seed;
    absl::StatusOr<SwfWorkload> w = SwfToDowneyWorkload(*log, options);
    ASSERT_OK(w);
    EXPECT_EQ(w->workload.jobs.size(), 8000u);
    const WorkloadSummary s = SummarizeWorkload(w->workload);
    EXPECT_NEAR(s.load, GetParam().paper_load, 0.05 * GetParam().paper_load);
  }
}

INSTANTIATE_TEST_SUITE_P(Archive, RealLogTest,
                         ::testing::Values(RealLog{"SDSC-Par-1996-3.1-cln.swf.gz", 400, 272.4},
                                           RealLog{"OSC-Clust-2000-3.1-cln.swf.gz", 178, 12.4}));

}  // namespace
}  // namespace resched

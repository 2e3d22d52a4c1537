// resched-loadgen --swf against a real in-process server: on a SIMULATED cluster the replay
// gives every job the schedule core/sim computes for the same log; --duration stops a paced
// replay early; on a WALL cluster, compressed, every job is submitted and ends, early ends
// reported.
#include "loadgen/swf_replay.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/sim/simulator.h"
#include "core/workload/swf_file.h"
#include "core/workload/swf_workload.h"
#include "loadgen/report.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::testing {
namespace {

constexpr int kProcessors = 32;

// An SWF log of `jobs` rigid jobs on a 32-processor machine: submits spread over `span_s`
// seconds, requested times of 1 to 30 minutes, about a third ending before them.
std::string WriteLog(const std::string& dir, int jobs, std::int64_t span_s) {
  std::mt19937_64 rng(42);
  SwfLog log;
  log.comments = {"; Version: 2.2", absl::StrCat("; MaxProcs: ", kProcessors)};
  std::vector<std::int64_t> submits;
  for (int i = 0; i < jobs; ++i) submits.push_back(static_cast<std::int64_t>(rng() % span_s));
  std::sort(submits.begin(), submits.end());
  for (int i = 0; i < jobs; ++i) {
    SwfRecord r;
    r.job_number = i + 1;
    r.submit_time = submits[i];
    r.requested_time = 60 + static_cast<std::int64_t>(rng() % 1800);
    r.run_time =
        rng() % 3 == 0 ? 1 + static_cast<std::int64_t>(rng() % r.requested_time) : r.requested_time;
    r.allocated_processors = 1 + static_cast<std::int64_t>(rng() % kProcessors);
    r.status = 1;
    r.user_id = 1 + static_cast<std::int64_t>(rng() % 4);
    log.records.push_back(r);
  }
  const std::string path = dir + "/replay.swf";
  std::ofstream out(path);
  EXPECT_OK(WriteSwf(out, log));
  return path;
}

class SwfReplayTest : public ServerTest {
 protected:
  loadgen::Options Replay(const std::string& log) {
    loadgen::Options options;
    options.target = target_;
    options.swf = log;
    options.policy = "easy";
    return options;
  }

  const resched::testing::TempDir temp_{"resched-swf-replay"};
  const std::string dir_ = temp_.path();
};

TEST_F(SwfReplayTest, ASimulatedReplayGivesTheSimulatorsSchedule) {
  const std::string path = WriteLog(dir_, 150, 6 * 3600);
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::ReplaySwf(Replay(path), progress);
  ASSERT_OK(result);
  ASSERT_TRUE(result->replay.has_value());
  EXPECT_EQ(result->replay->jobs, 150);
  EXPECT_EQ(result->replay->submitted, 150);
  EXPECT_EQ(result->replay->processors, kProcessors);  // the header's MaxProcs
  EXPECT_FALSE(result->replay->stopped);
  std::map<std::string, std::int64_t> calls;
  for (const loadgen::OpSummary& op : result->ops) {
    calls[op.op] = op.calls;
    EXPECT_TRUE(op.errors.empty()) << op.op;
  }
  EXPECT_EQ(calls["submit"], 150);
  EXPECT_GT(calls["report"], 0);  // the early ends
  EXPECT_GT(calls["advance"], 0);
  EXPECT_NE(loadgen::TextReport(Replay(path), *result).find("150 of 150 jobs"), std::string::npos);

  absl::StatusOr<SwfLog> log = ReadSwfFile(path);
  ASSERT_OK(log);
  absl::StatusOr<SwfWorkload> workload = SwfToRigidWorkload(*log);
  ASSERT_OK(workload);
  const ClusterSpec spec{"sim", {{"", kProcessors, 1.0}}, ClockKind::kSimulated, "easy", {}};
  absl::StatusOr<SimResult> simulated = Simulate(workload->workload, spec, {});
  ASSERT_OK(simulated);
  const pb::Schedule served = Schedule("loadgen-swf");
  ExpectValid(served);
  ASSERT_EQ(served.jobs_size(), static_cast<int>(simulated->jobs.size()));
  std::map<std::string, const SimJobRecord*> by_id;
  for (const SimJobRecord& r : simulated->jobs) by_id[r.id] = &r;
  for (const pb::Job& job : served.jobs()) {
    SCOPED_TRACE(job.id());
    ASSERT_TRUE(by_id.contains(job.id()));
    EXPECT_EQ(job.state(), pb::FINISHED);
    EXPECT_EQ(job.allocation().processors(), by_id[job.id()]->k);
    EXPECT_EQ(*FromProto(job.allocation().start(), "start"), by_id[job.id()]->start);
    EXPECT_EQ(*FromProto(job.allocation().end(), "end"), by_id[job.id()]->end);
  }

  // A second replay starts on a fresh cluster.
  ASSERT_OK(loadgen::ReplaySwf(Replay(path), progress));
  EXPECT_EQ(Schedule("loadgen-swf").jobs_size(), 150);
}

TEST_F(SwfReplayTest, DurationStopsAPacedReplay) {
  const std::string path = WriteLog(dir_, 100, 100 * 3600);
  loadgen::Options options = Replay(path);
  options.speedup = 3600;  // an hour of log per second: the log lasts 100 s
  options.duration = absl::Milliseconds(1500);
  options.duration_set = true;
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::ReplaySwf(options, progress);
  ASSERT_OK(result);
  EXPECT_TRUE(result->replay->stopped);
  EXPECT_LT(result->seconds, 5);
  // The count is what the cluster holds, and a progress line came after the first second.
  const pb::Schedule served = Schedule("loadgen-swf");
  EXPECT_GT(result->replay->submitted, 0);
  EXPECT_LT(result->replay->submitted, 100);
  EXPECT_EQ(result->replay->submitted, served.jobs_size());
  EXPECT_THAT(progress.str(), ::testing::HasSubstr("/100 jobs submitted"));
  ExpectValid(served);
}

TEST_F(SwfReplayTest, AWallReplaySubmitsEveryJobAndEndsThem) {
  const std::string path = WriteLog(dir_, 40, 1800);
  loadgen::Options options = Replay(path);
  options.wall = true;
  options.speedup = 5000;  // half an hour of submits in 0.36 s, jobs of 12 to 360 ms
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::ReplaySwf(options, progress);
  ASSERT_OK(result);
  EXPECT_EQ(result->replay->submitted, 40);
  EXPECT_FALSE(result->replay->stopped);
  std::map<std::string, std::int64_t> calls;
  for (const loadgen::OpSummary& op : result->ops) calls[op.op] = op.calls;
  EXPECT_EQ(calls["submit"], 40);
  EXPECT_GT(calls["report"], 0);
  const pb::Schedule served = Schedule("loadgen-swf");
  ExpectValid(served);
  ASSERT_EQ(served.jobs_size(), 40);
  for (const pb::Job& job : served.jobs()) EXPECT_EQ(job.state(), pb::FINISHED) << job.id();
}

TEST_F(SwfReplayTest, AWallReplayStopsWhenTheServerGoesAway) {
  const std::string path = WriteLog(dir_, 40, 1800);
  loadgen::Options options = Replay(path);
  options.wall = true;
  options.speedup = 200;  // 9 s of submissions
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result;
  std::thread replay([&] { result = loadgen::ReplaySwf(options, progress); });
  std::this_thread::sleep_for(std::chrono::seconds(1));
  Stop();  // ends the watch streams, then the server
  replay.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("schedule stream"), std::string::npos)
      << result.status();
}

TEST_F(SwfReplayTest, AMissingLogIsNamed) {
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result =
      loadgen::ReplaySwf(Replay(dir_ + "/absent.swf"), progress);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("absent.swf"), std::string::npos);
}

}  // namespace
}  // namespace resched::server::testing

// `resched trace export`: the SWF and trace-event encodings of a schedule, and the round trip
// through a real server: the SWF log exported from a SIMULATED cluster, replayed by core/sim
// with the same policy, gives every job the same start, end and width.
#include "client/trace_export.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "client/cli.h"
#include "core/sim/replay.h"
#include "core/sim/simulator.h"
#include "core/workload/swf_workload.h"
#include "loadgen/grpc_sim_driver.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/text_proto.h"

namespace resched::cli {
namespace {

using resched::testing::Text;

namespace v1 = resched::v1;

TEST(TraceExportTest, JobsBecomeSwfRecords) {
  const auto cluster = Text<v1::Cluster>(R"pb(
    spec {
      name: "sim"
      processors: 8
      clock: SIMULATED
      policy { name: "easy" }
    }
    capacity: 8
    now { seconds: 5000 })pb");
  const std::vector<v1::Job> jobs = {
      Text<v1::Job>(R"pb(
        id: "j1"
        spec {
          owner: "alice"
          release { seconds: 10 }
          model {
            rigid {
              k: 4
              time { seconds: 600 }
            }
          }
        }
        state: FINISHED
        allocation {
          processors: 4
          start { seconds: 100 }
          end { seconds: 400 nanos: 999000 }
        })pb"),
      Text<v1::Job>(R"pb(
        id: "j2"
        spec {
          owner: "bob"
          release { seconds: 20 }
          model {
            amdahl {
              t1 { seconds: 1000 }
              alpha: 0.5
            }
          }
        }
        state: RUNNING
        allocation {
          processors: 2
          start { seconds: 4000 }
          end { seconds: 4750 }
        })pb"),
      Text<v1::Job>(R"pb(
        id: "j3"
        spec {
          owner: "alice"
          release { seconds: 30 }
          model {
            rigid {
              k: 8
              time { seconds: 60 }
            }
          }
        }
        state: CANCELLED)pb"),
      Text<v1::Job>(R"pb(
        id: "j4"
        spec {
          release { seconds: 40 }
          model {
            rigid {
              k: 1
              time { seconds: 60 }
            }
          }
        }
        state: FAILED
        allocation {
          processors: 1
          start { seconds: 400 }
          end { seconds: 430 }
        })pb"),
  };
  absl::StatusOr<SwfLog> log = JobsToSwf(jobs, cluster);
  ASSERT_OK(log);
  ASSERT_EQ(log->records.size(), 4u);
  const SwfRecord& finished = log->records[0];
  EXPECT_EQ(finished.job_number, 1);
  EXPECT_EQ(finished.submit_time, 10);
  EXPECT_EQ(finished.wait_time, 90);
  EXPECT_EQ(finished.run_time, 300);  // rounded down
  EXPECT_EQ(finished.allocated_processors, 4);
  EXPECT_EQ(finished.requested_processors, 4);
  EXPECT_EQ(finished.requested_time, 600);
  EXPECT_EQ(finished.status, 1);
  EXPECT_EQ(finished.user_id, 1);
  const SwfRecord& running = log->records[1];
  EXPECT_EQ(running.wait_time, 3980);
  EXPECT_EQ(running.run_time, -1);
  EXPECT_EQ(running.requested_time, 750);  // Amdahl on 2: 1000 (0.5 + 0.5 / 2)
  EXPECT_EQ(running.status, -1);
  EXPECT_EQ(running.user_id, 2);
  const SwfRecord& cancelled = log->records[2];  // cancelled while queued: it never ran
  EXPECT_EQ(cancelled.wait_time, -1);
  EXPECT_EQ(cancelled.run_time, -1);
  EXPECT_EQ(cancelled.allocated_processors, -1);
  EXPECT_EQ(cancelled.requested_processors, 8);
  EXPECT_EQ(cancelled.status, 5);
  EXPECT_EQ(cancelled.user_id, 1);
  EXPECT_EQ(log->records[3].status, 0);
  EXPECT_EQ(log->records[3].user_id, -1);

  // The header a reader needs: the machine size, the users.
  std::ostringstream text;
  ASSERT_OK(WriteSwf(text, *log));
  std::istringstream in(text.str());
  absl::StatusOr<SwfLog> read = ReadSwf(in);
  ASSERT_OK(read);
  EXPECT_EQ(read->HeaderInt("MaxProcs"), 8);
  ASSERT_EQ(read->records.size(), log->records.size());
  for (size_t i = 0; i < log->records.size(); ++i) {
    EXPECT_EQ(FormatSwfRecord(read->records[i]), FormatSwfRecord(log->records[i]));
  }
  EXPECT_NE(text.str().find("; Note: user 2 is 'bob'"), std::string::npos);
}

// A job submitted for later (a release after later submissions') is listed at its release: the
// format's records ascend by submit time, which a replay reads in order.
TEST(TraceExportTest, RecordsAscendBySubmitTimeWhenAJobWasSubmittedForLater) {
  const auto cluster = Text<v1::Cluster>(R"pb(
    spec { name: "sim" clock: SIMULATED }
    capacity: 4
    now { seconds: 100 })pb");
  auto job = [](const std::string& id, std::int64_t release) {
    v1::Job j;
    j.set_id(id);
    j.mutable_spec()->mutable_release()->set_seconds(release);
    j.mutable_spec()->mutable_model()->mutable_rigid()->set_k(1);
    j.mutable_spec()->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(60);
    j.set_state(v1::QUEUED);
    return j;
  };
  // In submission order (ListJobs'): j1 asks to start at 500, j2 and j3 at once.
  const std::vector<v1::Job> jobs = {job("j1", 500), job("j2", 20), job("j3", 20)};
  absl::StatusOr<SwfLog> log = JobsToSwf(jobs, cluster);
  ASSERT_OK(log);
  std::vector<std::int64_t> numbers;
  std::int64_t previous = -1;
  for (const SwfRecord& r : log->records) {
    EXPECT_GE(r.submit_time, previous);
    previous = r.submit_time;
    numbers.push_back(r.job_number);
  }
  EXPECT_EQ(numbers, (std::vector<std::int64_t>{2, 3, 1}));
}

TEST(TraceExportTest, AWallClustersLogStartsAtItsFirstRelease) {
  const auto cluster = Text<v1::Cluster>(R"pb(
    spec { name: "w" clock: WALL }
    capacity: 4
    now { seconds: 1795000900 })pb");
  const std::vector<v1::Job> jobs = {Text<v1::Job>(R"pb(
    id: "j7"
    spec {
      release { seconds: 1795000000 nanos: 500000000 }
      model {
        rigid {
          k: 1
          time { seconds: 60 }
        }
      }
    }
    state: QUEUED
    allocation {
      processors: 1
      start { seconds: 1795001000 }
      end { seconds: 1795001060 }
    })pb")};
  absl::StatusOr<SwfLog> log = JobsToSwf(jobs, cluster);
  ASSERT_OK(log);
  EXPECT_EQ(log->HeaderInt("UnixStartTime"), std::nullopt);  // comments only until read back
  std::ostringstream text;
  ASSERT_OK(WriteSwf(text, *log));
  std::istringstream in(text.str());
  absl::StatusOr<SwfLog> read = ReadSwf(in);
  ASSERT_OK(read);
  EXPECT_EQ(read->HeaderInt("UnixStartTime"), 1795000000);
  EXPECT_EQ(read->records[0].job_number, 7);
  EXPECT_EQ(read->records[0].submit_time, 0);
  EXPECT_EQ(read->records[0].wait_time, -1);  // still queued
}

TEST(TraceExportTest, EachProcessorIsATrackOfSlices) {
  const auto schedule = Text<v1::Schedule>(R"pb(
    cluster: "sim"
    capacity: 3
    now { seconds: 50 }
    jobs {
      id: "j1"
      spec { name: "render" owner: "alice" }
      state: RUNNING
      allocation {
        processors: 2
        start { seconds: 10 }
        end { seconds: 70 }
        processor_ids: [ 0, 1 ]
      }
    }
    reservations {
      id: "r1"
      processors: 1
      start { seconds: 0 }
      end { seconds: 100 }
      reason: "maintenance"
      processor_ids: [ 2 ]
    }
    dag_tasks {
      dag_id: "d1"
      task: "a"
      allocation {
        processors: 1
        start { seconds: 70 }
        end { seconds: 90 }
        processor_ids: [ 0 ]
      }
    })pb");
  const nlohmann::json trace = nlohmann::json::parse(ScheduleToTraceEvents(schedule));
  std::map<std::string, std::vector<nlohmann::json>> slices;  // by category
  int tracks = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "X") slices[event["cat"]].push_back(event);
    if (event["ph"] == "M" && event["name"] == "thread_name") ++tracks;
  }
  EXPECT_EQ(tracks, 3);
  ASSERT_EQ(slices["job"].size(), 2u);
  EXPECT_EQ(slices["job"][0]["name"], "j1 render");
  EXPECT_EQ(slices["job"][0]["ts"], 10'000'000);
  EXPECT_EQ(slices["job"][0]["dur"], 60'000'000);
  EXPECT_EQ(slices["job"][0]["tid"], 0);
  EXPECT_EQ(slices["job"][1]["tid"], 1);
  EXPECT_EQ(slices["job"][0]["args"]["state"], "RUNNING");
  EXPECT_EQ(slices["job"][0]["args"]["owner"], "alice");
  ASSERT_EQ(slices["reservation"].size(), 1u);
  EXPECT_EQ(slices["reservation"][0]["name"], "maintenance");
  EXPECT_EQ(slices["reservation"][0]["tid"], 2);
  ASSERT_EQ(slices["dag_task"].size(), 1u);
  EXPECT_EQ(slices["dag_task"][0]["name"], "d1/a");
}

// A rigid workload in whole seconds (SWF's unit), some jobs ending before their estimate.
Workload WholeSecondWorkload(std::uint64_t seed, int jobs, int processors) {
  std::mt19937_64 rng(seed);
  Workload w;
  w.processors = processors;
  Time release = 0;
  for (int i = 0; i < jobs; ++i) {
    if (i > 0 && rng() % 3 != 0) release += static_cast<Time>(rng() % 300) * kMicrosPerSecond;
    WorkloadJob wj;
    wj.job.release = release;
    wj.job.owner = absl::StrCat("user", rng() % 3);
    const std::int64_t estimate_s = 60 + static_cast<std::int64_t>(rng() % 1800);
    const int k = 1 + static_cast<int>(rng() % processors);
    wj.job.model = resched::RuntimeModel(RigidModel{k, estimate_s * kMicrosPerSecond});
    const std::int64_t run_s =
        rng() % 3 == 0 ? estimate_s : 1 + static_cast<std::int64_t>(rng() % estimate_s);
    wj.runtime_fraction = static_cast<double>(run_s) / static_cast<double>(estimate_s);
    w.jobs.push_back(std::move(wj));
  }
  return w;
}

class TraceExportRoundTripTest : public server::testing::ServerTest {
 protected:
  // Runs the CLI against the server; returns its exit status.
  int Cli(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    const int status = RunCli(args, OpenChannel, target_, out, err);
    EXPECT_EQ(err.str(), "");
    return status;
  }

  std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  const resched::testing::TempDir temp_{"resched-export"};
  const std::string dir_ = temp_.path();
};

TEST_F(TraceExportRoundTripTest, AnExportedSwfReplaysToTheSameSchedule) {
  constexpr int kProcessors = 16;
  const Workload workload = WholeSecondWorkload(7, 120, kProcessors);
  for (const std::string policy : {"conservative", "easy", "fcfs"}) {
    SCOPED_TRACE(policy);
    const std::string cluster = "served-" + policy;
    CreateSim(cluster, kProcessors, policy);
    loadgen::GrpcSimDriver driver(*stub_, cluster);
    ASSERT_OK(Replay(workload, driver));
    const v1::Schedule served = Schedule(cluster);
    ExpectValid(served);

    const std::string swf = dir_ + "/" + policy + ".swf";
    ASSERT_EQ(Cli({"trace", "export", "--cluster", cluster, "--format", "swf", "-o", swf}), 0);
    std::ifstream in(swf);
    absl::StatusOr<SwfLog> log = ReadSwf(in);
    ASSERT_OK(log);
    absl::StatusOr<SwfWorkload> replayed = SwfToRigidWorkload(*log);
    ASSERT_OK(replayed);
    EXPECT_EQ(replayed->workload.processors, kProcessors);  // from the header's MaxProcs
    ASSERT_EQ(replayed->stats.kept, static_cast<std::int64_t>(workload.jobs.size()));
    const ClusterSpec spec{"replay", {{"", kProcessors, 1.0}}, ClockKind::kSimulated, policy, {}};
    absl::StatusOr<SimResult> simulated = Simulate(replayed->workload, spec, {});
    ASSERT_OK(simulated);
    // The replayed schedule passes the validator (Simulate checks it) and matches the server's.
    std::map<std::string, const SimJobRecord*> by_number;
    for (const SimJobRecord& r : simulated->jobs) {
      by_number[replayed->workload.jobs[r.index].job.id.empty()
                    ? r.id
                    : replayed->workload.jobs[r.index].job.id] = &r;
    }
    ASSERT_EQ(served.jobs_size(), static_cast<int>(simulated->jobs.size()));
    for (const v1::Job& job : served.jobs()) {
      SCOPED_TRACE(job.id());
      const auto it = by_number.find(job.id().substr(1));  // "j12" was job number 12
      ASSERT_NE(it, by_number.end());
      EXPECT_EQ(it->second->k, job.allocation().processors());
      EXPECT_EQ(it->second->start, *FromProto(job.allocation().start(), "start"));
      EXPECT_EQ(it->second->end, *FromProto(job.allocation().end(), "end"));
    }
  }
}

TEST_F(TraceExportRoundTripTest, APerfettoExportPutsNoTwoSlicesOnOneProcessorAtOnce) {
  constexpr int kProcessors = 8;
  CreateSim("p", kProcessors, "easy");
  loadgen::GrpcSimDriver driver(*stub_, "p");
  ASSERT_OK(Replay(WholeSecondWorkload(11, 40, kProcessors), driver));
  pb::AddReservationRequest hold;
  hold.set_cluster("p");
  hold.set_processors(3);
  const std::int64_t now_s = Schedule("p").now().seconds();
  *hold.mutable_start() = ToTimestamp(now_s * kMicrosPerSecond);
  *hold.mutable_end() = ToTimestamp((now_s + 3600) * kMicrosPerSecond);
  hold.set_reason("maintenance");
  pb::Reservation reservation;
  grpc::ClientContext context;
  ASSERT_OK(stub_->AddReservation(&context, hold, &reservation));

  const std::string path = dir_ + "/p.json";
  ASSERT_EQ(Cli({"trace", "export", "--cluster", "p", "--format", "perfetto", "-o", path}), 0);
  const nlohmann::json trace = nlohmann::json::parse(ReadFile(path));
  std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> tracks;
  std::map<std::string, int> per_category;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const std::int64_t ts = event["ts"];
    const std::int64_t dur = event["dur"];
    tracks[event["tid"]].emplace_back(ts, ts + dur);
    ++per_category[event["cat"]];
  }
  int widths = 0;
  const v1::Schedule schedule = Schedule("p");
  ExpectValid(schedule);
  for (const v1::Job& job : schedule.jobs()) widths += job.allocation().processors();
  EXPECT_EQ(per_category["job"], widths);  // one slice per processor of each job
  EXPECT_EQ(per_category["reservation"], 3);
  for (auto& [tid, slices] : tracks) {
    EXPECT_GE(tid, 0);
    EXPECT_LT(tid, kProcessors);
    std::sort(slices.begin(), slices.end());
    for (size_t i = 1; i < slices.size(); ++i) {
      EXPECT_LE(slices[i - 1].second, slices[i].first) << "processor " << tid;
    }
  }
}

TEST_F(TraceExportRoundTripTest, AnUnknownFormatIsAUsageError) {
  std::ostringstream out;
  std::ostringstream err;
  const int status = RunCli({"trace", "export", "--format", "csv"}, OpenChannel, target_, out, err);
  EXPECT_EQ(status, 2);
  EXPECT_NE(err.str().find("--format: swf or perfetto"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace resched::cli

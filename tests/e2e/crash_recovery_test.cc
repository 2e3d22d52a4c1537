// Fault injection: the real resched-server under a mixed load from several clients, killed with
// SIGKILL at random instants and restarted on the same data directory, round after round. After
// every restart, every change that was acknowledged must be there (jobs with their names and
// states, DAG reservations, clocks), the schedules must pass the validator, and no id may have
// been given to two jobs. Submissions whose answer the kill cut off are retried with their
// request id: the retry must either replay the first answer or apply once.
//
// The server runs with a tokens file (every call carries an admin token) and its audit log on,
// as a deployed one does.
//
// RESCHED_CRASH_ROUNDS sets the number of kills (default 24); scripts/soak-crash.sh runs many.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tokens.h"

namespace resched::server::testing {
namespace {

constexpr int kClients = 4;
constexpr char kAdminToken[] = "crash-recovery-admin-token";
const char* const kSimClusters[] = {"sim-easy", "sim-conservative"};

struct AckedJob {
  std::string cluster;
  std::string id;
  bool cancelled = false;
  bool finished = false;
};

// What the clients were told, by request id or object id.
struct Acknowledged {
  std::mutex mu;
  std::map<std::string, AckedJob> jobs;       // by request id (= the job's name)
  std::map<std::string, std::string> dags;    // DAG id -> cluster
  std::map<std::string, std::int64_t> clock;  // cluster -> latest now acknowledged
  std::vector<std::pair<std::string, std::string>> unanswered;  // (cluster, request id)
  std::int64_t changes = 0;
};

class CrashRecoveryTest : public ServerTest {
 protected:
  // No in-process service: this test drives the real binary.
  void SetUp() override {}
  void TearDown() override { Kill(); }

  static int FreePort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    close(fd);
    return ntohs(addr.sin_port);
  }

  void StartServer() {
    if (port_ == 0) port_ = FreePort();
    const std::string listen = absl::StrCat("127.0.0.1:", port_);
    const std::string log = dir_ + "/server.log";
    // posix_spawn, not fork: gRPC's fork handlers would stall this multi-threaded process.
    const std::string data = dir_ + "/data";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    // The embedded default's cluster, with snapshots every 40 records so that kills land
    // before, during and after snapshots.
    const std::string config = dir_ + "/config.yaml";
    std::ofstream(config) << "snapshot_every: 40\n"
                             "clusters:\n"
                             "  - name: default\n"
                             "    processors: 64\n"
                             "    clock: WALL\n"
                             "    policy:\n"
                             "      name: conservative\n";
    const std::string tokens = dir_ + "/tokens.yaml";
    std::ofstream(tokens) << "tokens:\n  - {sha256: \"" << resched::testing::Sha256Hex(kAdminToken)
                          << "\", tenant: crash-test, role: admin}\n";
    const char* argv[] = {RESCHED_SERVER_BIN, "--listen", listen.c_str(), "--data-dir",
                          data.c_str(),       "--config", config.c_str(), "--tokens-file",
                          tokens.c_str(),     nullptr};
    const int spawned = posix_spawn(&pid_, RESCHED_SERVER_BIN, &actions, nullptr,
                                    const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "cannot start " << RESCHED_SERVER_BIN;
    // Reconnect at once: gRPC's default backoff (1 s, growing) would dominate the restarts.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 100);
    channel_ = grpc::CreateCustomChannel(listen, grpc::InsecureChannelCredentials(), args);
    stub_ = pb::Resched::NewStub(channel_);
    // Ready when it answers; a restart replays the journal first.
    for (int i = 0; i < 150; ++i) {
      if (channel_->WaitForConnected(std::chrono::system_clock::now() +
                                     std::chrono::milliseconds(100))) {
        pb::ListClustersRequest request;
        pb::ListClustersResponse response;
        ASSERT_TRUE(Call(&pb::Resched::Stub::ListClusters, request, &response).ok());
        return;
      }
      int status = 0;
      ASSERT_EQ(waitpid(pid_, &status, WNOHANG), 0) << "the server exited; see " << log;
    }
    FAIL() << "the server did not answer within 15 s; see " << log;
  }

  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  template <class Request, class Response>
  grpc::Status Call(grpc::Status (pb::Resched::Stub::*method)(grpc::ClientContext*, const Request&,
                                                              Response*),
                    const Request& request, Response* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kAdminToken));
    return (stub_.get()->*method)(&context, request, response);
  }

  void CreateClusters() {
    for (const char* name : kSimClusters) {
      pb::CreateClusterRequest request;
      request.set_request_id(absl::StrCat("create-", name));
      request.mutable_spec()->set_name(name);
      request.mutable_spec()->set_processors(32);
      request.mutable_spec()->set_clock(pb::SIMULATED);
      request.mutable_spec()->mutable_policy()->set_name(name + 4);
      pb::Cluster cluster;
      const grpc::Status s = Call(&pb::Resched::Stub::CreateCluster, request, &cluster);
      ASSERT_TRUE(s.ok() || s.error_code() == grpc::StatusCode::ALREADY_EXISTS)
          << s.error_message();
    }
  }

  // One client's load until `stop`: submissions (rigid and moldable, on every cluster, the WALL
  // one included), cancellations, early finishes, clock moves and DAG reservations.
  void Client(int client, int round, const std::atomic<bool>& stop, Acknowledged& acked) {
    std::mt19937 rng(1000 * round + client);
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    std::vector<AckedJob> mine;
    for (int step = 0; !stop; ++step) {
      const std::string cluster = pick(4) == 0 ? "default" : kSimClusters[pick(2)];
      const bool simulated = cluster != "default";
      const int kind = pick(10);
      if (kind < 6 || mine.empty()) {
        pb::SubmitJobRequest request;
        request.set_cluster(cluster);
        const std::string id = absl::StrCat("r", round, "-c", client, "-", step);
        request.set_request_id(id);
        request.mutable_job()->set_name(id);
        if (pick(2) == 0) {
          *request.mutable_job() = Rigid(1 + pick(16), 60 * (1 + pick(120)));
          request.mutable_job()->set_name(id);
        } else {
          auto* amdahl = request.mutable_job()->mutable_model()->mutable_amdahl();
          amdahl->mutable_t1()->set_seconds(600 * (1 + pick(20)));
          amdahl->set_alpha(0.05 * pick(6));
        }
        pb::SubmitJobResponse response;
        const grpc::Status s = Call(&pb::Resched::Stub::SubmitJob, request, &response);
        std::lock_guard<std::mutex> lock(acked.mu);
        if (s.ok()) {
          acked.jobs[id] = AckedJob{cluster, response.job().id()};
          mine.push_back(acked.jobs[id]);
          ++acked.changes;
        } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE ||
                   s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
          acked.unanswered.emplace_back(cluster, id);
        }
      } else if (kind < 8) {
        AckedJob& job = mine[pick(static_cast<int>(mine.size()))];
        pb::CancelJobRequest cancel;
        cancel.set_cluster(job.cluster);
        cancel.set_id(job.id);
        pb::ReportJobEventRequest finish;
        finish.set_cluster(job.cluster);
        finish.set_id(job.id);
        finish.set_kind(pb::FINISHED_EVENT);
        pb::Job answer;
        const bool cancelling = kind == 6;
        const grpc::Status s = cancelling
                                   ? Call(&pb::Resched::Stub::CancelJob, cancel, &answer)
                                   : Call(&pb::Resched::Stub::ReportJobEvent, finish, &answer);
        if (s.ok()) {
          std::lock_guard<std::mutex> lock(acked.mu);
          for (auto& [request_id, record] : acked.jobs) {
            if (record.cluster == job.cluster && record.id == job.id) {
              (cancelling ? record.cancelled : record.finished) = true;
            }
          }
          ++acked.changes;
        }
      } else if (kind == 8 && simulated) {
        pb::AdvanceClockRequest request;
        request.set_cluster(cluster);
        request.mutable_by()->set_seconds(60 * (1 + pick(30)));
        pb::AdvanceClockResponse response;
        if (Call(&pb::Resched::Stub::AdvanceClock, request, &response).ok()) {
          std::lock_guard<std::mutex> lock(acked.mu);
          acked.clock[cluster] = std::max(acked.clock[cluster], response.now().seconds());
          ++acked.changes;
        }
      } else {
        pb::ReserveDAGRequest request;
        request.set_cluster(cluster);
        for (int t = 0; t < 3; ++t) {
          pb::DagTask* task = request.mutable_dag()->add_tasks();
          task->set_name(absl::StrCat("t", t));
          task->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(1200 * (1 + t));
          task->mutable_model()->mutable_amdahl()->set_alpha(0.1);
        }
        pb::DagEdge* edge = request.mutable_dag()->add_edges();
        edge->set_from("t0");
        edge->set_to("t2");
        pb::ReserveDAGResponse response;
        if (Call(&pb::Resched::Stub::ReserveDAG, request, &response).ok()) {
          std::lock_guard<std::mutex> lock(acked.mu);
          acked.dags[response.dag_id()] = cluster;
          ++acked.changes;
        }
      }
    }
  }

  // Everything acknowledged is there; returns how many acknowledgements were checked.
  std::int64_t CheckAcknowledged(Acknowledged& acked) {
    std::lock_guard<std::mutex> lock(acked.mu);
    std::int64_t checked = 0;
    // Every retained job of each cluster, by id.
    std::map<std::pair<std::string, std::string>, pb::Job> jobs;
    for (const char* cluster : {"default", kSimClusters[0], kSimClusters[1]}) {
      pb::ListJobsRequest request;
      request.set_cluster(cluster);
      request.set_page_size(10'000);
      do {
        pb::ListJobsResponse page;
        const grpc::Status s = Call(&pb::Resched::Stub::ListJobs, request, &page);
        EXPECT_TRUE(s.ok()) << cluster << ": " << s.error_message();
        if (!s.ok()) break;
        for (const pb::Job& job : page.jobs()) jobs[{cluster, job.id()}] = job;
        request.set_page_token(page.next_page_token());
      } while (!request.page_token().empty());
    }
    std::map<std::pair<std::string, std::string>, std::string> owner;  // (cluster, id) -> name
    for (const auto& [name, job] : acked.jobs) {
      auto it = jobs.find({job.cluster, job.id});
      EXPECT_TRUE(it != jobs.end())
          << "acknowledged job " << job.cluster << "/" << job.id << " (" << name << ") is lost";
      if (it == jobs.end()) continue;
      const pb::Job& found = it->second;
      EXPECT_EQ(found.spec().name(), name) << job.cluster << "/" << job.id << " was reused";
      const auto [unused, fresh] = owner.emplace(std::pair{job.cluster, job.id}, name);
      EXPECT_TRUE(fresh) << job.cluster << "/" << job.id << " answered two submissions";
      if (job.cancelled) {
        EXPECT_EQ(found.state(), pb::CANCELLED) << name;
      }
      if (job.finished) {
        EXPECT_EQ(found.state(), pb::FINISHED) << name;
      }
      ++checked;
    }
    for (const auto& [id, cluster] : acked.dags) {
      pb::GetDagReservationRequest request;
      request.set_cluster(cluster);
      request.set_id(id);
      pb::DagReservation found;
      EXPECT_TRUE(Call(&pb::Resched::Stub::GetDagReservation, request, &found).ok())
          << "acknowledged DAG reservation " << cluster << "/" << id << " is lost";
      ++checked;
    }
    for (const auto& [cluster, seconds] : acked.clock) {
      pb::GetClusterRequest request;
      request.set_name(cluster);
      pb::Cluster found;
      EXPECT_TRUE(Call(&pb::Resched::Stub::GetCluster, request, &found).ok());
      EXPECT_GE(found.now().seconds(), seconds) << cluster << "'s clock went back";
      ++checked;
    }
    for (const char* cluster : {"default", kSimClusters[0], kSimClusters[1]}) {
      pb::GetScheduleRequest request;
      request.set_cluster(cluster);
      request.set_include_finished(true);
      request.mutable_from()->set_seconds(0);
      pb::Schedule schedule;
      EXPECT_TRUE(Call(&pb::Resched::Stub::GetSchedule, request, &schedule).ok());
      SCOPED_TRACE(cluster);
      ExpectValid(schedule);
    }
    return checked;
  }

  // Submissions cut off by a kill, retried with their request id: applied at most once.
  void RetryUnanswered(Acknowledged& acked) {
    std::vector<std::pair<std::string, std::string>> pending;
    {
      std::lock_guard<std::mutex> lock(acked.mu);
      pending.swap(acked.unanswered);
    }
    for (const auto& [cluster, id] : pending) {
      pb::SubmitJobRequest request;
      request.set_cluster(cluster);
      request.set_request_id(id);
      *request.mutable_job() = Rigid(1, 60);
      request.mutable_job()->set_name(id);
      pb::SubmitJobResponse response;
      const grpc::Status s = Call(&pb::Resched::Stub::SubmitJob, request, &response);
      ASSERT_TRUE(s.ok() || s.error_code() == grpc::StatusCode::ALREADY_EXISTS)
          << id << ": " << s.error_message();
      if (s.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
        // The cut-off submission was applied: the first answer, in the details, names its job.
        google::rpc::Status rich;
        ASSERT_TRUE(rich.ParseFromString(s.error_details()) && rich.details_size() == 1) << id;
        ASSERT_TRUE(rich.details(0).UnpackTo(&response)) << id;
      }
      std::lock_guard<std::mutex> lock(acked.mu);
      acked.jobs[id] = AckedJob{cluster, response.job().id()};
    }
  }

  const resched::testing::TempDir temp_{"resched-crash"};
  const std::string dir_ = temp_.path();
  int port_ = 0;
  pid_t pid_ = -1;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(CrashRecoveryTest, EveryAcknowledgedChangeSurvivesSigkill) {
  const char* env = std::getenv("RESCHED_CRASH_ROUNDS");
  const int rounds = env != nullptr ? std::atoi(env) : 24;
  Acknowledged acked;
  std::mt19937 rng(42);
  std::int64_t checked = 0;
  for (int round = 0; round < rounds; ++round) {
    const auto started = std::chrono::steady_clock::now();
    ASSERT_NO_FATAL_FAILURE(StartServer());
    std::fprintf(stderr, "round %d: restart %.2f s\n", round,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (round == 0) {
      ASSERT_NO_FATAL_FAILURE(CreateClusters());
    }
    ASSERT_NO_FATAL_FAILURE(RetryUnanswered(acked));
    checked += CheckAcknowledged(acked);
    if (::testing::Test::HasFailure()) break;
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] { Client(c, round, stop, acked); });
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 400)(rng)));
    Kill();
    stop = true;
    for (auto& client : clients) client.join();
  }
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_NO_FATAL_FAILURE(RetryUnanswered(acked));
  checked += CheckAcknowledged(acked);
  // Snapshots were written (and start-ups loaded them: every check above ran on their state).
  std::ifstream log(dir_ + "/server.log");
  int snapshots = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.find("resched-server: snapshot of cluster") != std::string::npos &&
        line.find("not written") == std::string::npos) {
      ++snapshots;
    }
  }
  EXPECT_GE(snapshots, rounds / 4) << "too few snapshots to test restarts from them";
  // The audit log holds the acknowledged changes (at least), one whole record per line: a line
  // is written by one write(2) before the call answers, so a kill never leaves half of one.
  std::ifstream audit(dir_ + "/data/audit.jsonl");
  long long audited_ok = 0;
  for (std::string line; std::getline(audit, line);) {
    EXPECT_TRUE(line.starts_with("{") && line.ends_with("}")) << line;
    if (line.find("\"code\":\"OK\"") != std::string::npos) ++audited_ok;
  }
  EXPECT_GE(audited_ok, acked.changes);
  std::printf(
      "crash recovery: %d snapshots written, %d kills, %lld changes acknowledged, %lld "
      "acknowledgements "
      "checked after restarts, %zu jobs in the end, lost: %s\n",
      snapshots, rounds, static_cast<long long>(acked.changes), static_cast<long long>(checked),
      acked.jobs.size(), ::testing::Test::HasFailure() ? "SOME (see above)" : "0");
}

}  // namespace
}  // namespace resched::server::testing

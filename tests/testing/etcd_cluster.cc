#include "tests/testing/etcd_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "server/store/etcd_client.h"
#include "tests/testing/free_port.h"

namespace resched::testing {

EtcdCluster::EtcdCluster(int members, std::optional<EtcdTls> tls, server::etcd::ClientOptions probe)
    : tls_(std::move(tls)), probe_(std::move(probe)) {
  // A port is free when picked, but another test may bind it before etcd does: such a start is
  // tried again on new ports, in new directories.
  constexpr int kAttempts = 4;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    started_ = Start(members, attempt);
    if (started_.ok()) return;
    const bool lost_a_port = std::any_of(members_.begin(), members_.end(),
                                         [&](const Member& member) { return LostItsPort(member); });
    if (!lost_a_port) return;
    for (int i = 0; i < size(); ++i) Kill(i);
  }
}

absl::Status EtcdCluster::Start(int members, int attempt) {
  const std::vector<int> ports = FreeLoopbackPorts(2 * members);
  if (ports.empty()) return absl::FailedPreconditionError("the kernel gave no free loopback port");
  members_.clear();
  std::vector<std::string> peers;
  for (int i = 0; i < members; ++i) {
    Member member{.name = absl::StrCat("m", i),
                  .files = absl::StrCat(dir_.path(), "/", attempt, "-m", i),
                  .client_port = ports[2 * i],
                  .peer_port = ports[2 * i + 1]};
    peers.push_back(absl::StrCat(member.name, "=http://127.0.0.1:", member.peer_port));
    members_.push_back(member);
  }
  initial_cluster_ = absl::StrJoin(peers, ",");
  for (Member& member : members_) {
    if (absl::Status spawned = Spawn(member); !spawned.ok()) return spawned;
  }
  for (const Member& member : members_) {
    if (absl::Status answering = WaitUntilAnswering(member); !answering.ok()) return answering;
  }
  return absl::OkStatus();
}

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) Kill(i);
}

std::vector<std::string> EtcdCluster::endpoints() const {
  std::vector<std::string> urls;
  for (const Member& member : members_) {
    urls.push_back(ClientUrl(member));
  }
  return urls;
}

std::string EtcdCluster::ClientUrl(const Member& member) const {
  return absl::StrCat(tls_ ? "https" : "http", "://127.0.0.1:", member.client_port);
}

std::string EtcdCluster::LogOf(const Member& member) { return absl::StrCat(member.files, ".log"); }

std::string EtcdCluster::LogTail(const Member& member) {
  std::ifstream log(LogOf(member));
  std::deque<std::string> last;
  for (std::string line; std::getline(log, line);) {
    if (line.empty()) continue;
    last.push_back(std::move(line));
    if (last.size() > 3) last.pop_front();
  }
  return absl::StrJoin(last, "\n");
}

bool EtcdCluster::LostItsPort(const Member& member) {
  return absl::StrContains(LogTail(member), "address already in use");
}

absl::Status EtcdCluster::Spawn(Member& member) {
  const std::string& data = member.files;
  const std::string client = ClientUrl(member);
  const std::string peer = absl::StrCat("http://127.0.0.1:", member.peer_port);
  const std::string log = LogOf(member);
  std::vector<std::string> args = {"etcd",
                                   "--name",
                                   member.name,
                                   "--data-dir",
                                   data,
                                   "--listen-client-urls",
                                   client,
                                   "--advertise-client-urls",
                                   client,
                                   "--listen-peer-urls",
                                   peer,
                                   "--initial-advertise-peer-urls",
                                   peer,
                                   "--initial-cluster",
                                   initial_cluster_,
                                   "--initial-cluster-token",
                                   "resched-test",
                                   "--initial-cluster-state",
                                   "new",
                                   "--heartbeat-interval",
                                   "50",
                                   "--election-timeout",
                                   "500",
                                   "--logger",
                                   "zap",
                                   "--log-outputs",
                                   "stderr"};
  if (tls_) {
    args.insert(args.end(), {"--cert-file", tls_->cert_file, "--key-file", tls_->key_file});
    if (!tls_->client_ca_file.empty()) {
      args.insert(args.end(), {"--client-cert-auth", "--trusted-ca-file", tls_->client_ca_file});
    }
  }
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // posix_spawn, not fork: a test process may run gRPC's threads, whose fork handlers stall.
  const int spawned = posix_spawnp(&member.pid, "etcd", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    member.pid = -1;
    return absl::FailedPreconditionError(
        "cannot start etcd: is Debian's etcd-server installed (scripts/install-deps.sh --etcd)?");
  }
  return absl::OkStatus();
}

absl::Status EtcdCluster::WaitUntilAnswering(const Member& member) {
  server::etcd::ClientOptions options = probe_;
  options.endpoints = {ClientUrl(member)};
  options.request_timeout = absl::Seconds(1);
  auto client = server::etcd::Client::Create(options);
  if (!client.ok()) return client.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  absl::Status last;
  while (absl::Now() < deadline) {
    // A read through Raft: the member has joined a cluster with a leader.
    last = (*client)->Range("health-probe", "").status();
    if (last.ok()) return absl::OkStatus();
    int status = 0;
    if (waitpid(member.pid, &status, WNOHANG) == member.pid) {
      return absl::FailedPreconditionError(absl::StrCat("etcd member ", member.name,
                                                        " exited; the end of ", LogOf(member),
                                                        ":\n", LogTail(member)));
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::FailedPreconditionError(absl::StrCat("etcd member ", member.name,
                                                    " did not answer within 20 s (", last.message(),
                                                    "); see ", LogOf(member)));
}

void EtcdCluster::Kill(int member) {
  Member& m = members_[member];
  if (m.pid <= 0) return;
  kill(m.pid, SIGKILL);
  int status = 0;
  waitpid(m.pid, &status, 0);
  m.pid = -1;
}

void EtcdCluster::Pause(int member) {
  if (members_[member].pid > 0) kill(members_[member].pid, SIGSTOP);
}

void EtcdCluster::Resume(int member) {
  if (members_[member].pid > 0) kill(members_[member].pid, SIGCONT);
}

absl::Status EtcdCluster::Restart(int member) {
  Kill(member);
  if (absl::Status spawned = Spawn(members_[member]); !spawned.ok()) return spawned;
  return WaitUntilAnswering(members_[member]);
}

absl::Status EtcdCluster::RestartAll() {
  for (Member& member : members_) {
    if (member.pid > 0) continue;
    if (absl::Status spawned = Spawn(member); !spawned.ok()) return spawned;
  }
  for (const Member& member : members_) {
    if (absl::Status answering = WaitUntilAnswering(member); !answering.ok()) return answering;
  }
  return absl::OkStatus();
}

}  // namespace resched::testing

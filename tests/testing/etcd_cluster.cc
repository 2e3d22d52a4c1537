#include "tests/testing/etcd_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "server/store/etcd_client.h"
#include "tests/testing/free_port.h"

extern char** environ;

namespace resched::testing {

EtcdCluster::EtcdCluster(int members, std::optional<EtcdTls> tls, server::etcd::ClientOptions probe)
    : tls_(std::move(tls)), probe_(std::move(probe)) {
  std::vector<std::string> peers;
  for (int i = 0; i < members; ++i) {
    Member member{.name = absl::StrCat("m", i),
                  .client_port = FreeLoopbackPort(),
                  .peer_port = FreeLoopbackPort()};
    peers.push_back(absl::StrCat(member.name, "=http://127.0.0.1:", member.peer_port));
    members_.push_back(member);
  }
  initial_cluster_ = absl::StrJoin(peers, ",");
  for (Member& member : members_) {
    started_ = Spawn(member);
    if (!started_.ok()) return;
  }
  for (const Member& member : members_) {
    started_ = WaitUntilAnswering(member);
    if (!started_.ok()) return;
  }
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

std::string EtcdCluster::LogOf(const Member& member) const {
  return absl::StrCat(dir_.path(), "/", member.name, ".log");
}

absl::Status EtcdCluster::Spawn(Member& member) {
  const std::string data = absl::StrCat(dir_.path(), "/", member.name);
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
      return absl::FailedPreconditionError(
          absl::StrCat("etcd member ", member.name, " exited; see ", LogOf(member)));
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

// A real etcd cluster on loopback for a test (Debian's etcd-server, found on the PATH): one or
// more members, each its own process with its data in a temporary directory, started by the
// test and stopped when the cluster goes. Members can be killed, paused, resumed and restarted,
// for the fault tests of the replicated store. Elections are fast (50 ms heartbeats, 500 ms
// election timeout), so that a lost leader is replaced within a second.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/store/etcd_client.h"
#include "tests/testing/temp_dir.h"

namespace resched::testing {

// Clients reach the members over TLS: their certificate and key, the CA their clients must be
// signed by (empty: clients need no certificate), as files.
struct EtcdTls {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;
};

class EtcdCluster {
 public:
  // Starts `members` members and waits until each answers (FAILED_PRECONDITION naming the log of
  // one that does not within 20 s, or when etcd is not installed). With `tls`, the members'
  // client URLs are https; `probe` is how the cluster's own client reaches them then.
  explicit EtcdCluster(int members = 1, std::optional<EtcdTls> tls = std::nullopt,
                       server::etcd::ClientOptions probe = {});
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  // OK once every member answered; the error of the start otherwise.
  const absl::Status& started() const { return started_; }
  // Each member's client URL (http://127.0.0.1:PORT, https with TLS), in member order.
  std::vector<std::string> endpoints() const;
  int size() const { return static_cast<int>(members_.size()); }
  // The member's process (-1 while it is killed), for what a benchmark reads of it in /proc.
  pid_t pid(int member) const { return members_[member].pid; }

  // SIGKILL, and waits for the process to go.
  void Kill(int member);
  // SIGSTOP / SIGCONT: a member that holds its connections open but answers nothing.
  void Pause(int member);
  void Resume(int member);
  // Starts a killed member again on its data directory and waits until it answers.
  absl::Status Restart(int member);
  // Starts every killed member again, then waits until each answers: the way back from a loss
  // of the majority, where no member answers alone.
  absl::Status RestartAll();

 private:
  struct Member {
    std::string name;
    // Its data directory; its log is this path with ".log".
    std::string files;
    int client_port = 0;
    int peer_port = 0;
    pid_t pid = -1;
  };

  // Picks ports, spawns every member and waits until each answers; `attempt` names the files.
  absl::Status Start(int members, int attempt);
  absl::Status Spawn(Member& member);
  absl::Status WaitUntilAnswering(const Member& member);
  std::string ClientUrl(const Member& member) const;
  static std::string LogOf(const Member& member);
  // The log's last lines, for an error that says why a member exited.
  static std::string LogTail(const Member& member);
  static bool LostItsPort(const Member& member);

  const std::optional<EtcdTls> tls_;
  const server::etcd::ClientOptions probe_;
  TempDir dir_{"etcd"};
  std::string initial_cluster_;
  std::vector<Member> members_;
  absl::Status started_;
};

}  // namespace resched::testing

#include "bridge/slurm/scontrol.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>  // environ, with _GNU_SOURCE

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace resched::bridge::slurm {
namespace {

std::string SlurmTime(Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%S", absl::FromUnixMicros(t), absl::UTCTimeZone());
}

std::string Who(const BatchReservation& r) {
  std::string who;
  if (!r.users.empty()) absl::StrAppend(&who, " Users=", r.users);
  if (!r.accounts.empty()) absl::StrAppend(&who, " Accounts=", r.accounts);
  return who;
}

// A temporary file, removed when it goes out of scope.
class TempFile {
 public:
  TempFile() {
    char name[] = "/tmp/resched-bridge-XXXXXX";
    fd_ = mkstemp(name);
    if (fd_ >= 0) path_ = name;
  }
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    if (!path_.empty()) unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace

std::string ScontrolScript(std::span<const ReservationChange> changes,
                           const std::vector<ParkedJob>& parked,
                           const std::set<std::string>& existing, const std::string& partition,
                           Time now) {
  std::string script;
  auto line = [&script](auto&&... parts) { absl::StrAppend(&script, parts..., "\n"); };
  auto put_back = [&](const std::string& job, const std::string& reservation) {
    line("update JobId=", job, " ReservationName=", reservation, " AdminComment=");
    line("release ", job);
  };
  auto create = [&](const BatchReservation& r) {
    line("create reservation ReservationName=", r.name,
         " StartTime=", r.start <= now ? "now" : SlurmTime(r.start), " EndTime=", SlurmTime(r.end),
         " CoreCnt=", r.cores, " PartitionName=", partition, Who(r));
  };
  std::set<std::string> deleted;
  for (const ReservationChange& change : changes) {
    if (change.kind == ReservationChange::Kind::kDelete) deleted.insert(change.reservation.name);
  }
  for (const ParkedJob& p : parked) {
    if (existing.contains(p.reservation) && !deleted.contains(p.reservation)) {
      put_back(p.job, p.reservation);
    }
  }
  // Every deletion before any creation, so that a moved reservation's new place may overlap
  // another one's old place.
  for (const ReservationChange& change : changes) {
    const BatchReservation& r = change.reservation;
    if (change.kind == ReservationChange::Kind::kUpdate) {
      for (const std::string& job : change.waiting_jobs) {
        line("hold ", job);
        line("update JobId=", job, " ReservationName= AdminComment=\"", kParkedNote, r.name, "\"");
      }
      line("delete ReservationName=", r.name);
    } else if (change.kind == ReservationChange::Kind::kDelete) {
      for (const ParkedJob& p : parked) {
        if (p.reservation != r.name) continue;
        line("update JobId=", p.job, " AdminComment=");
        line("release ", p.job);
      }
      if (existing.contains(r.name)) line("delete ReservationName=", r.name);
    }
  }
  for (const ReservationChange& change : changes) {
    if (change.kind == ReservationChange::Kind::kDelete) continue;
    create(change.reservation);
    for (const std::string& job : change.waiting_jobs) put_back(job, change.reservation.name);
  }
  return script;
}

absl::StatusOr<CommandResult> RunWithInput(const std::vector<std::string>& argv,
                                           const std::string& input,
                                           const std::vector<std::string>& environment,
                                           absl::Duration timeout) {
  TempFile in, out;
  if (in.fd() < 0 || out.fd() < 0) {
    return absl::InternalError(absl::StrCat("no temporary file: ", std::strerror(errno)));
  }
  if (write(in.fd(), input.data(), input.size()) != static_cast<ssize_t>(input.size()) ||
      lseek(in.fd(), 0, SEEK_SET) != 0) {
    return absl::InternalError(absl::StrCat("writing ", in.path(), ": ", std::strerror(errno)));
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const bool replaced =
        std::any_of(environment.begin(), environment.end(), [&](const auto& mine) {
          return absl::StartsWith(entry, mine.substr(0, mine.find('=') + 1));
        });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), environment.begin(), environment.end());
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd(), STDIN_FILENO);
  // Standard output only echoes the commands read: what was refused goes to standard error.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd(), STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  }
  const absl::Time deadline = absl::Now() + timeout;
  int wait_status = 0;
  bool killed = false;
  while (true) {
    const pid_t done = waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for ", argv[0], ": ", std::strerror(errno)));
    }
    if (!killed && absl::Now() > deadline) {
      kill(pid, SIGKILL);
      killed = true;
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  std::ifstream file(out.path());
  std::stringstream text;
  text << file.rdbuf();
  if (killed) {
    return absl::DeadlineExceededError(
        absl::StrCat(argv[0], " ran past ", absl::FormatDuration(timeout), ": ", text.str()));
  }
  const int exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
  return CommandResult{exit_code, text.str()};
}

}  // namespace resched::bridge::slurm

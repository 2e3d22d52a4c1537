// resched-slurm's command line: where resched and Slurm are, which cluster and partition it keeps
// in step, and how. Every default is written here.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bridge/reconcile.h"
#include "bridge/slurm/slurm_batch_system.h"
#include "transport/tls_credentials.h"

namespace resched::bridge::slurm {

struct BridgeOptions {
  std::string server = "127.0.0.1:50051";  // --server, else $RESCHED_SERVER
  transport::ClientTlsFiles tls;
  std::string token_file;  // --token-file; else $RESCHED_TOKEN
  std::string cluster;     // --cluster; default: the partition's name
  SlurmOptions slurm;
  SyncOptions sync;
  absl::Duration interval = absl::Seconds(1);
  absl::Duration call_timeout = absl::Seconds(10);
  bool once = false;  // one round, then exit: 0 when the sides were already in step
  std::string log_format = "text";
  bool help = false;
};

inline constexpr char kBridgeUsage[] =
    R"(resched-slurm: keeps a resched cluster and a Slurm partition in step.

  --slurmrestd ADDR      unix:/path/to/socket (rest_auth/local) or http://host:port (required)
  --slurm-user NAME      with a token in $SLURM_JWT (rest_auth/jwt), the user it belongs to
  --partition NAME       the Slurm partition (default: batch)
  --scontrol PATH        the scontrol program (default: scontrol; SLURM_CONF from the environment)
  --server HOST:PORT     resched-server, or several separated by commas (default: $RESCHED_SERVER,
                         else 127.0.0.1:50051)
  --cluster NAME         the resched cluster (default: the partition's name); created, with the
                         partition's CPUs and a WALL clock, when missing
  --tls-ca, --tls-cert, --tls-key FILE   TLS to resched-server, as the CLI's
  --token-file FILE      the bearer token (default: $RESCHED_TOKEN)
  --users LIST           who may run in the reservations it makes (Slurm users, commas)
  --accounts LIST        which Slurm accounts may (at least one of --users and --accounts)
  --tenant-accounts LIST TENANT=ACCOUNT,...: a tenant's jobs and DAG tasks are reserved for its
                         account alone
  --name-prefix TEXT     its reservations' names start with TEXT- (default: resched-CLUSTER)
  --interval DURATION    between rounds (default: 1s)
  --horizon DURATION     mirror only work starting within it (default: 24h)
  --open-hold DURATION   the length of a hold with no known end, renewed at half (default: 168h)
  --tolerance DURATION   a hold for a batch job moves only when off by more (default: 60s)
  --once                 one round, then exit (status 0: already in step; 3: changes made)
  --log-format text|json (default: text)
)";

// INVALID_ARGUMENT naming the flag and what it takes.
absl::StatusOr<BridgeOptions> ParseBridgeOptions(const std::vector<std::string>& args);

}  // namespace resched::bridge::slurm

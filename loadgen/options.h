// resched-loadgen's command line: where to send load, how (closed loop with N clients or open
// loop at a target rate), for how long, and which calls in which proportions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "loadgen/ops.h"
#include "transport/tls_credentials.h"

namespace resched::loadgen {

struct Options {
  std::string target = "127.0.0.1:50051";
  transport::ClientTlsFiles tls;  // --tls-ca, --tls-cert, --tls-key; none: plaintext
  std::string token;  // the bearer token sent with every call (--token-file, RESCHED_TOKEN)
  int clients = 16;
  double rate = 0;  // calls/s over all clients; 0: closed loop, each client calls back to back
  absl::Duration duration = absl::Seconds(10);
  std::int64_t count = 0;  // stop after this many calls instead (0: use the duration)
  int clusters = 8;        // SIMULATED clusters loadgen-0..N-1, created if missing
  int processors = 64;
  std::string policy = "conservative";
  std::map<Op, double> mix = {{Op::kSubmit, 1}};  // relative weights
  int health_baseline = 0;  // sequential health checks measured before the load (round trip)
  bool json = false;
  std::uint64_t seed = 1;
  std::string acks;  // --acks FILE: every acknowledged change, a JSON line each (loadgen/ack_log.h)
  // Replay of an SWF log (loadgen/swf_replay.h) instead of the synthetic mix.
  std::string swf;
  double speedup = 0;           // log seconds per wall second; 0: as fast as the server answers
  bool wall = false;            // replay on a WALL cluster (needs a speedup) instead of SIMULATED
  bool duration_set = false;    // --duration given: an SWF replay stops there
  bool processors_set = false;  // --processors given: else an SWF replay takes the log's
};

// Parses the arguments after the program name; INVALID_ARGUMENT naming the flag and its limit.
absl::StatusOr<Options> ParseOptions(const std::vector<std::string>& args);
extern const char kUsage[];

}  // namespace resched::loadgen

#include "loadgen/options.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "transport/bearer_token.h"

namespace resched::loadgen {

const char kUsage[] =
    "usage: resched-loadgen [--target HOST:PORT] [--clients N] [--rate CALLS_PER_S]\n"
    "                       [--duration D | --count N] [--clusters N] [--processors N]\n"
    "                       [--policy NAME] [--mix OP=W,...] [--health-baseline N] [--json]\n"
    "                       [--seed N] [--acks FILE]\n"
    "       resched-loadgen --swf FILE [--speedup X] [--clock simulated|wall] [--count N]\n"
    "                       [--duration D] [--processors N] [--policy NAME] [--target ...]\n"
    "  --target     the server (default 127.0.0.1:50051); several, HOST:PORT,HOST:PORT...:\n"
    "               replicas on etcd, each call going to the one that serves and waiting\n"
    "               while one takes over from another\n"
    "  --tls-ca FILE  TLS, verifying the server against this CA (PEM); --tls-cert FILE and\n"
    "               --tls-key FILE: this client's certificate for mutual TLS\n"
    "  --token-file FILE  the bearer token sent with every call (default: $RESCHED_TOKEN)\n"
    "  --clients    concurrent clients (default 16); closed loop unless --rate is given\n"
    "  --rate       open loop: calls per second over all clients, each call timed from when it\n"
    "               was due, so a server that falls behind shows in the latencies\n"
    "  --duration   how long to send (default 10s; 500ms, 2m, ...); --count N: N calls instead\n"
    "  --clusters   SIMULATED clusters loadgen-0..N-1 (default 8), created if missing, with\n"
    "               --processors (default 64) and --policy (default conservative)\n"
    "  --mix        relative weights of the calls (default submit=1): submit, submit-moldable,\n"
    "               dry-run, cancel, report, advance, reserve, reserve-dag, query-deadline,\n"
    "               get-schedule, get-cluster, list-jobs, health\n"
    "  --health-baseline N  first time N sequential health checks: the round trip alone\n"
    "  --json       the final report as JSON on stdout (progress still on stderr)\n"
    "  --acks FILE  every change the service acknowledged, one JSON line each as it is\n"
    "               answered: call, cluster, request_id and the id its answer names\n"
    "SWF replay (a Parallel Workloads Archive log, .swf or .swf.gz) on a fresh cluster\n"
    "loadgen-swf (deleted first if it exists), each job a rigid job of its width and requested\n"
    "time submitted at its submit time, ending at its run time:\n"
    "  --swf        the log\n"
    "  --speedup    time compression: log seconds per wall second (default: as fast as the\n"
    "               server answers; required with --clock wall)\n"
    "  --clock      simulated (default: the loader moves the cluster's clock) or wall (the\n"
    "               cluster runs on real time; jobs are shortened by the speedup)\n"
    "  --count N    the first N usable jobs; --duration D stops the replay after D\n"
    "  --processors the cluster's size (default: the log's MaxProcs)\n";

namespace {

absl::StatusOr<std::int64_t> Integer(const std::string& flag, const std::string& text,
                                     std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < min || value > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " must be an integer in [", min, ", ", max, "], got '", text, "'"));
  }
  return value;
}

absl::StatusOr<std::map<Op, double>> Mix(const std::string& text) {
  std::map<Op, double> mix;
  for (const absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::vector<std::string> kv = absl::StrSplit(part, '=');
    double weight = 0;
    if (kv.size() != 2 || !absl::SimpleAtod(kv[1], &weight) || weight < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--mix: '", part, "' must be OP=WEIGHT with a weight >= 0"));
    }
    bool known = false;
    for (const auto& [op, name] : OpNames()) {
      if (name == kv[0]) {
        mix[op] = weight;
        known = true;
      }
    }
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("--mix: unknown call '", kv[0], "' (see --help for the list)"));
    }
  }
  double total = 0;
  for (const auto& [op, weight] : mix) total += weight;
  if (total <= 0) return absl::InvalidArgumentError("--mix: the weights must not all be 0");
  return mix;
}

}  // namespace

absl::StatusOr<Options> ParseOptions(const std::vector<std::string>& args) {
  Options options;
  absl::StatusOr<std::string> environment_token = transport::TokenFromEnvironment();
  if (!environment_token.ok()) return environment_token.status();
  options.token = *std::move(environment_token);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--json") {
      options.json = true;
      continue;
    }
    if (i + 1 >= args.size()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value (or is unknown)"));
    }
    const std::string& value = args[++i];
    if (flag == "--acks") {
      options.acks = value;
    } else if (flag == "--target") {
      options.target = value;
    } else if (flag == "--tls-ca") {
      options.tls.ca = value;
    } else if (flag == "--tls-cert") {
      options.tls.cert = value;
    } else if (flag == "--tls-key") {
      options.tls.key = value;
    } else if (flag == "--token-file") {
      absl::StatusOr<std::string> token = transport::ReadTokenFile("--token-file", value);
      if (!token.ok()) return token.status();
      options.token = *std::move(token);
    } else if (flag == "--clients") {
      auto n = Integer(flag, value, 1, 4096);
      if (!n.ok()) return n.status();
      options.clients = static_cast<int>(*n);
    } else if (flag == "--rate") {
      if (!absl::SimpleAtod(value, &options.rate) || options.rate <= 0 || options.rate > 1e7) {
        return absl::InvalidArgumentError(
            absl::StrCat("--rate must be in (0, 1e7] calls per second, got '", value, "'"));
      }
    } else if (flag == "--swf") {
      options.swf = value;
    } else if (flag == "--speedup") {
      if (!absl::SimpleAtod(value, &options.speedup) || options.speedup <= 0 ||
          options.speedup > 1e9) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--speedup must be in (0, 1e9] log seconds per wall second, got '", value, "'"));
      }
    } else if (flag == "--clock") {
      if (value != "simulated" && value != "wall") {
        return absl::InvalidArgumentError(
            absl::StrCat("--clock must be simulated or wall, got '", value, "'"));
      }
      options.wall = value == "wall";
    } else if (flag == "--duration") {
      options.duration_set = true;
      if (!absl::ParseDuration(value, &options.duration) ||
          options.duration <= absl::ZeroDuration()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--duration must be a positive duration (10s, 2m), got '", value, "'"));
      }
    } else if (flag == "--count") {
      auto n = Integer(flag, value, 1, std::int64_t{1} << 40);
      if (!n.ok()) return n.status();
      options.count = *n;
    } else if (flag == "--clusters") {
      auto n = Integer(flag, value, 1, 64);
      if (!n.ok()) return n.status();
      options.clusters = static_cast<int>(*n);
    } else if (flag == "--processors") {
      auto n = Integer(flag, value, 1, 1 << 20);
      if (!n.ok()) return n.status();
      options.processors = static_cast<int>(*n);
      options.processors_set = true;
    } else if (flag == "--policy") {
      options.policy = value;
    } else if (flag == "--mix") {
      auto mix = Mix(value);
      if (!mix.ok()) return mix.status();
      options.mix = *std::move(mix);
    } else if (flag == "--health-baseline") {
      auto n = Integer(flag, value, 0, 1'000'000);
      if (!n.ok()) return n.status();
      options.health_baseline = static_cast<int>(*n);
    } else if (flag == "--seed") {
      auto n = Integer(flag, value, 0, std::int64_t{1} << 62);
      if (!n.ok()) return n.status();
      options.seed = static_cast<std::uint64_t>(*n);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", flag, "'"));
    }
  }
  if (options.wall && options.swf.empty()) {
    return absl::InvalidArgumentError("--clock applies to an SWF replay (--swf FILE)");
  }
  if (options.wall && options.speedup == 0) {
    return absl::InvalidArgumentError(
        "--clock wall needs --speedup: the log's jobs would otherwise take as long as they did");
  }
  return options;
}

}  // namespace resched::loadgen

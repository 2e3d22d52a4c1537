#include "loadgen/report.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace resched::loadgen {
namespace {

std::string Errors(const OpSummary& s) {
  std::string out =
      s.errors.empty() ? "-" : absl::StrJoin(s.errors, " ", [](std::string* o, const auto& kv) {
        absl::StrAppend(o, kv.first, ":", kv.second);
      });
  if (s.not_made > 0) absl::StrAppend(&out, " (", s.not_made, " not made: no valid target)");
  return out;
}

std::string Table(const std::vector<OpSummary>& ops) {
  std::string out =
      absl::StrFormat("%-16s %9s %10s %8s %8s %8s %8s %8s  %s\n", "call", "calls", "calls/s",
                      "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "errors");
  for (const OpSummary& s : ops) {
    absl::StrAppendFormat(&out, "%-16s %9d %10.0f %8.3f %8.3f %8.3f %8.3f %8.3f  %s\n", s.op,
                          s.calls, s.calls_per_second, s.p50, s.p90, s.p99, s.p999, s.max,
                          Errors(s));
  }
  return out;
}

nlohmann::json Json(const std::vector<OpSummary>& ops) {
  nlohmann::json out = nlohmann::json::array();
  for (const OpSummary& s : ops) {
    out.push_back({{"call", s.op},
                   {"calls", s.calls},
                   {"calls_per_second", s.calls_per_second},
                   {"p50_ms", s.p50},
                   {"p90_ms", s.p90},
                   {"p99_ms", s.p99},
                   {"p999_ms", s.p999},
                   {"max_ms", s.max},
                   {"errors", s.errors},
                   {"not_made", s.not_made}});
  }
  return out;
}

std::string Mode(const Options& options) {
  return options.rate > 0 ? absl::StrFormat("open loop at %.0f calls/s", options.rate)
                          : "closed loop";
}

std::string ReplayLine(const Options& options, const ReplaySummary& r, double seconds) {
  const std::string pace =
      options.speedup > 0 ? absl::StrFormat("%gx", options.speedup) : "as fast as answered";
  return absl::StrFormat(
      "resched-loadgen replayed %s against %s: cluster %s (%s clock, %d processors, %s), %d of "
      "%d jobs (%d records skipped), %.1f h of log time in %.2f s wall (%s)%s\n",
      r.log, options.target, r.cluster, options.wall ? "WALL" : "SIMULATED", r.processors,
      options.policy, r.submitted, r.jobs, r.skipped, r.log_seconds / 3600, seconds, pace,
      r.stopped ? ", stopped by --duration" : "");
}

}  // namespace

std::string TextReport(const Options& options, const RunResult& result) {
  if (result.replay) {
    return ReplayLine(options, *result.replay, result.seconds) + Table(result.ops);
  }
  std::string out = absl::StrFormat(
      "resched-loadgen against %s: %d clients, %s, %d clusters, %.2f s\n", options.target,
      options.clients, Mode(options), options.clusters, result.seconds);
  if (!result.baseline.empty()) {
    absl::StrAppend(&out, "baseline (sequential health checks, before the load):\n",
                    Table({result.baseline.front()}));
  }
  absl::StrAppend(&out, Table(result.ops));
  return out;
}

std::string JsonReport(const Options& options, const RunResult& result) {
  nlohmann::json out = {{"target", options.target},  {"clients", options.clients},
                        {"rate", options.rate},      {"clusters", options.clusters},
                        {"seconds", result.seconds}, {"calls", Json(result.ops)}};
  if (!result.baseline.empty()) out["baseline"] = Json({result.baseline.front()});
  if (result.replay) {
    const ReplaySummary& r = *result.replay;
    out["replay"] = {{"log", r.log},
                     {"cluster", r.cluster},
                     {"clock", options.wall ? "WALL" : "SIMULATED"},
                     {"processors", r.processors},
                     {"policy", options.policy},
                     {"speedup", options.speedup},
                     {"jobs", r.jobs},
                     {"skipped_records", r.skipped},
                     {"submitted", r.submitted},
                     {"log_seconds", r.log_seconds},
                     {"stopped", r.stopped}};
  }
  return out.dump(2) + "\n";
}

}  // namespace resched::loadgen

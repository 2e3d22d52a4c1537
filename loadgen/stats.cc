#include "loadgen/stats.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"

namespace resched::loadgen {

void LatencyLog::Record(Op op, double micros, grpc::StatusCode code) {
  micros_[op].push_back(micros);
  ++codes_[op][code];
}

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

std::string CodeName(grpc::StatusCode code) {
  // gRPC's codes are Abseil's.
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

namespace {

OpSummary Summary(std::string name, std::vector<double> micros,
                  const std::map<grpc::StatusCode, std::int64_t>& codes, double seconds) {
  std::sort(micros.begin(), micros.end());
  OpSummary s;
  s.op = std::move(name);
  s.calls = static_cast<std::int64_t>(micros.size());
  s.calls_per_second = seconds > 0 ? static_cast<double>(s.calls) / seconds : 0;
  s.p50 = Percentile(micros, 0.50) / 1000;
  s.p90 = Percentile(micros, 0.90) / 1000;
  s.p99 = Percentile(micros, 0.99) / 1000;
  s.p999 = Percentile(micros, 0.999) / 1000;
  s.max = micros.empty() ? 0 : micros.back() / 1000;
  for (const auto& [code, n] : codes) {
    if (code != grpc::StatusCode::OK) s.errors[CodeName(code)] += n;
  }
  return s;
}

}  // namespace

std::vector<OpSummary> Summarize(const std::vector<LatencyLog>& logs, double seconds) {
  std::vector<OpSummary> out;
  std::vector<double> all;
  std::map<grpc::StatusCode, std::int64_t> all_codes;
  std::int64_t all_not_made = 0;
  for (const auto& [op, name] : OpNames()) {
    std::vector<double> micros;
    std::map<grpc::StatusCode, std::int64_t> codes;
    for (const LatencyLog& log : logs) {
      if (auto it = log.micros().find(op); it != log.micros().end()) {
        micros.insert(micros.end(), it->second.begin(), it->second.end());
      }
      if (auto it = log.codes().find(op); it != log.codes().end()) {
        for (const auto& [code, n] : it->second) codes[code] += n;
      }
    }
    std::int64_t not_made = 0;
    for (const LatencyLog& log : logs) {
      if (auto it = log.not_made().find(op); it != log.not_made().end()) not_made += it->second;
    }
    if (micros.empty() && not_made == 0) continue;
    all.insert(all.end(), micros.begin(), micros.end());
    for (const auto& [code, n] : codes) all_codes[code] += n;
    all_not_made += not_made;
    out.push_back(Summary(name, std::move(micros), codes, seconds));
    out.back().not_made = not_made;
  }
  out.push_back(Summary("all", std::move(all), all_codes, seconds));
  out.back().not_made = all_not_made;
  return out;
}

}  // namespace resched::loadgen

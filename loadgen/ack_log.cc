#include "loadgen/ack_log.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace resched::loadgen {

absl::StatusOr<std::unique_ptr<AckLog>> AckLog::Open(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) {
    return absl::InvalidArgumentError(absl::StrCat("--acks: cannot create '", path, "'"));
  }
  return std::unique_ptr<AckLog>(new AckLog(std::move(out)));
}

void AckLog::Record(Op op, const std::string& cluster, const Acknowledgement& acknowledged) {
  const nlohmann::json line = {{"call", OpName(op)},
                               {"cluster", cluster},
                               {"request_id", acknowledged.request_id},
                               {"id", acknowledged.id}};
  std::lock_guard<std::mutex> lock(mu_);
  out_ << line.dump() << '\n' << std::flush;
}

}  // namespace resched::loadgen

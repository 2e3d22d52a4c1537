#include "server/process/metrics_endpoint.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace resched::server {

absl::StatusOr<std::unique_ptr<prometheus::Exposer>> ServeMetrics(
    const std::string& address,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables) {
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    // One thread: a scrape every few seconds needs no more.
    exposer = std::make_unique<prometheus::Exposer>(address, 1);
  } catch (const std::exception& e) {  // CivetWeb cannot bind: the library reports it so
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", address, " for metrics: ", e.what()));
  }
  for (const auto& collectable : collectables) exposer->RegisterCollectable(collectable);
  return exposer;
}

}  // namespace resched::server

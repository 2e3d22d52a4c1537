// The Prometheus endpoint (--metrics-listen): prometheus-cpp's Exposer serving /metrics over
// HTTP (its embedded CivetWeb server).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"

namespace resched::server {

// Serves `collectables` at http://ADDRESS/metrics; ADDRESS is HOST:PORT (port 0: any free one,
// see Exposer::GetListeningPorts). UNAVAILABLE naming the address when it cannot listen.
absl::StatusOr<std::unique_ptr<prometheus::Exposer>> ServeMetrics(
    const std::string& address,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables);

}  // namespace resched::server

// The web view's page: the files of server/web/assets, compiled into the binary (the machine
// that runs the server may be offline, and a page that matches its server cannot go stale).
#pragma once

#include <optional>
#include <string_view>

namespace resched::server::web {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

// The file served at `path` ("/" is index.html); nullopt when there is none.
std::optional<Asset> FindAsset(std::string_view path);

}  // namespace resched::server::web

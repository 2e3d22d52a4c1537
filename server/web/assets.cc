#include "server/web/assets.h"

#include "server/web/embedded_assets.h"

namespace resched::server::web {
namespace {

std::string_view ContentTypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

std::optional<Asset> FindAsset(std::string_view path) {
  if (path == "/") path = "/index.html";
  if (!path.starts_with("/")) return std::nullopt;
  path.remove_prefix(1);
  // A handful of files: a scan costs less than an index would.
  for (int i = 0; i < kEmbeddedAssetCount; ++i) {
    const EmbeddedAsset& file = kEmbeddedAssets[i];
    if (path != file.name) continue;
    return Asset{ContentTypeOf(file.name),
                 std::string_view(reinterpret_cast<const char*>(file.bytes),
                                  static_cast<size_t>(file.size))};
  }
  return std::nullopt;
}

}  // namespace resched::server::web

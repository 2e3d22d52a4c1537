// The table server/web/embed_assets.cmake generates: each file of server/web/assets by name.
#pragma once

namespace resched::server::web {

struct EmbeddedAsset {
  const char* name;  // relative to server/web/assets
  const unsigned char* bytes;
  int size;
};

extern const EmbeddedAsset kEmbeddedAssets[];
extern const int kEmbeddedAssetCount;

}  // namespace resched::server::web

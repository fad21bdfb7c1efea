// The asset map of the load in progress on this thread (load_model_from_string with assets):
// the file readers (mjcf/xml_reader.cc, mesh/mesh.cc) look files up here before the disk.
#pragma once

#include <string>

#include "moreau/io.h"

namespace moreau::io {

// Makes `assets` the current map of this thread for its lifetime; `model_path` is the model's
// path (its folder anchors relative names). Scopes nest: the previous map is restored.
class AssetScope {
 public:
  AssetScope(const AssetMap* assets, const std::string& model_path);
  ~AssetScope();
  AssetScope(const AssetScope&) = delete;
  AssetScope& operator=(const AssetScope&) = delete;

 private:
  const void* previous_;
};

// The contents of the file at `path` (a resolved path) from the current map: by the path, by the
// path relative to the model's folder, by its base name. Null when no map is current or it has no
// such entry.
const std::string* find_asset(const std::string& path);

// For messages: " (not in the asset map of N files either)" while a map is current, else "".
std::string asset_note();

}  // namespace moreau::io

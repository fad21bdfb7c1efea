// Asset lookup for loads from memory: a thread-local pointer to the current AssetMap, so that
// concurrent loads on other threads keep their own maps (or none).
#include "io/assets.h"

namespace moreau::io {

namespace {
struct Current {
  const AssetMap* assets;
  std::string dir;  // the model's folder, with its trailing '/', or empty
  const Current* previous;
};
thread_local const Current* current = nullptr;

std::string dir_of(const std::string& path) {
  const auto p = path.find_last_of('/');
  return p == std::string::npos ? std::string() : path.substr(0, p + 1);
}

const std::string* lookup(const AssetMap& map, const std::string& key) {
  const auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}
}  // namespace

AssetScope::AssetScope(const AssetMap* assets, const std::string& model_path) : previous_(current) {
  current = new Current{assets, dir_of(model_path), current};
}

AssetScope::~AssetScope() {
  const Current* c = current;
  current = static_cast<const Current*>(previous_);
  delete c;
}

const std::string* find_asset(const std::string& path) {
  if (!current || !current->assets) return nullptr;
  const AssetMap& map = *current->assets;
  if (const auto* s = lookup(map, path)) return s;
  const std::string& dir = current->dir;
  if (!dir.empty() && path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0)
    if (const auto* s = lookup(map, path.substr(dir.size()))) return s;
  const auto slash = path.find_last_of('/');
  if (slash != std::string::npos)
    if (const auto* s = lookup(map, path.substr(slash + 1))) return s;
  return nullptr;
}

std::string asset_note() {
  if (!current || !current->assets) return "";
  return " (not in the asset map of " + std::to_string(current->assets->size()) + " files either)";
}

}  // namespace moreau::io

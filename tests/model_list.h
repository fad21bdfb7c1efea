// The model list of the tests (tests/models_mujoco222.txt: the models MuJoCo 2.2.2 loads), read in
// one place, with the subset selection of the sanitizer run.
//
// MOREAU_MODEL_STRIDE=N[:K] keeps the entries whose 0-based index i has i % N == K (K = 0 by
// default): scripts/test.sh runs the differential suites of the ASan+UBSan build, which is several
// times slower than Release, on a strided subset; the Release build always runs every model. A bad
// value is refused loudly rather than silently running all or nothing.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace moreau::test_models {

// Stride and offset from MOREAU_MODEL_STRIDE ({1, 0}: every model).
inline std::pair<int, int> stride_from_env() {
  const char* s = std::getenv("MOREAU_MODEL_STRIDE");
  if (!s || !*s) return {1, 0};
  int n = 0, k = 0;
  char extra = 0;
  const int got = std::sscanf(s, "%d:%d%c", &n, &k, &extra);
  if (got < 1 || got > 2 || n < 1 || k < 0 || k >= n)
    throw std::runtime_error(std::string("MOREAU_MODEL_STRIDE='") + s + "': expected N or N:K with 0 <= K < N");
  return {n, k};
}

// The selection: entries i with i % N == K. A suite that filters the list (the muscle models, the
// fluid models) filters all entries, then selects, so that it keeps at least one case.
inline std::vector<std::string> select(const std::vector<std::string>& all) {
  const auto [n, k] = stride_from_env();
  std::vector<std::string> out;
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % n) == k) out.push_back(all[i]);
  return out;
}

// Every entry of tests/models_mujoco222.txt ("shared/..." or "system/...").
inline std::vector<std::string> all_entries() {
  std::vector<std::string> out;
  std::ifstream in(std::string(MOREAU_SOURCE_DIR) + "/tests/models_mujoco222.txt");
  if (!in) throw std::runtime_error("cannot read tests/models_mujoco222.txt");
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

// The entries the tests run on: all of them, or the MOREAU_MODEL_STRIDE selection.
inline std::vector<std::string> entries() { return select(all_entries()); }

// An entry as a file path: "shared/" is ../shared, "system/" is 2.2.2's sample models.
inline std::string resolve(const std::string& entry) {
  if (entry.rfind("shared/", 0) == 0) return std::string(MOREAU_SHARED_DIR) + "/" + entry.substr(7);
  if (entry.rfind("system/", 0) == 0) return "/usr/share/mujoco/model/" + entry.substr(7);
  return entry;
}

}  // namespace moreau::test_models

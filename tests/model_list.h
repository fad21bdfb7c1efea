// The model list of the tests (tests/models_mujoco222.txt: the models MuJoCo 2.2.2 loads), read in
// one place, with the subset selection of the sanitizer run, and where the shared test models are.
//
// Most test models live in the shared/ folder beside the repository (outside it): MOREAU_SHARED_DIR
// in the environment names another folder (the one that holds models/), else the compiled-in default
// (../shared) is used. Where neither exists, the cases that need a shared model skip with one line
// saying so (MOREAU_REQUIRE_SHARED, MOREAU_REQUIRE_MODEL); MuJoCo's sample models from Debian
// (/usr/share/mujoco/model, the "system/" entries) and the bundled ones still run.
//
// MOREAU_MODEL_STRIDE=N[:K] keeps the entries whose 0-based index i has i % N == K (K = 0 by
// default): scripts/test.sh runs the differential suites of the ASan+UBSan build, which is several
// times slower than Release, on a strided subset; the Release build always runs every model. A bad
// value is refused loudly rather than silently running all or nothing.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace moreau::test_models {

// The shared folder: $MOREAU_SHARED_DIR, else the compiled-in ../shared.
inline std::string shared_dir() {
  const char* s = std::getenv("MOREAU_SHARED_DIR");
  return s && *s ? std::string(s) : std::string(MOREAU_SHARED_DIR);
}

// Whether the shared models are there.
inline bool shared_available() { return std::filesystem::is_directory(shared_dir() + "/models"); }

// A shared model by its path under models/ ("dm_control/cheetah.xml").
inline std::string shared_model(const std::string& rel) { return shared_dir() + "/models/" + rel; }

// Whether path is in the shared folder while that folder is missing (such a case skips).
inline bool missing_shared(const std::string& path) {
  return !shared_available() && path.rfind(shared_dir() + "/", 0) == 0;
}

// For a suite that selects models by reading their files (a feature they use): without the shared
// folder its models cannot be read, so one case, the folder itself, stands for them and skips.
inline std::vector<std::string> with_unread_shared(std::vector<std::string> selected) {
  if (!shared_available()) selected.push_back("shared/models");
  return selected;
}

// The one line a case prints when it skips for want of the shared models.
inline std::string shared_missing(const std::string& what) {
  return "skipped " + what + ": the shared test models are not at " + shared_dir() +
         "/models; set MOREAU_SHARED_DIR to the folder holding models/ to run it";
}

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

// Whether this is the sanitizer run's subset (MOREAU_MODEL_STRIDE > 1), for the few cases that
// leave out one costly model there and say which case covers its code paths instead.
inline bool subset_run() { return stride_from_env().first > 1; }

// Whether the sanitizer run's finite-difference suites leave out a model of nv dofs: in the
// subset, models over 500 dofs. Their differences cost nv evaluations of an O(nv) function and
// dominate those suites (the 3000-dof particle composite: about nine tenths of their time); the
// sanitizers look for memory and UB errors in code that the smaller models run alike (the same
// joint types and stages), and the Release build still runs every model.
inline bool too_large_for_subset(int nv) { return subset_run() && nv > 500; }

// The entries the tests run on: all of them, or the MOREAU_MODEL_STRIDE selection.
inline std::vector<std::string> entries() { return select(all_entries()); }

// An entry as a file path: "shared/" is the shared folder, "system/" is 2.2.2's sample models.
inline std::string resolve(const std::string& entry) {
  if (entry.rfind("shared/", 0) == 0) return shared_dir() + "/" + entry.substr(7);
  if (entry.rfind("system/", 0) == 0) return "/usr/share/mujoco/model/" + entry.substr(7);
  return entry;
}

}  // namespace moreau::test_models

// In a test body (gtest): skip the test when the shared models are missing.
#define MOREAU_REQUIRE_SHARED()                        \
  if (::moreau::test_models::shared_available()) {     \
  } else                                               \
    GTEST_SKIP() << ::moreau::test_models::shared_missing("this test")

// In a test body (gtest): skip the test when path (a model file) is a missing shared model.
#define MOREAU_REQUIRE_MODEL(path)                                  \
  if (!::moreau::test_models::missing_shared(path)) {               \
  } else                                                            \
    GTEST_SKIP() << ::moreau::test_models::shared_missing(path)

// At the end of a test that ran over a list of models and left out `skipped` shared ones: mark it
// skipped, after the models it could run (their failures still fail it).
#define MOREAU_SKIPPED_SHARED(skipped, total)                                                  \
  if ((skipped) == 0) {                                                                        \
  } else                                                                                       \
    GTEST_SKIP() << ::moreau::test_models::shared_missing(                                     \
        std::to_string(skipped) + " of " + std::to_string(total) + " models (the other " +        \
        std::to_string((total) - (skipped)) + " ran)")

// Models on which a differential suite is known not to match MuJoCo 2.2.2 yet, each with the reason
// (measured, not guessed). A listed case is skipped with its reason, so it shows in every test run
// as SKIPPED rather than hiding; the issue notes carry the same list. Remove an entry when it passes.
#pragma once

#include <string>

namespace moreau::testing {

struct KnownDifference {
  const char* suite;  // "Pipeline", "EndToEnd", "ModelCompare", "Fluid"
  const char* model;  // a substring of the tests/models_mujoco222.txt entry
  const char* reason;
};

inline constexpr KnownDifference kKnownDifferences[] = {
    {"EndToEnd", "core_smooth/ten_J2.xml",
     "2.2.2's eigen-solver leaves its principal inertia frame 6.5e-7 from the exact one (body_iquat); "
     "qacc then differs by 4e-6 relative"},
    {"Pipeline", "core_smooth/ten_J2.xml",
     "2.2.2's eigen-solver leaves its principal inertia frame 6.5e-7 from the exact one (body_iquat); "
     "qacc then differs by 4e-6 relative"},
    {"ModelCompare", "collision_convex/box_boxmesh.xml",
     "the box mesh has three equal principal moments; 2.2.2's round-off orders them into a 90-degree "
     "frame (body_sameframe/simple, dof_simplenum differ; inertia, pose and shape match)"},
    {"Pipeline", "dm_control/dog.xml",
     "at one of three trajectory states (step 100, 3 contacts, all pair types exact) efc_force differs by "
     "0.5% while the contacts, efc_pos and efc_R agree to 1e-8; suspected cause, not yet confirmed: 8 tiny "
     "bones whose principal inertia frames 2.2.2's eigen-solver leaves unrotated (up to 9e-3 relative, "
     "measured by the loader comparison), which changes their accelerations"},
};

// The reason if (suite, entry) is a known difference, else nullptr.
inline const char* known_difference(const std::string& suite, const std::string& entry) {
  for (const auto& k : kKnownDifferences)
    if (suite == k.suite && entry.find(k.model) != std::string::npos) return k.reason;
  return nullptr;
}

}  // namespace moreau::testing

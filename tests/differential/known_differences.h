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
    {"Fluid", "derivative/tumbling_thin_object_ellipsoid.xml",
     "uses fluidshape=\"ellipsoid\": the ellipsoid fluid model is not implemented (inertia-box model is)"},
    {"Pipeline", "derivative/tumbling_thin_object_ellipsoid.xml",
     "uses fluidshape=\"ellipsoid\": the ellipsoid fluid model is not implemented (inertia-box model is)"},
    // flag multiccd (2.2.2's multi-point convex collision: 4 more MPR calls with both geoms turned by
    // 1e-3 rad about the tangent axes) is not described by the reference documents; Moreau's loader
    // refuses it (issue 3)
    {"ModelCompare", "collision_convex/capsule_mesh.xml", "uses flag multiccd, refused by Moreau's loader (not implemented)"},
    {"ModelCompare", "collision_convex/cylinder_box.xml", "uses flag multiccd, refused by Moreau's loader (not implemented)"},
    {"ModelCompare", "collision_convex/edge_edge.xml", "uses flag multiccd, refused by Moreau's loader (not implemented)"},
    {"ModelCompare", "collision_convex/long_box.xml", "uses flag multiccd, refused by Moreau's loader (not implemented)"},
    {"ModelCompare", "collision_convex/multiple_objects.xml", "uses flag multiccd, refused by Moreau's loader (not implemented)"},
    {"Pipeline", "collision_convex/conemesh_box.xml",
     "the cone has two equal principal moments, so its mesh frame (and the single-precision vertices "
     "stored in it) is 2.2.2's eigen-solver's choice, not reproduced to the bit; the cone's base lies "
     "flat on the box, where MPR's contact point depends on the last bits: dist differs by 1e-8, "
     "efc_force by 1% (with 2.2.2's own vertices the mesh-box contact is bit-identical, "
     "collision_primitives_test)"},
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

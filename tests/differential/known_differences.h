// Models on which a differential suite is known not to match MuJoCo 2.2.2 yet, each with the reason
// (measured, not guessed). A listed case is skipped with its reason, so it shows in every test run
// as SKIPPED rather than hiding; the issue notes carry the same list. Remove an entry when it passes.
#pragma once

#include <string>

namespace moreau::testing {

struct KnownDifference {
  const char* suite;  // "Pipeline", "EndToEnd", "ModelCompare", "Fluid", "CollisionPrimitives",
                      // "CompilerFlagModels"
  const char* model;  // a substring of the tests/models_mujoco222.txt entry (CompilerFlagModels: the
                      // compiler attribute, a space, then the entry)
  const char* reason;
};

inline constexpr KnownDifference kKnownDifferences[] = {
    {"EndToEnd", "core_smooth/ten_J2.xml",
     "2.2.2's eigensolver leaves the principal frame of body 1 (two moments 1e-3 apart) unconverged: our "
     "inertia tensor has off-diagonal terms 6.7e-7 of its trace in 2.2.2's body_iquat, 2e-17 in ours; qM and "
     "qacc differ by 2.1e-7, and by 3e-15 once 2.2.2's body_ipos/iquat/inertia are copied into our model "
     "(KnownDifferenceCauses.TenJ2)"},
    {"Pipeline", "core_smooth/ten_J2.xml",
     "2.2.2's eigensolver leaves the principal frame of body 1 unconverged (6.7e-7 of the trace off the "
     "diagonal, ours 2e-17); qacc differs by 4.3e-6 at step 300, by 2.2e-15 once 2.2.2's inertial frames are "
     "copied into our model (KnownDifferenceCauses.TenJ2)"},
    {"ModelCompare", "collision_convex/box_boxmesh.xml",
     "the box mesh has three equal principal moments; 2.2.2's round-off orders them into a 90-degree "
     "frame (body_sameframe/simple, dof_simplenum differ; inertia, pose and shape match)"},
    {"Pipeline", "collision_convex/multiple_objects.xml",
     "Moreau's mesh frames (geom_pos/geom_quat of the boxoid and pentaprism meshes) are 7.9e-6 from "
     "2.2.2's, which computes mesh inertia in single precision; the same qpos then puts the vertices "
     "differently in the last bits, and at step 300 the flat mesh-on-mesh multiccd contacts' dist differs "
     "by 3.3e-9 (tolerance 1e-9), efc_force by 7e-6 relative. With 2.2.2's own model (bridged) the "
     "contacts agree to 2e-16 along the trajectory (Multiccd.SharedModelsAlongTrajectory)"},
    {"Pipeline", "collision_convex/conemesh_box.xml",
     "the cone has two equal principal moments, so its mesh frame (and the single-precision vertices "
     "stored in it) is 2.2.2's eigen-solver's choice, not reproduced to the bit; the cone's base lies "
     "flat on the box, where MPR's contact point depends on the last bits: dist differs by 1e-8, "
     "efc_force by 1% (with 2.2.2's own vertices the mesh-box contact is bit-identical, "
     "collision_primitives_test)"},
    {"CompilerFlagModels", "coordinate=\"global\" shared/models/mujoco/test/engine/testdata/collision_driver/midphase.xml",
     "in global coordinates the body holding the 1000 boxes takes its principal frame as body frame (moments "
     "729 and 697); 2.2.2's eigensolver leaves that frame unconverged (off-diagonal 1.1e-8 of the trace in "
     "its body_quat, 2e-17 in ours), so body_quat differs by 3e-7 and the geoms' local positions by 2e-6"},
    {"CompilerFlagModels", "coordinate=\"global\" shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/wrap_sidesite.xml",
     "every compiled array equals 2.2.2's except tendon_lengthspring, the tendon length at qpos0: read in "
     "global coordinates, the model puts site0, site2 and site3 at the same point, and 2.2.2 does not wrap a "
     "segment whose end sites coincide while Moreau's spatial tendon wraps it around the sphere or cylinder "
     "(tendon 1: 0.413 vs 1.212); a tendon-wrapping difference (src/tendon), not a loader one"},
    {"DynamicsRolloutImplicit", "derivative/tumbling_thin_object_ellipsoid.xml",
     "2.2.2's implicit step uses a qDeriv whose ellipsoid-fluid term is not the derivative of its own "
     "qfrc_passive (8.7e-5 of the largest entry off central differences of 2.2.2's forces), Moreau's is "
     "(7.4e-10, forward-mode differentiation of the force function); each engine's qvel is the implicit "
     "update with its own qDeriv to 1e-14, and they differ by 7.5e-7 after one step (the 1e-4 kg plates' tiny "
     "M makes M - hD sensitive to D). Euler and RK4 rollouts of this model agree to 2e-15 "
     "(KnownDifferenceCauses.EllipsoidFluidQDeriv)"},
    // transition_fd: keys "model|integrator|forward or centered|matrix". Each of these is a
    // disagreement of 2.2.2's mjd_transitionFD with finite differences of 2.2.2's own mj_step, which
    // transition_fd matches (to 1e-10, checked in the same case before it is skipped).
    {"TransitionFD", "|rk4|",
     "2.2.2's mjd_transitionFD with RK4 disagrees with differences of its own mj_step (damped_actuators: A "
     "by 16x, B by 2.5e5 relative): its skipped stages reuse results left by RK4's inner stages"},
    {"TransitionFD", "|centered|D",
     "2.2.2's centered sensor-control Jacobian D has the sign of -(differences of its own mj_step) "
     "(linear.xml accelerometer: -600 against 600); its forward D agrees"},
    {"TransitionFD", "arm26.xml|implicit|",
     "2.2.2's mjd_transitionFD with implicit: the activation columns of A differ from differences of its "
     "own mj_step by 1e-3 relative (muscles: qDeriv depends on the activation)"},
};

// The reason if (suite, entry) is a known difference, else nullptr.
inline const char* known_difference(const std::string& suite, const std::string& entry) {
  for (const auto& k : kKnownDifferences)
    if (suite == k.suite && entry.find(k.model) != std::string::npos) return k.reason;
  return nullptr;
}

}  // namespace moreau::testing

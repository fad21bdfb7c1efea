// `moreau experiment NAME`: the contact-model experiments (docs/contact_models.md), one
// command each, CSV on stdout (header line first). They drive the engine through its public API
// with what `rollout` cannot express: a force that grows with time (dragged cube), the analytic
// references next to the simulated values, the impact map.
//
//   sliding-cube   RaiSim paper, Fig. 3: kinetic energy against 0.5 m (v0 - mu g t)^2 (--key 0: 1 m/s,
//                  --key 1: 3 m/s)
//   dragged-cube   RaiSim paper, Fig. 4: F = 4 t N along x; force along y at each of the four
//                  contacts, velocity against the analytic one, eps_abs
//   two-blocks     Underactuated chapter, exercise: positions, velocities and contact force, h = 1
//   spinning-ball  Underactuated chapter, spinning ball, time stepping: velocities against the
//                  e = 0 impact map
//   impact         the same ball through moreau::impact for e = 0, 0.25, .., 1 against the map
//   grasp          a parallel gripper lifts a box and holds it for 10 s: the box's slip relative to
//                  the fingers, the fraction of the friction limit in use (--key 0 .. 5: held at
//                  0.9, 0.95, 0.97, 0.99, 0.999 and 1.01 of the limit)
//   slope          a box resting on a plane tilted at 0.9 of the friction angle: its slip down the slope
#pragma once

#include <string>

#include "cli_options.h"

namespace moreau::cli {

// Names of the experiments, and the model file each uses by default (under models/experiments).
bool is_experiment(const std::string& name);
std::string experiment_model(const std::string& name);

// Run an experiment on the model at `path` with the overrides applied; steps <= 0: the
// experiment's default; key < 0: keyframe 0. Prints CSV to stdout; throws on errors.
void run_experiment(const std::string& name, const std::string& path, const OptionOverrides& o, long steps,
                    int key);

}  // namespace moreau::cli

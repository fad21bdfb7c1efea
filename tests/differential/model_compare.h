// Compiled-model comparison against MuJoCo 2.2.2 (defined in model_compare_test.cc).
#pragma once

#include <mujoco/mujoco.h>

#include <string>

#include "moreau/moreau.h"

namespace moreau::testing {

// Compares the sizes and every compiled array of `m` with `mj` (tolerances in
// model_compare_test.cc). Mesh-derived values of `m` that agree within single precision are
// snapped to MuJoCo's first, so `m` is modified. Returns "" when equal, else what differs.
std::string compare_compiled(Model& m, const mjModel* mj);

}  // namespace moreau::testing

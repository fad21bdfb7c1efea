// Helpers for the collision differential tests: a Model holding the collision fields of an mjModel,
// Data with MuJoCo's geom poses, and contact comparison.
#pragma once

#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau::coltest {

// Collision-relevant fields only (sizes, bodies, geoms, pairs, excludes, options); the benchmark
// uses it. The tests use the full bridge (mujoco_bridge.h).
Model collision_model_from_mj(const mjModel* mm);
// Data with contact capacity nconmax and MuJoCo's geom_xpos/geom_xmat.
Data collision_data(const Model& m, const mjModel* mm);
void copy_poses(const mjModel* mm, const mjData* md, Data& d);

struct Tolerance {
  double dist = 1e-6, pos = 1e-6, normal = 1e-6, frame = 1e-6;
};
struct Report {
  int pairs_compared = 0;       // geom pairs with contacts on either side
  int count_mismatch = 0;       // geom pairs with different numbers of contacts
  int value_mismatch = 0;       // contacts whose dist/pos/frame differ beyond tolerance
  int param_mismatch = 0;       // contacts whose mixed parameters differ
  int order_mismatch = 0;       // 1 if the order of geom pairs differs
  double max_dist_err = 0, max_pos_err = 0, max_normal_err = 0, max_frame_err = 0;
  std::vector<std::string> messages;  // first few problems
};
// Compare d.contact against md->contact. Geom pairs whose types are in `skip` (skip[t1][t2]) are not
// compared (reported separately by the caller).
void compare_contacts(const mjModel* mm, const mjData* md, const Model& m, const Data& d,
                      const Tolerance& tol, const bool skip[8][8], Report& rep);

}  // namespace moreau::coltest

// What src/kinematics/jacobian.cc gives the other stages: dof chains and applying a spatial force
// through the Jacobian without forming it.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Last dof of the chain that moves body b (its own last dof, or its nearest moving ancestor's), or -1
// when b is welded to the world. The chain's dofs are this one and its dof_parentid ancestors.
inline int last_dof(const Model& m, int b) {
  while (b > 0 && m.body_dofnum[b] == 0) b = m.body_parentid[b];
  return b == 0 ? -1 : m.body_dofadr[b] + m.body_dofnum[b] - 1;
}

// Add J(point, body)' * [force; torque] to qfrc (nv) without forming J: the spatial force at the
// com origin dotted with each cdof of the body's chain (apply force/torque at a point). Unchecked
// (the public moreau::apply_ft checks its arguments).
void apply_ft(const Model& m, const Data& d, const double* force, const double* torque,
              const double* point, int body, double* qfrc);
// qfrc += projection of d.xfrc_applied (force and torque at each body's com, xipos).
void xfrc_accumulate(const Model& m, const Data& d, double* qfrc);

}  // namespace moreau::internal

// Test-only helpers of the constraint differential tests: copy into our Data, from MuJoCo 2.2.2
// after mj_forward, the inputs of the constraint stage that other stages compute (kinematics,
// com frames, inertia and its factor, tendon Jacobians/lengths, contacts, smooth accelerations).
#pragma once

#include <mujoco/mujoco.h>

#include <vector>

#include "moreau/moreau.h"

namespace moreau::testing {

// Whether MuJoCo stores efc_J / ten_J in compressed rows for this model (jacobian option).
bool mj_sparse(const mjModel* mj);
// Copy qpos, qvel, xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, subtree_com, cdof, qM, qLD,
// qLDiagInv, qLDiagSqrtInv, ten_J (dense), ten_length, contacts (ncon), qfrc_smooth,
// qacc_smooth, qacc_warmstart, qfrc_bias, qfrc_passive; sizes the contact and efc storage.
void copy_constraint_inputs(const mjModel* mj, const mjData* md, const Model& m, Data& d);
// MuJoCo's efc_J as a dense nefc x nv matrix.
std::vector<double> mj_dense_efc_J(const mjModel* mj, const mjData* md);

}  // namespace moreau::testing

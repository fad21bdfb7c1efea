// Position derivatives of the smooth forces that act on bodies and ball/free joints
// (passive_pos.cc), for the analytic derivatives of forward dynamics (analytic_forward.cc).
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Ball and free joint springs (src/dynamics/passive.cc): Fq (nv x nv, col-major, column k at k*nv)
// += d qfrc_spring / d q_k along the tangent directions. The rotational spring is -k log(q_s^-1 q)
// (local rotation vector); a tangent step dw (local) turns it by Jr^-1(rv) dw, Jr the right
// Jacobian of SO(3); the free joint's translation is a linear spring.
void ball_spring_pos(const Model& m, const Data& d, double* Fq);

// Forces on bodies through their com Jacobians: gravity compensation (-gravcomp m g at xipos,
// when `gravcomp`) and xfrc_applied (force and torque at xipos, when `xfrc`). Fq += d qfrc / d q_k
// (col-major). Needs the position stage (cdof, cinert, xipos, subtree_com).
void body_force_pos(const Model& m, const Data& d, bool gravcomp, bool xfrc, double* Fq);

// Fluid forces (inertia-box and ellipsoid models): Fq += d qfrc_fluid / d q_k (col-major). Needs
// the velocity stage (cvel).
void fluid_pos(const Model& m, const Data& d, double* Fq);

}  // namespace moreau::internal

// Internal declarations of the implicit integrators and the analytic velocity derivatives.
#pragma once

#include "moreau/moreau.h"

namespace moreau::internal {

// src/derivative/smooth_vel.cc: d.qDeriv = passive and actuator velocity derivatives (zeroing it
// first); then adds -d qfrc_bias/dv.
void deriv_passive_actuator_vel(const Model& m, Data& d);
void deriv_rne_vel(const Model& m, Data& d);
// d.qH = M - h (D + D')/2 in qM's layout from d.qDeriv (implicitfast; implicitcon's base).
void implicitfast_matrix(const Model& m, Data& d);

// src/integrator/implicit.cc: reverse-order LU of M - hD in the dof-dof sparse layout, and its solve.
void factor_lu(const Model& m, double* H);
void solve_lu(const Model& m, const double* LU, double* x);

// src/integrator/midpoint.cc. A free joint is eligible when its body has no child bodies.
bool midpoint_eligible(const Model& m, int jnt);
// Midpoint integration is on for implicit/implicitfast without the invdiscrete flag, if any free
// joint is eligible.
bool midpoint_enabled(const Model& m);
// Save the 6x6 blocks of d.qDeriv (before the RNE terms) of the eligible free bodies.
void midpoint_save_blocks(const Model& m, Data& d);
// Replace dv = (v_{t+h} - v_t)/h of the eligible free bodies by the midpoint solution.
void midpoint_free_bodies(const Model& m, Data& d, double* dv);

// One eligible body's midpoint update linearized at the current state (forward dynamics done; Dg its
// saved block of D). midpoint_tangent maps a column's tangents (dr: the body's rotation, local
// frame; dvel: its 6 velocities; df: its external force qfrc_smooth + qfrc_constraint + qfrc_bias;
// hdDy: h d(D y)/dx of its 6 rows, D the non-RNE velocity derivative, y fixed) to the derivative
// of the body's dv = (v_{t+h} - v_t)/h.
struct MidpointLinear {
  double dv[6];  // the update, as midpoint_free_bodies gives it
  double y[6];   // the velocity change D multiplies, in joint coordinates
  double h, I[3], ipos[3], R[9], Rp[9], S[9], Rn[9], E[9], Jr[9];
  double flin[3], wl[3], wl_next[3], dw[6], z[6], Dg[36], Dc[36], Jinv[36];
};
void midpoint_linearize(const Model& m, const Data& d, int jnt, const double* Dg, MidpointLinear& L);
void midpoint_tangent(const MidpointLinear& L, const double* dr, const double* dvel, const double* df,
                      const double* hdDy, double* ddv);

}  // namespace moreau::internal

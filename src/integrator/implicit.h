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

}  // namespace moreau::internal

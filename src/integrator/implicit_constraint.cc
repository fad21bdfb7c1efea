// implicitcon: implicit-in-velocity Euler that also differentiates the constraint forces with
// respect to velocity (Moreau's extension, beyond the reference: MuJoCo 2.2.2's implicit
// integrators omit J' df/dv).
//
// One Newton step of backward Euler in velocity, v' = v + h a(v'), linearized at v:
//   (I - h da/dv) dv = h a,   a = qacc (forward dynamics, constraint forces included).
// With the active set held fixed, the implicit-function theorem on the soft model's optimality
// condition (as the analytic derivatives, moreau/analytic_derivative.h) gives
//   da/dv = H^-1 G,   H = M + J' D_s J,   G = D - J' D_s B J,
// D the smooth velocity derivative, D_s the constraint cost's Hessian (efc_D on quadratic rows, the
// cone Hessian of elliptic contacts not in the top zone), B the rows' reference damping
// (aref = -B J v - K imp (pos - margin)). Multiplying by H:
//   (M - h D + J' D_s (I + h B) J) dv = h H a.
// In terms of forces, (M - h df/dv) dv = h M a with df/dv = M da/dv = D + J' df_c/dv: the implicit
// Euler update with the constraint forces' velocity derivative.
//
// D is implicitfast's (passive and actuator terms, no RNE derivatives, symmetrized), so the matrix
// is symmetric positive definite and is factored by the Newton solver's sparse L'DL
// (hessian_factor_scaled) in the constraint work space. Without constraint rows the step is
// implicitfast's (without the midpoint integration of free bodies, which implicitcon does not use).
#include <algorithm>

#include "constraint/storage.h"
#include "derivative/work.h"
#include "dynamics/dynamics.h"
#include "engine/internal.h"
#include "integrator/implicit.h"
#include "integrator/integrator.h"
#include "moreau/moreau.h"
#include "solver/solver.h"

namespace moreau::internal {

void implicit_constraint(const Model& m, Data& d) {
  const int nv = m.nv, nefc = d.nefc;
  const double h = m.opt.timestep;

  deriv_passive_actuator_vel(m, d);
  implicitfast_matrix(m, d);  // base = M - h (D + D')/2 in qM's layout (d.qH)

  double* dv = integrator_temp(d);  // (v_{t+h} - v_t) / h
  if (nefc == 0) {
    for (int i = 0; i < nv; ++i) dv[i] = d.qfrc_smooth[i] + d.qfrc_constraint[i];
    factor_ld(m, d.qH.data(), d.qHDiagInv.data(), nullptr);
    solve_ld(m, d.qH.data(), d.qHDiagInv.data(), dv, 1);
    advance(m, d, d.act_dot.data(), dv, nullptr);
    return;
  }

  const constraint::Work w = constraint::carve(m, d);
  // states and cone Hessians at the final qacc (what the Newton solver leaves; recomputed for the
  // other solvers), forces into scratch: efc_force stays the solver's
  constraint::mul_J(m, d, w.Jaref, d.qacc.data());
  for (int r = 0; r < nefc; ++r) w.Jaref[r] -= d.efc_aref[r];
  int nactive = 0;
  solver::eval_constraint(m, d, w.Jaref, w.force0, d.efc_state.data(), true, &nactive);

  // rhs = H qacc = M qacc + J' D_s J qacc
  double* y = w.jv;  // D_s J qacc
  for (int r = 0; r < nefc;) {
    if (d.efc_type[r] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[r]];
      const int dim = con.dim;
      for (int a = 0; a < dim; ++a) {
        double s = 0;
        if (d.efc_state[r] != kCnstrSatisfied)
          for (int b = 0; b < dim; ++b) s += con.H[a * dim + b] * (w.Jaref[r + b] + d.efc_aref[r + b]);
        y[r + a] = s;
      }
      r += dim;
      continue;
    }
    y[r] = d.efc_state[r] == kCnstrQuadratic ? d.efc_D[r] * (w.Jaref[r] + d.efc_aref[r]) : 0.0;
    ++r;
  }
  double* tmp = w.v[0];
  constraint::mul_JT(m, d, tmp, y);
  mul_m(m, d, dv, d.qacc.data());
  for (int i = 0; i < nv; ++i) dv[i] += tmp[i];

  // E = base + J' D_s (I + h B) J, factored in the Newton factor's storage
  double* rowscale = w.etmp;
  for (int r = 0; r < nefc; ++r) rowscale[r] = 1 + h * d.efc_KBIP[4 * r + 1];
  solver::hessian_factor_scaled(m, d, w, d.qH.data(), rowscale);
  solver::hessian_solve(m, w, dv);
  advance(m, d, d.act_dot.data(), dv, nullptr);
}

}  // namespace moreau::internal

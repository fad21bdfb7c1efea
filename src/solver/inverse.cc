// Inverse constraint dynamics (computation chapter, "Reduced primal problem" and "Dual problem"):
// given qacc, the constraint force is f = -grad s(J qacc - aref), row by row (the quadratic term of
// the inverse problem is R, diagonal, so no optimization is needed); qfrc_constraint = J' f.
// compare_fwdinv: the forward/inverse check of the fwdinv flag.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/checks.h"
#include "engine/messages.h"
#include "solver/solver.h"

namespace moreau {

void inverse_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "inverse_constraint");
  const int nv = m.nv;
  // the analytic inverse is that of the soft model; a hard contact has no such map (its forces are
  // not a function of qacc): refuse rather than answer for another model
  if (is_hard_contact_solver(m.opt.solver))
    internal::raise<std::runtime_error>(std::string("inverse dynamics: solver ") + solver_name(m.opt.solver) +
                                        " is a hard-contact solver; the inverse is defined for the soft model "
                                        "(PGS, CG, Newton)");
  if (d.nefc == 0) {
    std::fill_n(d.qfrc_constraint.data(), nv, 0.0);
    return;
  }
  constraint::Work w = constraint::carve(m, d);
  constraint::mul_J(m, d, w.Jaref, d.qacc.data());
  for (int i = 0; i < d.nefc; ++i) w.Jaref[i] -= d.efc_aref[i];
  solver::eval_constraint(m, d, w.Jaref, d.efc_force.data(), d.efc_state.data(), false, nullptr);
  constraint::mul_JT(m, d, d.qfrc_constraint.data(), d.efc_force.data());
}

void compare_fwdinv(const Model& m, Data& d) {
  internal::check_data(m, d, "compare_fwdinv");
  const int nv = m.nv, nefc = d.nefc;
  constraint::Work w = constraint::carve(m, d);
  // save the forward results, run the inverse at qacc, compare, restore
  double* force_fwd = w.force0;
  double* qfrc_fwd = w.v[13];
  double* state_fwd = w.etmp;
  std::copy_n(d.efc_force.data(), nefc, force_fwd);
  std::copy_n(d.qfrc_constraint.data(), nv, qfrc_fwd);
  for (int i = 0; i < nefc; ++i) state_fwd[i] = d.efc_state[i];
  inverse_constraint(m, d);
  double e0 = 0, e1 = 0;
  for (int k = 0; k < nv; ++k) {
    const double t = d.qfrc_constraint[k] - qfrc_fwd[k];
    e0 += t * t;
  }
  for (int i = 0; i < nefc; ++i) {
    const double t = d.efc_force[i] - force_fwd[i];
    e1 += t * t;
  }
  d.solver_fwdinv[0] = std::sqrt(e0);
  d.solver_fwdinv[1] = std::sqrt(e1);
  std::copy_n(force_fwd, nefc, d.efc_force.data());
  std::copy_n(qfrc_fwd, nv, d.qfrc_constraint.data());
  for (int i = 0; i < nefc; ++i) d.efc_state[i] = static_cast<int>(state_fwd[i]);
}

}  // namespace moreau

// Semi-implicit Euler with implicit joint damping (computation chapter, "Numerical integration").
//
// Joint damping -B qvel is integrated implicitly: qvel_next = qvel + h qacc with
//   (M + h B) qacc = qfrc_smooth + qfrc_constraint,
// which is unconditionally stable in the damping. M + h B keeps the sparsity of M (B is diagonal),
// so it is factored in place in qH with the same tree-sparse L'DL as M. Without damping the
// forward-dynamics qacc is used as is.
#include <algorithm>

#include "dynamics/dynamics.h"
#include "integrator/integrator.h"
#include "moreau/moreau.h"

namespace moreau::internal {

void euler(const Model& m, Data& d) {
  const int nv = m.nv;
  bool damped = false;
  for (int i = 0; i < nv; ++i)
    if (m.dof_damping[i] > 0) { damped = true; break; }

  // the hard-contact solvers' qacc already solves (M + h B) qacc = qfrc_smooth + qfrc_constraint
  // when they have rows (src/solver/ncp/solve.cc: qacc = (v+ - v) / h with M + h B in the problem)
  if (!damped || (is_hard_contact_solver(m.opt.solver) && d.nefc > 0)) {
    advance(m, d, d.act_dot.data(), d.qacc.data(), nullptr);
    return;
  }

  const double h = m.opt.timestep;
  std::copy(d.qM.begin(), d.qM.begin() + m.nM, d.qH.begin());
  for (int i = 0; i < nv; ++i) d.qH[m.dof_Madr[i]] += h * m.dof_damping[i];
  factor_ld(m, d.qH.data(), d.qHDiagInv.data(), nullptr, true);  // B diagonal: M's zeros stay

  double* qacc = integrator_temp(d);
  for (int i = 0; i < nv; ++i) qacc[i] = d.qfrc_smooth[i] + d.qfrc_constraint[i];
  solve_ld(m, d.qH.data(), d.qHDiagInv.data(), qacc, 1, true);
  advance(m, d, d.act_dot.data(), qacc, nullptr);
}

}  // namespace moreau::internal

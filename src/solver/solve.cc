// solve_constraint: forward constraint dynamics. efc_b = J qacc_smooth - aref, then the solver
// selected by opt.solver (Newton, CG: primal; PGS: dual), then, if the fwdinv flag is set, the
// forward/inverse comparison. qacc_warmstart = qacc at the end.
#include <algorithm>
#include <string>
#include <stdexcept>
#include <cstring>

#include "engine/checks.h"
#include "engine/messages.h"
#include "solver/ncp/ncp.h"
#include "solver/solver.h"

namespace moreau {

void solve_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "solve_constraint");
  const int nv = m.nv;
  // the velocity-stepping (hard-contact) solvers, src/solver/ncp
  if (is_hard_contact_solver(m.opt.solver)) {
    ncp::solve(m, d);
    return;
  }
  if (d.nefc == 0) {
    std::copy_n(d.qacc_smooth.data(), nv, d.qacc.data());
    std::fill_n(d.qfrc_constraint.data(), nv, 0.0);
    d.solver_iter = 0;
    std::copy_n(d.qacc.data(), nv, d.qacc_warmstart.data());
    return;
  }
  constraint::mul_J(m, d, d.efc_b.data(), d.qacc_smooth.data());
  for (int i = 0; i < d.nefc; ++i) d.efc_b[i] -= d.efc_aref[i];
  switch (m.opt.solver) {
    case kSolverPGS: solver::pgs(m, d); break;
    case kSolverCG: solver::cg(m, d); break;
    case kSolverNewton: solver::newton(m, d); break;
    default:
      internal::raise<std::runtime_error>("unknown solver " + std::to_string(m.opt.solver));
  }
  // the next call starts from this solution (MuJoCo 2.2.2 does this copy in its forward pass too),
  // the main solver's: the noslip pass below does not change the warm start (as 2.2.2, observed)
  std::copy_n(d.qacc.data(), nv, d.qacc_warmstart.data());
  if (m.opt.noslip_iterations > 0) solver::noslip(m, d);
  if (m.opt.enableflags & kEnblFwdinv) compare_fwdinv(m, d);
}

}  // namespace moreau

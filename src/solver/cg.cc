// Conjugate-gradient solver on the reduced primal problem (computation chapter, "Algorithms"):
// nonlinear CG with the Polak-Ribiere-plus formula beta = max(0, g'(Mg - Mg_old) / g_old'Mg_old),
// preconditioned by M^-1 (Mg = M^-1 g, from the factor qLD), exact line search (linesearch.cc).
// No setup cost: no Hessian is formed. M times the search direction follows its recurrence, so an
// iteration has one solve with M and no product with it.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

void cg(const Model& m, Data& d) {
  const int nv = m.nv;
  Work w = constraint::carve(m, d);
  Primal p = primal_setup(m, d, w);
  primal_init(m, d, p, false);
  primal_gradient(m, d, p);
  std::copy_n(p.grad, nv, p.Mgrad);
  solve_m(m, d, p.Mgrad);
  // M search follows the search direction's recurrence without products with M:
  // M (-M^-1 g + beta s) = -g + beta M s
  p.Mv_given = true;
  for (int k = 0; k < nv; ++k) {
    p.search[k] = -p.Mgrad[k];
    p.Mv[k] = -p.grad[k];
  }
  d.solver_nnz = 0;
  double* oldstate = w.etmp;
  int iter = 0;
  while (iter < m.opt.iterations) {
    int neval = 0;
    double slope = 0;
    for (int i = 0; i < d.nefc; ++i) oldstate[i] = d.efc_state[i];
    double decrease = 0;
    linesearch(m, d, p, &neval, &slope, &decrease);
    primal_cost(m, d, p, false);
    std::copy_n(p.grad, nv, p.gradold);
    std::copy_n(p.Mgrad, nv, p.Mgradold);
    primal_gradient(m, d, p);
    std::copy_n(p.grad, nv, p.Mgrad);
    solve_m(m, d, p.Mgrad);
    double num = 0, den = 0;  // Polak-Ribiere in the metric of M
    for (int k = 0; k < nv; ++k) {
      num += p.grad[k] * (p.Mgrad[k] - p.Mgradold[k]);
      den += p.gradold[k] * p.Mgradold[k];
    }
    int nchange = 0;
    const bool done = primal_iteration_done(m, d, p, iter, oldstate, decrease, slope, neval, false, &nchange);
    ++iter;
    if (done) break;
    const double beta = den > kMinVal ? std::max(0.0, num / den) : 0.0;
    for (int k = 0; k < nv; ++k) {
      p.search[k] = -p.Mgrad[k] + beta * p.search[k];
      p.Mv[k] = -p.grad[k] + beta * p.Mv[k];
    }
  }
  d.solver_iter = iter;
  primal_finish(m, d, p);
}

}  // namespace moreau::solver

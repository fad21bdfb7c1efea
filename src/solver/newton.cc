// Newton solver on the reduced primal problem (computation chapter, "Algorithms"): exact Hessian
//   H = M + J' diag(D, active rows) J + sum over elliptic contacts J_c' H_c J_c,
// search direction -H^-1 grad, exact line search (linesearch.cc). The Hessian is factored by the
// sparse L'DL factorization of hessian.cc and updated by rank-1 updates when row states change.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

// Whether an elliptic contact is in the cone state (its Hessian block changes with Jaref).
bool has_cone(const Data& d) {
  for (int c = 0; c < d.ncon; ++c) {
    const int a = d.contact[c].efc_address;
    if (a >= 0 && d.efc_type[a] == kCnstrContactElliptic && d.efc_state[a] == kCnstrCone) return true;
  }
  return false;
}

// Bring the factor to the new row states (the chapter's incremental Hessian update): rank-1
// updates for rows that became quadratic, then downdates for rows that left it (the order that
// keeps the intermediate matrices definite). Refactor instead when an elliptic contact is
// involved (its block is not rank-1), when a new row does not fit the factor's pattern (a
// contact between trees not coupled yet), or when a downdate loses definiteness.
void update_factor(const Model& m, Data& d, const Work& w, const double* oldstate) {
  bool refactor = has_cone(d);
  for (int i = 0; i < d.nefc && !refactor; ++i)
    refactor = d.efc_type[i] == kCnstrContactElliptic && oldstate[i] != d.efc_state[i];
  for (int pass = 0; pass < 2 && !refactor; ++pass) {
    const bool add = pass == 0;
    for (int i = 0; i < d.nefc && !refactor; ++i) {
      const bool was = static_cast<int>(oldstate[i]) == kCnstrQuadratic;
      const bool is = d.efc_state[i] == kCnstrQuadratic;
      if (was == is || is != add) continue;
      refactor = !hessian_update(m, d, w, i, add ? d.efc_D[i] : -d.efc_D[i]);
    }
  }
  if (refactor) d.solver_nnz = hessian_factor(m, d, w, true);
}

}  // namespace

void newton(const Model& m, Data& d) {
  const int nv = m.nv;
  Work w = constraint::carve(m, d);
  std::fill_n(w.v[12], nv, 0.0);  // hessian_update's scratch, zero between updates
  Primal p = primal_setup(m, d, w);
  p.rounding_stop = true;
  primal_init(m, d, p, true);
  primal_gradient(m, d, p);
  d.solver_nnz = hessian_factor(m, d, w, false);
  // A start whose gradient is rounding (the warm start of a body at rest: M a, qfrc_smooth and
  // J' force cancel to a few ulps) is the solution: no iteration.
  double g2 = 0, scale2 = 0;
  for (int k = 0; k < nv; ++k) {
    g2 += p.grad[k] * p.grad[k];
    const double t = std::fabs(p.Ma[k]) + std::fabs(d.qfrc_smooth[k]) + std::fabs(p.tmp[k]);  // tmp: J' force
    scale2 += t * t;
  }
  const bool converged = g2 <= kSlopeRounding * kSlopeRounding * scale2;
  if (!converged) {
    std::copy_n(p.grad, nv, p.Mgrad);
    hessian_solve(m, w, p.Mgrad);
  }
  int iter = 0;
  double* oldstate = w.etmp;
  while (!converged && iter < m.opt.iterations) {
    for (int k = 0; k < nv; ++k) p.search[k] = -p.Mgrad[k];
    int neval = 0;
    double slope = 0;
    for (int i = 0; i < d.nefc; ++i) oldstate[i] = d.efc_state[i];
    double decrease = 0;
    linesearch(m, d, p, &neval, &slope, &decrease);
    primal_cost(m, d, p, true);
    primal_gradient(m, d, p);
    int nchange = 0;
    const bool done = primal_iteration_done(m, d, p, iter, oldstate, decrease, slope, neval, true, &nchange);
    ++iter;
    if (done) break;
    if (nchange > 0 || has_cone(d)) update_factor(m, d, w, oldstate);
    std::copy_n(p.grad, nv, p.Mgrad);
    hessian_solve(m, w, p.Mgrad);
  }
  d.solver_iter = iter;
  primal_finish(m, d, p);
}

}  // namespace moreau::solver

// Newton solver on the reduced primal problem (computation chapter, "Algorithms"): exact Hessian
//   H = M + J' diag(D, active rows) J + sum over elliptic contacts J_c' H_c J_c,
// search direction -H^-1 grad, exact line search (linesearch.cc). The chapter's implementation
// updates the Cholesky factor by rank-1 updates when row states change; here the Hessian is formed
// dense and refactored whenever a state changes (O(nv^3); fine for the model sizes of the test
// list, to be replaced by the sparse/rank-1 path for large nv).
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

void build_hessian(const Model& m, const Data& d, double* H) {
  const int nv = m.nv;
  const bool sparse = constraint::use_sparse(m);
  full_m(m, d.qM.data(), H);
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[i]];
      const int dim = con.dim;
      if (d.efc_state[i] != kCnstrSatisfied) {
        for (int a = 0; a < dim; ++a) {
          const double* Ja = &d.efc_J[static_cast<size_t>(i + a) * nv];
          for (int b = 0; b < dim; ++b) {
            const double h = con.H[a * dim + b];
            if (h == 0) continue;
            const double* Jb = &d.efc_J[static_cast<size_t>(i + b) * nv];
            for (int r = 0; r < nv; ++r) {
              if (Ja[r] == 0) continue;
              const double s = h * Ja[r];
              for (int c = 0; c < nv; ++c) H[r * nv + c] += s * Jb[c];
            }
          }
        }
      }
      i += dim - 1;
      continue;
    }
    if (d.efc_state[i] != kCnstrQuadratic) continue;
    const double D = d.efc_D[i];
    const double* J = &d.efc_J[static_cast<size_t>(i) * nv];
    if (sparse) {
      const int* col = &d.efc_J_colind[d.efc_J_rowadr[i]];
      const int n = d.efc_J_rownnz[i];
      for (int a = 0; a < n; ++a) {
        const double s = D * J[col[a]];
        for (int b = 0; b < n; ++b) H[col[a] * nv + col[b]] += s * J[col[b]];
      }
    } else {
      for (int r = 0; r < nv; ++r) {
        if (J[r] == 0) continue;
        const double s = D * J[r];
        for (int c = 0; c < nv; ++c) H[r * nv + c] += s * J[c];
      }
    }
  }
}

// Dense Cholesky H = L L' in place (lower triangle). Returns false if not positive definite.
bool cholesky(double* L, int n) {
  for (int j = 0; j < n; ++j) {
    double s = L[j * n + j];
    for (int k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
    if (!(s > 0)) return false;
    const double ljj = std::sqrt(s);
    L[j * n + j] = ljj;
    for (int i = j + 1; i < n; ++i) {
      double t = L[i * n + j];
      const double* li = L + i * n;
      const double* lj = L + j * n;
      for (int k = 0; k < j; ++k) t -= li[k] * lj[k];
      L[i * n + j] = t / ljj;
    }
  }
  return true;
}

void cholesky_solve(const double* L, int n, double* x) {
  for (int i = 0; i < n; ++i) {
    double s = x[i];
    for (int k = 0; k < i; ++k) s -= L[i * n + k] * x[k];
    x[i] = s / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = x[i];
    for (int k = i + 1; k < n; ++k) s -= L[k * n + i] * x[k];
    x[i] = s / L[i * n + i];
  }
}

void factor(const Model& m, const Data& d, const Work& w) {
  const int nv = m.nv;
  build_hessian(m, d, w.L);
  if (!cholesky(w.L, nv)) {
    // round-off made H indefinite: regularize the diagonal slightly and retry
    build_hessian(m, d, w.L);
    for (int k = 0; k < nv; ++k) w.L[k * nv + k] *= 1 + 1e-10;
    for (int k = 0; k < nv; ++k) w.L[k * nv + k] += kMinVal;
    cholesky(w.L, nv);
  }
}

}  // namespace

void newton(const Model& m, Data& d) {
  const int nv = m.nv;
  Work w = constraint::carve(m, d);
  Primal p = primal_setup(m, d, w);
  primal_init(m, d, p);
  primal_eval(m, d, p, true);
  primal_gradient(m, d, p);
  factor(m, d, w);
  d.solver_nnz = nv * nv;
  std::memcpy(p.Mgrad, p.grad, sizeof(double) * nv);
  cholesky_solve(w.L, nv, p.Mgrad);
  const double scale = stat_scale(m);
  const double tol = m.opt.tolerance;
  int iter = 0;
  double* oldstate = w.etmp;
  while (iter < m.opt.iterations) {
    for (int k = 0; k < nv; ++k) p.search[k] = -p.Mgrad[k];
    int neval = 0;
    double slope = 0;
    const double oldcost = p.cost;
    for (int i = 0; i < d.nefc; ++i) oldstate[i] = d.efc_state[i];
    linesearch(m, d, p, &neval, &slope);
    primal_eval(m, d, p, true);
    primal_gradient(m, d, p);
    int nchange = 0;
    for (int i = 0; i < d.nefc; ++i) nchange += oldstate[i] != d.efc_state[i];
    double g2 = 0;
    for (int k = 0; k < nv; ++k) g2 += p.grad[k] * p.grad[k];
    const double improvement = scale * (oldcost - p.cost);
    const double gradient = scale * std::sqrt(g2);
    if (iter < kNSolverStat && static_cast<int>(d.solver.size()) > iter) {
      SolverStat& st = d.solver[iter];
      st.improvement = improvement;
      st.gradient = gradient;
      st.lineslope = scale * slope;
      st.nactive = p.nactive;
      st.nchange = nchange;
      st.neval = neval;
      st.nupdate = nchange;
    }
    ++iter;
    if (improvement < tol || gradient < tol) break;
    // refactor when the active set or a cone Hessian changed
    bool cone = false;
    for (int c = 0; c < d.ncon && !cone; ++c)
      cone = d.contact[c].efc_address >= 0 && d.efc_type[d.contact[c].efc_address] ==
             kCnstrContactElliptic && d.efc_state[d.contact[c].efc_address] == kCnstrCone;
    if (nchange > 0 || cone) factor(m, d, w);
    std::memcpy(p.Mgrad, p.grad, sizeof(double) * nv);
    cholesky_solve(w.L, nv, p.Mgrad);
  }
  d.solver_iter = iter;
  primal_finish(m, d, p);
}

}  // namespace moreau::solver

// Newton solver on the reduced primal problem (computation chapter, "Algorithms"): exact Hessian
//   H = M + J' diag(D, active rows) J + sum over elliptic contacts J_c' H_c J_c,
// search direction -H^-1 grad, exact line search (linesearch.cc). The chapter's implementation
// updates the Cholesky factor by rank-1 updates when row states change; here the Hessian is formed
// in an nv x nv array and refactored whenever a state changes, by an envelope Cholesky that skips
// the zeros left of each row's first non-zero (cost sum of squared row widths; nv^3/3 at worst).
// Rank-1 updates and a supernodal sparse factor are not implemented.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

// Lower triangle of H = M + J' D J (+ cone terms) on its envelope: first[i] = the first non-zero
// column of row i (M: the root dof of i's tree; J'DJ: the smallest column of every active row that
// touches i). Only entries first[i] <= c <= i are written, so the cost follows the envelope, not nv^2.
void build_hessian(const Model& m, const Data& d, double* H, double* first) {
  const int nv = m.nv;
  // envelope of M: the ancestors of i (dof_parentid chain) end at the root dof
  for (int i = 0; i < nv; ++i) {
    int r = i;
    for (int p = m.dof_parentid[i]; p >= 0; p = m.dof_parentid[p]) r = p;
    first[i] = r;
  }
  // envelope of the active constraint rows
  auto touch = [&](int i) {
    const int* col = &d.efc_J_colind[d.efc_J_rowadr[i]];
    const int n = d.efc_J_rownnz[i];
    if (n == 0) return;
    int c0 = col[0];
    for (int a = 1; a < n; ++a) c0 = std::min(c0, col[a]);
    for (int a = 0; a < n; ++a) first[col[a]] = std::min(first[col[a]], static_cast<double>(c0));
  };
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const int dim = d.contact[d.efc_id[i]].dim;
      if (d.efc_state[i] != kCnstrSatisfied) {
        // the block couples all its rows: use the union of their columns
        double c0 = nv;
        for (int a = 0; a < dim; ++a) {
          const int* col = &d.efc_J_colind[d.efc_J_rowadr[i + a]];
          for (int k = 0; k < d.efc_J_rownnz[i + a]; ++k) c0 = std::min(c0, static_cast<double>(col[k]));
        }
        for (int a = 0; a < dim; ++a) {
          const int* col = &d.efc_J_colind[d.efc_J_rowadr[i + a]];
          for (int k = 0; k < d.efc_J_rownnz[i + a]; ++k) first[col[k]] = std::min(first[col[k]], c0);
        }
      }
      i += dim - 1;
      continue;
    }
    if (d.efc_state[i] == kCnstrQuadratic) touch(i);
  }
  // zero the envelope, then M (tree-sparse layout: row i holds M(i,i), M(i,parent), ...)
  for (int i = 0; i < nv; ++i) {
    double* row = H + static_cast<size_t>(i) * nv;
    for (int c = static_cast<int>(first[i]); c <= i; ++c) row[c] = 0;
    const double* q = d.qM.data() + m.dof_Madr[i];
    row[i] = q[0];
    int t = 1;
    for (int p = m.dof_parentid[i]; p >= 0; p = m.dof_parentid[p], ++t) row[p] = q[t];
  }
  // J' D J and the cone Hessians, lower triangle
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[i]];
      const int dim = con.dim;
      if (d.efc_state[i] != kCnstrSatisfied) {
        for (int a = 0; a < dim; ++a) {
          const double* Ja = &d.efc_J[static_cast<size_t>(i + a) * nv];
          const int* ca = &d.efc_J_colind[d.efc_J_rowadr[i + a]];
          const int na = d.efc_J_rownnz[i + a];
          for (int b = 0; b < dim; ++b) {
            const double h = con.H[a * dim + b];
            if (h == 0) continue;
            const double* Jb = &d.efc_J[static_cast<size_t>(i + b) * nv];
            const int* cb = &d.efc_J_colind[d.efc_J_rowadr[i + b]];
            const int nb = d.efc_J_rownnz[i + b];
            for (int x = 0; x < na; ++x) {
              const int r = ca[x];
              const double sv = h * Ja[r];
              double* row = H + static_cast<size_t>(r) * nv;
              for (int y = 0; y < nb; ++y)
                if (cb[y] <= r) row[cb[y]] += sv * Jb[cb[y]];
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
    const int* col = &d.efc_J_colind[d.efc_J_rowadr[i]];
    const int n = d.efc_J_rownnz[i];
    for (int a = 0; a < n; ++a) {
      const int r = col[a];
      const double sv = D * J[r];
      double* row = H + static_cast<size_t>(r) * nv;
      for (int b = 0; b < n; ++b)
        if (col[b] <= r) row[col[b]] += sv * J[col[b]];
    }
  }
}

// Envelope (profile) Cholesky H = L L' in place (lower triangle): row i of L is non-zero only from
// column first[i] on, the first non-zero of row i of H (fill-in stays inside the envelope). The tree-sparse M and
// the contact couplings J'DJ usually have narrow envelopes, so this costs sum_i width_i^2 rather
// than nv^3/3. Returns false if H is not positive definite.
bool cholesky(double* L, int n, const double* firstd) {
  for (int i = 0; i < n; ++i) {
    double* li = L + static_cast<size_t>(i) * n;
    const int fi = static_cast<int>(firstd[i]);
    for (int j = fi; j <= i; ++j) {
      const double* lj = L + static_cast<size_t>(j) * n;
      const int k0 = std::max(fi, static_cast<int>(firstd[j]));
      double s = li[j];
      for (int k = k0; k < j; ++k) s -= li[k] * lj[k];
      if (j < i) {
        li[j] = s / lj[j];
      } else {
        if (!(s > 0)) return false;
        li[i] = std::sqrt(s);
      }
    }
  }
  return true;
}

void cholesky_solve(const double* L, int n, const double* firstd, double* x) {
  for (int i = 0; i < n; ++i) {
    const double* li = L + static_cast<size_t>(i) * n;
    double s = x[i];
    for (int k = static_cast<int>(firstd[i]); k < i; ++k) s -= li[k] * x[k];
    x[i] = s / li[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    const double* li = L + static_cast<size_t>(i) * n;
    x[i] /= li[i];
    const double xi = x[i];
    for (int k = static_cast<int>(firstd[i]); k < i; ++k) x[k] -= li[k] * xi;
  }
}

void factor(const Model& m, const Data& d, const Work& w) {
  const int nv = m.nv;
  build_hessian(m, d, w.L, w.first);
  if (!cholesky(w.L, nv, w.first)) {
    // round-off made H indefinite: regularize the diagonal slightly and retry
    build_hessian(m, d, w.L, w.first);
    for (int k = 0; k < nv; ++k) w.L[k * nv + k] = w.L[k * nv + k] * (1 + 1e-10) + kMinVal;
    cholesky(w.L, nv, w.first);
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
  std::copy_n(p.grad, nv, p.Mgrad);
  cholesky_solve(w.L, nv, w.first, p.Mgrad);
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
    double decrease = 0;
    linesearch(m, d, p, &neval, &slope, &decrease);
    primal_eval(m, d, p, true);
    primal_gradient(m, d, p);
    int nchange = 0;
    for (int i = 0; i < d.nefc; ++i) nchange += oldstate[i] != d.efc_state[i];
    double g2 = 0;
    for (int k = 0; k < nv; ++k) g2 += p.grad[k] * p.grad[k];
    const double improvement = scale * decrease;
    (void)oldcost;
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
    std::copy_n(p.grad, nv, p.Mgrad);
    cholesky_solve(w.L, nv, w.first, p.Mgrad);
  }
  d.solver_iter = iter;
  primal_finish(m, d, p);
}

}  // namespace moreau::solver

// The constraint rows in the dual solvers' form (computation chapter, "Dual problem"):
//   A = J M^-1 J' with M = L' D L (the factor qLD):  A_ij = u_i . u_j,  u_i = D^-1/2 L'^-1 J_i'.
// u_i is non-zero on the ancestor closure of row i's columns (L'^-1 only moves values from a dof
// to its ancestors): for a contact, the dof chains of its two bodies. So u_i is short and sparse
// (a few tens of entries even in a 600-dof scene), A's rows need no nv-long products, and with
// w = sum_j u_j f_j the dual residual of row i is u_i . w + b_i + R_i f_i, and the acceleration
// change M^-1 J' f = L^-1 D^-1/2 w.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/checks.h"
#include "moreau/messages.h"
#include "solver/solver.h"

namespace moreau::solver {

DualRows dual_rows(const Model& m, Data& d, const Work& w) {
  return dual_rows(m, d, w, d.qLD.data(), d.qLDiagSqrtInv.data());
}

namespace {

// L' y = b on a path pat[0..n) (below) for s right-hand sides side by side (s even, s <= 2 P;
// Exact: s == 2 P, the pair loops unrolled at compile time), the pairs of row k held in registers
// while they move to its ancestors (two entries per SSE2 operation; GCC/Clang vector types, no
// -march).
template <int P, bool Exact = true>
void path_solve(const Model& m, const int* pat, int n, const double* qld, int s, double* y) {
  typedef double Pair __attribute__((vector_size(16), aligned(8)));
  const int np = Exact ? P : s / 2;
  if (Exact) s = 2 * P;
  for (int k = n - 1; k > 0; --k) {
    const double* row = qld + m.dof_Madr[pat[k]];
    Pair yk[P] = {};
#pragma GCC unroll 5
    for (int p = 0; p < np; ++p) yk[p] = *reinterpret_cast<const Pair*>(y + k * s + 2 * p);
    for (int t = 1; t <= k; ++t) {
      const double l = row[t];
      double* yt = y + (k - t) * s;
#pragma GCC unroll 5
      for (int p = 0; p < np; ++p) *reinterpret_cast<Pair*>(yt + 2 * p) -= l * yk[p];
    }
  }
}

// Rows i .. i+nr-1 of one non-zero each, at the successive dofs pat[n-nr], ..., pat[n-1] of one
// path (friction loss or limits of a chain of joints): row q's dual row lies on the path's first
// n - nr + q + 1 dofs. They are solved side by side on the whole path (the entries past a row's
// own dof stay zero), into val one after the other. pat, y as for chain_rows.
template <int P>
void single_run(const Model& m, const Data& d, const double* J, int i, int nr, const int* pat, int n,
                const double* qld, const double* sqrtinv, double* y, double* val) {
  const int s = (nr + 1) & ~1;
  std::fill_n(y, n * s, 0.0);
  for (int q = 0; q < nr; ++q) y[(n - nr + q) * s + q] = J[d.efc_J_rowadr[i + q]];
  path_solve<P>(m, pat, n, qld, s, y);
  for (int q = 0; q < nr; ++q) {
    const int len = n - nr + q + 1;
    for (int k = 0; k < len; ++k) val[k] = y[k * s + q] * sqrtinv[pat[k]];
    val += len;
  }
}

// Rows i .. i+nr-1 share their columns (one contact's rows, or one row) and these lie on the path
// from the root to the deepest one, pat[0..n) (ascending: a dof's ancestors have smaller indices),
// so that the ancestors of pat[k] are pat[k-1], ..., pat[0], in that order. Their dual rows, over
// pat, into val (row after row): L' y = J' on the path, with the rows side by side in y (n x S, S
// = nr rounded up to even, two rows per SSE2 operation; GCC/Clang vector types, no -march), then
// D^-1/2. Each row sees the general closure's substitution in the same order (that one skips
// zero entries, which changes at most the sign of a zero). pos: nv ints of scratch. NR = 0: nr
// known at run time only (no unrolled loops).
template <int NR>
void chain_rows(const Model& m, const Data& d, const double* J, int i, int nr_, const int* pat, int n,
                const double* qld, const double* sqrtinv, double* y, int* pos, double* val) {
  const int nr = NR > 0 ? NR : nr_;
  const int s = nr == 1 ? 1 : (nr + 1) & ~1;
  std::fill_n(y, n * s, 0.0);
  const constraint::SparseRow r0 = constraint::row_of(d, J, i);
  if (r0.nnz == n) {  // the columns are the path (a body's dof chain)
    for (int q = 0; q < nr; ++q) {
      const double* v = J + d.efc_J_rowadr[i + q];
      for (int k = 0; k < n; ++k) y[k * s + q] = v[k];
    }
  } else {
    for (int k = 0, p = 0; k < r0.nnz; ++k) {
      while (pat[p] != r0.col[k]) ++p;
      pos[k] = p;
    }
    for (int q = 0; q < nr; ++q) {
      const double* v = J + d.efc_J_rowadr[i + q];
      for (int k = 0; k < r0.nnz; ++k) y[pos[k] * s + q] = v[k];
    }
  }
  if (s == 1) {
    for (int k = n - 1; k > 0; --k) {
      const double* row = qld + m.dof_Madr[pat[k]];
      const double xc = y[k];
      if (xc == 0) continue;
      for (int t = 1; t <= k; ++t) y[k - t] -= row[t] * xc;
    }
  } else {
    constexpr int P = NR > 0 ? (NR + 1) / 2 : 5;
    path_solve<P, (NR > 0)>(m, pat, n, qld, s, y);
  }
  for (int k = 0; k < n; ++k) {
    const double f = sqrtinv[pat[k]];
    const double* yk = y + k * s;
#pragma GCC unroll 6
    for (int q = 0; q < nr; ++q) val[q * n + k] = yk[q] * f;
  }
}

}  // namespace

DualRows dual_rows(const Model& m, Data& d, const Work& w, const double* qld, const double* sqrtinv) {
  const int nv = m.nv;
  const double* J = constraint::J_values(m, d);
  double* x = w.v[11];      // dense accumulator, zero between rows
  int* mark = w.iv[7];      // stamp: row that last added the dof to its closure
  std::fill_n(x, nv, 0.0);
  std::fill_n(mark, nv, -1);
  DualRows u{w.MinvJT, w.dualcol, w.dualadr};
  int top = 0;
  const long long capacity = constraint::nnz_capacity(d);
  int* closure = w.chain;  // nv ints
  double* y = w.jac;       // chain rows: n x s values (n <= nv, s <= 10: the most rows sharing columns)
  for (int i = 0; i < d.nefc;) {
    const constraint::SparseRow r = constraint::row_of(d, J, i);
    // the path from the root to the row's deepest column, when it holds all the row's columns
    int n = 0;
    bool chain = r.nnz > 0;
    if (chain) {
      for (int a = r.col[r.nnz - 1]; a >= 0; a = m.dof_parentid[a]) closure[n++] = a;
      std::reverse(closure, closure + n);
      // (one column ends its path; as many columns as the path has dofs, ascending, are the path
      // exactly when they hold the same numbers)
      if (r.nnz == n) {
        chain = std::equal(closure, closure + n, r.col);
      } else if (r.nnz > 1) {
        for (int k = 0, p = 0; k < r.nnz && chain; ++k) {
          while (p < n && closure[p] < r.col[k]) ++p;
          chain = p < n && closure[p] == r.col[k];
        }
      }
    }
    if (chain && r.nnz == 1 && constraint::shared_rows(d, i) == 1) {
      // a run of one-entry rows at successive dofs of one chain
      int nr = 1;
      while (nr < 6 && i + nr < d.nefc && d.efc_J_rownnz[i + nr] == 1 &&
             constraint::shared_rows(d, i + nr) == 1 &&
             m.dof_parentid[d.efc_J_colind[d.efc_J_rowadr[i + nr]]] == closure[n - 1]) {
        closure[n++] = d.efc_J_colind[d.efc_J_rowadr[i + nr]];
        ++nr;
      }
      if (nr > 1 && top + static_cast<long long>(n) * nr <= capacity) {
        int off = top;
        for (int q = 0; q < nr; ++q) {
          const int len = n - nr + q + 1;
          u.adr[i + q] = off;
          std::copy_n(closure, len, u.col + off);
          off += len;
        }
        if (nr <= 2) single_run<1>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, u.val + top);
        else if (nr <= 4) single_run<2>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, u.val + top);
        else single_run<3>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, u.val + top);
        top = off;
        i += nr;
        continue;
      }
      n -= nr - 1;  // a single row (or no room): its own path
    }
    if (chain) {
      const int nr = constraint::shared_rows(d, i);
      if (nr * n <= 18 * nv && top + static_cast<long long>(n) * nr <= capacity) {
        for (int q = 0; q < nr; ++q) {
          u.adr[i + q] = top + q * n;
          std::copy_n(closure, n, u.col + top + q * n);
        }
        switch (nr) {  // the common sizes with unrolled loops
          case 1: chain_rows<1>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, w.chain + nv, u.val + top); break;
          case 3: chain_rows<3>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, w.chain + nv, u.val + top); break;
          case 4: chain_rows<4>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, w.chain + nv, u.val + top); break;
          case 6: chain_rows<6>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, w.chain + nv, u.val + top); break;
          default: chain_rows<0>(m, d, J, i, nr, closure, n, qld, sqrtinv, y, w.chain + nv, u.val + top);
        }
        top += n * nr;
        i += nr;
        continue;
      }
    }
    // the closure of the row's columns, sorted (once for the rows that share them)
    const int nr = constraint::shared_rows(d, i);
    n = 0;
    for (int k = 0; k < r.nnz; ++k)
      for (int a = r.col[k]; a >= 0 && mark[a] != i; a = m.dof_parentid[a]) {
        mark[a] = i;
        closure[n++] = a;
      }
    std::sort(closure, closure + n);
    for (int q = 0; q < nr; ++q, ++i) {
      u.adr[i] = top;
      // the closure of a row fits the rows' bound (constraint::nnz_bound); a row that would not
      // fit is reported and left out of the dual problem (never expected)
      if (top + static_cast<long long>(n) > capacity) {
        warning(d, kWarnCnstrFull, i);
        continue;
      }
      const constraint::SparseRow rq = constraint::row_of(d, J, i);
      for (int k = 0; k < rq.nnz; ++k) x[rq.col[k]] = rq.val[k];
      int* pat = u.col + top;
      for (int k = 0; k < n; ++k) pat[k] = closure[k];
      // L' y = J_i' from the deepest dof up (values move to ancestors), then D^-1/2
      for (int k = n - 1; k >= 0; --k) {
        const int c = pat[k];
        const double xc = x[c];
        if (xc == 0) continue;
        const double* row = qld + m.dof_Madr[c];
        int t = 1;
        for (int a = m.dof_parentid[c]; a >= 0; a = m.dof_parentid[a], ++t) x[a] -= row[t] * xc;
      }
      double* val = u.val + top;
      for (int k = 0; k < n; ++k) {
        val[k] = x[pat[k]] * sqrtinv[pat[k]];
        x[pat[k]] = 0;
      }
      top += n;
    }
  }
  u.adr[d.nefc] = top;
  return u;
}

double dual_pair(const DualRows& u, int i, int j) {
  const int* ci = u.col + u.adr[i];
  const int* cj = u.col + u.adr[j];
  const double* vi = u.val + u.adr[i];
  const double* vj = u.val + u.adr[j];
  const int ni = u.adr[i + 1] - u.adr[i], nj = u.adr[j + 1] - u.adr[j];
  double s = 0;
  for (int a = 0, b = 0; a < ni && b < nj;) {
    if (ci[a] < cj[b]) ++a;
    else if (cj[b] < ci[a]) ++b;
    else s += vi[a++] * vj[b++];
  }
  return s;
}

void dual_to_acc(const Model& m, const Data& d, double* x) {
  dual_to_acc(m, d.qLD.data(), d.qLDiagSqrtInv.data(), x);
}

void dual_to_acc(const Model& m, const double* qld, const double* sqrtinv, double* x) {
  const int nv = m.nv;
  for (int k = 0; k < nv; ++k) x[k] *= sqrtinv[k];
  // L x = y from the root to the leaves (the last stage of solve_m)
  for (int k = 0; k < nv; ++k) {
    const double* row = qld + m.dof_Madr[k];
    double s = 0;
    int t = 1;
    for (int a = m.dof_parentid[k]; a >= 0; a = m.dof_parentid[a], ++t) s += row[t] * x[a];
    x[k] -= s;
  }
}

void dual_finish(const Model& m, Data& d, double* x) {
  // efc_state from the forces, as MuJoCo 2.2.2 reports them after its dual solvers (observed:
  // elliptic rows are satisfied unless the force lies on the cone surface, never quadratic)
  for (int i = 0; i < d.nefc; ++i) {
    const double f = d.efc_force[i];
    switch (d.efc_type[i]) {
      case kCnstrEquality: d.efc_state[i] = kCnstrQuadratic; break;
      case kCnstrFrictionDof:
      case kCnstrFrictionTendon: {
        const double eta = d.efc_frictionloss[i];
        d.efc_state[i] = f >= eta ? kCnstrLinearNeg : f <= -eta ? kCnstrLinearPos : kCnstrQuadratic;
        break;
      }
      case kCnstrContactElliptic: {
        const Contact& con = d.contact[d.efc_id[i]];
        const int dim = con.dim;
        double t = 0;
        for (int j = 1; j < dim; ++j) {
          const double q = d.efc_force[i + j] / con.friction[j - 1];
          t += q * q;
        }
        const int s = f > 0 && std::sqrt(t) >= f * (1 - 1e-10) ? kCnstrCone : kCnstrSatisfied;
        for (int j = 0; j < dim; ++j) d.efc_state[i + j] = s;
        i += dim - 1;
        break;
      }
      default: d.efc_state[i] = f > 0 ? kCnstrQuadratic : kCnstrSatisfied; break;
    }
  }
  dual_to_acc(m, d, x);
  for (int k = 0; k < m.nv; ++k) d.qacc[k] = d.qacc_smooth[k] + x[k];
  constraint::mul_JT(m, d, d.qfrc_constraint.data(), d.efc_force.data());
}

}  // namespace moreau::solver

namespace moreau {

void project_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "project_constraint");
  const int nefc = d.nefc, nv = m.nv;
  if (nefc == 0) {
    d.efc_AR.clear();
    d.efc_AR_rownnz.clear();
    d.efc_AR_rowadr.clear();
    d.efc_AR_colind.clear();
    return;
  }
  constraint::Work w = constraint::carve(m, d);
  const solver::DualRows u = solver::dual_rows(m, d, w);
  if (!constraint::use_sparse(m)) {
    d.efc_AR.assign(static_cast<size_t>(nefc) * nefc, 0.0);
    for (int i = 0; i < nefc; ++i) {
      for (int j = i; j < nefc; ++j)
        d.efc_AR[static_cast<size_t>(i) * nefc + j] = d.efc_AR[static_cast<size_t>(j) * nefc + i] =
            solver::dual_pair(u, i, j);
      d.efc_AR[static_cast<size_t>(i) * nefc + i] += d.efc_R[i];
    }
    return;
  }
  // A_ij is structurally non-zero when rows i and j touch a common kinematic tree, that is when
  // u_i and u_j share a root dof (u holds the ancestor closure of the row's columns)
  std::vector<int> count(nv + 1, 0), start(nv + 1, 0), rows, mark(nefc, -1);
  for (int i = 0; i < nefc; ++i)
    for (int k = u.adr[i]; k < u.adr[i + 1]; ++k)
      if (m.dof_parentid[u.col[k]] < 0) count[u.col[k]]++;
  for (int c = 0; c < nv; ++c) start[c + 1] = start[c] + count[c];
  rows.resize(start[nv]);
  std::fill(count.begin(), count.end(), 0);
  for (int i = 0; i < nefc; ++i)
    for (int k = u.adr[i]; k < u.adr[i + 1]; ++k) {
      const int c = u.col[k];
      if (m.dof_parentid[c] < 0) rows[start[c] + count[c]++] = i;
    }
  d.efc_AR_rownnz.assign(nefc, 0);
  d.efc_AR_rowadr.assign(nefc, 0);
  d.efc_AR_colind.clear();
  d.efc_AR.clear();
  for (int i = 0; i < nefc; ++i) {
    d.efc_AR_rowadr[i] = static_cast<int>(d.efc_AR_colind.size());
    for (int k = u.adr[i]; k < u.adr[i + 1]; ++k) {
      const int c = u.col[k];
      if (m.dof_parentid[c] >= 0) continue;
      for (int a = start[c]; a < start[c + 1]; ++a)
        if (mark[rows[a]] != i) {
          mark[rows[a]] = i;
          d.efc_AR_colind.push_back(rows[a]);
        }
    }
    if (mark[i] != i) d.efc_AR_colind.push_back(i);  // a row without columns: R alone
    const auto first = d.efc_AR_colind.begin() + d.efc_AR_rowadr[i];
    std::sort(first, d.efc_AR_colind.end());
    d.efc_AR_rownnz[i] = static_cast<int>(d.efc_AR_colind.end() - first);
    for (auto it = first; it != d.efc_AR_colind.end(); ++it)
      d.efc_AR.push_back(solver::dual_pair(u, i, *it) + (*it == i ? d.efc_R[i] : 0.0));
  }
}

}  // namespace moreau

// Tree-sparse factorization of the Newton Hessian H = M + J' D J (+ cone terms) when it keeps the
// sparsity of M: every active row (every active elliptic block, taken as the union of its rows)
// has its non-zero columns on one chain of ancestors in the dof tree. A joint limit or dof
// friction row (one column) qualifies, and so does a contact of one body against the world or a
// body of its own kinematic chain (its Jacobian spans the body's ancestor dofs). Then J' D J only
// adds to entries (i, ancestor of i) that M already has, and H factors as L' D L in M's layout
// with internal::factor_ld at the cost of the tree (sum of squared dof depths) instead of the
// dense envelope Cholesky of newton.cc (up to nv^3/6 for a single tree such as the dog's).
// Otherwise newton.cc falls back to the envelope Cholesky.
//
// Storage: H and its factor in the first nM entries of Work::L, 1/D in Work::first (both belong to
// the Hessian factorization; the envelope path uses them differently).
#include <algorithm>

#include "engine/internal.h"
#include "solver/solver.h"

namespace moreau::solver {

namespace {

// True if the sorted columns col[0..n) lie on one ancestor chain (parents have smaller indices).
bool on_one_chain(const Model& m, const int* col, int n) {
  if (n <= 1) return true;
  int p = col[n - 1];
  for (int k = n - 2; k >= 0; --k) {
    do p = m.dof_parentid[p]; while (p > col[k]);
    if (p != col[k]) return false;
  }
  return true;
}

bool sorted(const int* col, int n) {
  for (int k = 1; k < n; ++k)
    if (col[k] <= col[k - 1]) return false;
  return true;
}

// Deepest column of an elliptic block (rows i..i+dim) if the union of its rows' columns is one
// chain, else -1: each row must be a chain, and the deepest column of every row must be the
// deepest column of the block or one of its ancestors (the rows of a contact differ only by exact
// zeros, so their chains are nested).
int block_chain_top(const Model& m, const Data& d, int i, int dim) {
  int top = -1;
  for (int a = 0; a < dim; ++a) {
    const int* col = &d.efc_J_colind[d.efc_J_rowadr[i + a]];
    const int n = d.efc_J_rownnz[i + a];
    if (!sorted(col, n) || !on_one_chain(m, col, n)) return -1;
    if (n > 0) top = std::max(top, col[n - 1]);
  }
  for (int a = 0; a < dim; ++a) {
    const int n = d.efc_J_rownnz[i + a];
    if (n == 0) continue;
    const int deepest = d.efc_J_colind[d.efc_J_rowadr[i + a] + n - 1];
    int p = top;
    while (p > deepest) p = m.dof_parentid[p];
    if (p != deepest) return -1;
  }
  return top;
}

// Add s * Ja Jb' on the whole ancestor chain of `top` (entries where J is zero add nothing).
void add_outer_chain(const Model& m, double* H, int top, const double* Ja, const double* Jb, double s) {
  for (int r = top; r >= 0; r = m.dof_parentid[r]) {
    const double sv = s * Ja[r];
    if (sv == 0) continue;
    double* row = H + m.dof_Madr[r];
    row[0] += sv * Jb[r];
    int t = 1;
    for (int p = m.dof_parentid[r]; p >= 0; p = m.dof_parentid[p], ++t) row[t] += sv * Jb[p];
  }
}

// Add s * (J_a[r] J_b[c]) for columns r >= c of the chain `col` into the tree-sparse H: entry
// (r, c) is at dof_Madr[r] + (depth of r - depth of c), depth counted from the row's own columns.
void add_outer(const Model& m, double* H, const int* col, int n, const double* Ja, const double* Jb,
               double s) {
  // col is sorted and a chain: walk the ancestors of col[x] to find the offsets of col[y] < col[x].
  for (int x = 0; x < n; ++x) {
    const int r = col[x];
    const double sv = s * Ja[r];
    if (sv == 0) continue;
    double* row = H + m.dof_Madr[r];
    row[0] += sv * Jb[r];
    int t = 0, p = r, y = x - 1;
    while (y >= 0) {
      p = m.dof_parentid[p];
      ++t;
      if (p == col[y]) {
        row[t] += sv * Jb[p];
        --y;
      }
    }
  }
}

}  // namespace

bool tree_hessian_applies(const Model& m, const Data& d) {
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const int dim = d.contact[d.efc_id[i]].dim;
      if (d.efc_state[i] != kCnstrSatisfied && block_chain_top(m, d, i, dim) < 0) return false;
      i += dim - 1;
      continue;
    }
    if (d.efc_state[i] != kCnstrQuadratic) continue;
    const int* col = &d.efc_J_colind[d.efc_J_rowadr[i]];
    const int n = d.efc_J_rownnz[i];
    if (!sorted(col, n) || !on_one_chain(m, col, n)) return false;
  }
  return true;
}

bool tree_hessian_factor(const Model& m, const Data& d, const Work& w) {
  double* H = w.L;
  std::copy_n(d.qM.data(), m.nM, H);
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[i]];
      const int dim = con.dim;
      const int top = d.efc_state[i] != kCnstrSatisfied ? block_chain_top(m, d, i, dim) : -1;
      if (top >= 0) {
        for (int a = 0; a < dim; ++a)
          for (int b = 0; b < dim; ++b) {
            const double h = con.H[a * dim + b];
            if (h == 0) continue;
            add_outer_chain(m, H, top, &d.efc_J[static_cast<size_t>(i + a) * m.nv],
                            &d.efc_J[static_cast<size_t>(i + b) * m.nv], h);
          }
      }
      i += dim - 1;
      continue;
    }
    if (d.efc_state[i] != kCnstrQuadratic) continue;
    const double* J = &d.efc_J[static_cast<size_t>(i) * m.nv];
    add_outer(m, H, &d.efc_J_colind[d.efc_J_rowadr[i]], d.efc_J_rownnz[i], J, J, d.efc_D[i]);
  }
  internal::factor_ld(m, H, w.first, nullptr);
  for (int k = 0; k < m.nv; ++k)
    if (!(w.first[k] > 0)) return false;  // not positive definite (1/D <= 0 or NaN)
  return true;
}

void tree_hessian_solve(const Model& m, const Work& w, double* x) {
  internal::solve_ld(m, w.L, w.first, x, 1);
}

}  // namespace moreau::solver

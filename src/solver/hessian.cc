// The Newton solver's Hessian and its sparse factorization (computation chapter, "Algorithms":
// Newton's method with the exact Hessian and a Cholesky factor):
//   H = M + J' diag(D, quadratic rows) J + sum over elliptic contacts in the cone J_c' H_c J_c.
//
// H is factored as H = L' D L, L unit lower triangular, eliminating the dofs from the last to the
// first: the order of the L'DL factor of M (factor_m), which leaves M's tree sparsity without fill
// (row i of L holds i's ancestors). A constraint row couples the dofs of its non-zero columns (a
// clique of H); eliminating its largest column first fills in exactly that clique, so the
// pattern of L follows from the elimination tree (parent(i) = the largest column of row i of L):
//   pattern(i) = ancestors(i) + the other columns of the active rows whose largest column is i
//                + the patterns of i's children in the elimination tree, less i.
// Contacts with the world or inside one tree touch only a chain of ancestors and add no fill;
// contacts between trees add the columns of the other tree. The cost of a factorization is the
// sum over rows of |pattern(i)|^2, that of a solve 2 sum |pattern(i)|.
//
// When no active row adds fill (contacts with the world, within one tree), the pattern is M's tree
// pattern: it is kept from one factorization to the next (hessian_factor, same_tree) instead of
// being rebuilt.
//
// Storage: the entries of H and L are addressed densely (row i at H + i*nv) but only the pattern
// is written or read, so the nv*nv array is touched where the factor is non-zero.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

// Blocks of rows that share their columns: the rows of one contact (built over the same dof
// chains, contact_rows.cc), else single rows. The symbolic step works per block.
inline int group_rows(const Data& d, int i) {
  switch (d.efc_type[i]) {
    case kCnstrContactPyramidal: return 2 * (d.contact[d.efc_id[i]].dim - 1);
    case kCnstrContactElliptic: return d.contact[d.efc_id[i]].dim;
    default: return 1;
  }
}
// Whether the block at row i contributes to the Hessian: an elliptic contact not in the top zone,
// else any of its rows in the quadratic state.
inline bool active(const Data& d, int i) {
  if (d.efc_type[i] == kCnstrContactElliptic) return d.efc_state[i] != kCnstrSatisfied;
  for (int r = i, e = i + group_rows(d, i); r < e; ++r)
    if (d.efc_state[r] == kCnstrQuadratic) return true;
  return false;
}

struct Layout {
  int* adr;         // start of row i's pattern in w.pattern
  int* cnt;         // its length
  int* parent;      // elimination tree
  int* child;       // first child
  int* sibling;     // next sibling
  int* mark;        // stamp of the last row that added this column
  int* grouphead;   // first active row group whose largest column is i
  int* groupnext;   // (per row) next group with the same largest column
};
Layout layout(const Work& w) {
  return {w.iv[0], w.iv[1], w.iv[2], w.iv[3], w.iv[4], w.iv[5], w.iv[6], w.rowlist};
}

// Row patterns of L (symbolic factorization); returns the number of off-diagonal entries.
long long symbolic(const Model& m, const Data& d, const Work& w, const Layout& t,
                   const double* J) {
  const int nv = m.nv;
  std::fill_n(t.child, nv, -1);
  std::fill_n(t.mark, nv, -1);
  std::fill_n(t.grouphead, nv, -1);
  // active row groups, keyed by their largest column
  for (int i = 0; i < d.nefc; i += group_rows(d, i)) {
    if (!active(d, i)) continue;
    const int n = d.efc_J_rownnz[i];
    if (n == 0) continue;
    const int last = d.efc_J_colind[d.efc_J_rowadr[i] + n - 1];
    t.groupnext[i] = t.grouphead[last];
    t.grouphead[last] = i;
  }
  (void)J;
  int* pat = w.pattern;
  long long top = 0;
  // up to 64 dofs, each row's pattern is a bit set: the union is an OR and the ascending list
  // comes out of the bits in order (no marks, no sort); larger models merge lists with marks
  const bool bits = nv <= 64;
  uint64_t mask[64];
  for (int i = nv - 1; i >= 0; --i) {
    t.adr[i] = static_cast<int>(top);
    if (bits) {
      uint64_t mi = 0;
      for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a]) mi |= uint64_t{1} << a;
      for (int g = t.grouphead[i]; g >= 0; g = t.groupnext[g]) {
        const int* col = &d.efc_J_colind[d.efc_J_rowadr[g]];
        for (int k = 0, n = d.efc_J_rownnz[g]; k < n; ++k) mi |= uint64_t{1} << col[k];
      }
      for (int c = t.child[i]; c >= 0; c = t.sibling[c]) mi |= mask[c];
      mi &= ~(uint64_t{1} << i);
      mask[i] = mi;
      for (; mi; mi &= mi - 1) pat[top++] = std::countr_zero(mi);
    } else {
      t.mark[i] = i;
      auto add = [&](int c) {
        if (t.mark[c] != i) {
          t.mark[c] = i;
          pat[top++] = c;
        }
      };
      for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a]) add(a);
      for (int g = t.grouphead[i]; g >= 0; g = t.groupnext[g]) {
        const int* col = &d.efc_J_colind[d.efc_J_rowadr[g]];
        for (int k = 0, n = d.efc_J_rownnz[g]; k < n; ++k) add(col[k]);
      }
      for (int c = t.child[i]; c >= 0; c = t.sibling[c]) {
        const int* p = pat + t.adr[c];
        for (int k = 0, n = t.cnt[c]; k < n; ++k) add(p[k]);
      }
      std::sort(pat + t.adr[i], pat + top);
    }
    int* p = pat + t.adr[i];
    t.cnt[i] = static_cast<int>(top - t.adr[i]);
    t.parent[i] = t.cnt[i] > 0 ? p[t.cnt[i] - 1] : -1;
    if (t.parent[i] >= 0) {
      t.sibling[i] = t.child[t.parent[i]];
      t.child[t.parent[i]] = i;
    }
  }
  // pattern(i) always holds i's ancestors (nM - nv entries in all): no more means no fill
  *w.tree_pattern = top == m.nM - nv;
  return top;
}

// Two doubles in one SSE2 register (the x86-64 baseline; other targets split it in scalars).
typedef double v2d __attribute__((vector_size(16)));
inline v2d load2(const double* p) {
  v2d v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// H[r][c] += sum_q D_q J_q[r] J_q[c] (c <= r) for rows q = 0..nq) that share the columns of r0:
// NQ of them (unrolled, the common pyramidal blocks, two columns c per step) or, with NQ = 0, nq.
// The sum runs over q in order in every form, so both give the same bits.
template <int NQ>
void add_rows(double* H, int nv, const constraint::SparseRow& r0, const double* const* val,
              const double* D, int nq = NQ) {
  if constexpr (NQ > 0) nq = NQ;
  for (int a = 0; a < r0.nnz; ++a) {
    double* row = H + static_cast<size_t>(r0.col[a]) * nv;
    double sa[10];
    for (int q = 0; q < nq; ++q) sa[q] = D[q] * val[q][a];
    int b = 0;
    if constexpr (NQ > 0) {
      for (; b < a; b += 2) {
        v2d h = sa[0] * load2(val[0] + b);
        for (int q = 1; q < NQ; ++q) h += sa[q] * load2(val[q] + b);
        row[r0.col[b]] += h[0];
        row[r0.col[b + 1]] += h[1];
      }
    }
    for (; b <= a; ++b) {
      double h = sa[0] * val[0][b];
      for (int q = 1; q < nq; ++q) h += sa[q] * val[q][b];
      row[r0.col[b]] += h;
    }
  }
}

// H on the pattern: M plus the active rows' J' D J (lower triangle: H[r][c], c <= r). With base
// (nM values in qM's layout) in place of qM and rowscale (nefc) multiplying each row's D (an
// elliptic block by its first row's scale), the matrix of hessian_factor_scaled.
void assemble(const Model& m, const Data& d, const Work& w, const Layout& t, const double* J,
              double regularize, const double* base = nullptr, const double* rowscale = nullptr) {
  const int nv = m.nv;
  double* H = w.L;
  for (int i = 0; i < nv; ++i) {
    double* row = H + static_cast<size_t>(i) * nv;
    const int* p = w.pattern + t.adr[i];
    for (int k = 0, n = t.cnt[i]; k < n; ++k) row[p[k]] = 0;
    const double* q = (base ? base : d.qM.data()) + m.dof_Madr[i];
    row[i] = q[0];
    int k = 1;
    for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a], ++k) row[a] = q[k];
  }
  for (int i = 0; i < d.nefc; i += group_rows(d, i)) {
    if (!active(d, i)) continue;
    if (d.efc_type[i] != kCnstrContactElliptic) {
      // the quadratic rows of the block (same columns): sum_r D_r J_r J_r' in one pass over H
      const constraint::SparseRow r0 = constraint::row_of(d, J, i);
      const double* val[10];
      double D[10];
      int nq = 0;
      for (int r = i, e = i + group_rows(d, i); r < e; ++r) {
        if (d.efc_state[r] != kCnstrQuadratic) continue;
        val[nq] = constraint::row_of(d, J, r).val;
        D[nq++] = d.efc_D[r] * (rowscale ? rowscale[r] : 1.0);
      }
      switch (nq) {
        case 1: add_rows<1>(H, nv, r0, val, D); break;
        case 2: add_rows<2>(H, nv, r0, val, D); break;
        case 3: add_rows<3>(H, nv, r0, val, D); break;
        case 4: add_rows<4>(H, nv, r0, val, D); break;
        default: add_rows<0>(H, nv, r0, val, D, nq); break;
      }
      continue;
    }
    // elliptic contact in the cone or bottom zone: J_c' H_c J_c over the block's shared columns,
    // T = H_c J_c first (dim x n in w.jac), then the lower triangle
    const Contact& con = d.contact[d.efc_id[i]];
    const int dim = con.dim;
    const constraint::SparseRow r0 = constraint::row_of(d, J, i);
    const int n = r0.nnz;
    const double* val[6];
    for (int a = 0; a < dim; ++a) val[a] = constraint::row_of(d, J, i + a).val;
    double* T = w.jac;
    const double scale = rowscale ? rowscale[i] : 1.0;
    for (int a = 0; a < dim; ++a)
      for (int y = 0; y < n; ++y) {
        double s = 0;
        for (int b = 0; b < dim; ++b) s += con.H[a * dim + b] * val[b][y];
        T[a * n + y] = scale * s;
      }
    for (int x = 0; x < n; ++x) {
      double* row = H + static_cast<size_t>(r0.col[x]) * nv;
      for (int y = 0; y <= x; ++y) {
        double h = 0;
        for (int a = 0; a < dim; ++a) h += val[a][x] * T[a * n + y];
        row[r0.col[y]] += h;
      }
    }
  }
  if (regularize > 0)
    for (int i = 0; i < nv; ++i) {
      double& h = H[static_cast<size_t>(i) * nv + i];
      h = h * (1 + regularize) + kMinVal;
    }
}

// In-place H = L' D L from the last dof to the first; D into w.first. False if a pivot is not
// positive (with clamp: the pivot is clamped to kMinVal instead).
bool eliminate(const Model& m, const Work& w, const Layout& t, bool clamp) {
  const int nv = m.nv;
  double* H = w.L;
  double* D = w.first;
  for (int i = nv - 1; i >= 0; --i) {
    double* row = H + static_cast<size_t>(i) * nv;
    double piv = row[i];
    if (!(piv > 0)) {
      if (!clamp) return false;
      piv = kMinVal;
    }
    D[i] = piv;
    const int* p = w.pattern + t.adr[i];
    const int n = t.cnt[i];
    // H[j][k] -= H[i][j] H[i][k] / piv for k <= j in the pattern (pattern(i) below j is inside
    // pattern(j): the symbolic step guarantees it); two rows j at a time share the reads of row i
    int a = 0;
    for (; a + 1 < n; a += 2) {
      const int j1 = p[a], j2 = p[a + 1];
      const double s1 = row[j1] / piv, s2 = row[j2] / piv;
      double* r1 = H + static_cast<size_t>(j1) * nv;
      double* r2 = H + static_cast<size_t>(j2) * nv;
      for (int b = 0; b <= a; ++b) {
        const int k = p[b];
        const double x = row[k];
        r1[k] -= s1 * x;
        r2[k] -= s2 * x;
      }
      r2[j2] -= s2 * row[j2];
    }
    if (a < n) {
      const int j = p[a];
      const double s = row[j] / piv;
      double* rj = H + static_cast<size_t>(j) * nv;
      for (int b = 0; b <= a; ++b) rj[p[b]] -= s * row[p[b]];
    }
    for (int a = 0; a < n; ++a) row[p[a]] /= piv;
  }
  return true;
}

}  // namespace

namespace {

// Whether the pattern of the last symbolic step still holds every active row group: for each, its
// columns lie in {j0} + pattern(j0), j0 its largest column (then the fill of the current H is
// inside the old pattern, which is closed under elimination).
bool pattern_holds(const Data& d, const Work& w, const Layout& t) {
  for (int i = 0; i < d.nefc; i += group_rows(d, i)) {
    if (!active(d, i)) continue;
    const int n = d.efc_J_rownnz[i];
    if (n == 0) continue;
    const int* col = &d.efc_J_colind[d.efc_J_rowadr[i]];
    const int j0 = col[n - 1];
    const int* p0 = w.pattern + t.adr[j0];
    for (int k = 0, a = 0, n0 = t.cnt[j0]; k < n - 1; ++k) {
      while (a < n0 && p0[a] < col[k]) ++a;
      if (a == n0 || p0[a] != col[k]) return false;
    }
  }
  return true;
}

// Whether the stored pattern is the tree pattern of this model's M.
bool same_tree(const Model& m, const Work& w, const Layout& t) {
  if (!*w.tree_pattern) return false;
  for (int i = 0; i < m.nv; ++i)
    if (t.parent[i] != m.dof_parentid[i]) return false;
  return true;
}

}  // namespace

int hessian_factor(const Model& m, Data& d, const Work& w, bool reuse_pattern) {
  const double* J = constraint::J_values(m, d);
  const Layout t = layout(w);
  long long nnz = 0;
  // the first factorization of a solve may reuse the pattern only when it is M's tree pattern
  // (for this model: the elimination tree is the dof tree), the pattern every factorization
  // without fill has; otherwise a pattern with fill from an earlier solve would be kept
  if ((reuse_pattern || same_tree(m, w, t)) && pattern_holds(d, w, t)) {
    for (int i = 0; i < m.nv; ++i) nnz += t.cnt[i];
  } else {
    nnz = symbolic(m, d, w, t, J);
  }
  assemble(m, d, w, t, J, 0);
  if (!eliminate(m, w, t, false)) {
    // round-off made H indefinite: regularize the diagonal slightly and factor again
    assemble(m, d, w, t, J, 1e-10);
    eliminate(m, w, t, true);
  }
  return static_cast<int>(std::min<long long>(m.nv + 2 * nnz, 0x7fffffff));
}

void hessian_factor_scaled(const Model& m, Data& d, const Work& w, const double* base, const double* rowscale) {
  const double* J = constraint::J_values(m, d);
  const Layout t = layout(w);
  symbolic(m, d, w, t, J);
  assemble(m, d, w, t, J, 0, base, rowscale);
  if (!eliminate(m, w, t, false)) {
    assemble(m, d, w, t, J, 1e-10, base, rowscale);
    eliminate(m, w, t, true);
  }
}

bool hessian_update(const Model& m, const Data& d, const Work& w, int i, double sigma) {
  const Layout t = layout(w);
  const constraint::SparseRow r = constraint::row_of(d, constraint::J_values(m, d), i);
  if (r.nnz == 0) return true;
  // the row must lie inside the pattern: its columns are its largest column j0 and a subset of
  // pattern(j0) (both ascending), so that the update runs along the elimination-tree path of j0
  const int j0 = r.col[r.nnz - 1];
  const int* p0 = w.pattern + t.adr[j0];
  for (int k = 0, a = 0, n0 = t.cnt[j0]; k < r.nnz - 1; ++k) {
    while (a < n0 && p0[a] < r.col[k]) ++a;
    if (a == n0 || p0[a] != r.col[k]) return false;
  }
  // Gill, Golub, Murray and Saunders' method C1 for L D L' + sigma v v', in elimination order
  const int nv = m.nv;
  double* x = w.v[12];  // zero outside an update
  double* H = w.L;
  double* D = w.first;
  for (int k = 0; k < r.nnz; ++k) x[r.col[k]] = r.val[k];
  double alpha = sigma;
  bool ok = true;
  for (int j = j0; j >= 0; j = t.parent[j]) {
    const double pj = x[j];
    x[j] = 0;
    if (pj == 0 || !ok) continue;
    const double dbar = D[j] + alpha * pj * pj;
    if (!(dbar > kMinVal * std::fabs(D[j]) && dbar > 0)) {
      ok = false;  // a downdate lost definiteness to round-off: the caller refactors
      continue;
    }
    const double beta = pj * alpha / dbar;
    alpha *= D[j] / dbar;
    D[j] = dbar;
    double* row = H + static_cast<size_t>(j) * nv;
    const int* p = w.pattern + t.adr[j];
    for (int k = 0, n = t.cnt[j]; k < n; ++k) {
      const int c = p[k];
      x[c] -= pj * row[c];
      row[c] += beta * x[c];
    }
  }
  return ok;
}

void hessian_solve(const Model& m, const Work& w, double* x) {
  const int nv = m.nv;
  const double* H = w.L;
  const Layout t = layout(w);
  // L' y = x (from the last dof), y / D, then L x = y (from the first)
  for (int i = nv - 1; i >= 0; --i) {
    const double* row = H + static_cast<size_t>(i) * nv;
    const int* p = w.pattern + t.adr[i];
    const double xi = x[i];
    if (xi == 0) continue;
    for (int k = 0, n = t.cnt[i]; k < n; ++k) x[p[k]] -= row[p[k]] * xi;
  }
  for (int i = 0; i < nv; ++i) x[i] /= w.first[i];
  for (int i = 0; i < nv; ++i) {
    const double* row = H + static_cast<size_t>(i) * nv;
    const int* p = w.pattern + t.adr[i];
    double s = x[i];
    for (int k = 0, n = t.cnt[i]; k < n; ++k) s -= row[p[k]] * x[p[k]];
    x[i] = s;
  }
}

void hessian_solve_dofs(const Model& m, const Work& w, const int* dofs, int n, double* x) {
  const int nv = m.nv;
  const double* H = w.L;
  const Layout t = layout(w);
  for (int q = n - 1; q >= 0; --q) {
    const int i = dofs[q];
    const double* row = H + static_cast<size_t>(i) * nv;
    const int* p = w.pattern + t.adr[i];
    const double xi = x[i];
    if (xi == 0) continue;
    for (int k = 0, c = t.cnt[i]; k < c; ++k) x[p[k]] -= row[p[k]] * xi;
  }
  for (int q = 0; q < n; ++q) x[dofs[q]] /= w.first[dofs[q]];
  for (int q = 0; q < n; ++q) {
    const int i = dofs[q];
    const double* row = H + static_cast<size_t>(i) * nv;
    const int* p = w.pattern + t.adr[i];
    double s = x[i];
    for (int k = 0, c = t.cnt[i]; k < c; ++k) s -= row[p[k]] * x[p[k]];
    x[i] = s;
  }
}

}  // namespace moreau::solver

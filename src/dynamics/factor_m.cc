// Sparse L'DL factorization of the joint-space inertia (computation chapter, mj_factorM;
// Featherstone RBDA 6.5, "LTDL" algorithm), in place in the tree-sparse layout of Model::dof_Madr.
//
// M = L' D L with L unit lower triangular; L has the sparsity of M (row i: the ancestors of dof i),
// so the factorization creates no fill-in. Processing k from the last dof to the first, row k is
// scaled by 1/D_k and its outer product is subtracted from the rows of the ancestors of k.
#include <algorithm>
#include <cmath>

#include "dynamics/dynamics.h"
#include "engine/checks.h"
#include "math/simd2.h"
#include "moreau/messages.h"
#include "moreau/moreau.h"

namespace moreau {
namespace internal {

using math::load2;
using math::store2;
using math::v2d;

namespace {
inline int row_length(const Model& m, int i) {
  return (i + 1 < m.nv ? m.dof_Madr[i + 1] : m.nM) - m.dof_Madr[i];
}

// y1[s] -= a1 x[s] for s < n and y2[s] -= a2 x[s + 1] for s < n - 1 (the updates of two
// consecutive ancestors), two entries per step (each lane does the scalar operations). N > 0: n is
// N, the loop unrolled at compile time (rows are short: their length is a dof's depth in the tree).
template <int N>
inline void sub_scaled2(double* __restrict y1, double* __restrict y2, const double* __restrict x,
                        double a1, double a2, int n_) {
  const int n = N > 0 ? N : n_;
  int s = 0;
#pragma GCC unroll 8
  for (; s + 2 <= n - 1; s += 2) {
    store2(y1 + s, load2(y1 + s) - a1 * load2(x + s));
    store2(y2 + s, load2(y2 + s) - a2 * load2(x + s + 1));
  }
  // left: two entries of y1 and one of y2, or one of y1
  if (s + 2 == n) {
    store2(y1 + s, load2(y1 + s) - a1 * load2(x + s));
    y2[s] -= a2 * x[s + 1];
  } else {
    y1[s] -= a1 * x[s];
  }
}

// sub_scaled2 with the common lengths unrolled.
inline void sub_scaled2(double* __restrict y1, double* __restrict y2, const double* __restrict x,
                        double a1, double a2, int n) {
  switch (n) {
    case 1: sub_scaled2<1>(y1, y2, x, a1, a2, n); return;
    case 2: sub_scaled2<2>(y1, y2, x, a1, a2, n); return;
    case 3: sub_scaled2<3>(y1, y2, x, a1, a2, n); return;
    case 4: sub_scaled2<4>(y1, y2, x, a1, a2, n); return;
    case 5: sub_scaled2<5>(y1, y2, x, a1, a2, n); return;
    case 6: sub_scaled2<6>(y1, y2, x, a1, a2, n); return;
    case 7: sub_scaled2<7>(y1, y2, x, a1, a2, n); return;
    case 8: sub_scaled2<8>(y1, y2, x, a1, a2, n); return;
    case 9: sub_scaled2<9>(y1, y2, x, a1, a2, n); return;
    case 10: sub_scaled2<10>(y1, y2, x, a1, a2, n); return;
    default: sub_scaled2<0>(y1, y2, x, a1, a2, n); return;
  }
}
}  // namespace

void factor_ld(const Model& m, double* qld, double* diaginv, double* diagsqrtinv,
               bool simple_diagonal) {
  for (int k = m.nv - 1; k >= 0; --k) {
    if (simple_diagonal && m.dof_simplenum[k]) continue;
    const int adr_k = m.dof_Madr[k];
    const int len_k = row_length(m, k);
    double* row_k = qld + adr_k;
    const v2d Dk = {row_k[0], row_k[0]};
    // entry t of row k belongs to the t-th ancestor i of k; row i (length len_k - t) holds the
    // same ancestors as row k from position t on. Two ancestors per pass (one division for both):
    // their updates touch different rows and read only row k.
    int t = 1;
    int i = m.dof_parentid[k];
    while (i >= 0) {
      const int i2 = m.dof_parentid[i];
      if (i2 < 0) {  // the root: its row has one entry
        const double a = row_k[t] / Dk[0];
        qld[m.dof_Madr[i]] -= a * row_k[t];
        row_k[t] = a;
        break;
      }
      const v2d a = load2(row_k + t) / Dk;
      sub_scaled2(qld + m.dof_Madr[i], qld + m.dof_Madr[i2], row_k + t, a[0], a[1], len_k - t);
      store2(row_k + t, a);
      t += 2;
      i = m.dof_parentid[i2];
    }
  }
  for (int i = 0; i < m.nv; ++i) {
    const double D = qld[m.dof_Madr[i]];
    diaginv[i] = 1.0 / D;
    if (diagsqrtinv) diagsqrtinv[i] = 1.0 / std::sqrt(D);
  }
}

}  // namespace internal

void factor_m(const Model& m, Data& d) {
  internal::check_data(m, d, "factor_m");
  std::copy(d.qM.begin(), d.qM.begin() + m.nM, d.qLD.begin());
  // a (near) singular inertia: record it and keep D positive so the solves stay finite
  for (int i = 0; i < m.nv; ++i) {
    if (!(d.qM[m.dof_Madr[i]] >= kMinVal)) {
      warning(d, kWarnInertia, i);
      break;
    }
  }
  // crb leaves the off-diagonal entries of simple dofs at zero
  internal::factor_ld(m, d.qLD.data(), d.qLDiagInv.data(), d.qLDiagSqrtInv.data(), true);
}

}  // namespace moreau

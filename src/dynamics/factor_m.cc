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

namespace {
inline int row_length(const Model& m, int i) {
  return (i + 1 < m.nv ? m.dof_Madr[i + 1] : m.nM) - m.dof_Madr[i];
}

// y[s] -= a * x[s] for s < n, two entries per step (each lane does the scalar operations).
inline void sub_scaled(double* __restrict y, const double* __restrict x, double a, int n) {
  int s = 0;
  for (; s + 2 <= n; s += 2) store2(y + s, load2(y + s) - a * load2(x + s));
  if (s < n) y[s] -= a * x[s];
}
}  // namespace

void factor_ld(const Model& m, double* qld, double* diaginv, double* diagsqrtinv,
               bool simple_diagonal) {
  for (int k = m.nv - 1; k >= 0; --k) {
    if (simple_diagonal && m.dof_simplenum[k]) continue;
    const int adr_k = m.dof_Madr[k];
    const int len_k = row_length(m, k);
    const double Dk = qld[adr_k];
    // entry t of row k belongs to the t-th ancestor i of k; row i (length len_k - t) holds the
    // same ancestors as row k from position t on.
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) {
      const double a = qld[adr_k + t] / Dk;
      sub_scaled(qld + m.dof_Madr[i], qld + adr_k + t, a, len_k - t);
      qld[adr_k + t] = a;
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

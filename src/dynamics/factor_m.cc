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
#include "moreau/messages.h"
#include "moreau/moreau.h"

namespace moreau {
namespace internal {

namespace {
inline int row_length(const Model& m, int i) {
  return (i + 1 < m.nv ? m.dof_Madr[i + 1] : m.nM) - m.dof_Madr[i];
}
}  // namespace

void factor_ld(const Model& m, double* qld, double* diaginv, double* diagsqrtinv) {
  for (int k = m.nv - 1; k >= 0; --k) {
    const int adr_k = m.dof_Madr[k];
    const double Dk = qld[adr_k];
    // entry t of row k belongs to the t-th ancestor of k; row i of that ancestor continues with
    // the same ancestors as row k from position t on.
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) {
      const double a = qld[adr_k + t] / Dk;
      double* row_i = qld + m.dof_Madr[i];
      const double* row_k = qld + adr_k + t;
      const int len = row_length(m, i);
      for (int s = 0; s < len; ++s) row_i[s] -= a * row_k[s];
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
  internal::factor_ld(m, d.qLD.data(), d.qLDiagInv.data(), d.qLDiagSqrtInv.data());
}

}  // namespace moreau

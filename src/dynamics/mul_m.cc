// Products with the tree-sparse inertia M (layout of Model::dof_Madr: row i holds M(i,i) and
// M(i, a) for the ancestors a of i; M is symmetric, so each stored entry acts twice).
#include <algorithm>
#include <cstring>

#include "engine/checks.h"
#include "moreau/moreau.h"

namespace moreau {

void mul_m(const Model& m, const Data& d, double* res, const double* vec) {
  internal::check_data(m, d, "mul_m");
  internal::check_ptr(res, m.nv, "mul_m", "res");
  internal::check_ptr(vec, m.nv, "mul_m", "vec");
  const double* qM = d.qM.data();
  for (int i = 0; i < m.nv; ++i) res[i] = qM[m.dof_Madr[i]] * vec[i];
  for (int i = 0; i < m.nv; ++i) {
    const double* row = qM + m.dof_Madr[i];
    int t = 1;
    for (int j = m.dof_parentid[i]; j >= 0; j = m.dof_parentid[j], ++t) {
      res[i] += row[t] * vec[j];
      res[j] += row[t] * vec[i];
    }
  }
}

void full_m(const Model& m, const double* qM, double* dense) {
  internal::check_ptr(qM, m.nM, "full_m", "qM");
  internal::check_ptr(dense, m.nv, "full_m", "dense");
  const int nv = m.nv;
  std::fill_n(dense, nv * nv, 0.0);
  for (int i = 0; i < nv; ++i) {
    const double* row = qM + m.dof_Madr[i];
    dense[i * nv + i] = row[0];
    int t = 1;
    for (int j = m.dof_parentid[i]; j >= 0; j = m.dof_parentid[j], ++t) {
      dense[i * nv + j] = row[t];
      dense[j * nv + i] = row[t];
    }
  }
}

}  // namespace moreau

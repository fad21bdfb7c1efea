// Composite rigid body algorithm (computation chapter, stage "mj_crb"; Featherstone RBDA 6.2):
// the joint-space inertia matrix M in the tree-sparse layout of Model::dof_Madr.
//
// crb[b] = cinert[b] + sum of crb over the children of b (all in the same com frame within a tree).
// M(i, j) = cdof_j . (crb[body(i)] cdof_i) for j = i and every ancestor dof j of i; dof_armature is
// added on the diagonal. Row i of qM starts at dof_Madr[i] with M(i,i), then M(i, parent(i)), ...
// The off-diagonal entries of simple dofs (Model::dof_simplenum) are zero, so that factor_m and
// solve_m skip those rows.
#include <algorithm>

#include "engine/checks.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void crb(const Model& m, Data& d) {
  internal::check_data(m, d, "crb");
  std::copy(d.cinert.begin(), d.cinert.begin() + 10 * m.nbody, d.crb.begin());
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    if (p > 0) {
      double* cp = &d.crb[10 * p];
      const double* cb = &d.crb[10 * b];
      for (int k = 0; k < 10; k += 2) store2(cp + k, load2(cp + k) + load2(cb + k));
    }
  }

  for (int i = 0; i < m.nv; ++i) {
    double f[6];
    mul_inert_vec(f, &d.crb[10 * m.dof_bodyid[i]], &d.cdof[6 * i]);
    double* row = &d.qM[m.dof_Madr[i]];
    row[0] = dot6(&d.cdof[6 * i], f) + m.dof_armature[i];
    int k = 1;
    if (m.dof_simplenum[i]) {
      // a simple body's block of M is diagonal (as 2.2.2 stores it): the products with the other
      // dofs of the body are rounding noise of a zero and are stored as zero
      for (int j = m.dof_parentid[i]; j >= 0; j = m.dof_parentid[j]) row[k++] = 0;
      continue;
    }
    // two ancestors per pass, one in each SSE2 lane (each lane sums in dot6's order)
    const v2d f0 = {f[0], f[0]}, f1 = {f[1], f[1]}, f2 = {f[2], f[2]};
    const v2d f3 = {f[3], f[3]}, f4 = {f[4], f[4]}, f5 = {f[5], f[5]};
    int j = m.dof_parentid[i];
    while (j >= 0) {
      const int j2 = m.dof_parentid[j];
      const double* a = &d.cdof[6 * j];
      if (j2 < 0) {
        row[k] = dot6(a, f);
        break;
      }
      const double* b = &d.cdof[6 * j2];
      v2d sum = v2d{a[0], b[0]} * f0;
      sum += v2d{a[1], b[1]} * f1;
      sum += v2d{a[2], b[2]} * f2;
      sum += v2d{a[3], b[3]} * f3;
      sum += v2d{a[4], b[4]} * f4;
      sum += v2d{a[5], b[5]} * f5;
      store2(row + k, sum);
      k += 2;
      j = m.dof_parentid[j2];
    }
  }
}

}  // namespace moreau

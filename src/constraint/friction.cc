// Friction-loss rows (computation chapter, "Friction loss"): one row per dof and per tendon with
// frictionloss > 0. No position residual (efc_pos = 0); the Jacobian is the unit vector of the dof
// or the tendon's moment arm vector ten_J; efc_frictionloss bounds |force|. diagApprox: the dof's
// or tendon's inverse weight at qpos0.
#include <algorithm>
#include <cstring>

#include "constraint/storage.h"

namespace moreau::constraint {

void friction_rows(const Model& m, Data& d) {
  if (m.opt.disableflags & kDsblFrictionloss) return;
  const int nv = m.nv;
  const double one = 1;
  for (int i = 0; i < nv; ++i) {
    if (m.dof_frictionloss[i] <= 0) continue;
    if (!reserve_rows(d, 1)) return;
    const int r = add_row(m, d, kCnstrFrictionDof, i, 1, &i, &one, 0, 0, m.dof_frictionloss[i]);
    d.efc_diagApprox[r] = m.dof_invweight0[i];
  }
  for (int t = 0; t < m.ntendon; ++t) {
    if (m.tendon_frictionloss[t] <= 0) continue;
    if (!reserve_rows(d, 1)) return;
    const int r = add_row_dense(m, d, kCnstrFrictionTendon, t, d.ten_J.data() + static_cast<size_t>(t) * nv, 0,
                          0, m.tendon_frictionloss[t]);
    d.efc_diagApprox[r] = m.tendon_invweight0[t];
  }
}

}  // namespace moreau::constraint

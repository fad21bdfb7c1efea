// Limit rows (computation chapter, "Limit"): a row for each side of a limited joint or tendon
// whose distance to the limit, dist, is below the margin. dist > 0 inside the range, < 0 when
// violated; lower side: dist = x - range[0], Jacobian +dx/dq; upper side: dist = range[1] - x,
// Jacobian -dx/dq (lower first). Ball joints: the limit applies to the angle theta of the joint
// rotation's exponential map, dist = max(range) - theta, Jacobian -axis on the joint's 3 dofs.
// diagApprox: the (first) dof's or the tendon's inverse weight at qpos0.
#include <algorithm>
#include <cstring>

#include "constraint/storage.h"
#include "math/vec.h"

namespace moreau::constraint {

void limit_rows(const Model& m, Data& d) {
  if (m.opt.disableflags & kDsblLimit) return;
  const int nv = m.nv;
  double* row = carve(m, d).jac;
  for (int j = 0; j < m.njnt; ++j) {
    if (!m.jnt_limited[j]) continue;
    const int type = m.jnt_type[j], qadr = m.jnt_qposadr[j], vadr = m.jnt_dofadr[j];
    const double* range = &m.jnt_range[2 * j];
    const double margin = m.jnt_margin[j];
    if (type == kJointSlide || type == kJointHinge) {
      for (int side = -1; side <= 1; side += 2) {
        const double dist = side < 0 ? d.qpos[qadr] - range[0] : range[1] - d.qpos[qadr];
        if (dist >= margin) continue;
        if (!reserve_rows(d, 1)) return;
        const double value = -side;
        const int r = add_row(m, d, kCnstrLimitJoint, j, 1, &vadr, &value, dist, margin, 0);
        d.efc_diagApprox[r] = m.dof_invweight0[vadr];
      }
    } else if (type == kJointBall) {
      double v[3];
      math::quat2vel(v, &d.qpos[qadr], 1);
      const double angle = math::normalize3(v);
      const double dist = std::max(range[0], range[1]) - angle;
      if (dist >= margin) continue;
      if (!reserve_rows(d, 1)) return;
      const int cols[3] = {vadr, vadr + 1, vadr + 2};
      const double vals[3] = {-v[0], -v[1], -v[2]};
      const int r = add_row(m, d, kCnstrLimitJoint, j, 3, cols, vals, dist, margin, 0);
      d.efc_diagApprox[r] = m.dof_invweight0[vadr];
    }
  }
  for (int t = 0; t < m.ntendon; ++t) {
    if (!m.tendon_limited[t]) continue;
    const double* range = &m.tendon_range[2 * t];
    const double margin = m.tendon_margin[t];
    const double len = d.ten_length[t];
    const double* J = d.ten_J.data() + static_cast<size_t>(t) * nv;
    for (int side = -1; side <= 1; side += 2) {
      const double dist = side < 0 ? len - range[0] : range[1] - len;
      if (dist >= margin) continue;
      if (!reserve_rows(d, 1)) return;
      for (int k = 0; k < nv; ++k) row[k] = -side * J[k];
      const int r = add_row_dense(m, d, kCnstrLimitTendon, t, row, dist, margin, 0);
      d.efc_diagApprox[r] = m.tendon_invweight0[t];
    }
  }
}

}  // namespace moreau::constraint

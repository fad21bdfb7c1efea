// Passive forces (computation chapter, "Passive forces", mj_passive): qfrc_passive =
//   joint springs   -k (q - qpos_spring) for hinge/slide; for ball (and the rotational part of free)
//                   joints the spring acts on the rotation vector from qpos_spring to q (local
//                   frame); the free joint's position part is a linear spring on the position;
//   joint dampers   -b qvel per dof;
//   gravity compensation (body_gravcomp, newer than MuJoCo 2.2.2): a force -gravcomp * mass * gravity
//                   at each body's com, mapped to joint space through the com Jacobian.
//   tendon springs and dampers (tendon_passive, through ten_J);
//   fluid forces (fluid_forces, inertia-box model) when opt.density or opt.viscosity > 0.
// The whole stage is skipped when the passive disable flag is set.
#include <algorithm>

#include "dynamics/fluid.h"
#include "engine/checks.h"
#include "kinematics/jacobian.h"
#include "math/vec.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void passive(const Model& m, Data& d) {
  internal::check_data(m, d, "passive");
  std::fill(d.qfrc_passive.begin(), d.qfrc_passive.begin() + m.nv, 0.0);
  if (m.opt.disableflags & kDsblPassive) return;

  for (int j = 0; j < m.njnt; ++j) {
    const double k = m.jnt_stiffness[j];
    if (k == 0) continue;
    int qadr = m.jnt_qposadr[j];
    int vadr = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case kJointFree:
        for (int c = 0; c < 3; ++c) d.qfrc_passive[vadr + c] -= k * (d.qpos[qadr + c] - m.qpos_spring[qadr + c]);
        qadr += 3;
        vadr += 3;
        [[fallthrough]];
      case kJointBall: {
        double q[4], dif[3];
        copy4(q, &d.qpos[qadr]);
        normalize4(q);
        subquat(dif, q, &m.qpos_spring[qadr]);
        for (int c = 0; c < 3; ++c) d.qfrc_passive[vadr + c] -= k * dif[c];
        break;
      }
      default:
        d.qfrc_passive[vadr] -= k * (d.qpos[qadr] - m.qpos_spring[qadr]);
        break;
    }
  }

  for (int i = 0; i < m.nv; ++i) d.qfrc_passive[i] -= m.dof_damping[i] * d.qvel[i];

  if (!(m.opt.disableflags & kDsblGravity) && !m.body_gravcomp.empty()) {
    for (int b = 1; b < m.nbody; ++b) {
      const double gc = m.body_gravcomp[b];
      if (gc == 0) continue;
      double force[3];
      scl3(force, m.opt.gravity, -gc * m.body_mass[b]);
      const double torque[3] = {0, 0, 0};
      internal::apply_ft(m, d, force, torque, &d.xipos[3 * b], b, d.qfrc_passive.data());
    }
  }

  tendon_passive(m, d);  // tendon springs and dampers through ten_J
  if (m.opt.density > 0 || m.opt.viscosity > 0) fluid_forces(m, d);
  if (d.passive_callback) d.passive_callback(m, d);  // the user's passive forces, last
}

}  // namespace moreau

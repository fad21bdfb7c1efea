// Energy (computation chapter, mj_energyPos / mj_energyVel; computed when the energy enable flag
// is on): energy[0] = potential = gravitational (-sum m_b gravity . xipos_b) + joint springs
// (0.5 k |q - qpos_spring|^2, ball/free rotations through the rotation vector); energy[1] =
// kinetic = 0.5 qvel' M qvel.
#include "dynamics/dynamics.h"
#include "engine/checks.h"
#include "math/vec.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void energy_pos(const Model& m, Data& d) {
  internal::check_data(m, d, "energy_pos");
  double E = 0;
  if (!(m.opt.disableflags & kDsblGravity))
    for (int b = 1; b < m.nbody; ++b) E -= m.body_mass[b] * dot3(m.opt.gravity, &d.xipos[3 * b]);

  if (!(m.opt.disableflags & kDsblPassive)) {
    for (int j = 0; j < m.njnt; ++j) {
      const double k = m.jnt_stiffness[j];
      if (k == 0) continue;
      int qadr = m.jnt_qposadr[j];
      switch (m.jnt_type[j]) {
        case kJointFree: {
          double dp[3];
          sub3(dp, &d.qpos[qadr], &m.qpos_spring[qadr]);
          E += 0.5 * k * dot3(dp, dp);
          qadr += 3;
          [[fallthrough]];
        }
        case kJointBall: {
          double q[4], dif[3];
          copy4(q, &d.qpos[qadr]);
          normalize4(q);
          subquat(dif, q, &m.qpos_spring[qadr]);
          E += 0.5 * k * dot3(dif, dif);
          break;
        }
        default: {
          const double dq = d.qpos[qadr] - m.qpos_spring[qadr];
          E += 0.5 * k * dq * dq;
          break;
        }
      }
    }
    E += tendon_energy(m, d);
  }
  d.energy[0] = E;
}

void energy_vel(const Model& m, Data& d) {
  internal::check_data(m, d, "energy_vel");
  double* Mv = internal::dynamics_work(d);
  mul_m(m, d, Mv, d.qvel.data());
  double E = 0;
  for (int i = 0; i < m.nv; ++i) E += d.qvel[i] * Mv[i];
  d.energy[1] = 0.5 * E;
}

}  // namespace moreau

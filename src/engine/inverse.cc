// Inverse dynamics (computation chapter, "Simulation pipeline", inverse dynamics): given qpos, qvel
// and qacc, the generalized force that produces qacc,
//   qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint,
// i.e. the sum of the applied and actuation forces (qfrc_applied + qfrc_actuator + J' xfrc_applied)
// that forward dynamics would need. RNE with qacc gives (M - armature) qacc + bias; the armature
// (not part of the body inertias) is added separately.
#include <algorithm>

#include "engine/internal.h"
#include "moreau/moreau.h"

namespace moreau {

void inverse(const Model& m, Data& d) {
  internal::StageTimer timer(d, kTimerInverse);
  fwd_position(m, d);
  if (m.opt.enableflags & kEnblEnergy) energy_pos(m, d);
  fwd_velocity(m, d);
  if (m.opt.enableflags & kEnblEnergy) energy_vel(m, d);
  // PLUG-IN (issue 4): inverse constraint forces (analytic, from qacc) into qfrc_constraint.
  std::fill(d.qfrc_constraint.begin(), d.qfrc_constraint.end(), 0.0);
  rne(m, d, true, d.qfrc_inverse.data());
  for (int i = 0; i < m.nv; ++i)
    d.qfrc_inverse[i] += m.dof_armature[i] * d.qacc[i] - d.qfrc_passive[i] - d.qfrc_constraint[i];
}

}  // namespace moreau

// Inverse dynamics (computation chapter, "Simulation pipeline", inverse dynamics): given qpos, qvel
// and qacc, the generalized force that produces qacc,
//   qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint,
// i.e. the sum of the applied and actuation forces (qfrc_applied + qfrc_actuator + J' xfrc_applied)
// that forward dynamics would need. RNE with qacc gives (M - armature) qacc + bias; the armature
// (not part of the body inertias) is added separately.
//
// invdiscrete (enable flag; newer than MuJoCo 2.2.2, computation chapter "Inverse dynamics"): qacc is
// then the discrete-time acceleration of the integrator, (qvel_next - qvel)/h. For Euler with
// implicit joint damping B that acceleration solves (M + hB) qacc_d = f while the continuous one
// solves M qacc_c = f, so qacc_c = qacc_d + h M^-1 B qacc_d; the inverse runs on qacc_c and the
// caller's qacc is restored afterwards. RK4 needs no conversion (as documented). The implicit
// integrators (invdiscrete disables their midpoint integration) solve (M - hD) qacc_d = f.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/checks.h"
#include "engine/internal.h"
#include "engine/messages.h"
#include "integrator/integrator.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {
void inverse_stages(const Model& m, Data& d, int skipstage, bool skip_sensor);
}  // namespace

void inverse(const Model& m, Data& d) {
  const internal::CheckedCall checked(m, d, "inverse");
  inverse_stages(m, d, kStageNone, false);
}

void inverse_skip(const Model& m, Data& d, int skipstage, bool skip_sensor) {
  const internal::CheckedCall checked(m, d, "inverse_skip");
  if (skipstage != kStageNone && skipstage != kStagePos && skipstage != kStageVel)
    internal::raise<std::invalid_argument>("inverse_skip: skipstage " + std::to_string(skipstage) +
                                           " is not kStageNone (0), kStagePos (1) or kStageVel (2)");
  inverse_stages(m, d, skipstage, skip_sensor);
}

namespace {
void inverse_stages(const Model& m, Data& d, int skipstage, bool skip_sensor) {
  internal::StageTimer timer(d, kTimerInverse);
  if (skipstage < kStagePos) {
    fwd_position(m, d);
    if (!skip_sensor) sensor_pos(m, d);
    if (m.opt.enableflags & kEnblEnergy) energy_pos(m, d);
  }
  if (skipstage < kStageVel) {
    fwd_velocity(m, d);
    if (!skip_sensor) sensor_vel(m, d);
    if (m.opt.enableflags & kEnblEnergy) energy_vel(m, d);
  }

  const int nv = m.nv;
  double* qacc_discrete = nullptr;
  if ((m.opt.enableflags & kEnblInvdiscrete) &&
      (m.opt.integrator == kIntImplicit || m.opt.integrator == kIntImplicitFast)) {
    // (M - hD) qacc_d = f, M qacc_c = f: qacc_c = qacc_d - h M^-1 D qacc_d (D of the integrator)
    qacc_discrete = internal::integrator_temp(d);
    std::copy_n(d.qacc.begin(), nv, qacc_discrete);
    internal::implicit_discrete_to_continuous(m, d, qacc_discrete, d.qacc.data());
  } else if ((m.opt.enableflags & kEnblInvdiscrete) && m.opt.integrator != kIntRK4) {
    if (m.opt.integrator != kIntEuler)
      internal::raise<std::runtime_error>("inverse: invdiscrete with integrator " + std::to_string(m.opt.integrator) +
                                          " is not supported");
    bool damped = false;
    for (int i = 0; i < nv; ++i) damped = damped || m.dof_damping[i] > 0;
    if (damped) {
      qacc_discrete = internal::integrator_temp(d);
      double* tmp = qacc_discrete + nv;
      std::copy_n(d.qacc.begin(), nv, qacc_discrete);
      for (int i = 0; i < nv; ++i) tmp[i] = m.dof_damping[i] * qacc_discrete[i];
      solve_m(m, d, tmp, 1);
      for (int i = 0; i < nv; ++i) d.qacc[i] = qacc_discrete[i] + m.opt.timestep * tmp[i];
    }
  }

  inverse_constraint(m, d);  // efc_force and qfrc_constraint from qacc (analytic soft inverse)
  rne(m, d, true, d.qfrc_inverse.data());
  for (int i = 0; i < nv; ++i)
    d.qfrc_inverse[i] += m.dof_armature[i] * d.qacc[i] - d.qfrc_passive[i] - d.qfrc_constraint[i];
  if (!skip_sensor) internal::acceleration_sensors(m, d);

  if (qacc_discrete) std::copy_n(qacc_discrete, nv, d.qacc.begin());
}
}  // namespace

}  // namespace moreau

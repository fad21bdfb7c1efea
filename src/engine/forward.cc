// Forward dynamics (computation chapter, "Simulation pipeline", stages 2..22): everything but the
// integration, ending with qacc. Each stage is a free function in its own file; this file only
// lists them in order.
#include <algorithm>

#include "engine/internal.h"
#include "moreau/moreau.h"

namespace moreau {

void fwd_position(const Model& m, Data& d) {
  internal::StageTimer timer(d, kTimerPosition);
  {
    internal::StageTimer t(d, kTimerPosKinematics);
    kinematics(m, d);
    com_pos(m, d);
    camlight(m, d);
    // PLUG-IN (issue 5): tendon lengths and moment arms (ten_length, ten_J).
  }
  {
    internal::StageTimer t(d, kTimerPosInertia);
    crb(m, d);
    factor_m(m, d);
  }
  {
    internal::StageTimer t(d, kTimerPosCollision);
    collision(m, d);  // issue 3: fills d.contact[0..ncon)
  }
  // PLUG-IN (issue 4): constraint assembly (make_constraint, project_constraint). Until it lands
  // there are no rows:
  d.ne = d.nf = d.nefc = 0;
  // PLUG-IN (issue 5): actuator transmission (actuator_length, actuator_moment).
}

void fwd_velocity(const Model& m, Data& d) {
  internal::StageTimer timer(d, kTimerVelocity);
  // PLUG-IN (issue 5): actuator_velocity = actuator_moment * qvel, ten_velocity = ten_J * qvel.
  com_vel(m, d);
  passive(m, d);
  // PLUG-IN (issue 4): reference constraint acceleration (efc_vel, efc_aref).
  rne(m, d, false, d.qfrc_bias.data());
}

void fwd_actuation(const Model& m, Data& d) {
  internal::StageTimer timer(d, kTimerActuation);
  // A bad control (NaN, Inf, |ctrl| > 1e10) is reported with its index and all controls are
  // zeroed, so that it cannot propagate into the state (simulation chapter, diagnostics).
  for (int i = 0; i < m.nu; ++i) {
    if (internal::is_bad(d.ctrl[i])) {
      d.warning[kWarnBadCtrl].lastinfo = i;
      d.warning[kWarnBadCtrl].number++;
      std::fill(d.ctrl.begin(), d.ctrl.end(), 0.0);
      break;
    }
  }
  // PLUG-IN (issue 5): actuator dynamics, gains and biases. Until then no actuator produces force
  // and activations do not change (this is the real stage, not a stub: its outputs are defined).
  std::fill(d.actuator_force.begin(), d.actuator_force.end(), 0.0);
  std::fill(d.qfrc_actuator.begin(), d.qfrc_actuator.end(), 0.0);
  std::fill(d.act_dot.begin(), d.act_dot.end(), 0.0);
}

// qacc_smooth = M^-1 qfrc_smooth, qfrc_smooth = passive - bias + applied + actuator + J' xfrc.
void fwd_acceleration(const Model& m, Data& d) {
  internal::StageTimer timer(d, kTimerAcceleration);
  for (int i = 0; i < m.nv; ++i)
    d.qfrc_smooth[i] = d.qfrc_passive[i] - d.qfrc_bias[i] + d.qfrc_applied[i] + d.qfrc_actuator[i];
  internal::xfrc_accumulate(m, d, d.qfrc_smooth.data());
  std::copy_n(d.qfrc_smooth.begin(), m.nv, d.qacc_smooth.begin());
  solve_m(m, d, d.qacc_smooth.data(), 1);
}

void fwd_constraint(const Model& m, Data& d) {
  internal::StageTimer timer(d, kTimerConstraint);
  // PLUG-IN (issue 4): the constraint solver computes qfrc_constraint and qacc from qacc_smooth and
  // the constraint rows. Until it lands there are no rows (nefc = 0), so the constrained
  // acceleration is the smooth one.
  std::fill(d.qfrc_constraint.begin(), d.qfrc_constraint.end(), 0.0);
  std::copy_n(d.qacc_smooth.begin(), m.nv, d.qacc.begin());
}

namespace internal {

void forward_skip(const Model& m, Data& d, bool skip_sensor) {
  StageTimer timer(d, kTimerForward);
  fwd_position(m, d);
  // PLUG-IN (sensors): position-stage sensors unless skip_sensor.
  if (!skip_sensor && (m.opt.enableflags & kEnblEnergy)) energy_pos(m, d);
  fwd_velocity(m, d);
  // PLUG-IN (sensors): velocity-stage sensors unless skip_sensor.
  if (!skip_sensor && (m.opt.enableflags & kEnblEnergy)) energy_vel(m, d);
  fwd_actuation(m, d);
  fwd_acceleration(m, d);
  fwd_constraint(m, d);
  // PLUG-IN (sensors): acceleration-stage sensors unless skip_sensor.
}

}  // namespace internal

void forward(const Model& m, Data& d) { internal::forward_skip(m, d, false); }

}  // namespace moreau

// Forward dynamics (computation chapter, "Simulation pipeline", stages 2..22): everything but the
// integration, ending with qacc. Each stage is a free function in its own file; this file only
// lists them in order.
#include <algorithm>

#include "engine/checks.h"
#include "engine/internal.h"
#include "kinematics/jacobian.h"
#include "moreau/actuation.h"
#include "moreau/messages.h"
#include "moreau/moreau.h"

namespace moreau {

void fwd_position(const Model& m, Data& d) {
  internal::check_data(m, d, "fwd_position");
  internal::StageTimer timer(d, kTimerPosition);
  {
    internal::StageTimer t(d, kTimerPosKinematics);
    kinematics(m, d);
    com_pos(m, d);
    camlight(m, d);
    tendon(m, d);  // ten_length, ten_J, wrap paths
  }
  {
    internal::StageTimer t(d, kTimerPosInertia);
    crb(m, d);
    factor_m(m, d);
  }
  {
    internal::StageTimer t(d, kTimerPosCollision);
    collision(m, d);  // fills d.contact[0..ncon)
  }
  {
    internal::StageTimer t(d, kTimerPosMake);
    make_constraint(m, d);  // efc_J, efc_pos, impedance and R of every row
  }
  transmission(m, d);  // actuator_length, actuator_moment (adhesion reads the contacts)
}

void fwd_velocity(const Model& m, Data& d) {
  internal::check_data(m, d, "fwd_velocity");
  internal::StageTimer timer(d, kTimerVelocity);
  tendon_actuator_velocity(m, d);  // ten_velocity, actuator_velocity
  com_vel(m, d);
  passive(m, d);
  reference_constraint(m, d);  // efc_vel, efc_aref
  rne(m, d, false, d.qfrc_bias.data());
}

void fwd_actuation(const Model& m, Data& d) {
  internal::check_data(m, d, "fwd_actuation");
  internal::StageTimer timer(d, kTimerActuation);
  // A bad control (NaN, Inf, |ctrl| > 1e10) is reported with its index and all controls are
  // zeroed, so that it cannot propagate into the state (simulation chapter, diagnostics).
  for (int i = 0; i < m.nu; ++i) {
    if (internal::is_bad(d.ctrl[i])) {
      warning(d, kWarnBadCtrl, i);
      std::fill(d.ctrl.begin(), d.ctrl.end(), 0.0);
      break;
    }
  }
  actuation_force(m, d);  // actuator_force, qfrc_actuator, act_dot
}

// qacc_smooth = M^-1 qfrc_smooth, qfrc_smooth = passive - bias + applied + actuator + J' xfrc.
void fwd_acceleration(const Model& m, Data& d) {
  internal::check_data(m, d, "fwd_acceleration");
  internal::StageTimer timer(d, kTimerAcceleration);
  for (int i = 0; i < m.nv; ++i)
    d.qfrc_smooth[i] = d.qfrc_passive[i] - d.qfrc_bias[i] + d.qfrc_applied[i] + d.qfrc_actuator[i];
  internal::xfrc_accumulate(m, d, d.qfrc_smooth.data());
  std::copy_n(d.qfrc_smooth.begin(), m.nv, d.qacc_smooth.begin());
  solve_m(m, d, d.qacc_smooth.data(), 1);
}

void fwd_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "fwd_constraint");
  internal::StageTimer timer(d, kTimerConstraint);
  solve_constraint(m, d);  // efc_force, qfrc_constraint, qacc (= qacc_smooth without rows)
}

namespace internal {

void forward_skip(const Model& m, Data& d, bool skip_sensor) {
  internal::forward_skip(m, d, kStageNone, skip_sensor);
}

void forward_skip(const Model& m, Data& d, int skipstage, bool skip_sensor) {
  StageTimer timer(d, kTimerForward);
  if (skipstage < kStagePos) {
    fwd_position(m, d);
    if (!skip_sensor) sensor_pos(m, d);
    if (!skip_sensor && (m.opt.enableflags & kEnblEnergy)) energy_pos(m, d);
  }
  if (skipstage < kStageVel) {
    fwd_velocity(m, d);
    if (!skip_sensor) sensor_vel(m, d);
    if (!skip_sensor && (m.opt.enableflags & kEnblEnergy)) energy_vel(m, d);
  }
  // the control callback: after everything that depends on the state only (simulation chapter)
  if (d.control_callback) d.control_callback(m, d);
  fwd_actuation(m, d);
  fwd_acceleration(m, d);
  fwd_constraint(m, d);
  if (!skip_sensor) acceleration_sensors(m, d);
}

void acceleration_sensors(const Model& m, Data& d) {
  // Accelerometers, force/torque and frame acceleration sensors read the post-constraint RNE.
  if (sensor_acc_needs_rne_post(m)) rne_post_constraint(m, d);
  sensor_acc(m, d);
}

}  // namespace internal

void forward(const Model& m, Data& d) {
  const internal::CheckedCall checked(m, d, "forward");
  internal::forward_skip(m, d, false);
}

}  // namespace moreau

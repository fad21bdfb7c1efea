// Actuator force generation and activation dynamics (computation chapter, "Actuation model";
// mj_fwdActuation). For each actuator: clamp the control (ctrlrange, unless clampctrl is disabled),
// compute the activation rate act_dot from the dynamics type, then the force
//   p = gain(l, v) * input + bias(l, v),
// input = control for stateless actuators, activation otherwise (the next activation with
// actearly), clamped to forcerange when forcelimited. qfrc_actuator = moment' p.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "actuation/muscle.h"
#include "engine/checks.h"
#include "moreau/actuation.h"

namespace moreau {

namespace {
// Activation after a step of h (see next_activation), without the id check.
inline double next_act(const Model& m, int u, double act, double act_dot, double h) {
  const double* prm = &m.actuator_dynprm[kNDYN * u];
  double next;
  if (m.actuator_dyntype[u] == kDynFilterExact) {
    // Exact integral of da/dt = (ctrl - a)/tau over h with ctrl constant:
    // a(h) = a + (ctrl - a)(1 - exp(-h/tau)) = a + act_dot tau (1 - exp(-h/tau)).
    const double tau = std::max(kMinVal, prm[0]);
    next = act + act_dot * tau * (1 - std::exp(-h / tau));
  } else {
    next = act + act_dot * h;
  }
  if (m.actuator_actlimited.size() > static_cast<size_t>(u) && m.actuator_actlimited[u]) {
    next = std::clamp(next, m.actuator_actrange[2 * u], m.actuator_actrange[2 * u + 1]);
  }
  return next;
}
}  // namespace

double next_activation(const Model& m, int u, double act, double act_dot, double h) {
  internal::check_id("next_activation", "actuator", u, m.nu);
  return next_act(m, u, act, act_dot, h);
}

void actuation_force(const Model& m, Data& d) {
  internal::check_data(m, d, "actuation_force");
  const int nv = m.nv;
  std::fill(d.qfrc_actuator.begin(), d.qfrc_actuator.end(), 0.0);
  if (m.nu == 0) return;
  if (m.opt.disableflags & kDsblActuation) {
    std::fill(d.actuator_force.begin(), d.actuator_force.end(), 0.0);
    std::fill(d.act_dot.begin(), d.act_dot.end(), 0.0);
    return;
  }
  const bool clamp_ctrl = !(m.opt.disableflags & kDsblClampctrl);
  const int nu = m.nu, stateless = m.nu - m.na;
  const double h = m.opt.timestep;
  // Models from 2.2.2's layout may lack actadr/actearly: the stateful actuators are the last na.
  const int* actadr = m.actuator_actadr.empty() ? nullptr : m.actuator_actadr.data();
  const uint8_t* actearly =
      m.actuator_actearly.size() >= static_cast<size_t>(nu) ? m.actuator_actearly.data() : nullptr;
  // The arrays read or written for every actuator, as local pointers so that their loads leave the
  // loop (the user callbacks inside it receive m and d, and must not resize d's arrays).
  const double* ctrl_in = d.ctrl.data();
  const double* act_in = d.act.data();
  const uint8_t* ctrllimited = m.actuator_ctrllimited.data();
  const double* ctrlrange = m.actuator_ctrlrange.data();
  const uint8_t* forcelimited = m.actuator_forcelimited.data();
  const double* forcerange = m.actuator_forcerange.data();
  const int* dyntypes = m.actuator_dyntype.data();
  const int* gaintype = m.actuator_gaintype.data();
  const int* biastype = m.actuator_biastype.data();
  const double* dynprms = m.actuator_dynprm.data();
  const double* gainprms = m.actuator_gainprm.data();
  const double* biasprms = m.actuator_biasprm.data();
  const double* lengths = d.actuator_length.data();
  const double* velocities = d.actuator_velocity.data();
  const double* moments = d.actuator_moment.data();
  const int* span = d.actuator_moment_span.data();
  double* act_dots = d.act_dot.data();
  double* forces = d.actuator_force.data();
  double* qfrc = d.qfrc_actuator.data();
  for (int u = 0; u < nu; ++u) {
    double ctrl = ctrl_in[u];
    if (clamp_ctrl && ctrllimited[u]) ctrl = std::clamp(ctrl, ctrlrange[2 * u], ctrlrange[2 * u + 1]);

    // Activation dynamics.
    const int dyntype = dyntypes[u];
    const int adr = actadr ? actadr[u] : (dyntype == kDynNone ? -1 : u - stateless);
    double input = ctrl;
    if (adr >= 0) {
      const double* dynprm = dynprms + kNDYN * u;
      const double act = act_in[adr];
      double act_dot = 0;
      switch (dyntype) {
        case kDynIntegrator:
          act_dot = ctrl;
          break;
        case kDynFilter:
        case kDynFilterExact:
          act_dot = (ctrl - act) / std::max(kMinVal, dynprm[0]);
          break;
        case kDynMuscle:
          act_dot = muscle_detail::dynamics(ctrl, act, dynprm);
          break;
        case kDynUser:
          if (d.act_dyn_callback) act_dot = d.act_dyn_callback(m, d, u);
          break;
        default:
          break;
      }
      act_dots[adr] = act_dot;
      input = actearly && actearly[u] ? next_act(m, u, act, act_dot, h) : act;
    }

    // Gain and bias.
    const double len = lengths[u], vel = velocities[u];
    const double* gainprm = gainprms + kNGAIN * u;
    const double* biasprm = biasprms + kNBIAS * u;
    double gain = 0, bias = 0;
    switch (gaintype[u]) {
      case kGainFixed:
        gain = gainprm[0];
        break;
      case kGainAffine:
        gain = gainprm[0] + gainprm[1] * len + gainprm[2] * vel;
        break;
      case kGainMuscle:
        gain = muscle_detail::gain(len, vel, &m.actuator_lengthrange[2 * u], m.actuator_acc0[u], gainprm);
        break;
      case kGainUser:
        gain = d.act_gain_callback ? d.act_gain_callback(m, d, u) : 1.0;
        break;
      default:
        break;
    }
    switch (biastype[u]) {
      case kBiasAffine:
        bias = biasprm[0] + biasprm[1] * len + biasprm[2] * vel;
        break;
      case kBiasMuscle:
        bias = muscle_detail::bias(len, &m.actuator_lengthrange[2 * u], m.actuator_acc0[u], biasprm);
        break;
      case kBiasUser:
        if (d.act_bias_callback) bias = d.act_bias_callback(m, d, u);
        break;
      default:
        break;
    }
    double force = gain * input + bias;
    if (forcelimited[u]) force = std::clamp(force, forcerange[2 * u], forcerange[2 * u + 1]);
    forces[u] = force;

    if (force == 0) continue;
    const double* moment = moments + static_cast<size_t>(u) * nv;
    for (int i = span[2 * u]; i < span[2 * u + 1]; ++i)
      qfrc[i] += moment[i] * force;  // the row is zero outside its span
  }
}

}  // namespace moreau

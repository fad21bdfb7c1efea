// Actuator length ranges (MJCF reference, compiler/lengthrange; programming guide, "Length range").
//
// For the actuators selected by the mode (default: muscles, i.e. muscle gain or bias), the compiler
// sets actuator_lengthrange unless the model already gives a valid range (useexisting) or the
// transmission's joint/tendon is limited and uselimit is on. Otherwise the range comes from two
// short simulations starting at qpos0, with actuation, passive forces and gravity disabled: a force along the actuator's moment pushes the actuator
// towards the short end (side 0) and towards the long end (side 1). The force is scaled so that the
// joint-space acceleration it produces, M^-1 J', has norm `accel` (capped at `maxforce` when that is
// positive); velocities are damped with time constant `timeconst`; the model's dynamics run with
// timestep `timestep` for `inttotal` seconds, and the extreme actuator length seen during the last
// `interval` seconds is the range end. Not implemented: the tolrange convergence check (no error is
// raised when the length still moves during the last interval) and reading the options from MJCF
// (the defaults are used).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "compiler/lengthrange.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {


namespace {

bool selected(const Model& m, int u, int mode) {
  const bool muscle = m.actuator_gaintype[u] == kGainMuscle || m.actuator_biastype[u] == kBiasMuscle;
  const bool user = m.actuator_gaintype[u] == kGainUser || m.actuator_biastype[u] == kBiasUser;
  switch (mode) {
    case 1: return muscle;
    case 2: return muscle || user;
    case 3: return true;
    default: return false;
  }
}

// The range from the transmission's limit, if it has one.
bool range_from_limit(const Model& m, int u, double* lr) {
  const int id = m.actuator_trnid[2 * u];
  const double gear = m.actuator_gear[6 * u];
  const int trn = m.actuator_trntype[u];
  const double* range = nullptr;
  if ((trn == kTrnJoint || trn == kTrnJointInParent) && m.jnt_limited[id] &&
      (m.jnt_type[id] == kJointHinge || m.jnt_type[id] == kJointSlide))
    range = &m.jnt_range[2 * id];
  else if (trn == kTrnTendon && m.tendon_limited[id])
    range = &m.tendon_range[2 * id];
  if (!range) return false;
  lr[0] = std::min(gear * range[0], gear * range[1]);
  lr[1] = std::max(gear * range[0], gear * range[1]);
  return true;
}

void simulate_range(const Model& mc, Data& d, int u, const LengthRangeOptions& opt, double* lr) {
  const int nv = mc.nv;
  std::vector<double> x(std::max(nv, 1));
  const double damp = std::exp(-mc.opt.timestep / std::max(0.01, opt.timeconst));
  for (int side = 0; side < 2; ++side) {
    reset_data(mc, d);
    double lmin = std::numeric_limits<double>::infinity(), lmax = -lmin;
    while (d.time < opt.inttotal) {
      for (int i = 0; i < nv; ++i) d.qvel[i] *= damp;
      fwd_position(mc, d);
      const double* moment = d.actuator_moment.data() + static_cast<size_t>(u) * nv;
      std::copy(moment, moment + nv, x.begin());
      solve_m(mc, d, x.data());
      double nrm = 0;
      for (int i = 0; i < nv; ++i) nrm += x[i] * x[i];
      nrm = std::sqrt(nrm);
      const double s = (side ? 1.0 : -1.0) * opt.accel / std::max(kMinVal, nrm);
      for (int i = 0; i < nv; ++i) d.qfrc_applied[i] = s * moment[i];
      if (opt.maxforce > 0) {
        double f = 0;
        for (int i = 0; i < nv; ++i) f += d.qfrc_applied[i] * d.qfrc_applied[i];
        f = std::sqrt(f);
        if (f > opt.maxforce)
          for (int i = 0; i < nv; ++i) d.qfrc_applied[i] *= opt.maxforce / f;
      }
      step(mc, d);
      if (d.time >= opt.inttotal - opt.interval) {
        lmin = std::min(lmin, d.actuator_length[u]);
        lmax = std::max(lmax, d.actuator_length[u]);
      }
    }
    lr[side] = side ? lmax : lmin;
  }
}

}  // namespace

void set_lengthrange(Model& m, const LengthRangeOptions& opt) {
  if (opt.mode == 0) return;
  Model mc;
  bool have_copy = false;
  Data d;
  for (int u = 0; u < m.nu; ++u) {
    if (!selected(m, u, opt.mode)) continue;
    double* lr = &m.actuator_lengthrange[2 * u];
    if (opt.useexisting && lr[0] < lr[1]) continue;
    if (opt.uselimit && range_from_limit(m, u, lr)) continue;
    if (!have_copy) {
      mc = m;
      if (opt.timestep > 0) mc.opt.timestep = opt.timestep;
      // Only the pushing force drives the model: actuators, passive forces (springs, dampers,
      // fluid) and gravity are off (matches MuJoCo 2.2.2's ranges to ~1e-12).
      mc.opt.disableflags |= kDsblActuation | kDsblPassive | kDsblGravity;
      d = make_data(mc);
      have_copy = true;
    }
    simulate_range(mc, d, u, opt, lr);
  }
}

void set_lengthrange(Model& m) { set_lengthrange(m, LengthRangeOptions{}); }

}  // namespace moreau

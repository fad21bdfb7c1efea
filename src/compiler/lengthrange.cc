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
// `inteval` seconds is the range end. The range must be valid (lower < upper) and converged: on each
// side the length moves by at most `tolrange` times the range during the evaluation interval;
// otherwise the model is refused (as 2.2.2 does). Unlike 2.2.2, a simulation longer than
// kMaxSteps steps per side, or one that diverges (the step resets the state), refuses the model
// with an error rather than running without end.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <vector>

#include "compiler/lengthrange.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {

using mjcf::LengthRangeOptions;

namespace {

// 100 times the default simulation (inttotal 10 s at timestep 0.01 s).
constexpr double kMaxSteps = 1e5;

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

// The range from the transmission's limit, if it has one: the joint's or tendon's range, copied
// as it is (not scaled by the gear), as the MJCF reference says and 2.2.2 does at index 0. (2.2.2
// reads the transmission id of actuator u from actuator_trnid[u] instead of [2u], so for u > 0 it
// looks at the wrong joint or tendon; Moreau follows the documented meaning.)
bool range_from_limit(const Model& m, int u, double* lr) {
  const int id = m.actuator_trnid[2 * u];
  const int trn = m.actuator_trntype[u];
  const double* range = nullptr;
  if ((trn == kTrnJoint || trn == kTrnJointInParent) && m.jnt_limited[id] &&
      (m.jnt_type[id] == kJointHinge || m.jnt_type[id] == kJointSlide))
    range = &m.jnt_range[2 * id];
  else if (trn == kTrnTendon && m.tendon_limited[id])
    range = &m.tendon_range[2 * id];
  if (!range) return false;
  lr[0] = range[0];
  lr[1] = range[1];
  return true;
}

// Simulates both sides; lr receives the range, spread[side] the variation of the length during
// that side's evaluation interval. Returns false when the simulation diverges.
bool simulate_range(const Model& mc, Data& d, int u, const LengthRangeOptions& opt, double* lr, double* spread) {
  const int nv = mc.nv;
  std::vector<double> x(std::max(nv, 1));
  const double damp = std::exp(-mc.opt.timestep / std::max(0.01, opt.timeconst));
  for (int side = 0; side < 2; ++side) {
    reset_data(mc, d);
    double lmin = std::numeric_limits<double>::infinity(), lmax = -lmin;
    // The step count also bounds the loop when time stops advancing (a step too small for d.time).
    for (double n = 0; d.time < opt.inttotal && n < kMaxSteps + 2; ++n) {
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
      if (d.warning[kWarnBadQpos].number || d.warning[kWarnBadQvel].number || d.warning[kWarnBadQacc].number)
        return false;
      // The length of the step's starting state, recorded when the step ends inside the
      // evaluation interval (strictly: as 2.2.2, whose window is empty when inteval is 0 and the
      // last step ends exactly at inttotal).
      if (d.time > opt.inttotal - opt.inteval) {
        lmin = std::min(lmin, d.actuator_length[u]);
        lmax = std::max(lmax, d.actuator_length[u]);
      }
    }
    if (lmin > lmax) lmin = lmax = 0;  // nothing recorded: the range stays (0, 0), as in 2.2.2
    lr[side] = side ? lmax : lmin;
    spread[side] = lmax - lmin;
  }
  return true;
}

}  // namespace

int set_lengthrange(Model& m, const LengthRangeOptions& opt, std::string* error) {
  if (opt.mode == 0) return -1;
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
      const double steps = opt.inttotal / mc.opt.timestep;
      if (!(steps <= kMaxSteps)) {
        if (error) {
          char buf[300];
          std::snprintf(buf, sizeof(buf),
                        "actuator length range: compiler/lengthrange asks for %g simulation steps per side "
                        "(inttotal %g s at timestep %g s), more than the limit of %g",
                        steps, opt.inttotal, mc.opt.timestep, kMaxSteps);
          *error = buf;
        }
        return u;
      }
      // Only the pushing force drives the model: actuators, passive forces (springs, dampers,
      // fluid) and gravity are off (matches MuJoCo 2.2.2's ranges to ~1e-12).
      mc.opt.disableflags |= kDsblActuation | kDsblPassive | kDsblGravity;
      d = make_data(mc);
      have_copy = true;
    }
    double spread[2];
    if (!simulate_range(mc, d, u, opt, lr, spread)) {
      if (error)
        *error = "actuator length range: the simulation that computes it diverged (bad qpos, qvel or qacc); check "
                 "compiler/lengthrange (accel, maxforce, timeconst, timestep)";
      return u;
    }
    if (!(lr[0] < lr[1])) {
      if (error) {
        char buf[200];
        std::snprintf(buf, sizeof(buf),
                      "actuator length range computed by simulation is invalid: (%g, %g); check compiler/lengthrange "
                      "(accel, inttotal, inteval)", lr[0], lr[1]);
        *error = buf;
      }
      return u;
    }
    // Converged: during the evaluation interval each side's length moves by at most tolrange
    // times the range (MuJoCo 2.2.2's criterion, found by bisection on tolrange).
    const double range = lr[1] - lr[0];
    for (int side = 0; side < 2; ++side)
      if (spread[side] > opt.tolrange * range) {
        if (error) {
          char buf[400];
          std::snprintf(buf, sizeof(buf),
                        "actuator length range did not converge: on the %s side the length still moved by %g "
                        "during the last %g s of the simulation, %.3g of the range (%g, %g); compiler/lengthrange "
                        "tolrange is %g",
                        side ? "long" : "short", spread[side], opt.inteval, spread[side] / range, lr[0], lr[1],
                        opt.tolrange);
          *error = buf;
        }
        return u;
      }
  }
  return -1;
}

}  // namespace moreau

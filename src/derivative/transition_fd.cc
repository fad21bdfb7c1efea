// Finite-difference transition Jacobians of step (computation chapter, "Derivatives": mjd_transitionFD).
//
// x = (qpos in the tangent space, qvel, act), u = ctrl; x_next = step(x, u), y = sensordata of x.
// Column j of [A; C] (or [B; D]) is (f(x + eps e_j) - f(x)) / eps, or centered
// (f(x + eps e_j) - f(x - eps e_j)) / (2 eps). A position perturbation is qpos <- integrate_pos(qpos,
// eps e_j, 1) and next positions are compared with differentiate_pos, so quaternions stay unit and
// the Jacobian is in the tangent space.
//
// Stages: every perturbed step starts from the saved state and warmstart. The pipeline stages the
// perturbation does not change are skipped (simulation chapter, mj_forwardSkip): activations and
// controls start at the actuation stage (skip position and velocity), velocities at the velocity
// stage. This is valid because the nominal step and the steps after it leave the position and
// velocity results of the nominal state in d (the integrators only write the state and their own
// work space), and the perturbations are ordered so: nominal, act/ctrl, qvel, qpos. RK4 runs the
// whole pipeline at its inner stages, so with RK4 nothing is skipped. Before a skipped step the
// nominal sensordata is put back, so the sensors of skipped stages keep their nominal values.
//
// Controls: a ctrllimited control (clampctrl enabled) is differenced on the side that stays inside
// ctrlrange (forward, else backward; centered only when both sides are inside), so that a control at
// its limit gets the one-sided derivative instead of zero (as MuJoCo 2.2.2 measured).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "derivative/work.h"
#include "engine/checks.h"
#include "engine/pipeline.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {

struct Saved {
  double time;
  double *qpos, *qvel, *act, *ctrl, *warm;  // the state
  double* qposn;  // qpos with its quaternions normalized, as the position stage leaves it
  double *nqpos, *nqvel, *nact, *nsens;     // nominal outputs
  double *pqpos, *pqvel, *pact, *psens;     // outputs of the + perturbation (centered)
  double *dq, *col;                         // tangent vector; one column of differences
};

Saved carve(const Model& m, Data& d) {
  const int nq = m.nq, nv = m.nv, na = m.na, nu = m.nu, ns = m.nsensordata;
  double* p = d.work.fd.data();
  Saved s{};
  auto take = [&](int n) { double* r = p; p += n; return r; };
  s.qpos = take(nq), s.qvel = take(nv), s.act = take(na), s.ctrl = take(nu), s.warm = take(nv);
  s.qposn = take(nq);
  s.nqpos = take(nq), s.nqvel = take(nv), s.nact = take(na), s.nsens = take(ns);
  s.pqpos = take(nq), s.pqvel = take(nv), s.pact = take(na), s.psens = take(ns);
  s.dq = take(nv), s.col = take(2 * nv + na + ns);
  return s;
}

void restore(const Model& m, Data& d, const Saved& s) {
  d.time = s.time;
  std::copy_n(s.qpos, m.nq, d.qpos.begin());
  std::copy_n(s.qvel, m.nv, d.qvel.begin());
  std::copy_n(s.act, m.na, d.act.begin());
  std::copy_n(s.ctrl, m.nu, d.ctrl.begin());
  std::copy_n(s.warm, m.nv, d.qacc_warmstart.begin());
}

// Output of the current (stepped) d: next state and sensors.
void output(const Model& m, const Data& d, double* qpos, double* qvel, double* act, double* sens) {
  std::copy_n(d.qpos.begin(), m.nq, qpos);
  std::copy_n(d.qvel.begin(), m.nv, qvel);
  std::copy_n(d.act.begin(), m.na, act);
  std::copy_n(d.sensordata.begin(), m.nsensordata, sens);
}

// col = (f_plus - f_minus) / scale as (dq, dv, da, dsensor), positions on the manifold.
void difference(const Model& m, double* col, const double* qpos_p, const double* qvel_p, const double* act_p,
                const double* sens_p, const double* qpos_m, const double* qvel_m, const double* act_m,
                const double* sens_m, double scale) {
  const int nv = m.nv, na = m.na;
  differentiate_pos(m, col, scale, qpos_m, qpos_p);
  for (int i = 0; i < nv; ++i) col[nv + i] = (qvel_p[i] - qvel_m[i]) / scale;
  for (int i = 0; i < na; ++i) col[2 * nv + i] = (act_p[i] - act_m[i]) / scale;
  for (int i = 0; i < m.nsensordata; ++i) col[2 * nv + na + i] = (sens_p[i] - sens_m[i]) / scale;
}

// Scatter a column into the row-major state block X (ndx rows) and sensor block Y at column j.
void scatter(const Model& m, const double* col, double* X, double* Y, int ncol, int j) {
  const int ndx = 2 * m.nv + m.na;
  if (X)
    for (int i = 0; i < ndx; ++i) X[static_cast<size_t>(i) * ncol + j] = col[i];
  if (Y)
    for (int i = 0; i < m.nsensordata; ++i) Y[static_cast<size_t>(i) * ncol + j] = col[ndx + i];
}

enum class Side { kCentered, kForward, kBackward, kNone };

}  // namespace

void transition_fd(const Model& m, Data& d, double eps, bool centered, double* A, double* B, double* C,
                   double* D) {
  internal::check_data(m, d, "transition_fd");
  if (!(eps > 0) || !std::isfinite(eps)) internal::throw_invalid("transition_fd", "eps must be a positive finite number");
  const int nv = m.nv, na = m.na, nu = m.nu, ndx = 2 * nv + na;
  const bool sensors = (C || D) && m.nsensordata > 0;
  const bool skip_sensor = !sensors;
  const bool rk4 = m.opt.integrator == kIntRK4;
  Saved s = carve(m, d);

  s.time = d.time;
  std::copy_n(d.qpos.begin(), m.nq, s.qpos);
  std::copy_n(d.qvel.begin(), nv, s.qvel);
  std::copy_n(d.act.begin(), na, s.act);
  std::copy_n(d.ctrl.begin(), nu, s.ctrl);
  std::copy_n(d.qacc_warmstart.begin(), nv, s.warm);
  // Kinematics normalizes the quaternions of qpos in place, and normalizing a unit quaternion can
  // change its last bit: a step that skips the position stage starts from the normalized qpos, so
  // that it integrates exactly what the whole pipeline would.
  std::copy_n(s.qpos, m.nq, s.qposn);
  normalize_quat(m, s.qposn);

  // nominal step (the whole pipeline: it also leaves the nominal position/velocity results in d)
  internal::step_skip(m, d, kStageNone, skip_sensor);
  output(m, d, s.nqpos, s.nqvel, s.nact, s.nsens);

  // One perturbed evaluation: restore, perturb by sign*eps, step with skipped stages. The result stays
  // in d; with `keep` it is also copied to the + buffers.
  auto evaluate = [&](auto perturb, double sign, int skip, bool keep) {
    restore(m, d, s);
    if (skip != kStageNone && !rk4) std::copy_n(s.qposn, m.nq, d.qpos.begin());
    if (skip != kStageNone && sensors) std::copy_n(s.nsens, m.nsensordata, d.sensordata.begin());
    perturb(sign * eps);
    internal::step_skip(m, d, rk4 ? kStageNone : skip, skip_sensor);
    if (keep) output(m, d, s.pqpos, s.pqvel, s.pact, s.psens);
  };
  const double *qpos = d.qpos.data(), *qvel = d.qvel.data(), *act = d.act.data(), *sens = d.sensordata.data();
  // Column of a perturbation, by forward, backward or centered differences, into s.col.
  auto column = [&](auto perturb, Side side, int skip) {
    switch (side) {
      case Side::kNone:
        std::fill_n(s.col, ndx + m.nsensordata, 0.0);
        return;
      case Side::kCentered:
        evaluate(perturb, +1, skip, true);
        evaluate(perturb, -1, skip, false);
        difference(m, s.col, s.pqpos, s.pqvel, s.pact, s.psens, qpos, qvel, act, sens, 2 * eps);
        return;
      case Side::kForward:
        evaluate(perturb, +1, skip, false);
        difference(m, s.col, qpos, qvel, act, sens, s.nqpos, s.nqvel, s.nact, s.nsens, eps);
        return;
      case Side::kBackward:
        evaluate(perturb, -1, skip, false);
        difference(m, s.col, s.nqpos, s.nqvel, s.nact, s.nsens, qpos, qvel, act, sens, eps);
        return;
    }
  };
  const Side plain = centered ? Side::kCentered : Side::kForward;

  // controls (B, D): from the actuation stage
  if (B || D) {
    const bool clamp = !(m.opt.disableflags & kDsblClampctrl);
    for (int j = 0; j < nu; ++j) {
      Side side = plain;
      if (clamp && m.actuator_ctrllimited[j]) {
        const double lo = m.actuator_ctrlrange[2 * j], hi = m.actuator_ctrlrange[2 * j + 1];
        const bool up = s.ctrl[j] + eps <= hi, down = s.ctrl[j] - eps >= lo;
        if (centered && up && down)
          side = Side::kCentered;
        else if (up)
          side = Side::kForward;
        else if (down)
          side = Side::kBackward;
        else
          side = Side::kNone;  // a range narrower than eps, or the control outside it: no change
      }
      column([&](double e) { d.ctrl[j] += e; }, side, kStageVel);
      scatter(m, s.col, B, D, nu, j);
    }
  }

  if (A || C) {
    // activations: from the actuation stage
    for (int j = 0; j < na; ++j) {
      column([&](double e) { d.act[j] += e; }, plain, kStageVel);
      scatter(m, s.col, A, C, ndx, 2 * nv + j);
    }
    // velocities: from the velocity stage
    for (int j = 0; j < nv; ++j) {
      column([&](double e) { d.qvel[j] += e; }, plain, kStagePos);
      scatter(m, s.col, A, C, ndx, nv + j);
    }
    // positions on the manifold: the whole pipeline
    for (int j = 0; j < nv; ++j) {
      column(
          [&](double e) {
            std::fill_n(s.dq, nv, 0.0);
            s.dq[j] = 1;
            integrate_pos(m, d.qpos.data(), s.dq, e);
          },
          plain, kStageNone);
      scatter(m, s.col, A, C, ndx, j);
    }
  }

  restore(m, d, s);
}

}  // namespace moreau

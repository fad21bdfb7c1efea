// Classic 4th-order Runge-Kutta (computation chapter, "Numerical integration"), with the Butcher
// tableau
//     0  |
//    1/2 | 1/2
//    1/2 |  0   1/2
//     1  |  0    0    1
//    ----+--------------------
//        | 1/6  1/3  1/3  1/6
// applied to the state (qpos, qvel, act) with derivative (qvel, qacc, act_dot). Positions are
// integrated on the manifold: stage i starts from qpos0 integrated with sum_j a_ij qvel_j.
// Stage 0 uses the forward dynamics already computed by step(); stages 1..3 run forward dynamics
// without the optional computations (sensors).
//
// Storage (Data::work.integrator, sized by make_data; integrator.h): the initial state, the stage
// velocities, accelerations and activation rates.
#include <algorithm>

#include "integrator/integrator.h"
#include "moreau/moreau.h"

namespace moreau::internal {

namespace {
constexpr double kA[3] = {0.5, 0.5, 1.0};  // a_{i,i-1}: the tableau's only non-zeros below the diagonal
constexpr double kB[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
constexpr double kC[3] = {0.5, 0.5, 1.0};
}  // namespace

void runge_kutta4(const Model& m, Data& d) {
  const int nq = m.nq, nv = m.nv, na = m.na;
  const double h = m.opt.timestep;
  const double time0 = d.time;
  const Rk4Work w = rk4_work(m, d);
  std::copy_n(d.qpos.begin(), nq, w.qpos0);
  std::copy_n(d.qvel.begin(), nv, w.qvel0);
  std::copy_n(d.act.begin(), na, w.act0);

  auto save_stage = [&](int i) {
    std::copy_n(d.qvel.begin(), nv, w.vel + i * nv);
    std::copy_n(d.qacc.begin(), nv, w.acc + i * nv);
    std::copy_n(d.act_dot.begin(), na, w.actdot + i * na);
  };
  save_stage(0);

  for (int i = 1; i < 4; ++i) {
    const double a = kA[i - 1];
    const double* acc = w.acc + (i - 1) * nv;
    const double* actdot = w.actdot + (i - 1) * na;
    // X_i = X_0 + h a_{i,i-1} F_{i-1}
    std::copy_n(w.qpos0, nq, d.qpos.begin());
    integrate_pos(m, d.qpos.data(), w.vel + (i - 1) * nv, a * h);
    for (int k = 0; k < nv; ++k) d.qvel[k] = w.qvel0[k] + a * h * acc[k];
    for (int k = 0; k < na; ++k) d.act[k] = w.act0[k] + a * h * actdot[k];
    d.time = time0 + kC[i - 1] * h;
    moreau::forward_skip(m, d, kStageNone, true);  // the public entry: forward dynamics without sensors
    save_stage(i);
  }

  // weighted derivative, then one step from the initial state
  double* dvel = integrator_temp(d);
  double* dacc = dvel + nv;
  double* dact = dacc + nv;
  const double* vel = w.vel;
  const double* acc = w.acc;
  const double* actdot = w.actdot;
  for (int k = 0; k < nv; ++k) {
    dvel[k] = kB[0] * vel[k] + kB[1] * vel[nv + k] + kB[2] * vel[2 * nv + k] + kB[3] * vel[3 * nv + k];
    dacc[k] = kB[0] * acc[k] + kB[1] * acc[nv + k] + kB[2] * acc[2 * nv + k] + kB[3] * acc[3 * nv + k];
  }
  for (int k = 0; k < na; ++k)
    dact[k] = kB[0] * actdot[k] + kB[1] * actdot[na + k] + kB[2] * actdot[2 * na + k] +
              kB[3] * actdot[3 * na + k];

  std::copy_n(w.qpos0, nq, d.qpos.begin());
  std::copy_n(w.qvel0, nv, d.qvel.begin());
  std::copy_n(w.act0, na, d.act.begin());
  d.time = time0;
  advance(m, d, dact, dacc, dvel);
}

}  // namespace moreau::internal

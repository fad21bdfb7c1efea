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
// Storage (allocated by make_data): rk_qpos0/rk_qvel0/rk_act0 the initial state, rk_dqvel[i] and
// rk_dact[i] the stage accelerations and activation rates, rk_dqpos (4*nv) the stage velocities.
#include <algorithm>

#include "engine/internal.h"
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
  std::copy_n(d.qpos.begin(), nq, d.rk_qpos0.begin());
  std::copy_n(d.qvel.begin(), nv, d.rk_qvel0.begin());
  std::copy_n(d.act.begin(), na, d.rk_act0.begin());

  double* vel = d.rk_dqpos.data();  // stage velocities, 4 x nv
  auto save_stage = [&](int i) {
    std::copy_n(d.qvel.begin(), nv, vel + i * nv);
    std::copy_n(d.qacc.begin(), nv, d.rk_dqvel[i].begin());
    std::copy_n(d.act_dot.begin(), na, d.rk_dact[i].begin());
  };
  save_stage(0);

  for (int i = 1; i < 4; ++i) {
    const double a = kA[i - 1];
    // X_i = X_0 + h a_{i,i-1} F_{i-1}
    std::copy_n(d.rk_qpos0.begin(), nq, d.qpos.begin());
    integrate_pos(m, d.qpos.data(), vel + (i - 1) * nv, a * h);
    for (int k = 0; k < nv; ++k) d.qvel[k] = d.rk_qvel0[k] + a * h * d.rk_dqvel[i - 1][k];
    for (int k = 0; k < na; ++k) d.act[k] = d.rk_act0[k] + a * h * d.rk_dact[i - 1][k];
    d.time = time0 + kC[i - 1] * h;
    forward_skip(m, d, true);
    save_stage(i);
  }

  // weighted derivative, then one step from the initial state
  double* dvel = scratch_integrator(m, d);
  double* dacc = dvel + nv;
  double* dact = dacc + nv;
  for (int k = 0; k < nv; ++k) {
    dvel[k] = kB[0] * vel[k] + kB[1] * vel[nv + k] + kB[2] * vel[2 * nv + k] + kB[3] * vel[3 * nv + k];
    dacc[k] = kB[0] * d.rk_dqvel[0][k] + kB[1] * d.rk_dqvel[1][k] + kB[2] * d.rk_dqvel[2][k] +
              kB[3] * d.rk_dqvel[3][k];
  }
  for (int k = 0; k < na; ++k)
    dact[k] = kB[0] * d.rk_dact[0][k] + kB[1] * d.rk_dact[1][k] + kB[2] * d.rk_dact[2][k] +
              kB[3] * d.rk_dact[3][k];

  std::copy_n(d.rk_qpos0.begin(), nq, d.qpos.begin());
  std::copy_n(d.rk_qvel0.begin(), nv, d.qvel.begin());
  std::copy_n(d.rk_act0.begin(), na, d.act.begin());
  d.time = time0;
  advance(m, d, dact, dacc, dvel);
}

}  // namespace moreau::internal

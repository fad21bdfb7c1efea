// Differential rollouts against MuJoCo 2.2.2: 200 steps with semi-implicit Euler (implicit joint
// damping), with RK4 and with implicit, from the same random state, compared after every step.
// Constraints and actuation are disabled on both sides (other suites compare them); passive forces are on (joint
// springs and dampers; tendon springs/dampers stripped, see strip_unimplemented).
//
// Error measure: max_rel_err (infinity norm of the difference over the infinity norm of MuJoCo's
// array, floored at 1e-6) of qpos and qvel at each step.
// Two comparisons per model and integrator:
//  - synchronized ("step by step"): before every step Moreau's state is set to MuJoCo's, so each of
//    the 200 steps is compared on its own; bound 1e-9 at every step.
//  - free-running: both engines integrate on their own from the same initial state. Bound 1e-9
//    over the first 10 steps and 1e-6 up to 200 steps: unconstrained multibody systems are chaotic
//    (a humanoid tumbling with random joint velocities), and explicit RK4 on stiffly damped light
//    links is unstable at some models' timesteps (reacher.xml: the difference grows ~4x per step
//    from 1e-15), so last-bit differences in the order of floating-point operations grow
//    exponentially with the number of steps. 1e-6 is still far below any modelling difference,
//    which shows up at O(1) within a step or two (the synchronized comparison catches those).
//    Where MuJoCo's own trajectory is that sensitive, the bound is widened to 1000x MuJoCo's own
//    sensitivity: a second MuJoCo run from the same state with qvel perturbed by 1e-13 (relative)
//    measures how far rounding-size differences carry by each step; Moreau's difference from
//    MuJoCo must stay within max(bound, 1000 * that spread).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "differential/known_differences.h"
#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

constexpr int kSteps = 200;
constexpr int kEarlySteps = 10;
constexpr double kTolEarly = 1e-9;
constexpr double kTolLate = 1e-6;
constexpr double kUnstable = 1e4;

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

class DynamicsRollout : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    MOREAU_REQUIRE_MODEL(resolve_model_path(GetParam()));
    std::string err;
    mj_ = load_mujoco(resolve_model_path(GetParam()), &err);
    if (!mj_) GTEST_SKIP() << "MuJoCo 2.2.2 does not load " << GetParam() << ": " << err;
    strip_unimplemented(mj_.get());
  }

  // Ours from MuJoCo's model; with the implicit integrator our invdiscrete flag turns off the midpoint
  // integration of free bodies, which 2.2.2 does not have.
  Model bridge(mjModel* M) {
    Model m = model_from_mujoco(M);
    if (M->opt.integrator == mjINT_IMPLICIT) m.opt.enableflags |= kEnblInvdiscrete;
    return m;
  }
  // 2.2.2's implicit integrator works on dense nv x nv matrices on its stack (measured peak 10-14 nv^2
  // on humanoid100 and hammock); particle.xml (nv 3000) overflows it even with 5e7 doubles.
  bool make_stack_room(mjModel* M, int integrator) {
    if (integrator != mjINT_IMPLICIT) return true;
    if (M->nv > 1000) return false;
    M->nstack = std::max(M->nstack, 20 * M->nv * M->nv + 100000);
    return true;
  }
  static const char* name(int integrator) {
    return integrator == mjINT_RK4 ? "rk4" : integrator == mjINT_IMPLICIT ? "implicit" : "euler";
  }

  // Each step from MuJoCo's state: compares one step at a time, for `steps` steps.
  void synchronized_rollout(int integrator, int steps = kSteps) {
    mjModel* M = mj_.get();
    M->opt.disableflags = mjDSBL_CONSTRAINT | mjDSBL_ACTUATION;
    M->opt.enableflags = 0;
    M->opt.integrator = integrator;
    if (!make_stack_room(M, integrator)) GTEST_SKIP() << "2.2.2's dense implicit overflows its stack at nv " << M->nv;
    MjDataPtr D(mj_makeData(M));
    const Model m = bridge(M);
    Data d = make_data(m);
    std::mt19937_64 rng(99);
    random_qpos(M, rng, D->qpos, 0.3);
    random_qvel(M, rng, D->qvel, 0.5);
    double worst = 0;
    int compared = 0;
    for (int s = 1; s <= steps; ++s) {
      double vmax = 0;
      for (int i = 0; i < m.nv; ++i) vmax = std::max(vmax, std::abs(D->qvel[i]));
      if (vmax > kUnstable) break;  // blown up: see the free-running test
      std::copy_n(D->qpos, m.nq, d.qpos.begin());
      std::copy_n(D->qvel, m.nv, d.qvel.begin());
      std::copy_n(D->act, m.na, d.act.begin());
      d.time = D->time;
      mj_step(M, D.get());
      step(m, d);
      ++compared;
      const double e = std::max(max_rel_err(d.qpos.data(), D->qpos, m.nq),
                                max_rel_err(d.qvel.data(), D->qvel, m.nv));
      worst = std::max(worst, e);
      ASSERT_LE(e, kTolEarly) << "step " << s;
      if (D->warning[mjWARN_BADQPOS].number + D->warning[mjWARN_BADQVEL].number +
              D->warning[mjWARN_BADQACC].number > 0)
        break;
    }
    std::printf("[ synchronized %s %s ] %d steps, max err %.3g\n", name(integrator), GetParam().c_str(), compared,
                worst);
  }

  void rollout(int integrator) {
    mjModel* M = mj_.get();
    M->opt.disableflags = mjDSBL_CONSTRAINT | mjDSBL_ACTUATION;
    M->opt.enableflags = 0;
    M->opt.integrator = integrator;
    if (!make_stack_room(M, integrator)) GTEST_SKIP() << "2.2.2's dense implicit overflows its stack at nv " << M->nv;
    MjDataPtr D(mj_makeData(M));
    MjDataPtr P(mj_makeData(M));  // perturbed MuJoCo run: MuJoCo's own sensitivity
    const Model m = bridge(M);
    Data d = make_data(m);

    std::mt19937_64 rng(4242);
    random_qpos(M, rng, D->qpos, 0.3);
    random_qvel(M, rng, D->qvel, 0.5);
    std::copy_n(D->qpos, m.nq, d.qpos.begin());
    std::copy_n(D->qvel, m.nv, d.qvel.begin());
    std::copy_n(D->qpos, m.nq, P->qpos);
    for (int i = 0; i < m.nv; ++i) P->qvel[i] = D->qvel[i] * (1 + 1e-13) + 1e-13;

    double worst_early = 0, worst = 0;
    int compared = 0;
    for (int s = 1; s <= kSteps; ++s) {
      // An explicit integrator on a stiff model (strong damping or springs on light bodies at the
      // model's timestep) is numerically unstable: the state grows by orders of magnitude per step,
      // amplifying last-bit rounding differences just as fast (loop.xml: 1e-30 -> 1e-10 in three
      // steps after a reset). Once MuJoCo's state has blown up (|qvel| > 1e4) or MuJoCo has
      // detected divergence, the remaining steps compare amplified rounding noise, so stop there.
      double vmax = 0;
      for (int i = 0; i < m.nv; ++i) vmax = std::max(vmax, std::abs(D->qvel[i]));
      if (vmax > kUnstable) break;

      mj_step(M, D.get());
      mj_step(M, P.get());
      step(m, d);
      ++compared;
      const double e = std::max(max_rel_err(d.qpos.data(), D->qpos, m.nq),
                                max_rel_err(d.qvel.data(), D->qvel, m.nv));
      const double spread = std::max(max_rel_err(P->qpos, D->qpos, m.nq), max_rel_err(P->qvel, D->qvel, m.nv));
      if (s <= kEarlySteps) worst_early = std::max(worst_early, e);
      worst = std::max(worst, e);
      ASSERT_LE(e, std::max(s <= kEarlySteps ? kTolEarly : kTolLate, 1000 * spread))
          << "step " << s << ", MuJoCo's own spread " << spread;
      ASSERT_NEAR(d.time, D->time, 1e-12) << "step " << s;
      // divergence detection and reset happen at the same step on both sides
      ASSERT_EQ(d.warning[kWarnBadQpos].number, D->warning[mjWARN_BADQPOS].number) << "step " << s;
      ASSERT_EQ(d.warning[kWarnBadQvel].number, D->warning[mjWARN_BADQVEL].number) << "step " << s;
      ASSERT_EQ(d.warning[kWarnBadQacc].number, D->warning[mjWARN_BADQACC].number) << "step " << s;
      if (D->warning[mjWARN_BADQPOS].number + D->warning[mjWARN_BADQVEL].number +
              D->warning[mjWARN_BADQACC].number > 0)
        break;
    }
    std::printf("[ rollout %s %s ] first %d steps %.3g, all %d compared steps %.3g\n", name(integrator),
                GetParam().c_str(), kEarlySteps, worst_early, compared, worst);
  }

  MjModelPtr mj_;
};

TEST_P(DynamicsRollout, Euler) { rollout(mjINT_EULER); }

// step1 + step2 (controls could be set in between) against mj_step1 + mj_step2, 50 steps, Euler.
TEST_P(DynamicsRollout, Step1Step2) {
  mjModel* M = mj_.get();
  M->opt.disableflags = mjDSBL_CONSTRAINT | mjDSBL_ACTUATION;
  M->opt.enableflags = 0;
  M->opt.integrator = mjINT_EULER;
  MjDataPtr D(mj_makeData(M));
  const Model m = model_from_mujoco(M);
  Data d = make_data(m);
  std::mt19937_64 rng(7);
  random_qpos(M, rng, D->qpos, 0.3);
  random_qvel(M, rng, D->qvel, 0.5);
  std::copy_n(D->qpos, m.nq, d.qpos.begin());
  std::copy_n(D->qvel, m.nv, d.qvel.begin());
  for (int s = 1; s <= 50; ++s) {
    double vmax = 0;
    for (int i = 0; i < m.nv; ++i) vmax = std::max(vmax, std::abs(D->qvel[i]));
    if (vmax > kUnstable) break;
    mj_step1(M, D.get());
    step1(m, d);
    ASSERT_LE(max_rel_err(d.qfrc_bias.data(), D->qfrc_bias, m.nv), kTolEarly) << "step " << s;
    mj_step2(M, D.get());
    step2(m, d);
    const double e = std::max(max_rel_err(d.qpos.data(), D->qpos, m.nq), max_rel_err(d.qvel.data(), D->qvel, m.nv));
    ASSERT_LE(e, s <= kEarlySteps ? kTolEarly : kTolLate) << "step " << s;
    if (D->warning[mjWARN_BADQPOS].number + D->warning[mjWARN_BADQVEL].number + D->warning[mjWARN_BADQACC].number > 0)
      break;
  }
}
TEST_P(DynamicsRollout, RK4) { rollout(mjINT_RK4); }
// implicit: 2.2.2's mj_implicit, D with joint damping, inertia-box fluid forces and RNE
// derivatives (constraints and actuation disabled as above; actuators, tendon damping and qDeriv itself
// are compared in ImplicitDeriv). One case runs both comparisons so that the model is loaded once.
// 2.2.2's implicit is dense, O(nv^3) per step (5 ms at humanoid100 by its changelog), so the cost is
// bounded: 200 synchronized steps up to nv 200 (20 above: the 8 large scenes), the free-running
// rollout (two more MuJoCo runs) up to nv 100.
TEST_P(DynamicsRollout, Implicit) {
  if (const char* why = known_difference("DynamicsRolloutImplicit", GetParam())) GTEST_SKIP() << "known difference: " << why;
  const int nv = mj_->nv;
  synchronized_rollout(mjINT_IMPLICIT, nv <= 200 ? kSteps : 20);
  if (HasFatalFailure() || IsSkipped() || nv > 100) return;
  rollout(mjINT_IMPLICIT);
}
TEST_P(DynamicsRollout, EulerSynchronized) { synchronized_rollout(mjINT_EULER); }
TEST_P(DynamicsRollout, RK4Synchronized) { synchronized_rollout(mjINT_RK4); }

INSTANTIATE_TEST_SUITE_P(Models, DynamicsRollout, ::testing::ValuesIn(model_list()), test_name);

}  // namespace
}  // namespace moreau::testing

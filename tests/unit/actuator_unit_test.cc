// Unit tests of actuators, no MuJoCo: muscle curves at their documented points,
// activation dynamics against the exact solution of the ODE over one step, control/force/
// activation clamping, gain/bias force model, transmissions (moment arms against finite
// differences of the actuator length, slider-crank against its closed form, site wrench).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

void position_velocity(const Model& m, Data& d) {
  kinematics(m, d);
  com_pos(m, d);
  tendon(m, d);
  transmission(m, d);
  tendon_actuator_velocity(m, d);
}

TEST(Muscle, CurvesAtDocumentedPoints) {
  const double lmin = 0.5, lmax = 1.6, vmax = 1.5, fpmax = 1.3, fvmax = 1.2;
  (void)vmax;
  // Active force-length: 1 at the optimum, 0 at and beyond lmin/lmax, 1/2 at the midpoints.
  EXPECT_EQ(muscle_fl(1.0, lmin, lmax), 1.0);
  EXPECT_EQ(muscle_fl(lmin, lmin, lmax), 0.0);
  EXPECT_EQ(muscle_fl(lmax, lmin, lmax), 0.0);
  EXPECT_EQ(muscle_fl(0.3, lmin, lmax), 0.0);
  EXPECT_EQ(muscle_fl(2.0, lmin, lmax), 0.0);
  EXPECT_NEAR(muscle_fl(0.5 * (lmin + 1), lmin, lmax), 0.5, 1e-15);
  EXPECT_NEAR(muscle_fl(0.5 * (1 + lmax), lmin, lmax), 0.5, 1e-15);
  // Force-velocity: 0 at V <= -1 (maximal shortening), 1 isometric, fvmax when lengthening fast.
  EXPECT_EQ(muscle_fv(-1.0, fvmax), 0.0);
  EXPECT_EQ(muscle_fv(-2.0, fvmax), 0.0);
  EXPECT_EQ(muscle_fv(0.0, fvmax), 1.0);
  EXPECT_NEAR(muscle_fv(-0.5, fvmax), 0.25, 1e-15);
  EXPECT_NEAR(muscle_fv(fvmax - 1, fvmax), fvmax, 1e-15);
  EXPECT_EQ(muscle_fv(5.0, fvmax), fvmax);
  // Passive: 0 up to the optimum, fpmax/2 at b = (1+lmax)/2, then linear with slope fpmax/(b-1).
  const double b = 0.5 * (1 + lmax);
  EXPECT_EQ(muscle_fp(1.0, lmax, fpmax), 0.0);
  EXPECT_EQ(muscle_fp(0.7, lmax, fpmax), 0.0);
  EXPECT_NEAR(muscle_fp(b, lmax, fpmax), 0.5 * fpmax, 1e-15);
  EXPECT_NEAR(muscle_fp(2 * b - 1, lmax, fpmax), 1.5 * fpmax, 1e-14);
  // Continuity at the breakpoints.
  for (double L : {0.5 * (lmin + 1), 1.0, b})
    EXPECT_NEAR(muscle_fl(L - 1e-9, lmin, lmax), muscle_fl(L + 1e-9, lmin, lmax), 1e-8);
  EXPECT_NEAR(muscle_fp(b - 1e-9, lmax, fpmax), muscle_fp(b + 1e-9, lmax, fpmax), 1e-8);
  // Scaling: length range [0.1, 0.3] maps onto range [0.75, 1.05]; force = -scale/acc0 when force < 0.
  const double prm[10] = {0.75, 1.05, -1, 200, lmin, lmax, 1.5, fpmax, fvmax, 0};
  const double lr[2] = {0.1, 0.3};
  const double L0 = 0.2 / 0.3;
  const double len = 0.1 + (1.0 - 0.75) * L0;  // optimal length
  EXPECT_NEAR(muscle_gain(len, 0, lr, 0.5, prm), -400, 1e-10);
  EXPECT_NEAR(muscle_bias(len, lr, 0.5, prm), 0, 1e-12);
  const double prmF[10] = {0.75, 1.05, 50, 200, lmin, lmax, 1.5, fpmax, fvmax, 0};
  EXPECT_NEAR(muscle_gain(len, -0.5 * L0 * 1.5, lr, 0.5, prmF), -50 * 0.25, 1e-10);
}

TEST(Muscle, ActivationTimeConstants) {
  const double prm[3] = {0.01, 0.04, 0};
  // Activating: tau = tau_act (0.5 + 1.5 a); deactivating: tau = tau_deact / (0.5 + 1.5 a).
  EXPECT_NEAR(muscle_dynamics(1.0, 0.2, prm), 0.8 / (0.01 * (0.5 + 0.3)), 1e-10);
  EXPECT_NEAR(muscle_dynamics(0.0, 0.2, prm), -0.2 / (0.04 / (0.5 + 0.3)), 1e-10);
  // Control clamped to [0, 1].
  EXPECT_EQ(muscle_dynamics(3.0, 0.2, prm), muscle_dynamics(1.0, 0.2, prm));
  EXPECT_EQ(muscle_dynamics(-3.0, 0.2, prm), muscle_dynamics(0.0, 0.2, prm));
}

const char* kActuators = R"(
<mujoco><option timestep="0.01"/><worldbody><body><joint name="j" type="slide" axis="1 0 0"/><geom size=".1"/></body>
</worldbody><actuator>
  <motor name="motor" joint="j" gear="2" ctrllimited="true" ctrlrange="-1 1" forcelimited="true" forcerange="-1.5 1.5"/>
  <position name="pos" joint="j" kp="10"/>
  <velocity name="vel" joint="j" kv="3"/>
  <general name="affine" joint="j" gaintype="affine" gainprm="1 2 3" biastype="affine" biasprm="0.1 0.2 0.3"/>
  <general name="filter" joint="j" dyntype="filter" dynprm="0.1"/>
  <general name="integ" joint="j" dyntype="integrator" actlimited="true" actrange="-0.5 0.5"/>
</actuator></mujoco>)";

TEST(Actuator, ForcesClampingAndActivation) {
  const Model m = load_model_from_string(kActuators);
  Data d = make_data(m);
  d.qpos[0] = 0.2;
  d.qvel[0] = -0.4;
  d.ctrl = {3.0, 0.5, 0.7, 0.9, 2.0, 4.0};
  d.act = {0.3, 0.45};
  position_velocity(m, d);
  actuation_force(m, d);
  // motor: gear 2 -> length 0.4, force = clamp(ctrl, -1, 1) = 1, clamped to 1.5 by forcerange: 1.
  EXPECT_NEAR(d.actuator_length[0], 0.4, 1e-15);
  EXPECT_NEAR(d.actuator_force[0], 1.0, 1e-15);
  // position servo: kp (ctrl - q) = 10 (0.5 - 0.2)
  EXPECT_NEAR(d.actuator_force[1], 3.0, 1e-14);
  // velocity servo: kv (ctrl - v) = 3 (0.7 + 0.4)
  EXPECT_NEAR(d.actuator_force[2], 3.3, 1e-14);
  // affine: (1 + 2 l + 3 v) u + 0.1 + 0.2 l + 0.3 v
  const double l = 0.2, v = -0.4;
  EXPECT_NEAR(d.actuator_force[3], (1 + 2 * l + 3 * v) * 0.9 + 0.1 + 0.2 * l + 0.3 * v, 1e-14);
  // filter: force = act, act_dot = (u - act)/tau
  EXPECT_NEAR(d.actuator_force[4], 0.3, 1e-15);
  EXPECT_NEAR(d.act_dot[0], (2.0 - 0.3) / 0.1, 1e-13);
  // integrator: act_dot = u
  EXPECT_NEAR(d.act_dot[1], 4.0, 1e-15);
  // qfrc_actuator = sum moment * force (moment 2 for the motor, 1 for the rest)
  double expect = 2 * d.actuator_force[0];
  for (int u = 1; u < m.nu; ++u) expect += d.actuator_force[u];
  EXPECT_NEAR(d.qfrc_actuator[0], expect, 1e-13);
  // clampctrl disabled: controls are used as given (force range still applies).
  Model m2 = m;
  m2.opt.disableflags |= kDsblClampctrl;
  actuation_force(m2, d);
  EXPECT_NEAR(d.actuator_force[0], 1.5, 1e-15);
  // actuation disabled: no force, no activation change.
  m2.opt.disableflags |= kDsblActuation;
  actuation_force(m2, d);
  EXPECT_EQ(d.actuator_force[1], 0);
  EXPECT_EQ(d.qfrc_actuator[0], 0);
  EXPECT_EQ(d.act_dot[0], 0);
}

TEST(Actuator, ActivationStepAgainstExactSolution) {
  Model m = load_model_from_string(kActuators);
  const double h = 0.01, tau = 0.1, u = 2.0, a0 = 0.3;
  const int filter = 4, integ = 5;
  // Integrator: da/dt = u is integrated exactly by Euler; actrange clamps.
  EXPECT_NEAR(next_activation(m, integ, 0.1, 4.0, h), 0.14, 1e-15);
  EXPECT_EQ(next_activation(m, integ, 0.49, 4.0, h), 0.5);
  // Filter (Euler): a + h (u - a)/tau, within O(h^2) of the exact a(h) = u + (a0 - u) e^{-h/tau}.
  const double exact = u + (a0 - u) * std::exp(-h / tau);
  const double euler = next_activation(m, filter, a0, (u - a0) / tau, h);
  EXPECT_NEAR(euler, a0 + h * (u - a0) / tau, 1e-15);
  EXPECT_NEAR(euler, exact, (u - a0) * 0.5 * (h / tau) * (h / tau) * 1.01);
  // Filterexact: the exact solution.
  m.actuator_dyntype[filter] = kDynFilterExact;
  EXPECT_NEAR(next_activation(m, filter, a0, (u - a0) / tau, h), exact, 1e-15);
}

TEST(Actuator, SliderCrankClosedFormAndMomentArms) {
  // Crank of radius 0.3 on a hinge at the origin, slider site at (1, 0, 0) moving along x, rod 1.
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><body><joint name="h" axis="0 1 0"/><geom size=".05"/><site name="crank" pos="0.3 0 0"/></body>
      <site name="slider" pos="1.2 0 0" euler="0 -90 0"/></worldbody>
    <actuator><general cranksite="crank" slidersite="slider" cranklength="1" gear="1.5"/></actuator></mujoco>)");
  Data d = make_data(m);
  for (double q : {0.0, 0.4, -1.1, 2.5}) {
    d.qpos[0] = q;
    position_velocity(m, d);
    // Slider axis a = site z = -x (euler 0 -90 0); crank pin p = (0.3 cos q, 0, -0.3 sin q).
    const double px = 0.3 * std::cos(q), pz = -0.3 * std::sin(q);
    const double vx = px - 1.2, vz = pz;  // v = pin - slider
    const double av = -vx;                 // a . v
    const double len = av - std::sqrt(av * av + 1 - (vx * vx + vz * vz));
    EXPECT_NEAR(d.actuator_length[0], 1.5 * len, 1e-13) << q;
    // Moment arm against central differences.
    const double h = 1e-6;
    d.qpos[0] = q + h;
    position_velocity(m, d);
    const double lp = d.actuator_length[0];
    d.qpos[0] = q - h;
    position_velocity(m, d);
    const double lm = d.actuator_length[0];
    d.qpos[0] = q;
    position_velocity(m, d);
    EXPECT_NEAR(d.actuator_moment[0], (lp - lm) / (2 * h), 1e-7) << q;
  }
}

TEST(Actuator, JointBallFreeSiteTransmissions) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody>
      <body><joint name="ball" type="ball"/><geom size=".1"/></body>
      <body pos="1 0 0"><freejoint name="free"/><geom size=".1"/><site name="s" pos=".1 .2 .3" euler="30 0 60"/></body>
    </worldbody><actuator>
      <general joint="ball" gear="0 0 2 0 0 0"/>
      <general jointinparent="free" gear="1 2 3 0 0 1"/>
      <general site="s" gear="1 0 0 0 0 0"/>
    </actuator></mujoco>)");
  Data d = make_data(m);
  // Ball rotated by 0.5 rad about z: length = 2 * 0.5 (rotation vector . gear axis).
  d.qpos[0] = std::cos(0.25);
  d.qpos[3] = std::sin(0.25);
  // Free body rotated 90 deg about z.
  d.qpos[7] = std::cos(M_PI / 4);
  d.qpos[10] = std::sin(M_PI / 4);
  position_velocity(m, d);
  EXPECT_NEAR(d.actuator_length[0], 1.0, 1e-14);
  EXPECT_EQ(d.actuator_moment[2], 2);
  // jointinparent: rotational gear (0,0,1) given in the parent frame, rotated into the body frame
  // (a rotation about z leaves it unchanged); translation gear as given.
  const double* mf = &d.actuator_moment[m.nv + 3];
  EXPECT_NEAR(mf[0], 1, 1e-15);
  EXPECT_NEAR(mf[1], 2, 1e-15);
  EXPECT_NEAR(mf[2], 3, 1e-15);
  EXPECT_NEAR(mf[5], 1, 1e-15);
  EXPECT_EQ(d.actuator_length[1], 0);
  // Site: a unit force along the site x axis; the translational moment arms are that axis in the
  // world frame, the rotational ones its moment about the body's com (in the body frame).
  const double* R = &d.site_xmat[9 * 0];
  const double* ms = &d.actuator_moment[2 * m.nv + 3];
  EXPECT_NEAR(ms[0], R[0], 1e-14);
  EXPECT_NEAR(ms[1], R[3], 1e-14);
  EXPECT_NEAR(ms[2], R[6], 1e-14);
}

}  // namespace
}  // namespace moreau

namespace moreau {
namespace {

TEST(Actuator, RefsiteTranslationMomentArmsMatchFiniteDifferences) {
  // Site transmission with a reference site (newer than 2.2.2): length = gear . (p_site - p_ref)
  // in the reference frame; translational gear only, so the moment arms are exact derivatives.
  // (2.2.2's MJCF has no refsite attribute, so the reference site is set in the Model directly.)
  Model m = load_model_from_string(R"(
    <mujoco><worldbody>
      <body><joint type="ball"/><geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
        <site name="ref" pos=".5 0 0" euler="20 30 40"/>
        <body pos=".5 0 0"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
          <site name="tip" pos=".5 0 .1"/></body></body>
    </worldbody><actuator><general site="tip" gear="0.3 -0.5 0.8 0 0 0"/></actuator></mujoco>)");
  m.actuator_trnid[1] = name2id(m, kObjSite, "ref");
  ASSERT_GE(m.actuator_trnid[1], 0);
  Data d = make_data(m);
  const double q[] = {0.9, 0.1, -0.3, 0.2, 0.7};
  for (int i = 0; i < m.nq; ++i) d.qpos[i] = q[i];
  normalize_quat(m, d.qpos.data());
  auto length = [&](const std::vector<double>& qpos) {
    d.qpos = qpos;
    position_velocity(m, d);
    return d.actuator_length[0];
  };
  const std::vector<double> q0 = d.qpos;
  length(q0);
  const std::vector<double> moment(d.actuator_moment.begin(), d.actuator_moment.begin() + m.nv);
  const double h = 1e-6;
  for (int i = 0; i < m.nv; ++i) {
    std::vector<double> dv(m.nv, 0.0), qp = q0, qm = q0;
    dv[i] = 1;
    integrate_pos(m, qp.data(), dv.data(), h);
    integrate_pos(m, qm.data(), dv.data(), -h);
    EXPECT_NEAR(moment[i], (length(qp) - length(qm)) / (2 * h), 1e-7) << "dof " << i;
  }
}

}  // namespace
}  // namespace moreau

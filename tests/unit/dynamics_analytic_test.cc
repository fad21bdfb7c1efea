// Analytic tests of the smooth dynamics (no MuJoCo): hand-built models checked against closed forms
// (the simple double pendulum of the Underactuated chapter, "Manipulator Equation form of the
// Simple Double Pendulum"), integrator properties, configuration-space operations and divergence
// handling.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {
namespace {

// A planar chain of point masses: link k hangs from the previous mass (or the world origin) by a
// massless rod of length len[k], rotating about the world -y axis so that, with angles q measured
// from the downward vertical, mass 1 sits at l1 (sin q1, -cos q1) in the (x, z) plane -- the
// coordinates of the chapter's double pendulum.
Model make_chain(const std::vector<double>& mass, const std::vector<double>& len, double g = 9.81) {
  const int n = static_cast<int>(mass.size());
  Model m;
  m.nq = m.nv = m.njnt = n;
  m.nbody = n + 1;
  m.nM = n * (n + 1) / 2;
  m.opt.gravity[0] = 0;
  m.opt.gravity[1] = 0;
  m.opt.gravity[2] = -g;
  m.opt.timestep = 0.01;
  m.qpos0.assign(n, 0.0);
  m.qpos_spring.assign(n, 0.0);
  auto nb = m.nbody;
  m.body_parentid.resize(nb);
  m.body_rootid.assign(nb, 1);
  m.body_rootid[0] = 0;
  m.body_weldid.resize(nb);
  m.body_mocapid.assign(nb, -1);
  m.body_jntnum.assign(nb, 1);
  m.body_jntadr.resize(nb);
  m.body_dofnum.assign(nb, 1);
  m.body_dofadr.resize(nb);
  m.body_geomnum.assign(nb, 0);
  m.body_geomadr.assign(nb, -1);
  m.body_simple.assign(nb, 0);
  m.body_sameframe.assign(nb, 0);
  m.body_pos.assign(3 * nb, 0.0);
  m.body_quat.assign(4 * nb, 0.0);
  m.body_ipos.assign(3 * nb, 0.0);
  m.body_iquat.assign(4 * nb, 0.0);
  m.body_mass.assign(nb, 0.0);
  m.body_subtreemass.assign(nb, 0.0);
  m.body_inertia.assign(3 * nb, 0.0);
  m.body_gravcomp.assign(nb, 0.0);
  m.body_jntnum[0] = m.body_dofnum[0] = 0;
  m.body_jntadr[0] = m.body_dofadr[0] = -1;
  for (int b = 0; b < nb; ++b) {
    m.body_parentid[b] = b == 0 ? 0 : b - 1;
    m.body_weldid[b] = b;
    m.body_quat[4 * b] = m.body_iquat[4 * b] = 1;
    if (b > 0) {
      m.body_jntadr[b] = m.body_dofadr[b] = b - 1;
      m.body_mass[b] = mass[b - 1];
      m.body_ipos[3 * b + 2] = -len[b - 1];                   // point mass at the end of the rod
      if (b > 1) m.body_pos[3 * b + 2] = -len[b - 2];         // pivot at the previous mass
    }
  }
  for (int b = nb - 1; b >= 0; --b) {
    m.body_subtreemass[b] += m.body_mass[b];
    if (b > 0) m.body_subtreemass[m.body_parentid[b]] += m.body_subtreemass[b];
  }
  m.body_subtreemass[0] = m.body_subtreemass[0];  // world: total mass (already accumulated)
  for (int j = 0; j < n; ++j) {
    m.jnt_type.push_back(kJointHinge);
    m.jnt_qposadr.push_back(j);
    m.jnt_dofadr.push_back(j);
    m.jnt_bodyid.push_back(j + 1);
    m.jnt_pos.insert(m.jnt_pos.end(), {0, 0, 0});
    m.jnt_axis.insert(m.jnt_axis.end(), {0, -1, 0});
    m.jnt_stiffness.push_back(0);
    m.jnt_limited.push_back(0);
    m.jnt_range.insert(m.jnt_range.end(), {0, 0});
    m.dof_bodyid.push_back(j + 1);
    m.dof_jntid.push_back(j);
    m.dof_parentid.push_back(j - 1);
    m.dof_Madr.push_back(j * (j + 1) / 2);  // row j: M(j,j), M(j,j-1), ..., M(j,0)
    m.dof_simplenum.push_back(0);
    m.dof_armature.push_back(0);
    m.dof_damping.push_back(0);
    m.dof_frictionloss.push_back(0);
    m.jnt_group.push_back(0);
    m.jnt_margin.push_back(0);
    m.jnt_solref.insert(m.jnt_solref.end(), {0.02, 1});
    m.jnt_solimp.insert(m.jnt_solimp.end(), {0.9, 0.95, 0.001, 0.5, 2});
    m.dof_solref.insert(m.dof_solref.end(), {0.02, 1});
    m.dof_solimp.insert(m.dof_solimp.end(), {0.9, 0.95, 0.001, 0.5, 2});
    m.dof_invweight0.push_back(0);
    m.dof_M0.push_back(0);
    m.jnt_names.push_back("");
  }
  m.body_invweight0.assign(2 * nb, 0.0);
  m.body_names.assign(nb, "");
  return m;
}

struct DoublePendulum {
  double m1 = 1.3, m2 = 0.7, l1 = 1.1, l2 = 0.9, g = 9.81;
  // M(q)
  void mass_matrix(const double* q, double* M) const {
    const double c2 = std::cos(q[1]);
    M[0] = (m1 + m2) * l1 * l1 + m2 * l2 * l2 + 2 * m2 * l1 * l2 * c2;
    M[1] = M[2] = m2 * l2 * l2 + m2 * l1 * l2 * c2;
    M[3] = m2 * l2 * l2;
  }
  // C(q, v) v with the chapter's C
  void coriolis(const double* q, const double* v, double* Cv) const {
    const double s2 = std::sin(q[1]);
    const double C[4] = {0, -m2 * l1 * l2 * (2 * v[0] + v[1]) * s2, 0.5 * m2 * l1 * l2 * (2 * v[0] + v[1]) * s2,
                         -0.5 * m2 * l1 * l2 * v[0] * s2};
    Cv[0] = C[0] * v[0] + C[1] * v[1];
    Cv[1] = C[2] * v[0] + C[3] * v[1];
  }
  void tau_g(const double* q, double* t) const {
    const double s1 = std::sin(q[0]), s12 = std::sin(q[0] + q[1]);
    t[0] = -g * ((m1 + m2) * l1 * s1 + m2 * l2 * s12);
    t[1] = -g * m2 * l2 * s12;
  }
};

TEST(DoublePendulum, MassMatrixCoriolisGravityMatchClosedForms) {
  DoublePendulum p;
  Model m = make_chain({p.m1, p.m2}, {p.l1, p.l2}, p.g);
  Data d = make_data(m);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int trial = 0; trial < 50; ++trial) {
    const double q[2] = {u(rng), u(rng)}, v[2] = {u(rng), u(rng)};
    d.qpos = {q[0], q[1]};
    d.qvel = {v[0], v[1]};
    forward(m, d);

    double M[4], dense[4];
    p.mass_matrix(q, M);
    full_m(m, d.qM.data(), dense);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(dense[k], M[k], 1e-12) << "M[" << k << "]";

    // qfrc_bias = C(q,v) v - tau_g(q)   (M qacc + C v = tau_g + B u)
    double Cv[2], tg[2];
    p.coriolis(q, v, Cv);
    p.tau_g(q, tg);
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(d.qfrc_bias[k], Cv[k] - tg[k], 1e-12) << "bias " << k;

    // separately: gravity alone (v = 0) and Coriolis alone (gravity disabled)
    Model mg = m;
    mg.opt.disableflags = kDsblGravity;
    Data dg = make_data(mg);
    dg.qpos = d.qpos;
    dg.qvel = d.qvel;
    forward(mg, dg);
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(dg.qfrc_bias[k], Cv[k], 1e-12) << "C v " << k;
    d.qvel = {0, 0};
    forward(m, d);
    for (int k = 0; k < 2; ++k) EXPECT_NEAR(d.qfrc_bias[k], -tg[k], 1e-12) << "tau_g " << k;

    // qacc solves M qacc = -bias (no other forces)
    d.qvel = {v[0], v[1]};
    forward(m, d);
    const double r0 = M[0] * d.qacc[0] + M[1] * d.qacc[1] + Cv[0] - tg[0];
    const double r1 = M[2] * d.qacc[0] + M[3] * d.qacc[1] + Cv[1] - tg[1];
    EXPECT_NEAR(r0, 0, 1e-10);
    EXPECT_NEAR(r1, 0, 1e-10);
  }
}

TEST(DoublePendulum, EnergyMatchesClosedForm) {
  DoublePendulum p;
  Model m = make_chain({p.m1, p.m2}, {p.l1, p.l2}, p.g);
  m.opt.enableflags = kEnblEnergy;
  Data d = make_data(m);
  const double q[2] = {0.4, -1.1}, v[2] = {0.8, 2.3};
  d.qpos = {q[0], q[1]};
  d.qvel = {v[0], v[1]};
  forward(m, d);
  const double c1 = std::cos(q[0]), c2 = std::cos(q[1]), c12 = std::cos(q[0] + q[1]);
  const double T = 0.5 * (p.m1 + p.m2) * p.l1 * p.l1 * v[0] * v[0] +
                   0.5 * p.m2 * p.l2 * p.l2 * (v[0] + v[1]) * (v[0] + v[1]) +
                   p.m2 * p.l1 * p.l2 * v[0] * (v[0] + v[1]) * c2;
  const double U = -(p.m1 + p.m2) * p.g * p.l1 * c1 - p.m2 * p.g * p.l2 * c12;
  EXPECT_NEAR(d.energy[0], U, 1e-12);
  EXPECT_NEAR(d.energy[1], T, 1e-12);
}

TEST(DoublePendulum, FullGravityCompensationCancelsGravity) {
  // body_gravcomp = 1 applies -mass*gravity at every com: the passive force equals -tau_g, so a
  // pendulum at rest stays at rest (newer than MuJoCo 2.2.2; from the body/gravcomp documentation).
  DoublePendulum p;
  Model m = make_chain({p.m1, p.m2}, {p.l1, p.l2}, p.g);
  m.body_gravcomp = {0, 1, 1};
  Data d = make_data(m);
  d.qpos = {0.7, -0.4};
  forward(m, d);
  double tg[2];
  p.tau_g(d.qpos.data(), tg);
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(d.qfrc_passive[k], -tg[k], 1e-12);
    EXPECT_NEAR(d.qacc[k], 0, 1e-12);
  }
  // half compensation on the second body only
  m.body_gravcomp = {0, 0, 0.5};
  forward(m, d);
  const double s12 = std::sin(0.7 - 0.4), s1 = std::sin(0.7);
  EXPECT_NEAR(d.qfrc_passive[0], 0.5 * p.g * p.m2 * (p.l1 * s1 + p.l2 * s12), 1e-12);
  EXPECT_NEAR(d.qfrc_passive[1], 0.5 * p.g * p.m2 * p.l2 * s12, 1e-12);
}

TEST(DoublePendulum, InverseOfForwardIsAppliedForce) {
  DoublePendulum p;
  Model m = make_chain({p.m1, p.m2}, {p.l1, p.l2}, p.g);
  m.dof_armature = {0.1, 0.05};
  Data d = make_data(m);
  d.qpos = {0.3, 0.9};
  d.qvel = {-1.2, 0.4};
  d.qfrc_applied = {0.7, -0.2};
  forward(m, d);
  inverse(m, d);
  EXPECT_NEAR(d.qfrc_inverse[0], 0.7, 1e-12);
  EXPECT_NEAR(d.qfrc_inverse[1], -0.2, 1e-12);
  // solve_m inverts mul_m
  double x[2] = {0.3, -0.8}, y[2];
  mul_m(m, d, y, x);
  solve_m(m, d, y, 1);
  EXPECT_NEAR(y[0], 0.3, 1e-12);
  EXPECT_NEAR(y[1], -0.8, 1e-12);
}

// Maximum |E(t) - E(0)| over a passive pendulum's motion.
double energy_drift(int integrator, int steps) {
  Model m = make_chain({1.0}, {1.0});
  m.opt.integrator = integrator;
  m.opt.timestep = 0.01;
  m.opt.enableflags = kEnblEnergy;
  Data d = make_data(m);
  d.qpos[0] = 1.0;  // 57 degrees, well into the nonlinear range
  forward(m, d);
  const double E0 = d.energy[0] + d.energy[1];
  double drift = 0;
  for (int s = 0; s < steps; ++s) {
    step(m, d);
    forward(m, d);
    drift = std::max(drift, std::abs(d.energy[0] + d.energy[1] - E0));
  }
  return drift;
}

TEST(Integrators, RK4ConservesEnergyFarBetterThanEuler) {
  const double euler = energy_drift(kIntEuler, 1000);
  const double rk4 = energy_drift(kIntRK4, 1000);
  std::printf("energy drift over 10 s: Euler %.3g, RK4 %.3g, ratio %.3g\n", euler, rk4, euler / rk4);
  EXPECT_GT(euler / rk4, 100.0);
  EXPECT_LT(rk4, 1e-5);
}

TEST(Integrators, ImplicitIntegratorsDampLikeEuler) {
  // One hinge without gravity: no RNE velocity terms, D = -b, so implicit and implicitfast give
  // Euler's v_{k+1} = v_k M / (M + h b) (stiff damper b h / M = 50).
  for (int integrator : {kIntImplicit, kIntImplicitFast}) {
    Model m = make_chain({1.0}, {1.0});
    m.opt.integrator = integrator;
    m.opt.disableflags = kDsblGravity;
    m.dof_damping = {5000.0};
    Data d = make_data(m);
    d.qvel[0] = 1.0;
    const double M = 1.0, h = m.opt.timestep;
    double v = 1.0;
    for (int s = 0; s < 10; ++s) {
      step(m, d);
      v *= M / (M + h * 5000.0);
      EXPECT_NEAR(d.qvel[0], v, 1e-12) << "integrator " << integrator;
    }
  }
}

TEST(Integrators, EulerDampingIsImplicit) {
  // A very stiff damper (b h / M = 50) is stable with the implicit treatment: the velocity decays
  // monotonically as v_{k+1} = v_k M / (M + h b) without gravity.
  Model m = make_chain({1.0}, {1.0});
  m.opt.disableflags = kDsblGravity;
  m.dof_damping = {5000.0};
  Data d = make_data(m);
  d.qvel[0] = 1.0;
  const double M = 1.0, h = m.opt.timestep;
  double v = 1.0;
  for (int s = 0; s < 10; ++s) {
    step(m, d);
    v *= M / (M + h * 5000.0);
    EXPECT_NEAR(d.qvel[0], v, 1e-12);
  }
}

// A model with one joint of each kind (kinematics not needed by the configuration functions).
Model make_all_joints() {
  Model m;
  m.njnt = 4;
  m.nq = 7 + 4 + 1 + 1;
  m.nv = 6 + 3 + 1 + 1;
  m.jnt_type = {kJointFree, kJointBall, kJointHinge, kJointSlide};
  m.jnt_qposadr = {0, 7, 11, 12};
  m.jnt_dofadr = {0, 6, 9, 10};
  return m;
}

TEST(Configuration, IntegrateDifferentiateRoundTrip) {
  Model m = make_all_joints();
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0, 1);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> q(m.nq), v(m.nv), q2, v2(m.nv);
    for (auto& x : q) x = g(rng);
    for (auto& x : v) x = g(rng);
    normalize_quat(m, q.data());
    q2 = q;
    const double dt = 0.1;
    integrate_pos(m, q2.data(), v.data(), dt);
    differentiate_pos(m, v2.data(), dt, q.data(), q2.data());
    for (int i = 0; i < m.nv; ++i) EXPECT_NEAR(v2[i], v[i], 1e-10) << "dof " << i;
    // quaternions stay unit
    for (int a : {3, 7}) {
      const double n = std::sqrt(q2[a] * q2[a] + q2[a + 1] * q2[a + 1] + q2[a + 2] * q2[a + 2] + q2[a + 3] * q2[a + 3]);
      EXPECT_NEAR(n, 1.0, 1e-14);
    }
  }
}

TEST(Configuration, NormalizeQuat) {
  Model m = make_all_joints();
  std::vector<double> q = {1, 2, 3, 2, 0, 0, 0, 0, 0, 0.3, 0.4, 5, 6};
  normalize_quat(m, q.data());
  EXPECT_DOUBLE_EQ(q[3], 1.0);
  EXPECT_NEAR(q[9], 0.6, 1e-15);
  EXPECT_NEAR(q[10], 0.8, 1e-15);
  EXPECT_EQ(q[0], 1);  // positions and scalar joints untouched
  EXPECT_EQ(q[11], 5);
  EXPECT_EQ(q[12], 6);
}

TEST(Divergence, NanInQvelWarnsWithIndexAndResets) {
  Model m = make_chain({1.0, 1.0}, {1.0, 1.0});
  m.qpos0 = {0.2, 0.1};
  Data d = make_data(m);
  d.qpos = {0.5, -0.5};
  d.qvel = {0.0, std::nan("")};
  d.time = 3.0;
  step(m, d);
  EXPECT_EQ(d.warning[kWarnBadQvel].number, 1);
  EXPECT_EQ(d.warning[kWarnBadQvel].lastinfo, 1);
  // reset to qpos0 at rest, then one step from there
  EXPECT_NEAR(d.time, m.opt.timestep, 1e-15);
  for (double v : d.qvel) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NEAR(d.qpos[0], 0.2, 1e-2);
  // huge qpos counts as divergence too, and counts accumulate
  d.qpos[0] = 2e10;
  step(m, d);
  EXPECT_EQ(d.warning[kWarnBadQpos].number, 1);
  EXPECT_EQ(d.warning[kWarnBadQpos].lastinfo, 0);
  EXPECT_EQ(d.warning[kWarnBadQvel].number, 1);
}

TEST(Data, ResetAndKeyframe) {
  Model m = make_chain({1.0}, {1.0});
  m.nkey = 1;
  m.key_time = {1.5};
  m.key_qpos = {0.25};
  m.key_qvel = {-2.0};
  m.key_names = {""};
  Data d = make_data(m);
  reset_data_keyframe(m, d, 0);
  EXPECT_EQ(d.time, 1.5);
  EXPECT_EQ(d.qpos[0], 0.25);
  EXPECT_EQ(d.qvel[0], -2.0);
  EXPECT_THROW(reset_data_keyframe(m, d, 1), std::out_of_range);
  reset_data(m, d);
  EXPECT_EQ(d.time, 0.0);
  EXPECT_EQ(d.qpos[0], 0.0);
  EXPECT_EQ(d.qvel[0], 0.0);
}

}  // namespace
}  // namespace moreau

namespace moreau {
namespace {

TEST(Timers, FilledOnlyWhenTimingIsOn) {
  Model m = make_chain({1.0, 1.0}, {1.0, 1.0});
  Data d = make_data(m);
  step(m, d);
  EXPECT_EQ(d.timer[kTimerStep].number, 0);
  d.timing = true;
  step(m, d);
  inverse(m, d);
  EXPECT_EQ(d.timer[kTimerStep].number, 1);
  EXPECT_EQ(d.timer[kTimerForward].number, 1);
  EXPECT_EQ(d.timer[kTimerInverse].number, 1);
  EXPECT_EQ(d.timer[kTimerPosition].number, 2);  // forward and inverse
  EXPECT_EQ(d.timer[kTimerPosKinematics].number, 2);
  EXPECT_EQ(d.timer[kTimerAcceleration].number, 1);
  EXPECT_GT(d.timer[kTimerStep].duration, 0.0);
  EXPECT_GE(d.timer[kTimerStep].duration, d.timer[kTimerForward].duration);
}

}  // namespace
}  // namespace moreau

namespace moreau {
namespace {

TEST(Inverse, InvdiscreteRecoversTheAppliedForceOfAnEulerStep) {
  // With implicit damping, the discrete acceleration of an Euler step is (qvel_next - qvel)/h;
  // inverse with invdiscrete must map it back to the force that was applied.
  DoublePendulum p;
  Model m = make_chain({p.m1, p.m2}, {p.l1, p.l2}, p.g);
  m.dof_damping = {3.0, 40.0};
  m.dof_armature = {0.01, 0.02};
  Data d = make_data(m);
  d.qpos = {0.3, -0.6};
  d.qvel = {0.9, -1.4};
  d.qfrc_applied = {0.25, -0.75};
  const std::vector<double> q0 = d.qpos, v0 = d.qvel;
  step(m, d);
  const double h = m.opt.timestep;
  Data e = make_data(m);
  e.qpos = q0;
  e.qvel = v0;
  e.qacc = {(d.qvel[0] - v0[0]) / h, (d.qvel[1] - v0[1]) / h};
  const std::vector<double> qacc_in = e.qacc;
  m.opt.enableflags |= kEnblInvdiscrete;
  inverse(m, e);
  EXPECT_NEAR(e.qfrc_inverse[0], 0.25, 1e-9);
  EXPECT_NEAR(e.qfrc_inverse[1], -0.75, 1e-9);
  EXPECT_EQ(e.qacc, qacc_in);  // the caller's qacc is left as given
  // without the flag the same qacc reads as a different force (the damping term h B qacc_d)
  m.opt.enableflags &= ~kEnblInvdiscrete;
  inverse(m, e);
  EXPECT_GT(std::abs(e.qfrc_inverse[1] + 0.75), 1e-3);
}

}  // namespace
}  // namespace moreau

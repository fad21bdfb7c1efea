// The implicit integrators, the midpoint integration of free bodies, the step1/step2 split and the
// control callback, tested against their own promises (no MuJoCo; 2.2.2 comparisons are in
// tests/differential/implicit_test.cc and dynamics_rollout_test.cc):
//  - the sparse LU of M - hD solves the dense system; the analytic qDeriv equals central differences
//    of qfrc_passive + qfrc_actuator - qfrc_bias on the sparsity of M;
//  - implicitfast == implicit without RNE velocity terms, implicitfast == Euler with damping only;
//  - midpoint: a tumbling asymmetric free body keeps its kinetic energy and |angular momentum| to
//    rounding; without it (Euler, or implicit with invdiscrete) they drift;
//  - gyroscopic.xml stays bounded with implicitfast where Euler diverges; pendulum.xml conserves
//    energy with RK4;
//  - step1 + step2 == step (Euler, implicit, implicitfast), RK4 falls back to Euler; the control callback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "integrator/implicit.h"
#include "math/vec.h"
#include "model_list.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using test_models::shared_model;
const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

void random_state(const Model& m, Data& d, unsigned seed, double vscale = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < m.nq; ++i) d.qpos[i] = m.qpos0[i] + 0.2 * u(rng);
  normalize_quat(m, d.qpos.data());
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = vscale * u(rng);
  for (int i = 0; i < m.na; ++i) d.act[i] = 0.5 + 0.4 * u(rng);
  for (int i = 0; i < m.nu; ++i) d.ctrl[i] = 0.5 * u(rng);
}

// A tree with branches and everything the analytic derivative covers: joint damping, tendon damping
// (one tendon within a branch, one across two branches), a velocity actuator, an affine-gain
// actuator with a filter, a ball joint, fluid forces (inertia box), a free body with children.
const char* kDerivXml = R"(
<mujoco>
  <option density="1.2" viscosity="0.02" wind="0.3 0 0"/>
  <worldbody>
    <body name="root" pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .06 .03"/>
      <body name="a" pos=".1 0 0">
        <joint name="a1" type="hinge" axis="0 1 0" damping=".3"/>
        <geom type="capsule" fromto="0 0 0 .2 0 0" size=".02"/>
        <body name="a2" pos=".2 0 0">
          <joint name="a2" type="ball" damping=".1"/>
          <geom type="capsule" fromto="0 0 0 .15 .05 0" size=".02"/>
        </body>
      </body>
      <body name="b" pos="-.1 0 0">
        <joint name="b1" type="hinge" axis="1 0 0"/>
        <joint name="b2" type="slide" axis="0 0 1" damping="2"/>
        <geom type="capsule" fromto="0 0 0 -.2 0 .05" size=".02"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="within" damping="0.7"><joint joint="a1" coef="1"/><joint joint="b1" coef="0"/></fixed>
    <fixed name="across" damping="0.4"><joint joint="a1" coef="1"/><joint joint="b2" coef="-2"/></fixed>
  </tendon>
  <actuator>
    <velocity joint="a1" kv="3"/>
    <general joint="b1" gaintype="affine" biastype="affine" gainprm="1 0 2" biasprm="0 0 -1.5"
             dyntype="filter" dynprm="0.05"/>
  </actuator>
</mujoco>)";

// dense f(qvel) = qfrc_passive + qfrc_actuator - qfrc_bias
std::vector<double> smooth_force(const Model& m, Data& d) {
  forward(m, d);
  std::vector<double> f(m.nv);
  for (int i = 0; i < m.nv; ++i) f[i] = d.qfrc_passive[i] + d.qfrc_actuator[i] - d.qfrc_bias[i];
  return f;
}

// dof i and j interact in the dof tree (one is an ancestor of the other)
bool related(const Model& m, int i, int j) {
  if (i < j) std::swap(i, j);
  for (int a = i; a >= 0; a = m.dof_parentid[a])
    if (a == j) return true;
  return false;
}

void check_deriv_against_fd(const Model& m, unsigned seed) {
  Data d = make_data(m);
  random_state(m, d, seed);
  forward(m, d);
  deriv_smooth_vel(m, d);
  const int nv = m.nv;
  std::vector<double> D(nv * nv);
  deriv_to_dense(m, d.qDeriv.data(), D.data());
  const double eps = 1e-6;
  double dmax = 1, err = 0;
  const std::vector<double> v0(d.qvel.begin(), d.qvel.end());
  for (int k = 0; k < nv; ++k) {
    d.qvel = v0;
    d.qvel[k] += eps;
    const std::vector<double> fp = smooth_force(m, d);
    d.qvel[k] -= 2 * eps;
    const std::vector<double> fm = smooth_force(m, d);
    for (int i = 0; i < nv; ++i) {
      const double fd = (fp[i] - fm[i]) / (2 * eps);
      dmax = std::max(dmax, std::abs(fd));
      if (related(m, i, k))
        err = std::max(err, std::abs(D[i * nv + k] - fd));
      else
        EXPECT_EQ(D[i * nv + k], 0.0) << "outside the sparsity of M: " << i << "," << k;
    }
  }
  // central differences: truncation eps^2 f''' and rounding 1e-16 |f| / eps, both < 1e-8 here
  EXPECT_LE(err / dmax, 1e-7) << m.model_file;
  std::printf("[ qDeriv vs FD %s ] nv %d, max |D| %.3g, err %.2g\n", m.model_file.c_str(), nv, dmax, err / dmax);
}

TEST(ImplicitDerivative, MatchesCentralDifferences) {
  Model m = load_model_from_string(kDerivXml, "deriv.xml");
  m.model_file = "deriv.xml";
  check_deriv_against_fd(m, 1);
  check_deriv_against_fd(load_model(kHumanoid), 2);
  check_deriv_against_fd(load_model("/usr/share/mujoco/model/tendon_arm/arm26.xml"), 3);  // muscles
}

TEST(ImplicitDerivative, CrossBranchTendonDampingIsDropped) {
  // the chapter: D keeps the sparsity of M, which excludes damping of tendons across branches
  const Model m = load_model_from_string(kDerivXml, "deriv.xml");
  Data d = make_data(m);
  random_state(m, d, 4);
  forward(m, d);
  deriv_smooth_vel(m, d);
  std::vector<double> D(m.nv * m.nv);
  deriv_to_dense(m, d.qDeriv.data(), D.data());
  const int a1 = m.jnt_dofadr[1], b2 = m.jnt_dofadr[4];
  ASSERT_FALSE(related(m, a1, b2));
  EXPECT_EQ(D[a1 * m.nv + b2], 0.0);
  EXPECT_EQ(D[b2 * m.nv + a1], 0.0);
}

TEST(ImplicitLU, SolvesTheDenseSystem) {
  for (const std::string& path : {kHumanoid, std::string()}) {
    const Model m = path.empty() ? load_model_from_string(kDerivXml, "deriv.xml") : load_model(path);
    Data d = make_data(m);
    random_state(m, d, 5, 3.0);
    forward(m, d);
    deriv_smooth_vel(m, d);
    const int nv = m.nv;
    const double h = 0.05;  // large, so that hD is not small against M
    std::vector<double> H(m.nD), Md(nv * nv), Dd(nv * nv);
    full_m(m, d.qM.data(), Md.data());
    deriv_to_dense(m, d.qDeriv.data(), Dd.data());
    for (int i = 0; i < m.nD; ++i) H[i] = -h * d.qDeriv[i];
    for (int i = 0; i < nv; ++i)
      for (int t = 0, a = i; a >= 0; a = m.dof_parentid[a], ++t) {
        H[m.dof_Madr[i] + t] += d.qM[m.dof_Madr[i] + t];
        if (t > 0) H[m.nM + m.dof_Madr[i] - i + t - 1] += d.qM[m.dof_Madr[i] + t];
      }
    internal::factor_lu(m, H.data());
    std::vector<double> b(nv), x(nv);
    std::mt19937_64 rng(6);
    std::uniform_real_distribution<double> u(-1, 1);
    for (double& v : b) v = u(rng);
    x = b;
    internal::solve_lu(m, H.data(), x.data());
    double res = 0, bmax = 0;
    for (int i = 0; i < nv; ++i) {
      double r = -b[i];
      for (int j = 0; j < nv; ++j) r += (Md[i * nv + j] - h * Dd[i * nv + j]) * x[j];
      res = std::max(res, std::abs(r));
      bmax = std::max(bmax, std::abs(b[i]));
    }
    EXPECT_LE(res / bmax, 1e-12) << path;
  }
}

// ------------------------------------------------------------------------------------ integrator relations

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0;
  for (size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

// slide joints only: no rotation, so the RNE velocity terms vanish and D is symmetric (damping, tendon
// damping and actuator terms are outer products)
const char* kSlideXml = R"(
<mujoco>
  <option timestep="0.01"/>
  <worldbody>
    <body>
      <joint name="s1" type="slide" axis="1 0 0" damping="5"/>
      <geom type="box" size=".1 .1 .1"/>
      <body>
        <joint name="s2" type="slide" axis="0 1 1" damping="1"/>
        <geom type="sphere" size=".05" pos=".2 0 0"/>
        <body>
          <joint name="s3" type="slide" axis="0 0 1" stiffness="30"/>
          <geom type="sphere" size=".05" pos="0 .2 0"/>
        </body>
      </body>
      <body>
        <joint name="s4" type="slide" axis="0 1 0"/>
        <geom type="sphere" size=".05" pos="0 0 .2"/>
      </body>
    </body>
  </worldbody>
  <tendon><fixed damping="3"><joint joint="s1" coef="1"/><joint joint="s3" coef="0.5"/></fixed></tendon>
  <actuator>
    <velocity joint="s2" kv="4"/>
    <general joint="s3" gaintype="affine" gainprm="1 0 -2" dyntype="filter" dynprm="0.1"/>
  </actuator>
</mujoco>)";

std::vector<double> rollout(Model m, int integrator, int steps, unsigned seed) {
  m.opt.integrator = integrator;
  Data d = make_data(m);
  random_state(m, d, seed, 2.0);
  for (int s = 0; s < steps; ++s) step(m, d);
  std::vector<double> x(d.qpos.begin(), d.qpos.end());
  x.insert(x.end(), d.qvel.begin(), d.qvel.end());
  x.insert(x.end(), d.act.begin(), d.act.end());
  return x;
}

TEST(ImplicitIntegrators, FastEqualsImplicitWithoutRneVelocityTerms) {
  const Model m = load_model_from_string(kSlideXml, "slide.xml");
  const auto a = rollout(m, kIntImplicit, 200, 7), b = rollout(m, kIntImplicitFast, 200, 7);
  const auto e = rollout(m, kIntEuler, 200, 7);
  // LU and L'DL of the same symmetric matrix: rounding only
  EXPECT_LE(max_abs_diff(a, b), 1e-12);
  // and the actuator and tendon terms matter: Euler (joint damping only) differs
  EXPECT_GT(max_abs_diff(a, e), 1e-4);
}

TEST(ImplicitIntegrators, FastEqualsEulerWithJointDampingOnly) {
  // hinges (RNE velocity terms, which implicitfast drops) with joint damping and nothing else that
  // depends on velocity: implicitfast's D is Euler's -diag(damping), M - hD = M + hB
  const Model m = load_model(std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml");
  Model damped = m;
  for (double& b : damped.dof_damping) b = 0.5;
  damped.opt.disableflags |= kDsblConstraint;
  const auto f = rollout(damped, kIntImplicitFast, 300, 8), e = rollout(damped, kIntEuler, 300, 8);
  EXPECT_LE(max_abs_diff(f, e), 1e-13);
  const auto i = rollout(damped, kIntImplicit, 300, 8);
  EXPECT_GT(max_abs_diff(i, e), 1e-9);  // implicit includes the RNE derivatives
}

// The ellipsoid fluid model (fluid.cc) in D: a floating base with two ellipsoid-model geoms off its
// centre (one rotated), a hinged child with a cylinder and an inertia-box sibling, all with Kutta and
// Magnus lift, in a moving (wind), dense and viscous medium. D's fluid part is J' H J per geom with
// H the forward-mode derivative of the wrench (math/dual.h); it must equal central differences of
// qfrc_passive. 2.2.2's qDeriv is not the reference here (known_differences.h: its fluid term is not
// the derivative of its own forces).
const char* kEllipsoidFluidXml = R"(
<mujoco>
  <option density="40" viscosity="0.5" wind="0.4 -0.2 0.1"/>
  <default><geom fluidcoef="0.5 0.25 1.5 1.0 1.0"/></default>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="ellipsoid" size=".12 .05 .02" pos=".03 0 0" fluidshape="ellipsoid"/>
      <geom type="box" size=".02 .1 .01" pos="0 .05 .02" euler="20 10 30" fluidshape="ellipsoid"/>
      <body name="fin" pos=".1 0 0">
        <joint type="hinge" axis="0 1 1" damping=".2"/>
        <geom type="cylinder" size=".03 .08" pos=".05 0 0" euler="0 90 0" fluidshape="ellipsoid"/>
      </body>
      <body name="boxmodel" pos="-.1 0 0">
        <joint type="ball"/>
        <geom type="capsule" fromto="0 0 0 -.1 .02 0" size=".015"/>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST(ImplicitDerivative, EllipsoidFluidMatchesCentralDifferences) {
  Model m = load_model_from_string(kEllipsoidFluidXml, "ellipsoid_fluid.xml");
  m.model_file = "ellipsoid_fluid.xml";
  for (unsigned seed : {5u, 6u, 7u}) check_deriv_against_fd(m, seed);
  MOREAU_REQUIRE_SHARED();  // after the inline model's checks, which ran
  check_deriv_against_fd(load_model(shared_model("mujoco/test/engine/testdata/derivative/tumbling_thin_object_ellipsoid.xml")), 8);
}

// A sphere of radius R and mass M with the ellipsoid model in a purely viscous medium (density 0):
// Stokes' force -c v (c = 6 pi beta R) and torque -k w (k = 8 pi beta R^3) are linear, the sphere's
// inertia is isotropic (no gyroscopic term), so implicit Euler is exactly
//   v_{n+1} = v_n M / (M + h c),  w_{n+1} = w_n I / (I + h k)   (I = 2/5 M R^2),
// stable at any step, where explicit Euler (|1 - h c / M| > 1 here) diverges.
TEST(ImplicitIntegrators, StokesSphereDecaysAsImplicitEuler) {
  const double R = 0.1, M = 0.01, beta = 0.5, h = 0.03;
  const std::string xml = "<mujoco><option timestep='" + std::to_string(h) + "' gravity='0 0 0' viscosity='" +
                          std::to_string(beta) + "' integrator='INTEGRATOR'/><worldbody><body><freejoint/>"
                          "<geom type='sphere' size='0.1' mass='0.01' fluidshape='ellipsoid'/></body></worldbody></mujoco>";
  const double c = 6 * M_PI * beta * R, k = 8 * M_PI * beta * R * R * R, I = 0.4 * M * R * R;
  ASSERT_GT(h * c / M, 2.0);  // explicit Euler's factor 1 - h c/M is below -1
  for (const char* integrator : {"implicit", "implicitfast", "Euler"}) {
    std::string x = xml;
    x.replace(x.find("INTEGRATOR"), 10, integrator);
    const Model m = load_model_from_string(x, "stokes.xml");
    Data d = make_data(m);
    const double v0[3] = {0.3, -0.2, 0.5}, w0[3] = {1.0, 2.0, -0.5};
    for (int i = 0; i < 3; ++i) {
      d.qvel[i] = v0[i];
      d.qvel[3 + i] = w0[i];
    }
    const bool euler = std::string(integrator) == "Euler";
    const int n = euler ? 6 : 20;  // Euler: |1 - h c/M|^6 = 37 (later steps would trip the divergence reset)
    for (int s = 0; s < n; ++s) step(m, d);
    if (euler) {
      EXPECT_GT(std::abs(d.qvel[0]), 10 * std::abs(v0[0])) << "explicit Euler should diverge here";
      continue;
    }
    const double fv = std::pow(M / (M + h * c), n), fw = std::pow(I / (I + h * k), n);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(d.qvel[i], v0[i] * fv, 1e-14) << integrator << " v" << i;
      EXPECT_NEAR(d.qvel[3 + i], w0[i] * fw, 1e-14) << integrator << " w" << i;
    }
  }
}

// ------------------------------------------------------------------------------------ midpoint

// An asymmetric body (principal moments about 1:2.3:2.8 at an angle to the body frame, com away from
// the body origin), no gravity, no contact, spinning mostly about its intermediate axis: it tumbles.
const char* kTumblingXml = R"(
<mujoco>
  <option timestep="0.01" gravity="0 0 0"><flag contact="disable" energy="enable"/></option>
  <worldbody>
    <body>
      <freejoint/>
      <geom type="box" size=".05 .1 .2" pos=".03 -.02 .01" euler="10 20 30"/>
    </body>
  </worldbody>
</mujoco>)";

struct Invariants {
  double energy, casimir;  // kinetic energy; |I w| (the norm of the angular momentum about the com)
  double lworld[3];        // angular momentum about the com in the world frame
  double vcom[3];
};

Invariants invariants(const Model& m, Data& d) {
  forward(m, d);
  using namespace math;
  const int b = 1;
  double Rp[9], wp[3], Lp[3];
  mulmatTmat3(Rp, &d.xmat[9 * b], &d.ximat[9 * b]);
  mulmatTvec3(wp, Rp, &d.qvel[3]);
  for (int i = 0; i < 3; ++i) Lp[i] = m.body_inertia[3 * b + i] * wp[i];
  Invariants r{};
  r.energy = d.energy[1];
  r.casimir = norm3(Lp);
  mulmatvec3(r.lworld, &d.ximat[9 * b], Lp);
  double ww[3], off[3], wxr[3];
  mulmatvec3(ww, &d.xmat[9 * b], &d.qvel[3]);
  sub3(off, &d.xipos[3 * b], &d.xpos[3 * b]);
  cross3(wxr, ww, off);
  add3(r.vcom, &d.qvel[0], wxr);
  return r;
}

struct Drift { double energy, casimir, lworld, vcom; };

Drift tumble(int integrator, bool invdiscrete, int steps) {
  Model m = load_model_from_string(kTumblingXml, "tumbling.xml");
  m.opt.integrator = integrator;
  if (invdiscrete) m.opt.enableflags |= kEnblInvdiscrete;
  Data d = make_data(m);
  const double qvel0[6] = {0.3, -0.1, 0.2, 0.2, 6.0, 0.3};
  std::copy_n(qvel0, 6, d.qvel.begin());
  const Invariants i0 = invariants(m, d);
  Drift dr{0, 0, 0, 0};
  for (int s = 0; s < steps; ++s) {
    step(m, d);
    const Invariants i = invariants(m, d);
    dr.energy = std::max(dr.energy, std::abs(i.energy - i0.energy) / i0.energy);
    dr.casimir = std::max(dr.casimir, std::abs(i.casimir - i0.casimir) / i0.casimir);
    double dl = 0, dv = 0;
    for (int k = 0; k < 3; ++k) {
      dl = std::max(dl, std::abs(i.lworld[k] - i0.lworld[k]));
      dv = std::max(dv, std::abs(i.vcom[k] - i0.vcom[k]));
    }
    dr.lworld = std::max(dr.lworld, dl / i0.casimir);
    dr.vcom = std::max(dr.vcom, dv);
  }
  return dr;
}

TEST(Midpoint, TumblingBodyKeepsEnergyAndAngularMomentum) {
  constexpr int kSteps = 3000;  // 30 s, ~15 tumbles
  for (int integrator : {kIntImplicit, kIntImplicitFast}) {
    const Drift mid = tumble(integrator, false, kSteps);
    const Drift off = tumble(integrator, true, kSteps);  // invdiscrete: no midpoint
    std::printf("[ tumbling integrator %d ] midpoint: energy %.2g |L| %.2g L_world %.2g v_com %.2g; "
                "without: energy %.2g |L| %.2g\n",
                integrator, mid.energy, mid.casimir, mid.lworld, mid.vcom, off.energy, off.casimir);
    // rounding only: the Newton solve stops at its residual floor and the quaternion is renormalized
    // every step, each worth < 1e-14 relative (measured 4.3e-12 after 3000 steps, ~1.4e-15 a step)
    EXPECT_LE(mid.energy, 1e-14 * kSteps);
    EXPECT_LE(mid.casimir, 1e-14 * kSteps);
    EXPECT_LE(mid.vcom, 1e-12);  // linear momentum: the com moves at constant velocity
    EXPECT_GT(off.energy, 1e-3);
    EXPECT_GT(off.casimir, 1e-3);
  }
  const Drift euler = tumble(kIntEuler, false, kSteps);
  std::printf("[ tumbling Euler ] energy %.2g |L| %.2g\n", euler.energy, euler.casimir);
  EXPECT_GT(euler.energy, 1e-3);
}

// gyroscopic.xml (computation chapter): an ellipsoid rolling on an inclined plane at h = 0.01 with
// implicitfast; Euler integrates its gyroscopic forces explicitly and "quickly diverges".
struct GyroRun { double max_total_energy_rise, max_speed; int steps; };
GyroRun gyroscopic(int integrator, int steps) {
  Model m = load_model(shared_model("examples/gyroscopic.xml"));
  m.opt.integrator = integrator;
  m.opt.enableflags |= kEnblEnergy;
  Data d = make_data(m);
  forward(m, d);
  const double e0 = d.energy[0] + d.energy[1];
  GyroRun r{0, 0, 0};
  for (int s = 0; s < steps; ++s) {
    step(m, d);
    r.steps = s + 1;
    if (d.warning[kWarnBadQvel].number + d.warning[kWarnBadQacc].number + d.warning[kWarnBadQpos].number > 0) {
      r.max_total_energy_rise = INFINITY;
      break;
    }
    r.max_total_energy_rise = std::max(r.max_total_energy_rise, d.energy[0] + d.energy[1] - e0);
    double w = 0;
    for (int i = 3; i < 6; ++i) w = std::max(w, std::abs(d.qvel[i]));
    r.max_speed = std::max(r.max_speed, w);
  }
  return r;
}

TEST(Midpoint, GyroscopicExampleStableWithImplicitFast) {
  MOREAU_REQUIRE_SHARED();
  const GyroRun fast = gyroscopic(kIntImplicitFast, 1000), euler = gyroscopic(kIntEuler, 1000);
  std::printf("[ gyroscopic ] implicitfast: energy rise %.3g, max |w| %.3g; Euler: energy rise %.3g, max |w| %.3g, %d steps\n",
              fast.max_total_energy_rise, fast.max_speed, euler.max_total_energy_rise, euler.max_speed, euler.steps);
  // implicitfast: 10 s of rolling downhill, the total energy never above its start (contacts and
  // friction only dissipate; measured: never above it at all)
  EXPECT_EQ(fast.steps, 1000);
  EXPECT_LE(fast.max_total_energy_rise, 1e-9);
  // Euler: the spin blows up and divergence is detected (measured at step 494, |w| 3.7e7)
  EXPECT_LT(euler.steps, 1000);
  EXPECT_GT(euler.max_speed, 1e4);
}

// pendulum.xml (computation chapter): a chain of hinge, slide (spring), ball and hinge joints whose
// energy RK4 conserves, while Euler and implicitfast diverge and implicit loses energy.
struct PendulumRun { double drift, scale, last; int steps; };
PendulumRun pendulum(int integrator, int steps) {
  Model m = load_model(shared_model("examples/pendulum.xml"));
  m.opt.integrator = integrator;
  Data d = make_data(m);
  forward(m, d);
  const double e0 = d.energy[0] + d.energy[1];
  PendulumRun r{0, 0, 0, 0};
  for (int s = 0; s < steps; ++s) {
    step(m, d);
    forward(m, d);  // energy of the new state
    r.last = d.energy[0] + d.energy[1] - e0;
    r.steps = s + 1;
    if (d.warning[kWarnBadQvel].number + d.warning[kWarnBadQacc].number + d.warning[kWarnBadQpos].number > 0) {
      r.drift = INFINITY;
      break;
    }
    r.drift = std::max(r.drift, std::abs(d.energy[0] + d.energy[1] - e0));
    r.scale = std::max(r.scale, d.energy[1]);
  }
  return r;
}

TEST(Integrators, PendulumExampleEnergy) {
  MOREAU_REQUIRE_SHARED();
  constexpr int kSteps = 5000;  // 10 s at the model's 2 ms
  PendulumRun r[4];
  for (int integ : {kIntEuler, kIntRK4, kIntImplicit, kIntImplicitFast}) {
    r[integ] = pendulum(integ, kSteps);
    std::printf("[ pendulum integrator %d ] %d steps, max |E - E0| %.3g, max kinetic %.3g\n", integ, r[integ].steps,
                r[integ].drift, r[integ].scale);
  }
  // RK4: |E - E0| stays below 0.5% of the largest kinetic energy over 10 s (measured 0.21%: 2.5 mJ
  // of 1.17 J)
  EXPECT_EQ(r[kIntRK4].steps, kSteps);
  EXPECT_LE(r[kIntRK4].drift, 5e-3 * r[kIntRK4].scale);
  // Euler and implicitfast diverge (measured at step 867); implicit does not but loses energy
  EXPECT_LT(r[kIntEuler].steps, kSteps);
  EXPECT_LT(r[kIntImplicitFast].steps, kSteps);
  EXPECT_EQ(r[kIntImplicit].steps, kSteps);
  EXPECT_LT(r[kIntImplicit].last, -0.1 * r[kIntImplicit].scale);
}

// ------------------------------------------------------------------------------------ step1/step2, callback

std::vector<double> state_of(const Data& d) {
  std::vector<double> x(d.qpos.begin(), d.qpos.end());
  x.insert(x.end(), d.qvel.begin(), d.qvel.end());
  x.insert(x.end(), d.act.begin(), d.act.end());
  x.insert(x.end(), d.sensordata.begin(), d.sensordata.end());
  return x;
}

TEST(StepSplit, Step1Step2EqualsStep) {
  // humanoid from its keyframe with controls: contacts, actuators, sensors
  for (int integrator : {kIntEuler, kIntImplicit, kIntImplicitFast}) {
    Model m = load_model(kHumanoid);
    m.opt.integrator = integrator;
    Data a = make_data(m), b = make_data(m);
    for (Data* d : {&a, &b}) {
      if (m.nkey > 0) reset_data_keyframe(m, *d, 0);
      for (int i = 0; i < m.nu; ++i) d->ctrl[i] = 0.4 * std::sin(i + 1.0);
    }
    for (int s = 0; s < 50; ++s) {
      step(m, a);
      step1(m, b);
      step2(m, b);
    }
    EXPECT_EQ(state_of(a), state_of(b)) << "integrator " << integrator;  // the same operations: bitwise
    EXPECT_GT(a.ncon, 0);
  }
}

// With RK4, step2 integrates with Euler (simulation chapter, mj_step2): step1 + step2 of an RK4
// model is, bit for bit, step of the same model with the Euler integrator.
TEST(StepSplit, RK4FallsBackToEuler) {
  Model rk4 = load_model(kHumanoid);
  rk4.opt.integrator = kIntRK4;
  Model euler = rk4;
  euler.opt.integrator = kIntEuler;
  Data a = make_data(euler), b = make_data(rk4);
  for (Data* d : {&a, &b}) {
    if (rk4.nkey > 0) reset_data_keyframe(rk4, *d, 0);
    for (int i = 0; i < rk4.nu; ++i) d->ctrl[i] = 0.4 * std::sin(i + 1.0);
  }
  for (int s = 0; s < 50; ++s) {
    step(euler, a);
    step1(rk4, b);
    step2(rk4, b);
  }
  EXPECT_EQ(state_of(a), state_of(b));
  EXPECT_GT(a.time, 0.0);
}

// The callback of the simulation chapter's example: damping through the controls, ctrl = -k qvel
// on the actuated dofs (here: the actuator's velocity), with a call counter in control_user.
struct CallbackLog {
  int calls = 0;
  double gain = 0.002;  // |ctrl| ~ 0.06 at gear 100 and 0.3 rad/s: inside ctrlrange
};
void damping_controller(const Model& m, Data& d) {
  auto* log = static_cast<CallbackLog*>(d.control_user);
  log->calls++;
  // actuator_velocity is a velocity-stage result: the callback runs after that stage
  for (int u = 0; u < m.nu; ++u) d.ctrl[u] = -log->gain * d.actuator_velocity[u];
}

TEST(ControlCallback, CalledWhereTheChapterSays) {
  Model m = load_model(kHumanoid);
  for (int integrator : {kIntEuler, kIntImplicitFast, kIntRK4}) {
    m.opt.integrator = integrator;
    Data d = make_data(m), ref = make_data(m);
    for (Data* x : {&d, &ref}) {
      if (m.nkey > 0) reset_data_keyframe(m, *x, 0);
      for (int i = 0; i < m.nv; ++i) x->qvel[i] = 0.3;
    }
    CallbackLog log;
    d.control_callback = damping_controller;
    d.control_user = &log;
    step(m, d);
    // once per forward dynamics evaluation: RK4 evaluates four times a step
    EXPECT_EQ(log.calls, integrator == kIntRK4 ? 4 : 1);
    if (integrator != kIntRK4) {
      // the same step with the controls set by hand from the same velocity-stage results
      forward(m, ref);
      for (int u = 0; u < m.nu; ++u) ref.ctrl[u] = -log.gain * ref.actuator_velocity[u];
      step(m, ref);
      EXPECT_EQ(state_of(d), state_of(ref)) << "integrator " << integrator;
      Data plain = make_data(m);  // and the controls matter
      if (m.nkey > 0) reset_data_keyframe(m, plain, 0);
      for (int i = 0; i < m.nv; ++i) plain.qvel[i] = 0.3;
      step(m, plain);
      EXPECT_NE(state_of(d), state_of(plain));
    }
  }
  // step1 calls it, step2 does not
  m.opt.integrator = kIntEuler;
  Data d = make_data(m);
  CallbackLog log;
  d.control_callback = damping_controller;
  d.control_user = &log;
  step1(m, d);
  EXPECT_EQ(log.calls, 1);
  step2(m, d);
  EXPECT_EQ(log.calls, 1);
  forward(m, d);
  EXPECT_EQ(log.calls, 2);
}

TEST(ControlCallback, PerDataNotGlobal) {
  // two Data of one Model with different callbacks (and one without) step independently
  Model m = load_model(kHumanoid);
  m.opt.integrator = kIntImplicitFast;
  Data a = make_data(m), b = make_data(m), c = make_data(m);
  CallbackLog la, lb;
  lb.gain = 0.006;
  a.control_callback = b.control_callback = damping_controller;
  a.control_user = &la;
  b.control_user = &lb;
  for (Data* d : {&a, &b, &c}) {
    if (m.nkey > 0) reset_data_keyframe(m, *d, 0);
    for (int i = 0; i < m.nv; ++i) d->qvel[i] = 0.3;
  }
  for (int s = 0; s < 20; ++s)
    for (Data* d : {&a, &b, &c}) step(m, *d);
  EXPECT_EQ(la.calls, 20);
  EXPECT_EQ(lb.calls, 20);
  EXPECT_NE(state_of(a), state_of(b));
  EXPECT_NE(state_of(a), state_of(c));
  // a again from the start, alone: the same trajectory
  Data a2 = make_data(m);
  CallbackLog la2;
  a2.control_callback = damping_controller;
  a2.control_user = &la2;
  if (m.nkey > 0) reset_data_keyframe(m, a2, 0);
  for (int i = 0; i < m.nv; ++i) a2.qvel[i] = 0.3;
  for (int s = 0; s < 20; ++s) step(m, a2);
  EXPECT_EQ(state_of(a), state_of(a2));
}

}  // namespace
}  // namespace moreau

// Analytic derivatives (moreau/analytic_derivative.h) against centred finite differences.
//
// Error measure: max |analytic - fd| / max(max |fd|, max |f|, 1) over a whole matrix, f the
// differentiated function at the state (relative to the derivative where it is of the order of the
// function; relative to the function where the derivative vanishes: a lone free body's RNE does not
// depend on its position, and the differences are then round-off). The differences are centred
// and extrapolated (richardson, derivative_test_util.h), so that their own error stays far below
// the bound 1e-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../model_list.h"
#include "derivative/contact_geometry.h"
#include "derivative_test_util.h"
#include "kinematics/jacobian.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::fd_qpos;
using testing::fd_vec;
using testing::fill_normal;
using testing::fscale;
using testing::perturb_qpos;
using testing::random_state;
using testing::rel_error;
using testing::richardson;
using testing::Vec;

// Centred differences at h = kEps and h/2, extrapolated (richardson): truncation O(h^4) ~ 1e-16,
// round-off ~ 1e-16 |f| / h ~ 1e-12 |f| (ill-conditioned mass matrices, such as the composite
// cloth's, amplify it by their condition number: 1e-6 differences there have 1e-5 round-off).
constexpr double kEps = 1e-4;

// The fallbacks of A and B (and forward_derivatives): derivative_fallbacks without the sensor rows
// (C, D), which these tests do not compute.
std::vector<std::string> state_fallbacks(const Model& m, Data& d) {
  std::vector<std::string> out;
  for (const std::string& f : derivative_fallbacks(m, d))
    if (f.find("(C, D rows)") == std::string::npos) out.push_back(f);
  return out;
}

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const std::string& e : test_models::entries()) out.push_back(test_models::resolve(e));
  return out;
}

// d RNE(q, v, a)/dq: every model of the corpus, two random states each.
TEST(AnalyticDerivative, RnePositionMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  double worst = 0;
  std::string worst_model;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0 || !internal::rne_pos_supported(m) || test_models::too_large_for_subset(m.nv)) continue;
    Data d = make_data(m);
    for (unsigned seed = 1; seed <= 2; ++seed) {
      random_state(m, d, seed);
      fill_normal(d.qacc.data(), m.nv, seed + 100);
      const Vec qacc = d.qacc;
      auto g = [&](double* out) {
        fwd_position(m, d);
        com_vel(m, d);
        std::copy(qacc.begin(), qacc.end(), d.qacc.begin());
        rne(m, d, true, out);
      };
      const Vec fd = fd_qpos(m, d, m.nv, kEps, g);
      fwd_position(m, d);
      Vec an(static_cast<size_t>(m.nv) * m.nv);
      internal::rne_pos_deriv(m, d, d.qvel.data(), qacc.data(), true, an.data());
      const double e = rel_error(an, fd, fscale(m.nv, g));
      EXPECT_LE(e, 1e-6) << path << " seed " << seed;
      if (e > worst) worst = e, worst_model = path;
    }
    ++ran;
  }
  std::printf("rne position derivative: %d models, worst relative error %.2e (%s)\n", ran, worst,
              worst_model.c_str());
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// d qacc / d (qpos, qvel, act, ctrl, qfrc_applied) of forward dynamics without constraints, every
// model of the corpus (columns the analytic path does not cover are finite differences themselves,
// with a warning; the test then checks the assembly).
TEST(AnalyticDerivative, ForwardSmoothMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  double worst = 0;
  std::string worst_model;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0 || test_models::too_large_for_subset(m.nv)) continue;
    m.opt.disableflags |= kDsblConstraint;
    Data d = make_data(m);
    random_state(m, d, 7);
    const int nv = m.nv, na = m.na, nu = m.nu;
    Vec Aq(nv * nv), Av(nv * nv), Aact(nv * na), Au(nv * nu), Af(nv * nv);
    forward_derivatives(m, d, Aq.data(), Av.data(), Aact.data(), Au.data(), Af.data());
    auto g = [&](double* out) {
      forward(m, d);
      std::copy_n(d.qacc.begin(), nv, out);
    };
    const Vec fq = fd_qpos(m, d, nv, kEps, g);
    const Vec fv = fd_vec(d.qvel.data(), nv, nv, kEps, g);
    const Vec fa = fd_vec(d.act.data(), na, nv, kEps, g);
    const Vec fu = fd_vec(d.ctrl.data(), nu, nv, kEps, g);
    const Vec ff = fd_vec(d.qfrc_applied.data(), nv, nv, kEps, g);
    const double fs = fscale(nv, g);
    const double e[5] = {rel_error(Aq, fq, fs), rel_error(Av, fv, fs), rel_error(Aact, fa, fs),
                         rel_error(Au, fu, fs), rel_error(Af, ff, fs)};
    const char* names[5] = {"qpos", "qvel", "act", "ctrl", "qfrc_applied"};
    for (int i = 0; i < 5; ++i) {
      EXPECT_LE(e[i], 1e-6) << path << " d qacc / d " << names[i];
      if (e[i] > worst) worst = e[i], worst_model = path + " " + names[i];
    }
    ++ran;
  }
  std::printf("forward derivatives: %d models, worst relative error %.2e (%s)\n", ran, worst, worst_model.c_str());
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// d qfrc_inverse / d (qpos, qvel, qacc) without constraints.
TEST(AnalyticDerivative, InverseMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0 || test_models::too_large_for_subset(m.nv)) continue;
    m.opt.disableflags |= kDsblConstraint;
    Data d = make_data(m);
    random_state(m, d, 11);
    const int nv = m.nv;
    fill_normal(d.qacc.data(), nv, 5);
    Vec Fq(nv * nv), Fv(nv * nv), Fa(nv * nv);
    inverse_derivatives(m, d, Fq.data(), Fv.data(), Fa.data());
    auto g = [&](double* out) {
      inverse(m, d);
      std::copy_n(d.qfrc_inverse.begin(), nv, out);
    };
    const Vec fq = fd_qpos(m, d, nv, kEps, g);
    const Vec fv = fd_vec(d.qvel.data(), nv, nv, kEps, g);
    const Vec fa = fd_vec(d.qacc.data(), nv, nv, kEps, g);
    const double fs = fscale(nv, g);
    EXPECT_LE(rel_error(Fq, fq, fs), 1e-6) << path << " qpos";
    EXPECT_LE(rel_error(Fv, fv, fs), 1e-6) << path << " qvel";
    EXPECT_LE(rel_error(Fa, fa, fs), 1e-6) << path << " qacc";
    ++ran;
  }
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// Transition Jacobians by extrapolated centred differences of full steps (the reference of the
// tests below): x' in the tangent space of the nominal next state.
void fd_transition(const Model& m, Data& d, Vec& A, Vec& B) {
  const int nv = m.nv, na = m.na, nu = m.nu, ndx = 2 * nv + na;
  const Vec q0 = d.qpos, v0 = d.qvel, a0 = d.act, u0 = d.ctrl, w0 = d.qacc_warmstart;
  const double t0 = d.time;
  auto reset = [&] {
    d.qpos = q0, d.qvel = v0, d.act = a0, d.ctrl = u0, d.qacc_warmstart = w0, d.time = t0;
  };
  reset();
  step(m, d);
  const Vec qn = d.qpos;
  auto out = [&](double* o) {
    step(m, d);
    differentiate_pos(m, o, 1, qn.data(), d.qpos.data());
    std::copy_n(d.qvel.begin(), nv, o + nv);
    std::copy_n(d.act.begin(), na, o + 2 * nv);
  };
  A.assign(static_cast<size_t>(ndx) * ndx, 0.0);
  B.assign(static_cast<size_t>(ndx) * nu, 0.0);
  Vec dq(nv), o[4];
  for (auto& x : o) x.resize(ndx);
  const double h[4] = {kEps, -kEps, kEps / 2, -kEps / 2};
  for (int k = 0; k < ndx + nu; ++k) {
    for (int e = 0; e < 4; ++e) {
      reset();
      if (k < nv) {
        perturb_qpos(m, d.qpos.data(), dq, k, h[e]);
      } else if (k < 2 * nv) {
        d.qvel[k - nv] += h[e];
      } else if (k < ndx) {
        d.act[k - 2 * nv] += h[e];
      } else {
        d.ctrl[k - ndx] += h[e];
      }
      out(o[e].data());
    }
    for (int i = 0; i < ndx; ++i) {
      const double v = richardson(o[0][i], o[1][i], o[2][i], o[3][i], kEps);
      if (k < ndx)
        A[static_cast<size_t>(i) * ndx + k] = v;
      else
        B[static_cast<size_t>(i) * nu + (k - ndx)] = v;
    }
  }
  reset();
}

// transition_derivatives against fd_transition with constraints disabled, Euler, implicit and
// implicitfast, every model of the corpus (columns that fall back to finite differences check the
// assembly only); bound 1e-6 relative to max(|A|, 1).
TEST(AnalyticDerivative, TransitionSmoothMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  double worst = 0;
  std::string worst_model;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0 || m.nv > 200) continue;  // the reference costs 8 nv steps
    m.opt.disableflags |= kDsblConstraint;
    for (int integ : {kIntEuler, kIntImplicit, kIntImplicitFast}) {
      m.opt.integrator = integ;
      Data d = make_data(m);
      random_state(m, d, 3);
      const int ndx = 2 * m.nv + m.na, nu = m.nu;
      Vec A(ndx * ndx), B(ndx * nu), Af, Bf;
      transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
      fd_transition(m, d, Af, Bf);
      const double e[2] = {rel_error(A, Af, 0), nu ? rel_error(B, Bf, 0) : 0};
      for (int i = 0; i < 2; ++i) {
        EXPECT_LE(e[i], 1e-6) << path << (i ? " B" : " A") << ", integrator " << integ;
        if (e[i] > worst) worst = e[i], worst_model = path + (i ? " B" : " A") + " integrator " + std::to_string(integ);
      }
    }
    ++ran;
  }
  std::printf("transition derivatives: %d models x 3 integrators, worst relative error %.2e (%s)\n", ran, worst,
              worst_model.c_str());
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// With constraints: a state reached by simulating from the keyframe-free initial state (contacts,
// limits), the solver converged tightly (Newton, tolerance 1e-12), transition_derivatives against
// centred differences of full steps (eps 1e-6, so that the perturbed states keep the active set:
// checked, the test fails if a perturbation changes efc_state). Velocity, activation and control
// columns are the implicit-function-theorem derivative; position columns fall back to finite
// differences (the warning says so). Bound 1e-5 relative to max(|A|, 1).
void check_constrained(const std::string& path, int nsteps, int integrator, bool noslip = true) {
  Model m = load_model(path);
  if (!noslip) m.opt.noslip_iterations = 0;
  m.opt.integrator = integrator;
  m.opt.tolerance = 1e-12;
  m.opt.iterations = 200;
  Data d = make_data(m);
  std::mt19937 rng(9);
  std::normal_distribution<double> n01(0, 1);
  for (int u = 0; u < m.nu; ++u) d.ctrl[u] = m.actuator_ctrllimited[u] ? 0.3 * m.actuator_ctrlrange[2 * u + 1] : 0.1;
  for (int i = 0; i < nsteps; ++i) step(m, d);
  // noslip to convergence at the compared state only (the model's own sweeps on the way there): the
  // derivative given is that of the converged noslip solution
  if (m.opt.noslip_iterations > 0) m.opt.noslip_iterations = 2000, m.opt.noslip_tolerance = 0;
  for (int i = 0; i < m.nv; ++i) d.qvel[i] += 0.1 * n01(rng);
  // a muscle's activation converges to its control, where its dynamics switch between the
  // activation and deactivation time constants (a kink, where centred differences straddle both):
  // the control moves away from it
  for (int u = 0; u < m.nu; ++u)
    if (m.actuator_dyntype[u] == kDynMuscle) d.ctrl[u] += 0.1;
  // hinge joints past their upper limit by 0.007 (a limit row in every limited model); not 0.01 or
  // 0.005: the quadruped's limits have solimp width 0.01, whose impedance has a jump in its second
  // derivative at the width and at its midpoint, where centred differences err by O(eps)
  for (int j = 0; j < m.njnt; ++j)
    if (m.jnt_limited[j] && m.jnt_type[j] == kJointHinge) d.qpos[m.jnt_qposadr[j]] = m.jnt_range[2 * j + 1] + 0.007;
  forward(m, d);
  ASSERT_GT(d.nefc, 0) << path;
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const int nefc = d.nefc;
  const int ndx = 2 * m.nv + m.na, nu = m.nu;
  Vec A(ndx * ndx), B(ndx * nu), Af(ndx * ndx), Bf(ndx * nu);
  transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), nullptr, nullptr);
  // the active set of the nominal state is that of the last perturbed evaluation's neighbours too
  forward(m, d);
  ASSERT_EQ(d.nefc, nefc);
  EXPECT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << path;
  // velocity, activation and control columns (analytic)
  Vec Av, Afv;
  for (int i = 0; i < ndx; ++i)
    for (int k = m.nv; k < ndx; ++k) {
      Av.push_back(A[static_cast<size_t>(i) * ndx + k]);
      Afv.push_back(Af[static_cast<size_t>(i) * ndx + k]);
    }
  const double ev = rel_error(Av, Afv, 0), ea = rel_error(A, Af, 0), eb = nu ? rel_error(B, Bf, 0) : 0;
  std::printf("%s integrator %d (nefc %d): A qvel/act columns %.2e, A %.2e, B %.2e\n", path.c_str(), integrator, nefc, ev, ea, eb);
  EXPECT_LE(ev, 1e-5) << path;
  EXPECT_LE(ea, 1e-5) << path;
  EXPECT_LE(eb, 1e-5) << path;
}

TEST(AnalyticDerivative, TransitionConstrainedMatchesTransitionFd) {
  for (int integ : {kIntEuler, kIntImplicitFast, kIntImplicit})
    check_constrained(std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml", 300, integ);
  int skipped = 0;
  const char* rels[] = {"dm_control/quadruped.xml", "mujoco/mjx/mujoco/mjx/test_data/actuator/arm26.xml"};
  for (const char* rel : rels) {
    const std::string path = test_models::shared_model(rel);
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    for (int integ : {kIntEuler, kIntImplicitFast, kIntImplicit}) check_constrained(path, 300, integ);
  }
  MOREAU_SKIPPED_SHARED(skipped, 2);
}

// The dog (570 rows, noslip converged: the costliest comparison, 25 s in Release) with Euler only;
// the models above cover the implicit integrators. The sanitizer run (a model subset,
// MOREAU_MODEL_STRIDE > 1) leaves it out: there it takes ten minutes and runs no code path that
// the cases above and DogNoslipAllColumnsAnalytic (the dog's noslip derivative) do not.
TEST(AnalyticDerivative, TransitionConstrainedDogMatchesTransitionFd) {
  if (test_models::stride_from_env().first > 1) GTEST_SKIP() << "left out of the model subset (MOREAU_MODEL_STRIDE)";
  const std::string path = test_models::shared_model("dm_control/dog.xml");
  MOREAU_REQUIRE_MODEL(path);
  check_constrained(path, 300, kIntEuler);
}

// humanoid100 (the benchmark's state: keyframe 0, 200 steps, the humanoids fallen on the floor and
// on each other): 109 contacts of every kind the model has (plane with sphere, capsule, ellipsoid,
// cylinder and box; sphere-sphere, capsule-capsule; box-box; the MPR pairs capsule-ellipsoid,
// ellipsoid-ellipsoid, cylinder-cylinder), no column falling back. transition_derivatives against
// transition_fd (centred, eps 1e-6), Newton converged to 1e-12; bound 1e-5 relative to max(|A|, 1).
TEST(AnalyticDerivative, Humanoid100MatchesTransitionFd) {
  const std::string path = "/usr/share/mujoco/model/humanoid100/humanoid100.xml";
  Model m = load_model(path);
  m.opt.tolerance = 1e-12;
  m.opt.iterations = 200;
  Data d = make_data(m);
  if (m.nkey > 0) reset_data_keyframe(m, d, 0);
  for (int i = 0; i < 200; ++i) step(m, d);
  EXPECT_TRUE(state_fallbacks(m, d).empty());
  forward(m, d);
  int mpr = 0, box = 0;
  for (int i = 0; i < d.ncon; ++i) {
    const int t1 = m.geom_type[d.contact[i].geom1], t2 = m.geom_type[d.contact[i].geom2];
    mpr += t1 != kGeomPlane && (t1 == kGeomEllipsoid || t1 == kGeomCylinder || t2 == kGeomEllipsoid || t2 == kGeomCylinder);
    box += t1 == kGeomBox && t2 == kGeomBox;
  }
  EXPECT_GT(mpr, 0);
  EXPECT_GT(box, 0);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const int ndx = 2 * m.nv + m.na, nu = m.nu;
  Vec A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * nu), Af(A.size()), Bf(B.size());
  transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), nullptr, nullptr);
  forward(m, d);
  ASSERT_EQ(static_cast<size_t>(d.nefc), state.size());
  EXPECT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin()));
  const double ea = rel_error(A, Af, 0), eb = rel_error(B, Bf, 0);
  std::printf("humanoid100 (ncon %d: %d MPR, %d box-box; nefc %d): A %.2e, B %.2e\n", d.ncon, mpr, box, d.nefc, ea, eb);
  EXPECT_LE(ea, 1e-5);
  EXPECT_LE(eb, 1e-5);
}

// The dog at the benchmark's state (keyframe 0, 200 steps with its own 4 noslip sweeps: feet on the
// floor, every contact pair analytic), then noslip run to convergence (3000 sweeps, tolerance 0)
// and the main solver tight: every column of A and B analytic, through the noslip derivative,
// against transition_fd (centred, eps 1e-6), the active set of both passes checked unchanged.
TEST(AnalyticDerivative, DogNoslipAllColumnsAnalytic) {
  const std::string path = test_models::shared_model("dm_control/dog.xml");
  if (test_models::missing_shared(path)) {
    MOREAU_SKIPPED_SHARED(1, 1);
    return;
  }
  Model m = load_model(path);
  Data d = make_data(m);
  if (m.nkey > 0) reset_data_keyframe(m, d, 0);
  for (int i = 0; i < 200; ++i) step(m, d);
  ASSERT_GT(m.opt.noslip_iterations, 0);
  m.opt.noslip_iterations = 3000, m.opt.noslip_tolerance = 0;
  m.opt.tolerance = 1e-12, m.opt.iterations = 200;
  for (const std::string& f : derivative_fallbacks(m, d))  // only sensor rows (C, D) may fall back
    EXPECT_NE(f.find("(C, D rows)"), std::string::npos) << f;
  forward(m, d);
  ASSERT_GT(d.ncon, 0);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const int nefc = d.nefc, ndx = 2 * m.nv + m.na, nu = m.nu;
  Vec A(ndx * ndx), B(ndx * nu), Af(ndx * ndx), Bf(ndx * nu);
  transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), nullptr, nullptr);
  forward(m, d);
  ASSERT_EQ(d.nefc, nefc);
  EXPECT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin()));
  const double ea = rel_error(A, Af, 0), eb = rel_error(B, Bf, 0);
  std::printf("dog, noslip converged (nefc %d, %d contacts): A %.2e, B %.2e\n", nefc, d.ncon, ea, eb);
  EXPECT_LE(ea, 1e-5);
  EXPECT_LE(eb, 1e-5);
}

// Constraint position derivatives (analytic): a box, a capsule and a sphere pressed into a plane
// (pyramidal cones, condim 3 from the bodies' geoms; a frictionless sphere, condim 1), a hinge chain past its limit with dof
// friction, tilted and spinning so that the contact frames and points move. Every column of
// d qacc/d qpos against centred differences of forward at eps 1e-7 (small enough that no contact
// changes its state: checked), bound 1e-5 relative to max(|fd|, |qacc|, 1).
const char* kContactScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <geom type="plane" size="5 5 .1" condim="1"/>
    <body pos="0 0 .07" euler="4 3 10">
      <freejoint/>
      <geom type="box" size=".1 .15 .1" mass="2"/>
    </body>
    <body pos="1 0 .08" euler="87 3 20">
      <freejoint/>
      <geom type="capsule" size=".1 .2" mass="1"/>
    </body>
    <body pos="2 0 .098">
      <freejoint/>
      <geom type="sphere" size=".1" mass="1"/>
    </body>
    <body pos="3 0 .097">
      <freejoint/>
      <geom type="sphere" size=".1" mass="1" condim="1"/>
    </body>
    <body pos="0 2 1">
      <joint name="h1" type="hinge" axis="0 1 0" range="-30 30" limited="true" frictionloss=".2" damping=".1"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <body pos=".5 0 0">
        <joint type="hinge" axis="0 1 0" range="-20 20" limited="true" stiffness="3"/>
        <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="h1" ctrllimited="true" ctrlrange="-1 1"/>
  </actuator>
</mujoco>)";

// d qacc / d qpos by centred differences (eps 1e-7 along each tangent direction) with the active
// set held: a perturbation that changes a row's state fails the test (label names it). Returns the
// relative error of Aq against them, the worst column, the scale max(1, max |qacc|) and whether
// every column was compared (no fatal failure).
struct QposColumns {
  double error = 0, scale = 1;
  int worst_col = 0;
  bool done = false;
};
void qpos_columns_by_fd(const Model& m, Data& d, const std::vector<int>& state, const Vec& Aq, QposColumns* out,
                        const std::string& label = "") {
  const int nv = m.nv, nefc = static_cast<int>(state.size());
  const Vec q0 = d.qpos, qacc0(d.qacc.begin(), d.qacc.begin() + nv);
  double fs = 1;
  for (double x : qacc0) fs = std::max(fs, std::abs(x));
  const double eps = 1e-7;
  const std::string where = label.empty() ? "" : label + " ";
  Vec dq(nv), p(nv), n(nv), fq(nv * nv);
  for (int k = 0; k < nv; ++k) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      d.qpos = q0;
      perturb_qpos(m, d.qpos.data(), dq, k, sgn * eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc) << label;
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << where << "column " << k;
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    for (int i = 0; i < nv; ++i) fq[i * nv + k] = (p[i] - n[i]) / (2 * eps);
  }
  d.qpos = q0;
  out->error = rel_error(Aq, fq, fs);
  out->scale = fs;
  double wc = 0;
  for (int k = 0; k < nv; ++k)
    for (int i = 0; i < nv; ++i)
      if (std::abs(Aq[i * nv + k] - fq[i * nv + k]) > wc) wc = std::abs(Aq[i * nv + k] - fq[i * nv + k]), out->worst_col = k;
  out->done = true;
}

TEST(AnalyticDerivative, ConstraintPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kContactScene);
  Data d = make_data(m);
  fill_normal(d.qvel.data(), m.nv, 4, 0.3);
  d.qpos[m.nq - 2] = 0.6;   // past the first limit (30 deg = 0.52)
  d.qpos[m.nq - 1] = -0.4;  // past the second (20 deg = 0.35)
  d.ctrl[0] = 0.5;
  EXPECT_TRUE(state_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  // 4 box corners, 2 capsule ends and a sphere (4 pyramid rows each), a frictionless sphere, two
  // limits, the dof friction row
  ASSERT_EQ(d.ncon, 8);
  ASSERT_EQ(nefc, 7 * 4 + 1 + 2 + 1);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv), Av(nv * nv);
  forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, nullptr, nullptr);
  QposColumns fd;
  qpos_columns_by_fd(m, d, state, Aq, &fd);
  if (HasFatalFailure()) return;
  const double e = fd.error, fs = fd.scale;
  const int worst_col = fd.worst_col;
  std::printf("contact scene (nefc %d): d qacc/d qpos relative error %.2e (worst column %d), max |fd| %.3g\n", nefc,
              e, worst_col, fs);
  EXPECT_LE(e, 1e-5);
}

// The noslip post-pass: a box sliding fast on a plane (its friction pairs end on the cone: one
// edge of each pair at zero), a sphere and a tilted capsule (one end down) creeping (every pair
// inside), a hinge with friction loss turning slowly (the row inside its bound) and one turning
// fast (at its bound), a motor on the first. noslip runs to convergence (tolerance 0, 20000
// sweeps: the derivative given is that of the converged solution). The penetrations avoid the
// kinks of the impedance (its width and midpoint). d qacc/d (qpos, qvel, ctrl,
// qfrc_applied) against centred differences (eps 1e-7) with the active set of both passes held
// (efc_state after noslip marks the pyramid edges at zero and the friction rows at their bound).
const char* kNoslipScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-14" iterations="300" noslip_iterations="20000" noslip_tolerance="0"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .0993" euler="0 0 10">
      <freejoint/>
      <geom type="box" size=".1 .15 .1" mass="2"/>
    </body>
    <body pos="1 0 .0985">
      <freejoint/>
      <geom type="sphere" size=".1" mass="1" friction=".7"/>
    </body>
    <body pos="2 0 .1485" euler="0 60 10">
      <freejoint/>
      <geom type="capsule" size=".05 .2" mass="1"/>
    </body>
    <body pos="0 2 1">
      <joint name="h1" type="hinge" axis="0 1 0" frictionloss="100"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <body pos=".5 0 0">
        <joint name="h2" type="hinge" axis="0 1 0" frictionloss=".05"/>
        <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="h1"/>
  </actuator>
</mujoco>)";

TEST(AnalyticDerivative, NoslipMatchesCentredDifferences) {
  Model m = load_model_from_string(kNoslipScene);
  Data d = make_data(m);
  const int nv = m.nv, nu = m.nu;
  d.qvel[0] = 1.0, d.qvel[1] = 0.3, d.qvel[5] = 0.5;  // sliding box
  d.qvel[6] = 0.01, d.qvel[7] = -0.005;              // creeping sphere
  d.qvel[12] = -0.01, d.qvel[16] = 0.02;             // creeping capsule
  d.qvel[18] = 0.05, d.qvel[19] = 5.0;               // slow h1, fast h2
  d.ctrl[0] = 0.2;
  EXPECT_TRUE(state_fallbacks(m, d).empty());
  forward(m, d);
  const int nefc = d.nefc;
  ASSERT_EQ(d.ncon, 6);
  ASSERT_EQ(nefc, 6 * 4 + 2);
  // the active set: edges at zero on the sliding box, none on the sphere, h1 inside and h2 at its
  // bound
  // (rows: the two friction-loss rows, then the contacts, the sliding box's first)
  ASSERT_EQ(d.efc_type[0], kCnstrFrictionDof);
  ASSERT_EQ(d.efc_type[2], kCnstrContactPyramidal);
  int zero_edges = 0;
  for (int r = 2; r < 18; ++r) zero_edges += d.efc_force[r] == 0;
  EXPECT_GT(zero_edges, 0);
  for (int r = 18; r < 22; ++r) EXPECT_GT(d.efc_force[r], 0);
  EXPECT_LT(std::abs(d.efc_force[0]), 100);
  EXPECT_EQ(std::abs(d.efc_force[1]), 0.05);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv), Av(nv * nv), Au(nv * nu), Af(nv * nv);
  forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, Au.data(), Af.data());
  const Vec q0 = d.qpos, v0 = d.qvel, u0 = d.ctrl, f0 = d.qfrc_applied;
  double fs = 1;
  for (int i = 0; i < nv; ++i) fs = std::max(fs, std::abs(d.qacc[i]));
  const double eps = 1e-7;
  // centred column along a perturbation of the state, the active set checked
  auto column = [&](auto perturb, double* out) {
    Vec p(nv), n(nv);
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      d.qpos = q0, d.qvel = v0, d.ctrl = u0, d.qfrc_applied = f0;
      perturb(sgn * eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin()));
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    for (int i = 0; i < nv; ++i) out[i] = (p[i] - n[i]) / (2 * eps);
  };
  Vec fq(nv * nv), fv(nv * nv), fu(nv * nu), ff(nv * nv), col(nv), dq(nv);
  auto put = [&](Vec& M, int ncol, int k) {
    for (int i = 0; i < nv; ++i) M[i * ncol + k] = col[i];
  };
  for (int k = 0; k < nv; ++k) {
    column([&](double e) { perturb_qpos(m, d.qpos.data(), dq, k, e); }, col.data());
    if (HasFatalFailure()) return;
    put(fq, nv, k);
    column([&](double e) { d.qvel[k] += e; }, col.data());
    if (HasFatalFailure()) return;
    put(fv, nv, k);
    column([&](double e) { d.qfrc_applied[k] += e; }, col.data());
    if (HasFatalFailure()) return;
    put(ff, nv, k);
  }
  for (int k = 0; k < nu; ++k) {
    column([&](double e) { d.ctrl[k] += e; }, col.data());
    if (HasFatalFailure()) return;
    put(fu, nu, k);
  }
  d.qpos = q0, d.qvel = v0, d.ctrl = u0, d.qfrc_applied = f0;
  const double e[4] = {rel_error(Aq, fq, fs), rel_error(Av, fv, fs), rel_error(Au, fu, fs), rel_error(Af, ff, fs)};
  std::printf("noslip scene (nefc %d, %d edges at zero): d qacc/d qpos %.2e, qvel %.2e, ctrl %.2e, qfrc_applied %.2e\n",
              nefc, zero_edges, e[0], e[1], e[2], e[3]);
  for (double x : e) EXPECT_LE(x, 1e-5);
}

// Sphere and capsule pairs between moving bodies: crossing capsules (both segment parameters
// free), a sphere on a capsule's side (one free), a capsule's end on another capsule (end fixed,
// other free), two spheres, and two sibling capsules hinged to one free body (a dof common to both
// bodies). Same check as above.
const char* kRoundScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <body pos="0 0 .5" euler="0 90 5"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="0.02 0.03 .69" euler="90 3 -4"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="2 0 .5" euler="0 90 0"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="2.05 0.02 .695"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="4 0 .5"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="4.1 0.03 .665"><freejoint/><geom type="sphere" size=".12"/></body>
    <body pos="6 0 .5" euler="0 80 0"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="6.43 0.02 .45" euler="0 3 10"><freejoint/><geom type="capsule" size=".05 .2"/></body>
    <body pos="8 0 .5">
      <freejoint/>
      <geom type="sphere" size=".05" contype="0" conaffinity="0"/>
      <body pos=".2 0 0">
        <joint type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="-.2 0 0 .2 0 0" size=".05"/>
      </body>
      <body pos=".2 0 .095">
        <joint type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 -.2 0 0 .2 0" size=".05"/>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, RoundPairPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kRoundScene);
  Data d = make_data(m);
  fill_normal(d.qvel.data(), m.nv, 6, 0.3);
  EXPECT_TRUE(state_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  ASSERT_EQ(d.ncon, 5);
  ASSERT_EQ(nefc, 20);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  QposColumns fd;
  qpos_columns_by_fd(m, d, state, Aq, &fd);
  if (HasFatalFailure()) return;
  const double e = fd.error, fs = fd.scale;
  const int worst_col = fd.worst_col;
  std::printf("round pairs (nefc %d): d qacc/d qpos relative error %.2e (worst column %d), max |fd| %.3g\n", nefc, e,
              worst_col, fs);
  EXPECT_LE(e, 1e-5);
}

// d qacc/d qpos of a scene (random velocities, seed) against centred differences with the active set
// held (qpos_columns_by_fd); the scene must have ncon contacts. Returns the relative error (or -1
// after a fatal failure) and prints it.
double scene_qpos_error(const char* xml, const char* name, int ncon, unsigned seed = 7) {
  Model m = load_model_from_string(xml);
  Data d = make_data(m);
  fill_normal(d.qvel.data(), m.nv, seed, 0.3);
  EXPECT_TRUE(state_fallbacks(m, d).empty()) << name;
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  EXPECT_EQ(d.ncon, ncon) << name;
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  QposColumns fd;
  qpos_columns_by_fd(m, d, state, Aq, &fd);
  if (::testing::Test::HasFatalFailure()) return -1;
  std::printf("%s (ncon %d, nefc %d): d qacc/d qpos relative error %.2e (worst column %d), max |fd| %.3g\n", name,
              d.ncon, nefc, fd.error, fd.worst_col, fd.scale);
  return fd.error;
}

// The contact geometry's derivative itself (contact_geometry.h): d (pos, dist, frame) of every
// contact along every dof against centred differences of the contacts of forward (eps, the contact
// set unchanged: checked). Returns the largest error relative to max(1, |derivative|) per
// contact, and prints the worst contact.
double contact_geometry_error(const char* xml, int ncon, double eps = 1e-7) {
  Model m = load_model_from_string(xml);
  Data d = make_data(m);
  forward(m, d);
  EXPECT_EQ(d.ncon, ncon);
  const int nv = m.nv, nc = d.ncon;
  std::vector<internal::ContactJacobian> cj(nc);
  for (int i = 0; i < nc; ++i) internal::contact_jacobian(m, d, i, &cj[i]);
  auto on = [&](int body, int k) {
    for (int j = internal::last_dof(m, body); j >= 0; j = m.dof_parentid[j])
      if (j == k) return true;
    return false;
  };
  Vec an(static_cast<size_t>(nc) * 13 * nv);
  for (int i = 0; i < nc; ++i) {
    const Contact& c = d.contact[i];
    const int b1 = m.geom_bodyid[c.geom1], b2 = m.geom_bodyid[c.geom2];
    for (int k = 0; k < nv; ++k) {
      double y[13];
      internal::contact_jacobian_apply(m, d, c, cj[i], &d.cdof[6 * k], on(b1, k), on(b2, k),
                                       &d.subtree_com[3 * m.body_rootid[b1]], &d.subtree_com[3 * m.body_rootid[b2]],
                                       y, y + 3, y + 4);
      for (int r = 0; r < 13; ++r) an[(static_cast<size_t>(i) * 13 + r) * nv + k] = y[r];
    }
  }
  const Vec q0 = d.qpos;
  Vec dq(nv), yp(nc * 13), yn(nc * 13);
  double worst = 0;
  int worst_contact = -1, worst_dof = -1;
  Vec err(nc, 0.0);
  for (int k = 0; k < nv; ++k) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      d.qpos = q0;
      perturb_qpos(m, d.qpos.data(), dq, k, sgn * eps);
      forward(m, d);
      EXPECT_EQ(d.ncon, nc) << "dof " << k;
      if (d.ncon != nc) return 1e300;
      for (int i = 0; i < nc; ++i) {
        double* y = (sgn > 0 ? yp.data() : yn.data()) + 13 * i;
        std::copy_n(d.contact[i].pos, 3, y);
        y[3] = d.contact[i].dist;
        std::copy_n(d.contact[i].frame, 9, y + 4);
      }
    }
    for (int i = 0; i < nc; ++i)
      for (int r = 0; r < 13; ++r) {
        const double fd = (yp[13 * i + r] - yn[13 * i + r]) / (2 * eps);
        const double a = an[(static_cast<size_t>(i) * 13 + r) * nv + k];
        const double e = std::abs(a - fd) / std::max(1.0, std::abs(fd));
        err[i] = std::max(err[i], e);
        if (e > worst) worst = e, worst_contact = i, worst_dof = k;
      }
  }
  d.qpos = q0;
  forward(m, d);
  for (int i = 0; i < nc; ++i)
    std::printf("  contact %d (geoms %d %d, types %d %d, dist %.4f): error %.2e\n", i, d.contact[i].geom1,
                d.contact[i].geom2, m.geom_type[d.contact[i].geom1], m.geom_type[d.contact[i].geom2], d.contact[i].dist,
                err[i]);
  std::printf("contact geometry: worst %.2e (contact %d, dof %d)\n", worst, worst_contact, worst_dof);
  return worst;
}

// Both checks on a pair scene: the contact geometry's derivative (bound 1e-6, differences at
// geometry_eps) and d qacc/d qpos (bound 1e-5).
void check_pair_scene(const char* xml, const char* name, int ncon, double geometry_eps = 1e-7) {
  EXPECT_LE(contact_geometry_error(xml, ncon, geometry_eps), 1e-6) << name;
  const double e = scene_qpos_error(xml, name, ncon);
  EXPECT_GE(e, 0) << name;
  EXPECT_LE(e, 1e-5) << name;
}

// Box pairs (box-box, capsule-box and sphere-box in closed form; contact_geometry.cc): a tilted box resting on a box on a free body (face contact), a
// box edge across another box's edge (edge-edge), a sphere on a box's face, on its edge and with
// its centre inside one, a capsule on a box, the lower boxes on the plane.
const char* kBoxScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .098"><freejoint/><geom type="box" size=".2 .2 .1"/></body>
    <body pos=".03 .02 .293" euler="3 2 20"><freejoint/><geom type="box" size=".1 .08 .1"/></body>
    <body pos="1 0 .3" euler="45 0 0"><freejoint/><geom type="box" size=".2 .1 .1"/></body>
    <body pos="1.01 .02 .578" euler="3 45 0"><freejoint/><geom type="box" size=".1 .2 .1"/></body>
    <body pos="2 0 .098"><freejoint/><geom type="box" size=".2 .2 .1"/></body>
    <body pos="2.05 .03 .2965"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="3 0 .098"><freejoint/><geom type="box" size=".2 .2 .1"/></body>
    <body pos="3.02 .01 .297" euler="86 0 10"><freejoint/><geom type="capsule" size=".1 .15"/></body>
    <body pos="4 0 .098" euler="0 0 5"><freejoint/><geom type="box" size=".2 .2 .1"/></body>
    <body pos="4.25 .03 .23"><freejoint/><geom type="sphere" size=".07"/></body>
    <body pos="5 0 .098" euler="0 0 5"><freejoint/><geom type="box" size=".2 .2 .1"/></body>
    <body pos="5.02 .01 .17"><freejoint/><geom type="sphere" size=".05"/></body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, BoxPairPositionMatchesCentredDifferences) {
  check_pair_scene(kBoxScene, "box pairs", 28);
}

// Plane pairs (analytic): an ellipsoid, a lying and a tilted upright cylinder, a mesh on the plane
// (planes are static: 2.2.2 allows them in bodies welded to the world only).
const char* kPlaneScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <asset><mesh name="tet" vertex="0 0 0  .2 0 0  0 .2 0  0 0 .2  .15 .15 .05"/></asset>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .065" euler="10 20 5"><freejoint/><geom type="ellipsoid" size=".15 .1 .07"/></body>
    <body pos="1 0 .098" euler="85 5 10"><freejoint/><geom type="cylinder" size=".1 .15"/></body>
    <body pos="2 0 .046" euler="2 1 0"><freejoint/><geom type="cylinder" size=".1 .05"/></body>
    <body pos="3 0 -.01" euler="20 -15 10"><freejoint/><geom type="mesh" mesh="tet"/></body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, PlanePairPositionMatchesCentredDifferences) {
  check_pair_scene(kPlaneScene, "plane pairs", 6);
}

// MPR pairs where libccd's refinement is smooth under small perturbations (ellipsoid on a box,
// capsule on an ellipsoid, ellipsoid on an ellipsoid, sphere on an ellipsoid; hinged lower geoms):
// the narrow-phase differences against centred differences of forward (eps 1e-6: MPR's own
// round-off is ~1e-13, 1e-7 differences have 1e-7 noise), bound 1e-6 on the contact geometry and
// 1e-5 on d qacc/d qpos. The witness approximation (the fallback where MPR jumps) measured on the
// same contacts against these and printed: errors of order 1, a rough approximation (no bound).
const char* kMprScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <body pos="0 0 .1"><joint type="hinge" axis="0 1 0"/><geom type="box" size=".2 .2 .1"/></body>
    <body pos=".02 .01 .265" euler="10 20 5"><freejoint/><geom type="ellipsoid" size=".15 .1 .07"/></body>
    <body pos="3 0 .1" euler="0 10 0"><joint type="hinge" axis="0 1 0"/><geom type="ellipsoid" size=".3 .2 .1"/></body>
    <body pos="3.05 0 .28" euler="80 0 0"><freejoint/><geom type="capsule" size=".08 .2"/></body>
    <body pos="5 0 .1" euler="5 10 0"><joint type="hinge" axis="1 0 0"/><geom type="ellipsoid" size=".3 .2 .1"/></body>
    <body pos="5.05 0 .27" euler="20 0 30"><freejoint/><geom type="ellipsoid" size=".2 .1 .08"/></body>
    <body pos="7 0 .1" euler="0 10 0"><joint type="hinge" axis="0 1 0"/><geom type="ellipsoid" size=".3 .2 .1"/></body>
    <body pos="7.05 .02 .26"><freejoint/><geom type="sphere" size=".07"/></body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, MprPairPositionMatchesCentredDifferences) {
  check_pair_scene(kMprScene, "MPR pairs", 4, 1e-6);
  // the witness approximation on the same contacts, against the differences: relative to the
  // largest entry of each quantity (pos, dist, frame) over the contact's 12 columns
  Model m = load_model_from_string(kMprScene);
  Data d = make_data(m);
  forward(m, d);
  ASSERT_EQ(d.ncon, 4);
  {
    double worst[3] = {0, 0, 0};
    for (int i = 0; i < d.ncon; ++i) {
      internal::ContactJacobian fine, approx;
      internal::contact_jacobian(m, d, i, &fine);
      internal::contact_jacobian(m, d, i, &approx, true);
      for (int q = 0; q < 3; ++q) {
        const int r0 = q == 0 ? 0 : q == 1 ? 3 : 4, r1 = q == 0 ? 3 : q == 1 ? 4 : 13;
        double scale = 0, err = 0;
        for (int r = r0; r < r1; ++r)
          for (int j = 0; j < 12; ++j) {
            scale = std::max(scale, std::abs(fine.G[12 * r + j]));
            err = std::max(err, std::abs(approx.G[12 * r + j] - fine.G[12 * r + j]));
          }
        worst[q] = std::max(worst[q], err / scale);
      }
    }
    std::printf("witness approximation on the MPR scene: d pos %.2e, d dist %.2e, d frame %.2e (relative)\n",
                worst[0], worst[1], worst[2]);
  }
}

// MPR contacts on flat faces, where the model's MPR (tolerance 1e-6) jumps under 1e-6
// perturbations and centred differences of forward are meaningless (they grow as 1/eps): a sphere
// on the flat top of a static cylinder, a lying cylinder on a hinged box, a mesh on a box on a
// slide. Their derivative is that of MPR run to convergence (checked: the method used). The
// sphere's has a closed form, n = -z (from the sphere to the cylinder), dist = z - r - top,
// pos = (x, y, (z - r + top) / 2): along the sphere's twist, d pos = diag(1, 1, 1/2) v,
// d dist = v_z, nothing along its rotation, d frame = 0; matched within 1e-2 (the fallback's
// agreement bound; measured printed).
const char* kMprJumpScene = R"(
<mujoco>
  <asset><mesh name="tet" vertex="0 0 0  .2 0 0  0 .2 0  0 0 .2  .15 .15 .05"/></asset>
  <worldbody>
    <geom type="cylinder" size=".2 .1" pos="4 0 .1"/>
    <body pos="4.05 .02 .295"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="1 0 .1"><joint type="hinge" axis="1 0 0"/><geom type="box" size=".2 .2 .1"/></body>
    <body pos="1 .02 .296" euler="85 5 10"><freejoint/><geom type="cylinder" size=".1 .15"/></body>
    <body pos="2 0 .1"><joint type="slide" axis="0 0 1"/><geom type="box" size=".2 .2 .1"/></body>
    <body pos="2 0 .19" euler="20 -15 10"><freejoint/><geom type="mesh" mesh="tet"/></body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, JumpingMprUsesConvergedMpr) {
  Model m = load_model_from_string(kMprJumpScene);
  Data d = make_data(m);
  EXPECT_TRUE(state_fallbacks(m, d).empty());
  forward(m, d);
  ASSERT_EQ(d.ncon, 3);
  double worst = 0;
  for (int i = 0; i < d.ncon; ++i) {
    internal::ContactJacobian cj;
    EXPECT_EQ(internal::contact_jacobian(m, d, i, &cj), internal::ContactDerivMethod::kConvergedMpr) << i;
    if (m.geom_type[d.contact[i].geom1] != kGeomSphere) continue;
    for (int r = 0; r < 13; ++r)
      for (int j = 0; j < 6; ++j) {  // the sphere is geom1: columns 0..5
        double exact = 0;
        if (j >= 3 && r < 3 && r == j - 3) exact = r < 2 ? 1 : 0.5;
        if (j == 5 && r == 3) exact = 1;
        worst = std::max(worst, std::abs(cj.G[12 * r + j] - exact));
      }
  }
  std::printf("sphere on a cylinder's top by converged MPR: largest error %.2e against the closed form\n", worst);
  EXPECT_LE(worst, 1e-2);
  Vec Aq(static_cast<size_t>(m.nv) * m.nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  for (double x : Aq) ASSERT_TRUE(std::isfinite(x));
}

// Height-field contacts (MPR against the field's prisms, several per geom): a sphere and a capsule
// on a bumpy 5 x 5 field; narrow-phase differences (eps 1e-6 for the contact geometry, as MPR).
const char* kHfieldScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <asset>
    <hfield name="h" nrow="5" ncol="5" size="1 1 .2 .1"
            elevation="0 .3 .1 .5 .2  .4 .1 .6 .2 .3  .2 .5 .3 .1 .4  .6 .2 .4 .3 .1  .1 .3 .2 .5 .2"/>
  </asset>
  <worldbody>
    <geom type="hfield" hfield="h"/>
    <body pos=".1 .12 .19"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos=".5 -.5 .17" euler="10 5 20"><freejoint/><geom type="capsule" size=".06 .1"/></body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, HfieldPositionMatchesCentredDifferences) {
  check_pair_scene(kHfieldScene, "height field", 8, 1e-6);
}

// Parallel capsules (a line contact: the two end contacts, each an end's centre against the closest
// point of the other segment), the upper one on three slides so that every perturbation keeps the
// axes parallel (any rotation makes the narrow phase give one contact instead: the derivative is
// that of the current contact set).
const char* kParallelScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <geom type="capsule" fromto="-.3 0 0 .3 0 0" size=".1"/>
    <body pos=".2 .03 .195">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/><joint type="slide" axis="0 0 1"/>
      <geom type="capsule" fromto="-.3 0 0 .3 0 0" size=".1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, ParallelCapsulesPositionMatchesCentredDifferences) {
  const double e = scene_qpos_error(kParallelScene, "parallel capsules", 2);
  EXPECT_GE(e, 0);
  EXPECT_LE(e, 1e-5);
}

// Elliptic cones (the cone Hessian in H, in the aref term and in the position term): the contact
// scene with cone="elliptic" and impratio 2, d qacc/d (qvel, qpos) against centred differences
// (eps 1e-7, active set checked), bound 1e-5.
TEST(AnalyticDerivative, EllipticConesMatchCentredDifferences) {
  Model m = load_model_from_string(kContactScene);
  m.opt.cone = kConeElliptic;
  m.opt.impratio = 2;
  Data d = make_data(m);
  fill_normal(d.qvel.data(), m.nv, 4, 0.3);
  d.qpos[m.nq - 2] = 0.6;
  d.qpos[m.nq - 1] = -0.4;
  EXPECT_TRUE(state_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  int cone = 0;
  for (int r = 0; r < nefc; ++r) cone += d.efc_state[r] == kCnstrCone;
  EXPECT_GT(cone, 0);  // some contacts in the cone's middle zone
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Av(nv * nv), Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, nullptr, nullptr);
  QposColumns fq;
  qpos_columns_by_fd(m, d, state, Aq, &fq, "qpos");
  if (!fq.done) return;
  const double fs = fq.scale, eps = 1e-7;
  Vec p(nv), n(nv), fv(nv * nv);
  for (int k = 0; k < nv; ++k) {
    const double v0 = d.qvel[k];
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      d.qvel[k] = v0 + sgn * eps;
      forward(m, d);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << "column " << k;
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    d.qvel[k] = v0;
    for (int i = 0; i < nv; ++i) fv[i * nv + k] = (p[i] - n[i]) / (2 * eps);
  }
  const double e = rel_error(Av, fv, fs), eq = fq.error;
  std::printf("elliptic cones (nefc %d, %d rows in the cone zone): d qacc/d qvel %.2e, d qacc/d qpos %.2e\n", nefc,
              cone, e, eq);
  EXPECT_LE(e, 1e-5);
  EXPECT_LE(eq, 1e-5);
}

// Joint and fixed-tendon equality rows with nonlinear polynomials (the row's J depends on the
// second joint / tendon), and the quadruped's tendon couplings: d qacc/d qpos against centred
// differences (eps 1e-7, active set checked), bound 1e-5.
const char* kEqualityScene = R"(
<mujoco>
  <option tolerance="1e-13" iterations="300"/>
  <worldbody>
    <body>
      <joint name="a" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body pos=".4 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
        <body pos=".4 0 0">
          <joint name="c" type="hinge" axis="0 0 1"/>
          <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
          <body pos=".3 0 0">
            <joint name="s" type="slide" axis="1 0 0"/>
            <geom type="sphere" size=".05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t1"><joint joint="a" coef="1"/><joint joint="c" coef="-.5"/></fixed>
    <fixed name="t2"><joint joint="s" coef="2"/></fixed>
  </tendon>
  <equality>
    <joint joint1="b" joint2="a" polycoef=".1 .5 .8 -.3 .2"/>
    <tendon tendon1="t1" tendon2="t2" polycoef="0 .4 1.5 .2 0"/>
  </equality>
</mujoco>)";

void check_qpos_columns(const Model& m, Data& d, const std::string& label) {
  EXPECT_TRUE(state_fallbacks(m, d).empty()) << label;
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  ASSERT_GT(nefc, 0) << label;
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  QposColumns fd;
  qpos_columns_by_fd(m, d, state, Aq, &fd, label);
  if (!fd.done) return;
  const double e = fd.error;
  std::printf("%s (nefc %d): d qacc/d qpos relative error %.2e\n", label.c_str(), nefc, e);
  EXPECT_LE(e, 1e-5) << label;
}

TEST(AnalyticDerivative, EqualityPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kEqualityScene);
  Data d = make_data(m);
  const double q[4] = {0.3, -0.2, 0.4, 0.05};
  for (int i = 0; i < 4; ++i) d.qpos[i] = q[i], d.qvel[i] = 0.5 - 0.3 * i;
  check_qpos_columns(m, d, "joint and tendon equality");
  const std::string quadruped = test_models::shared_model("dm_control/quadruped.xml");
  MOREAU_REQUIRE_MODEL(quadruped);
  Model mq = load_model(quadruped);
  mq.opt.tolerance = 1e-13;
  mq.opt.iterations = 300;
  Data dq = make_data(mq);
  for (int i = 0; i < 300; ++i) step(mq, dq);
  check_qpos_columns(mq, dq, "quadruped");
}

// Connect and weld rows: a connect between a hinge chain's tip and a free body, one between two
// bodies of the chain (shared ancestors), a weld of a free body to the world and one between two
// free bodies (torquescale 0.7 and 1.3); a wide solimp so that the impedance varies with the
// residual norm. d qacc/d qpos against centred differences (eps 1e-7, active set checked), bound
// 1e-5 as the other constraint tests.
const char* kConnectWeldScene = R"(
<mujoco>
  <option tolerance="1e-13" iterations="300"/>
  <default><equality solimp="0.8 0.95 0.5 0.5 2" solref="0.05 1"/></default>
  <worldbody>
    <body name="a">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body name="b" pos=".4 0 0">
        <joint type="hinge" axis="0 0 1"/>
        <joint type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      </body>
    </body>
    <body name="f" pos=".75 0 0">
      <freejoint/>
      <geom type="box" size=".05 .04 .03"/>
    </body>
    <body name="w" pos="0 .5 .2" euler="10 20 30">
      <freejoint/>
      <geom type="box" size=".05 .06 .07"/>
    </body>
    <body name="v" pos=".2 .5 .2">
      <freejoint/>
      <geom type="box" size=".04 .03 .05"/>
    </body>
  </worldbody>
  <contact><exclude body1="b" body2="f"/></contact>
  <equality>
    <connect body1="b" body2="f" anchor=".3 0 0"/>
    <connect body1="a" body2="b" anchor=".3 .05 0"/>
    <weld body1="w" torquescale="0.7"/>
    <weld body1="v" body2="w" torquescale="1.3"/>
  </equality>
</mujoco>)";

TEST(AnalyticDerivative, ConnectWeldPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kConnectWeldScene);
  Data d = make_data(m);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  Vec dq(m.nv);
  for (int i = 0; i < m.nv; ++i) dq[i] = 0.15 * u(rng), d.qvel[i] = u(rng);
  integrate_pos(m, d.qpos.data(), dq.data(), 1.0);
  forward(m, d);
  int eq = 0;
  for (int r = 0; r < d.nefc; ++r) eq += d.efc_type[r] == kCnstrEquality;
  ASSERT_EQ(eq, 3 + 3 + 6 + 6);
  check_qpos_columns(m, d, "connect and weld");
}

}  // namespace
}  // namespace moreau

// Position derivatives of ball/free joint springs, gravity compensation and xfrc_applied
// (src/derivative/passive_pos.cc) against centred differences of forward and inverse.
//
// Constraints are off, so qacc is smooth in qpos: centred differences at h = 1e-4 and h/2,
// extrapolated (Richardson: truncation O(h^4) ~ 1e-16, round-off ~ 1e-16 |qacc| / h ~ 1e-12 |qacc|),
// error max |an - fd| / max(max |fd|, max |qacc|, 1), bound 1e-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "derivative_test_util.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::fd_qpos;
using testing::fd_vec;
using testing::fill_normal;
using testing::max_abs;
using testing::perturb_qpos;
using testing::rel_error;
using testing::Vec;
constexpr double kH = 1e-4;

// A free body carrying a ball joint (a hinge and a slide in the chain below), a ball joint on the
// world with a hinge child, and a hinge chain: every joint type, springs with nonzero qpos_spring
// offsets from the state.
const char* kScene = R"(
<mujoco>
  <option gravity="0.3 -0.5 -9.81">
    <flag constraint="disable"/>
  </option>
  <worldbody>
    <body name="free" pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .2 .15" mass="2"/>
      <body name="ballchild" pos=".3 0 0">
        <joint type="ball" damping=".1"/>
        <geom type="capsule" fromto="0 0 0 .3 .1 0" size=".04"/>
        <body pos=".3 .1 0">
          <joint type="hinge" axis="0 1 1"/>
          <joint type="slide" axis="1 0 0"/>
          <geom type="sphere" size=".05" pos=".1 0 0"/>
        </body>
      </body>
    </body>
    <body name="ballroot" pos="1 0 1">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 0 .2 -.3" size=".05"/>
      <body pos="0 .2 -.3">
        <joint type="hinge" axis="1 0 0"/>
        <geom type="box" size=".05 .05 .1" pos="0 0 -.1"/>
      </body>
    </body>
    <body name="hinged" pos="-1 0 1">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      <body pos=".3 0 0">
        <joint type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 .3 0 .1" size=".04"/>
      </body>
    </body>
  </worldbody>
</mujoco>)";

// A random state: a tangent step of 0.5 per dof from qpos0, velocities N(0, 1) (the scenes have
// no actuators: no activations or controls are drawn).
void random_state(const Model& m, Data& d, unsigned seed) { testing::random_state(m, d, seed, {.qpos = 0.5}); }

// max |an - fd| / max(max |fd|, max |f|, 1): f the differentiated function at the state.
double error_of(const Vec& an, const Vec& fd, const Vec& f) { return rel_error(an, fd, max_abs(f)); }

// d qacc / d qpos of forward_derivatives and d qfrc_inverse / d qpos of inverse_derivatives
// against the differences; no fallback allowed.
void check(const Model& m, Data& d, const char* what) {
  const int nv = m.nv;
  EXPECT_TRUE(derivative_fallbacks(m, d).empty()) << what << ": " << derivative_fallbacks(m, d).front();
  Vec Aq(static_cast<size_t>(nv) * nv), Iq(Aq.size());
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  const Vec qacc(d.qacc.begin(), d.qacc.begin() + nv);
  const Vec fq = fd_qpos(m, d, nv, kH, [&](double* r) {
    forward(m, d);
    std::copy_n(d.qacc.begin(), nv, r);
  });
  const double ef = error_of(Aq, fq, qacc);
  // inverse dynamics at the forward solution's qacc: qfrc_inverse includes the passive forces
  // (springs, gravity compensation), not xfrc_applied
  d.qacc.assign(qacc.begin(), qacc.end());
  inverse_derivatives(m, d, Iq.data(), nullptr, nullptr);
  const Vec fi = fd_qpos(m, d, nv, kH, [&](double* r) {
    d.qacc.assign(qacc.begin(), qacc.end());
    inverse(m, d);
    std::copy_n(d.qfrc_inverse.begin(), nv, r);
  });
  const double ei = error_of(Iq, fi, Vec(d.qfrc_inverse.begin(), d.qfrc_inverse.begin() + nv));
  std::printf("%s: d qacc/d qpos relative error %.2e, d qfrc_inverse/d qpos %.2e\n", what, ef, ei);
  EXPECT_LE(ef, 1e-6) << what;
  EXPECT_LE(ei, 1e-6) << what;
}

// check at the random states of seeds 1 to 3; prepare(d) sets what the test adds to each state.
template <class Prepare>
void check_seeds(const Model& m, const std::string& what, Prepare prepare) {
  Data d = make_data(m);
  for (unsigned seed = 1; seed <= 3; ++seed) {
    random_state(m, d, seed);
    prepare(d);
    check(m, d, (what + ", seed " + std::to_string(seed)).c_str());
  }
}
void check_seeds(const Model& m, const std::string& what) {
  check_seeds(m, what, [](Data&) {});
}

TEST(AnalyticPassiveDerivative, BallFreeSpringsMatchCentredDifferences) {
  Model m = load_model_from_string(kScene);
  std::mt19937 rng(3);
  std::normal_distribution<double> n01(0, 1);
  for (int j = 0; j < m.njnt; ++j) m.jnt_stiffness[j] = 2 + j;
  // springs' rest positions away from qpos0 (turned quaternions, shifted positions)
  Vec dq(m.nv);
  for (auto& x : dq) x = 0.8 * n01(rng);
  integrate_pos(m, m.qpos_spring.data(), dq.data(), 1);
  check_seeds(m, "ball/free springs");
}

TEST(AnalyticPassiveDerivative, GravityCompensationMatchesCentredDifferences) {
  Model m = load_model_from_string(kScene);
  ASSERT_EQ(m.body_gravcomp.size(), static_cast<size_t>(m.nbody));
  for (int b = 1; b < m.nbody; ++b) m.body_gravcomp[b] = 0.25 * b;  // partial and over-compensation
  check_seeds(m, "gravity compensation");
}

TEST(AnalyticPassiveDerivative, XfrcAppliedMatchesCentredDifferences) {
  Model m = load_model_from_string(kScene);
  std::mt19937 rng(5);
  std::normal_distribution<double> n01(0, 1);
  check_seeds(m, "xfrc_applied", [&](Data& d) {
    for (int b = 1; b < m.nbody; ++b)
      for (int c = 0; c < 6; ++c) d.xfrc_applied[6 * b + c] = 3 * n01(rng);
  });
}


// Ball joint limits: two ball joints turned past their range (35 and 50 degrees against 30 and
// 45), a hinge below them; constraints on. d qacc / d qpos against centred differences at
// eps = 1e-6 (the constrained model is smooth only while the active set holds: no extrapolation;
// truncation ~1e-12, round-off ~1e-10 relative), the active set checked unchanged; bound 1e-5.
const char* kBallLimitScene = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body pos="0 0 1">
      <joint type="ball" limited="true" range="0 30" damping=".2"/>
      <geom type="capsule" fromto="0 0 0 .3 0 -.3" size=".05"/>
      <body pos=".3 0 -.3">
        <joint type="ball" limited="true" range="0 45" solreflimit=".05 1"/>
        <geom type="capsule" fromto="0 0 0 0 .3 -.2" size=".04"/>
        <body pos="0 .3 -.2">
          <joint type="hinge" axis="1 0 0"/>
          <geom type="box" size=".05 .05 .1" pos="0 0 -.1"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST(AnalyticPassiveDerivative, BallLimitMatchesCentredDifferences) {
  Model m = load_model_from_string(kBallLimitScene);
  Data d = make_data(m);
  const double deg = 3.141592653589793 / 180;
  const double a1[3] = {0.6, -0.8, 0}, a2[3] = {0.3, 0.4, -0.866};
  const double t1 = 35 * deg, t2 = 50 * deg;
  const double q1[4] = {std::cos(t1 / 2), std::sin(t1 / 2) * a1[0], std::sin(t1 / 2) * a1[1], std::sin(t1 / 2) * a1[2]};
  const double q2[4] = {std::cos(t2 / 2), std::sin(t2 / 2) * a2[0], std::sin(t2 / 2) * a2[1], std::sin(t2 / 2) * a2[2]};
  std::copy(q1, q1 + 4, d.qpos.begin());
  std::copy(q2, q2 + 4, d.qpos.begin() + 4);
  d.qpos[8] = 0.3;
  fill_normal(d.qvel.data(), m.nv, 2, 0.5);
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  ASSERT_EQ(nefc, 2);
  const std::vector<int> type(d.efc_type.begin(), d.efc_type.begin() + nefc);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(static_cast<size_t>(nv) * nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  const Vec qacc(d.qacc.begin(), d.qacc.begin() + nv), q0 = d.qpos, warm = d.qacc_warmstart;
  const double eps = 1e-6;
  Vec fd(Aq.size()), dq(nv), r[2];
  for (int k = 0; k < nv; ++k) {
    for (int s = 0; s < 2; ++s) {
      d.qpos = q0;
      d.qacc_warmstart = warm;
      perturb_qpos(m, d.qpos.data(), dq, k, s == 0 ? eps : -eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << "column " << k;
      r[s].assign(d.qacc.begin(), d.qacc.begin() + nv);
    }
    for (int i = 0; i < nv; ++i) fd[static_cast<size_t>(i) * nv + k] = (r[0][i] - r[1][i]) / (2 * eps);
  }
  const double e = error_of(Aq, fd, qacc);
  std::printf("ball limits (%d rows): d qacc/d qpos relative error %.2e\n", nefc, e);
  EXPECT_LE(e, 1e-5);
}


// Fluid forces: the inertia-box model (bodies without fluidshape) and the ellipsoid model
// (fluidshape="ellipsoid" with nonzero coefficients) on a chain under a free body, density,
// viscosity and wind on, constraints off. d qacc / d qpos (and d qfrc_inverse / d qpos) by check
// above, d qacc / d qvel against centred differences at h = 1e-4 and h/2 extrapolated (the
// velocities are N(0, 1), away from the drag's kinks at rest), bound 1e-6; no fallback.
const char* kFluidScene = R"(
<mujoco>
  <option density="1.2" viscosity="0.15" wind="0.5 -0.3 0.2">
    <flag constraint="disable"/>
  </option>
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .2 .05" mass="1"/>
      <body pos=".2 0 0">
        <joint type="hinge" axis="0 1 0"/>
        <geom type="ellipsoid" size=".15 .05 .1" fluidshape="ellipsoid" fluidcoef=".5 .25 1.5 1 1" mass=".5"/>
        <body pos=".2 0 0">
          <joint type="ball"/>
          <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04" mass=".3"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST(AnalyticPassiveDerivative, FluidForcesMatchCentredDifferences) {
  Model m = load_model_from_string(kFluidScene);
  Data d = make_data(m);
  const int nv = m.nv;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    random_state(m, d, seed);
    check(m, d, ("fluid forces (qpos), seed " + std::to_string(seed)).c_str());
    Vec Av(static_cast<size_t>(nv) * nv);
    forward_derivatives(m, d, nullptr, Av.data(), nullptr, nullptr, nullptr);
    const Vec qacc(d.qacc.begin(), d.qacc.begin() + nv);
    const Vec fd = fd_vec(d.qvel.data(), nv, nv, kH, [&](double* r) {
      forward(m, d);
      std::copy_n(d.qacc.begin(), nv, r);
    });
    const double e = error_of(Av, fd, qacc);
    std::printf("fluid, seed %u: d qacc/d qvel relative error %.2e\n", seed, e);
    EXPECT_LE(e, 1e-6);
  }
}


// The transition of step with the new terms together (ball/free springs, gravity compensation,
// xfrc_applied; fluid forces off: with an implicit integrator they make the whole transition fall
// back), Euler, implicit and implicitfast. A, B of transition_derivatives against transition_fd centred at 1e-6
// (constraints off: truncation ~1e-12, round-off ~1e-10 relative), error relative to
// max(max |fd|, 1), bound 1e-6; no fallback allowed.
TEST(AnalyticPassiveDerivative, TransitionWithSpringsGravcompXfrcMatchesTransitionFd) {
  Model base = load_model_from_string(kScene);
  for (int j = 0; j < base.njnt; ++j) base.jnt_stiffness[j] = 2 + j;
  for (int b = 1; b < base.nbody; ++b) base.body_gravcomp[b] = 0.3 * b;
  for (int integ : {kIntEuler, kIntImplicit, kIntImplicitFast}) {
    Model m = base;
    m.opt.integrator = integ;
    Data d = make_data(m);
    random_state(m, d, 4);
    fill_normal(d.xfrc_applied.data() + 6, 6 * (m.nbody - 1), 9);  // every body but the world
    const auto fb = derivative_fallbacks(m, d);
    EXPECT_TRUE(fb.empty()) << fb.front();
    const int n = 2 * m.nv + m.na;
    Vec A(static_cast<size_t>(n) * n), Afd(A.size());
    transition_derivatives(m, d, A.data(), nullptr, nullptr, nullptr);
    transition_fd(m, d, 1e-6, true, Afd.data(), nullptr, nullptr, nullptr);
    const double e = rel_error(A, Afd);
    std::printf("transition, integrator %d: A relative error %.2e\n", integ, e);
    EXPECT_LE(e, 1e-6) << "integrator " << integ;
  }
}

}  // namespace
}  // namespace moreau

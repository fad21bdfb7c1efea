// The implicitcon integrator (src/integrator/implicit_constraint.cc), Moreau's extension beyond
// MuJoCo 2.2.2, against its own definition:
//  - one step equals the implicit Euler velocity update (M - h df/dv) dv = h M qacc computed by hand:
//    df/dv = M dqacc/dv from centred differences of forward dynamics (constraint forces included),
//    on a box on three slide joints resting and sliding on a plane (pyramidal and elliptic cones);
//  - without constraint rows it is implicitfast, bitwise;
//  - MJCF name, save_xml round trip; transition_derivatives falls back to transition_fd;
//  - first-order convergence on a sliding box; stability and energy on a stiff resting box
//    (solref 0.005, refsafe off) at a timestep where Euler and implicitfast blow up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "moreau/analytic_derivative.h"
#include "moreau/derivative.h"
#include "moreau/io.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

// A 1 kg box (10 cm half-size) on x, y, z slides above a plane; x damped.
std::string box_xml(const std::string& option) {
  return R"(<mujoco>
  <option timestep="0.01" integrator="implicitcon" )" + option + R"(/>
  <worldbody>
    <geom type="plane" size="5 5 .1" friction="0.6 0.005 0.0001"/>
    <body pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0" damping="0.5"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom type="box" size=".1 .1 .1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
}

double max_abs(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s = std::max(s, std::abs(x));
  return s;
}

// Dense solve of the n x n row-major system A x = b (Gaussian elimination, partial pivoting).
std::vector<double> dense_solve(int n, std::vector<double> A, std::vector<double> b) {
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::abs(A[i * n + k]) > std::abs(A[p * n + k])) p = i;
    for (int j = 0; j < n; ++j) std::swap(A[k * n + j], A[p * n + j]);
    std::swap(b[k], b[p]);
    for (int i = k + 1; i < n; ++i) {
      const double l = A[i * n + k] / A[k * n + k];
      for (int j = k; j < n; ++j) A[i * n + j] -= l * A[k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (int k = n - 1; k >= 0; --k) {
    double s = b[k];
    for (int j = k + 1; j < n; ++j) s -= A[k * n + j] * b[j];
    b[k] = s / A[k * n + k];
  }
  return b;
}

// The box 2 mm into the plane, sliding along x and y and sinking: every contact has quadratic and
// satisfied rows, none at a switch.
void sliding_state(Data& d) {
  d.qpos[0] = 0, d.qpos[1] = 0, d.qpos[2] = -0.002;
  d.qvel[0] = 0.3, d.qvel[1] = -0.1, d.qvel[2] = -0.05;
}

// The velocity update of one implicitcon step against (M - h df/dv) dv = h M qacc by hand.
void check_hand_update(const std::string& option) {
  const Model m = load_model_from_string(box_xml(option));
  Data d = make_data(m);
  const int nv = m.nv;
  const double h = m.opt.timestep;
  sliding_state(d);
  forward(m, d);
  ASSERT_EQ(d.ncon, 4);
  const std::vector<int> state0(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const std::vector<double> qacc(d.qacc.begin(), d.qacc.begin() + nv);
  const std::vector<double> v0(d.qvel.begin(), d.qvel.begin() + nv);
  // M (dense) and dqacc/dv by centred differences (qacc is linear in v with the active set held
  // fixed for pyramidal rows and smooth for elliptic ones: the difference is exact to rounding
  // ~1e-16 |qacc| / eps, and O(eps^2) for the cone)
  std::vector<double> M(nv * nv), dA(nv * nv), e(nv), col(nv);
  for (int k = 0; k < nv; ++k) {
    std::fill(e.begin(), e.end(), 0.0);
    e[k] = 1;
    mul_m(m, d, col.data(), e.data());
    for (int i = 0; i < nv; ++i) M[i * nv + k] = col[i];
  }
  const double eps = 1e-6;
  for (int k = 0; k < nv; ++k) {
    std::vector<double> a[2];
    for (int s = 0; s < 2; ++s) {
      std::copy(v0.begin(), v0.end(), d.qvel.begin());
      d.qvel[k] += s == 0 ? eps : -eps;
      forward(m, d);
      for (int r = 0; r < d.nefc; ++r) ASSERT_EQ(d.efc_state[r], state0[r]) << "active set changed at row " << r;
      a[s].assign(d.qacc.begin(), d.qacc.begin() + nv);
    }
    for (int i = 0; i < nv; ++i) dA[i * nv + k] = (a[0][i] - a[1][i]) / (2 * eps);
  }
  // E = M - h M dA, rhs = h M qacc
  std::vector<double> E(nv * nv), rhs(nv);
  for (int i = 0; i < nv; ++i) {
    for (int k = 0; k < nv; ++k) {
      double s = 0;
      for (int j = 0; j < nv; ++j) s += M[i * nv + j] * dA[j * nv + k];
      E[i * nv + k] = M[i * nv + k] - h * s;
    }
    double s = 0;
    for (int j = 0; j < nv; ++j) s += M[i * nv + j] * qacc[j];
    rhs[i] = h * s;
  }
  const std::vector<double> expect = dense_solve(nv, E, rhs);

  std::copy(v0.begin(), v0.end(), d.qvel.begin());
  step(m, d);
  std::vector<double> got(nv), err(nv);
  for (int i = 0; i < nv; ++i) got[i] = d.qvel[i] - v0[i], err[i] = got[i] - expect[i];
  const double scale = max_abs(expect);
  std::printf("%s: |step - hand| / |hand| = %.2e\n", option.empty() ? "pyramidal" : option.c_str(),
              max_abs(err) / scale);
  EXPECT_LT(max_abs(err), 1e-7 * scale) << option;

  // the constraint derivative matters here: implicitfast's update is far from the hand result
  Model mf = m;
  mf.opt.integrator = kIntImplicitFast;
  Data df = make_data(mf);
  sliding_state(df);
  step(mf, df);
  for (int i = 0; i < nv; ++i) err[i] = df.qvel[i] - v0[i] - expect[i];
  EXPECT_GT(max_abs(err), 1e-2 * scale) << option;
}

TEST(ImplicitCon, StepIsImplicitEulerWithConstraintDerivativePyramidal) { check_hand_update(""); }
TEST(ImplicitCon, StepIsImplicitEulerWithConstraintDerivativeElliptic) {
  check_hand_update("cone=\"elliptic\" impratio=\"3\" tolerance=\"1e-13\" iterations=\"300\"");
}

TEST(ImplicitCon, WithoutConstraintsItIsImplicitFast) {
  Model m = load_model(kHumanoid);
  m.opt.disableflags |= kDsblConstraint;
  Model mf = m;
  m.opt.integrator = kIntImplicitCon;
  mf.opt.integrator = kIntImplicitFast;  // the humanoid's free root has children: no midpoint
  Data d = make_data(m), df = make_data(mf);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = df.qvel[i] = 0.3 * std::sin(1.0 + i);
  for (int i = 0; i < m.nu; ++i) d.ctrl[i] = df.ctrl[i] = 0.5 * std::cos(2.0 * i);
  for (int t = 0; t < 100; ++t) {
    step(m, d);
    step(mf, df);
  }
  for (int i = 0; i < m.nq; ++i) EXPECT_EQ(d.qpos[i], df.qpos[i]) << i;
  for (int i = 0; i < m.nv; ++i) EXPECT_EQ(d.qvel[i], df.qvel[i]) << i;
}

TEST(ImplicitCon, NameLoadsAndRoundTrips) {
  const Model m = load_model_from_string(box_xml(""));
  EXPECT_EQ(m.opt.integrator, kIntImplicitCon);
  const Model r = load_model_from_string(save_xml_to_string(m));
  EXPECT_EQ(r.opt.integrator, kIntImplicitCon);
  EXPECT_THROW(load_model_from_string(R"(<mujoco><option integrator="implicitconx"/></mujoco>)"), LoadError);
}

TEST(ImplicitCon, TransitionDerivativesFallBackToFiniteDifferences) {
  const Model m = load_model_from_string(box_xml(""));
  Data d = make_data(m);
  sliding_state(d);
  const int n = 2 * m.nv + m.na;
  std::vector<double> A(n * n), Afd(n * n);
  transition_derivatives(m, d, A.data(), nullptr, nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Afd.data(), nullptr, nullptr, nullptr);
  for (int i = 0; i < n * n; ++i) EXPECT_EQ(A[i], Afd[i]) << i;
  const std::vector<std::string> f = derivative_fallbacks(m, d);
  EXPECT_NE(std::find(f.begin(), f.end(), "implicitcon integrator (transition)"), f.end());
}

}  // namespace
}  // namespace moreau

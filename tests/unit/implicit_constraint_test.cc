// The implicitcon integrator (src/integrator/implicit_constraint.cc), Moreau's extension beyond
// MuJoCo 2.2.2, against its own definition:
//  - one step equals the implicit Euler velocity update (M - h df/dv) dv = h M qacc computed by hand:
//    df/dv = M dqacc/dv from centred differences of forward dynamics (constraint forces included),
//    on a box on three slide joints resting and sliding on a plane (pyramidal and elliptic cones);
//  - without constraint rows it is implicitfast, bitwise;
//  - MJCF name, save_xml round trip; transition_derivatives falls back to transition_fd;
//  - convergence (at least first order) on a box settling into the plane; stability and energy on a stiff resting box
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

// The box starting at contact with the plane, moving at 1 m/s along x (damped) and 0.2 m/s into
// the plane, frictionless (condim 1: a smooth problem, no friction rows switching between
// sliding and sticking): it settles into the plane. qpos and qvel at t = 0.1 s against RK4 at
// h = 2e-5: the error of implicitcon shrinks at least as h (first order) with every halving of the
// timestep (measured ratios 0.30..0.39, printed) and is below 1e-4 at h = 1.25e-4.
TEST(ImplicitCon, ConvergesAtFirstOrder) {
  auto run = [](int integrator, double h) {
    std::string xml = box_xml("");
    xml.replace(xml.find("<geom type=\"plane\""), 18, "<geom condim=\"1\" type=\"plane\"");
    Model m = load_model_from_string(xml);
    m.opt.integrator = integrator;
    m.opt.timestep = h;
    Data d = make_data(m);
    d.qvel[0] = 1;
    d.qpos[2] = -0.001;
    d.qvel[2] = -0.2;
    const long n = std::lround(0.1 / h);
    for (long i = 0; i < n; ++i) step(m, d);
    std::vector<double> x(d.qpos.begin(), d.qpos.end());
    x.insert(x.end(), d.qvel.begin(), d.qvel.end());
    return x;
  };
  const std::vector<double> ref = run(kIntRK4, 2e-5);
  double prev = 0;
  for (double h : {1e-3, 5e-4, 2.5e-4, 1.25e-4}) {
    const std::vector<double> x = run(kIntImplicitCon, h);
    double e = 0;
    for (size_t i = 0; i < x.size(); ++i) e = std::max(e, std::abs(x[i] - ref[i]));
    if (prev > 0) {
      std::printf("h %.1e: error %.3e, ratio to 2h %.3f\n", h, e, e / prev);
      EXPECT_LT(e / prev, 0.6);
    }
    prev = e;
  }
  EXPECT_LT(prev, 1e-4);
}

// A box resting on the plane with stiff contacts (solref 0.005, refsafe off so that the time
// constant stays 0.005) at h = 8 ms, 1.6 time constants: over 2 s, Euler and implicitfast gain
// energy (the box jumps: more than 1 J, the energy of lifting it 10 cm), implicitcon keeps the
// mechanical energy at most its start value plus 1 mJ and the penetration below 1 mm.
TEST(ImplicitCon, StiffRestingBoxStaysBoundedWhereEulerGainsEnergy) {
  const char* xml = R"(<mujoco>
  <option timestep="0.008"><flag refsafe="disable" energy="enable"/></option>
  <worldbody>
    <geom type="plane" size="5 5 .1" solref="0.005 1"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1" solref="0.005 1"/></body>
  </worldbody>
</mujoco>)";
  auto run = [&](int integrator, double* max_gain, double* max_pen) {
    Model m = load_model_from_string(xml);
    m.opt.integrator = integrator;
    Data d = make_data(m);
    forward(m, d);
    const double e0 = d.energy[0] + d.energy[1];
    *max_gain = 0, *max_pen = 0;
    for (int i = 0; i < 250; ++i) {
      step(m, d);
      *max_gain = std::max(*max_gain, d.energy[0] + d.energy[1] - e0);
      for (int c = 0; c < d.ncon; ++c) *max_pen = std::max(*max_pen, -d.contact[c].dist);
    }
    forward(m, d);
    *max_gain = std::max(*max_gain, d.energy[0] + d.energy[1] - e0);
  };
  double gain, pen;
  run(kIntImplicitCon, &gain, &pen);
  std::printf("implicitcon: energy gain %.3e J, penetration %.3e m\n", gain, pen);
  EXPECT_LT(gain, 1e-3);
  EXPECT_LT(pen, 1e-3);
  for (int integrator : {kIntEuler, kIntImplicitFast}) {
    run(integrator, &gain, &pen);
    std::printf("integrator %d: energy gain %.3e J, penetration %.3e m\n", integrator, gain, pen);
    EXPECT_GT(gain, 1.0) << integrator;
  }
}

}  // namespace
}  // namespace moreau

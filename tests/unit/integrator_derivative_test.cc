// transition_derivatives of the integrators whose update is not a linear solve: the implicit
// integrators' midpoint rule for free bodies (src/integrator/midpoint.cc) and RK4, against
// transition_fd (centred, eps 1e-6). Error: max |analytic - fd| / max(max |fd|, 1) over A and over B.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../model_list.h"
#include "derivative_test_util.h"
#include "integrator/implicit.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::rel_error;
using testing::Vec;

// A and B analytic (no fallback but sensor rows) against transition_fd; the active set of the
// nominal state checked unchanged after the differences (a switch would make them meaningless).
void expect_matches_fd(const Model& m, Data& d, const std::string& what, double bound = 1e-5) {
  for (const std::string& f : derivative_fallbacks(m, d))
    EXPECT_NE(f.find("(C, D rows)"), std::string::npos) << what << ": " << f;
  forward(m, d);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const int ndx = 2 * m.nv + m.na, nu = m.nu;
  Vec A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * nu), Af(A.size()), Bf(B.size());
  transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), nullptr, nullptr);
  forward(m, d);
  ASSERT_EQ(static_cast<size_t>(d.nefc), state.size()) << what;
  EXPECT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << what;
  const double ea = rel_error(A, Af), eb = nu ? rel_error(B, Bf) : 0;
  std::printf("%s (nv %d, nefc %d): A %.2e, B %.2e\n", what.c_str(), m.nv, d.nefc, ea, eb);
  EXPECT_LE(ea, bound) << what;
  EXPECT_LE(eb, bound) << what;
}

// Free boxes whose com is off the body origin and whose principal axes are not the body's (geoms
// offset and turned), one damped, one driven by a motor and one by an actuator whose gain depends
// on the velocity (so that the non-RNE block D of the body varies with the control), falling onto
// a plane and onto each other.
constexpr char kBoxes[] = R"(
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 0.2">
      <freejoint name="a"/>
      <geom type="box" size="0.1 0.15 0.05" pos="0.03 -0.02 0.01" euler="10 20 30" density="800"/>
      <geom type="box" size="0.05 0.05 0.05" pos="-0.1 0 0.02"/>
    </body>
    <body name="b" pos="0.05 0.02 0.45" euler="5 -10 40">
      <freejoint name="b"/>
      <geom type="box" size="0.08 0.06 0.04" pos="0.01 0.02 -0.01" euler="0 15 -25"/>
    </body>
    <body name="c" pos="0.8 0 0.3">
      <freejoint name="c"/>
      <geom type="box" size="0.07 0.09 0.11" pos="0 0.03 0" euler="30 0 10"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="a" gear="0 0 1 0.3 0 0.2"/>
    <general joint="c" gear="0.2 0 0 0 0.5 0.1" gaintype="affine" gainprm="1 0 -0.4" ctrllimited="true" ctrlrange="-1 1"/>
  </actuator>
</mujoco>
)";

void boxes_state(Model& m, Data& d) {
  m.opt.tolerance = 1e-12, m.opt.iterations = 200;
  d.ctrl[0] = 0.3, d.ctrl[1] = 0.4;
  for (int i = 0; i < 150; ++i) step(m, d);
  std::mt19937 rng(5);
  std::normal_distribution<double> n01(0, 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] += 0.3 * n01(rng);
}

TEST(IntegratorDerivative, MidpointFreeBoxesMatchTransitionFd) {
  Model m = load_model_from_string(kBoxes);
  m.dof_damping[6 + 4] = 0.3;  // box b: damping on one rotational dof
  for (int integ : {kIntImplicit, kIntImplicitFast}) {
    m.opt.integrator = integ;
    ASSERT_TRUE(internal::midpoint_enabled(m));
    Data d = make_data(m);
    boxes_state(m, d);
    forward(m, d);
    EXPECT_GT(d.ncon, 0);
    expect_matches_fd(m, d, std::string("free boxes, integrator ") + std::to_string(integ));
  }
}

// The same without contacts and gravity at larger angular velocities, where the midpoint rule's
// gyroscopic term dominates.
TEST(IntegratorDerivative, MidpointSpinningBoxesMatchTransitionFd) {
  Model m = load_model_from_string(kBoxes);
  m.opt.disableflags |= kDsblConstraint | kDsblGravity;
  m.dof_damping[6 + 4] = 0.3;
  for (int integ : {kIntImplicit, kIntImplicitFast}) {
    m.opt.integrator = integ;
    Data d = make_data(m);
    d.ctrl[0] = 0.3, d.ctrl[1] = -0.4;
    std::mt19937 rng(7);
    std::normal_distribution<double> n01(0, 1);
    for (int i = 0; i < m.nv; ++i) d.qvel[i] = 5 * n01(rng);
    for (int i = 0; i < 10; ++i) step(m, d);
    expect_matches_fd(m, d, std::string("spinning boxes, integrator ") + std::to_string(integ));
  }
}

// The humanoid with a free box beside it (the midpoint body beside an articulated tree, both on the
// floor).
TEST(IntegratorDerivative, MidpointHumanoidWithBoxMatchesTransitionFd) {
  std::ifstream in(std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string xml = ss.str();
  const std::string box =
      R"(<body name="box" pos="0.6 0.3 0.3" euler="10 20 0"><freejoint/>)"
      R"(<geom type="box" size="0.1 0.07 0.05" pos="0.02 0 0.01" euler="0 30 10"/></body>)";
  const size_t at = xml.find("</worldbody>");
  ASSERT_NE(at, std::string::npos);
  xml.insert(at, box);
  const size_t k0 = xml.find("<keyframe>"), k1 = xml.find("</keyframe>");  // sized for the humanoid alone
  if (k0 != std::string::npos) xml.erase(k0, k1 + 11 - k0);
  Model m = load_model_from_string(xml);
  m.opt.tolerance = 1e-12, m.opt.iterations = 200;
  for (int integ : {kIntImplicit, kIntImplicitFast}) {
    m.opt.integrator = integ;
    ASSERT_TRUE(internal::midpoint_enabled(m));
    Data d = make_data(m);
    for (int u = 0; u < m.nu; ++u) d.ctrl[u] = 0.1;
    for (int i = 0; i < 100; ++i) step(m, d);
    std::mt19937 rng(3);
    std::normal_distribution<double> n01(0, 1);
    for (int i = 0; i < m.nv; ++i) d.qvel[i] += 0.1 * n01(rng);
    expect_matches_fd(m, d, std::string("humanoid with a box, integrator ") + std::to_string(integ));
  }
}

// The dog (its tennis ball is an eligible free body, so that the whole transition went to finite
// differences before) at the benchmark's state (keyframe 0, 200 steps with the model's options),
// the ball rolling, compared without the noslip pass (a few sweeps, not converged; the noslip
// derivative is that of its converged solution: AnalyticDerivative.DogNoslipAllColumnsAnalytic).
// The ball is a sphere (no gyroscopic term): the midpoint rule is linear for it.
TEST(IntegratorDerivative, MidpointDogMatchesTransitionFd) {
  const std::string path = test_models::shared_model("dm_control/dog.xml");
  if (test_models::missing_shared(path)) {
    MOREAU_SKIPPED_SHARED(1, 1);
    return;
  }
  for (int integ : {kIntImplicitFast, kIntImplicit}) {
    Model m = load_model(path);
    m.opt.integrator = integ;
    ASSERT_TRUE(internal::midpoint_enabled(m));
    Data d = make_data(m);
    if (m.nkey > 0) reset_data_keyframe(m, d, 0);
    for (int i = 0; i < 200; ++i) step(m, d);
    // the ball rolling and spinning
    const int ball = name2id(m, kObjJoint, "ball_root");
    ASSERT_GE(ball, 0);
    const double w[6] = {0.4, -0.3, 0.1, 3, -2, 4};
    std::copy(w, w + 6, d.qvel.begin() + m.jnt_dofadr[ball]);
    m.opt.noslip_iterations = 0;
    m.opt.tolerance = 1e-12, m.opt.iterations = 200;
    expect_matches_fd(m, d, std::string("dog, integrator ") + std::to_string(integ));
  }
}

// RK4: the humanoid without contacts (its own integrator), from a random state.
TEST(IntegratorDerivative, Rk4HumanoidMatchesTransitionFd) {
  Model m = load_model(std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml");
  ASSERT_EQ(m.opt.integrator, kIntRK4);
  m.opt.disableflags |= kDsblConstraint;
  Data d = make_data(m);
  std::mt19937 rng(11);
  std::normal_distribution<double> n01(0, 1);
  Vec dq(m.nv);
  for (double& x : dq) x = 0.2 * n01(rng);
  integrate_pos(m, d.qpos.data(), dq.data(), 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = n01(rng);
  for (int u = 0; u < m.nu; ++u) d.ctrl[u] = 0.3 * n01(rng);
  expect_matches_fd(m, d, "humanoid RK4, no contacts");
}

// RK4: the double pendulum, and a pendulum on a ball joint driven through filtered
// and integrator activations (one range-limited), so that the stages carry quaternions and
// activations.
constexpr char kBallPendulum[] = R"(
<mujoco>
  <option timestep="0.01" integrator="RK4"/>
  <worldbody>
    <body>
      <joint name="ball" type="ball" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.1 0 -0.5" size="0.05"/>
      <body pos="0.1 0 -0.5">
        <joint name="hinge" type="hinge" axis="0 1 0" stiffness="2"/>
        <geom type="box" size="0.05 0.1 0.2" pos="0 0 -0.2"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general joint="hinge" dyntype="filter" dynprm="0.05" gainprm="2"/>
    <general joint="ball" gear="0 1 0.5" dyntype="filter" dynprm="0.1" gainprm="1.5"/>
    <general joint="ball" gear="1 0 0" dyntype="integrator" gainprm="1" actlimited="true" actrange="-1 1"/>
  </actuator>
</mujoco>
)";

TEST(IntegratorDerivative, Rk4PendulumsMatchTransitionFd) {
  {
    Model m = load_model(std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml");
    m.opt.integrator = kIntRK4;
    Data d = make_data(m);
    reset_data_keyframe(m, d, 0);
    d.qvel[0] = 1.5, d.qvel[1] = -2;
    d.ctrl[0] = 0.3, d.ctrl[1] = -0.2;
    expect_matches_fd(m, d, "double pendulum RK4");
  }
  Model m = load_model_from_string(kBallPendulum);
  Data d = make_data(m);
  const double q[4] = {0.9, 0.3, -0.2, 0.25};
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) d.qpos[i] = q[i] / n;
  d.qpos[4] = 0.4;
  const double v[4] = {1.2, -0.7, 2.0, -1.1};
  std::copy(v, v + 4, d.qvel.begin());
  d.act[0] = 0.2, d.act[1] = -0.3, d.act[2] = 0.5;
  d.ctrl[0] = 0.7, d.ctrl[1] = 0.4, d.ctrl[2] = -0.6;
  expect_matches_fd(m, d, "ball pendulum RK4 with activations");
}

// RK4 with contacts: the free boxes on the plane and on each other.
TEST(IntegratorDerivative, Rk4ContactsMatchTransitionFd) {
  Model m = load_model_from_string(kBoxes);
  m.opt.integrator = kIntRK4;
  m.dof_damping[6 + 4] = 0.3;
  Data d = make_data(m);
  boxes_state(m, d);
  forward(m, d);
  EXPECT_GT(d.ncon, 0);
  expect_matches_fd(m, d, "free boxes RK4");
}

}  // namespace
}  // namespace moreau

// State get/set by component (include/moreau/state.h), tested against its promises:
//  - sizes and layout: components concatenated in bit order, time first;
//  - a round trip get -> set -> get is the identity, and set_state touches only the masked components;
//  - after set_state of the integration state into another Data (of the same model, with any history),
//    step reproduces the original trajectory bit for bit (humanoid with contacts and the Newton solver,
//    arm26 with muscle activations, and a model with a mocap body, a weld to it, user data and the PGS
//    solver with few iterations, where the warm start matters: leaving it out changes the trajectory);
//  - copying the integration state between two Data gives bitwise equal forward results;
//  - eq_active switches an equality constraint at run time.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {
namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";
const std::string kArm26 = "/usr/share/mujoco/model/tendon_arm/arm26.xml";

// A free body driven by a weld to a mocap body, a hinge chain with actuators (one stateful), user
// data, contacts with a floor, and PGS with few iterations (a solver far from convergence, so its
// warm start changes the result).
const char* kMocapModel = R"(<mujoco>
  <option solver="PGS" iterations="4" timestep="0.005"/>
  <size nuserdata="3"/>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body name="target" mocap="true" pos="0 0 .5"><geom type="sphere" size=".02" contype="0" conaffinity="0"/></body>
    <body name="box" pos="0 0 .3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body pos=".5 0 .5"><joint name="j1" type="hinge" axis="0 1 0" damping=".1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".04"/>
      <body pos="0 0 -.3"><joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".04"/>
      </body>
    </body>
  </worldbody>
  <equality><weld body1="box" body2="target" solref=".05 1"/></equality>
  <actuator>
    <motor joint="j1"/>
    <position joint="j2" kp="5"/>
    <general joint="j1" dyntype="filter" dynprm=".05" gainprm="2"/>
  </actuator>
</mujoco>)";

// Random inputs and state on d (all components of the integration state get non-default values).
void randomize(const Model& m, Data& d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : d.ctrl) x = u(rng);
  for (double& x : d.qfrc_applied) x = 0.1 * u(rng);
  for (size_t i = 6; i < d.xfrc_applied.size(); ++i) d.xfrc_applied[i] = 0.1 * u(rng);
  for (double& x : d.mocap_pos) x += 0.05 * u(rng);
  for (double& x : d.userdata) x = u(rng);
  for (double& x : d.act) x = 0.5 + 0.4 * u(rng);
  for (double& x : d.qvel) x = 0.1 * u(rng);
  (void)m;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  // (memcmp must not see the null data() of an empty vector: UBSan nonnull-attribute)
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Steps `steps` times, recording the integration state and the sensors after each step.
std::vector<std::vector<double>> trajectory(const Model& m, Data& d, int steps) {
  std::vector<std::vector<double>> out;
  for (int i = 0; i < steps; ++i) {
    step(m, d);
    out.push_back(get_state(m, d, kStateIntegration));
    out.push_back(d.sensordata);
  }
  return out;
}

void expect_step_reproduces(const std::string& path_or_xml, bool is_xml) {
  const Model m = is_xml ? load_model_from_string(path_or_xml) : load_model(path_or_xml);
  std::mt19937_64 rng(99);
  Data a = make_data(m);
  if (m.nkey > 0) reset_data_keyframe(m, a, 0);
  randomize(m, a, rng);
  for (int i = 0; i < 30; ++i) step(m, a);
  const std::vector<double> s = get_state(m, a, kStateIntegration);
  const std::vector<std::vector<double>> expected = trajectory(m, a, 40);

  // Another Data with another history.
  Data b = make_data(m);
  randomize(m, b, rng);
  for (int i = 0; i < 7; ++i) step(m, b);
  set_state(m, b, kStateIntegration, s);
  const std::vector<std::vector<double>> got = trajectory(m, b, 40);
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_TRUE(same_bits(got[i], expected[i])) << path_or_xml.substr(0, 60) << ": differs after step " << i / 2;
}

TEST(State, SizesAndLayout) {
  const Model m = load_model_from_string(kMocapModel);
  EXPECT_EQ(state_size(m, kStateTime), 1);
  EXPECT_EQ(state_size(m, kStatePhysics), m.nq + m.nv + m.na);
  EXPECT_EQ(state_size(m, kStateFullPhysics), 1 + m.nq + m.nv + m.na);
  EXPECT_EQ(state_size(m, kStateUser), m.nu + m.nv + 6 * m.nbody + m.neq + 3 * m.nmocap + 4 * m.nmocap + m.nuserdata);
  EXPECT_EQ(state_size(m, kStateIntegration),
            state_size(m, kStateFullPhysics) + state_size(m, kStateUser) + m.nv);
  EXPECT_EQ(state_size(m, 0), 0);
  EXPECT_THROW(state_size(m, 1u << kNState), std::invalid_argument);

  Data d = make_data(m);
  d.time = 1.5;
  d.qpos[2] = 7;
  d.userdata[2] = -3;
  const std::vector<double> s = get_state(m, d, kStateTime | kStateQpos | kStateUserdata);
  ASSERT_EQ(static_cast<int>(s.size()), 1 + m.nq + m.nuserdata);
  EXPECT_EQ(s[0], 1.5);             // time first
  EXPECT_EQ(s[1 + 2], 7);           // then qpos
  EXPECT_EQ(s[1 + m.nq + 2], -3);   // then userdata
  EXPECT_THROW(set_state(m, d, kStatePhysics, std::vector<double>(3)), std::invalid_argument);
}

TEST(State, RoundTripAndMaskedComponentsOnly) {
  const Model m = load_model_from_string(kMocapModel);
  std::mt19937_64 rng(5);
  Data a = make_data(m), b = make_data(m);
  randomize(m, a, rng);
  a.time = 0.25;
  a.eq_active[0] = 0;
  for (int i = 0; i < m.nv; ++i) a.qacc_warmstart[i] = i + 0.5;
  const std::vector<double> s = get_state(m, a, kStateIntegration);
  set_state(m, b, kStateIntegration, s);
  EXPECT_TRUE(same_bits(get_state(m, b, kStateIntegration), s));
  EXPECT_EQ(b.eq_active[0], 0);

  // Only the physics state: time, controls and warm start of c keep their values.
  Data c = make_data(m);
  c.time = 9;
  c.ctrl[0] = 0.75;
  set_state(m, c, kStatePhysics, get_state(m, a, kStatePhysics));
  EXPECT_EQ(c.time, 9);
  EXPECT_EQ(c.ctrl[0], 0.75);
  EXPECT_TRUE(same_bits(c.qpos, a.qpos));
  EXPECT_TRUE(same_bits(c.qvel, a.qvel));
  EXPECT_TRUE(same_bits(c.act, a.act));
  for (double w : c.qacc_warmstart) EXPECT_EQ(w, 0);
}

TEST(State, StepReproducesTheTrajectoryBitwise) {
  expect_step_reproduces(kHumanoid, false);
  expect_step_reproduces(kArm26, false);
  expect_step_reproduces(kMocapModel, true);
}

// CG stopped after 2 iterations: the warm start changes every step (WarmstartIsPartOfTheState).
TEST(State, StepReproducesTheTrajectoryWhereTheWarmstartMatters) {
  std::string xml = kMocapModel;
  const std::string pgs = "solver=\"PGS\" iterations=\"4\"";
  xml.replace(xml.find(pgs), pgs.size(), "solver=\"CG\" iterations=\"2\"");
  expect_step_reproduces(xml, true);
}

TEST(State, RK4StepReproducesTheTrajectoryBitwise) {
  std::string xml = kMocapModel;
  const std::string pgs = "solver=\"PGS\"";
  xml.replace(xml.find(pgs), pgs.size(), "integrator=\"RK4\" solver=\"PGS\"");
  expect_step_reproduces(xml, true);
}

// The promise needs the warm start: without it, CG stopped after 2 iterations starts elsewhere and
// the step changes (so the tests above would catch a set_state that dropped it).
TEST(State, WarmstartIsPartOfTheState) {
  std::string xml = kMocapModel;
  const std::string pgs = "solver=\"PGS\" iterations=\"4\"";
  xml.replace(xml.find(pgs), pgs.size(), "solver=\"CG\" iterations=\"2\"");
  const Model m = load_model_from_string(xml);
  ASSERT_EQ(m.opt.solver, kSolverCG);
  std::mt19937_64 rng(99);
  Data a = make_data(m);
  randomize(m, a, rng);
  for (int i = 0; i < 30; ++i) step(m, a);
  const std::vector<double> s = get_state(m, a, kStateIntegration & ~kStateWarmstart);
  Data b = make_data(m);
  set_state(m, b, kStateIntegration & ~kStateWarmstart, s);
  step(m, a);
  step(m, b);
  EXPECT_FALSE(same_bits(a.qacc, b.qacc));
}

TEST(State, CopyBetweenDataGivesBitwiseEqualForward) {
  for (const std::string& path : {kHumanoid, kArm26}) {
    const Model m = load_model(path);
    std::mt19937_64 rng(3);
    Data a = make_data(m), b = make_data(m);
    if (m.nkey > 0) reset_data_keyframe(m, a, 0);
    randomize(m, a, rng);
    for (int i = 0; i < 25; ++i) step(m, a);
    randomize(m, b, rng);
    for (int i = 0; i < 5; ++i) step(m, b);
    set_state(m, b, kStateIntegration, get_state(m, a, kStateIntegration));
    forward(m, a);
    forward(m, b);
    ASSERT_EQ(a.ncon, b.ncon) << path;
    ASSERT_EQ(a.nefc, b.nefc) << path;
    for (auto field : {&Data::qacc, &Data::act_dot, &Data::sensordata, &Data::xpos, &Data::qfrc_constraint,
                       &Data::qfrc_actuator, &Data::qfrc_passive, &Data::actuator_force, &Data::ten_length})
      EXPECT_TRUE(same_bits(a.*field, b.*field)) << path;
    EXPECT_EQ(std::memcmp(a.efc_force.data(), b.efc_force.data(), a.nefc * sizeof(double)), 0) << path;
  }
}

TEST(State, EqActiveSwitchesAnEqualityAtRunTime) {
  const Model m = load_model_from_string(kMocapModel);
  Data d = make_data(m);
  EXPECT_EQ(d.eq_active[0], m.eq_active[0]);
  forward(m, d);
  const int ne_on = d.ne;
  EXPECT_EQ(ne_on, 6);  // weld: 3 translational + 3 rotational rows
  d.eq_active[0] = 0;
  forward(m, d);
  EXPECT_EQ(d.ne, 0);
  reset_data(m, d);
  EXPECT_EQ(d.eq_active[0], 1);
}

}  // namespace
}  // namespace moreau

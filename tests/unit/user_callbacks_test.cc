// The per-Data user callbacks of data.h (the simulation chapter's mjcb_passive, mjcb_act_dyn/gain/bias,
// mjcb_sensor, mjcb_contactfilter), on models whose results follow by hand:
//  - passive_callback adds a spring to qfrc_passive (qacc = -k q / m), not when passive is disabled;
//  - user actuators: without callbacks act_dot 0, gain 1, bias 0 (MuJoCo 2.2.2 gives force 0.7 for
//    act 0.7 on this model); with them, force = gain * act + bias and act_dot as returned;
//  - user sensors: sensor_callback fills them at their stage, cutoff applies;
//  - contact_filter discards the pairs it names;
//  - a Data copy carries its own copy of each callback.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {
namespace {

// A 2 kg block on a slide joint, no gravity, one user actuator and a user sensor (dim 2, velocity
// stage, cutoff 0.5).
const char* kSlider = R"(<mujoco>
  <option gravity="0 0 0" timestep="0.01"/>
  <worldbody>
    <body name="b"><joint name="j" type="slide" axis="1 0 0"/><geom type="box" size=".1 .1 .1" mass="2"/></body>
  </worldbody>
  <actuator><general joint="j" dyntype="user" gaintype="user" biastype="user" gainprm="3" biasprm="0.5"/></actuator>
  <sensor><user name="u" objtype="body" objname="b" datatype="real" needstage="vel" dim="2" cutoff="0.5"/></sensor>
</mujoco>)";

TEST(UserCallbacks, PassiveForce) {
  Model m = load_model_from_string(kSlider);
  Data d = make_data(m);
  int calls = 0;
  d.passive_callback = [&calls](const Model&, Data& dd) {
    ++calls;
    dd.qfrc_passive[0] += -40.0 * dd.qpos[0];  // a spring of 40 N/m
  };
  d.qpos[0] = 0.1;
  forward(m, d);
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(d.qfrc_passive[0], -4.0);
  EXPECT_NEAR(d.qacc[0], -4.0 / 2.0 + d.actuator_force[0] / 2.0, 1e-12);
  m.opt.disableflags |= kDsblPassive;
  forward(m, d);
  EXPECT_EQ(calls, 1);  // not called with passive forces disabled
  EXPECT_EQ(d.qfrc_passive[0], 0.0);
}

TEST(UserCallbacks, UserActuatorDefaultsAndCallbacks) {
  const Model m = load_model_from_string(kSlider);
  ASSERT_EQ(m.na, 1);  // dyntype user: one activation
  Data d = make_data(m);
  d.ctrl[0] = 2;
  d.act[0] = 0.7;
  forward(m, d);
  EXPECT_EQ(d.act_dot[0], 0.0);
  EXPECT_DOUBLE_EQ(d.actuator_force[0], 0.7);  // gain 1, bias 0: MuJoCo 2.2.2's value
  d.act_dyn_callback = [](const Model&, const Data& dd, int id) { return (dd.ctrl[id] - dd.act[id]) / 0.1; };
  d.act_gain_callback = [](const Model& mm, const Data&, int id) { return mm.actuator_gainprm[10 * id]; };
  d.act_bias_callback = [](const Model& mm, const Data& dd, int id) {
    return -mm.actuator_biasprm[10 * id] * dd.actuator_velocity[id];
  };
  d.qvel[0] = 2;
  forward(m, d);
  EXPECT_DOUBLE_EQ(d.act_dot[0], (2 - 0.7) / 0.1);
  EXPECT_DOUBLE_EQ(d.actuator_force[0], 3 * 0.7 - 0.5 * 2);
  step(m, d);
  EXPECT_NEAR(d.act[0], 0.7 + 0.01 * 13.0, 1e-12);  // Euler on the activation
}

TEST(UserCallbacks, UserSensor) {
  const Model m = load_model_from_string(kSlider);
  Data d = make_data(m);
  std::vector<int> stages;
  d.sensor_callback = [&stages](const Model& mm, Data& dd, int stage) {
    stages.push_back(stage);
    double* out = &dd.sensordata[mm.sensor_adr[0]];
    out[0] = dd.qvel[0];
    out[1] = 2 * dd.qvel[0];
  };
  d.qvel[0] = 0.2;
  forward(m, d);
  ASSERT_EQ(stages, std::vector<int>{kStageVel});
  EXPECT_DOUBLE_EQ(d.sensordata[0], 0.2);
  EXPECT_DOUBLE_EQ(d.sensordata[1], 0.4);
  d.qvel[0] = 0.4;
  forward(m, d);
  EXPECT_DOUBLE_EQ(d.sensordata[1], 0.5);  // 0.8 cut off at 0.5
}

// Three spheres resting on a plane; the filter discards the plane's pairs with sphere "b".
const char* kSpheres = R"(<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body pos="0 0 .09"><freejoint/><geom name="a" size=".1"/></body>
    <body pos="1 0 .09"><freejoint/><geom name="b" size=".1"/></body>
    <body pos="2 0 .09"><freejoint/><geom name="c" size=".1"/></body>
  </worldbody>
</mujoco>)";

TEST(UserCallbacks, ContactFilterAndDataCopies) {
  const Model m = load_model_from_string(kSpheres);
  const int b = name2id(m, kObjGeom, "b");
  Data d = make_data(m);
  forward(m, d);
  ASSERT_EQ(d.ncon, 3);
  int calls = 0;
  d.contact_filter = [b, calls](const Model&, const Data&, int g1, int g2) mutable {
    ++calls;
    return g1 == b || g2 == b;
  };
  Data copy = d;
  forward(m, d);
  ASSERT_EQ(d.ncon, 2);
  for (int i = 0; i < d.ncon; ++i) EXPECT_TRUE(d.contact[i].geom1 != b && d.contact[i].geom2 != b);
  // the copy filters too, with its own copy of the function; clearing it leaves d's in place
  forward(m, copy);
  EXPECT_EQ(copy.ncon, 2);
  copy.contact_filter = nullptr;
  forward(m, copy);
  EXPECT_EQ(copy.ncon, 3);
  forward(m, d);
  EXPECT_EQ(d.ncon, 2);
}

}  // namespace
}  // namespace moreau

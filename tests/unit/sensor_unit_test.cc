// Unit tests of sensors, no MuJoCo: each sensor type on a hand-built scene where the
// value is known in closed form (rangefinder against every primitive, magnetometer, frame sensors
// with reference frames, velocimeter/gyro of a spinning arm, accelerometer and force sensor at
// rest, subtree momentum of a free body, joint/tendon/actuator sensors, clock, cutoff).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

// The stages the sensors read, then the three sensor stages.
void run_sensors(const Model& m, Data& d) {
  kinematics(m, d);
  com_pos(m, d);
  tendon(m, d);
  crb(m, d);
  factor_m(m, d);
  transmission(m, d);
  sensor_pos(m, d);
  tendon_actuator_velocity(m, d);
  com_vel(m, d);
  sensor_vel(m, d);
  actuation_force(m, d);
  // Acceleration stage with qacc = 0 (the bodies held still): cacc is gravity alone.
  std::fill(d.qacc.begin(), d.qacc.end(), 0.0);
  d.nefc = 0;
  d.ncon = 0;
  rne_post_constraint(m, d);
  sensor_acc(m, d);
}

double sensor(const Model& m, const Data& d, int s, int k = 0) { return d.sensordata[m.sensor_adr[s] + k]; }

TEST(Sensor, RangefinderAgainstEveryPrimitive) {
  // Sites pointing along -z (euler 180 about x) above each geom; the hit distance is known. The
  // sites are on their own body (a rangefinder does not see its own body's geoms).
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody>
      <geom type="plane" size="0 0 1"/>
      <geom type="sphere" pos="0 0 1" size=".5"/>
      <geom type="box" pos="3 0 1" size=".2 .3 .4" euler="0 0 30"/>
      <geom type="capsule" pos="6 0 1" size=".1 .3"/>
      <geom type="ellipsoid" pos="9 0 1" size=".2 .3 .4"/>
      <geom type="cylinder" pos="12 0 1" size=".2 .3"/>
      <geom type="capsule" pos="15 0 1" size=".1 .3" euler="0 90 0"/>
      <body name="probe">
      <site name="s0" pos="0 0 3" euler="180 0 0"/>
      <site name="s1" pos="3 0 3" euler="180 0 0"/>
      <site name="s2" pos="6 0 3" euler="180 0 0"/>
      <site name="s3" pos="9 0 3" euler="180 0 0"/>
      <site name="s4" pos="12 0 3" euler="180 0 0"/>
      <site name="s5" pos="15.35 0 3" euler="180 0 0"/>
      <site name="s6" pos="20 0 3" euler="180 0 0"/>
      <site name="s7" pos="20 0 3"/>
      <site name="s8" pos="0 0 1"/>
      </body>
    </worldbody><sensor>
      <rangefinder site="s0"/><rangefinder site="s1"/><rangefinder site="s2"/><rangefinder site="s3"/>
      <rangefinder site="s4"/><rangefinder site="s5"/><rangefinder site="s6"/><rangefinder site="s7"/>
      <rangefinder site="s8"/>
    </sensor></mujoco>)");
  Data d = make_data(m);
  run_sensors(m, d);
  EXPECT_NEAR(sensor(m, d, 0), 3 - 1.5, 1e-12);   // sphere top at z = 1.5
  EXPECT_NEAR(sensor(m, d, 1), 3 - 1.4, 1e-12);   // box top at z = 1.4
  EXPECT_NEAR(sensor(m, d, 2), 3 - 1.4, 1e-12);   // capsule (axis z) top at 1 + 0.3 + 0.1
  EXPECT_NEAR(sensor(m, d, 3), 3 - 1.4, 1e-12);   // ellipsoid top at 1 + 0.4
  EXPECT_NEAR(sensor(m, d, 4), 3 - 1.3, 1e-12);   // cylinder cap at 1 + 0.3
  // Horizontal capsule (axis x, half-length 0.3, radius 0.1) at x offset 0.35 from its centre: the
  // end cap's surface at height sqrt(0.1^2 - 0.05^2) above the axis.
  EXPECT_NEAR(sensor(m, d, 5), 3 - 1 - std::sqrt(0.01 - 0.0025), 1e-12);
  EXPECT_NEAR(sensor(m, d, 6), 3, 1e-12);         // the plane
  EXPECT_EQ(sensor(m, d, 7), -1);                 // pointing up: nothing (planes are one-sided)
  EXPECT_NEAR(sensor(m, d, 8), 0.5, 1e-12);       // from the sphere's centre: its surface
}

TEST(Sensor, FrameMagnetometerVelocimeterGyroAccelerometerForce) {
  const Model m = load_model_from_string(R"(
    <mujoco><option gravity="0 0 -10" magnetic="0 -0.5 0.2"/><worldbody>
      <site name="ref" pos="1 2 3" euler="0 0 90"/>
      <body name="arm" pos="0 0 1"><joint name="h" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 1 0 0" size=".05" mass="2"/>
        <site name="tip" pos="1 0 0" euler="0 0 90"/>
      </body>
      <body name="fixed" pos="0 3 1"><geom type="sphere" size=".1" mass="3"/><site name="fs" pos="0 0 .1"/></body>
    </worldbody><sensor>
      <framepos objtype="site" objname="tip"/>
      <framepos objtype="site" objname="tip" reftype="site" refname="ref"/>
      <framexaxis objtype="site" objname="tip"/>
      <framequat objtype="site" objname="tip" reftype="site" refname="ref"/>
      <magnetometer site="tip"/>
      <velocimeter site="tip"/>
      <gyro site="tip"/>
      <framelinvel objtype="site" objname="tip"/>
      <accelerometer site="fs"/>
      <force site="fs"/>
      <torque site="fs"/>
      <jointpos joint="h"/>
      <jointvel joint="h"/>
      <clock/>
      <subtreecom body="fixed"/>
    </sensor></mujoco>)");
  Data d = make_data(m);
  const double q = 0.3, w = 2.0;
  d.qpos[0] = q;
  d.qvel[0] = w;
  d.time = 1.25;
  run_sensors(m, d);
  const double c = std::cos(q), s = std::sin(q);
  // framepos: tip at (cos q, sin q, 1); relative to ref (rotated 90 deg about z, at (1,2,3)):
  // R' (p - p_ref) with R' (x, y) = (y, -x).
  EXPECT_NEAR(sensor(m, d, 0, 0), c, 1e-14);
  EXPECT_NEAR(sensor(m, d, 0, 1), s, 1e-14);
  EXPECT_NEAR(sensor(m, d, 0, 2), 1, 1e-14);
  EXPECT_NEAR(sensor(m, d, 1, 0), s - 2, 1e-14);
  EXPECT_NEAR(sensor(m, d, 1, 1), -(c - 1), 1e-14);
  EXPECT_NEAR(sensor(m, d, 1, 2), 1 - 3, 1e-14);
  // x axis of the tip site: rotated by q + 90 deg.
  EXPECT_NEAR(sensor(m, d, 2, 0), -s, 1e-14);
  EXPECT_NEAR(sensor(m, d, 2, 1), c, 1e-14);
  // framequat relative to ref: rotation by q about z.
  EXPECT_NEAR(std::fabs(sensor(m, d, 3, 0)), std::cos(q / 2), 1e-14);
  EXPECT_NEAR(std::fabs(sensor(m, d, 3, 3)), std::sin(q / 2), 1e-14);
  // Magnetometer: the field in the site frame (site rotated by q + 90 about z).
  const double a = q + M_PI / 2;
  EXPECT_NEAR(sensor(m, d, 4, 0), std::cos(a) * 0 + std::sin(a) * -0.5, 1e-14);
  EXPECT_NEAR(sensor(m, d, 4, 1), -std::sin(a) * 0 + std::cos(a) * -0.5, 1e-14);
  EXPECT_NEAR(sensor(m, d, 4, 2), 0.2, 1e-14);
  // Velocimeter: tip speed w*1 along the tangent = the site's x axis; gyro: w about z.
  EXPECT_NEAR(sensor(m, d, 5, 0), w, 1e-14);
  EXPECT_NEAR(sensor(m, d, 5, 1), 0, 1e-14);
  EXPECT_NEAR(sensor(m, d, 6, 2), w, 1e-14);
  EXPECT_NEAR(sensor(m, d, 7, 0), -w * s, 1e-14);
  EXPECT_NEAR(sensor(m, d, 7, 1), w * c, 1e-14);
  // Accelerometer on a body at rest: +g up. Force: the parent holds the weight, m g up; torque
  // about the site 0.1 above the com: zero (force through it).
  EXPECT_NEAR(sensor(m, d, 8, 2), 10, 1e-12);
  EXPECT_NEAR(sensor(m, d, 9, 2), 30, 1e-12);
  EXPECT_NEAR(sensor(m, d, 10, 0), 0, 1e-12);
  EXPECT_NEAR(sensor(m, d, 10, 1), 0, 1e-12);
  EXPECT_EQ(sensor(m, d, 11), q);
  EXPECT_EQ(sensor(m, d, 12), w);
  EXPECT_EQ(sensor(m, d, 13), 1.25);
  EXPECT_NEAR(sensor(m, d, 14, 1), 3, 1e-14);
}

TEST(Sensor, SubtreeMomentumOfAFreeBody) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><body name="b" pos="0 0 1"><freejoint/>
      <geom type="box" size=".1 .2 .3" mass="2"/></body></worldbody>
    <sensor><subtreelinvel body="b"/><subtreeangmom body="b"/><subtreeangmom body="world"/></sensor></mujoco>)");
  Data d = make_data(m);
  // Linear velocity (1, 2, 3), angular velocity (0.5, -1, 2) in the body frame (= world here).
  d.qvel = {1, 2, 3, 0.5, -1, 2};
  run_sensors(m, d);
  EXPECT_NEAR(sensor(m, d, 0, 0), 1, 1e-14);
  EXPECT_NEAR(sensor(m, d, 0, 2), 3, 1e-14);
  // L = I w, box inertia m/3 (b^2 + c^2), ...
  const double Ix = 2.0 / 3 * (0.04 + 0.09), Iy = 2.0 / 3 * (0.01 + 0.09), Iz = 2.0 / 3 * (0.01 + 0.04);
  EXPECT_NEAR(sensor(m, d, 1, 0), Ix * 0.5, 1e-13);
  EXPECT_NEAR(sensor(m, d, 1, 1), Iy * -1, 1e-13);
  EXPECT_NEAR(sensor(m, d, 1, 2), Iz * 2, 1e-13);
  // The world's subtree has the same com and the same momentum.
  EXPECT_NEAR(sensor(m, d, 2, 2), Iz * 2, 1e-13);
}

TEST(Sensor, TendonActuatorBallSensorsAndCutoff) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><body><joint name="ball" type="ball"/><geom size=".1"/>
      <body pos="1 0 0"><joint name="j" type="slide" limited="true" range="-1 1"/><geom size=".1"/></body></body></worldbody>
    <tendon><fixed name="t"><joint joint="j" coef="3"/></fixed></tendon>
    <actuator><motor name="a" tendon="t" gear="2"/></actuator>
    <sensor><tendonpos tendon="t"/><tendonvel tendon="t"/><actuatorpos actuator="a"/><actuatorvel actuator="a"/>
      <actuatorfrc actuator="a"/><ballquat joint="ball"/><ballangvel joint="ball"/>
      <jointpos joint="j" cutoff="0.1"/><jointlimitpos joint="j"/></sensor></mujoco>)");
  Data d = make_data(m);
  d.qpos = {2, 0, 0, 0, 0.25};  // unnormalized quaternion: ballquat normalizes
  d.qvel = {0.1, 0.2, 0.3, -0.5};
  d.ctrl[0] = 0.7;
  run_sensors(m, d);
  EXPECT_NEAR(sensor(m, d, 0), 0.75, 1e-15);
  EXPECT_NEAR(sensor(m, d, 1), -1.5, 1e-15);
  EXPECT_NEAR(sensor(m, d, 2), 1.5, 1e-15);
  EXPECT_NEAR(sensor(m, d, 3), -3.0, 1e-15);
  EXPECT_NEAR(sensor(m, d, 4), 0.7, 1e-15);
  EXPECT_EQ(sensor(m, d, 5, 0), 1);
  EXPECT_EQ(sensor(m, d, 6, 2), 0.3);
  EXPECT_EQ(sensor(m, d, 7), 0.1);  // 0.25 cut off at 0.1
  EXPECT_EQ(sensor(m, d, 8), 0);    // no limit row: 0
}

TEST(Sensor, DisabledAndNoise) {
  Model m = load_model_from_string(R"(
    <mujoco><worldbody><body><joint name="j" type="slide"/><geom size=".1"/></body></worldbody>
    <sensor><jointpos joint="j" noise="0.1"/></sensor></mujoco>)");
  Data d = make_data(m);
  d.qpos[0] = 0.5;
  d.sensordata[0] = 7;
  m.opt.disableflags |= kDsblSensor;
  run_sensors(m, d);
  EXPECT_EQ(d.sensordata[0], 7);  // untouched
  m.opt.disableflags = 0;
  run_sensors(m, d);
  EXPECT_EQ(d.sensordata[0], 0.5);  // noise only with the sensornoise flag
  m.opt.enableflags |= kEnblSensornoise;
  run_sensors(m, d);
  const double n1 = d.sensordata[0];
  EXPECT_NE(n1, 0.5);
  EXPECT_LT(std::fabs(n1 - 0.5), 0.6);  // 6 standard deviations
  run_sensors(m, d);
  EXPECT_EQ(d.sensordata[0], n1);  // deterministic for the same time
}

}  // namespace
}  // namespace moreau

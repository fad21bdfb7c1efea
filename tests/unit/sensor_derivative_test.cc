// Sensor derivatives (C, D of transition_derivatives) against transition_fd's (centred, eps 1e-6).
//
// Error measure per sensor: max |analytic - fd| / max(max |fd|, 1) over the sensor's rows of C and
// D. Centred differences at eps 1e-6 have truncation ~eps^2 |f'''| ~ 1e-12 and round-off
// ~1e-16 |f| / eps ~ 1e-10 relative, far below the bounds (1e-6 smooth, 1e-5 with constraints).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../model_list.h"
#include "derivative_test_util.h"
#include "moreau/analytic_derivative.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::random_state;
using testing::Vec;

// A chain with a free root, a ball, hinges and a slide; sites and geoms on every body; sensors of
// every covered type, with and without reference frames, a cutoff that clamps; actuators with joint,
// fixed-tendon and spatial-tendon transmissions (affine gain and bias, filter dynamics); a floor the
// feet touch, with touch, force, torque and limit-force sensors (on the foot, the lower leg and the
// torso, whose subtree holds every contact).
const char* kSensorModel = R"(
<mujoco>
  <compiler autolimits="true"/>
  <option timestep="0.005" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 0.52">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" mass="3"/>
      <site name="imu" pos="0.1 0.02 0.03" quat="0.9 0.1 0.3 0.2"/>
      <site name="t0" pos="0.2 0 0"/>
      <camera name="cam" pos="0 -0.3 0.1" quat="0.7 0.7 0 0"/>
      <body name="upper" pos="0.2 0 0">
        <joint name="ball" type="ball" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.04" mass="1"/>
        <site name="s_upper" pos="0.02 0.01 -0.1" quat="0.8 0.2 -0.3 0.1"/>
        <site name="t1" pos="0.04 0 -0.2"/>
        <body name="lower" pos="0 0 -0.25">
          <joint name="knee" type="hinge" axis="0 1 0" range="-2 2" damping="0.2"/>
          <joint name="twist" type="hinge" axis="0.3 0 1"/>
          <geom type="capsule" fromto="0 0 0 0.05 0 -0.2" size="0.035" mass="0.7"/>
          <site name="s_lower" pos="0.03 0 -0.12" quat="0.6 0.3 0.1 -0.7"/>
          <body name="foot" pos="0.05 0 -0.2">
            <joint name="slide" type="slide" axis="0.2 0.1 1" range="-0.1 0.1"/>
            <geom name="foot" type="sphere" size="0.05" mass="0.3"/>
            <site name="sole" type="sphere" size="0.06"/>
          </body>
        </body>
      </body>
      <body name="tail" pos="-0.2 0 0">
        <joint name="wag" type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 -0.3 0 0" size="0.03" mass="0.4"/>
        <site name="tip" pos="-0.3 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fixed" range="-0.3 0.3"><joint joint="knee" coef="1"/><joint joint="wag" coef="-0.5"/></fixed>
    <spatial name="spatial"><site site="t0"/><site site="t1"/></spatial>
  </tendon>
  <actuator>
    <motor name="m_knee" joint="knee" gear="2" ctrlrange="-1 1" ctrllimited="true"/>
    <general name="p_slide" joint="slide" gainprm="20" biastype="affine" biasprm="0 -20 -1"/>
    <motor name="m_fixed" tendon="fixed" gear="1.5"/>
    <motor name="m_spatial" tendon="spatial" gear="1"/>
    <general name="f_wag" joint="wag" dyntype="filter" dynprm="0.05" gaintype="affine" gainprm="3 0.5 0.2"
             biastype="affine" biasprm="0.1 -1 -0.3"/>
  </actuator>
  <sensor>
    <clock/>
    <jointpos joint="knee"/> <jointpos joint="slide"/>
    <jointvel joint="knee"/> <jointvel joint="slide"/>
    <ballquat joint="ball"/> <ballangvel joint="ball"/>
    <tendonpos tendon="fixed"/> <tendonpos tendon="spatial"/> <tendonvel tendon="fixed"/>
    <actuatorpos actuator="m_knee"/> <actuatorpos actuator="m_fixed"/>
    <actuatorvel actuator="p_slide"/> <actuatorvel actuator="m_fixed"/>
    <actuatorfrc actuator="m_knee"/> <actuatorfrc actuator="p_slide"/> <actuatorfrc actuator="f_wag"/>
    <actuatorfrc actuator="m_fixed"/>
    <magnetometer site="s_lower"/>
    <framepos objtype="site" objname="s_lower"/>
    <framepos objtype="body" objname="lower" reftype="site" refname="s_upper"/>
    <framepos objtype="geom" objname="foot" reftype="xbody" refname="tail"/>
    <framequat objtype="xbody" objname="foot"/>
    <framequat objtype="site" objname="s_lower" reftype="camera" refname="cam"/>
    <framexaxis objtype="site" objname="s_lower"/>
    <frameyaxis objtype="body" objname="upper" reftype="site" refname="tip"/>
    <framezaxis objtype="camera" objname="cam" reftype="geom" refname="foot"/>
    <subtreecom body="torso"/> <subtreecom body="upper"/>
    <subtreelinvel body="torso"/> <subtreelinvel body="lower"/>
    <subtreeangmom body="torso"/> <subtreeangmom body="upper"/>
    <velocimeter site="s_lower"/> <velocimeter site="imu"/>
    <gyro site="s_lower"/>
    <framelinvel objtype="site" objname="sole"/>
    <framelinvel objtype="site" objname="s_lower" reftype="site" refname="tip"/>
    <frameangvel objtype="body" objname="foot"/>
    <frameangvel objtype="geom" objname="foot" reftype="body" refname="upper"/>
    <accelerometer site="s_lower"/> <accelerometer site="imu"/>
    <framelinacc objtype="body" objname="foot"/> <framelinacc objtype="geom" objname="foot"/>
    <frameangacc objtype="xbody" objname="lower"/> <frameangacc objtype="site" objname="tip"/>
    <jointlimitpos joint="slide"/> <jointlimitvel joint="slide"/> <jointlimitfrc joint="slide"/>
    <tendonlimitpos tendon="fixed"/> <tendonlimitvel tendon="fixed"/>
    <jointpos joint="knee" cutoff="0.01"/>
    <touch site="sole"/>
    <force site="s_lower"/>
    <actuatorfrc actuator="m_spatial"/>
    <torque site="s_lower"/> <force site="s_upper"/> <torque site="s_upper"/> <torque site="sole"/>
    <tendonlimitfrc tendon="fixed"/>
  </sensor>
</mujoco>)";

const char* type_label(int type) {
  static const char* names[] = {"touch", "accelerometer", "velocimeter", "gyro", "force", "torque",
                                "magnetometer", "rangefinder", "jointpos", "jointvel", "tendonpos",
                                "tendonvel", "actuatorpos", "actuatorvel", "actuatorfrc", "ballquat",
                                "ballangvel", "jointlimitpos", "jointlimitvel", "jointlimitfrc",
                                "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc", "framepos",
                                "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel",
                                "frameangvel", "framelinacc", "frameangacc", "subtreecom",
                                "subtreelinvel", "subtreeangmom", "clock", "plugin", "user"};
  return type >= 0 && type <= kSensUser ? names[type] : "?";
}

struct Errors {
  double worst = 0;
  std::string where;
  std::string zero_rows;  // the types of the sensors whose rows of C and D are all zero in transition_fd's
};

// C, D of transition_derivatives against transition_fd's; returns the worst per-sensor error.
Errors compare(const Model& m, Data& d, const std::string& label) {
  const int ndx = 2 * m.nv + m.na, nu = m.nu, ns = m.nsensordata;
  Vec C(static_cast<size_t>(ns) * ndx), D(static_cast<size_t>(ns) * nu), Cf(C.size()), Df(D.size());
  const Vec q0 = d.qpos, v0 = d.qvel;
  transition_derivatives(m, d, nullptr, nullptr, C.data(), D.data());
  EXPECT_EQ(d.qpos, q0);
  EXPECT_EQ(d.qvel, v0);
  transition_fd(m, d, 1e-6, true, nullptr, nullptr, Cf.data(), Df.data());
  Errors e;
  for (int s = 0; s < m.nsensor; ++s) {
    double num = 0, den = 1;
    for (int i = m.sensor_adr[s]; i < m.sensor_adr[s] + m.sensor_dim[s]; ++i) {
      for (int k = 0; k < ndx; ++k) {
        const size_t a = static_cast<size_t>(i) * ndx + k;
        num = std::max(num, std::abs(C[a] - Cf[a]));
        den = std::max(den, std::abs(Cf[a]));
      }
      for (int k = 0; k < nu; ++k) {
        const size_t a = static_cast<size_t>(i) * nu + k;
        num = std::max(num, std::abs(D[a] - Df[a]));
        den = std::max(den, std::abs(Df[a]));
      }
    }
    if (den == 1) {  // no entry above 1: check for an all-zero block
      bool zero = true;
      for (int i = m.sensor_adr[s]; i < m.sensor_adr[s] + m.sensor_dim[s]; ++i) {
        for (int k = 0; k < ndx; ++k) zero = zero && Cf[static_cast<size_t>(i) * ndx + k] == 0;
        for (int k = 0; k < nu; ++k) zero = zero && Df[static_cast<size_t>(i) * nu + k] == 0;
      }
      if (zero) e.zero_rows += std::string(type_label(m.sensor_type[s])) + " ";
    }
    if (num / den > e.worst) {
      e.worst = num / den;
      e.where = label + ": sensor " + std::to_string(s) + " (" + type_label(m.sensor_type[s]) + ")";
    }
  }
  return e;
}

// Every covered sensor type on the chain, at random states, with the three analytic integrators
// (C and D do not depend on the integrator; the transition code path does) and with constraints
// disabled (bound 1e-6) and enabled (contacts with the floor, joint limits: bound 1e-5).
TEST(SensorDerivative, ChainMatchesTransitionFd) {
  Model m = load_model_from_string(kSensorModel);
  for (bool constrained : {false, true}) {
    if (constrained)
      m.opt.disableflags &= ~kDsblConstraint;
    else
      m.opt.disableflags |= kDsblConstraint;
    for (int integ : {kIntEuler, kIntImplicit, kIntImplicitFast}) {
      m.opt.integrator = integ;
      for (unsigned seed : {1u, 2u, 3u}) {
        Data d = make_data(m);
        random_state(m, d, seed);
        // without constraints, an applied force and torque on the lower leg (in the force and
        // torque sensors of the upper leg's subtree)
        if (!constrained) {
          const double xf[6] = {1, -2, 3, 0.3, 0.2, -0.1};
          std::copy(xf, xf + 6, &d.xfrc_applied[6 * 3]);
        }
        const Errors e = compare(m, d, "seed " + std::to_string(seed));
        std::printf("constrained %d integrator %d seed %u: worst %.2e at %s; constant: %s\n", constrained, integ,
                    seed, e.worst, e.where.c_str(), e.zero_rows.c_str());
        EXPECT_LE(e.worst, constrained ? 1e-5 : 1e-6) << e.where;
        // only the clock, the clamped jointpos, and the touch and limit sensors reading 0 (no
        // contact, limit inactive) are constant
        forward(m, d);
        std::string constant;
        for (int s = 0; s < m.nsensor; ++s) {
          const int t = m.sensor_type[s];
          const bool contact_or_limit = t == kSensTouch || (t >= kSensJointLimitPos && t <= kSensTendonLimitFrc);
          if (t == kSensClock || (t == kSensJointPos && m.sensor_cutoff[s] > 0) ||
              (contact_or_limit && d.sensordata[m.sensor_adr[s]] == 0))
            constant += std::string(type_label(t)) + " ";
        }
        EXPECT_EQ(e.zero_rows, constant);
      }
    }
  }
}

// The same model lying on the floor after 350 steps from a drop (5 to 7 contacts, touch > 0), with
// pyramidal and elliptic cones and with the chain's contacts frictionless (condim 1) or with
// torsional and rolling friction (condim 6: the contact torques enter the force and torque
// sensors): every row analytic (derivative_fallbacks names no sensor), the touch, force and torque
// rows not constant. (After 300 steps a pyramid edge of the condim-6 run sits at its switch: the
// differences then cross the active set, and the accelerometers disagree as much as the forces.)
TEST(SensorDerivative, ChainInContactMatchesTransitionFd) {
  for (int cone : {kConePyramidal, kConeElliptic})
    for (int condim : {3, 1, 6}) {
      Model m = load_model_from_string(kSensorModel);
      m.opt.cone = cone;
      for (int g = 0; g < m.ngeom; ++g)
        if (m.geom_bodyid[g] != 0) m.geom_condim[g] = condim;
      Data d = make_data(m);
      for (int i = 0; i < 350; ++i) step(m, d);
      forward(m, d);
      ASSERT_GT(d.ncon, 0);
      for (const std::string& f : derivative_fallbacks(m, d)) EXPECT_EQ(f.find("(C, D rows)"), std::string::npos) << f;
      const std::string label = "cone " + std::to_string(cone) + " condim " + std::to_string(condim);
      const Errors e = compare(m, d, label);
      int touch = -1;
      for (int s = 0; s < m.nsensor; ++s)
        if (m.sensor_type[s] == kSensTouch) touch = m.sensor_adr[s];
      EXPECT_GT(d.sensordata[touch], 0);  // the chain presses on the floor
      std::printf("in contact, %s (ncon %d, nefc %d): worst %.2e at %s; constant: %s\n", label.c_str(), d.ncon,
                  d.nefc, e.worst, e.where.c_str(), e.zero_rows.c_str());
      EXPECT_LE(e.worst, 1e-5) << e.where;
      for (const char* t : {"touch", "force", "torque"}) EXPECT_EQ(e.zero_rows.find(t), std::string::npos) << t;
    }
}

// derivative_fallbacks names no sensor of the chain (every type analytic), and with noslip (whose
// forces are not differentiated row by row) the sensors that read the constraint forces, in
// contact.
TEST(SensorDerivative, FallbacksNameTheUncoveredTypes) {
  Model m = load_model_from_string(kSensorModel);
  Data d = make_data(m);
  auto sensor_fallbacks = [&] {
    std::vector<std::string> sensors;
    for (const std::string& s : derivative_fallbacks(m, d))
      if (s.find("(C, D rows)") != std::string::npos) sensors.push_back(s);
    return sensors;
  };
  EXPECT_EQ(sensor_fallbacks(), std::vector<std::string>{});
  for (int i = 0; i < 300; ++i) step(m, d);
  EXPECT_EQ(sensor_fallbacks(), std::vector<std::string>{});
  m.opt.noslip_iterations = 10;
  const char* why = " (constraint forces with noslip or columns by differences) (C, D rows)";
  std::vector<std::string> expected;
  for (const char* t : {"jointlimitfrc", "touch", "force", "torque", "tendonlimitfrc"})
    expected.push_back(std::string(t) + " sensor" + why);
  EXPECT_EQ(sensor_fallbacks(), expected);
}

// Sensor-rich models of the shared corpus (dm_control's humanoid and quadruped: accelerometers,
// gyros, velocimeters, touch, force, torque, subtree sensors; the dog, the finger) after 200
// steps from keyframe 0 or qpos0 (contacts), Euler: C, D against transition_fd; bound 1e-5.
// noslip (the dog) is run to convergence for the comparison.
TEST(SensorDerivative, CorpusModelsMatchTransitionFd) {
  int skipped = 0;
  const char* rels[] = {"dm_control/humanoid.xml", "dm_control/quadruped.xml",
                        "dm_control/dog.xml", "dm_control/finger.xml"};
  for (const char* rel : rels) {
    const std::string path = test_models::shared_model(rel);
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    if (test_models::subset_run() && std::string(rel) == "dm_control/dog.xml") {
      // nine tenths of the case (converged noslip in every difference); the sanitizer run covers
      // its paths in DogNoslipAllColumnsAnalytic (noslip) and the quadruped's rangefinder rows
      // (sensor rows by differences)
      std::printf("%s: left out of the sanitizer subset\n", rel);
      continue;
    }
    Model m = load_model(path);
    m.opt.integrator = kIntEuler;
    Data d = make_data(m);
    if (m.nkey > 0) reset_data_keyframe(m, d, 0);
    for (int i = 0; i < 200; ++i) step(m, d);
    // the analytic path differentiates the converged noslip pass (the dog's 4 sweeps are not):
    // compare against differences of a converged pass, as DogNoslipAllColumnsAnalytic does
    if (m.opt.noslip_iterations > 0) {
      m.opt.noslip_iterations = 3000, m.opt.noslip_tolerance = 0;
      m.opt.tolerance = 1e-12, m.opt.iterations = 200;
    }
    std::string fb;
    for (const std::string& f : derivative_fallbacks(m, d)) fb += f + "; ";
    forward(m, d);
    const Errors e = compare(m, d, rel);
    std::printf("%s (nsensor %d, ncon %d): worst %.2e at %s; fallbacks: %s\n", rel, m.nsensor, d.ncon, e.worst,
                e.where.c_str(), fb.c_str());
    EXPECT_LE(e.worst, 1e-5) << e.where;
    // touch, force and torque rows are analytic without noslip (the dog's fall back)
    if (m.opt.noslip_iterations == 0)
      for (const char* t : {"touch sensor", "force sensor", "torque sensor"}) EXPECT_EQ(fb.find(t), std::string::npos) << fb;
  }
  MOREAU_SKIPPED_SHARED(skipped, 4);
}

}  // namespace
}  // namespace moreau

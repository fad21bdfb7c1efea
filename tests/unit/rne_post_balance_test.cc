// The interaction forces of rne_post_constraint balance the forces that act on each joint, at
// states where connect and weld constraints are violated (no MuJoCo): for every dof i of body b,
//   cdof_i . cfrc_int[b] = qfrc_passive_i + qfrc_actuator_i + qfrc_applied_i
//                          + (J' f over the constraint rows that cfrc_ext does not hold)_i,
// since cfrc_ext holds xfrc_applied and the forces of the contact, connect and weld rows, and the
// recursion sums I a + v x* I v - cfrc_ext over the subtree. In particular a free joint passes no
// force. MuJoCo 2.2.2 breaks this where a weld's orientation is violated or its torquescale is not
// 1 (it adds the rotational rows' forces to cfrc_ext as a torque; known_differences.h).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {
namespace {

const char* kModel = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <body name="forearm" pos=".5 0 0">
        <joint name="ball" type="ball"/>
        <geom type="box" size=".2 .04 .04" pos=".2 0 0"/>
      </body>
    </body>
    <body name="a" pos="1 0 1"><freejoint/><geom type="box" size=".1 .05 .05"/></body>
    <body name="b" pos="1.5 0 1"><freejoint/><geom type="sphere" size=".07"/></body>
    <body name="c" pos="2 0 1"><freejoint/><geom type="cylinder" size=".05 .1"/></body>
  </worldbody>
  <equality>
    <weld body1="forearm" body2="a" torquescale="0.3"/>
    <weld body1="a" body2="b" relpose=".5 0 0 1 0 0 0" torquescale="0"/>
    <weld body1="b" body2="c" torquescale="1"/>
    <connect body1="c" body2="arm" anchor=".2 0 0"/>
  </equality>
  <actuator><motor joint="hinge"/></actuator>
</mujoco>)";

TEST(RnePostConstraint, InteractionForcesBalanceJointForcesAtViolatedConstraints) {
  Model m = load_model_from_string(kModel);
  m.opt.disableflags |= kDsblContact;  // only the equality rows act
  Data d = make_data(m);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  int states = 0;
  double worst = 0;
  for (int state = 0; state < 20; ++state) {
    reset_data(m, d);
    for (int j = 0; j < m.njnt; ++j) {
      double* q = &d.qpos[m.jnt_qposadr[j]];
      if (m.jnt_type[j] == kJointFree) {
        for (int k = 0; k < 3; ++k) q[k] += 0.5 * u(rng);
        q += 3;
      }
      if (m.jnt_type[j] == kJointFree || m.jnt_type[j] == kJointBall) {
        double n = 0;
        for (int k = 0; k < 4; ++k) n += (q[k] = u(rng)) * q[k];
        for (int k = 0; k < 4; ++k) q[k] /= std::sqrt(n);
      } else {
        q[0] += u(rng);
      }
    }
    for (int i = 0; i < m.nv; ++i) d.qvel[i] = u(rng), d.qfrc_applied[i] = u(rng);
    for (int k = 0; k < 6 * m.nbody; ++k) d.xfrc_applied[k] = k < 6 ? 0 : u(rng);
    d.ctrl[0] = u(rng);
    forward(m, d);
    rne_post_constraint(m, d);  // forward runs it only for models with acceleration sensors
    ASSERT_GT(d.ne, 0);
    // every row is an equality row of a connect or weld, held in cfrc_ext
    for (int i = 0; i < d.nefc; ++i) ASSERT_EQ(d.efc_type[i], kCnstrEquality);
    double scale = 0;
    for (int k = 0; k < 6 * m.nbody; ++k) scale = std::max(scale, std::fabs(d.cfrc_ext[k]));
    ASSERT_GT(scale, 1.0);  // the violated constraints push hard
    for (int i = 0; i < m.nv; ++i) {
      const double* cdof = &d.cdof[6 * i];
      const double* f = &d.cfrc_int[6 * m.dof_bodyid[i]];
      double lhs = 0;
      for (int k = 0; k < 6; ++k) lhs += cdof[k] * f[k];
      const double rhs = d.qfrc_passive[i] + d.qfrc_actuator[i] + d.qfrc_applied[i];
      worst = std::max(worst, std::fabs(lhs - rhs) / scale);
    }
    ++states;
  }
  EXPECT_EQ(states, 20);
  EXPECT_LT(worst, 1e-12);  // round-off of sums of forces up to ~1e3 N
}

}  // namespace
}  // namespace moreau

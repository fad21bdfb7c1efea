// The simulation chapter's utilities, by identities that hold exactly or to round-off (their
// values against MuJoCo 2.2.2 are in tests/differential/api_utilities_test.cc):
//  - set_keyframe then reset_data_keyframe restores the state; keyframe arrays a model left empty are
//    sized;
//  - id2name inverts name2id;
//  - object_velocity of a free body is its qvel (world linear, local angular), in world and local
//    orientation, and its com's acceleration is 0 against free fall;
//  - jac_subtree_com * qvel = subtree_linvel; jac_point_axis * qvel = w x axis and the point's
//    velocity; mul_jac_vec(qvel) = efc_vel; mul_jac_t_vec(efc_force) = qfrc_constraint;
//    apply_ft at a body's com equals xfrc_applied;
//  - forward_skip after a control change equals forward bit for bit;
//  - pose helpers: a pose times its inverse is the identity, quat_to_mat/mat_to_quat round trip;
//  - total_mass, is_pyramidal, is_sparse on models with known values.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {
namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

// A free box (mass 2) and a two-link hinge arm (masses 1 and 0.5), one keyframe without ctrl.
const char* kFreeAndArm = R"(<mujoco>
  <worldbody>
    <body name="box" pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3" mass="2"/></body>
    <body name="upper" pos="1 0 1"><joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05" mass="1"/>
      <body name="lower" pos=".5 0 0"><joint name="elbow" type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04" mass=".5"/>
        <site name="tip" pos=".4 0 0"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor joint="shoulder"/><motor joint="elbow"/></actuator>
  <keyframe><key name="start" qpos="0 0 1 1 0 0 0 .3 -.2"/></keyframe>
</mujoco>)";

void expect_near_array(const double* a, const double* b, int n, double tol, const std::string& what) {
  for (int i = 0; i < n; ++i) EXPECT_NEAR(a[i], b[i], tol) << what << "[" << i << "]";
}

TEST(ApiUtilitiesUnit, SetKeyframeRoundTrip) {
  Model m = load_model_from_string(kFreeAndArm);
  ASSERT_EQ(m.nkey, 1);
  Data d = make_data(m);
  reset_data_keyframe(m, d, 0);
  d.ctrl = {0.5, -0.25};
  for (int i = 0; i < 50; ++i) step(m, d);
  set_keyframe(m, d, 0);
  ASSERT_EQ(m.key_ctrl.size(), 2u);  // the keyframe had no ctrl: the row is sized
  Data e = make_data(m);
  reset_data_keyframe(m, e, 0);
  EXPECT_EQ(e.time, d.time);
  EXPECT_EQ(e.qpos, d.qpos);
  EXPECT_EQ(e.qvel, d.qvel);
  EXPECT_EQ(e.ctrl, d.ctrl);
}

TEST(ApiUtilitiesUnit, Id2NameInvertsName2Id) {
  const Model m = load_model(kHumanoid);
  int named = 0;
  for (ObjType type : {kObjBody, kObjJoint, kObjGeom, kObjSite, kObjActuator, kObjSensor, kObjKey}) {
    const int n = type == kObjBody ? m.nbody : type == kObjJoint ? m.njnt : type == kObjGeom ? m.ngeom
                : type == kObjSite ? m.nsite : type == kObjActuator ? m.nu : type == kObjSensor ? m.nsensor : m.nkey;
    for (int id = 0; id < n; ++id) {
      const std::string name = id2name(m, type, id);
      if (name.empty()) continue;
      ++named;
      EXPECT_EQ(name2id(m, type, name), id) << name;
    }
  }
  EXPECT_GT(named, 20);
  EXPECT_EQ(id2name(m, kObjBody, 0), "world");
}

TEST(ApiUtilitiesUnit, ObjectVelocityOfAFreeBody) {
  const Model m = load_model_from_string(kFreeAndArm);
  Data d = make_data(m);
  // rotated 90 degrees about z: local x is world y
  const double c = std::sqrt(0.5);
  const double qpos[7] = {0.1, 0.2, 1.0, c, 0, 0, c};
  std::copy_n(qpos, 7, d.qpos.begin());
  const double v[3] = {0.3, -0.4, 0.5}, w_local[3] = {1.0, 2.0, -3.0};
  std::copy_n(v, 3, d.qvel.begin());
  std::copy_n(w_local, 3, d.qvel.begin() + 3);
  forward(m, d);
  double res[6];
  object_velocity(m, d, kObjXBody, 1, res, true);
  // local: angular as in qvel; linear v in the body frame: (v_y, -v_x, v_z)
  const double expect_local[6] = {1.0, 2.0, -3.0, -0.4, -0.3, 0.5};
  expect_near_array(res, expect_local, 6, 1e-14, "local");
  object_velocity(m, d, kObjXBody, 1, res, false);
  const double expect_world[6] = {-2.0, 1.0, -3.0, 0.3, -0.4, 0.5};
  expect_near_array(res, expect_world, 6, 1e-14, "world");
  // accelerations are measured against free fall (cacc's world entry is -gravity): the free body's
  // centre of mass reads 0 whatever its spin, and the world reads -gravity
  rne_post_constraint(m, d);
  object_acceleration(m, d, kObjBody, 1, res, false);
  const double zero[3] = {0, 0, 0};
  expect_near_array(res + 3, zero, 3, 1e-12, "falling com");
  object_acceleration(m, d, kObjXBody, 0, res, false);
  const double up[6] = {0, 0, 0, 0, 0, 9.81};
  expect_near_array(res, up, 6, 1e-15, "world");
}

TEST(ApiUtilitiesUnit, JacobianIdentities) {
  const Model m = load_model(kHumanoid);
  Data d = make_data(m);
  reset_data_keyframe(m, d, 0);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = 0.3 * std::sin(1.0 + i);
  for (int i = 0; i < 300; ++i) step(m, d);  // on the floor: contacts and limits in efc
  forward(m, d);
  subtree_vel(m, d);
  ASSERT_GT(d.nefc, 0);
  const int nv = m.nv;
  std::vector<double> jp(3 * nv), ja(3 * nv);
  auto mul = [&](const std::vector<double>& J, double* r) {
    for (int k = 0; k < 3; ++k) {
      r[k] = 0;
      for (int i = 0; i < nv; ++i) r[k] += J[k * nv + i] * d.qvel[i];
    }
  };
  for (int b = 1; b < m.nbody; ++b) {
    double r[3];
    jac_subtree_com(m, d, jp.data(), b);
    mul(jp, r);
    expect_near_array(r, &d.subtree_linvel[3 * b], 3, 1e-12, "subtree com velocity, body " + std::to_string(b));

    const double axis[3] = {0.6, 0.0, 0.8};
    const double* point = &d.xipos[3 * b];
    jac_point_axis(m, d, jp.data(), ja.data(), point, axis, b);
    double vel[6], wxa[3], ra[3], rp[3];
    object_velocity(m, d, kObjBody, b, vel, false);
    wxa[0] = vel[1] * axis[2] - vel[2] * axis[1];
    wxa[1] = vel[2] * axis[0] - vel[0] * axis[2];
    wxa[2] = vel[0] * axis[1] - vel[1] * axis[0];
    mul(ja, ra);
    mul(jp, rp);
    expect_near_array(ra, wxa, 3, 1e-12, "axis rate, body " + std::to_string(b));
    expect_near_array(rp, vel + 3, 3, 1e-12, "point velocity, body " + std::to_string(b));
  }
  std::vector<double> jv(d.nefc), jtf(nv);
  mul_jac_vec(m, d, jv.data(), d.qvel.data());
  expect_near_array(jv.data(), d.efc_vel.data(), d.nefc, 1e-12, "efc_vel");
  mul_jac_t_vec(m, d, jtf.data(), d.efc_force.data());
  expect_near_array(jtf.data(), d.qfrc_constraint.data(), nv, 1e-9, "qfrc_constraint");

  // apply_ft at a body's com = xfrc_applied of that body
  const int b = m.nbody - 1;
  const double f[3] = {1, -2, 3}, t[3] = {0.5, 0.25, -1};
  std::vector<double> q(nv, 0.0);
  apply_ft(m, d, f, t, &d.xipos[3 * b], b, q.data());
  Data e = d;
  std::fill(e.xfrc_applied.begin(), e.xfrc_applied.end(), 0.0);
  std::copy_n(f, 3, &e.xfrc_applied[6 * b]);
  std::copy_n(t, 3, &e.xfrc_applied[6 * b + 3]);
  std::fill(e.qfrc_applied.begin(), e.qfrc_applied.end(), 0.0);
  forward(m, e);
  Data z = e;
  std::fill(z.xfrc_applied.begin(), z.xfrc_applied.end(), 0.0);
  forward(m, z);
  for (int i = 0; i < nv; ++i) EXPECT_NEAR(q[i], e.qfrc_smooth[i] - z.qfrc_smooth[i], 1e-12) << i;
}

TEST(ApiUtilitiesUnit, ForwardSkipAfterAControlChange) {
  const Model m = load_model(kHumanoid);
  Data a = make_data(m);
  reset_data_keyframe(m, a, 0);
  for (int i = 0; i < 100; ++i) step(m, a);
  forward(m, a);
  Data b = a;
  for (int u = 0; u < m.nu; ++u) a.ctrl[u] = b.ctrl[u] = 0.3 * std::cos(u + 0.5);
  forward(m, a);
  forward_skip(m, b, kStageVel, false);
  EXPECT_EQ(a.qacc, b.qacc);
  EXPECT_EQ(a.sensordata, b.sensordata);
  // inverse from the same qacc, with the position and velocity stages current
  inverse(m, a);
  inverse_skip(m, b, kStageVel, false);
  EXPECT_EQ(a.qfrc_inverse, b.qfrc_inverse);
}

TEST(ApiUtilitiesUnit, PoseHelpers) {
  const double axis[3] = {0, 0.6, 0.8};
  double q[4], qi[4], p[3] = {1, 2, 3}, pi[3], pr[3], qr[4];
  axis_angle_to_quat(q, axis, 0.7);
  neg_pose(pi, qi, p, q);
  mul_pose(pr, qr, p, q, pi, qi);
  const double zero[3] = {0, 0, 0}, unit[4] = {1, 0, 0, 0};
  expect_near_array(pr, zero, 3, 1e-15, "pose * inverse: position");
  expect_near_array(qr, unit, 4, 1e-15, "pose * inverse: quaternion");
  // two rotations about one axis add their angles
  double q2[4], q3[4], qsum[4];
  axis_angle_to_quat(q2, axis, 0.5);
  quat_mul(q3, q, q2);
  axis_angle_to_quat(qsum, axis, 1.2);
  expect_near_array(q3, qsum, 4, 1e-15, "angles add");
  double R[9], qb[4], v[3] = {0.3, -1, 2}, r1[3], r2[3];
  quat_to_mat(R, q);
  mat_to_quat(qb, R);
  expect_near_array(qb, q, 4, 1e-15, "mat_to_quat(quat_to_mat(q))");
  rot_vec_quat(r1, v, q);
  for (int k = 0; k < 3; ++k) r2[k] = R[3 * k] * v[0] + R[3 * k + 1] * v[1] + R[3 * k + 2] * v[2];
  expect_near_array(r1, r2, 3, 1e-15, "rot_vec_quat = R v");
  // integrating the rotation vector of a rotation gives the rotation
  double w[3];
  quat_to_vel(w, q, 1.0);
  double qint[4] = {1, 0, 0, 0};
  quat_integrate(qint, w, 1.0);
  expect_near_array(qint, q, 4, 1e-15, "quat_integrate(quat_to_vel(q))");
  // the outputs may alias the inputs
  double pa[3] = {1, 2, 3}, qa[4];
  std::copy_n(q, 4, qa);
  mul_pose(pa, qa, pa, qa, pi, qi);
  expect_near_array(pa, zero, 3, 1e-15, "aliased mul_pose");
}

TEST(ApiUtilitiesUnit, ModelQueries) {
  Model m = load_model_from_string(kFreeAndArm);
  EXPECT_NEAR(total_mass(m), 3.5, 1e-12);
  EXPECT_TRUE(is_pyramidal(m));
  m.opt.cone = kConeElliptic;
  EXPECT_FALSE(is_pyramidal(m));
  EXPECT_FALSE(is_sparse(m));  // auto, nv = 8 < 60
  m.opt.jacobian = kJacSparse;
  EXPECT_TRUE(is_sparse(m));
  m.opt.jacobian = kJacDense;
  EXPECT_FALSE(is_sparse(m));
  double xpos[3], xmat[9];
  Data d = make_data(m);
  reset_data_keyframe(m, d, 0);
  forward(m, d);
  // a point 0.4 along the lower link's x axis is the tip site
  const double pos[3] = {0.4, 0, 0}, quat[4] = {1, 0, 0, 0};
  const int lower = name2id(m, kObjBody, "lower");
  local_to_global(m, d, xpos, xmat, pos, quat, lower);
  expect_near_array(xpos, &d.site_xpos[0], 3, 1e-15, "tip");
  expect_near_array(xmat, &d.xmat[9 * lower], 9, 1e-15, "orientation");
  local_to_global(m, d, xpos, nullptr, pos, nullptr, lower, 2);
  expect_near_array(xpos, &d.xipos[3 * lower], 3, 0, "sameframe 2");
}

}  // namespace
}  // namespace moreau

// The utility functions of the simulation chapter against MuJoCo 2.2.2's functions of the same name,
// on several models (the Model bridged from MuJoCo's, so both sides start from the same constants),
// at random states with constraints and actuators on:
//   object_velocity / object_acceleration   mj_objectVelocity / mj_objectAcceleration (every body,
//                                           xbody, geom, site, camera; world and local orientation)
//   jac_subtree_com, jac_point_axis          mj_jacSubtreeCom, mj_jacPointAxis
//   mul_jac_vec, mul_jac_t_vec               mj_mulJacVec, mj_mulJacTVec (dense and sparse jacobian)
//   apply_ft                                 mj_applyFT
//   local_to_global                          mj_local2Global (sameframe 0, 1, 2)
//   total_mass, is_pyramidal, is_sparse      mj_getTotalmass, mj_isPyramidal, mj_isSparse
//   forward_skip, inverse_skip               mj_forwardSkip, mj_inverseSkip (each skip stage)
//   id2name (Moreau's own loader)            mj_id2name
//   pose.h                                   mju_mulQuat, mju_negQuat, ... (random inputs)
//   Data's user callbacks                    mjcb_passive, mjcb_act_dyn/gain/bias, mjcb_sensor,
//                                            mjcb_contactfilter (a 60-step trajectory)
// Bound: relative error in the infinity norm of each array (max_rel_err) 1e-9, the bound of the
// pipeline suites these results are built from; the quaternion helpers agree to 1e-14.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

constexpr double kTol = 1e-9;
constexpr int kStates = 3;

const std::vector<std::string>& utility_models() {
  static const std::vector<std::string> models = {
      "/usr/share/mujoco/model/humanoid/humanoid.xml",
      "/usr/share/mujoco/model/tendon_arm/arm26.xml",
      "/usr/share/mujoco/model/slider_crank/slider_crank.xml",
      std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml",
      "/usr/share/mujoco/model/adhesion/active_adhesion.xml",
      std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml",
  };
  return models;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param.substr(info.param.find_last_of('/') + 1);
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

#define EXPECT_ARRAY(ours, theirs, n, what) \
  EXPECT_LE(max_rel_err((ours), (theirs), (n)), kTol) << what << " (state " << state << ")"

class ApiUtilities : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string err;
    mj_ = load_mujoco(GetParam(), &err);
    ASSERT_TRUE(mj_) << "MuJoCo 2.2.2 does not load " << GetParam() << ": " << err;
    md_ = MjDataPtr(mj_makeData(mj_.get()));
  }
  // The same random state, controls and applied forces on both sides; then forward on both.
  void random_state(const Model& m, Data& d, std::mt19937_64& rng) {
    mjModel* M = mj_.get();
    mjData* D = md_.get();
    mj_resetData(M, D);
    reset_data(m, d);
    random_qpos(M, rng, D->qpos, 0.3);
    random_qvel(M, rng, D->qvel, 1.0);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < m.nu; ++i) D->ctrl[i] = u(rng);
    for (int i = 0; i < m.nv; ++i) D->qfrc_applied[i] = u(rng);
    for (int i = 6; i < 6 * m.nbody; ++i) D->xfrc_applied[i] = u(rng);
    std::copy_n(D->qpos, m.nq, d.qpos.begin());
    std::copy_n(D->qvel, m.nv, d.qvel.begin());
    std::copy_n(D->ctrl, m.nu, d.ctrl.begin());
    std::copy_n(D->qfrc_applied, m.nv, d.qfrc_applied.begin());
    std::copy_n(D->xfrc_applied, 6 * m.nbody, d.xfrc_applied.begin());
    mj_forward(M, D);
    forward(m, d);
  }
  MjModelPtr mj_;
  MjDataPtr md_;
};

TEST_P(ApiUtilities, ObjectVelocityAndAcceleration) {
  const Model m = model_from_mujoco(mj_.get());
  Data d = make_data(m);
  const mjModel* M = mj_.get();
  mjData* D = md_.get();
  std::mt19937_64 rng(7);
  for (int state = 0; state < kStates; ++state) {
    random_state(m, d, rng);
    mj_rnePostConstraint(M, D);
    rne_post_constraint(m, d);
    const std::pair<ObjType, int> kinds[] = {
        {kObjBody, m.nbody}, {kObjXBody, m.nbody}, {kObjGeom, m.ngeom}, {kObjSite, m.nsite}, {kObjCamera, m.ncam}};
    for (auto [type, n] : kinds) {
      for (int id = 0; id < n; ++id) {
        for (bool local : {false, true}) {
          double ours[6], theirs[6];
          object_velocity(m, d, type, id, ours, local);
          mj_objectVelocity(M, D, type, id, theirs, local);
          EXPECT_ARRAY(ours, theirs, 6, "object_velocity type " << type << " id " << id << " local " << local);
          object_acceleration(m, d, type, id, ours, local);
          mj_objectAcceleration(M, D, type, id, theirs, local);
          EXPECT_ARRAY(ours, theirs, 6, "object_acceleration type " << type << " id " << id << " local " << local);
        }
      }
    }
  }
}

TEST_P(ApiUtilities, JacobiansAndAppliedForces) {
  const Model m = model_from_mujoco(mj_.get());
  Data d = make_data(m);
  const mjModel* M = mj_.get();
  mjData* D = md_.get();
  const int nv = m.nv;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(3 * nv), b(3 * nv), c(3 * nv), e(3 * nv);
  for (int state = 0; state < kStates; ++state) {
    random_state(m, d, rng);
    for (int body = 0; body < m.nbody; ++body) {
      jac_subtree_com(m, d, a.data(), body);
      mj_jacSubtreeCom(M, D, b.data(), body);
      EXPECT_ARRAY(a.data(), b.data(), 3 * nv, "jac_subtree_com body " << body);

      double point[3], axis[3];
      for (int k = 0; k < 3; ++k) point[k] = d.xpos[3 * body + k] + 0.3 * u(rng);
      for (int k = 0; k < 3; ++k) axis[k] = u(rng);
      jac_point_axis(m, d, a.data(), c.data(), point, axis, body);
      mj_jacPointAxis(M, D, b.data(), e.data(), point, axis, body);
      EXPECT_ARRAY(a.data(), b.data(), 3 * nv, "jac_point_axis point, body " << body);
      EXPECT_ARRAY(c.data(), e.data(), 3 * nv, "jac_point_axis axis, body " << body);

      double force[3], torque[3];
      for (int k = 0; k < 3; ++k) force[k] = 10 * u(rng), torque[k] = u(rng);
      std::vector<double> q1(nv), q2(nv);
      for (int i = 0; i < nv; ++i) q1[i] = q2[i] = u(rng);  // apply_ft adds to what is there
      apply_ft(m, d, force, torque, point, body, q1.data());
      mj_applyFT(M, D, force, torque, point, body, q2.data());
      EXPECT_ARRAY(q1.data(), q2.data(), nv, "apply_ft body " << body);
    }
    EXPECT_NEAR(total_mass(m), mj_getTotalmass(M), 1e-12 * mj_getTotalmass(M));
  }
}

TEST_P(ApiUtilities, ConstraintJacobianProducts) {
  for (int jacobian : {mjJAC_DENSE, mjJAC_SPARSE}) {
    for (int cone : {mjCONE_PYRAMIDAL, mjCONE_ELLIPTIC}) {
      mj_->opt.jacobian = jacobian;
      mj_->opt.cone = cone;
      const Model m = model_from_mujoco(mj_.get());
      EXPECT_EQ(is_sparse(m), mj_isSparse(mj_.get()) != 0);
      EXPECT_EQ(is_pyramidal(m), mj_isPyramidal(mj_.get()) != 0);
      Data d = make_data(m);
      std::mt19937_64 rng(13);
      std::uniform_real_distribution<double> u(-1, 1);
      for (int state = 0; state < kStates; ++state) {
        random_state(m, d, rng);
        ASSERT_EQ(d.nefc, md_->nefc) << "state " << state;
        std::vector<double> v(m.nv), f(d.nefc), a(std::max(d.nefc, m.nv)), b(a.size());
        for (auto& x : v) x = u(rng);
        for (auto& x : f) x = u(rng);
        mul_jac_vec(m, d, a.data(), v.data());
        mj_mulJacVec(mj_.get(), md_.get(), b.data(), v.data());
        EXPECT_ARRAY(a.data(), b.data(), d.nefc, "mul_jac_vec jacobian " << jacobian);
        mul_jac_t_vec(m, d, a.data(), f.data());
        mj_mulJacTVec(mj_.get(), md_.get(), b.data(), f.data());
        EXPECT_ARRAY(a.data(), b.data(), m.nv, "mul_jac_t_vec jacobian " << jacobian);
      }
    }
  }
}

TEST_P(ApiUtilities, LocalToGlobal) {
  const Model m = model_from_mujoco(mj_.get());
  Data d = make_data(m);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int state = 0; state < kStates; ++state) {
    random_state(m, d, rng);
    for (int body = 0; body < m.nbody; ++body) {
      for (int same = 0; same <= 2; ++same) {
        double pos[3] = {u(rng), u(rng), u(rng)}, quat[4] = {u(rng), u(rng), u(rng), u(rng)};
        const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        for (double& x : quat) x /= n;
        double xp[3], xm[9], yp[3], ym[9];
        local_to_global(m, d, xp, xm, pos, quat, body, same);
        mj_local2Global(md_.get(), yp, ym, pos, quat, body, static_cast<mjtByte>(same));
        EXPECT_ARRAY(xp, yp, 3, "local_to_global xpos body " << body << " sameframe " << same);
        EXPECT_ARRAY(xm, ym, 9, "local_to_global xmat body " << body << " sameframe " << same);
      }
    }
  }
}

// forward_skip / inverse_skip from a state whose earlier stages are current: after changing only
// the controls (skip position and velocity) or only the velocities (skip position).
TEST_P(ApiUtilities, SkipStages) {
  const Model m = model_from_mujoco(mj_.get());
  Data d = make_data(m);
  mjModel* M = mj_.get();
  mjData* D = md_.get();
  std::mt19937_64 rng(19);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int state = 0; state < kStates; ++state) {
    random_state(m, d, rng);
    for (int i = 0; i < m.nu; ++i) D->ctrl[i] = d.ctrl[i] = u(rng);
    mj_forwardSkip(M, D, mjSTAGE_VEL, 0);
    forward_skip(m, d, kStageVel, false);
    EXPECT_ARRAY(d.qacc.data(), D->qacc, m.nv, "forward_skip vel: qacc");
    EXPECT_ARRAY(d.actuator_force.data(), D->actuator_force, m.nu, "forward_skip vel: actuator_force");
    EXPECT_ARRAY(d.sensordata.data(), D->sensordata, m.nsensordata, "forward_skip vel: sensordata");

    for (int i = 0; i < m.nv; ++i) D->qvel[i] = d.qvel[i] = u(rng);
    mj_forwardSkip(M, D, mjSTAGE_POS, 1);
    forward_skip(m, d, kStagePos, true);
    EXPECT_ARRAY(d.qacc.data(), D->qacc, m.nv, "forward_skip pos: qacc");
    EXPECT_ARRAY(d.qfrc_bias.data(), D->qfrc_bias, m.nv, "forward_skip pos: qfrc_bias");

    // inverse: the qacc forward found, with the position stage current
    mj_inverseSkip(M, D, mjSTAGE_POS, 0);
    inverse_skip(m, d, kStagePos, false);
    EXPECT_ARRAY(d.qfrc_inverse.data(), D->qfrc_inverse, m.nv, "inverse_skip pos: qfrc_inverse");
    for (int i = 0; i < m.nv; ++i) D->qacc[i] = d.qacc[i] = u(rng);
    mj_inverseSkip(M, D, mjSTAGE_VEL, 1);
    inverse_skip(m, d, kStageVel, true);
    EXPECT_ARRAY(d.qfrc_inverse.data(), D->qfrc_inverse, m.nv, "inverse_skip vel: qfrc_inverse");
  }
}

// id2name with Moreau's own loader: every object of every named type has 2.2.2's name.
TEST_P(ApiUtilities, Id2Name) {
  Model m;
  const std::string err = load_moreau(GetParam(), &m);
  ASSERT_TRUE(err.empty()) << err;
  const mjModel* M = mj_.get();
  const std::pair<ObjType, int> kinds[] = {
      {kObjBody, m.nbody},     {kObjJoint, m.njnt},       {kObjGeom, m.ngeom},       {kObjSite, m.nsite},
      {kObjCamera, m.ncam},    {kObjLight, m.nlight},     {kObjMesh, m.nmesh},       {kObjHField, m.nhfield},
      {kObjTexture, m.ntex},   {kObjMaterial, m.nmat},    {kObjPair, m.npair},       {kObjExclude, m.nexclude},
      {kObjEquality, m.neq},   {kObjTendon, m.ntendon},   {kObjActuator, m.nu},      {kObjSensor, m.nsensor},
      {kObjNumeric, m.nnumeric}, {kObjText, m.ntext},     {kObjTuple, m.ntuple},     {kObjKey, m.nkey}};
  int named = 0;
  for (auto [type, n] : kinds) {
    for (int id = 0; id < n; ++id) {
      const char* theirs = mj_id2name(M, type, id);
      const std::string ours = id2name(m, type, id);
      EXPECT_EQ(ours, theirs ? theirs : "") << "type " << type << " id " << id;
      if (!ours.empty()) {
        ++named;
        EXPECT_EQ(name2id(m, type, ours), mj_name2id(M, type, theirs)) << ours;
      }
    }
  }
  EXPECT_GT(named, 0);
}

INSTANTIATE_TEST_SUITE_P(Models, ApiUtilities, ::testing::ValuesIn(utility_models()), test_name);

// The quaternion and pose helpers on random inputs (unit quaternions where the function expects
// them; mat_to_quat on the matrices of random rotations, compared up to the quaternion's sign).
TEST(ApiPoseHelpers, MatchMujoco) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(-1, 1);
  auto unit_quat = [&](double* q) {
    double n = 0;
    for (int k = 0; k < 4; ++k) q[k] = u(rng), n += q[k] * q[k];
    for (int k = 0; k < 4; ++k) q[k] /= std::sqrt(n);
  };
  constexpr double kQuatTol = 1e-14;
  for (int trial = 0; trial < 200; ++trial) {
    double q1[4], q2[4], v[3] = {u(rng), u(rng), u(rng)}, p1[3] = {u(rng), u(rng), u(rng)},
                         p2[3] = {u(rng), u(rng), u(rng)};
    unit_quat(q1);
    unit_quat(q2);
    double a[9], b[9], a3[3], b3[3];
    quat_mul(a, q1, q2);
    mju_mulQuat(b, q1, q2);
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "quat_mul";
    quat_neg(a, q1);
    mju_negQuat(b, q1);
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "quat_neg";
    quat_mul_axis(a, q1, v);
    mju_mulQuatAxis(b, q1, v);
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "quat_mul_axis";
    rot_vec_quat(a, v, q1);
    mju_rotVecQuat(b, v, q1);
    EXPECT_LE(max_rel_err(a, b, 3), kQuatTol) << "rot_vec_quat";
    quat_to_mat(a, q1);
    mju_quat2Mat(b, q1);
    EXPECT_LE(max_rel_err(a, b, 9), kQuatTol) << "quat_to_mat";
    double qa[4], qb[4], neg[4];
    mat_to_quat(qa, b);
    mju_mat2Quat(qb, b);
    for (int k = 0; k < 4; ++k) neg[k] = -qb[k];
    EXPECT_LE(std::min(max_rel_err(qa, qb, 4), max_rel_err(qa, neg, 4)), kQuatTol) << "mat_to_quat";
    double axis[3] = {v[0], v[1], v[2]};
    const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (double& x : axis) x /= n;
    const double angle = 3 * u(rng);
    axis_angle_to_quat(a, axis, angle);
    mju_axisAngle2Quat(b, axis, angle);
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "axis_angle_to_quat";
    quat_to_vel(a3, q1, 0.3);
    mju_quat2Vel(b3, q1, 0.3);
    EXPECT_LE(max_rel_err(a3, b3, 3), 1e-12) << "quat_to_vel";
    sub_quat(a3, q1, q2);
    mju_subQuat(b3, q1, q2);
    EXPECT_LE(max_rel_err(a3, b3, 3), 1e-12) << "sub_quat";
    deriv_quat(a, q1, v);
    mju_derivQuat(b, q1, v);
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "deriv_quat";
    std::copy_n(q1, 4, a);
    std::copy_n(q1, 4, b);
    quat_integrate(a, v, 0.7);
    mju_quatIntegrate(b, v, 0.7);
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "quat_integrate";
    double pa[3], pb[3];
    mul_pose(pa, a, p1, q1, p2, q2);
    mju_mulPose(pb, b, p1, q1, p2, q2);
    EXPECT_LE(max_rel_err(pa, pb, 3), kQuatTol) << "mul_pose pos";
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "mul_pose quat";
    neg_pose(pa, a, p1, q1);
    mju_negPose(pb, b, p1, q1);
    EXPECT_LE(max_rel_err(pa, pb, 3), kQuatTol) << "neg_pose pos";
    EXPECT_LE(max_rel_err(a, b, 4), kQuatTol) << "neg_pose quat";
    trn_vec_pose(pa, p1, q1, v);
    mju_trnVecPose(pb, p1, q1, v);
    EXPECT_LE(max_rel_err(pa, pb, 3), kQuatTol) << "trn_vec_pose";
    double s6[6] = {u(rng), u(rng), u(rng), u(rng), u(rng), u(rng)}, r6a[6], r6b[6], rot[9];
    mju_quat2Mat(rot, q2);
    for (bool force : {false, true}) {
      for (const double* R : {static_cast<const double*>(nullptr), static_cast<const double*>(rot)}) {
        transform_spatial(r6a, s6, force, p1, p2, R);
        mju_transformSpatial(r6b, s6, force, p1, p2, R);
        EXPECT_LE(max_rel_err(r6a, r6b, 6), kQuatTol) << "transform_spatial force " << force;
      }
    }
  }
}

}  // namespace
}  // namespace moreau::testing

namespace moreau::testing {
namespace {

// ------------------------------------------------------------------------------ user callbacks
// The per-Data callbacks against MuJoCo 2.2.2's global mjcb_* on one model: a slide joint driven
// by a user actuator (dyn, gain, bias), with a user passive spring and a user sensor, and two free
// spheres on a floor, one of which the contact filter keeps off it. Both sides run 60 steps; the
// state, activation and sensors agree to 1e-9 relative.
const char* kUserModel = R"(<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="slider" pos="0 0 1"><joint name="s" type="slide" axis="1 0 0"/>
      <geom type="box" size=".1 .1 .1" mass="2" contype="0" conaffinity="0"/></body>
    <body name="a" pos="1 0 .2"><freejoint/><geom name="a" size=".1"/></body>
    <body name="b" pos="2 0 .2"><freejoint/><geom name="b" size=".1"/></body>
  </worldbody>
  <actuator><general joint="s" dyntype="user" gaintype="user" biastype="user" gainprm="3" biasprm="0.5"/></actuator>
  <sensor><user name="u" objtype="body" objname="slider" datatype="real" needstage="vel" dim="2" cutoff="0.5"/></sensor>
</mujoco>)";

int g_filtered_geom = -1;
void mj_passive_cb(const mjModel* m, mjData* d) { d->qfrc_passive[0] += -30.0 * d->qpos[0]; }
mjtNum mj_dyn_cb(const mjModel* m, const mjData* d, int id) { return (d->ctrl[id] - d->act[0]) / 0.05; }
mjtNum mj_gain_cb(const mjModel* m, const mjData* d, int id) { return m->actuator_gainprm[mjNGAIN * id]; }
mjtNum mj_bias_cb(const mjModel* m, const mjData* d, int id) {
  return -m->actuator_biasprm[mjNBIAS * id] * d->actuator_velocity[id];
}
void mj_sensor_cb(const mjModel* m, mjData* d, int stage) {
  if (stage != mjSTAGE_VEL) return;
  d->sensordata[m->sensor_adr[0]] = d->qvel[0];
  d->sensordata[m->sensor_adr[0] + 1] = 4 * d->qvel[0];
}
int mj_filter_cb(const mjModel* m, mjData* d, int g1, int g2) { return g1 == g_filtered_geom || g2 == g_filtered_geom; }

TEST(ApiUserCallbacks, MatchMujocoCallbacks) {
  const std::string path = ::testing::TempDir() + "user_callbacks_" + std::to_string(::getpid()) + ".xml";
  {
    std::ofstream f(path);
    f << kUserModel;
  }
  std::string err;
  MjModelPtr mj = load_mujoco(path, &err);
  ASSERT_TRUE(mj) << err;
  MjDataPtr md(mj_makeData(mj.get()));
  const Model m = model_from_mujoco(mj.get());
  Data d = make_data(m);
  g_filtered_geom = name2id(m, kObjGeom, "b");
  ASSERT_GE(g_filtered_geom, 0);

  d.passive_callback = [](const Model&, Data& dd) { dd.qfrc_passive[0] += -30.0 * dd.qpos[0]; };
  d.act_dyn_callback = [](const Model&, const Data& dd, int id) { return (dd.ctrl[id] - dd.act[0]) / 0.05; };
  d.act_gain_callback = [](const Model& mm, const Data&, int id) { return mm.actuator_gainprm[kNGAIN * id]; };
  d.act_bias_callback = [](const Model& mm, const Data& dd, int id) {
    return -mm.actuator_biasprm[kNBIAS * id] * dd.actuator_velocity[id];
  };
  d.sensor_callback = [](const Model& mm, Data& dd, int stage) {
    if (stage != kStageVel) return;
    dd.sensordata[mm.sensor_adr[0]] = dd.qvel[0];
    dd.sensordata[mm.sensor_adr[0] + 1] = 4 * dd.qvel[0];
  };
  const int filtered = g_filtered_geom;
  d.contact_filter = [filtered](const Model&, const Data&, int g1, int g2) { return g1 == filtered || g2 == filtered; };

  mjcb_passive = mj_passive_cb;
  mjcb_act_dyn = mj_dyn_cb;
  mjcb_act_gain = mj_gain_cb;
  mjcb_act_bias = mj_bias_cb;
  mjcb_sensor = mj_sensor_cb;
  mjcb_contactfilter = mj_filter_cb;
  md->qpos[0] = 0.2;
  d.qpos[0] = 0.2;
  int ncon_max = 0;
  double max_user_sensor = 0;
  for (int step_i = 0; step_i < 60; ++step_i) {
    const double c = std::sin(0.3 * step_i);
    md->ctrl[0] = c;
    d.ctrl[0] = c;
    mj_step(mj.get(), md.get());
    step(m, d);
    ncon_max = std::max(ncon_max, d.ncon);
    max_user_sensor = std::max(max_user_sensor, std::fabs(d.sensordata[1]));
    ASSERT_EQ(d.ncon, md->ncon) << "step " << step_i;
    const int state = step_i;
    EXPECT_ARRAY(d.qpos.data(), md->qpos, m.nq, "qpos");
    EXPECT_ARRAY(d.qvel.data(), md->qvel, m.nv, "qvel");
    EXPECT_ARRAY(d.act.data(), md->act, m.na, "act");
    EXPECT_ARRAY(d.sensordata.data(), md->sensordata, m.nsensordata, "sensordata");
    EXPECT_ARRAY(d.actuator_force.data(), md->actuator_force, m.nu, "actuator_force");
  }
  mjcb_passive = nullptr;
  mjcb_act_dyn = nullptr;
  mjcb_act_gain = nullptr;
  mjcb_act_bias = nullptr;
  mjcb_sensor = nullptr;
  mjcb_contactfilter = nullptr;
  EXPECT_GT(max_user_sensor, 0.5 - 1e-12);  // the cutoff was reached
  EXPECT_GT(ncon_max, 0);  // sphere a reaches the floor and stays on it; b falls through it
  EXPECT_GT(d.qpos[3], 0.09);  // a's height (qpos: slider 0, a 1..7, b 8..14)
  EXPECT_LT(d.qpos[10], 0.0);  // b's
  std::remove(path.c_str());
}

}  // namespace
}  // namespace moreau::testing

// State, reset and model constants against MuJoCo 2.2.2:
//  - StateReset (every model of tests/models_mujoco222.txt): the constants of set_const that no other
//    suite compares (stat.meanmass/meaninertia, subtree masses, camera and light offsets); from a Data whose arrays all hold
//    non-zero values, reset_data gives mj_resetData's Data and reset_data_keyframe mj_resetDataKeyframe's
//    for every keyframe: the state and input arrays equal exactly; every intermediate array that both
//    have is zero on both (mj_resetData clears them all).
//  - EqActiveDiff: switching an equality off at run time (Data::eq_active; 2.2.2: mjModel::eq_active)
//    gives 2.2.2's qacc.
//  - SetConstDiff: after changing body masses and inertias and dof armature in a loaded model,
//    set_const gives the derived constants of a model compiled from XML with the new values (Moreau,
//    1e-12) and of 2.2.2's mj_setConst after the same change (1e-9).
// (These suites run in diff_other: a ctest entry of their own would pay the binary's start-up, which
// scans the model list, for a few seconds of tests.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

bool all_zero(const double* a, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != 0) return false;
  return true;
}

// The state and inputs of both after a reset must be equal, and all intermediates zero.
void expect_same_reset(const Model& m, const Data& d, const mjModel* mj, const mjData* D, const std::string& what) {
  EXPECT_EQ(d.time, D->time) << what;
  auto same = [&](const std::vector<double>& ours, const double* theirs, int n, const char* name) {
    ASSERT_EQ(static_cast<int>(ours.size()), n) << what << ": " << name;
    for (int i = 0; i < n; ++i) EXPECT_EQ(ours[i], theirs[i]) << what << ": " << name << "[" << i << "]";
  };
  // qpos and mocap_quat come from model constants (qpos0, key_qpos, body_quat) that the two
  // compilers normalize with different round-off (ModelCompare: 1e-9); Moreau's equal its own.
  auto near = [&](const std::vector<double>& ours, const double* theirs, int n, const char* name) {
    ASSERT_EQ(static_cast<int>(ours.size()), n) << what << ": " << name;
    for (int i = 0; i < n; ++i) EXPECT_NEAR(ours[i], theirs[i], 1e-12) << what << ": " << name << "[" << i << "]";
  };
  near(d.qpos, D->qpos, m.nq, "qpos");
  same(d.qvel, D->qvel, m.nv, "qvel");
  same(d.act, D->act, m.na, "act");
  same(d.qacc_warmstart, D->qacc_warmstart, m.nv, "qacc_warmstart");
  same(d.ctrl, D->ctrl, m.nu, "ctrl");
  same(d.qfrc_applied, D->qfrc_applied, m.nv, "qfrc_applied");
  same(d.xfrc_applied, D->xfrc_applied, 6 * m.nbody, "xfrc_applied");
  same(d.mocap_pos, D->mocap_pos, 3 * m.nmocap, "mocap_pos");
  near(d.mocap_quat, D->mocap_quat, 4 * m.nmocap, "mocap_quat");
  same(d.qacc, D->qacc, m.nv, "qacc");
  same(d.act_dot, D->act_dot, m.na, "act_dot");
  same(d.userdata, D->userdata, m.nuserdata, "userdata");
  same(d.sensordata, D->sensordata, m.nsensordata, "sensordata");
  for (int e = 0; e < m.neq; ++e) EXPECT_EQ(d.eq_active[e], mj->eq_active[e]) << what << ": eq_active";
  EXPECT_EQ(d.energy[0], D->energy[0]) << what;
  EXPECT_EQ(d.energy[1], D->energy[1]) << what;
  EXPECT_EQ(d.ncon, D->ncon) << what;
  EXPECT_EQ(d.nefc, D->nefc) << what;
  EXPECT_EQ(d.ne, D->ne) << what;
  EXPECT_EQ(d.nf, D->nf) << what;
  for (int w = 0; w < kNWarning; ++w) EXPECT_EQ(d.warning[w].number, D->warning[w].number) << what;

  // Intermediates: 2.2.2 clears its whole buffer.
#define ZERO(field, n)                                                                            \
  do {                                                                                            \
    EXPECT_TRUE(all_zero(D->field, (n))) << what << ": MuJoCo's " #field;                        \
    EXPECT_TRUE(all_zero(d.field.data(), d.field.size())) << what << ": " #field " not cleared"; \
  } while (0)
  const int nb = m.nbody, nv = m.nv;
  ZERO(xpos, 3 * nb); ZERO(xquat, 4 * nb); ZERO(xmat, 9 * nb); ZERO(xipos, 3 * nb); ZERO(ximat, 9 * nb);
  ZERO(xanchor, 3 * m.njnt); ZERO(xaxis, 3 * m.njnt); ZERO(geom_xpos, 3 * m.ngeom);
  ZERO(geom_xmat, 9 * m.ngeom); ZERO(site_xpos, 3 * m.nsite); ZERO(site_xmat, 9 * m.nsite);
  ZERO(cam_xpos, 3 * m.ncam); ZERO(cam_xmat, 9 * m.ncam); ZERO(light_xpos, 3 * m.nlight);
  ZERO(light_xdir, 3 * m.nlight); ZERO(subtree_com, 3 * nb); ZERO(cdof, 6 * nv); ZERO(cinert, 10 * nb);
  ZERO(ten_length, m.ntendon); ZERO(ten_J, m.ntendon * nv); ZERO(wrap_xpos, 6 * m.nwrap);
  ZERO(actuator_length, m.nu); ZERO(actuator_moment, m.nu * nv); ZERO(crb, 10 * nb); ZERO(qM, m.nM);
  ZERO(qLD, m.nM); ZERO(qLDiagInv, nv); ZERO(qLDiagSqrtInv, nv); ZERO(ten_velocity, m.ntendon);
  ZERO(actuator_velocity, m.nu); ZERO(cvel, 6 * nb); ZERO(cdof_dot, 6 * nv); ZERO(qfrc_bias, nv);
  ZERO(qfrc_passive, nv); ZERO(subtree_linvel, 3 * nb); ZERO(subtree_angmom, 3 * nb);
  ZERO(qH, m.nM); ZERO(qHDiagInv, nv); ZERO(qDeriv, m.nD); ZERO(qLU, m.nD);
  ZERO(actuator_force, m.nu); ZERO(qfrc_actuator, nv); ZERO(qfrc_smooth, nv); ZERO(qacc_smooth, nv);
  ZERO(qfrc_constraint, nv); ZERO(qfrc_inverse, nv); ZERO(cacc, 6 * nb); ZERO(cfrc_int, 6 * nb);
  ZERO(cfrc_ext, 6 * nb);
#undef ZERO
}

// Non-zero values in every array of d that a reset must set or clear (MuJoCo's mj_resetData sets its
// whole buffer, so its side needs no such preparation). Cheaper than simulating, and complete.
void dirty(Data& d) {
  for (auto* v : {&d.qpos, &d.qvel, &d.act, &d.qacc_warmstart, &d.ctrl, &d.qfrc_applied, &d.xfrc_applied,
                  &d.mocap_pos, &d.mocap_quat, &d.qacc, &d.act_dot, &d.userdata, &d.sensordata, &d.xpos,
                  &d.xquat, &d.xmat, &d.xipos, &d.ximat, &d.xanchor, &d.xaxis, &d.geom_xpos, &d.geom_xmat,
                  &d.site_xpos, &d.site_xmat, &d.cam_xpos, &d.cam_xmat, &d.light_xpos, &d.light_xdir,
                  &d.subtree_com, &d.cdof, &d.cinert, &d.ten_length, &d.ten_J, &d.wrap_xpos,
                  &d.actuator_length, &d.actuator_moment, &d.crb, &d.qM, &d.qLD, &d.qLDiagInv,
                  &d.qLDiagSqrtInv, &d.ten_velocity, &d.actuator_velocity, &d.cvel, &d.cdof_dot, &d.qfrc_bias,
                  &d.qfrc_passive, &d.subtree_linvel, &d.subtree_angmom, &d.qH, &d.qHDiagInv, &d.qDeriv,
                  &d.qLU, &d.actuator_force, &d.qfrc_actuator, &d.qfrc_smooth, &d.qacc_smooth,
                  &d.qfrc_constraint, &d.qfrc_inverse, &d.cacc, &d.cfrc_int, &d.cfrc_ext})
    std::fill(v->begin(), v->end(), 0.5);
  for (auto& e : d.eq_active) e = !e;
  d.time = 3;
  d.energy[0] = d.energy[1] = 1;
  d.ncon = d.ne = d.nf = d.nefc = 1;
  for (auto& w : d.warning) w.number = 1;
}

class StateReset : public ::testing::TestWithParam<std::string> {};

TEST_P(StateReset, ResetMatchesMuJoCo) {
  const std::string path = resolve_model_path(GetParam());
  MOREAU_REQUIRE_MODEL(path);
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  Model m;
  if (const std::string e = load_moreau(path, &m); !e.empty()) FAIL() << e;
  ASSERT_EQ(m.nq, mj->nq);
  ASSERT_EQ(m.nu, mj->nu);
  ASSERT_EQ(m.nkey, mj->nkey);
  // The constants set_const computes that the other suites do not compare: mean mass and inertia,
  // offsets of tracking cameras and lights (mesh models: 2.2.2's single-precision mass properties
  // move the subtree coms by ~1e-7 relative).
  bool mesh = false;
  for (int g = 0; g < mj->ngeom; ++g) mesh = mesh || mj->geom_type[g] == mjGEOM_MESH;
  const double tol = mesh ? 1e-6 : 1e-9;
  EXPECT_NEAR(m.stat.meaninertia, mj->stat.meaninertia, tol * mj->stat.meaninertia);
  EXPECT_NEAR(m.stat.meanmass, mj->stat.meanmass, tol * mj->stat.meanmass);
  EXPECT_LE(max_rel_err(m.body_subtreemass.data(), mj->body_subtreemass, m.nbody), tol);
  if (m.ncam == mj->ncam && m.nlight == mj->nlight) {
    EXPECT_LE(max_rel_err(m.cam_pos0.data(), mj->cam_pos0, 3 * m.ncam), tol) << "cam_pos0";
    EXPECT_LE(max_rel_err(m.cam_poscom0.data(), mj->cam_poscom0, 3 * m.ncam), tol) << "cam_poscom0";
    EXPECT_LE(max_rel_err(m.cam_mat0.data(), mj->cam_mat0, 9 * m.ncam), tol) << "cam_mat0";
    EXPECT_LE(max_rel_err(m.light_pos0.data(), mj->light_pos0, 3 * m.nlight), tol) << "light_pos0";
    EXPECT_LE(max_rel_err(m.light_poscom0.data(), mj->light_poscom0, 3 * m.nlight), tol) << "light_poscom0";
    EXPECT_LE(max_rel_err(m.light_dir0.data(), mj->light_dir0, 3 * m.nlight), tol) << "light_dir0";
  }

  MjDataPtr D(mj_makeData(mj.get()));
  Data d = make_data(m);
  dirty(d);
  mj_resetData(mj.get(), D.get());
  reset_data(m, d);
  expect_same_reset(m, d, mj.get(), D.get(), "reset_data");
  for (int i = 0; i < m.nq; ++i) EXPECT_EQ(d.qpos[i], m.qpos0[i]);
  // a fresh Data is a reset one
  expect_same_reset(m, make_data(m), mj.get(), D.get(), "make_data");
  for (int k = 0; k < m.nkey; ++k) {
    dirty(d);
    mj_resetDataKeyframe(mj.get(), D.get(), k);
    reset_data_keyframe(m, d, k);
    expect_same_reset(m, d, mj.get(), D.get(), "reset_data_keyframe " + std::to_string(k));
    for (int i = 0; i < m.nq; ++i) EXPECT_EQ(d.qpos[i], m.key_qpos[static_cast<size_t>(k) * m.nq + i]);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, StateReset, ::testing::ValuesIn(model_list()), test_name);


// ------------------------------------------------------------------------------------------------
// Equality constraints switched at run time.

const char* kEqualityModel = R"(<mujoco>
  <worldbody>
    <body name="a" pos="0 0 1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body name="b" pos=".3 0 1"><freejoint/><geom type="box" size=".1 .05 .1"/></body>
    <body pos="0 .5 1"><joint name="h1" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
      <body pos=".3 0 0"><joint name="h2" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/></body>
    </body>
  </worldbody>
  <equality>
    <weld body1="a" body2="b"/>
    <connect body1="a" body2="b" anchor=".15 0 0"/>
    <joint joint1="h1" joint2="h2" polycoef="0 -1 0 0 0"/>
  </equality>
</mujoco>)";

TEST(EqActiveDiff, SwitchingEqualitiesMatchesMuJoCo) {
  const std::string path = ::testing::TempDir() + "moreau_state_eq.xml";
  { std::ofstream(path) << kEqualityModel; }
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  const Model m = load_model(path);
  ASSERT_EQ(m.neq, 3);
  MjDataPtr D(mj_makeData(mj.get()));
  Data d = make_data(m);
  std::mt19937_64 rng(8);
  for (int pattern = 0; pattern < 8; ++pattern) {
    mj_resetData(mj.get(), D.get());
    reset_data(m, d);
    random_qpos(mj.get(), rng, D->qpos, 0.2);
    random_qvel(mj.get(), rng, D->qvel);
    std::copy_n(D->qpos, m.nq, d.qpos.begin());
    std::copy_n(D->qvel, m.nv, d.qvel.begin());
    for (int e = 0; e < 3; ++e) mj->eq_active[e] = d.eq_active[e] = (pattern >> e) & 1;
    mj_forward(mj.get(), D.get());
    forward(m, d);
    EXPECT_EQ(d.ne, D->ne) << "pattern " << pattern;
    EXPECT_LE(max_rel_err(d.qacc.data(), D->qacc, m.nv), 1e-8) << "pattern " << pattern;
  }
}

// ------------------------------------------------------------------------------------------------
// Model constants after run-time parameter changes.

// A model with explicit masses, inertias and armature (so that a changed copy can be written as
// XML): a free body, a hinge chain carrying a fixed and a spatial tendon with a motor and a muscle,
// a tracking camera and light.
std::string constants_model(double mass1, double mass2, double inertia, double armature) {
  auto n = [](double x) { return std::to_string(x); };
  return "<mujoco><option timestep='0.002'/><worldbody>"
         "<body name='free' pos='0 0 1'><freejoint/><inertial pos='.01 0 0' mass='" + n(mass1) +
         "' diaginertia='" + n(inertia) + " " + n(2 * inertia) + " " + n(3 * inertia) + "'/>"
         "<geom type='sphere' size='.1' contype='0' conaffinity='0'/></body>"
         "<body name='l1' pos='1 0 1'><joint name='h1' type='hinge' axis='0 1 0' armature='" + n(armature) + "'/>"
         "<inertial pos='.15 0 0' mass='" + n(mass2) + "' diaginertia='.01 .02 .02'/>"
         "<site name='s0' pos='0 0 .05'/>"
         "<camera name='c' mode='trackcom' pos='0 -1 0'/><light name='li' mode='trackcom' pos='0 0 1'/>"
         "<body name='l2' pos='.3 0 0'><joint name='h2' type='hinge' axis='0 1 0' armature='" + n(2 * armature) + "'/>"
         "<inertial pos='.15 0 0' mass='" + n(mass1 + mass2) + "' diaginertia='.02 .03 .03'/>"
         "<site name='s1' pos='.2 0 .05'/></body></body></worldbody>"
         "<tendon><fixed name='f'><joint joint='h1' coef='1'/><joint joint='h2' coef='-.5'/></fixed>"
         "<spatial name='sp'><site site='s0'/><site site='s1'/></spatial></tendon>"
         "<actuator><motor tendon='f'/><motor joint='h2' gear='2'/><muscle tendon='sp'/></actuator></mujoco>";
}

// Apply the change from constants_model(1, 2, .05, .1) to constants_model(3, .5, .2, .4).
template <class M>
void change_parameters(M& m, double* body_mass, double* body_inertia, double* dof_armature) {
  (void)m;
  body_mass[1] = 3;
  body_mass[2] = 0.5;
  body_mass[3] = 3.5;
  body_inertia[3] = 0.2;
  body_inertia[4] = 0.4;
  body_inertia[5] = 0.6;
  dof_armature[6] = 0.4;
  dof_armature[7] = 0.8;
}

TEST(SetConstDiff, RuntimeChangesMatchTheRecompiledModelAndMuJoCo) {
  const std::string path = ::testing::TempDir() + "moreau_state_const.xml";
  { std::ofstream(path) << constants_model(1, 2, .05, .1); }
  Model changed = load_model(path);
  const Model recompiled = load_model_from_string(constants_model(3, .5, .2, .4));
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  change_parameters(changed, changed.body_mass.data(), changed.body_inertia.data(), changed.dof_armature.data());
  change_parameters(*mj, mj->body_mass, mj->body_inertia, mj->dof_armature);
  // the change itself must be what the recompiled model holds
  for (int b = 0; b < changed.nbody; ++b) ASSERT_NEAR(changed.body_mass[b], recompiled.body_mass[b], 1e-12);
  for (int i = 0; i < 3 * changed.nbody; ++i) ASSERT_NEAR(changed.body_inertia[i], recompiled.body_inertia[i], 1e-12);
  for (int i = 0; i < changed.nv; ++i) ASSERT_NEAR(changed.dof_armature[i], recompiled.dof_armature[i], 1e-12);
  set_const(changed);
  MjDataPtr D(mj_makeData(mj.get()));
  mj_setConst(mj.get(), D.get());

  auto compare = [&](const char* name, const std::vector<double>& ours, const std::vector<double>& rec,
                     const double* theirs) {
    ASSERT_EQ(ours.size(), rec.size()) << name;
    EXPECT_LE(max_rel_err(ours.data(), rec.data(), static_cast<int>(ours.size())), 1e-12) << name << " vs recompiled";
    EXPECT_LE(max_rel_err(ours.data(), theirs, static_cast<int>(ours.size())), 1e-9) << name << " vs mj_setConst";
  };
  compare("dof_M0", changed.dof_M0, recompiled.dof_M0, mj->dof_M0);
  compare("dof_invweight0", changed.dof_invweight0, recompiled.dof_invweight0, mj->dof_invweight0);
  compare("body_invweight0", changed.body_invweight0, recompiled.body_invweight0, mj->body_invweight0);
  compare("body_subtreemass", changed.body_subtreemass, recompiled.body_subtreemass, mj->body_subtreemass);
  compare("tendon_length0", changed.tendon_length0, recompiled.tendon_length0, mj->tendon_length0);
  compare("tendon_invweight0", changed.tendon_invweight0, recompiled.tendon_invweight0, mj->tendon_invweight0);
  compare("actuator_length0", changed.actuator_length0, recompiled.actuator_length0, mj->actuator_length0);
  compare("actuator_acc0", changed.actuator_acc0, recompiled.actuator_acc0, mj->actuator_acc0);
  compare("cam_pos0", changed.cam_pos0, recompiled.cam_pos0, mj->cam_pos0);
  compare("cam_poscom0", changed.cam_poscom0, recompiled.cam_poscom0, mj->cam_poscom0);
  compare("cam_mat0", changed.cam_mat0, recompiled.cam_mat0, mj->cam_mat0);
  compare("light_pos0", changed.light_pos0, recompiled.light_pos0, mj->light_pos0);
  compare("light_poscom0", changed.light_poscom0, recompiled.light_poscom0, mj->light_poscom0);
  compare("light_dir0", changed.light_dir0, recompiled.light_dir0, mj->light_dir0);
  EXPECT_NEAR(changed.stat.meaninertia, recompiled.stat.meaninertia, 1e-12 * recompiled.stat.meaninertia);
  EXPECT_NEAR(changed.stat.meaninertia, mj->stat.meaninertia, 1e-9 * mj->stat.meaninertia);
  EXPECT_NEAR(changed.stat.meanmass, recompiled.stat.meanmass, 1e-12 * recompiled.stat.meanmass);
  EXPECT_NEAR(changed.stat.meanmass, mj->stat.meanmass, 1e-9 * mj->stat.meanmass);
  // The muscle's length range is computed by simulation at load (src/compiler/lengthrange.cc) and
  // depends on the masses; mj_setConst keeps the loaded one, and so does set_const.
  EXPECT_NEAR(changed.actuator_lengthrange[4], mj->actuator_lengthrange[4], 1e-9);
  EXPECT_NEAR(changed.actuator_lengthrange[5], mj->actuator_lengthrange[5], 1e-9);
}


// <statistic meaninertia/meanmass> given in MJCF: the loaded model keeps them, mj_setConst and
// set_const recompute them (2.2.2's behaviour, measured).
TEST(SetConstDiff, GivenStatisticsAreKeptAtLoadAndRecomputedBySetConst) {
  const std::string path = ::testing::TempDir() + "moreau_state_stat.xml";
  {
    std::ofstream(path) << "<mujoco><statistic meanmass='5' meaninertia='7'/><worldbody>"
                           "<body><freejoint/><geom size='.1'/></body>"
                           "<body pos='1 0 0'><freejoint/><geom size='.2'/></body></worldbody></mujoco>";
  }
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  Model m = load_model(path);
  EXPECT_EQ(m.stat.meanmass, 5);
  EXPECT_EQ(m.stat.meaninertia, 7);
  EXPECT_EQ(mj->stat.meanmass, 5);
  EXPECT_EQ(mj->stat.meaninertia, 7);
  MjDataPtr D(mj_makeData(mj.get()));
  mj_setConst(mj.get(), D.get());
  set_const(m);
  EXPECT_NEAR(m.stat.meanmass, mj->stat.meanmass, 1e-12 * mj->stat.meanmass);
  EXPECT_NEAR(m.stat.meaninertia, mj->stat.meaninertia, 1e-12 * mj->stat.meaninertia);
  EXPECT_NE(m.stat.meanmass, 5);
}

}  // namespace
}  // namespace moreau::testing

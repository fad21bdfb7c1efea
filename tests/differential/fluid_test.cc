// Fluid forces against MuJoCo 2.2.2: for every model of tests/models_mujoco222.txt whose options
// have density > 0 or viscosity > 0 (in MuJoCo's compiled model), Moreau's own loader and
// forward() at random states (random_qpos/random_qvel, plus a random wind) must give MuJoCo's
// qfrc_passive to 1e-9 relative (max_rel_err), with 2.2.2's virtual inertia for ellipsoid-model
// geoms (adopt_fluid_virtual_inertia, after bounding the difference). The same comparison with fluid switched off on
// both sides isolates the fluid contribution (qfrc_passive difference), which is also compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <tuple>
#include <random>
#include <string>
#include <vector>

#include "differential/known_differences.h"
#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

std::vector<std::string> fluid_models() {
  std::vector<std::string> out;
  for (const std::string& e : model_list_all()) {
    if (!mjcf_text_mentions(resolve_model_path(e), {"density", "viscosity"})) continue;
    MjModelPtr mj = load_mujoco(resolve_model_path(e));
    if (mj && (mj->opt.density > 0 || mj->opt.viscosity > 0)) out.push_back(e);
  }
  return test_models::with_unread_shared(select_models(out));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

class Fluid : public ::testing::TestWithParam<std::string> {};

TEST_P(Fluid, QfrcPassiveMatchesMuJoCo) {
  if (const char* why = known_difference("Fluid", GetParam())) GTEST_SKIP() << "known difference: " << why;
  const std::string path = resolve_model_path(GetParam());
  MOREAU_REQUIRE_MODEL(path);
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  Model m;
  if (const std::string e = load_moreau(path, &m); !e.empty()) FAIL() << e;
  ASSERT_EQ(m.nq, mj->nq);
  ASSERT_EQ(m.nv, mj->nv);
  ASSERT_EQ(m.opt.density, mj->opt.density);
  ASSERT_EQ(m.opt.viscosity, mj->opt.viscosity);
  // Ellipsoid-model geoms: the coefficients equal, the virtual inertia (geom_fluid[6..11]) within the
  // accuracy of 2.2.2's quadrature (see mujoco_bridge.h); then 2.2.2's values, to compare the forces.
  for (int i = 0; i < mjNFLUID * mj->ngeom; ++i)
    if (i % mjNFLUID < 6) EXPECT_EQ(m.geom_fluid[i], mj->geom_fluid[i]) << "geom_fluid[" << i << "]";
  EXPECT_LE(adopt_fluid_virtual_inertia(m, mj.get()), kFluidVirtualInertiaTol);

  MjDataPtr D(mj_makeData(mj.get()));
  Data d = make_data(m);
  std::mt19937_64 rng(7777);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> qpos(m.nq), qvel(m.nv), ref(m.nv);
  const double density = mj->opt.density, viscosity = mj->opt.viscosity;
  double worst = 0, worst_fluid = 0;
  for (int trial = 0; trial < 20; ++trial) {
    random_qpos(mj.get(), rng, qpos.data());
    random_qvel(mj.get(), rng, qvel.data(), trial < 10 ? 1.0 : 5.0);
    double wind[3] = {0, 0, 0};
    if (trial % 2 == 1)
      for (double& w : wind) w = u(rng);
    for (int k = 0; k < 3; ++k) mj->opt.wind[k] = m.opt.wind[k] = wind[k];

    // Fluid switched off on both sides: the reference without fluid.
    mj->opt.density = mj->opt.viscosity = 0;
    mj_resetData(mj.get(), D.get());
    std::copy(qpos.begin(), qpos.end(), D->qpos);
    std::copy(qvel.begin(), qvel.end(), D->qvel);
    mj_forward(mj.get(), D.get());
    std::copy_n(D->qfrc_passive, m.nv, ref.begin());

    mj->opt.density = density;
    mj->opt.viscosity = viscosity;
    mj_forward(mj.get(), D.get());

    reset_data(m, d);
    std::copy(qpos.begin(), qpos.end(), d.qpos.begin());
    std::copy(qvel.begin(), qvel.end(), d.qvel.begin());
    forward(m, d);

    const double e = max_rel_err(d.qfrc_passive.data(), D->qfrc_passive, m.nv);
    EXPECT_LE(e, 1e-9) << "trial " << trial;
    worst = std::max(worst, e);

    // The fluid part alone (MuJoCo's with-fluid minus without-fluid, ours the same way).
    std::vector<double> mine(m.nv), theirs(m.nv);
    Model m0 = m;
    m0.opt.density = m0.opt.viscosity = 0;
    Data d0 = make_data(m0);
    std::copy(qpos.begin(), qpos.end(), d0.qpos.begin());
    std::copy(qvel.begin(), qvel.end(), d0.qvel.begin());
    forward(m0, d0);
    for (int i = 0; i < m.nv; ++i) {
      mine[i] = d.qfrc_passive[i] - d0.qfrc_passive[i];
      theirs[i] = D->qfrc_passive[i] - ref[i];
    }
    const double ef = max_rel_err(mine.data(), theirs.data(), m.nv);
    EXPECT_LE(ef, 1e-8) << "fluid part, trial " << trial;
    worst_fluid = std::max(worst_fluid, ef);
  }
  std::printf("[fluid] %s: density %g viscosity %g: worst qfrc_passive rel err %.3g (fluid part %.3g)\n",
              GetParam().c_str(), density, viscosity, worst, worst_fluid);
}

INSTANTIATE_TEST_SUITE_P(Models, Fluid, ::testing::ValuesIn(fluid_models()), test_name);

}  // namespace

// ------------------------------------------------------------------------------------------------
// The ellipsoid model (fluidshape="ellipsoid") on constructed models: every geom type, offsets and
// rotations of geoms in their bodies, coefficients set one by one, wind, bodies that mix the two
// models, speeds down to 1e-6 (where 2.2.2 guards its divisions). Two comparisons:
//  - Model built from MuJoCo's by the bridge (so with 2.2.2's geom_fluid virtual inertia): the
//    force formulas alone; qfrc_passive to 1e-12 relative (round-off of a few dozen operations).
//  - Moreau's own loader: geom_fluid[0..5] equal, the virtual masses and inertias [6..11] agree to
//    the accuracy of 2.2.2's numerical quadrature of kappa (src/compiler/fluid_coef.cc evaluates the
//    integral in closed form; 2.2.2's error, measured against it: 4e-7 relative for a sphere, up to
//    3e-6 on these shapes), bound 3e-5; qfrc_passive to the same relative bound.
namespace {

struct EllipsoidCase {
  const char* name;
  const char* xml;
};

const EllipsoidCase kEllipsoidCases[] = {
    {"all_types", R"(<mujoco>
  <option density="1.3" viscosity="0.2" wind="0.3 -0.2 0.1" gravity="0 0 0"/>
  <asset><mesh name="tet" vertex="0 0 0  .2 0 0  0 .3 0  0 0 .1"/></asset>
  <worldbody>
    <body pos="0 0 1"><freejoint/>
      <geom type="sphere" size=".1" pos=".1 0 0" fluidshape="ellipsoid"/>
      <geom type="capsule" size=".05 .2" pos="0 .2 0" euler="30 40 50" fluidshape="ellipsoid"
            fluidcoef="0.1 0.2 0.3 0.4 0.5"/>
      <geom type="cylinder" size=".07 .15" pos="0 0 .2" euler="-20 10 0" fluidshape="ellipsoid"
            fluidcoef="1 2 3 4 5"/>
      <geom type="box" size=".1 .02 .3" pos="-.1 -.1 0" euler="0 70 10" fluidshape="ellipsoid"/>
      <geom type="ellipsoid" size=".3 .1 .05" pos=".2 .2 -.1" fluidshape="ellipsoid"/>
      <geom type="mesh" mesh="tet" pos="-.2 0 .1" fluidshape="ellipsoid"/>
      <geom type="box" size=".1 .1 .1" pos="0 -.3 0"/>
    </body>
  </worldbody>
</mujoco>)"},
    {"mixed_chain", R"(<mujoco>
  <option density="1000" viscosity="0.001" wind="0 0 -1"/>
  <worldbody>
    <body pos="0 0 1"><joint type="ball"/>
      <geom type="capsule" size=".05" fromto="0 0 0 .4 0 0"/>
      <body pos=".4 0 0"><joint type="hinge" axis="0 1 0"/><joint type="slide" axis="1 0 0"/>
        <geom type="ellipsoid" size=".2 .05 .01" pos=".2 0 0" euler="10 0 0" fluidshape="ellipsoid"
              fluidcoef="0.5 0.25 1.5 1 0"/>
        <geom type="sphere" size=".02"/>
        <body pos=".4 0 0"><joint type="hinge" axis="0 0 1"/>
          <geom type="box" size=".1 .1 .01" fluidshape="ellipsoid" fluidcoef="0 0 0 1 0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)"},
    {"terms_alone", R"(<mujoco>
  <option density="2" viscosity="0"/>
  <worldbody>
    <body><freejoint/><geom type="ellipsoid" size=".1 .2 .3" fluidshape="ellipsoid" fluidcoef="1 0 0 0 0"/></body>
    <body pos="1 0 0"><freejoint/><geom type="ellipsoid" size=".3 .1 .2" fluidshape="ellipsoid" fluidcoef="0 1 0 0 0"/></body>
    <body pos="2 0 0"><freejoint/><geom type="ellipsoid" size=".2 .3 .1" fluidshape="ellipsoid" fluidcoef="0 0 1 0 0"/></body>
    <body pos="3 0 0"><freejoint/><geom type="ellipsoid" size=".1 .3 .2" fluidshape="ellipsoid" fluidcoef="0 0 0 1 0"/></body>
    <body pos="4 0 0"><freejoint/><geom type="ellipsoid" size=".3 .2 .1" fluidshape="ellipsoid" fluidcoef="0 0 0 0 1"/></body>
    <body pos="5 0 0"><freejoint/><geom type="ellipsoid" size=".2 .1 .3" fluidshape="ellipsoid" fluidcoef="0 0 0 0 0"/></body>
  </worldbody>
</mujoco>)"},
    {"viscous_only", R"(<mujoco>
  <option density="0" viscosity="3"/>
  <worldbody>
    <body><freejoint/><geom type="box" size=".1 .2 .3" euler="10 20 30" fluidshape="ellipsoid"/>
      <geom type="sphere" size=".1" pos="0 0 .4"/></body>
  </worldbody>
</mujoco>)"},
};

// max_i |a_i - b_i| / max_i |b_i| without max_rel_err's floor of 1e-6: forces at speeds of 1e-6 are
// ~1e-13, and the floor would hide any difference there.
double rel_err_unfloored(const double* a, const double* b, int n) {
  double err = 0, scale = 0;
  for (int i = 0; i < n; ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= err)) err = d;
    scale = std::max(scale, std::abs(b[i]));
  }
  return err == 0 ? 0 : err / std::max(scale, 1e-300);
}

std::string write_temp_model(const std::string& name, const std::string& xml) {
  const std::string path = ::testing::TempDir() + "moreau_fluid_" + name + ".xml";
  std::ofstream(path) << xml;
  return path;
}

class FluidEllipsoid : public ::testing::TestWithParam<EllipsoidCase> {};

TEST_P(FluidEllipsoid, MatchesMuJoCo) {
  const std::string path = write_temp_model(GetParam().name, GetParam().xml);
  std::string err;
  MjModelPtr mj = load_mujoco(path, &err);
  ASSERT_TRUE(mj) << err;
  const Model bridged = model_from_mujoco(mj.get());
  const Model own = load_model(path);
  ASSERT_EQ(own.ngeom, mj->ngeom);

  // compiled coefficients
  double worst_coef = 0;
  for (int i = 0; i < mjNFLUID * mj->ngeom; ++i) {
    if (i % mjNFLUID < 6) {
      EXPECT_EQ(own.geom_fluid[i], mj->geom_fluid[i]) << "geom_fluid[" << i << "]";
    } else {
      const double scale = std::max(std::abs(mj->geom_fluid[i]), 1e-300);
      const double e = std::abs(own.geom_fluid[i] - mj->geom_fluid[i]) / scale;
      worst_coef = std::max(worst_coef, e);
      EXPECT_LE(e, 3e-5) << "geom_fluid[" << i << "] (virtual inertia): " << own.geom_fluid[i] << " vs "
                         << mj->geom_fluid[i];
    }
  }

  MjDataPtr D(mj_makeData(mj.get()));
  Data db = make_data(bridged), d = make_data(own);
  std::mt19937_64 rng(4242);
  std::vector<double> qpos(mj->nq), qvel(mj->nv);
  double worst_bridged = 0, worst_own = 0;
  for (int trial = 0; trial < 24; ++trial) {
    random_qpos(mj.get(), rng, qpos.data());
    // speeds from 1e-6 to 3: the small ones reach the guards of A_proj and cos(alpha)
    const double speed = trial == 0 ? 0.0 : std::pow(10.0, -6 + 6.5 * (trial % 8) / 7.0);
    random_qvel(mj.get(), rng, qvel.data(), speed);
    mj_resetData(mj.get(), D.get());
    std::copy(qpos.begin(), qpos.end(), D->qpos);
    std::copy(qvel.begin(), qvel.end(), D->qvel);
    mj_forward(mj.get(), D.get());
    for (auto [model, data, tol, worst] :
         {std::tuple{&bridged, &db, 1e-12, &worst_bridged}, std::tuple{&own, &d, 3e-5, &worst_own}}) {
      reset_data(*model, *data);
      std::copy(qpos.begin(), qpos.end(), data->qpos.begin());
      std::copy(qvel.begin(), qvel.end(), data->qvel.begin());
      forward(*model, *data);
      const double e = rel_err_unfloored(data->qfrc_passive.data(), D->qfrc_passive, mj->nv);
      EXPECT_LE(e, tol) << (model == &own ? "own loader" : "bridged model") << ", trial " << trial
                        << " (speed " << speed << ")";
      *worst = std::max(*worst, e);
    }
  }
  std::printf("[fluid ellipsoid] %s: qfrc_passive rel err %.3g (2.2.2's constants), %.3g (ours; virtual "
              "inertia differs by %.3g)\n",
              GetParam().name, worst_bridged, worst_own, worst_coef);
}

INSTANTIATE_TEST_SUITE_P(Cases, FluidEllipsoid, ::testing::ValuesIn(kEllipsoidCases),
                         [](const ::testing::TestParamInfo<EllipsoidCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace moreau::testing

// Differential test of collision() on every model MuJoCo 2.2.2 loads (tests/models_mujoco222.txt):
// states along a short random-control rollout in MuJoCo; at each, MuJoCo's geom poses are copied
// into our Data (independent of our kinematics), then collision() is compared with mj_collision per
// geom pair. Pairs that do not reproduce 2.2.2 exactly yet (box-box) are counted separately.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "differential/collision_support.h"
#include "differential/mujoco_bridge.h"

namespace moreau {
namespace {

std::vector<std::string> model_list() {
  std::vector<std::string> out;
  for (const std::string& e : testing::model_list()) out.push_back(testing::resolve_model_path(e));
  return out;
}

// Pairs whose 2.2.2 narrow phase we reproduce to 1e-6 (the analytic functions, mesh-plane
// included; MPR pairs among sphere, capsule, cylinder, box and mesh, and height fields against
// those, whose libccd calls are bit-identical to 2.2.2's, see collision_primitives_test.cc; every
// pair with an ellipsoid, whose normal iterations are reproduced too), by type.
bool exact_pair(int t1, int t2) {
  if (t1 > t2) std::swap(t1, t2);
  if (t1 == mjGEOM_PLANE) return t2 != mjGEOM_HFIELD;
  if (t1 == mjGEOM_ELLIPSOID || t2 == mjGEOM_ELLIPSOID) return true;
  const auto mpr_exact = [](int t) { return t == mjGEOM_SPHERE || t == mjGEOM_CAPSULE || t == mjGEOM_BOX || t == mjGEOM_MESH; };
  if (t1 == mjGEOM_HFIELD) return mpr_exact(t2) || t2 == mjGEOM_CYLINDER;
  if (t2 == mjGEOM_MESH) return mpr_exact(t1) || t1 == mjGEOM_CYLINDER;
  if (t1 == mjGEOM_SPHERE) return t2 == mjGEOM_SPHERE || t2 == mjGEOM_CAPSULE || t2 == mjGEOM_BOX || t2 == mjGEOM_CYLINDER;
  if (t1 == mjGEOM_CAPSULE) return t2 == mjGEOM_CAPSULE || t2 == mjGEOM_CYLINDER || t2 == mjGEOM_BOX;
  if (t1 == mjGEOM_CYLINDER) return t2 == mjGEOM_CYLINDER || t2 == mjGEOM_BOX;  // MPR, 2.2.2's normal
  return false;
}

TEST(CollisionModelsDiff, AllModels) {
  const auto models = model_list();
  ASSERT_FALSE(models.empty());
  int total_contacts = 0, total_states = 0, nmodels = 0;
  int exact_count_mm = 0, exact_value_mm = 0, param_mm = 0, other_mm = 0, order_mm = 0;
  int exact_pairs = 0, other_pairs = 0, skipped_models = 0, multiccd_models = 0;
  bool skip_exact[8][8] = {}, skip_other[8][8] = {};
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      skip_exact[a][b] = !exact_pair(a, b);
      skip_other[a][b] = exact_pair(a, b);
    }
  int missing_shared = 0;
  for (const auto& path : models) {
    if (test_models::missing_shared(path)) {
      ++missing_shared;
      continue;
    }
    char err[1000] = "";
    mjModel* mm = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
    if (!mm) { ++skipped_models; continue; }
    if (mm->opt.enableflags & mjENBL_MULTICCD) ++multiccd_models;
    ++nmodels;
    mjData* md = mj_makeData(mm);
    Model m = testing::model_from_mujoco(mm);  // the shared bridge (all fields)
    Data d = coltest::collision_data(m, mm);
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> u(-1, 1);
    coltest::Report rexact, rother;
    int ncon = 0, nstates = 0;
    for (int step = 0; step < 300; ++step) {
      for (int i = 0; i < mm->nu; ++i) {
        const double lo = mm->actuator_ctrlrange[2 * i], hi = mm->actuator_ctrlrange[2 * i + 1];
        md->ctrl[i] = mm->actuator_ctrllimited[i] ? lo + (hi - lo) * 0.5 * (u(rng) + 1) : u(rng);
      }
      mj_step(mm, md);
      if (step % 30 != 29) continue;
      mj_forward(mm, md);
      coltest::copy_poses(mm, md, d);
      collision(m, d);
      coltest::compare_contacts(mm, md, m, d, coltest::Tolerance{}, skip_exact, rexact);
      coltest::compare_contacts(mm, md, m, d, coltest::Tolerance{}, skip_other, rother);
      ncon += md->ncon;
      ++nstates;
    }
    total_contacts += ncon;
    total_states += nstates;
    exact_pairs += rexact.pairs_compared;
    other_pairs += rother.pairs_compared;
    exact_count_mm += rexact.count_mismatch;
    exact_value_mm += rexact.value_mismatch;
    param_mm += rexact.param_mismatch + rother.param_mismatch;
    other_mm += rother.count_mismatch + rother.value_mismatch;
    order_mm += rexact.order_mismatch;
    if (rexact.order_mismatch) printf("%s: geom-pair order differs from mj_collision\n", path.c_str());
    const bool bad = rexact.count_mismatch || rexact.value_mismatch || rexact.param_mismatch || rother.param_mismatch;
    if (bad || rother.count_mismatch || rother.value_mismatch) {
      printf("%s: %d states, %d contacts; analytic pairs %d (count mm %d, value mm %d, param mm %d); other primitive pairs %d (count mm %d, value mm %d)\n",
             path.c_str(), nstates, ncon, rexact.pairs_compared, rexact.count_mismatch, rexact.value_mismatch,
             rexact.param_mismatch + rother.param_mismatch, rother.pairs_compared, rother.count_mismatch,
             rother.value_mismatch);
      for (size_t i = 0; i < rexact.messages.size() && i < 3; ++i) printf("    %s\n", rexact.messages[i].c_str());
      for (size_t i = 0; i < rother.messages.size() && i < 2; ++i) printf("    [other] %s\n", rother.messages[i].c_str());
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
  printf("SUMMARY: %d models (%d failed to load in MuJoCo, %d use multiccd), %d states, %d MuJoCo contacts; analytic geom-pair "
         "comparisons %d: count mismatch %d, value mismatch %d; parameter mismatches %d; other primitive "
         "pair comparisons %d: mismatches %d; models with different geom-pair order %d\n",
         nmodels, skipped_models, multiccd_models, total_states, total_contacts, exact_pairs, exact_count_mm, exact_value_mm,
         param_mm, other_pairs, other_mm, order_mm);
  EXPECT_EQ(exact_count_mm, 0);
  EXPECT_EQ(exact_value_mm, 0);
  EXPECT_EQ(param_mm, 0);
  EXPECT_EQ(order_mm, 0);
  MOREAU_SKIPPED_SHARED(missing_shared, models.size());
}

// The collision benchmark's mesh pile (bench/models/mesh_pile.xml: 36 bunnies and cones on a plane
// and boxes; mesh-mesh, mesh-box and mesh-plane pairs): every contact of 20 states along its fall
// equal to 2.2.2's within the differential tolerances (measured: bit for bit), in the same order.
TEST(CollisionModelsDiff, MeshPile) {
  const std::string path = std::string(MOREAU_SOURCE_DIR) + "/bench/models/mesh_pile.xml";
  if (!std::ifstream(std::string(MOREAU_SHARED_DIR) + "/models/mujoco/test/engine/testdata/ray/stanford_bunny.obj"))
    GTEST_SKIP() << "the pile's meshes (../shared/models) are not here";
  char err[1000] = "";
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
  ASSERT_NE(mm, nullptr) << err;
  mjData* md = mj_makeData(mm);
  Model m = testing::model_from_mujoco(mm);
  Data d = coltest::collision_data(m, mm);
  coltest::Report rep;
  const bool none[8][8] = {};
  int ncon = 0, mesh_mesh = 0;
  for (int step = 0; step < 500; ++step) {
    mj_step(mm, md);
    if (step < 300 || step % 10 != 0) continue;
    mj_forward(mm, md);
    coltest::copy_poses(mm, md, d);
    collision(m, d);
    coltest::compare_contacts(mm, md, m, d, coltest::Tolerance{}, none, rep);
    ncon += md->ncon;
    for (int i = 0; i < md->ncon; ++i)
      mesh_mesh += mm->geom_type[md->contact[i].geom1] == mjGEOM_MESH && mm->geom_type[md->contact[i].geom2] == mjGEOM_MESH;
  }
  for (size_t i = 0; i < rep.messages.size() && i < 5; ++i) printf("    %s\n", rep.messages[i].c_str());
  EXPECT_GT(ncon, 1000);  // 1300 contacts in the 20 states
  EXPECT_GT(mesh_mesh, 50);  // 83
  EXPECT_EQ(rep.count_mismatch, 0);
  EXPECT_EQ(rep.value_mismatch, 0);
  EXPECT_EQ(rep.param_mismatch, 0);
  EXPECT_EQ(rep.order_mismatch, 0);
  mj_deleteData(md);
  mj_deleteModel(mm);
}

}  // namespace
}  // namespace moreau

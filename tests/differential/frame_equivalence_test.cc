// <frame> and <compiler assetdir> are newer than MuJoCo 2.2.2, which refuses them. Moreau's
// compile of a model written with them is compared, array by array (differential/model_compare.h),
// with 2.2.2's compile of the same model written without them (frames composed by hand, meshdir
// instead of assetdir): the framed model is the model 2.2.2 simulates. About 10 ms in all: it
// runs in ctest's diff_other rather than in its own entries (each process start costs ~30 s).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "differential/model_compare.h"
#include "differential/mujoco_bridge.h"
#include "mjcf/frame_models.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

namespace fs = std::filesystem;

// Moreau compiles `ours` (a file in dir), 2.2.2 compiles `theirs` (beside it); "" when alike.
std::string compare_forms(const fs::path& dir, const std::string& ours, const std::string& theirs) {
  fs::create_directories(dir);
  const std::string mj_path = (dir / "hand.xml").string(), our_path = (dir / "framed.xml").string();
  std::ofstream(mj_path) << theirs;
  std::ofstream(our_path) << ours;
  std::string error;
  MjModelPtr mj = load_mujoco(mj_path, &error);
  if (!mj) return "MuJoCo 2.2.2 refuses the hand-written form: " + error;
  Model m = load_model(our_path);
  return compare_compiled(m, mj.get());
}

class FrameEquivalence : public ::testing::TestWithParam<int> {};

TEST_P(FrameEquivalence, MatchesMuJoCo222OfTheHandWrittenForm) {
  const FramePair& p = *kFramePairs[GetParam()];
  const fs::path dir = fs::path(::testing::TempDir()) / (std::string("moreau_frame_") + p.name);
  EXPECT_EQ(compare_forms(dir, p.framed, p.hand), "") << p.name;
}

INSTANTIATE_TEST_SUITE_P(Pairs, FrameEquivalence,
                         ::testing::Range(0, static_cast<int>(sizeof(kFramePairs) / sizeof(kFramePairs[0]))),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(kFramePairs[i.param]->name); });

// MuJoCo's own frame test model, against 2.2.2's compile of its hand-composed form.
TEST(FrameEquivalenceFiles, MujocoFrameTestModel) {
  MOREAU_REQUIRE_SHARED();
  std::ifstream f(test_models::shared_model("mujoco/test/engine/testdata/frame.xml"));
  ASSERT_TRUE(f) << "shared/models frame.xml missing";
  const std::string framed((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(compare_forms(fs::path(::testing::TempDir()) / "moreau_frame_mujoco_test", framed, kFrameMujocoTestHand),
            "");
}

// assetdir (Moreau) against meshdir (2.2.2): the same mesh files, the same compiled meshes.
TEST(FrameEquivalenceFiles, AssetdirActsAsMeshdir) {
  const fs::path dir = fs::path(::testing::TempDir()) / "moreau_assetdir";
  fs::create_directories(dir / "assets");
  std::ofstream(dir / "assets" / "tet.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  auto model = [](const std::string& compiler) {
    return "<mujoco>" + compiler + R"(<asset><mesh file="tet.obj" scale="0.3 0.2 0.1"/></asset>
<worldbody><body><joint/><geom type="mesh" mesh="tet"/></body></worldbody></mujoco>)";
  };
  EXPECT_EQ(compare_forms(dir, model(R"(<compiler assetdir="assets"/>)"), model(R"(<compiler meshdir="assets"/>)")), "");
  EXPECT_EQ(compare_forms(dir, model(R"(<compiler assetdir="elsewhere" meshdir="assets"/>)"),
                          model(R"(<compiler meshdir="assets"/>)")),
            "");
}

}  // namespace
}  // namespace moreau::testing

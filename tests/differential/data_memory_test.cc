// Memory of a Data against MuJoCo 2.2.2's mjData for the same model: data_bytes (sizeof(Data) and
// the capacity of every array) is at most sizeof(mjData) + nbuffer + nstack * sizeof(mjtNum), what
// mj_makeData allocates, on the humanoids of the performance table and every model of the list.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <string>

#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

size_t mujoco_data_bytes(const mjModel* mj) {
  MjDataPtr d(mj_makeData(mj));
  return sizeof(mjData) + static_cast<size_t>(d->nbuffer) + sizeof(mjtNum) * static_cast<size_t>(d->nstack);
}

// Loads path in both engines and returns {Moreau's bytes, 2.2.2's bytes}; {0, 0} if either refuses.
std::pair<size_t, size_t> both(const std::string& path) {
  std::string error;
  MjModelPtr mj = load_mujoco(path, &error);
  if (!mj) return {0, 0};
  Model m;
  if (!load_moreau(path, &m).empty()) return {0, 0};
  const Data d = make_data(m);
  return {data_bytes(m, d), mujoco_data_bytes(mj.get())};
}

TEST(DataMemory, HumanoidsNoLargerThanMujoco222) {
  for (const std::string path :
       {std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml",
        std::string("/usr/share/mujoco/model/humanoid100/humanoid100.xml"),
        std::string("/usr/share/mujoco/model/humanoid/22_humanoids.xml")}) {
    SCOPED_TRACE(path);
    const auto [moreau_bytes, mujoco_bytes] = both(path);
    ASSERT_GT(mujoco_bytes, 0u);
    std::printf("[ memory   ] %s: Moreau %zu bytes, MuJoCo 2.2.2 %zu bytes (%.3f)\n", path.c_str(), moreau_bytes,
                mujoco_bytes, static_cast<double>(moreau_bytes) / mujoco_bytes);
    EXPECT_LE(moreau_bytes, mujoco_bytes);
  }
}

TEST(DataMemory, EveryModelNoLargerThanMujoco222) {
  int compared = 0;
  for (const std::string& entry : model_list()) {
    const std::string path = resolve_model_path(entry);
    if (test_models::missing_shared(path)) continue;  // without ../shared: the sample models only
    SCOPED_TRACE(path);
    const auto [moreau_bytes, mujoco_bytes] = both(path);
    if (mujoco_bytes == 0) continue;
    ++compared;
    EXPECT_LE(moreau_bytes, mujoco_bytes);
  }
  std::printf("[ memory   ] %d models compared\n", compared);
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace moreau::testing

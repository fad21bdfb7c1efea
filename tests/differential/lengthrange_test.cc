// Muscle actuator_lengthrange computed by Moreau's compiler (src/compiler/lengthrange.cc, default
// compiler/lengthrange options) against MuJoCo 2.2.2's, for every model of
// tests/models_mujoco222.txt with a muscle actuator: 1e-6 relative (max_rel_err over the whole
// actuator_lengthrange array; the ranges come from 10 s simulations, so they are compared a little
// looser than the closed-form constants).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

std::vector<std::string> muscle_models() {
  std::vector<std::string> out;
  for (const std::string& e : model_list_all()) {
    if (!mjcf_text_mentions(resolve_model_path(e), {"muscle", "MUSCLE"})) continue;
    MjModelPtr mj = load_mujoco(resolve_model_path(e));
    if (!mj) continue;
    bool muscle = false;
    for (int u = 0; u < mj->nu; ++u)
      muscle = muscle || mj->actuator_gaintype[u] == mjGAIN_MUSCLE || mj->actuator_biastype[u] == mjBIAS_MUSCLE;
    if (muscle) out.push_back(e);
  }
  return test_models::with_unread_shared(select_models(out));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

class LengthRange : public ::testing::TestWithParam<std::string> {};

TEST_P(LengthRange, MatchesMuJoCo) {
  const std::string path = resolve_model_path(GetParam());
  MOREAU_REQUIRE_MODEL(path);
  MjModelPtr mj = load_mujoco(path);
  ASSERT_TRUE(mj);
  Model m;
  if (const std::string e = load_moreau(path, &m); !e.empty()) FAIL() << e;
  ASSERT_EQ(m.nu, mj->nu);
  const double e = max_rel_err(m.actuator_lengthrange.data(), mj->actuator_lengthrange, 2 * m.nu);
  EXPECT_LE(e, 1e-6);
  for (int u = 0; u < m.nu; ++u)
    for (int k = 0; k < 2; ++k)
      EXPECT_NEAR(m.actuator_lengthrange[2 * u + k], mj->actuator_lengthrange[2 * u + k],
                  1e-6 * std::max(1.0, std::abs(mj->actuator_lengthrange[2 * u + k])))
          << "actuator " << u << " end " << k;
  std::printf("[lengthrange] %s: %d actuators, max rel err %.3g\n", GetParam().c_str(), m.nu, e);
}

INSTANTIATE_TEST_SUITE_P(Models, LengthRange, ::testing::ValuesIn(muscle_models()), test_name);

}  // namespace
}  // namespace moreau::testing

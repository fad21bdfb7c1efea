// The differential tests link MuJoCo 2.2.2 as the oracle (test-only dependency).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <string>
TEST(MujocoOracle, Version) { EXPECT_EQ(mj_version(), 222); }

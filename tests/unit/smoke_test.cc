#include <gtest/gtest.h>
#include "moreau/model.h"
TEST(Smoke, ModelDefaults) {
  moreau::Model m;
  EXPECT_EQ(m.opt.timestep, 0.002);
  EXPECT_EQ(m.opt.iterations, 100);
}

// math/dual.h: forward-mode derivatives against closed forms, and the one-sided conventions at the
// points where the functions it serves (fluid forces) are not differentiable.
#include <gtest/gtest.h>

#include <cmath>

#include "math/dual.h"

namespace moreau::math {
namespace {

using D2 = Dual<2>;

TEST(Dual, ArithmeticAndSqrtMatchClosedForms) {
  const double x0 = 0.7, y0 = -1.3;
  const D2 x = D2::variable(x0, 0), y = D2::variable(y0, 1);
  // f = (x y + 3) / (x - y) * sqrt(x^2 + y^2) - 2 x
  const D2 f = (x * y + 3.0) / (x - y) * sqrt(x * x + y * y) - 2.0 * x;
  const double r = std::sqrt(x0 * x0 + y0 * y0), q = (x0 * y0 + 3) / (x0 - y0);
  const double dq_dx = (y0 * (x0 - y0) - (x0 * y0 + 3)) / ((x0 - y0) * (x0 - y0));
  const double dq_dy = (x0 * (x0 - y0) + (x0 * y0 + 3)) / ((x0 - y0) * (x0 - y0));
  EXPECT_DOUBLE_EQ(f.v, q * r - 2 * x0);
  EXPECT_NEAR(f.d[0], dq_dx * r + q * x0 / r - 2, 1e-14);
  EXPECT_NEAR(f.d[1], dq_dy * r + q * y0 / r, 1e-14);
}

TEST(Dual, DoubleInstantiationIsPlainArithmetic) {
  EXPECT_EQ(sqrt(2.0), std::sqrt(2.0));
  EXPECT_EQ(max(1e-15, 0.0), 1e-15);
  EXPECT_EQ(abs(-3.0), 3.0);
}

TEST(Dual, NonSmoothPointsTakeTheNaturalLimits) {
  // |v| v at v = 0: derivative 0 (the function is C1 there)
  const D2 v = D2::variable(0.0, 0);
  const D2 s = sqrt(v * v);  // a norm at zero: derivative 0, not NaN
  EXPECT_EQ(s.v, 0.0);
  EXPECT_EQ(s.d[0], 0.0);
  EXPECT_EQ((s * v).d[0], 0.0);
  // abs and max follow the branch of the current value
  EXPECT_EQ(abs(D2::variable(-2.0, 1)).d[1], -1.0);
  EXPECT_EQ(max(1e-15, D2::variable(1e-20, 0)).d[0], 0.0);  // the constant is taken
  EXPECT_EQ(max(1e-15, D2::variable(0.5, 0)).d[0], 1.0);
}

}  // namespace
}  // namespace moreau::math

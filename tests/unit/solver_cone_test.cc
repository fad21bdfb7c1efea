// Unit tests of the elliptic-cone pieces of the solvers (src/solver/cone.cc): the PGS per-contact
// update never increases the block cost and stays in the cone; the primal cone cost is C1 (its
// derivative along a line matches finite differences across the zone boundaries).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "solver/solver.h"

namespace moreau::solver {
namespace {

double block_cost(int n, const double* A, const double* g, const double* f) {
  double c = 0;
  for (int a = 0; a < n; ++a) {
    c += f[a] * g[a];
    for (int b = 0; b < n; ++b) c += 0.5 * f[a] * A[a * n + b] * f[b];
  }
  return c;
}

TEST(SolverCone, EllipticBlockDecreasesCostAndStaysInCone) {
  std::mt19937 rng(1);
  std::normal_distribution<double> N(0, 1);
  int tested = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int dim = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 4 : 6;
    double G[36], A[36], g[6], f[6];
    double fr[5] = {0.5 + std::fabs(N(rng)), 0, 0.1, 0.01, 0.01};
    fr[1] = fr[0];
    for (int i = 0; i < dim * dim; ++i) G[i] = N(rng);
    for (int a = 0; a < dim; ++a)
      for (int b = 0; b < dim; ++b) {
        double s = 0;
        for (int k = 0; k < dim; ++k) s += G[a * dim + k] * G[b * dim + k];
        A[a * dim + b] = s + (a == b ? 0.1 : 0);
      }
    for (int a = 0; a < dim; ++a) g[a] = N(rng);
    f[0] = std::fabs(N(rng));
    for (int j = 1; j < dim; ++j) f[j] = 0.3 * fr[j - 1] * f[0] * N(rng) / std::sqrt(dim);
    double t = 0;
    for (int j = 1; j < dim; ++j) t += f[j] * f[j] / (fr[j - 1] * fr[j - 1]);
    if (t > f[0] * f[0]) continue;
    ++tested;
    const double c0 = block_cost(dim, A, g, f);
    elliptic_block(dim, fr, A, g, f);
    const double c1 = block_cost(dim, A, g, f);
    t = 0;
    for (int j = 1; j < dim; ++j) t += f[j] * f[j] / (fr[j - 1] * fr[j - 1]);
    ASSERT_LE(c1, c0 + 1e-12 * (1 + std::fabs(c0))) << "trial " << trial;
    ASSERT_GE(f[0], 0);
    ASSERT_LE(std::sqrt(t), f[0] * (1 + 1e-9) + 1e-15) << "trial " << trial;
  }
  EXPECT_GT(tested, 10000);
}

}  // namespace
}  // namespace moreau::solver

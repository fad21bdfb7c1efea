// Virtual inertia of an ellipsoid in an ideal fluid (computation chapter, "Fluid forces", ellipsoid
// model, added mass): with semi-axes r and volume V = 4/3 pi r_x r_y r_z,
//   kappa_i = int_0^inf r_x r_y r_z / sqrt((r_i^2 + l)^3 (r_j^2 + l) (r_k^2 + l)) dl
//   m_A,i   = V kappa_i / (2 - kappa_i)
//   I_A,i   = V/5 (r_j^2 - r_k^2)^2 (kappa_k - kappa_j) / (2 (r_j^2 - r_k^2) + (r_j^2 + r_k^2)(kappa_j - kappa_k))
// (per unit density; the force multiplies by rho). The integral is Carlson's symmetric elliptic
// integral of the second kind: kappa_i = 2/3 r_x r_y r_z R_D(r_j^2, r_k^2, r_i^2), evaluated here by
// the duplication theorem to round-off. MuJoCo 2.2.2 evaluates it by a numerical quadrature whose
// error we measured at 4e-7 relative for a sphere and up to 2e-5 for aspect ratios of 100
// (tests/differential/fluid_test.cc compares the two).
#include <algorithm>
#include <cmath>

#include "dynamics/fluid.h"

namespace moreau {
namespace {

// Carlson's R_D(x, y, z) = 3/2 int_0^inf dt / sqrt((t+x)(t+y)(t+z)^3), x, y >= 0, z > 0.
// Duplication: R_D(x,y,z) = 2 R_D(x',y',z') + 3 / (sqrt(z) (z + lam)), with lam = sqrt(xy) +
// sqrt(yz) + sqrt(zx) and x' = (x + lam)/4 (likewise y', z'); each step shrinks the spread of the
// arguments fourfold, and R_D(a, a, a) = a^-3/2 ends the recursion.
double carlson_rd(double x, double y, double z) {
  double sum = 0, scale = 1;
  for (int it = 0; it < 100; ++it) {
    const double mean = (x + y + 3 * z) / 5;
    const double spread = std::max(std::abs(mean - x), std::max(std::abs(mean - y), std::abs(mean - z)));
    if (spread <= 1e-17 * mean) break;
    const double sx = std::sqrt(x), sy = std::sqrt(y), sz = std::sqrt(z);
    const double lam = sx * sy + sy * sz + sz * sx;
    sum += scale / (sz * (z + lam));
    scale *= 0.25;
    x = (x + lam) * 0.25;
    y = (y + lam) * 0.25;
    z = (z + lam) * 0.25;
  }
  const double mean = (x + y + 3 * z) / 5;
  return 3 * sum + scale / (mean * std::sqrt(mean));
}

}  // namespace

void fluid_virtual_inertia(const double* r, double* virtual_mass, double* virtual_inertia) {
  if (!(r[0] > 0 && r[1] > 0 && r[2] > 0)) {  // a flat geom (plane) displaces no volume
    for (int i = 0; i < 3; ++i) virtual_mass[i] = virtual_inertia[i] = 0;
    return;
  }
  const double volume = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2];
  double kappa[3];
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    kappa[i] = 2.0 / 3.0 * r[0] * r[1] * r[2] * carlson_rd(r[j] * r[j], r[k] * r[k], r[i] * r[i]);
  }
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    virtual_mass[i] = volume * kappa[i] / (2 - kappa[i]);
    // Rotation about an axis of symmetry (r_j = r_k) displaces no fluid: the limit is 0 (the
    // formula is 0/0 there).
    const double dr2 = r[j] * r[j] - r[k] * r[k];
    if (dr2 == 0) {
      virtual_inertia[i] = 0;
      continue;
    }
    const double dk = kappa[j] - kappa[k];
    virtual_inertia[i] = volume / 5 * dr2 * dr2 * (-dk) / (2 * dr2 + (r[j] * r[j] + r[k] * r[k]) * dk);
  }
}

}  // namespace moreau

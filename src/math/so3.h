// The exponential map of SO(3) and its right Jacobian (computation chapter's quaternion
// integration q <- q exp(w h): a tangent perturbation dq of q and dphi of phi = w h move the
// result by exp(phi)' dq + Jr(phi) dphi in its own tangent space).
#pragma once

#include <cmath>

namespace moreau::math {

// R = exp([phi]x) = I + a K + b K^2 and the right Jacobian Jr = I - c K + e K^2, K = [phi]x
// (row-major 3x3); Taylor series below |phi| = 1e-6.
inline void so3_jacobians(const double* phi, double* Jr, double* R) {
  const double th = std::sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
  double K[9] = {0, -phi[2], phi[1], phi[2], 0, -phi[0], -phi[1], phi[0], 0};
  double K2[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int l = 0; l < 3; ++l) s += K[3 * i + l] * K[3 * l + j];
      K2[3 * i + j] = s;
    }
  double a, b, c, e;
  if (th < 1e-6) {
    a = 1 - th * th / 6, b = 0.5 - th * th / 24, c = 0.5 - th * th / 24, e = 1.0 / 6 - th * th / 120;
  } else {
    a = std::sin(th) / th, b = (1 - std::cos(th)) / (th * th), c = (1 - std::cos(th)) / (th * th),
    e = (th - std::sin(th)) / (th * th * th);
  }
  for (int i = 0; i < 9; ++i) {
    const double I = (i % 4 == 0) ? 1 : 0;
    R[i] = I + a * K[i] + b * K2[i];
    Jr[i] = I - c * K[i] + e * K2[i];
  }
}

}  // namespace moreau::math

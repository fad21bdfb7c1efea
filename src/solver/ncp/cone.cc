// Coulomb cone geometry for the hard-contact solvers: membership, Euclidean projection and distance
// for K_mu and its dual, the 3x3 helpers of the per-contact updates, and RaiSim's ellipse problem.
//
// Projection on K_k = {||x_T|| <= k x_N} (k > 0): with t = ||x_T||, x itself if t <= k x_N; 0 if
// k t <= -x_N (x in the polar cone); otherwise the orthogonal projection on the boundary ray
// (1, k)/sqrt(1+k^2) of the half-plane spanned by the normal and x_T:
//   a = (x_N + k t) / (1 + k^2),  P(x) = (a, k a x_T / t).
//
// Ellipse of the sliding case (paper, Sec. II and Fig. 2): on dK ∩ V_N write l_T = r u(theta),
// u = (cos, sin), l_N = r / mu. The plane G_N l + gN = 0 gives
//   r(theta) = -mu gN / d(theta),  d(theta) = G_NN + mu G_NT . u(theta),
// positive when gN < 0 and d > 0 (d > 0 for every theta when mu ||G_NT|| < G_NN: the set is an
// ellipse; otherwise the curve is unbounded and the search stays where d > 0). The objective
// f(theta) = 0.5 l'Gl + b'l has f' = (G l + b) . dl/dtheta with
//   r' = mu gN d' / d^2,  d' = mu G_NT . u',  dl/dtheta = (r'/mu, r' u + r u').
#include <algorithm>
#include <cmath>

#include "solver/ncp/ncp.h"

namespace moreau::ncp {

namespace {

// Projection on {||x_T|| <= k x_N}; k = inf: the half-space x_N >= 0.
void project_slope(double k, const double* x, double* out) {
  const double t = std::sqrt(x[1] * x[1] + x[2] * x[2]);
  if (std::isinf(k)) {
    out[0] = std::max(0.0, x[0]);
    out[1] = x[1];
    out[2] = x[2];
    return;
  }
  if (k <= 0) {  // the ray x_T = 0, x_N >= 0
    out[0] = std::max(0.0, x[0]);
    out[1] = out[2] = 0;
    return;
  }
  if (t <= k * x[0]) {
    std::copy_n(x, 3, out);
    return;
  }
  if (k * t <= -x[0]) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  const double a = (x[0] + k * t) / (1 + k * k);
  const double s = k * a / t;
  out[0] = a;
  out[1] = s * x[1];
  out[2] = s * x[2];
}

double dist_slope(double k, const double* x) {
  double p[3];
  project_slope(k, x, p);
  const double a = x[0] - p[0], b = x[1] - p[1], c = x[2] - p[2];
  return std::sqrt(a * a + b * b + c * c);
}

// The ellipse problem in terms of the direction u = (cos theta, sin theta) of l_T: bisection on the
// angle without trigonometry (the bisector of two directions less than pi apart is the normalized
// sum of their unit vectors).
struct Ellipse {
  const double* G;
  const double* b;
  double gN, mu;
  double dmin;  // smallest d(theta) accepted (away from the asymptotes of an unbounded curve)

  // l(u) and dl/dtheta; false where d <= dmin
  bool point(const double* u, double* l, double* dl) const {
    const double d = G[0] + mu * (G[1] * u[0] + G[2] * u[1]);
    if (d <= dmin) return false;
    const double dd = mu * (-G[1] * u[1] + G[2] * u[0]);
    const double inv = 1 / d;
    const double r = -mu * gN * inv;
    const double dr = -r * dd * inv;
    l[0] = r / mu;
    l[1] = r * u[0];
    l[2] = r * u[1];
    dl[0] = dr / mu;
    dl[1] = dr * u[0] - r * u[1];
    dl[2] = dr * u[1] + r * u[0];
    return true;
  }
  // sign of f'(theta) at u: +1, -1, 0; invalid points count as +2 (a wall: f grows towards it)
  int slope_sign(const double* u, double* l) const {
    double dl[3];
    if (!point(u, l, dl)) return 2;
    double s = 0;
    for (int a = 0; a < 3; ++a) s += (G[3 * a] * l[0] + G[3 * a + 1] * l[1] + G[3 * a + 2] * l[2] + b[a]) * dl[a];
    return s > 0 ? 1 : s < 0 ? -1 : 0;
  }
};

}  // namespace

bool in_cone(double mu, const double* x) {
  return x[0] >= 0 && std::sqrt(x[1] * x[1] + x[2] * x[2]) <= mu * x[0];
}
void project_cone(double mu, const double* x, double* out) { project_slope(mu, x, out); }
double dist_cone(double mu, const double* x) { return dist_slope(mu, x); }
double dist_dual_cone(double mu, const double* x) {
  return dist_slope(mu > 0 ? 1 / mu : INFINITY, x);
}

void ellipse_min(const double* G, const double* b, double gN, double mu, const double* u0, double* lam) {
  const Ellipse e{G, b, gN, mu, 1e-9 * G[0]};
  double u[2] = {u0[0], u0[1]}, l[3];
  const double n0 = std::hypot(u[0], u[1]);
  if (n0 > 0) {
    u[0] /= n0;
    u[1] /= n0;
  } else {
    u[0] = 1;
    u[1] = 0;
  }
  int s0 = e.slope_sign(u, l);
  if (s0 == 2) {  // start outside the valid arc: restart where d(theta) is largest, u ∥ G_NT
    const double n = std::hypot(G[1], G[2]);
    u[0] = G[1] / n;
    u[1] = G[2] / n;
    s0 = e.slope_sign(u, l);
  }
  if (s0 == 0) {
    std::copy_n(l, 3, lam);
    return;
  }
  // bracket: walk downhill by pi/8 until the slope changes sign (at most one turn)
  const double c8 = 0.92387953251128674, s8 = (s0 > 0 ? -1.0 : 1.0) * 0.38268343236508978;
  double lo[2] = {u[0], u[1]}, hi[2];
  bool found = false;
  for (int k = 0; k < 16; ++k) {
    hi[0] = c8 * lo[0] - s8 * lo[1];
    hi[1] = s8 * lo[0] + c8 * lo[1];
    const int s = e.slope_sign(hi, l);
    if (s == 0) {
      std::copy_n(l, 3, lam);
      return;
    }
    if (s != s0) {
      found = true;
      break;
    }
    lo[0] = hi[0];
    lo[1] = hi[1];
  }
  if (!found) {  // no sign change in a full turn (flat objective): keep the start
    e.slope_sign(u, lam);
    return;
  }
  // bisection on the sign of f' (the "dichotomous algorithm" of the paper) down to 1e-10 rad
  double mid[2];
  for (int it = 0; it < 60; ++it) {
    mid[0] = lo[0] + hi[0];
    mid[1] = lo[1] + hi[1];
    const double n = std::sqrt(mid[0] * mid[0] + mid[1] * mid[1]);
    mid[0] /= n;
    mid[1] /= n;
    if (std::fabs(lo[0] * hi[1] - lo[1] * hi[0]) <= 1e-10) break;
    const int s = e.slope_sign(mid, l);
    if (s == 0) {
      std::copy_n(l, 3, lam);
      return;
    }
    double* side = s == s0 ? lo : hi;
    side[0] = mid[0];
    side[1] = mid[1];
  }
  if (e.slope_sign(mid, lam) == 2) e.slope_sign(lo, lam);
}

double max_eigenvalue3(const double* A) {
  const double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  const double q = (A[0] + A[4] + A[8]) / 3;
  const double a = A[0] - q, b = A[4] - q, c = A[8] - q;
  const double p2 = a * a + b * b + c * c + 2 * p1;
  if (p2 <= 1e-300) return q;
  const double p = std::sqrt(p2 / 6);
  // B = (A - q I) / p; r = det(B) / 2 in [-1, 1]
  const double B0 = a / p, B4 = b / p, B8 = c / p, B1 = A[1] / p, B2 = A[2] / p, B5 = A[5] / p;
  const double det = B0 * (B4 * B8 - B5 * B5) - B1 * (B1 * B8 - B5 * B2) + B2 * (B1 * B5 - B4 * B2);
  const double r = std::clamp(det / 2, -1.0, 1.0);
  return q + 2 * p * std::cos(std::acos(r) / 3);
}

bool invert3(const double* A, double* Ainv) {
  const double c0 = A[4] * A[8] - A[5] * A[7];
  const double c1 = A[5] * A[6] - A[3] * A[8];
  const double c2 = A[3] * A[7] - A[4] * A[6];
  const double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
  if (!(std::fabs(det) > 0)) return false;
  const double s = 1 / det;
  Ainv[0] = c0 * s;
  Ainv[1] = (A[2] * A[7] - A[1] * A[8]) * s;
  Ainv[2] = (A[1] * A[5] - A[2] * A[4]) * s;
  Ainv[3] = c1 * s;
  Ainv[4] = (A[0] * A[8] - A[2] * A[6]) * s;
  Ainv[5] = (A[2] * A[3] - A[0] * A[5]) * s;
  Ainv[6] = c2 * s;
  Ainv[7] = (A[1] * A[6] - A[0] * A[7]) * s;
  Ainv[8] = (A[0] * A[4] - A[1] * A[3]) * s;
  return true;
}

}  // namespace moreau::ncp

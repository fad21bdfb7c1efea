// Tendon wrapping around spheres and cylinders (computation chapter, "Tendons"; MJCF spatial
// tendon with <geom sidesite>).
//
// The shortest path between two points around a sphere lies in the plane through the sphere's
// centre and the two points; around an (infinite) cylinder it is a helix that projects onto the
// cylinder's cross-section as the shortest planar path around the circle. Both reduce to the 2D
// problem: two straight segments tangent to a circle joined by an arc (wrap_circle). A straight
// segment that does not cross the obstacle is already shortest: no wrapping. A side site selects
// the side of the obstacle the path must take, also when the straight segment misses the obstacle
// on the other side.
#include "tendon/wrap.h"

#include <cmath>

#include "math/vec.h"

namespace moreau::tendon_detail {

using namespace math;

namespace {
constexpr double kTwoPi = 2 * M_PI;
constexpr double kEps = 1e-15;

inline double wrap_angle_positive(double x) {
  x = std::fmod(x, kTwoPi);
  if (x < 0) x += kTwoPi;
  return x;
}
}  // namespace

double wrap_circle(const double a[2], const double b[2], double r, const double* s, double ta[2],
                   double tb[2]) {
  const double da = std::hypot(a[0], a[1]);
  const double db = std::hypot(b[0], b[1]);
  // An end point inside the obstacle (or a degenerate obstacle): the path cannot wrap.
  if (r < kEps || da <= r || db <= r) return -1;

  // Point of the segment nearest the centre: tells whether the segment crosses the circle and on
  // which side of the centre it passes.
  const double ab[2] = {b[0] - a[0], b[1] - a[1]};
  const double ab2 = ab[0] * ab[0] + ab[1] * ab[1];
  double t = ab2 > kEps ? -(a[0] * ab[0] + a[1] * ab[1]) / ab2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  const double c[2] = {a[0] + t * ab[0], a[1] + t * ab[1]};
  const bool crosses = std::hypot(c[0], c[1]) < r;
  if (!crosses) {
    // Without a side site the straight segment is the shortest path; with one, it is the path only
    // if it already passes on the side site's side.
    if (!s || c[0] * s[0] + c[1] * s[1] >= 0) return -1;
  }

  // Two candidate paths: counter-clockwise (sigma=+1) or clockwise (sigma=-1) around the centre.
  // Tangent point from an external point P: at angle acos(r/|P|) from P's direction.
  const double alpha_a = std::acos(r / da), alpha_b = std::acos(r / db);
  const double phi_a = std::atan2(a[1], a[0]), phi_b = std::atan2(b[1], b[0]);
  double best_arc = -1, best_score = 0, best_ta = 0, best_tb = 0;
  for (int sigma = 1; sigma >= -1; sigma -= 2) {
    const double ang_a = phi_a + sigma * alpha_a;
    const double ang_b = phi_b - sigma * alpha_b;
    const double arc = wrap_angle_positive(sigma * (ang_b - ang_a));
    double score;
    if (s) {  // prefer the path whose arc midpoint lies towards the side site
      const double mid = ang_a + sigma * 0.5 * arc;
      score = std::cos(mid) * s[0] + std::sin(mid) * s[1];
    } else {  // prefer the shorter arc
      score = -arc;
    }
    if (best_arc < 0 || score > best_score) {
      best_arc = arc;
      best_score = score;
      best_ta = ang_a;
      best_tb = ang_b;
    }
  }
  ta[0] = r * std::cos(best_ta);
  ta[1] = r * std::sin(best_ta);
  tb[0] = r * std::cos(best_tb);
  tb[1] = r * std::sin(best_tb);
  return r * best_arc;
}

double wrap(const double x0[3], const double x1[3], const double pos[3], const double mat[9],
            double radius, bool is_cylinder, const double* side, double t0[3], double t1[3]) {
  // Into the obstacle's local frame.
  double d[3], p0[3], p1[3], s[3];
  sub3(d, x0, pos);
  mulmatTvec3(p0, mat, d);
  sub3(d, x1, pos);
  mulmatTvec3(p1, mat, d);
  if (side) {
    sub3(d, side, pos);
    mulmatTvec3(s, mat, d);
  }

  double l0[3], l1[3];  // local tangent points
  double len;
  if (!is_cylinder) {
    // Plane through the centre and both points; in-plane axes e1 (towards p0) and e2.
    double n[3];
    cross3(n, p0, p1);
    if (norm3(n) < 1e-12 * (norm3(p0) * norm3(p1) + kEps)) {
      // Points and centre collinear: any plane containing them works; use the side site's.
      double ref[3] = {0, 0, 1};
      if (side) copy3(ref, s);
      cross3(n, p0, ref);
      if (norm3(n) < kEps) {
        ref[0] = 1; ref[1] = ref[2] = 0;
        cross3(n, p0, ref);
        if (norm3(n) < kEps) { ref[0] = 0; ref[1] = 1; cross3(n, p0, ref); }
      }
    }
    normalize3(n);
    double e1[3], e2[3];
    copy3(e1, p0);
    normalize3(e1);
    cross3(e2, n, e1);
    const double a[2] = {dot3(p0, e1), dot3(p0, e2)};
    const double b[2] = {dot3(p1, e1), dot3(p1, e2)};
    const double s2[2] = {side ? dot3(s, e1) : 0, side ? dot3(s, e2) : 0};
    double ta[2], tb[2];
    len = wrap_circle(a, b, radius, side ? s2 : nullptr, ta, tb);
    if (len < 0) return -1;
    for (int k = 0; k < 3; ++k) {
      l0[k] = ta[0] * e1[k] + ta[1] * e2[k];
      l1[k] = tb[0] * e1[k] + tb[1] * e2[k];
    }
  } else {
    // Cross-section problem, then the helix: height grows linearly with the planar path length.
    const double a[2] = {p0[0], p0[1]};
    const double b[2] = {p1[0], p1[1]};
    const double s2[2] = {side ? s[0] : 0, side ? s[1] : 0};
    double ta[2], tb[2];
    const double arc = wrap_circle(a, b, radius, side ? s2 : nullptr, ta, tb);
    if (arc < 0) return -1;
    const double L0 = std::hypot(a[0] - ta[0], a[1] - ta[1]);
    const double L1 = std::hypot(b[0] - tb[0], b[1] - tb[1]);
    const double total = L0 + arc + L1;
    if (total < kEps) return -1;
    const double dz = p1[2] - p0[2];
    l0[0] = ta[0]; l0[1] = ta[1]; l0[2] = p0[2] + dz * L0 / total;
    l1[0] = tb[0]; l1[1] = tb[1]; l1[2] = p0[2] + dz * (L0 + arc) / total;
    len = std::hypot(arc, l1[2] - l0[2]);
  }

  // Back to the world frame.
  mulmatvec3(t0, mat, l0);
  add3(t0, t0, pos);
  mulmatvec3(t1, mat, l1);
  add3(t1, t1, pos);
  return len;
}

}  // namespace moreau::tendon_detail

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

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "math/vec.h"

namespace moreau::tendon_detail {

using namespace math;

namespace {
constexpr double kTwoPi = 2 * M_PI;
constexpr double kEps = 1e-15;

inline void copy2(double* dst, const double* src) {
  dst[0] = src[0];
  dst[1] = src[1];
}
}  // namespace

namespace {
// Do the segments p1-p2 and p3-p4 cross (proper intersection)?
inline double orient(const double* p, const double* q, const double* r) {
  return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
}
bool segments_cross(const double* p1, const double* p2, const double* p3, const double* p4) {
  return orient(p1, p2, p3) * orient(p1, p2, p4) < 0 && orient(p3, p4, p1) * orient(p3, p4, p2) < 0;
}

// Side site inside the obstacle: the path must touch the obstacle from outside at one point p
// (reflection point: min |a - p| + |p - b| over the circle), or pass through it when the straight
// segment crosses it. A coarse scan of the circle brackets the global minimum (near the obstacle
// the function can have several local minima); Newton's method on the angle refines it, accepting
// only steps that do not increase the length.
inline double touch_length(const double a[2], const double b[2], double r, double th) {
  const double p[2] = {r * std::cos(th), r * std::sin(th)};
  return std::hypot(p[0] - a[0], p[1] - a[1]) + std::hypot(p[0] - b[0], p[1] - b[1]);
}

double wrap_inside(const double a[2], const double b[2], double r, bool crosses, double ta[2],
                   double tb[2]) {
  if (crosses) return -1;
  constexpr int kScan = 90;
  double th = 0, f = touch_length(a, b, r, 0);
  for (int k = 1; k < kScan; ++k) {
    const double t = kTwoPi * k / kScan;
    const double ft = touch_length(a, b, r, t);
    if (ft < f) { f = ft; th = t; }
  }
  for (int it = 0; it < 100; ++it) {
    const double p[2] = {r * std::cos(th), r * std::sin(th)};
    const double dp[2] = {-p[1], p[0]};  // dp/dth; d2p/dth2 = -p
    double g1 = 0, g2 = 0;
    for (const double* x : {a, b}) {
      const double e[2] = {p[0] - x[0], p[1] - x[1]};
      const double n = std::hypot(e[0], e[1]);
      const double ed = e[0] * dp[0] + e[1] * dp[1];
      g1 += ed / n;
      g2 += (r * r - (e[0] * p[0] + e[1] * p[1])) / n - ed * ed / (n * n * n);
    }
    double step = g2 > kEps ? -g1 / g2 : -g1;
    step = std::clamp(step, -kTwoPi / kScan, kTwoPi / kScan);
    // Backtrack until the length does not increase.
    double fn = touch_length(a, b, r, th + step);
    for (int h = 0; h < 40 && fn > f; ++h) {
      step *= 0.5;
      fn = touch_length(a, b, r, th + step);
    }
    if (fn > f) break;
    th += step;
    f = fn;
    if (std::fabs(step) < 1e-15) break;
  }
  ta[0] = tb[0] = r * std::cos(th);
  ta[1] = tb[1] = r * std::sin(th);
  return 0;
}
}  // namespace

double wrap_circle(const double a[2], const double b[2], double r, const double* s, bool side_inside,
                   double ta[2], double tb[2]) {
  const double da2 = a[0] * a[0] + a[1] * a[1];
  const double db2 = b[0] * b[0] + b[1] * b[1];
  const double r2 = r * r;
  // An end point inside the obstacle (or a degenerate obstacle): the path cannot wrap.
  if (r < kEps || da2 <= r2 || db2 <= r2) return -1;

  // Point of the segment nearest the centre: tells whether the segment crosses the circle and on
  // which side of the centre it passes.
  const double ab[2] = {b[0] - a[0], b[1] - a[1]};
  const double ab2 = ab[0] * ab[0] + ab[1] * ab[1];
  double t = ab2 > kEps ? -(a[0] * ab[0] + a[1] * ab[1]) / ab2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  const double c[2] = {a[0] + t * ab[0], a[1] + t * ab[1]};
  const bool crosses = c[0] * c[0] + c[1] * c[1] < r2;
  if (s && side_inside) return wrap_inside(a, b, r, crosses, ta, tb);
  if (!crosses) {
    // Without a side site the straight segment is the shortest path; with one, it is the path only
    // if it already passes on the side site's side.
    if (!s || c[0] * s[0] + c[1] * s[1] >= 0) return -1;
  }

  // Two candidate paths: counter-clockwise (sigma=+1) or clockwise (sigma=-1) around the centre.
  // The tangent point from an external point P lies at the angle acos(r/|P|) from P's direction,
  // r (cos, sin) of it is (r/|P|^2) (r P +- sqrt(|P|^2 - r^2) perp(P)) with perp(P) = P turned by +90
  // degrees: the path leaves a turning counter-clockwise (+) and reaches b turning the same way (-).
  // Without a side site: the shorter arc. With one: among the candidates whose straight parts do
  // not cross each other (a path that crosses itself is not taut), the one whose chord midpoint
  // (ta + tb)/|ta + tb| points most towards the side site (the rule MuJoCo 2.2.2 follows; it agrees
  // with "the arc passes the side site" for arcs shorter than half a turn).
  const double ka = std::sqrt(da2 - r2), kb = std::sqrt(db2 - r2);
  const double sa = r / da2, sb = r / db2;
  double best_ta[2] = {0, 0}, best_tb[2] = {0, 0}, best_score = 0;
  int best_sigma = 0;
  bool best_valid = false;
  for (int sigma = 1; sigma >= -1; sigma -= 2) {
    const double pa[2] = {sa * (r * a[0] - sigma * ka * a[1]), sa * (r * a[1] + sigma * ka * a[0])};
    const double pb[2] = {sb * (r * b[0] + sigma * kb * b[1]), sb * (r * b[1] - sigma * kb * b[0])};
    bool valid = true;
    double score;
    if (s) {
      valid = !segments_cross(a, pa, pb, b);
      const double mid[2] = {pa[0] + pb[0], pa[1] + pb[1]};
      const double n = std::sqrt(mid[0] * mid[0] + mid[1] * mid[1]);
      score = n > kEps ? (mid[0] * s[0] + mid[1] * s[1]) / n : 0;
    } else {
      // Minus a monotone stand-in for the arc angle in [0, 2 pi) (the angle from pa to pb turning
      // by sigma): 1 - cos in [0, 2] on the first half turn, 3 + cos in [2, 4] on the second.
      const double x = (pa[0] * pb[0] + pa[1] * pb[1]) / r2;
      const double y = sigma * (pa[0] * pb[1] - pa[1] * pb[0]);
      score = -(y >= 0 ? 1 - x : 3 + x);
    }
    const bool better = best_sigma == 0 || (valid && !best_valid) || (valid == best_valid && score > best_score);
    if (better) {
      best_sigma = sigma;
      best_score = score;
      best_valid = valid;
      copy2(best_ta, pa);
      copy2(best_tb, pb);
    }
  }
  copy2(ta, best_ta);
  copy2(tb, best_tb);
  // The arc angle from ta to tb turning by sigma, in [0, 2 pi).
  double arc = std::atan2(best_sigma * (ta[0] * tb[1] - ta[1] * tb[0]), ta[0] * tb[0] + ta[1] * tb[1]);
  if (arc < 0) arc += kTwoPi;
  return r * arc;
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
    len = wrap_circle(a, b, radius, side ? s2 : nullptr, side && s2[0] * s2[0] + s2[1] * s2[1] < radius * radius, ta, tb);
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
    const double arc =
        wrap_circle(a, b, radius, side ? s2 : nullptr, side && s[0] * s[0] + s[1] * s[1] < radius * radius, ta, tb);
    if (arc < 0) return -1;
    const double L0 = std::sqrt((a[0] - ta[0]) * (a[0] - ta[0]) + (a[1] - ta[1]) * (a[1] - ta[1]));
    const double L1 = std::sqrt((b[0] - tb[0]) * (b[0] - tb[0]) + (b[1] - tb[1]) * (b[1] - tb[1]));
    const double total = L0 + arc + L1;
    if (total < kEps) return -1;
    const double dz = p1[2] - p0[2];
    l0[0] = ta[0]; l0[1] = ta[1]; l0[2] = p0[2] + dz * L0 / total;
    l1[0] = tb[0]; l1[1] = tb[1]; l1[2] = p0[2] + dz * (L0 + arc) / total;
    len = std::sqrt(arc * arc + (l1[2] - l0[2]) * (l1[2] - l0[2]));
  }

  // Back to the world frame.
  mulmatvec3(t0, mat, l0);
  add3(t0, t0, pos);
  mulmatvec3(t1, mat, l1);
  add3(t1, t1, pos);
  return len;
}

}  // namespace moreau::tendon_detail

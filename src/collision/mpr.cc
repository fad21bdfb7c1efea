// Minkowski Portal Refinement on the Minkowski difference A - B.
//
// A point of A - B is stored with the two support points it came from, so that the contact
// position can be recovered from barycentric coordinates at the end. Phase 1 finds a portal (a
// triangle v1 v2 v3 that the ray from the interior point v0 towards the origin passes through),
// phase 2 refines it until the origin is inside the tetrahedron v0..v3 (intersection) or provably
// outside, phase 3 refines the portal further towards the surface of A - B nearest the origin.
#include "collision/mpr.h"

#include <cmath>

#include "math/vec.h"

namespace moreau::col {
namespace {

using namespace math;

struct SPoint {
  double v[3];   // a - b
  double a[3];   // support point on A
  double b[3];   // support point on B
};

struct Ctx {
  const MprShape& A;
  const MprShape& B;
  // support of A - B in direction d: sA(d) - sB(-d)
  void support(const double* d, SPoint& p) const {
    double nd[3] = {-d[0], -d[1], -d[2]};
    A.support(A.shape, d, p.a);
    B.support(B.shape, nd, p.b);
    sub3(p.v, p.a, p.b);
  }
};

// Zero and equality tests at double-precision epsilon (absolute, then relative).
bool is_zero(double x) { return std::fabs(x) < 2.220446049250313e-16; }
bool eq(double a, double b) {
  const double ab = std::fabs(a - b);
  if (ab < 2.220446049250313e-16) return true;
  const double m = std::max(std::fabs(a), std::fabs(b));
  return ab < 2.220446049250313e-16 * m;
}

void tri_normal(const SPoint* p, double* dir) {  // normal of (v1, v2, v3), towards outside
  double e1[3], e2[3];
  sub3(e1, p[2].v, p[1].v);
  sub3(e2, p[3].v, p[1].v);
  cross3(dir, e1, e2);
  normalize3(dir);
}

// Squared distance of point P to triangle (x0, x1, x2); witness = closest point on the triangle.
double point_tri_dist2(const double* P, const double* x0, const double* B, const double* C, double* witness) {
  // Minimize |x0 + s d1 + t d2 - P|^2 over the triangle (Eberly's region method).
  double d1[3], d2[3], a[3];
  sub3(d1, B, x0);
  sub3(d2, C, x0);
  sub3(a, x0, P);
  const double u = dot3(a, a), v = dot3(d1, d1), w = dot3(d2, d2), p = dot3(a, d1), q = dot3(a, d2),
               r = dot3(d1, d2);
  const double det = v * w - r * r;
  double s = (q * r - w * p) / det, t = (-s * r - q) / w;
  (void)u;
  auto at = [&](double ss, double tt, double* out) {
    for (int k = 0; k < 3; ++k) out[k] = x0[k] + ss * d1[k] + tt * d2[k];
  };
  double x[3];
  if ((is_zero(s) || s > 0) && (eq(s, 1) || s < 1) && (is_zero(t) || t > 0) && (eq(t, 1) || t < 1) &&
      (eq(t + s, 1) || t + s < 1)) {
    at(s, t, x);
    if (witness) copy3(witness, x);
    double dd[3];
    sub3(dd, x, P);
    return dot3(dd, dd);
  }
  // closest point on one of the three edges
  auto seg = [&](const double* s0, const double* s1, double* out) {
    double e[3], f[3];
    sub3(e, s1, s0);
    sub3(f, P, s0);
    double tt = dot3(f, e) / dot3(e, e);
    if (tt < 0) tt = 0;
    if (tt > 1) tt = 1;
    for (int k = 0; k < 3; ++k) out[k] = s0[k] + tt * e[k];
    double dd[3];
    sub3(dd, out, P);
    return dot3(dd, dd);
  };
  double w0[3], w1[3], w2[3];
  double dist = seg(x0, B, w0);
  double dist2 = seg(x0, C, w1);
  double best = dist;
  const double* wb = w0;
  if (dist2 < best) { best = dist2; wb = w1; }
  dist2 = seg(B, C, w2);
  if (dist2 < best) { best = dist2; wb = w2; }
  if (witness) copy3(witness, wb);
  return best;
}

bool reach_tolerance(const SPoint* portal, const SPoint& v4, const double* dir, double tol) {
  const double dv1 = dot3(portal[1].v, dir), dv2 = dot3(portal[2].v, dir), dv3 = dot3(portal[3].v, dir),
               dv4 = dot3(v4.v, dir);
  double m = dv4 - dv1;
  m = std::min(m, dv4 - dv2);
  m = std::min(m, dv4 - dv3);
  return eq(m, tol) || m < tol;
}

void expand(SPoint* portal, const SPoint& v4) {
  double v4v0[3];
  cross3(v4v0, v4.v, portal[0].v);
  if (dot3(portal[1].v, v4v0) > 0) {
    if (dot3(portal[2].v, v4v0) > 0) portal[1] = v4;
    else portal[3] = v4;
  } else {
    if (dot3(portal[3].v, v4v0) > 0) portal[2] = v4;
    else portal[1] = v4;
  }
}

// Contact position: the origin's barycentric coordinates in the tetrahedron v0..v3, applied to the
// support points of A and B; the midpoint of the two.
void find_pos(const SPoint* portal, double* pos) {
  double dir[3], vec[3], b[4];
  tri_normal(portal, dir);
  cross3(vec, portal[1].v, portal[2].v);
  b[0] = dot3(vec, portal[3].v);
  cross3(vec, portal[3].v, portal[2].v);
  b[1] = dot3(vec, portal[0].v);
  cross3(vec, portal[0].v, portal[1].v);
  b[2] = dot3(vec, portal[3].v);
  cross3(vec, portal[2].v, portal[1].v);
  b[3] = dot3(vec, portal[0].v);
  double sum = b[0] + b[1] + b[2] + b[3];
  if (is_zero(sum) || sum < 0) {
    b[0] = 0;
    cross3(vec, portal[2].v, portal[3].v);
    b[1] = dot3(vec, dir);
    cross3(vec, portal[3].v, portal[1].v);
    b[2] = dot3(vec, dir);
    cross3(vec, portal[1].v, portal[2].v);
    b[3] = dot3(vec, dir);
    sum = b[1] + b[2] + b[3];
  }
  const double inv = 1.0 / sum;
  double p1[3] = {0, 0, 0}, p2[3] = {0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    addscl3(p1, portal[i].a, b[i]);
    addscl3(p2, portal[i].b, b[i]);
  }
  for (int k = 0; k < 3; ++k) pos[k] = 0.5 * (p1[k] + p2[k]) * inv;
}

// Phase 1. Returns -1: no intersection, 0: portal found, 1: origin touches v1 (on the segment
// v0-v1 end), 2: origin on the segment v0-v1.
int discover_portal(const Ctx& c, SPoint* portal) {
  SPoint& v0 = portal[0];
  for (int k = 0; k < 3; ++k) {
    v0.a[k] = c.A.center[k];
    v0.b[k] = c.B.center[k];
  }
  sub3(v0.v, v0.a, v0.b);
  if (is_zero(v0.v[0]) && is_zero(v0.v[1]) && is_zero(v0.v[2])) v0.v[0] += 1e-5;  // centres coincide

  double dir[3] = {-v0.v[0], -v0.v[1], -v0.v[2]};
  normalize3(dir);
  c.support(dir, portal[1]);
  if (dot3(portal[1].v, dir) <= 0) return -1;

  cross3(dir, v0.v, portal[1].v);
  if (is_zero(dir[0]) && is_zero(dir[1]) && is_zero(dir[2])) {
    if (is_zero(portal[1].v[0]) && is_zero(portal[1].v[1]) && is_zero(portal[1].v[2])) return 1;
    return 2;
  }
  normalize3(dir);
  c.support(dir, portal[2]);
  if (dot3(portal[2].v, dir) <= 0) return -1;

  double va[3], vb[3];
  sub3(va, portal[1].v, v0.v);
  sub3(vb, portal[2].v, v0.v);
  cross3(dir, va, vb);
  normalize3(dir);
  if (dot3(dir, v0.v) > 0) {
    const SPoint t = portal[1];
    portal[1] = portal[2];
    portal[2] = t;
    scl3(dir, dir, -1);
  }
  while (true) {
    c.support(dir, portal[3]);
    if (dot3(portal[3].v, dir) <= 0) return -1;
    cross3(va, portal[1].v, portal[3].v);
    if (dot3(va, v0.v) < 0) {
      portal[2] = portal[3];
      sub3(va, portal[1].v, v0.v);
      sub3(vb, portal[3].v, v0.v);
      cross3(dir, va, vb);
      normalize3(dir);
      continue;
    }
    cross3(va, portal[3].v, portal[2].v);
    if (dot3(va, v0.v) < 0) {
      portal[1] = portal[3];
      sub3(va, portal[3].v, v0.v);
      sub3(vb, portal[2].v, v0.v);
      cross3(dir, va, vb);
      normalize3(dir);
      continue;
    }
    return 0;
  }
}

// Phase 2: true if the origin is inside.
bool refine_portal(const Ctx& c, SPoint* portal, double tol) {
  double dir[3];
  while (true) {
    tri_normal(portal, dir);
    const double dv = dot3(dir, portal[1].v);
    if (is_zero(dv) || dv > 0) return true;  // the portal encapsulates the origin
    SPoint v4;
    c.support(dir, v4);
    if (!(is_zero(dot3(v4.v, dir)) || dot3(v4.v, dir) > 0) || reach_tolerance(portal, v4, dir, tol))
      return false;
    expand(portal, v4);
  }
}

}  // namespace

bool mpr_penetration(const MprShape& a, const MprShape& b, double tolerance, int max_iterations,
                     double* depth, double* dir, double* pos) {
  Ctx c{a, b};
  SPoint portal[4];
  const int res = discover_portal(c, portal);
  if (res < 0) return false;
  if (res == 1) {  // touching at v1
    *depth = 0;
    zero3(dir);
    dir[0] = 1;
    for (int k = 0; k < 3; ++k) pos[k] = 0.5 * (portal[1].a[k] + portal[1].b[k]);
    return true;
  }
  if (res == 2) {  // origin on the segment v0-v1
    for (int k = 0; k < 3; ++k) pos[k] = 0.5 * (portal[1].a[k] + portal[1].b[k]);
    copy3(dir, portal[1].v);
    *depth = normalize3(dir);
    return true;
  }
  if (!refine_portal(c, portal, tolerance)) return false;

  // Phase 3: refine towards the surface nearest the origin.
  int it = 0;
  while (true) {
    double pdir[3];
    tri_normal(portal, pdir);
    SPoint v4;
    c.support(pdir, v4);
    if (reach_tolerance(portal, v4, pdir, tolerance) || it > max_iterations) {
      static const double origin[3] = {0, 0, 0};
      double witness[3];
      *depth = std::sqrt(point_tri_dist2(origin, portal[1].v, portal[2].v, portal[3].v, witness));
      copy3(dir, witness);  // direction of the portal point nearest the origin
      normalize3(dir);
      find_pos(portal, pos);
      return true;
    }
    expand(portal, v4);
    ++it;
  }
}

}  // namespace moreau::col

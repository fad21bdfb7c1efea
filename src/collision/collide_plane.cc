// Plane vs primitive. Planes are infinite for collision (size is for rendering only); the normal is
// the plane's local z axis and points from the plane (geom1) to the other geom (geom2). Each contact
// lies on the deepest feature of geom2, at pos = point - normal*dist/2 (midway to the plane).
#include "collision/narrowphase.h"

namespace moreau::col {
namespace {

struct Plane {
  double n[3];
  const double* o;
};
Plane plane_of(const GeomPose& p) {
  Plane pl;
  axis_of(pl.n, p.mat, 2);
  pl.o = p.pos;
  return pl;
}
double plane_dist(const Plane& pl, const double* x) {
  double t[3];
  math::sub3(t, x, pl.o);
  return math::dot3(pl.n, t);
}
// Adds the contact of world point x (on geom2) if within margin.
bool add_point(const Plane& pl, const double* x, double margin, ContactPoint& c) {
  const double dist = plane_dist(pl, x);
  if (dist > margin) return false;
  double pos[3];
  math::copy3(pos, x);
  math::addscl3(pos, pl.n, -0.5 * dist);
  set_point(c, dist, pos, pl.n);
  return true;
}

}  // namespace

int plane_sphere(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const Plane pl = plane_of(geom_pose(m, d, g1));
  const GeomPose s = geom_pose(m, d, g2);
  // the sphere's deepest point is its centre moved by -r along the normal
  double x[3];
  math::copy3(x, s.pos);
  math::addscl3(x, pl.n, -s.size[0]);
  return add_point(pl, x, margin, out[0]) ? 1 : 0;
}

int plane_capsule(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  // The two end spheres; the capsule axis is offered as first tangent so that both contacts share a
  // frame aligned with the capsule (2.2.2 does the same).
  const Plane pl = plane_of(geom_pose(m, d, g1));
  const GeomPose c = geom_pose(m, d, g2);
  double ax[3];
  axis_of(ax, c.mat, 2);
  int n = 0;
  for (int end = 0; end < 2; ++end) {
    double x[3];
    math::copy3(x, c.pos);
    math::addscl3(x, ax, end == 0 ? c.size[1] : -c.size[1]);
    math::addscl3(x, pl.n, -c.size[0]);
    if (add_point(pl, x, margin, out[n])) {
      math::copy3(out[n].frame + 3, ax);
      ++n;
    }
  }
  return n;
}

int plane_ellipsoid(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  // Support point of the ellipsoid x'diag(1/r^2)x = 1 in direction -n: x = -D^2 n / |D n|, D = diag(r).
  const Plane pl = plane_of(geom_pose(m, d, g1));
  const GeomPose e = geom_pose(m, d, g2);
  double nl[3], xl[3], x[3];
  math::mulmatTvec3(nl, e.mat, pl.n);
  double den = 0;
  for (int k = 0; k < 3; ++k) den += e.size[k] * e.size[k] * nl[k] * nl[k];
  den = std::sqrt(den);
  if (den < kMinVal) return 0;
  for (int k = 0; k < 3; ++k) xl[k] = -e.size[k] * e.size[k] * nl[k] / den;
  to_world(x, e, xl);
  return add_point(pl, x, margin, out[0]) ? 1 : 0;
}

int plane_cylinder(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  // Deepest rim point of the disk nearer the plane; the same rim point on the other disk (a lying
  // cylinder rests on a line); and the two rim points at +-120 degrees on the near disk (an upright
  // cylinder rests on its disk: three points make the support stable).
  const Plane pl = plane_of(geom_pose(m, d, g1));
  const GeomPose c = geom_pose(m, d, g2);
  const double r = c.size[0], h = c.size[1];
  double nl[3];
  math::mulmatTvec3(nl, c.mat, pl.n);
  const double zd = nl[2] > 0 ? -h : h;  // the disk nearer the plane
  double vx = -nl[0], vy = -nl[1];
  const double vn = std::sqrt(vx * vx + vy * vy);
  if (vn < kMinVal) { vx = 1; vy = 0; } else { vx /= vn; vy /= vn; }
  const double c120 = -0.5, s120 = std::sqrt(3.0) / 2;
  const double pts[4][3] = {{r * vx, r * vy, zd},
                            {r * vx, r * vy, -zd},
                            {r * (c120 * vx - s120 * vy), r * (s120 * vx + c120 * vy), zd},
                            {r * (c120 * vx + s120 * vy), r * (-s120 * vx + c120 * vy), zd}};
  int n = 0;
  for (const auto& pl_local : pts) {
    double x[3];
    to_world(x, c, pl_local);
    if (add_point(pl, x, margin, out[n])) ++n;
  }
  return n;
}

int plane_box(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  // The corners on the plane's side of the box centre (the deeper corner of each antipodal pair,
  // i.e. the four deepest), within margin, in corner order (bit k of i set: +size[k]). These are
  // the corners 2.2.2 reports.
  const Plane pl = plane_of(geom_pose(m, d, g1));
  const GeomPose b = geom_pose(m, d, g2);
  double nl[3];
  math::mulmatTvec3(nl, b.mat, pl.n);
  int n = 0;
  for (int i = 0; i < 8 && n < 4; ++i) {
    const double xl[3] = {(i & 1) ? b.size[0] : -b.size[0], (i & 2) ? b.size[1] : -b.size[1],
                          (i & 4) ? b.size[2] : -b.size[2]};
    if (math::dot3(xl, nl) > 0) continue;  // above the centre: its antipode is deeper
    double x[3];
    to_world(x, b, xl);
    if (add_point(pl, x, margin, out[n])) ++n;
  }
  return n;
}

}  // namespace moreau::col

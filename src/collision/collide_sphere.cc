// Sphere-based pairs: sphere-sphere, sphere-capsule, capsule-capsule (a capsule is a sphere swept
// along a segment, so these reduce to closest points of points/segments and one sphere-sphere test),
// sphere-cylinder and sphere-box (closest point on the solid, or least-penetration face when inside).
#include <algorithm>

#include "collision/narrowphase.h"

namespace moreau::col {

int sphere_sphere_raw(const double* c1, double r1, const double* c2, double r2, double margin,
                      ContactPoint* out, const double* fallback) {
  double n[3];
  math::sub3(n, c2, c1);
  const double len = math::norm3(n);
  const double dist = len - r1 - r2;
  if (dist > margin) return 0;
  if (len < kMinVal) {
    if (fallback) math::copy3(n, fallback);
    else { n[0] = 1; n[1] = n[2] = 0; }
  } else {
    math::scl3(n, n, 1.0 / len);
  }
  double pos[3];
  math::copy3(pos, c1);
  math::addscl3(pos, n, r1 + 0.5 * dist);
  set_point(out[0], dist, pos, n);
  return 1;
}

void segment_segment(const double* p1, const double* u1, double h1, const double* p2,
                     const double* u2, double h2, double* s_out, double* t_out) {
  // Minimize |p1 + s u1 - p2 - t u2|^2 over the box [-h1,h1] x [-h2,h2] (Ericson, Real-Time
  // Collision Detection, 5.1.9), with unit directions.
  double r[3];
  math::sub3(r, p1, p2);
  const double b = math::dot3(u1, u2), c = math::dot3(u1, r), f = math::dot3(u2, r);
  const double denom = 1 - b * b;
  double s, t;
  if (denom > 1e-12) {
    s = std::clamp((b * f - c) / denom, -h1, h1);
  } else {
    // Parallel: every s in the overlap is optimal; take the midpoint of the overlap of segment 2
    // projected onto segment 1, so that the contact sits in the middle of the line contact.
    const double lo = std::max(-h1, -c - h2 * std::fabs(b)), hi = std::min(h1, -c + h2 * std::fabs(b));
    s = lo <= hi ? 0.5 * (lo + hi) : std::clamp(-c, -h1, h1);
  }
  t = b * s + f;
  if (t < -h2) {
    t = -h2;
    s = std::clamp(b * t - c, -h1, h1);
  } else if (t > h2) {
    t = h2;
    s = std::clamp(b * t - c, -h1, h1);
  }
  *s_out = s;
  *t_out = t;
}

int sphere_sphere(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const GeomPose a = geom_pose(m, d, g1), b = geom_pose(m, d, g2);
  return sphere_sphere_raw(a.pos, a.size[0], b.pos, b.size[0], margin, out);
}

int sphere_capsule(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const GeomPose s = geom_pose(m, d, g1), c = geom_pose(m, d, g2);
  double u[3], v[3], q[3];
  axis_of(u, c.mat, 2);
  math::sub3(v, s.pos, c.pos);
  const double t = std::clamp(math::dot3(u, v), -c.size[1], c.size[1]);
  math::copy3(q, c.pos);
  math::addscl3(q, u, t);
  return sphere_sphere_raw(s.pos, s.size[0], q, c.size[0], margin, out);
}

int capsule_capsule(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const GeomPose a = geom_pose(m, d, g1), b = geom_pose(m, d, g2);
  double u1[3], u2[3], s, t, q1[3], q2[3];
  axis_of(u1, a.mat, 2);
  axis_of(u2, b.mat, 2);
  // Exactly parallel axes (measured on 2.2.2, capsules on parallel axes at several axial offsets,
  // both orientations): the four segment ends are tested in the order +end of geom1,
  // -end of geom1, +end of geom2, -end of geom2, each as a sphere against the closest point of the
  // other segment, and the first two within the margin are reported (so, e.g., an end of geom1 may
  // give a slanted normal where it overhangs the end of geom2).
  const double bb = math::dot3(u1, u2);
  if (1 - bb * bb <= 1e-12) {
    int n = 0;
    for (int e = 0; e < 4 && n < 2; ++e) {
      const bool first = e < 2;
      const double sg = (e % 2 == 0) ? 1.0 : -1.0;
      const GeomPose& g = first ? a : b;
      const GeomPose& o = first ? b : a;
      const double* ug = first ? u1 : u2;
      const double* uo = first ? u2 : u1;
      double pe[3], r[3], po[3];
      math::copy3(pe, g.pos);
      math::addscl3(pe, ug, sg * g.size[1]);
      math::sub3(r, pe, o.pos);
      const double tt = std::clamp(math::dot3(r, uo), -o.size[1], o.size[1]);
      math::copy3(po, o.pos);
      math::addscl3(po, uo, tt);
      n += first ? sphere_sphere_raw(pe, a.size[0], po, b.size[0], margin, out + n)
                 : sphere_sphere_raw(po, a.size[0], pe, b.size[0], margin, out + n);
    }
    return n;
  }
  segment_segment(a.pos, u1, a.size[1], b.pos, u2, b.size[1], &s, &t);
  math::copy3(q1, a.pos);
  math::addscl3(q1, u1, s);
  math::copy3(q2, b.pos);
  math::addscl3(q2, u2, t);
  return sphere_sphere_raw(q1, a.size[0], q2, b.size[0], margin, out);
}

namespace {
// Contact of a sphere (centre c, radius rad, both in the local frame of geom g2) with the solid whose
// closest point to c is q (outside) or, when c is inside, whose least-penetration direction is
// `out_dir` (unit, local, pointing from c out of the solid) at depth `depth`.
int sphere_solid(const GeomPose& g2, const double* c, double rad, const double* q, bool inside,
                 const double* out_dir, double depth, double margin, ContactPoint* out) {
  double nl[3], dist;
  if (!inside) {
    math::sub3(nl, q, c);
    const double len = math::norm3(nl);
    dist = len - rad;
    if (dist > margin) return 0;
    if (len < kMinVal) return 0;  // cannot happen: outside means len > 0
    math::scl3(nl, nl, 1.0 / len);
  } else {
    // The sphere leaves the solid along out_dir, so the normal (sphere -> solid) is -out_dir.
    // The position is midway between the sphere's surface and the solid's face; the distance is
    // reported as -rad (centre on the surface), as 2.2.2 reports it for a centre inside a box.
    math::scl3(nl, out_dir, -1);
    dist = -depth - rad;
    double pl[3], n[3], pos[3];
    math::copy3(pl, c);
    math::addscl3(pl, nl, rad + 0.5 * dist);
    to_world(pos, g2, pl);
    dir_to_world(n, g2, nl);
    set_point(out[0], -rad, pos, n);
    return 1;
  }
  double pl[3], n[3], pos[3];
  math::copy3(pl, c);
  math::addscl3(pl, nl, rad + 0.5 * dist);
  to_world(pos, g2, pl);
  dir_to_world(n, g2, nl);
  set_point(out[0], dist, pos, n);
  return 1;
}
}  // namespace

int sphere_box(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const GeomPose s = geom_pose(m, d, g1), b = geom_pose(m, d, g2);
  double c[3], q[3];
  to_local(c, b, s.pos);
  bool inside = true;
  for (int k = 0; k < 3; ++k) {
    q[k] = std::clamp(c[k], -b.size[k], b.size[k]);
    if (q[k] != c[k]) inside = false;
  }
  double dir[3] = {0, 0, 0}, depth = 0;
  if (inside) {
    int kmin = 0;
    depth = b.size[0] - std::fabs(c[0]);
    for (int k = 1; k < 3; ++k)
      if (b.size[k] - std::fabs(c[k]) < depth) { depth = b.size[k] - std::fabs(c[k]); kmin = k; }
    dir[kmin] = c[kmin] < 0 ? -1 : 1;
  }
  return sphere_solid(b, c, s.size[0], q, inside, dir, depth, margin, out);
}

int sphere_cylinder(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const GeomPose s = geom_pose(m, d, g1), cy = geom_pose(m, d, g2);
  const double r = cy.size[0], h = cy.size[1];
  double c[3], q[3];
  to_local(c, cy, s.pos);
  const double rho = std::sqrt(c[0] * c[0] + c[1] * c[1]);
  const bool out_side = rho > r, out_cap = std::fabs(c[2]) > h;
  q[0] = out_side ? c[0] * r / rho : c[0];
  q[1] = out_side ? c[1] * r / rho : c[1];
  q[2] = std::clamp(c[2], -h, h);
  const bool inside = !out_side && !out_cap;
  double dir[3] = {0, 0, 0}, depth = 0;
  if (inside) {
    const double dside = r - rho, dcap = h - std::fabs(c[2]);
    if (dside < dcap) {
      depth = dside;
      if (rho < kMinVal) dir[0] = 1;
      else { dir[0] = c[0] / rho; dir[1] = c[1] / rho; }
    } else {
      depth = dcap;
      dir[2] = c[2] < 0 ? -1 : 1;
    }
  }
  return sphere_solid(cy, c, s.size[0], q, inside, dir, depth, margin, out);
}

}  // namespace moreau::col

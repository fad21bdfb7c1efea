// Convex objects for MPR (libccd) and the general convex narrow phase: pairs among sphere,
// capsule, ellipsoid, cylinder, box and mesh that 2.2.2 hands to libccd (the analytic pairs keep
// their own functions, see driver.cc).
#include "collision/convex.h"

#include <ccd/ccd.h>

#include <algorithm>
#include <cmath>

#include "collision/narrowphase.h"

namespace moreau::col {
namespace {

double sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

// R' v and R v with the summation order of 2.2.2 (row by row, left to right).
void mul_mat_t_vec(double* r, const double* R, const double* v) {
  for (int i = 0; i < 3; ++i) r[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}
void mul_mat_vec(double* r, const double* R, const double* v) {
  for (int i = 0; i < 3; ++i) r[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

// Unit vector by multiplication with the reciprocal norm; (1, 0, 0) below 1e-15 (as 2.2.2).
void normalize_or_x(double* v) {
  const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n < kMinVal) {
    v[0] = 1;
    v[1] = v[2] = 0;
    return;
  }
  const double s = 1 / n;
  v[0] *= s;
  v[1] *= s;
  v[2] *= s;
}

// Mesh vertex of largest l.v: on the hull graph, the vertex 2.2.2's climb from hull vertex 0
// reaches (it decides exact ties, which MPR's directions produce, perpendicular to hull edges;
// bit-identical to 2.2.2 on all of 65000 logged support calls of its MPR, meshes of 7, 327 and 501
// hull vertices), found from the previous support vertex of the same MPR run or else from the start
// table (hull.h). Without a graph: first maximum over all vertices.
int mesh_support_vertex(const ConvexObject& o, const double* l) {
  const Hull& h = o.hull;
  if (h.nhull) {
    auto climb = [&](auto vertex, int start) {
      return hull_support(
          h, l,
          [&](int i) {
            const auto* v = vertex(i);
            return v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
          },
          [&](int i) {
            const auto* v = vertex(i);
            return std::fabs(v[0] * l[0]) + std::fabs(v[1] * l[1]) + std::fabs(v[2] * l[2]);
          },
          start);
    };
    if (h.vert) {
      // the better of the table's start and the previous support vertex (MPR's first directions
      // jump, its later ones turn slowly)
      int start = h.start[hull_cell(l)];
      if (o.warm >= 0) {
        const double* a = h.vert + 3 * start;
        const double* b = h.vert + 3 * o.warm;
        if (b[0] * l[0] + b[1] * l[1] + b[2] * l[2] > a[0] * l[0] + a[1] * l[1] + a[2] * l[2]) start = o.warm;
      }
      o.warm = climb([&](int i) { return h.vert + 3 * i; }, start);
    } else {
      o.warm = climb([&](int i) { return o.vert + 3 * h.globalid[i]; }, o.warm >= 0 ? o.warm : 0);
    }
    return h.globalid[o.warm];
  }
  int besti = 0;
  double best = -1e300;
  for (int i = 0; i < o.nvert; ++i) {
    const float* v = o.vert + 3 * i;
    const double dd = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
    if (dd > best) {
      best = dd;
      besti = i;
    }
  }
  return besti;
}

void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  convex_support(*static_cast<const ConvexObject*>(obj), dir->v, out->v);
}
void ccd_center(const void* obj, ccd_vec3_t* out) { convex_center(*static_cast<const ConvexObject*>(obj), out->v); }

}  // namespace

ConvexObject convex_object(const Model& m, const Data& d, int g, double half_margin) {
  ConvexObject o;
  o.type = m.geom_type[g];
  o.pos = &d.geom_xpos[3 * g];
  o.mat = &d.geom_xmat[9 * g];
  o.size = &m.geom_size[3 * g];
  o.margin = half_margin;
  if (o.type == kGeomMesh) {
    const int id = m.geom_dataid[g];
    o.vert = &m.mesh_vert[3 * static_cast<size_t>(m.mesh_vertadr[id])];
    o.nvert = m.mesh_vertnum[id];
    o.hull = mesh_hull(m, d, id);
  }
  return o;
}

void convex_support(const ConvexObject& o, const double* dir, double* out) {
  double p[3] = {0, 0, 0};
  if (o.type == kGeomHField) {
    // prism vertex of largest dir.v (first maximum), in the field's frame, among the bottom corners
    // where dir_z < 0 and the top corners otherwise (dir_z = 0 or -0 included). As 2.2.2: probing
    // its prism support function directly (20000 directions) shows this split even where dir_z is
    // ~1e-17 and the dot products of a top and a bottom corner round to the same value; a plain
    // maximum over all six picked the top there, and MPR, whose portal normals are horizontal to
    // rounding against the prisms' vertical walls, then ended elsewhere (cylinders at margin 0)
    int best = dir[2] < 0 ? 3 : 0;
    double bestdot = -1e300;
    for (int i = best, end = best + 3; i < end; ++i) {
      const double dot = o.prism[i][0] * dir[0] + o.prism[i][1] * dir[1] + o.prism[i][2] * dir[2];
      if (dot > bestdot) {
        bestdot = dot;
        best = i;
      }
    }
    for (int k = 0; k < 3; ++k) out[k] = o.prism[best][k] + o.margin * dir[k];
    return;
  }
  double l[3];
  mul_mat_t_vec(l, o.mat, dir);
  const double* s = o.size;
  switch (o.type) {
    case kGeomSphere:
      for (int k = 0; k < 3; ++k) p[k] = s[0] * l[k];
      break;
    case kGeomCapsule:
      for (int k = 0; k < 3; ++k) p[k] = s[0] * l[k];
      p[2] += sign(l[2]) * s[1];
      break;
    case kGeomEllipsoid: {
      double t[3] = {s[0] * l[0], s[1] * l[1], s[2] * l[2]};
      normalize_or_x(t);
      for (int k = 0; k < 3; ++k) p[k] = s[k] * t[k];
      break;
    }
    case kGeomCylinder: {
      const double n = std::sqrt(l[0] * l[0] + l[1] * l[1]);
      if (n > kMinVal) {
        p[0] = l[0] / n * s[0];
        p[1] = l[1] / n * s[0];
      }
      p[2] = sign(l[2]) * s[1];
      break;
    }
    case kGeomBox:
      for (int k = 0; k < 3; ++k) p[k] = sign(l[k]) * s[k];
      break;
    case kGeomMesh: {
      const float* v = o.vert + 3 * mesh_support_vertex(o, l);
      for (int k = 0; k < 3; ++k) p[k] = v[k];
      break;
    }
    default:
      break;
  }
  for (int k = 0; k < 3; ++k) p[k] += o.margin * l[k];
  mul_mat_vec(out, o.mat, p);
  for (int k = 0; k < 3; ++k) out[k] += o.pos[k];
}

void convex_center(const ConvexObject& o, double* out) {
  if (o.type == kGeomHField) math::copy3(out, o.prism_center);
  else math::copy3(out, o.pos);
}

bool convex_penetration(const Model& m, const ConvexObject& o1, const ConvexObject& o2, double* depth,
                        double* dir, double* pos) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd_support;
  ccd.support2 = ccd_support;
  ccd.center1 = ccd_center;
  ccd.center2 = ccd_center;
  ccd.max_iterations = static_cast<unsigned long>(m.opt.mpr_iterations);
  ccd.mpr_tolerance = m.opt.mpr_tolerance;
  ccd_real_t dep = 0;
  ccd_vec3_t vdir, vpos;
  if (ccdMPRPenetration(&o1, &o2, &ccd, &dep, &vdir, &vpos) != 0) return false;
  // MPR reports exactly touching shapes with a zero direction; 2.2.2 drops such frameless
  // contacts (its collision_convex/frameless_contact*.xml tests: 0 contacts where MPR answers so)
  if (vdir.v[0] * vdir.v[0] + vdir.v[1] * vdir.v[1] + vdir.v[2] * vdir.v[2] < kMinVal) return false;
  *depth = dep;
  math::copy3(dir, vdir.v);
  math::copy3(pos, vpos.v);
  return true;
}

namespace {

constexpr int kEllipsoidMaxIter = 30;
constexpr double kEllipsoidTol = 1e-6;

// Outward normal of the ellipsoid with semi-axes s near local point p (unnormalized), as 2.2.2
// computes it: an approximation of the normal at the surface point nearest to p, by one of two
// iterations that stop early (measured on 2.2.2, ellipsoid against box; docs/notes/convex_mpr.md):
//   - p outside (sum p_k^2 / s_k^2 > 1, a contact within the margin): Newton's method on the
//     Lagrange multiplier l of the nearest point x = s^2 p / (s^2 + l), i.e. on
//     f(l) = sum p_k^2 s_k^2 / (s_k^2 + l)^2 - 1 from l = 0; a step dl = -f/f' below 1e-6 in
//     magnitude is not taken and ends it, as does the 30th step; normal p / (s^2 + l).
//   - p inside: from MPR's direction d (local, outward), repeat: x = the point where the ray
//     p + t d (t > 0) leaves the ellipsoid, g = unit gradient x / s^2 there; stop when
//     |g - d| < 1e-6 (Euclidean) or after 30 gradients; else d = g. The normal is the last g.
//     The cap matters in deep states (the ray iteration converges slowly near the medial plane):
//     2.2.2's normal is then far from the nearest point's, at times on the far side of the medial
//     plane.
void ellipsoid_normal(const double* s, const double* p, const double* mat, const double* mpr_dir, double* n) {
  double F = 0;
  for (int k = 0; k < 3; ++k) F += p[k] * p[k] / (s[k] * s[k]);
  if (F > 1) {
    double l = 0;
    for (int it = 0; it < kEllipsoidMaxIter; ++it) {
      double f = -1, df = 0;
      for (int k = 0; k < 3; ++k) {
        const double s2 = s[k] * s[k], q = s2 + l;
        f += p[k] * p[k] * s2 / (q * q);
        df -= 2 * p[k] * p[k] * s2 / (q * q * q);
      }
      const double dl = -f / df;
      if (!(std::fabs(dl) >= kEllipsoidTol)) break;  // (also stops on a NaN step)
      l += dl;
    }
    for (int k = 0; k < 3; ++k) n[k] = p[k] / (s[k] * s[k] + l);
    return;
  }
  double d[3], g[3];
  mul_mat_t_vec(d, mat, mpr_dir);
  math::normalize3(d);
  for (int it = 0; it < kEllipsoidMaxIter; ++it) {
    double A = 0, B = 0, C = -1;
    for (int k = 0; k < 3; ++k) {
      const double s2 = s[k] * s[k];
      A += d[k] * d[k] / s2;
      B += p[k] * d[k] / s2;
      C += p[k] * p[k] / s2;
    }
    const double t = (-B + std::sqrt(std::max(0.0, B * B - A * C))) / A;
    for (int k = 0; k < 3; ++k) g[k] = (p[k] + t * d[k]) / (s[k] * s[k]);
    math::normalize3(g);
    double change = 0;
    for (int k = 0; k < 3; ++k) change += (g[k] - d[k]) * (g[k] - d[k]);
    if (change < kEllipsoidTol * kEllipsoidTol) break;
    math::copy3(d, g);
  }
  math::copy3(n, g);
}

// Outward normal of a smooth geom at (near) world point p; false for types without one.
bool surface_normal(const ConvexObject& o, const double* p, const double* mpr_dir, double* n) {
  if (o.type != kGeomSphere && o.type != kGeomCapsule && o.type != kGeomCylinder && o.type != kGeomEllipsoid)
    return false;
  double v[3], pl[3], nl[3] = {0, 0, 0};
  math::sub3(v, p, o.pos);
  mul_mat_t_vec(pl, o.mat, v);
  const double* s = o.size;
  switch (o.type) {
    case kGeomSphere:
      math::copy3(nl, pl);
      break;
    case kGeomCapsule:
      math::copy3(nl, pl);
      nl[2] -= std::clamp(pl[2], -s[1], s[1]);
      break;
    case kGeomCylinder: {
      // radial, for points beside the side wall away from the rims: as 2.2.2 (measured thresholds,
      // docs/notes/convex_mpr.md), none where |z| >= 0.95 h, nor where the point is not well
      // nearer the wall than the caps: |r - rho| >= 4 (h - |z|). The absolute value matters for
      // points outside the radius (rho > r: with a margin the contact point lies in the inflated
      // shell).
      const double rho = std::sqrt(pl[0] * pl[0] + pl[1] * pl[1]);
      if (!(std::fabs(pl[2]) < 0.95 * s[1])) return false;
      if (!(std::fabs(s[0] - rho) < 4 * (s[1] - std::fabs(pl[2])))) return false;
      nl[0] = pl[0];
      nl[1] = pl[1];
      break;
    }
    case kGeomEllipsoid:
      ellipsoid_normal(s, pl, o.mat, mpr_dir, nl);
      break;
    default:
      return false;
  }
  if (math::norm3(nl) < kMinVal) return false;
  math::normalize3(nl);
  mul_mat_vec(n, o.mat, nl);
  return true;
}

}  // namespace

void fix_normal(const ConvexObject& o1, const ConvexObject& o2, const double* pos, double* normal) {
  double n1[3], n2[3], neg[3] = {-normal[0], -normal[1], -normal[2]};
  const bool s1 = surface_normal(o1, pos, normal, n1), s2 = surface_normal(o2, pos, neg, n2);
  if (!s1 && !s2) return;
  if (!s1) math::zero3(n1);
  if (!s2) math::zero3(n2);
  double n[3];
  math::sub3(n, n1, n2);
  if (math::norm3(n) < kMinVal) return;
  math::normalize3(n);
  math::copy3(normal, n);
}

namespace {

// Multi-point convex collision (flag multiccd), as 2.2.2 does it (measured by logging 2.2.2's MPR
// calls on box/box-mesh, cylinder/box, capsule/mesh and cylinder/cylinder pairs). After the first contact (pos p, frame
// n, t1, t2), MPR runs four more times with geom 1 turned by -a, +a about t1, then -a, +a about
// t2 (a = 1e-3 rad, axes through p) and geom 2 turned by the opposite angle. Each answer is a
// candidate contact with its own position and (smooth-surface corrected) normal but the first
// contact's distance; it is kept when farther than 1e-3 min(rbound1, rbound2) from every
// contact kept so far. Pairs with a sphere or an ellipsoid, whose contact is a single point on
// a smooth surface, get no extra MPR calls.
constexpr double kMulticcdAngle = 1e-3;

bool multiccd_applies(const Model& m, const ConvexObject& o1, const ConvexObject& o2) {
  if (!(m.opt.enableflags & kEnblMulticcd)) return false;
  for (int t : {o1.type, o2.type})
    if (t == kGeomSphere || t == kGeomEllipsoid) return false;
  return true;
}

// o turned by angle about the unit axis through point c; pos and mat receive the new pose. The
// position moves by (rot - I)(pos - c), summed in this order: the turned centres then equal
// 2.2.2's to the bit (all 5700 logged in its MPR calls; p + rot (pos - p) differed by 1 ulp in 14%).
ConvexObject turned(const ConvexObject& o, const double* c, const double* axis, double angle, double* pos,
                    double* mat) {
  double q[4], rot[9], r[3], rr[3];
  math::axisangle2quat(q, axis, angle);
  math::quat2mat(rot, q);
  math::mulmatmat3(mat, rot, o.mat);
  math::sub3(r, o.pos, c);
  math::mulmatvec3(rr, rot, r);
  for (int k = 0; k < 3; ++k) pos[k] = o.pos[k] + (rr[k] - r[k]);
  ConvexObject t = o;
  t.pos = pos;
  t.mat = mat;
  return t;
}

int multiccd(const Model& m, int g1, int g2, const ConvexObject& o1, const ConvexObject& o2, double dist,
             ContactPoint* out) {
  double frame[9];
  math::copy3(frame, out[0].frame);
  for (int k = 3; k < 9; ++k) frame[k] = 0;
  make_frame(frame);
  const double tol = kMulticcdAngle * std::min(m.geom_rbound[g1], m.geom_rbound[g2]);
  int n = 1;
  for (int ax = 0; ax < 2; ++ax) {
    for (double sgn : {-1.0, 1.0}) {
      const double* axis = frame + 3 + 3 * ax;
      double pos1[3], mat1[9], pos2[3], mat2[9];
      const double angle = sgn * kMulticcdAngle;
      const ConvexObject r1 = turned(o1, out[0].pos, axis, angle, pos1, mat1);
      const ConvexObject r2 = turned(o2, out[0].pos, axis, -angle, pos2, mat2);
      double depth, dir[3], pos[3];
      if (!convex_penetration(m, r1, r2, &depth, dir, pos)) continue;
      bool fresh = true;
      for (int i = 0; i < n && fresh; ++i) {
        double v[3];
        math::sub3(v, pos, out[i].pos);
        fresh = math::norm3(v) > tol;
      }
      if (!fresh) continue;
      fix_normal(r1, r2, pos, dir);
      set_point(out[n++], dist, pos, dir);
    }
  }
  return n;
}

}  // namespace

int convex_convex(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const ConvexObject o1 = convex_object(m, d, g1, 0.5 * margin), o2 = convex_object(m, d, g2, 0.5 * margin);
  double depth, dir[3], pos[3];
  if (!convex_penetration(m, o1, o2, &depth, dir, pos)) return 0;
  fix_normal(o1, o2, pos, dir);
  set_point(out[0], margin - depth, pos, dir);
  if (!multiccd_applies(m, o1, o2)) return 1;
  return multiccd(m, g1, g2, o1, o2, margin - depth, out);
}

}  // namespace moreau::col

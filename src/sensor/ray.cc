// Ray casting against geoms (rangefinder sensor; mj_ray / mj_rayGeom). The ray is transformed into
// the geom's local frame, where each primitive has a closed-form intersection; the distance is the
// smallest non-negative ray parameter at which the ray meets the surface (so a ray starting inside
// a solid returns the exit distance). Meshes: every triangle (no acceleration structure yet).
// Height fields: base box and the triangulated surface under the ray.
#include <algorithm>
#include <cmath>

#include "engine/checks.h"
#include "math/vec.h"
#include "moreau/actuation.h"

namespace moreau {

using namespace math;

namespace {

// Smallest non-negative t with t^2 a + 2 t b + c = 0, or -1.
inline double quadratic_first(double a, double b, double c) {
  if (a < kMinVal) return -1;
  const double det = b * b - a * c;
  if (det < 0) return -1;
  const double sq = std::sqrt(det);
  const double t1 = (-b - sq) / a, t2 = (-b + sq) / a;
  if (t1 >= 0) return t1;
  if (t2 >= 0) return t2;
  return -1;
}
inline double closer(double best, double t) { return (t >= 0 && (best < 0 || t < best)) ? t : best; }

double ray_sphere(const double* p, const double* v, double r) {
  return quadratic_first(dot3(v, v), dot3(p, v), dot3(p, p) - r * r);
}

// Lateral surface of the cylinder x^2 + y^2 = r^2, |z| <= h.
double ray_cylinder_side(const double* p, const double* v, double r, double h) {
  const double a = v[0] * v[0] + v[1] * v[1];
  const double b = p[0] * v[0] + p[1] * v[1];
  const double c = p[0] * p[0] + p[1] * p[1] - r * r;
  if (a < kMinVal) return -1;
  const double det = b * b - a * c;
  if (det < 0) return -1;
  const double sq = std::sqrt(det);
  double best = -1;
  for (double t : {(-b - sq) / a, (-b + sq) / a})
    if (t >= 0 && std::fabs(p[2] + t * v[2]) <= h) best = closer(best, t);
  return best;
}

// Caps z = +-h with x^2 + y^2 <= r^2.
double ray_caps(const double* p, const double* v, double r, double h) {
  if (std::fabs(v[2]) < kMinVal) return -1;
  double best = -1;
  for (double z : {h, -h}) {
    const double t = (z - p[2]) / v[2];
    if (t < 0) continue;
    const double x = p[0] + t * v[0], y = p[1] + t * v[1];
    if (x * x + y * y <= r * r) best = closer(best, t);
  }
  return best;
}

double ray_box(const double* p, const double* v, const double* size) {
  double best = -1;
  for (int k = 0; k < 3; ++k) {
    if (std::fabs(v[k]) < kMinVal) continue;
    for (double side : {size[k], -size[k]}) {
      const double t = (side - p[k]) / v[k];
      if (t < 0) continue;
      const int i = (k + 1) % 3, j = (k + 2) % 3;
      if (std::fabs(p[i] + t * v[i]) <= size[i] && std::fabs(p[j] + t * v[j]) <= size[j])
        best = closer(best, t);
    }
  }
  return best;
}

// Plane z = 0, bounded by size[0], size[1] when positive (infinite otherwise). One-sided, as a
// plane geom is a half-space: only rays going down into it (from above) see it.
double ray_plane(const double* p, const double* v, const double* size) {
  if (v[2] > -kMinVal) return -1;
  const double t = -p[2] / v[2];
  if (t < 0) return -1;
  const double x = p[0] + t * v[0], y = p[1] + t * v[1];
  if ((size[0] <= 0 || std::fabs(x) <= size[0]) && (size[1] <= 0 || std::fabs(y) <= size[1])) return t;
  return -1;
}

// Triangle (v0, v1, v2), Moller-Trumbore: solve p + t v = v0 + u e1 + w e2 with u, w >= 0, u + w <= 1.
double ray_triangle(const double* p, const double* v, const double* v0, const double* v1, const double* v2) {
  double e1[3], e2[3], h[3], s[3], q[3];
  sub3(e1, v1, v0);
  sub3(e2, v2, v0);
  cross3(h, v, e2);
  const double a = dot3(e1, h);
  if (std::fabs(a) < kMinVal) return -1;  // parallel
  const double f = 1 / a;
  sub3(s, p, v0);
  const double u = f * dot3(s, h);
  if (u < 0 || u > 1) return -1;
  cross3(q, s, e1);
  const double w = f * dot3(v, q);
  if (w < 0 || u + w > 1) return -1;
  const double t = f * dot3(e2, q);
  return t >= 0 ? t : -1;
}

// All triangles of the mesh (vertices are in the geom's frame).
double ray_mesh(const Model& m, int meshid, const double* p, const double* v) {
  double best = -1;
  const float* vert = &m.mesh_vert[3 * static_cast<size_t>(m.mesh_vertadr[meshid])];
  const int* face = &m.mesh_face[3 * static_cast<size_t>(m.mesh_faceadr[meshid])];
  for (int f = 0; f < m.mesh_facenum[meshid]; ++f) {
    double tri[3][3];
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) tri[k][i] = vert[3 * face[3 * f + k] + i];
    best = closer(best, ray_triangle(p, v, tri[0], tri[1], tri[2]));
  }
  return best;
}

// Height field: the base box (from -size[3] up to 0) and the triangulated top surface
// z = data * size[2] over the grid x in [-size[0], size[0]], y in [-size[1], size[1]] (two
// triangles per cell). Only the cells under the part of the ray inside the bounding box are tested.
double ray_hfield(const Model& m, int hid, const double* p, const double* v) {
  const double* size = &m.hfield_size[4 * hid];
  const int nrow = m.hfield_nrow[hid], ncol = m.hfield_ncol[hid];
  const float* data = &m.hfield_data[m.hfield_adr[hid]];
  // Base box.
  const double pb[3] = {p[0], p[1], p[2] + 0.5 * size[3]};
  const double hb[3] = {size[0], size[1], 0.5 * size[3]};
  double best = ray_box(pb, v, hb);
  if (nrow < 2 || ncol < 2) return best;
  // Part of the ray inside the bounding box [-sx, sx] x [-sy, sy] x [-bottom, top] (slabs).
  const double lo[3] = {-size[0], -size[1], -size[3]}, hi[3] = {size[0], size[1], size[2]};
  double t0 = 0, t1 = 1e300;
  for (int k = 0; k < 3; ++k) {
    if (std::fabs(v[k]) < kMinVal) {
      if (p[k] < lo[k] || p[k] > hi[k]) return best;
      continue;
    }
    double ta = (lo[k] - p[k]) / v[k], tb = (hi[k] - p[k]) / v[k];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  if (t0 > t1) return best;
  const double dx = 2 * size[0] / (ncol - 1), dy = 2 * size[1] / (nrow - 1);
  auto cell = [](double x, double lo, double d, int n) {
    const int c = static_cast<int>(std::floor((x - lo) / d));
    return std::clamp(c, 0, n - 2);
  };
  const double xa = p[0] + t0 * v[0], xb = p[0] + t1 * v[0];
  const double ya = p[1] + t0 * v[1], yb = p[1] + t1 * v[1];
  const int c0 = cell(std::min(xa, xb), -size[0], dx, ncol), c1 = cell(std::max(xa, xb), -size[0], dx, ncol);
  const int r0 = cell(std::min(ya, yb), -size[1], dy, nrow), r1 = cell(std::max(ya, yb), -size[1], dy, nrow);
  auto vertex = [&](int r, int c, double* out) {
    out[0] = -size[0] + c * dx;
    out[1] = -size[1] + r * dy;
    out[2] = data[r * ncol + c] * size[2];
  };
  for (int r = r0; r <= r1; ++r) {
    for (int c = c0; c <= c1; ++c) {
      double v00[3], v01[3], v10[3], v11[3];
      vertex(r, c, v00);
      vertex(r, c + 1, v01);
      vertex(r + 1, c, v10);
      vertex(r + 1, c + 1, v11);
      best = closer(best, ray_triangle(p, v, v00, v11, v01));
      best = closer(best, ray_triangle(p, v, v00, v10, v11));
    }
  }
  return best;
}

}  // namespace

double ray_geom(const double pos[3], const double mat[9], const double size[3], const double pnt[3],
                const double vec[3], int geomtype) {
  internal::check_ptr(pos, "ray_geom", "pos");
  internal::check_ptr(mat, "ray_geom", "mat");
  internal::check_ptr(size, "ray_geom", "size");
  internal::check_ptr(pnt, "ray_geom", "pnt");
  internal::check_ptr(vec, "ray_geom", "vec");
  double dp[3], p[3], v[3];
  sub3(dp, pnt, pos);
  mulmatTvec3(p, mat, dp);
  mulmatTvec3(v, mat, vec);
  switch (geomtype) {
    case kGeomPlane:
      return ray_plane(p, v, size);
    case kGeomSphere:
      return ray_sphere(p, v, size[0]);
    case kGeomCapsule: {
      // Cylinder side within |z| <= h, and each end sphere only on its outer half (the inner half
      // lies inside the cylinder).
      double best = ray_cylinder_side(p, v, size[0], size[1]);
      for (double z : {size[1], -size[1]}) {
        const double pc[3] = {p[0], p[1], p[2] - z};
        const double a = dot3(v, v), b = dot3(pc, v), c = dot3(pc, pc) - size[0] * size[0];
        const double det = b * b - a * c;
        if (a < kMinVal || det < 0) continue;
        const double sq = std::sqrt(det);
        for (double t : {(-b - sq) / a, (-b + sq) / a})
          if (t >= 0 && (pc[2] + t * v[2]) * z >= 0) best = closer(best, t);
      }
      return best;
    }
    case kGeomEllipsoid: {
      // Scale to the unit sphere; the ray parameter is unchanged.
      const double ps[3] = {p[0] / size[0], p[1] / size[1], p[2] / size[2]};
      const double vs[3] = {v[0] / size[0], v[1] / size[1], v[2] / size[2]};
      return ray_sphere(ps, vs, 1);
    }
    case kGeomCylinder:
      return closer(ray_cylinder_side(p, v, size[0], size[1]), ray_caps(p, v, size[0], size[1]));
    case kGeomBox:
      return ray_box(p, v, size);
    default:
      return -1;
  }
}

double ray(const Model& m, const Data& d, const double pnt[3], const double vec[3], int bodyexclude,
           int* geomid) {
  internal::check_data(m, d, "ray");
  internal::check_ptr(pnt, "ray", "pnt");
  internal::check_ptr(vec, "ray", "vec");
  if (bodyexclude != -1) internal::check_id("ray", "bodyexclude body", bodyexclude, m.nbody);
  double best = -1;
  int id = -1;
  for (int g = 0; g < m.ngeom; ++g) {
    if (m.geom_bodyid[g] == bodyexclude) continue;
    // Invisible geoms (alpha 0) are not seen by rays.
    if (m.geom_rgba.size() >= 4 * static_cast<size_t>(m.ngeom) && m.geom_rgba[4 * g + 3] == 0) continue;
    double t;
    if (m.geom_type[g] == kGeomMesh) {
      if (m.geom_dataid[g] < 0) continue;
      double dp[3], p[3], v[3];
      sub3(dp, pnt, &d.geom_xpos[3 * g]);
      mulmatTvec3(p, &d.geom_xmat[9 * g], dp);
      mulmatTvec3(v, &d.geom_xmat[9 * g], vec);
      t = ray_mesh(m, m.geom_dataid[g], p, v);
    } else if (m.geom_type[g] == kGeomHField) {
      if (m.geom_dataid[g] < 0) continue;
      double dp[3], p[3], v[3];
      sub3(dp, pnt, &d.geom_xpos[3 * g]);
      mulmatTvec3(p, &d.geom_xmat[9 * g], dp);
      mulmatTvec3(v, &d.geom_xmat[9 * g], vec);
      t = ray_hfield(m, m.geom_dataid[g], p, v);
    } else {
      t = ray_geom(&d.geom_xpos[3 * g], &d.geom_xmat[9 * g], &m.geom_size[3 * g], pnt, vec, m.geom_type[g]);
    }
    if (t >= 0 && (best < 0 || t < best)) {
      best = t;
      id = g;
    }
  }
  if (geomid) *geomid = id;
  return best;
}

}  // namespace moreau

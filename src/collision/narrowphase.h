// Internal declarations shared by the narrow-phase files of src/collision/.
#pragma once

#include <cmath>

#include "math/vec.h"
#include "moreau/collision.h"

namespace moreau::col {

// A geom's pose and size, read once from Model/Data.
struct GeomPose {
  const double* pos;   // 3, world
  const double* mat;   // 9, row-major; column k is the geom's local axis k in world coordinates
  const double* size;  // 3
};
inline GeomPose geom_pose(const Model& m, const Data& d, int g) {
  return {&d.geom_xpos[3 * g], &d.geom_xmat[9 * g], &m.geom_size[3 * g]};
}
// Column k of a row-major 3x3 matrix (the geom's local axis k).
inline void axis_of(double* r, const double* mat, int k) { r[0] = mat[k]; r[1] = mat[3 + k]; r[2] = mat[6 + k]; }

// World -> local: r = R' (p - o).
inline void to_local(double* r, const GeomPose& g, const double* p) {
  double t[3];
  math::sub3(t, p, g.pos);
  math::mulmatTvec3(r, g.mat, t);
}
// Local -> world: r = o + R p.
inline void to_world(double* r, const GeomPose& g, const double* p) {
  math::mulmatvec3(r, g.mat, p);
  math::add3(r, r, g.pos);
}
// Local direction -> world direction.
inline void dir_to_world(double* r, const GeomPose& g, const double* v) { math::mulmatvec3(r, g.mat, v); }

// Contact frame from the normal in f[0..2] (rows normal, tangent1, tangent2; driver.cc): the
// tangents the driver gives every contact.
void make_frame(double* f);

inline void set_point(ContactPoint& c, double dist, const double* pos, const double* normal) {
  c.dist = dist;
  math::copy3(c.pos, pos);
  math::copy3(c.frame, normal);
  for (int i = 3; i < 9; ++i) c.frame[i] = 0;
}

// Two spheres (centres c1, c2, radii r1, r2) of geoms whose frames are mat1, mat2: at most one
// contact, normal from 1 to 2. Centres closer than kMinVal have no direction between them; the
// normal is then the unit cross product of the two geoms' z axes, (1,0,0) when that is below
// kMinVal too, as 2.2.2 does for every sphere-sphere, sphere-capsule and capsule-capsule pair
// (measured on random rotations: equal to 4e-16).
int sphere_sphere_raw(const double* c1, double r1, const double* c2, double r2, double margin,
                      ContactPoint* out, const double* mat1, const double* mat2);

// Closest points of segments p1 + s*u1, p2 + t*u2 with s in [-h1, h1], t in [-h2, h2] (u unit).
// Returns s, t. Parallel segments: the midpoint of the overlap (or the nearest end) is used.
void segment_segment(const double* p1, const double* u1, double h1, const double* p2,
                     const double* u2, double h2, double* s, double* t);

// Built-in narrow-phase functions (signature CollisionFunction).
#define MOREAU_COLLIDE(name) \
  int name(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*)
MOREAU_COLLIDE(plane_sphere);
MOREAU_COLLIDE(plane_capsule);
MOREAU_COLLIDE(plane_ellipsoid);
MOREAU_COLLIDE(plane_cylinder);
MOREAU_COLLIDE(plane_box);
MOREAU_COLLIDE(sphere_sphere);
MOREAU_COLLIDE(sphere_capsule);
MOREAU_COLLIDE(sphere_cylinder);
MOREAU_COLLIDE(sphere_box);
MOREAU_COLLIDE(capsule_capsule);
MOREAU_COLLIDE(capsule_box);
MOREAU_COLLIDE(box_box);
MOREAU_COLLIDE(convex_convex);  // general convex pairs by MPR (libccd), meshes included (convex.cc)
MOREAU_COLLIDE(plane_mesh);     // collide_mesh.cc
MOREAU_COLLIDE(hfield_convex);  // height field against the convex types (collide_hfield.cc)
#undef MOREAU_COLLIDE

// Fills d.work.col_hfield_top: per height field, the highest corner elevation (data times size_z,
// as the prisms compute it), +inf where an elevation is not finite (hfield_convex then tests every
// prism under the geom).
void hfield_top_build(const Model& m, Data& d);

}  // namespace moreau::col

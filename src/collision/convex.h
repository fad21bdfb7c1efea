// Convex shapes for Minkowski Portal Refinement (libccd): support and centre functions of every
// convex geom type and of height-field prisms, written to give MuJoCo 2.2.2's values to the bit
// (same operations in the same order), so that MPR, which both engines run in the same library,
// takes the same steps and returns the same depth, direction and point.
//
// Measured on 2.2.2 (its own support functions called through its libccd calls, on random poses
// and directions):
//   - a geom is handled in its local frame: l = R' dir; p = S(l) + margin/2 * l; out = R p + pos,
//     with dir as libccd passes it (not normalized again);
//   - S(l): sphere r*l; capsule r*l + sign(l_z)*h*e_z; box sign(l_i)*size_i (sign(0) = 0);
//     cylinder (r*l_x/n, r*l_y/n) if n = |l_xy| > 1e-15, else 0, and sign(l_z)*h;
//     ellipsoid size * normalize(size * l) (normalize: (1,0,0) for a norm below 1e-15);
//     mesh the hull vertex of largest l.p (hill climbing on the hull graph, see convex.cc);
//   - the centre is the geom's position (a mesh's is its centre of mass, where its frame is).
// With flag multiccd, convex_convex adds up to four contacts from MPR runs on slightly turned
// copies of the two geoms (rule and measurements in convex.cc).
#pragma once

#include "collision/hull.h"
#include "moreau/collision.h"

namespace moreau::col {

struct ConvexObject {
  int type = 0;
  const double* pos = nullptr;   // 3, world (or height-field frame)
  const double* mat = nullptr;   // 9, row-major
  const double* size = nullptr;  // 3
  double margin = 0;             // half the pair's margin: inflation along the support direction
  // mesh: its vertices, and its hull for the support climb (hull.h)
  const float* vert = nullptr;
  int nvert = 0;  // all mesh vertices (used when a mesh has no hull graph)
  Hull hull;
  mutable int warm = -1;  // the previous support vertex (hull id) in this MPR run, -1: none yet
  // height-field prism: 6 vertices in the height field's frame, and their mean
  double prism[6][3];
  double prism_center[3];
};

// A geom as a convex object at the poses of d (type, pose, size, mesh hull).
ConvexObject convex_object(const Model& m, const Data& d, int g, double half_margin);

// The point of the object furthest along dir (libccd's support function contract).
void convex_support(const ConvexObject& o, const double* dir, double* out);
// An interior point (the geom's position, or the prism's vertex mean).
void convex_center(const ConvexObject& o, double* out);

// MPR penetration of two objects (libccd, mpr_tolerance and mpr_iterations of the model). True
// if they intersect with a defined direction (exact touching, which MPR reports without one, counts
// as no contact, as in 2.2.2); then depth >= 0, dir (unit) points from object 1 to object 2, and
// pos lies between the two surfaces.
bool convex_penetration(const Model& m, const ConvexObject& o1, const ConvexObject& o2, double* depth,
                        double* dir, double* pos);

// 2.2.2's contact normal for geoms with a smooth surface (sphere, capsule, ellipsoid, cylinder):
// MPR's direction is replaced by the surface normals at the contact point (see convex.cc).
void fix_normal(const ConvexObject& o1, const ConvexObject& o2, const double* pos, double* normal);

}  // namespace moreau::col

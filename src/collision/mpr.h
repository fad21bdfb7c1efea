// Minkowski Portal Refinement (G. Snethen, "XenoCollide", Game Programming Gems 7, 2008), the
// penetration variant used for general convex pairs (the computation chapter: "Mesh collisions are
// based on MPR as implemented in libccd"; same steps, tolerance and iteration limit, so results agree).
#pragma once

namespace moreau::col {

// Support function: the point of a shape furthest along dir (dir need not be unit).
using SupportFn = void (*)(const void* shape, const double* dir, double* out);

struct MprShape {
  const void* shape;
  SupportFn support;
  const double* center;  // an interior point
};

// Penetration of two convex shapes. Returns false if they do not intersect. Otherwise depth >= 0,
// dir (unit) points from shape 1 to shape 2 along which shape 2 must move by depth to separate,
// and pos is a point midway between the two surfaces.
bool mpr_penetration(const MprShape& a, const MprShape& b, double tolerance, int max_iterations,
                     double* depth, double* dir, double* pos);

}  // namespace moreau::col

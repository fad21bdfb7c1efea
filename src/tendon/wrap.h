// Wrapping of a spatial tendon segment around a sphere or a cylinder (shortest path, geodesic).
#pragma once

namespace moreau::tendon_detail {

// Shortest path from x0 to x1 (world frame) around the wrapping geom with centre `pos`, orientation
// `mat` (row-major, columns = local axes), radius `radius`; `is_cylinder` selects the cylinder
// (infinite, axis = local z) instead of the sphere. `side` (world point, or null) selects the side
// of the obstacle the path must take (MJCF sidesite).
// Returns -1 when the straight segment is the shortest path (no wrapping). Otherwise returns the
// length of the path on the surface (arc, or helix for the cylinder) and writes the two tangent
// points, where the path leaves the straight segments, to t0 (near x0) and t1 (near x1).
double wrap(const double x0[3], const double x1[3], const double pos[3], const double mat[9],
            double radius, bool is_cylinder, const double* side, double t0[3], double t1[3]);

// The 2D problem both reduce to: circle of radius r at the origin, end points a and b, optional
// side point s (side_inside: the side site lies inside the obstacle). Returns -1 (no wrap) or the
// arc length; writes tangent points ta, tb.
double wrap_circle(const double a[2], const double b[2], double r, const double* s, bool side_inside,
                   double ta[2], double tb[2]);

}  // namespace moreau::tendon_detail

// General convex pairs (ellipsoid-x, cylinder-x, and the pairs 2.2.2 routes the same way): Minkowski
// Portal Refinement (mpr.cc) on support functions of the primitives.
//
// The support function of a geom returns its point furthest along a direction; MPR finds the
// penetration depth, direction and a contact point from the Minkowski difference. Each shape is
// inflated by half the contact margin so that pairs separated by less than the margin still
// intersect; the reported distance subtracts the inflation again.
#include <algorithm>
#include <cmath>

#include "collision/mpr.h"
#include "collision/narrowphase.h"

namespace moreau::col {
namespace {

struct ConvexObj {
  GeomPose g;
  int type;
  double inflate;  // added along the direction (margin/2)
};

void support(const void* obj, const double* dir, double* vec) {
  const ConvexObj& o = *static_cast<const ConvexObj*>(obj);
  double dw[3] = {dir[0], dir[1], dir[2]};
  math::normalize3(dw);
  double dl[3], pl[3] = {0, 0, 0};
  math::mulmatTvec3(dl, o.g.mat, dw);
  const double* s = o.g.size;
  switch (o.type) {
    case kGeomSphere:
      for (int k = 0; k < 3; ++k) pl[k] = s[0] * dl[k];
      break;
    case kGeomCapsule:
      for (int k = 0; k < 3; ++k) pl[k] = s[0] * dl[k];
      pl[2] += dl[2] >= 0 ? s[1] : -s[1];
      break;
    case kGeomEllipsoid: {
      double den = 0;
      for (int k = 0; k < 3; ++k) den += s[k] * s[k] * dl[k] * dl[k];
      den = std::sqrt(den);
      if (den > kMinVal)
        for (int k = 0; k < 3; ++k) pl[k] = s[k] * s[k] * dl[k] / den;
      break;
    }
    case kGeomCylinder: {
      const double n = std::sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
      if (n > kMinVal) { pl[0] = s[0] * dl[0] / n; pl[1] = s[0] * dl[1] / n; }
      pl[2] = dl[2] >= 0 ? s[1] : -s[1];
      break;
    }
    case kGeomBox:
      for (int k = 0; k < 3; ++k) pl[k] = dl[k] >= 0 ? s[k] : -s[k];
      break;
    default:
      break;
  }
  double pw[3];
  to_world(pw, o.g, pl);
  math::addscl3(pw, dw, o.inflate);
  math::copy3(vec, pw);
}

// Outward unit normal of a smooth geom's surface at (or near) world point p; false for geoms
// without a smooth surface there (box, unknown types).
bool smooth_normal(const ConvexObj& o, const double* p, double* n) {
  double pl[3], nl[3] = {0, 0, 0};
  to_local(pl, o.g, p);
  const double* s = o.g.size;
  switch (o.type) {
    case kGeomSphere:
      math::copy3(nl, pl);
      break;
    case kGeomCapsule:
      math::copy3(nl, pl);
      nl[2] -= std::clamp(pl[2], -s[1], s[1]);
      break;
    // Ellipsoids keep MPR's direction: neither the gradient at pos nor MPR's witness or portal
    // direction reproduces 2.2.2's normal for ellipsoid pairs (see the report of issue 3).
    case kGeomCylinder:
      nl[0] = pl[0];
      nl[1] = pl[1];
      break;
    default:
      return false;
  }
  if (math::norm3(nl) < kMinVal) return false;
  math::normalize3(nl);
  dir_to_world(n, o.g, nl);
  return true;
}

}  // namespace

int convex_convex(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  ConvexObj o1{geom_pose(m, d, g1), m.geom_type[g1], 0.5 * margin};
  ConvexObj o2{geom_pose(m, d, g2), m.geom_type[g2], 0.5 * margin};
  double depth, dir[3], pos[3];
  if (!mpr_penetration({&o1, support, o1.g.pos}, {&o2, support, o2.g.pos}, m.opt.mpr_tolerance,
                       m.opt.mpr_iterations, &depth, dir, pos))
    return 0;
  // MPR's direction comes from a small portal triangle on a curved Minkowski surface; where the
  // surfaces are smooth, 2.2.2 replaces it by the surface normals at the contact point (the
  // normalized difference of the two outward normals, or the one available).
  double n1[3], n2[3];
  const bool s1 = smooth_normal(o1, pos, n1), s2 = smooth_normal(o2, pos, n2);
  if (s1 || s2) {
    if (!s1) math::zero3(n1);
    if (!s2) math::zero3(n2);
    double n[3];
    math::sub3(n, n1, n2);
    if (math::norm3(n) > kMinVal) {
      math::normalize3(n);
      math::copy3(dir, n);
    }
  }
  set_point(out[0], -depth + margin, pos, dir);
  return 1;
}

}  // namespace moreau::col

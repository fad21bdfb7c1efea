// Fromto frames, the zaxis rotation and primitive-geom mass properties (closed forms, as MuJoCo
// 2.2.2 computes them).
#include "model_geometry/geometry.h"

#include <cmath>

#include "math/vec.h"
#include "moreau/model.h"

namespace moreau::geometry {

using namespace moreau::math;

void zaxis_to_quat(const double zin[3], double quat[4]) {
  double z[3] = {zin[0], zin[1], zin[2]};
  normalize3_div(z);
  const double up[3] = {0, 0, 1};
  double axis[3];
  cross3(axis, up, z);
  const double s = norm3(axis);
  if (s < 1e-15) {
    if (z[2] > 0) unitquat(quat);
    else { quat[0] = 0; quat[1] = 1; quat[2] = 0; quat[3] = 0; }
    return;
  }
  scl3(axis, axis, 1 / s);
  axisangle2quat(quat, axis, std::atan2(s, z[2]));
}

void fromto_frame(const double ft[6], double pos[3], double quat[4], double& halflen) {
  double v[3] = {ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]};
  for (int k = 0; k < 3; ++k) pos[k] = 0.5 * (ft[k] + ft[k + 3]);
  halflen = 0.5 * norm3(v);
  zaxis_to_quat(v, quat);
}

const char* geom_fromto(int type, const double ft[6], double pos[3], double quat[4], double size[3]) {
  if (type != kGeomCapsule && type != kGeomCylinder && type != kGeomBox && type != kGeomEllipsoid)
    return "attribute 'fromto' is only allowed for capsule, cylinder, box and ellipsoid geoms";
  double half;
  fromto_frame(ft, pos, quat, half);
  if (half < kMinVal) return "attribute 'fromto' has coincident end points";
  if (type == kGeomCapsule || type == kGeomCylinder) {
    size[1] = half;
  } else {
    size[1] = size[0];
    size[2] = half;
  }
  return nullptr;
}

void site_fromto(int type, const double ft[6], double pos[3], double quat[4], double size[3]) {
  double half;
  fromto_frame(ft, pos, quat, half);
  if (type == kGeomCapsule || type == kGeomCylinder) size[1] = half;
  else size[2] = half;
}

MassProperties geom_mass(int type, const double size[3], bool mass_set, double mass, double density,
                         double mesh_volume, const double* mesh_inertia) {
  double vol = 0, I[3] = {0, 0, 0};  // volume and inertia per unit density
  const double r = size[0];
  switch (type) {
    case kGeomSphere:
      vol = 4.0 / 3.0 * M_PI * r * r * r;
      I[0] = I[1] = I[2] = 0.4 * vol * r * r;
      break;
    case kGeomCapsule: {
      // cylinder of height h plus a sphere split in two hemispheres at the ends; the
      // hemispheres' moment about the center uses the parallel-axis shift of their centroids.
      const double h = 2 * size[1];
      const double vc = M_PI * r * r * h, vs = 4.0 / 3.0 * M_PI * r * r * r;
      vol = vc + vs;
      I[0] = I[1] = vc * (3 * r * r + h * h) / 12 + vs * (0.4 * r * r + 0.25 * h * h + 0.375 * h * r);
      I[2] = vc * r * r / 2 + vs * 0.4 * r * r;
      break;
    }
    case kGeomCylinder: {
      const double h = 2 * size[1];
      vol = M_PI * r * r * h;
      I[0] = I[1] = vol * (3 * r * r + h * h) / 12;
      I[2] = vol * r * r / 2;
      break;
    }
    case kGeomEllipsoid: {
      const double a = size[0], b = size[1], c = size[2];
      vol = 4.0 / 3.0 * M_PI * a * b * c;
      I[0] = vol * (b * b + c * c) / 5;
      I[1] = vol * (a * a + c * c) / 5;
      I[2] = vol * (a * a + b * b) / 5;
      break;
    }
    case kGeomBox: {
      const double a = size[0], b = size[1], c = size[2];
      vol = 8 * a * b * c;
      I[0] = vol * (b * b + c * c) / 3;
      I[1] = vol * (a * a + c * c) / 3;
      I[2] = vol * (a * a + b * b) / 3;
      break;
    }
    case kGeomMesh:
      vol = mesh_volume;
      if (mesh_inertia)
        for (int k = 0; k < 3; ++k) I[k] = mesh_inertia[k];
      break;
    default:  // plane, hfield: no volume
      vol = 0;
  }
  MassProperties p;
  if (mass_set) {
    if (vol <= 0) {
      p.mass = mass;
      return p;
    }
    density = mass / vol;
  }
  p.mass = density * vol;
  for (int k = 0; k < 3; ++k) p.inertia[k] = density * I[k];
  return p;
}

}  // namespace moreau::geometry

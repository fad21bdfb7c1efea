// Mass properties of primitive geoms (closed forms, as MuJoCo 2.2.2 computes them) and the
// principal-axes decomposition of an inertia tensor.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "compiler/compile_internal.h"
#include "math/vec.h"

namespace moreau::compiler {

using namespace moreau::math;

void geom_mass(GeomMass& g, const double size[3], bool mass_set, double mass, double density,
               const MeshInfo* mesh) {
  double vol = 0, I[3] = {0, 0, 0};  // volume and inertia per unit density
  const double r = size[0];
  switch (g.type) {
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
      vol = mesh->volume;
      for (int k = 0; k < 3; ++k) I[k] = mesh->inertia[k];
      break;
    default:  // plane, hfield: no volume
      vol = 0;
  }
  if (mass_set) {
    if (vol <= 0) {
      g.mass = mass;
      return;
    }
    density = mass / vol;
  }
  g.mass = density * vol;
  for (int k = 0; k < 3; ++k) g.inertia[k] = density * I[k];
}

bool principal_axes(const double full[6], double inertia[3], double quat[4]) {
  const double scale = std::fabs(full[0]) + std::fabs(full[1]) + std::fabs(full[2]);
  if (std::fabs(full[3]) <= 1e-12 * scale && std::fabs(full[4]) <= 1e-12 * scale &&
      std::fabs(full[5]) <= 1e-12 * scale) {
    // Already diagonal: the principal axes are the coordinate axes, sorted by descending moment
    // (stable, so equal moments keep their order and an isotropic tensor gives the identity).
    int idx[3] = {0, 1, 2};
    std::stable_sort(idx, idx + 3, [&](int a, int b) { return full[a] > full[b]; });
    double R[9] = {0};
    for (int c = 0; c < 3; ++c) {
      inertia[c] = full[idx[c]];
      R[3 * idx[c] + c] = 1;
    }
    // right-handed: third axis = first x second
    double c0[3] = {R[0], R[3], R[6]}, c1[3] = {R[1], R[4], R[7]}, c2[3];
    cross3(c2, c0, c1);
    R[2] = c2[0]; R[5] = c2[1]; R[8] = c2[2];
    // R is a signed permutation: take each component from the diagonal so that equal components
    // come out bit-identical (sqrt(2)/2, not 2/(2 sqrt(2))).
    quat[0] = 0.5 * std::sqrt(std::max(0.0, 1 + R[0] + R[4] + R[8]));
    quat[1] = 0.5 * std::sqrt(std::max(0.0, 1 + R[0] - R[4] - R[8]));
    quat[2] = 0.5 * std::sqrt(std::max(0.0, 1 - R[0] + R[4] - R[8]));
    quat[3] = 0.5 * std::sqrt(std::max(0.0, 1 - R[0] - R[4] + R[8]));
    // signs relative to the largest component
    int big = 0;
    for (int k = 1; k < 4; ++k)
      if (quat[k] > quat[big]) big = k;
    const double sgn01 = R[7] - R[5], sgn02 = R[2] - R[6], sgn03 = R[3] - R[1];
    const double sgn12 = R[1] + R[3], sgn13 = R[2] + R[6], sgn23 = R[5] + R[7];
    if (big == 0) {
      if (sgn01 < 0) quat[1] = -quat[1];
      if (sgn02 < 0) quat[2] = -quat[2];
      if (sgn03 < 0) quat[3] = -quat[3];
    } else if (big == 1) {
      if (sgn01 < 0) quat[0] = -quat[0];
      if (sgn12 < 0) quat[2] = -quat[2];
      if (sgn13 < 0) quat[3] = -quat[3];
    } else if (big == 2) {
      if (sgn02 < 0) quat[0] = -quat[0];
      if (sgn12 < 0) quat[1] = -quat[1];
      if (sgn23 < 0) quat[3] = -quat[3];
    } else {
      if (sgn03 < 0) quat[0] = -quat[0];
      if (sgn13 < 0) quat[1] = -quat[1];
      if (sgn23 < 0) quat[2] = -quat[2];
    }
    if (quat[0] < 0)
      for (int k = 0; k < 4; ++k) quat[k] = -quat[k];
    for (int k = 0; k < 3; ++k)
      if (inertia[k] < 0) return false;
    return true;
  }
  Eigen::Matrix3d A;
  A << full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2];
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(A);
  // Eigen sorts ascending; MuJoCo's bodies list principal moments in descending order.
  Eigen::Vector3d ev = es.eigenvalues();
  Eigen::Matrix3d V = es.eigenvectors();
  int idx[3] = {2, 1, 0};
  Eigen::Matrix3d R;
  for (int c = 0; c < 3; ++c) {
    inertia[c] = ev[idx[c]];
    R.col(c) = V.col(idx[c]);
  }
  // Canonical signs: each principal axis points along its own coordinate axis where possible
  // (a diagonal tensor in descending order gives the identity), then a right-handed frame.
  for (int c = 0; c < 2; ++c)
    if (R(c, c) < 0) R.col(c) = -R.col(c);
  R.col(2) = R.col(0).cross(R.col(1));
  double Rm[9];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) Rm[3 * r + c] = R(r, c);
  mat2quat(quat, Rm);
  if (quat[0] < 0)
    for (int k = 0; k < 4; ++k) quat[k] = -quat[k];
  for (int k = 0; k < 3; ++k)
    if (inertia[k] < -1e-12 * std::fabs(ev[2])) return false;
  for (int k = 0; k < 3; ++k) inertia[k] = std::max(inertia[k], 0.0);
  return true;
}

}  // namespace moreau::compiler

// The principal-axes decomposition of an inertia tensor (primitive geoms' mass properties:
// model_geometry/geometry.cc).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "compiler/compile_internal.h"
#include "math/vec.h"

namespace moreau::compiler {

using namespace moreau::math;

namespace {

// Quaternion of a signed permutation matrix R (row-major), each component taken from the diagonal
// so that equal components come out bit-identical (sqrt(2)/2, not 2/(2 sqrt(2))): frames compared
// exactly (geom_sameframe) then agree with 2.2.2's.
void permutation_quat(const double R[9], double quat[4]) {
  quat[0] = 0.5 * std::sqrt(std::max(0.0, 1 + R[0] + R[4] + R[8]));
  quat[1] = 0.5 * std::sqrt(std::max(0.0, 1 + R[0] - R[4] - R[8]));
  quat[2] = 0.5 * std::sqrt(std::max(0.0, 1 - R[0] + R[4] - R[8]));
  quat[3] = 0.5 * std::sqrt(std::max(0.0, 1 - R[0] - R[4] + R[8]));
  // signs relative to the largest component
  int big = 0;
  for (int k = 1; k < 4; ++k)
    if (quat[k] > quat[big]) big = k;
  // off-diagonal differences and sums: sign of q_big * q_k
  const double d[4][4] = {{0, R[7] - R[5], R[2] - R[6], R[3] - R[1]},
                          {R[7] - R[5], 0, R[1] + R[3], R[2] + R[6]},
                          {R[2] - R[6], R[1] + R[3], 0, R[5] + R[7]},
                          {R[3] - R[1], R[2] + R[6], R[5] + R[7], 0}};
  for (int k = 0; k < 4; ++k)
    if (k != big && d[big][k] < 0) quat[k] = -quat[k];
}

}  // namespace

// The principal frame follows MuJoCo 2.2.2's convention (found by experiment: it reproduces 2.2.2's
// body_iquat for every tested tensor within 40 degrees of the axes and 97% of random ones;
// tests/mjcf/loader_compiler_options_test.cc): of the 24 right-handed frames made of the eigenvectors,
// take the one closest to the body axes (largest trace: its i-th axis is the eigenvector nearest
// to the i-th coordinate axis, pointing the same way), then sort the moments into descending order
// by a bubble sort over the pairs (0,1), (1,2), (0,1) in which each swap turns the frame by 90
// degrees (the axis moved down keeps its direction, the axis moved up is reversed). The frame
// matters where it is visible: a body without 'pos' in global coordinates takes it as its body
// frame, and mesh vertices are stored in it.
bool principal_axes(const double full[6], double inertia[3], double quat[4]) {
  Eigen::Matrix3d A;
  A << full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2];
  const double scale = std::fabs(full[0]) + std::fabs(full[1]) + std::fabs(full[2]);
  Eigen::Matrix3d V = Eigen::Matrix3d::Identity();
  Eigen::Vector3d ev(full[0], full[1], full[2]);
  const bool diagonal =
      !(std::fabs(full[3]) > 1e-12 * scale || std::fabs(full[4]) > 1e-12 * scale || std::fabs(full[5]) > 1e-12 * scale);
  if (std::fabs(full[3]) > 1e-12 * scale || std::fabs(full[4]) > 1e-12 * scale || std::fabs(full[5]) > 1e-12 * scale) {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(A);
    const Eigen::Matrix3d E = es.eigenvectors();
    // the right-handed signed assignment of eigenvectors to axes with the largest trace
    static const int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    double best = -1e300;
    for (const auto& p : kPerm) {
      Eigen::Matrix3d C;
      for (int k = 0; k < 3; ++k) C.col(k) = E.col(p[k]) * (E(k, p[k]) < 0 ? -1.0 : 1.0);
      if (C.determinant() < 0) {  // flip the axis that is farthest from its coordinate axis
        int w = 0;
        for (int k = 1; k < 3; ++k)
          if (C(k, k) < C(w, w)) w = k;
        C.col(w) = -C.col(w);
      }
      if (C.trace() > best) {
        best = C.trace();
        V = C;
        for (int k = 0; k < 3; ++k) ev[k] = es.eigenvalues()[p[k]];
      }
    }
  }
  // descending order: bubble sort with 90-degree turns
  for (const auto& pr : {std::pair<int, int>{0, 1}, {1, 2}, {0, 1}}) {
    const int i = pr.first, j = pr.second;
    if (ev[i] < ev[j]) {
      std::swap(ev[i], ev[j]);
      const Eigen::Vector3d vi = V.col(i);
      V.col(i) = V.col(j);
      V.col(j) = -vi;
    }
  }
  double Rm[9];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) Rm[3 * r + c] = V(r, c);
  if (diagonal) permutation_quat(Rm, quat);
  else mat2quat(quat, Rm);
  if (quat[0] < 0)
    for (int k = 0; k < 4; ++k) quat[k] = -quat[k];
  for (int k = 0; k < 3; ++k) inertia[k] = ev[k];
  for (int k = 0; k < 3; ++k)
    if (inertia[k] < -1e-12 * std::max(scale, 1e-300)) return false;
  for (int k = 0; k < 3; ++k) inertia[k] = std::max(inertia[k], 0.0);
  return true;
}

}  // namespace moreau::compiler

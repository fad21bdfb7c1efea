// Small fixed-size vector, quaternion and 3x3 matrix operations on raw double arrays.
//
// The pipeline works on the flat arrays of Model and Data, so these take pointers rather than value
// types. Quaternions are (w, x, y, z), unit norm; matrices are 3x3 row-major.
#pragma once

#include <cmath>

#include "math/simd2.h"

namespace moreau::math {

// ---------------------------------------------------------------------------------- 3-vectors
inline void copy3(double* r, const double* a) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }
inline void zero3(double* r) { r[0] = r[1] = r[2] = 0; }
inline double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline double norm3(const double* a) { return std::sqrt(dot3(a, a)); }
inline void add3(double* r, const double* a, const double* b) {
  r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
inline void sub3(double* r, const double* a, const double* b) {
  r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
inline void scl3(double* r, const double* a, double s) { r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s; }
// r += a*s
inline void addscl3(double* r, const double* a, double s) { r[0] += a[0] * s; r[1] += a[1] * s; r[2] += a[2] * s; }
inline void cross3(double* r, const double* a, const double* b) {
  const double x = a[1] * b[2] - a[2] * b[1];
  const double y = a[2] * b[0] - a[0] * b[2];
  const double z = a[0] * b[1] - a[1] * b[0];
  r[0] = x; r[1] = y; r[2] = z;
}
// Normalize in place; returns the norm before normalization. A (near) zero vector becomes (1,0,0).
// Multiplies by the reciprocal of the norm, as MuJoCo 2.2.2 does (bit-identical results).
inline double normalize3(double* a) {
  const double n = norm3(a);
  if (n < 1e-15) { a[0] = 1; a[1] = a[2] = 0; return n; }
  const double s = 1 / n;
  a[0] *= s; a[1] *= s; a[2] *= s;
  return n;
}
// The same by division: MuJoCo 2.2.2's model compiler normalizes this way, so the compiler uses it
// for bit-identical frames.
inline double normalize3_div(double* a) {
  const double n = norm3(a);
  if (n < 1e-15) { a[0] = 1; a[1] = a[2] = 0; return n; }
  a[0] /= n; a[1] /= n; a[2] /= n;
  return n;
}

// ---------------------------------------------------------------------------------- 3x3 matrices
inline void copy9(double* r, const double* a) {  // two at a time (-O2 keeps the loop otherwise)
  const v2d a0 = load2(a), a1 = load2(a + 2), a2 = load2(a + 4), a3 = load2(a + 6);
  const double a8 = a[8];
  store2(r, a0);
  store2(r + 2, a1);
  store2(r + 4, a2);
  store2(r + 6, a3);
  r[8] = a8;
}
inline void eye9(double* r) { for (int i = 0; i < 9; ++i) r[i] = (i % 4 == 0) ? 1.0 : 0.0; }
// r = M * v
inline void mulmatvec3(double* r, const double* M, const double* v) {
  const double x = M[0] * v[0] + M[1] * v[1] + M[2] * v[2];
  const double y = M[3] * v[0] + M[4] * v[1] + M[5] * v[2];
  const double z = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
  r[0] = x; r[1] = y; r[2] = z;
}
// r = M' * v
inline void mulmatTvec3(double* r, const double* M, const double* v) {
  const double x = M[0] * v[0] + M[3] * v[1] + M[6] * v[2];
  const double y = M[1] * v[0] + M[4] * v[1] + M[7] * v[2];
  const double z = M[2] * v[0] + M[5] * v[1] + M[8] * v[2];
  r[0] = x; r[1] = y; r[2] = z;
}
// r = A * B (r must not alias A or B)
inline void mulmatmat3(double* r, const double* A, const double* B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
// r = A' * B (r must not alias A or B)
inline void mulmatTmat3(double* r, const double* A, const double* B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

// ---------------------------------------------------------------------------------- quaternions
inline void unitquat(double* q) { q[0] = 1; q[1] = q[2] = q[3] = 0; }
inline void copy4(double* r, const double* a) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; r[3] = a[3]; }
// Normalize in place; returns the norm before. A (near) zero quaternion becomes the identity.
inline double normalize4(double* q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < 1e-15) { unitquat(q); return n; }
  const double s = 1 / n;  // the reciprocal, as MuJoCo 2.2.2 (bit-identical results)
  q[0] *= s; q[1] *= s; q[2] *= s; q[3] *= s;
  return n;
}
// The same by division, as MuJoCo 2.2.2's model compiler (see normalize3_div).
inline double normalize4_div(double* q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < 1e-15) { unitquat(q); return n; }
  q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n;
  return n;
}
// r = a * b (Hamilton product; r may alias a or b):
//   w = a0 b0 - a1 b1 - a2 b2 - a3 b3,  x = a0 b1 + a1 b0 + a2 b3 - a3 b2,
//   y = a0 b2 - a1 b3 + a2 b0 + a3 b1,  z = a0 b3 + a1 b2 - a2 b1 + a3 b0,
// each summed left to right. Two components per SSE2 operation, (w, x) and (y, z): every lane
// adds the same products in the same order, a subtracted product as the product with the negated
// factor (p - q and p + (-1 * b) a are the same bits), so the result is the scalar form's.
inline void mulquat(double* r, const double* a, const double* b) {
  const v2d b01 = load2(b), b23 = load2(b + 2);
  const v2d b10 = {b[1], b[0]}, b32 = {b[3], b[2]};
  const v2d a0 = {a[0], a[0]}, a1 = {a[1], a[1]}, a2 = {a[2], a[2]}, a3 = {a[3], a[3]};
  const v2d nl = {-1.0, 1.0}, nr = {1.0, -1.0}, nn = {-1.0, -1.0};
  const v2d wx = a0 * b01 + a1 * (nl * b10) + a2 * (nl * b23) + a3 * (nn * b32);
  const v2d yz = a0 * b23 + a1 * (nl * b32) + a2 * (nr * b01) + a3 * b10;
  store2(r, wx);
  store2(r + 2, yz);
}
inline void negquat(double* r, const double* q) { r[0] = q[0]; r[1] = -q[1]; r[2] = -q[2]; r[3] = -q[3]; }
// r = q * v * q^-1 (rotate vector v by q; r may alias v)
inline void rotvecquat(double* r, const double* v, const double* q) {
  // t = 2 * cross(q.xyz, v); r = v + w*t + cross(q.xyz, t)
  const double* u = q + 1;
  double t[3], c[3];
  cross3(t, u, v);
  scl3(t, t, 2.0);
  cross3(c, u, t);
  r[0] = v[0] + q[0] * t[0] + c[0];
  r[1] = v[1] + q[0] * t[1] + c[1];
  r[2] = v[2] + q[0] * t[2] + c[2];
}
// Rotation matrix (row-major) of a unit quaternion.
inline void quat2mat(double* R, const double* q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = w * w + x * x - y * y - z * z; R[1] = 2 * (x * y - w * z);         R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);         R[4] = w * w - x * x + y * y - z * z; R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);         R[7] = 2 * (y * z + w * x);         R[8] = w * w - x * x - y * y + z * z;
}
// Unit quaternion of a rotation matrix (row-major), with w >= 0 where the branch allows.
inline void mat2quat(double* q, const double* R) {
  const double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    const double s = 2 * std::sqrt(1 + tr);
    q[0] = 0.25 * s; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    const double s = 2 * std::sqrt(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s; q[1] = 0.25 * s; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    const double s = 2 * std::sqrt(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = 0.25 * s; q[3] = (R[5] + R[7]) / s;
  } else {
    const double s = 2 * std::sqrt(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = 0.25 * s;
  }
  normalize4(q);
}
// Quaternion of a rotation by `angle` (radians) about the unit `axis`.
inline void axisangle2quat(double* q, const double* axis, double angle) {
  const double s = std::sin(0.5 * angle);
  q[0] = std::cos(0.5 * angle); q[1] = axis[0] * s; q[2] = axis[1] * s; q[3] = axis[2] * s;
}
// Rotation vector (axis * angle) of the relative rotation quaternion q, angle in [-pi, pi].
inline void quat2vel(double* r, const double* q, double dt) {
  double axis[3] = {q[1], q[2], q[3]};
  const double sin_a_2 = normalize3(axis);
  double angle = 2 * std::atan2(sin_a_2, q[0]);
  if (angle > M_PI) angle -= 2 * M_PI;
  scl3(r, axis, angle / dt);
}

// Rotation vector (axis * angle) taking orientation qb to qa, in qb's local frame:
// the rotation of qb^-1 * qa (quaternion difference used by ball/free springs and differentiate_pos).
inline void subquat(double* r, const double* qa, const double* qb) {
  double nb[4], dq[4];
  negquat(nb, qb);
  mulquat(dq, nb, qa);
  quat2vel(r, dq, 1.0);
}

// q <- normalize(q * quat(axis w/|w|, angle |w| dt)): rotation by the local angular velocity w for dt.
inline void quatintegrate(double* q, const double* w, double dt) {
  double axis[3] = {w[0], w[1], w[2]};
  const double n = normalize3(axis);
  if (n >= 1e-15) {
    double dq[4];
    axisangle2quat(dq, axis, n * dt);
    mulquat(q, q, dq);
  }
  normalize4(q);
}

// ---------------------------------------------------------------------------------- frames
// Pose composition: (rpos, rquat) = (pos1, quat1) * (pos2, quat2).
inline void mulpose(double* rpos, double* rquat, const double* pos1, const double* quat1,
                    const double* pos2, const double* quat2) {
  double p[3];
  rotvecquat(p, pos2, quat1);
  add3(rpos, p, pos1);
  mulquat(rquat, quat1, quat2);
}

}  // namespace moreau::math

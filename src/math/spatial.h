// Spatial (6D) algebra on raw arrays, in the com-based frames of the computation chapter.
//
// Motion vectors (cdof, cvel, cacc) and force vectors (cfrc_*) are [rotation(3); translation(3)],
// expressed in a frame with world orientation centred at the subtree com of the body's root.
// Spatial inertias (cinert, crb) are 10 numbers: the rotational inertia about that origin
// (xx, yy, zz, xy, xz, yz), h = mass*(com - origin) (3), mass (1) -- see data.h.
#pragma once

#include "math/simd2.h"
#include "math/vec.h"

namespace moreau::math {

// r = a x b for motion vectors: [w x w2; w x v2 + v x w2] (Featherstone's crm(a) b). r must not alias.
inline void cross_motion(double* r, const double* a, const double* b) {
  cross3(r, a, b);
  double t[3];
  cross3(r + 3, a, b + 3);
  cross3(t, a + 3, b);
  add3(r + 3, r + 3, t);
}

// r = a x* f for a motion a and a force f: [w x n + v x f; w x f] (Featherstone's crf(a) f).
inline void cross_force(double* r, const double* a, const double* f) {
  cross3(r, a, f);
  double t[3];
  cross3(t, a + 3, f + 3);
  add3(r, r, t);
  cross3(r + 3, a, f + 3);
}

// Power of a force on a motion: <motion, force>.
inline double dot6(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// Elementwise 6-vector operations, two lanes at a time (same bits as the scalar loops).
inline void copy6(double* r, const double* a) {
  const v2d a0 = load2(a), a1 = load2(a + 2), a2 = load2(a + 4);
  store2(r, a0);
  store2(r + 2, a1);
  store2(r + 4, a2);
}
inline void zero6(double* r) {
  const v2d z = {0.0, 0.0};
  store2(r, z);
  store2(r + 2, z);
  store2(r + 4, z);
}
inline void addto6(double* r, const double* a) {
  store2(r, load2(r) + load2(a));
  store2(r + 2, load2(r + 2) + load2(a + 2));
  store2(r + 4, load2(r + 4) + load2(a + 4));
}
inline void addtoscl6(double* r, const double* a, double s) {
  store2(r, load2(r) + load2(a) * s);
  store2(r + 2, load2(r + 2) + load2(a + 2) * s);
  store2(r + 4, load2(r + 4) + load2(a + 4) * s);
}

// f = I v for a spatial inertia I (10-number form) and a motion v = [w; u]:
//   f_rot = Io w + h x u,  f_lin = m u - h x w  (h = m c, c the com relative to the origin).
inline void mul_inert_vec(double* f, const double* I, const double* v) {
  const double* w = v;
  const double* u = v + 3;
  f[0] = I[0] * w[0] + I[3] * w[1] + I[4] * w[2];
  f[1] = I[3] * w[0] + I[1] * w[1] + I[5] * w[2];
  f[2] = I[4] * w[0] + I[5] * w[1] + I[2] * w[2];
  const double* h = I + 6;
  const double m = I[9];
  f[0] += h[1] * u[2] - h[2] * u[1];
  f[1] += h[2] * u[0] - h[0] * u[2];
  f[2] += h[0] * u[1] - h[1] * u[0];
  f[3] = m * u[0] - (h[1] * w[2] - h[2] * w[1]);
  f[4] = m * u[1] - (h[2] * w[0] - h[0] * w[2]);
  f[5] = m * u[2] - (h[0] * w[1] - h[1] * w[0]);
}

// Spatial inertia (10-number form) of a rigid body of mass `mass`, principal moments `inertia`
// along the columns of the world-frame rotation `R`, com at `offset` from the origin:
//   Io = R diag(inertia) R' + mass (|c|^2 E - c c')   (parallel axis theorem).
inline void inert_com(double* res, const double* inertia, const double* R, const double* offset,
                      double mass) {
  // R diag(i) R' (the six entries of the symmetric result, written out: -O2 keeps small loops)
  const double t0 = R[0] * inertia[0], t1 = R[1] * inertia[1], t2 = R[2] * inertia[2];
  const double t3 = R[3] * inertia[0], t4 = R[4] * inertia[1], t5 = R[5] * inertia[2];
  const double t6 = R[6] * inertia[0], t7 = R[7] * inertia[1], t8 = R[8] * inertia[2];
  double full[9];
  full[0] = t0 * R[0] + t1 * R[1] + t2 * R[2];
  full[1] = t0 * R[3] + t1 * R[4] + t2 * R[5];
  full[2] = t0 * R[6] + t1 * R[7] + t2 * R[8];
  full[4] = t3 * R[3] + t4 * R[4] + t5 * R[5];
  full[5] = t3 * R[6] + t4 * R[7] + t5 * R[8];
  full[8] = t6 * R[6] + t7 * R[7] + t8 * R[8];
  const double* c = offset;
  const double cc = dot3(c, c);
  res[0] = full[0] + mass * (cc - c[0] * c[0]);
  res[1] = full[4] + mass * (cc - c[1] * c[1]);
  res[2] = full[8] + mass * (cc - c[2] * c[2]);
  res[3] = full[1] - mass * c[0] * c[1];
  res[4] = full[2] - mass * c[0] * c[2];
  res[5] = full[5] - mass * c[1] * c[2];
  res[6] = mass * c[0];
  res[7] = mass * c[1];
  res[8] = mass * c[2];
  res[9] = mass;
}

// Spatial motion of a unit rate about a rotation axis through `anchor`, in the frame centred at
// `origin`: [axis; axis x (origin - anchor)] (the linear velocity of the origin point).
inline void dof_rotation(double* cdof, const double* axis, const double* origin, const double* anchor) {
  double r[3];
  sub3(r, origin, anchor);
  copy3(cdof, axis);
  cross3(cdof + 3, axis, r);
}

// Spatial force [torque about origin; force] of a force `f` at `point` plus a free `torque`.
inline void force_at_origin(double* res, const double* f, const double* torque, const double* point,
                            const double* origin) {
  double r[3];
  sub3(r, point, origin);
  cross3(res, r, f);
  add3(res, res, torque);
  copy3(res + 3, f);
}

}  // namespace moreau::math

// Equality constraint rows (computation chapter, "Equality"): the residual r(q) and its Jacobian.
//   connect (3): anchor of body1 minus anchor of body2, both in world coordinates.
//     eq_data: anchor in body1 (0..2), anchor in body2 (3..5; computed by the compiler at qpos0).
//   weld (6): position part as connect, then the orientation error sin(theta/2)*axis (the imaginary
//     part of q2^-1 * q1 * relquat); torquescale scales the orientation rows of the Jacobian (in
//     MuJoCo 2.2.2 not the residual).
//     eq_data: anchor in body2 (0..2), relpose position in body1 (3..5), relpose quaternion
//     (6..9), torquescale (10).
//     Orientation Jacobian: with dq/dt = 0.5 [0,w] q for world angular velocity w, the derivative
//     of q2^-1 q1 r is 0.5 q2^-1 [0, w1 - w2] q1 r, so column k is the imaginary part of
//     0.5 q2^-1 [0, jacr1_k - jacr2_k] q1 r.
//   joint (1): y - y0 = a0 + a1 x' + a2 x'^2 + a3 x'^3 + a4 x'^4, x' = x - x0 (eq_data = a0..a4),
//     y the first joint, x the second (if any).
//   tendon (1): the same polynomial on tendon lengths (tendon_length0 as reference).
// Jdot*v (enable flag jdotv, newer than 2.2.2; computation chapter, "Constraint dynamics"): the
// constraint-space acceleration of connect and weld rows at zero qacc, removed from the reference
// acceleration so that the solver sees a_u = J M^-1 (tau - c) + Jdot v.
//   connect: the difference of the anchors' accelerations at zero qacc. A body's bias spatial
//     acceleration is sum over its dof chain of cdof_dot * qvel (the RNE recursion at qacc = 0);
//     the classical acceleration of a body point p is a_o + alpha x (p - o) + omega x v_p.
//   weld rotation: d/dt of 0.5 imag(q2^-1 [0, w1 - w2] q1 r) with dq/dt = 0.5 [0, w] q:
//     0.5 imag(-0.5 q2^-1 [0,w2] W q1 r + q2^-1 [0, alpha1 - alpha2] q1 r + 0.5 q2^-1 W [0,w1] q1 r).
// diagApprox: sum of the two objects' inverse weights at qpos0 (for connect and weld the
// translational body weights on every row, as MuJoCo 2.2.2). A connect/weld between two bodies
// that no dof moves makes no rows.
#include <algorithm>
#include <cstring>

#include "constraint/storage.h"
#include "math/vec.h"

namespace moreau::constraint {

using namespace math;

namespace {

// Quartic coupling: residual and the derivative dr/dx' of the polynomial part.
inline void polynomial(const double* a, double dx, double* value, double* deriv) {
  *value = a[0] + dx * (a[1] + dx * (a[2] + dx * (a[3] + dx * a[4])));
  *deriv = a[1] + dx * (2 * a[2] + dx * (3 * a[3] + dx * 4 * a[4]));
}

// Columns k of the translational (jacp, 3 x n) and rotational (jacr, 3 x n, may be null)
// Jacobians at point of body, over the dofs chain[0..n) (ascending, a superset of the body's own
// chain); columns of dofs that do not move the body are zero (simulation chapter, "Jacobians").
void chain_jac(const Model& m, const Data& d, const double* point, int body, const int* chain,
               int n, int* own, double* jacp, double* jacr) {
  std::fill_n(jacp, 3 * n, 0.0);
  if (jacr) std::fill_n(jacr, 3 * n, 0.0);
  double r[3];
  sub3(r, point, &d.subtree_com[3 * m.body_rootid[body]]);
  const int no = dof_chain(m, body, own);
  for (int a = no - 1, k = n - 1; a >= 0; --a) {
    while (chain[k] != own[a]) --k;  // own is a subset of chain, both ascending
    const double* cdof = &d.cdof[6 * own[a]];
    double t[3];
    cross3(t, cdof, r);
    for (int c = 0; c < 3; ++c) jacp[c * n + k] = cdof[3 + c] + t[c];
    if (jacr) for (int c = 0; c < 3; ++c) jacr[c * n + k] = cdof[c];
  }
}

void connect_or_weld(const Model& m, Data& d, int e, double* jac, int* chain, bool weld) {
  const int b1 = m.eq_obj1id[e], b2 = m.eq_obj2id[e];
  const double* data = &m.eq_data[kNEQDATA * e];

  // the dofs that move either body (union of the two chains, ascending)
  int* c1 = chain + m.nv;  // chain: 4*nv ints (union, c1, c2, scratch)
  int* c2 = chain + 2 * m.nv;
  int* own = chain + 3 * m.nv;
  const int n1 = dof_chain(m, b1, c1), n2 = dof_chain(m, b2, c2);
  const int n = static_cast<int>(std::set_union(c1, c1 + n1, c2, c2 + n2, chain) - chain);
  // no dof moves either body (both welded to the world): no rows, as MuJoCo 2.2.2
  if (n == 0) return;
  double* jacp1 = jac;
  double* jacr1 = jac + 3 * n;
  double* jacp2 = jac + 6 * n;
  double* jacr2 = jac + 9 * n;
  double* rows = jac + 12 * n;  // 6 rows of n columns

  double p1[3], p2[3];
  equality_anchors(m, d, e, p1, p2);
  double pos[6];
  sub3(pos, p1, p2);
  chain_jac(m, d, p1, b1, chain, n, own, jacp1, weld ? jacr1 : nullptr);
  chain_jac(m, d, p2, b2, chain, n, own, jacp2, weld ? jacr2 : nullptr);
  for (int k = 0; k < 3 * n; ++k) rows[k] = jacp1[k] - jacp2[k];

  int nrow = 3;
  if (weld) {
    nrow = 6;
    const double torquescale = data[10];
    double q1r[4], q2inv[4], err[4];
    mulquat(q1r, &d.xquat[4 * b1], data + 6);
    negquat(q2inv, &d.xquat[4 * b2]);
    mulquat(err, q2inv, q1r);
    for (int k = 0; k < 3; ++k) pos[3 + k] = err[1 + k];  // 2.2.2: torquescale scales J only
    for (int c = 0; c < n; ++c) {
      const double w[4] = {0, jacr1[c] - jacr2[c], jacr1[n + c] - jacr2[n + c],
                           jacr1[2 * n + c] - jacr2[2 * n + c]};
      double t[4], r[4];
      mulquat(t, q2inv, w);
      mulquat(r, t, q1r);
      for (int k = 0; k < 3; ++k) rows[(3 + k) * n + c] = 0.5 * r[1 + k] * torquescale;
    }
  }
  // the columns of common ancestors can cancel exactly: no rows when nothing is left
  bool empty = true;
  for (int k = 0; k < nrow * n && empty; ++k) empty = rows[k] == 0;
  if (empty) return;
  if (!reserve_rows(d, nrow)) return;
  for (int k = 0; k < nrow; ++k) {
    const int i = add_row(m, d, kCnstrEquality, e, n, chain, rows + k * n, pos[k], 0, 0);
    // MuJoCo 2.2.2 uses the translational weights for all rows, the weld's rotation rows too
    d.efc_diagApprox[i] = m.body_invweight0[2 * b1] + m.body_invweight0[2 * b2];
  }
}

void joint_equality(const Model& m, Data& d, int e, double* row) {
  const int nv = m.nv;
  const int j1 = m.eq_obj1id[e], j2 = m.eq_obj2id[e];
  const double* a = &m.eq_data[kNEQDATA * e];
  const int q1 = m.jnt_qposadr[j1], v1 = m.jnt_dofadr[j1];
  std::fill_n(row, nv, 0.0);
  double pos, diag = m.dof_invweight0[v1];
  row[v1] = 1;
  if (j2 >= 0) {
    const int q2 = m.jnt_qposadr[j2], v2 = m.jnt_dofadr[j2];
    double value, deriv;
    polynomial(a, d.qpos[q2] - m.qpos0[q2], &value, &deriv);
    pos = d.qpos[q1] - m.qpos0[q1] - value;
    row[v2] -= deriv;
    diag += m.dof_invweight0[v2];
  } else {
    pos = d.qpos[q1] - m.qpos0[q1] - a[0];
  }
  if (!reserve_rows(d, 1)) return;
  const int i = add_row_dense(m, d, kCnstrEquality, e, row, pos, 0, 0);
  d.efc_diagApprox[i] = diag;
}

void tendon_equality(const Model& m, Data& d, int e, double* row) {
  const int nv = m.nv;
  const int t1 = m.eq_obj1id[e], t2 = m.eq_obj2id[e];
  const double* a = &m.eq_data[kNEQDATA * e];
  const double* J1 = d.ten_J.data() + static_cast<size_t>(t1) * nv;
  double pos, diag = m.tendon_invweight0[t1];
  for (int k = 0; k < nv; ++k) row[k] = J1[k];
  if (t2 >= 0) {
    const double* J2 = d.ten_J.data() + static_cast<size_t>(t2) * nv;
    double value, deriv;
    polynomial(a, d.ten_length[t2] - m.tendon_length0[t2], &value, &deriv);
    pos = d.ten_length[t1] - m.tendon_length0[t1] - value;
    for (int k = 0; k < nv; ++k) row[k] -= deriv * J2[k];
    diag += m.tendon_invweight0[t2];
  } else {
    pos = d.ten_length[t1] - m.tendon_length0[t1] - a[0];
  }
  if (!reserve_rows(d, 1)) return;
  const int i = add_row_dense(m, d, kCnstrEquality, e, row, pos, 0, 0);
  d.efc_diagApprox[i] = diag;
}

// Bias spatial acceleration (rotation, translation; com frame) of a body at zero qacc.
void body_bias(const Model& m, const Data& d, int body, double acc[6]) {
  std::fill_n(acc, 6, 0.0);
  int b = body;
  while (b > 0 && m.body_dofnum[b] == 0) b = m.body_parentid[b];
  if (b <= 0) return;
  for (int i = m.body_dofadr[b] + m.body_dofnum[b] - 1; i >= 0; i = m.dof_parentid[i])
    for (int k = 0; k < 6; ++k) acc[k] += d.cdof_dot[6 * i + k] * d.qvel[i];
}

// Classical acceleration at zero qacc of the point p of body b.
void point_bias(const Model& m, const Data& d, int b, const double* p, const double acc[6], double out[3]) {
  const double* vel = &d.cvel[6 * b];
  double r[3], v[3], t[3];
  sub3(r, p, &d.subtree_com[3 * m.body_rootid[b]]);
  cross3(t, vel, r);
  add3(v, vel + 3, t);  // point velocity
  cross3(t, acc, r);
  add3(out, acc + 3, t);
  cross3(t, vel, v);
  add3(out, out, t);
}

}  // namespace

void equality_anchors(const Model& m, const Data& d, int e, double p1[3], double p2[3]) {
  const int b1 = m.eq_obj1id[e], b2 = m.eq_obj2id[e];
  const double* data = &m.eq_data[kNEQDATA * e];
  const bool weld = m.eq_type[e] == kEqWeld;
  mulmatvec3(p1, &d.xmat[9 * b1], weld ? data + 3 : data);
  add3(p1, p1, &d.xpos[3 * b1]);
  mulmatvec3(p2, &d.xmat[9 * b2], weld ? data : data + 3);
  add3(p2, p2, &d.xpos[3 * b2]);
}

int equality_jdotv(const Model& m, const Data& d, int e, double* out) {
  const int type = m.eq_type[e];
  if (type != kEqConnect && type != kEqWeld) return 0;
  const bool weld = type == kEqWeld;
  const int b1 = m.eq_obj1id[e], b2 = m.eq_obj2id[e];
  const double* data = &m.eq_data[kNEQDATA * e];
  double p1[3], p2[3], acc1[6], acc2[6], a1[3], a2[3];
  equality_anchors(m, d, e, p1, p2);
  body_bias(m, d, b1, acc1);
  body_bias(m, d, b2, acc2);
  point_bias(m, d, b1, p1, acc1, a1);
  point_bias(m, d, b2, p2, acc2, a2);
  sub3(out, a1, a2);
  if (!weld) return 3;
  const double* w1 = &d.cvel[6 * b1];
  const double* w2 = &d.cvel[6 * b2];
  double q1r[4], q2inv[4];
  mulquat(q1r, &d.xquat[4 * b1], data + 6);
  negquat(q2inv, &d.xquat[4 * b2]);
  const double W[4] = {0, w1[0] - w2[0], w1[1] - w2[1], w1[2] - w2[2]};
  const double A[4] = {0, acc1[0] - acc2[0], acc1[1] - acc2[1], acc1[2] - acc2[2]};
  const double O1[4] = {0, w1[0], w1[1], w1[2]};
  const double O2[4] = {0, w2[0], w2[1], w2[2]};
  double t[4], u[4], sum[4] = {0, 0, 0, 0};
  mulquat(t, q2inv, O2);  // -0.5 q2^-1 [0,w2] W q1r
  mulquat(u, t, W);
  mulquat(t, u, q1r);
  for (int k = 0; k < 4; ++k) sum[k] -= 0.5 * t[k];
  mulquat(t, q2inv, A);  // q2^-1 [0, alpha1 - alpha2] q1r
  mulquat(u, t, q1r);
  for (int k = 0; k < 4; ++k) sum[k] += u[k];
  mulquat(t, q2inv, W);  // 0.5 q2^-1 W [0,w1] q1r
  mulquat(u, t, O1);
  mulquat(t, u, q1r);
  for (int k = 0; k < 4; ++k) sum[k] += 0.5 * t[k];
  const double torquescale = data[10];
  for (int k = 0; k < 3; ++k) out[3 + k] = 0.5 * sum[1 + k] * torquescale;
  return 6;
}

void equality_rows(const Model& m, Data& d) {
  if (m.opt.disableflags & kDsblEquality) return;
  const Work w = carve(m, d);
  double* jac = w.jac;
  for (int e = 0; e < m.neq; ++e) {
    if (!d.eq_active[e]) continue;  // run-time switch (Data::eq_active; reset from Model::eq_active)
    switch (m.eq_type[e]) {
      case kEqConnect: connect_or_weld(m, d, e, jac, w.chain, false); break;
      case kEqWeld: connect_or_weld(m, d, e, jac, w.chain, true); break;
      case kEqJoint: joint_equality(m, d, e, jac); break;
      case kEqTendon: tendon_equality(m, d, e, jac); break;
      default: break;  // distance: removed in 2.2.2
    }
  }
}

}  // namespace moreau::constraint

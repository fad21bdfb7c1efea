// Sensor derivatives (derivative/sensor_deriv.h).
//
// Tangent convention: column k of the qpos block is the derivative along dof k's motion, so a point p
// fixed on body b moves with jp_k = w_k x (p - o) + v_k and b's frame rotates with w_k, where
// cdof_k = (w_k, v_k) about o (the com of b's tree) and k carries b; these are also the columns of
// the velocity Jacobian. A rotation matrix moves as dR = [w_k]x R (so d(R' x) = -R' (w_k x x)), a
// quaternion as dq = 0.5 [0, w_k] q, a ball joint's own quaternion as dq = 0.5 q [0, e_c].
// Velocities: with the body's twist V_b = sum_j cdof_j qvel_j, dof k moves the axes it carries,
// d cdof_j = cdof_k x cdof_j, so dV_b = cdof_k x Vm, Vm the part of V_b over the dofs k moves; the
// velocity of p (v_p = v_o + w x (p - o), o held fixed) moves with dV at p plus w x jp_k.
// Quaternion-valued rows are the derivatives of the 4 numbers. Cutoff: a clamped value has
// derivative 0. Noise (sensornoise) depends on time only and leaves the derivatives unchanged.
#include "derivative/sensor_deriv.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "constraint/storage.h"
#include "derivative/contact_geometry.h"
#include "derivative/recycling.h"
#include "derivative/state_copy.h"
#include "derivative/tendon_deriv.h"
#include "engine/pipeline.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "moreau/moreau.h"
#include "sensor/sensor.h"

namespace moreau::internal {

namespace {

using namespace math;
using Vec = RecycledVec;
using IVec = RecycledIntVec;

constexpr double kEps = 1e-6;  // centred-difference step of the fallback rows (transition_fd's)

const char* type_name(int type) {
  switch (type) {
    case kSensTouch: return "touch sensor";
    case kSensForce: return "force sensor";
    case kSensTorque: return "torque sensor";
    case kSensRangefinder: return "rangefinder sensor";
    case kSensTendonPos: return "tendonpos sensor";
    case kSensTendonVel: return "tendonvel sensor (spatial tendon)";
    case kSensActuatorPos: return "actuatorpos sensor";
    case kSensActuatorVel: return "actuatorvel sensor";
    case kSensActuatorFrc: return "actuatorfrc sensor";
    case kSensJointLimitPos: return "jointlimitpos sensor (ball joint)";
    case kSensJointLimitVel: return "jointlimitvel sensor (ball joint)";
    case kSensJointLimitFrc: return "jointlimitfrc sensor";
    case kSensTendonLimitVel: return "tendonlimitvel sensor (spatial tendon)";
    case kSensTendonLimitFrc: return "tendonlimitfrc sensor";
    case kSensPlugin: return "plugin sensor";
    case kSensUser: return "user sensor";
    default: return "sensor";
  }
}

void warn_once(const char* what) {
  static std::mutex mu;
  static const char* said[64];
  static int nsaid = 0;
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < nsaid; ++i)
    if (said[i] == what) return;
  if (nsaid < 64) said[nsaid++] = what;
  std::fprintf(stderr, "moreau: analytic derivatives: %s (C, D rows): computed by finite differences\n", what);
}

bool scalar_joint(const Model& m, int j) { return m.jnt_type[j] == kJointHinge || m.jnt_type[j] == kJointSlide; }

bool fixed_tendon(const Model& m, int t) {
  for (int w = m.tendon_adr[t]; w < m.tendon_adr[t] + m.tendon_num[t]; ++w)
    if (m.wrap_type[w] != kWrapJoint) return false;
  return true;
}

// Whether dof k's motion moves the axis of dof i (both on one chain): i below k, or the other
// rotation axes of k's own ball or free joint; never the world-fixed translations of a free joint.
bool moves(const Model& m, int k, int i) {
  const int ji = m.dof_jntid[i], jk = m.dof_jntid[k];
  if (i == k || (m.jnt_type[ji] == kJointFree && i < m.jnt_dofadr[ji] + 3)) return false;
  if (i > k) return true;
  const bool krot = m.jnt_type[jk] == kJointBall || (m.jnt_type[jk] == kJointFree && k >= m.jnt_dofadr[jk] + 3);
  return krot && ji == jk;
}

// The dofs that carry body b, from b's last dof to the root; returns their number.
int chain(const Model& m, int b, IVec& dofs) {
  while (b > 0 && m.body_dofnum[b] == 0) b = m.body_parentid[b];
  int n = 0;
  if (b <= 0) return 0;
  for (int k = m.body_dofadr[b] + m.body_dofnum[b] - 1; k >= 0; k = m.dof_parentid[k]) dofs[n++] = k;
  return n;
}

// Kinematics of a point p fixed on body b, per dof (3 x nv, column k at 3k, zero for the dofs that
// do not carry b): jp (the point's motion, = its velocity Jacobian), jr (the body's rotation), and
// with `vel` the derivatives along dof k of the body's angular velocity (dw) and of the point's
// velocity (dv). w, v: the angular velocity and the point's velocity.
struct PointKin {
  Vec jp, jr, dw, dv;
  double w[3] = {0, 0, 0}, v[3] = {0, 0, 0};
};

void point_kin(const Model& m, const Data& d, int b, const double* p, bool vel, IVec& dofs, PointKin& pk) {
  const int nv = m.nv;
  pk.jp.assign(3 * static_cast<size_t>(nv), 0.0);
  pk.jr.assign(3 * static_cast<size_t>(nv), 0.0);
  if (vel) {
    pk.dw.assign(3 * static_cast<size_t>(nv), 0.0);
    pk.dv.assign(3 * static_cast<size_t>(nv), 0.0);
  }
  const double* o = &d.subtree_com[3 * m.body_rootid[b]];
  double r[3];
  sub3(r, p, o);
  const int n = chain(m, b, dofs);
  for (int a = 0; a < n; ++a) {
    const int k = dofs[a];
    const double* c = &d.cdof[6 * k];
    double t[3];
    cross3(t, c, r);
    add3(&pk.jp[3 * k], t, c + 3);
    copy3(&pk.jr[3 * k], c);
  }
  if (!vel) return;
  double V[6];
  sensor_detail::point_velocity(m, d, b, p, V);
  copy3(pk.w, V);
  copy3(pk.v, V + 3);
  for (int a = 0; a < n; ++a) {
    const int k = dofs[a];
    const double* ck = &d.cdof[6 * k];
    double Vm[6] = {0, 0, 0, 0, 0, 0};
    for (int e = 0; e < n; ++e) {
      const int j = dofs[e];
      if (!moves(m, k, j)) continue;
      for (int i = 0; i < 6; ++i) Vm[i] += d.cdof[6 * j + i] * d.qvel[j];
    }
    // X = cdof_k x Vm = (w_k x wm, w_k x vm + v_k x wm)
    double X[6], t[3];
    cross3(X, ck, Vm);
    cross3(X + 3, ck, Vm + 3);
    cross3(t, ck + 3, Vm);
    add3(X + 3, X + 3, t);
    copy3(&pk.dw[3 * k], X);
    double* dv = &pk.dv[3 * k];
    cross3(t, X, r);
    add3(dv, X + 3, t);
    cross3(t, pk.w, &pk.jp[3 * k]);
    add3(dv, dv, t);
  }
}

// Whether dof i's motion enters cdof_dot of dof j (both on one chain): the velocity accumulated
// before j, without the other rotation axes of j's own ball or free joint (com_vel).
bool before(const Model& m, int i, int j) {
  if (i >= j) return false;
  const int ji = m.dof_jntid[i], jj = m.dof_jntid[j];
  if (ji != jj) return true;
  return m.jnt_type[jj] == kJointFree && i < m.jnt_dofadr[jj] + 3 && j >= m.jnt_dofadr[jj] + 3;
}

// Derivatives of the acceleration of a point p fixed on body b (3 x ncol each, column-major 3 per
// column): the body's angular acceleration (ang) and the point's classical linear acceleration
// (lin), along (qpos tangent, qvel, act, ctrl) = columns (0, nv, 2nv, 2nv + na). acc: the point's
// acceleration [angular; linear]. With
//   cacc_b = cacc_0 + sum_j cdof_j qacc_j + sum_{i before j} qvel_i qvel_j cdof_i x cdof_j,
// dof k moves the cdof_j it carries (d cdof_j = cdof_k x cdof_j), and a_p = lin + ang x (p - o) +
// w x v_p with o held fixed.
struct AccKin {
  Vec ang, lin;
  double acc[6];
};

void acc_kin(const Model& m, const Data& d, int b, const double* p, const QaccDeriv& qa, IVec& dofs, PointKin& pk,
             AccKin& ak) {
  const int nv = m.nv, na = m.na, nu = m.nu, ncol = 2 * nv + na + nu;
  point_kin(m, d, b, p, true, dofs, pk);
  ak.ang.assign(3 * static_cast<size_t>(ncol), 0.0);
  ak.lin.assign(3 * static_cast<size_t>(ncol), 0.0);
  sensor_detail::point_acceleration(m, d, b, p, ak.acc);
  const double* o = &d.subtree_com[3 * m.body_rootid[b]];
  const double* A = &d.cacc[6 * b];
  double r[3];
  sub3(r, p, o);
  const int n = chain(m, b, dofs);
  // a spatial change X (about o) of cacc added to column c
  auto add = [&](int c, const double* X) {
    double t[3];
    add3(&ak.ang[3 * c], &ak.ang[3 * c], X);
    cross3(t, X, r);
    add3(&ak.lin[3 * c], &ak.lin[3 * c], X + 3);
    add3(&ak.lin[3 * c], &ak.lin[3 * c], t);
  };
  // qacc columns: sum_j cdof_j dqacc_j
  auto qacc_col = [&](int c, const double* g) {
    double X[6] = {0, 0, 0, 0, 0, 0};
    for (int e = 0; e < n; ++e) {
      const int j = dofs[e];
      for (int i = 0; i < 6; ++i) X[i] += d.cdof[6 * j + i] * g[j];
    }
    add(c, X);
  };
  for (int k = 0; k < nv; ++k) {
    qacc_col(k, qa.q + static_cast<size_t>(k) * nv);
    qacc_col(nv + k, qa.v + static_cast<size_t>(k) * nv);
  }
  for (int k = 0; k < na; ++k) qacc_col(2 * nv + k, qa.act + static_cast<size_t>(k) * nv);
  for (int k = 0; k < nu; ++k) qacc_col(2 * nv + na + k, qa.u + static_cast<size_t>(k) * nv);
  const double* qv = d.qvel.data();
  const double* qacc = d.qacc.data();
  for (int a = 0; a < n; ++a) {
    const int k = dofs[a];
    const double* Sk = &d.cdof[6 * k];
    // qpos: cdof_k x (sum_{j moved} qacc_j cdof_j) + the velocity products' change
    double X[6] = {0, 0, 0, 0, 0, 0}, Am[6] = {0, 0, 0, 0, 0, 0}, t6[6], u6[6];
    for (int e = 0; e < n; ++e) {
      const int j = dofs[e];
      if (moves(m, k, j))
        for (int i = 0; i < 6; ++i) Am[i] += d.cdof[6 * j + i] * qacc[j];
    }
    cross_motion(X, Sk, Am);
    for (int e = 0; e < n; ++e) {
      const int j = dofs[e];
      const double* Sj = &d.cdof[6 * j];
      double P[6] = {0, 0, 0, 0, 0, 0}, Pm[6] = {0, 0, 0, 0, 0, 0};
      for (int f = 0; f < n; ++f) {
        const int i = dofs[f];
        if (!before(m, i, j)) continue;
        for (int c = 0; c < 6; ++c) P[c] += d.cdof[6 * i + c] * qv[i];
        if (moves(m, k, i))
          for (int c = 0; c < 6; ++c) Pm[c] += d.cdof[6 * i + c] * qv[i];
      }
      // (cdof_k x Pm) x cdof_j + [k moves j] P x (cdof_k x cdof_j), times qvel_j
      cross_motion(t6, Sk, Pm);
      cross_motion(u6, t6, Sj);
      for (int c = 0; c < 6; ++c) X[c] += qv[j] * u6[c];
      if (moves(m, k, j)) {
        cross_motion(t6, Sk, Sj);
        cross_motion(u6, P, t6);
        for (int c = 0; c < 6; ++c) X[c] += qv[j] * u6[c];
      }
    }
    add(k, X);
    // the point moves (ang(cacc) x jp_k) and its velocity term w x v_p changes
    double t[3];
    cross3(t, A, &pk.jp[3 * k]);
    add3(&ak.lin[3 * k], &ak.lin[3 * k], t);
    cross3(t, &pk.dw[3 * k], pk.v);
    add3(&ak.lin[3 * k], &ak.lin[3 * k], t);
    cross3(t, pk.w, &pk.dv[3 * k]);
    add3(&ak.lin[3 * k], &ak.lin[3 * k], t);
    // qvel: cdof_k x (sum_{k before j} qvel_j cdof_j) + (sum_{i before k} qvel_i cdof_i) x cdof_k
    double After[6] = {0, 0, 0, 0, 0, 0}, Before[6] = {0, 0, 0, 0, 0, 0};
    for (int e = 0; e < n; ++e) {
      const int j = dofs[e];
      if (before(m, k, j))
        for (int c = 0; c < 6; ++c) After[c] += d.cdof[6 * j + c] * qv[j];
      if (before(m, j, k))
        for (int c = 0; c < 6; ++c) Before[c] += d.cdof[6 * j + c] * qv[j];
    }
    cross_motion(X, Sk, After);
    cross_motion(t6, Before, Sk);
    for (int c = 0; c < 6; ++c) X[c] += t6[c];
    add(nv + k, X);
    // w x v_p: d/dqvel_k = jr_k x v_p + w x jp_k
    cross3(t, &pk.jr[3 * k], pk.v);
    add3(&ak.lin[3 * (nv + k)], &ak.lin[3 * (nv + k)], t);
    cross3(t, pk.w, &pk.jp[3 * k]);
    add3(&ak.lin[3 * (nv + k)], &ak.lin[3 * (nv + k)], t);
  }
}

// Object frame (position, rotation matrix, body) of a frame sensor's object or reference.
bool frame_of(const Model& m, const Data& d, int type, int id, const double** p, const double** R, int* b) {
  return sensor_detail::object_frame(m, d, type, id, p, R, b);
}

// Orientation quaternion of an object (as the framequat sensor computes it).
void object_quat(const Model& m, const Data& d, int objtype, int objid, double q[4]) {
  switch (objtype) {
    case kObjXBody: copy4(q, &d.xquat[4 * objid]); return;
    case kObjBody: mulquat(q, &d.xquat[4 * objid], &m.body_iquat[4 * objid]); return;
    case kObjGeom: mulquat(q, &d.xquat[4 * m.geom_bodyid[objid]], &m.geom_quat[4 * objid]); return;
    case kObjSite: mulquat(q, &d.xquat[4 * m.site_bodyid[objid]], &m.site_quat[4 * objid]); return;
    case kObjCamera: mulquat(q, &d.xquat[4 * m.cam_bodyid[objid]], &m.cam_quat[4 * objid]); return;
    default: unitquat(q);
  }
}

// Writes column `col` of a (dim x ncol) row block.
inline void put(double* rows, int ncol, int col, const double* v, int dim) {
  for (int i = 0; i < dim; ++i) rows[static_cast<size_t>(i) * ncol + col] = v[i];
}

// Force and torque sensors (cfrc_int of the site's body b: what its parent exerts on b's subtree),
// written with point quantities, independent of cfrc_int's origin: over the subtree's bodies i,
// with com c_i, classical com acceleration a_i (cacc carries -gravity), angular acceleration
// alpha_i, angular velocity w_i and world inertia I_i = R_i diag R_i',
//   F   = sum_i m_i a_i - F_ext,
//   T_p = sum_i (I_i alpha_i + w_i x I_i w_i + (c_i - p) x m_i a_i) - T_ext,p,
// the external forces being xfrc_applied (at c_i) and the contact forces frame' f_local at the
// contact point on the subtree's bodies (a contact between two of them cancels). The sensors read
// R' F and R' T_p (p, R: the site). Along dof k the inertia turns (dI x = jr x I x - I (jr x x)),
// the points move (jp), each contact's point and frame move as contact_geometry.h derives (the
// contact set held fixed), and the local forces move with d efc_force (qa.force).
void interaction_rows(const Model& m, Data& d, int s, const QaccDeriv& qa, double* Cs, double* Ds, IVec& dofs,
                      PointKin& a, PointKin& r, AccKin& ak) {
  const int nv = m.nv, ndx = 2 * nv + m.na, nu = m.nu, ncol = ndx + nu;
  const int site = m.sensor_objid[s], b = m.site_bodyid[site];
  const bool torque = m.sensor_type[s] == kSensTorque;
  const double* p = &d.site_xpos[3 * site];
  const double* R = &d.site_xmat[9 * site];
  double X[3];  // F or T_p in the world frame, from cfrc_int
  {
    const double* f = &d.cfrc_int[6 * b];
    if (torque) {
      double rr[3], t[3];
      sub3(rr, p, &d.subtree_com[3 * m.body_rootid[b]]);
      cross3(t, rr, f + 3);
      sub3(X, f, t);
    } else {
      copy3(X, f + 3);
    }
  }
  Vec dX(3 * static_cast<size_t>(ncol), 0.0);  // d X, column c at 3c
  point_kin(m, d, b, p, false, dofs, r);      // the site's motion
  auto in_subtree = [&](int i) {
    while (i > b) i = m.body_parentid[i];
    return i == b;
  };
  for (int i = std::max(b, 1); i < m.nbody; ++i) {
    if (!in_subtree(i)) continue;
    const double mi = m.body_mass[i];
    const double* Id = &m.body_inertia[3 * i];
    const double* xf = &d.xfrc_applied[6 * i];
    const bool ext = xf[0] != 0 || xf[1] != 0 || xf[2] != 0 || xf[3] != 0 || xf[4] != 0 || xf[5] != 0;
    if (mi == 0 && Id[0] == 0 && Id[1] == 0 && Id[2] == 0 && !ext) continue;
    const double* ci = &d.xipos[3 * i];
    const double* Ri = &d.ximat[9 * i];
    acc_kin(m, d, i, ci, qa, dofs, a, ak);
    auto inertia = [&](double* out, const double* x) {  // R_i diag R_i' x
      double l[3];
      mulmatTvec3(l, Ri, x);
      for (int e = 0; e < 3; ++e) l[e] *= Id[e];
      mulmatvec3(out, Ri, l);
    };
    double cp[3], ma[3], Iw[3], Ia[3];
    sub3(cp, ci, p);
    scl3(ma, ak.acc + 3, mi);
    inertia(Iw, a.w);
    inertia(Ia, ak.acc);
    for (int c = 0; c < ncol; ++c) {
      double* o = &dX[3 * c];
      const double* dlin = &ak.lin[3 * c];
      if (!torque) {
        addscl3(o, dlin, mi);
        continue;
      }
      double t[3], u[3], g[3];
      cross3(t, cp, dlin);
      addscl3(o, t, mi);
      inertia(t, &ak.ang[3 * c]);
      add3(o, o, t);
      if (c < nv) {
        const double* jr = &a.jr[3 * c];
        const double* dw = &a.dw[3 * c];
        // dI alpha
        cross3(t, jr, Ia);
        add3(o, o, t);
        cross3(t, jr, ak.acc);
        inertia(u, t);
        sub3(o, o, u);
        // dw x I w + w x (dI w + I dw)
        cross3(t, dw, Iw);
        add3(o, o, t);
        cross3(t, jr, Iw);
        cross3(u, jr, a.w);
        inertia(g, u);
        sub3(t, t, g);
        inertia(u, dw);
        add3(t, t, u);
        cross3(u, a.w, t);
        add3(o, o, u);
        // (dc_i - dp) x m a_i, and xfrc_applied's force at c_i
        sub3(t, &a.jp[3 * c], &r.jp[3 * c]);
        cross3(u, t, ma);
        add3(o, o, u);
        if (ext) {
          cross3(u, t, xf);
          sub3(o, o, u);
        }
      } else if (c < 2 * nv) {
        const double* dw = &a.jr[3 * (c - nv)];  // d w / d qvel_k
        cross3(t, dw, Iw);
        add3(o, o, t);
        inertia(t, dw);
        cross3(u, a.w, t);
        add3(o, o, u);
      }
    }
  }
  // contact forces on the subtree's bodies: +frame' f_local on geom2's body, - on geom1's
  if (d.nefc > 0) {
    IVec on1(static_cast<size_t>(std::max(nv, 1))), on2(static_cast<size_t>(std::max(nv, 1)));
    internal::ContactJacobian cj;
    for (int k = 0; k < d.ncon; ++k) {
      const Contact& con = d.contact[k];
      const int adr = con.efc_address;
      if (adr < 0) continue;
      const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
      const double sg = (b2 != 0 && in_subtree(b2) ? 1.0 : 0.0) - (b1 != 0 && in_subtree(b1) ? 1.0 : 0.0);
      if (sg == 0) continue;
      double local[6], fw[3], tw[3], cpp[3];
      contact_force(m, d, k, local);
      mulmatTvec3(fw, con.frame, local);
      mulmatTvec3(tw, con.frame, local + 3);
      sub3(cpp, con.pos, p);
      std::fill(on1.begin(), on1.end(), 0);
      std::fill(on2.begin(), on2.end(), 0);
      for (int e = 0, n = chain(m, b1, dofs); e < n; ++e) on1[dofs[e]] = 1;
      for (int e = 0, n = chain(m, b2, dofs); e < n; ++e) on2[dofs[e]] = 1;
      internal::contact_jacobian(m, d, k, &cj);
      const double* o1 = &d.subtree_com[3 * m.body_rootid[b1]];
      const double* o2 = &d.subtree_com[3 * m.body_rootid[b2]];
      const bool pyramidal = d.efc_type[adr] == kCnstrContactPyramidal;
      for (int c = 0; c < ncol; ++c) {
        const double* df = qa.force + static_cast<size_t>(c) * d.nefc + adr;
        double dl[6] = {0, 0, 0, 0, 0, 0}, dfw[3], dtw[3], t[3], u[3];
        if (pyramidal) {
          for (int e = 0; e < 2 * (con.dim - 1); ++e) dl[0] += df[e];
          for (int j = 1; j < con.dim; ++j) dl[j] = con.friction[j - 1] * (df[2 * (j - 1)] - df[2 * (j - 1) + 1]);
        } else {
          std::copy_n(df, con.dim, dl);
        }
        mulmatTvec3(dfw, con.frame, dl);
        mulmatTvec3(dtw, con.frame, dl + 3);
        double dpos[3] = {0, 0, 0};
        if (c < nv && (on1[c] || on2[c])) {
          double dframe[9], ddist;
          internal::contact_jacobian_apply(m, d, con, cj, &d.cdof[6 * c], on1[c], on2[c], o1, o2, dpos, &ddist,
                                           dframe);
          mulmatTvec3(t, dframe, local);
          add3(dfw, dfw, t);
          mulmatTvec3(t, dframe, local + 3);
          add3(dtw, dtw, t);
        }
        double* o = &dX[3 * c];
        if (!torque) {
          addscl3(o, dfw, -sg);
          continue;
        }
        cross3(t, cpp, dfw);
        add3(t, t, dtw);
        if (c < nv) {
          double w[3];
          sub3(u, dpos, &r.jp[3 * c]);
          cross3(w, u, fw);
          add3(t, t, w);
        }
        addscl3(o, t, -sg);
      }
    }
  }
  // in the site frame: d(R' X) = R' (dX - jr_k x X)
  for (int c = 0; c < ncol; ++c) {
    double t[3], o[3];
    copy3(t, &dX[3 * c]);
    if (c < nv) {
      double u[3];
      cross3(u, &r.jr[3 * c], X);
      sub3(t, t, u);
    }
    mulmatTvec3(o, R, t);
    if (c < ndx)
      put(Cs, ndx, c, o, 3);
    else
      put(Ds, nu, c - ndx, o, 3);
  }
}

// Analytic rows of sensor s into Cs (dim x ndx) and Ds (dim x nu), already zero.
void analytic_rows(const Model& m, Data& d, int s, const QaccDeriv* qa, double* Cs, double* Ds, IVec& dofs,
                   PointKin& a, PointKin& r, AccKin& ak) {
  const int nv = m.nv, ndx = 2 * nv + m.na, nu = m.nu;
  const int type = m.sensor_type[s], objid = m.sensor_objid[s], objtype = m.sensor_objtype[s];
  const int refid = m.sensor_refid.empty() ? -1 : m.sensor_refid[s];
  const int reftype = m.sensor_reftype.empty() ? 0 : m.sensor_reftype[s];
  const double* value = &d.sensordata[m.sensor_adr[s]];
  switch (type) {
    case kSensClock:
      return;
    case kSensJointPos:
      Cs[m.jnt_dofadr[objid]] = 1;
      return;
    case kSensJointVel:
      Cs[nv + m.jnt_dofadr[objid]] = 1;
      return;
    case kSensBallAngVel:
      for (int c = 0; c < 3; ++c) Cs[static_cast<size_t>(c) * ndx + nv + m.jnt_dofadr[objid] + c] = 1;
      return;
    case kSensBallQuat:
      for (int c = 0; c < 3; ++c) {
        double e[4] = {0, 0, 0, 0}, dq[4];
        e[1 + c] = 0.5;
        mulquat(dq, value, e);
        put(Cs, ndx, m.jnt_dofadr[objid] + c, dq, 4);
      }
      return;
    case kSensTendonPos:
      for (int k = 0; k < nv; ++k) Cs[k] = d.ten_J[static_cast<size_t>(objid) * nv + k];
      return;
    case kSensTendonVel: {
      // ten_J qvel; a spatial tendon's ten_J moves with qpos (tendon_deriv.h)
      for (int k = 0; k < nv; ++k) Cs[nv + k] = d.ten_J[static_cast<size_t>(objid) * nv + k];
      if (fixed_tendon(m, objid)) return;
      Vec dJ(static_cast<size_t>(nv) * nv);
      internal::tendon_jacobian_deriv(m, d, objid, dJ.data());
      for (int k = 0; k < nv; ++k)
        for (int i = 0; i < nv; ++i) Cs[k] += dJ[static_cast<size_t>(k) * nv + i] * d.qvel[i];
      return;
    }
    case kSensActuatorPos:
    case kSensActuatorVel: {
      // length: its gradient dlen (the moment for joint and tendon transmissions); velocity:
      // moment qvel, the moment varying with qpos for spatial tendons, sites, slider-cranks
      Vec dlen(nv), dmom(static_cast<size_t>(nv) * nv);
      const bool varying = internal::transmission_deriv(m, d, objid, dlen.data(), dmom.data());
      const double* mom = &d.actuator_moment[static_cast<size_t>(objid) * nv];
      if (type == kSensActuatorPos) {
        for (int k = 0; k < nv; ++k) Cs[k] = dlen[k];
        return;
      }
      for (int k = 0; k < nv; ++k) Cs[nv + k] = mom[k];
      if (varying)
        for (int k = 0; k < nv; ++k)
          for (int i = 0; i < nv; ++i) Cs[k] += dmom[static_cast<size_t>(k) * nv + i] * d.qvel[i];
      return;
    }
    case kSensActuatorFrc: {
      // force = gain(len, vel) input + bias(len, vel) (tendon_deriv.h: affine and muscle gains and
      // biases, actearly's input), len' = dlen, vel = moment qvel with the moment's derivative
      if (m.opt.disableflags & kDsblActuation) return;
      const int u = objid, adr = m.actuator_actadr[u];
      const internal::ActuatorTerms t = internal::actuator_terms(m, d, u);
      if (t.dforce == 0) return;
      Vec dlen(nv), dmom(static_cast<size_t>(nv) * nv);
      const bool varying = internal::transmission_deriv(m, d, u, dlen.data(), dmom.data());
      const double* mom = &d.actuator_moment[static_cast<size_t>(u) * nv];
      const double cl = t.glen * t.input + t.blen, cv = t.gvel * t.input + t.bvel;
      for (int k = 0; k < nv; ++k) {
        double dv = 0;
        if (varying)
          for (int i = 0; i < nv; ++i) dv += dmom[static_cast<size_t>(k) * nv + i] * d.qvel[i];
        Cs[k] = cl * dlen[k] + cv * dv;
        Cs[nv + k] = cv * mom[k];
      }
      if (adr >= 0) {
        Cs[2 * nv + adr] = t.gain * t.din_act;
        Ds[u] = t.gain * t.din_u;
      } else {
        Ds[u] = t.gain * t.dctrl;
      }
      return;
    }
    case kSensTouch:
    case kSensJointLimitFrc:
    case kSensTendonLimitFrc: {
      // touch: the sum of the normal forces of the contacts that count, the set held fixed; limit
      // forces: the active row's efc_force (0 while inactive)
      if (d.nefc == 0 || !qa->force) return;
      const int ncol = ndx + nu;
      auto add_row = [&](int r, double sc) {
        for (int c = 0; c < ncol; ++c) {
          const double v = sc * qa->force[static_cast<size_t>(c) * d.nefc + r];
          if (c < ndx) Cs[c] += v; else Ds[c - ndx] += v;
        }
      };
      if (type != kSensTouch) {
        const int row =
            sensor_detail::limit_row(d, type == kSensJointLimitFrc ? kCnstrLimitJoint : kCnstrLimitTendon, objid);
        if (row >= 0) add_row(row, 1);
        return;
      }
      for (int c = 0; c < d.ncon; ++c) {
        if (!sensor_detail::touch_counts(m, d, objid, c)) continue;
        const Contact& con = d.contact[c];
        const int nrow = d.efc_type[con.efc_address] == kCnstrContactPyramidal ? 2 * (con.dim - 1) : 1;
        for (int k = 0; k < nrow; ++k) add_row(con.efc_address + k, 1);
      }
      return;
    }
    case kSensForce:
    case kSensTorque:
      interaction_rows(m, d, s, *qa, Cs, Ds, dofs, a, r, ak);
      return;
    case kSensAccelerometer:
    case kSensFrameLinAcc:
    case kSensFrameAngAcc: {
      const double *p, *R;
      int b;
      if (type == kSensAccelerometer) {
        p = &d.site_xpos[3 * objid], R = &d.site_xmat[9 * objid], b = m.site_bodyid[objid];
      } else if (!frame_of(m, d, objtype, objid, &p, &R, &b)) {
        return;
      }
      acc_kin(m, d, b, p, *qa, dofs, a, ak);
      for (int c = 0; c < ndx + nu; ++c) {
        double t[3], o[3];
        copy3(t, type == kSensFrameAngAcc ? &ak.ang[3 * c] : &ak.lin[3 * c]);
        if (type == kSensAccelerometer) {  // in the site frame: d(R' a) = R' (da - w_k x a)
          if (c < nv) {
            double u3[3];
            cross3(u3, &a.jr[3 * c], ak.acc + 3);
            sub3(t, t, u3);
          }
          mulmatTvec3(o, R, t);
        } else {
          copy3(o, t);
        }
        if (c < ndx)
          put(Cs, ndx, c, o, 3);
        else
          put(Ds, nu, c - ndx, o, 3);
      }
      return;
    }
    case kSensJointLimitPos:
    case kSensJointLimitVel:
    case kSensTendonLimitPos:
    case kSensTendonLimitVel: {
      // efc_pos - margin and efc_vel = J qvel of the active limit row: along the dofs, d efc_pos = J
      // (the row is the gradient of its distance); J is constant for hinge/slide joints and fixed
      // tendons. 0 (and derivative 0) while the limit is inactive.
      const bool joint = type == kSensJointLimitPos || type == kSensJointLimitVel;
      const int row = sensor_detail::limit_row(d, joint ? kCnstrLimitJoint : kCnstrLimitTendon, objid);
      if (row < 0) return;
      const constraint::SparseRow jr = constraint::row_of(d, constraint::J_values(m, d), row);
      const int off = (type == kSensJointLimitPos || type == kSensTendonLimitPos) ? 0 : nv;
      for (int a = 0; a < jr.nnz; ++a) Cs[off + jr.col[a]] = jr.val[a];
      if (type == kSensTendonLimitVel && !fixed_tendon(m, objid)) {
        // a spatial tendon's row moves with qpos: d(J qvel)/dq = dJ qvel
        Vec J(nv, 0.0), dJ(static_cast<size_t>(nv) * nv);
        for (int a = 0; a < jr.nnz; ++a) J[jr.col[a]] = jr.val[a];
        internal::tendon_row_jacobian_deriv(m, d, row, J.data(), dJ.data());
        for (int k = 0; k < nv; ++k)
          for (int i = 0; i < nv; ++i) Cs[k] += dJ[static_cast<size_t>(k) * nv + i] * d.qvel[i];
      }
      return;
    }
    case kSensMagnetometer: {
      const int b = m.site_bodyid[objid];
      const double* R = &d.site_xmat[9 * objid];
      point_kin(m, d, b, &d.site_xpos[3 * objid], false, dofs, a);
      for (int k = 0; k < nv; ++k) {
        double t[3], o[3];
        cross3(t, &a.jr[3 * k], m.opt.magnetic);
        mulmatTvec3(o, R, t);
        scl3(o, o, -1);
        put(Cs, ndx, k, o, 3);
      }
      return;
    }
    case kSensSubtreeCom: {
      const double M = m.body_subtreemass[objid];
      if (M < kMinVal) return;
      for (int i = objid; i < m.nbody; ++i) {
        int anc = i;
        while (anc > objid) anc = m.body_parentid[anc];
        if (anc != objid || m.body_mass[i] == 0) continue;
        point_kin(m, d, i, &d.xipos[3 * i], false, dofs, a);
        const double c = m.body_mass[i] / M;
        for (int k = 0; k < nv; ++k)
          for (int e = 0; e < 3; ++e) Cs[static_cast<size_t>(e) * ndx + k] += c * a.jp[3 * k + e];
      }
      return;
    }
    case kSensSubtreeLinVel:
    case kSensSubtreeAngMom: {
      // linvel = sum m_i v_i / M; angmom = sum I_i w_i + m_i (x_i - c) x (v_i - v_c) over the
      // subtree's bodies i (com x_i, world inertia I_i = R_i diag R_i'), c its com, v_c = linvel
      const double M = m.body_subtreemass[objid];
      if (M < kMinVal) return;
      auto in_subtree = [&](int i) {
        while (i > objid) i = m.body_parentid[i];
        return i == objid;
      };
      Vec jc(6 * static_cast<size_t>(nv), 0.0);  // d v_c / d q_k at 6k (position: dvc, velocity: jc)
      for (int i = objid; i < m.nbody; ++i) {
        if (!in_subtree(i) || m.body_mass[i] == 0) continue;
        point_kin(m, d, i, &d.xipos[3 * i], true, dofs, a);
        const double w = m.body_mass[i] / M;
        for (int k = 0; k < nv; ++k)
          for (int e = 0; e < 3; ++e) {
            jc[6 * k + e] += w * a.dv[3 * k + e];
            jc[6 * k + 3 + e] += w * a.jp[3 * k + e];
          }
      }
      if (type == kSensSubtreeLinVel) {
        for (int k = 0; k < nv; ++k) {
          put(Cs, ndx, k, &jc[6 * k], 3);
          put(Cs, ndx, nv + k, &jc[6 * k + 3], 3);
        }
        return;
      }
      const double* c = &d.subtree_com[3 * objid];
      const double* vc = &d.subtree_linvel[3 * objid];
      for (int i = objid; i < m.nbody; ++i) {
        if (!in_subtree(i)) continue;
        point_kin(m, d, i, &d.xipos[3 * i], true, dofs, a);
        const double* R = &d.ximat[9 * i];
        const double* I = &m.body_inertia[3 * i];
        auto inertia = [&](double* out, const double* x) {  // R diag(I) R' x
          double l[3];
          mulmatTvec3(l, R, x);
          for (int e = 0; e < 3; ++e) l[e] *= I[e];
          mulmatvec3(out, R, l);
        };
        const double mi = m.body_mass[i];
        double x[3], dvrel[3], Iw[3];
        sub3(x, &d.xipos[3 * i], c);
        sub3(dvrel, a.v, vc);
        inertia(Iw, a.w);
        for (int k = 0; k < nv; ++k) {
          double tq[3], tv[3], t[3], u3[3];
          // position: jr x (I w) - I (jr x w) + I dw + m ((jp - jc) x (v - vc) + x x (dv - dvc))
          cross3(tq, &a.jr[3 * k], Iw);
          cross3(t, &a.jr[3 * k], a.w);
          inertia(u3, t);
          sub3(tq, tq, u3);
          inertia(u3, &a.dw[3 * k]);
          add3(tq, tq, u3);
          sub3(t, &a.jp[3 * k], &jc[6 * k + 3]);
          cross3(u3, t, dvrel);
          addscl3(tq, u3, mi);
          sub3(t, &a.dv[3 * k], &jc[6 * k]);
          cross3(u3, x, t);
          addscl3(tq, u3, mi);
          // velocity: I jr + m x x (jp - jc)
          inertia(tv, &a.jr[3 * k]);
          sub3(t, &a.jp[3 * k], &jc[6 * k + 3]);
          cross3(u3, x, t);
          addscl3(tv, u3, mi);
          for (int e = 0; e < 3; ++e) {
            Cs[static_cast<size_t>(e) * ndx + k] += tq[e];
            Cs[static_cast<size_t>(e) * ndx + nv + k] += tv[e];
          }
        }
      }
      return;
    }
    default:
      break;
  }

  // Frame-like sensors: the object's point and frame (site for velocimeter/gyro), a reference frame.
  const double *p = nullptr, *R = nullptr, *pr = nullptr, *Rr = nullptr;
  int b = -1, br = -1;
  const bool site = type == kSensVelocimeter || type == kSensGyro;
  if (site) {
    p = &d.site_xpos[3 * objid], R = &d.site_xmat[9 * objid], b = m.site_bodyid[objid];
  } else if (!frame_of(m, d, objtype, objid, &p, &R, &b)) {
    return;  // an unsupported object: the sensor is not written
  }
  const bool ref = !site && refid >= 0 && frame_of(m, d, reftype, refid, &pr, &Rr, &br);
  const bool vel = sensor_detail::sensor_stage(m, s) == kStageVel;
  point_kin(m, d, b, p, vel, dofs, a);
  if (ref) point_kin(m, d, br, pr, vel, dofs, r);
  auto rot_r = [&](double* out, const double* x) {  // Rr' x, or x without reference
    if (ref) mulmatTvec3(out, Rr, x); else copy3(out, x);
  };
  switch (type) {
    case kSensFramePos:
    case kSensFrameXAxis:
    case kSensFrameYAxis:
    case kSensFrameZAxis: {
      double x[3];  // the world vector the sensor expresses
      if (type == kSensFramePos) {
        copy3(x, p);
        if (ref) sub3(x, p, pr);
      } else {
        const int c = type - kSensFrameXAxis;
        x[0] = R[c], x[1] = R[3 + c], x[2] = R[6 + c];
      }
      for (int k = 0; k < nv; ++k) {
        double t[3], u3[3], o[3];
        if (type == kSensFramePos) {
          copy3(t, &a.jp[3 * k]);
          if (ref) sub3(t, t, &r.jp[3 * k]);
        } else {
          cross3(t, &a.jr[3 * k], x);
        }
        if (ref) {  // d(Rr' x) = Rr' (dx - wr_k x x)
          cross3(u3, &r.jr[3 * k], x);
          sub3(t, t, u3);
        }
        rot_r(o, t);
        put(Cs, ndx, k, o, 3);
      }
      return;
    }
    case kSensFrameQuat: {
      double q[4], qr[4] = {1, 0, 0, 0}, qrinv[4];
      object_quat(m, d, objtype, objid, q);
      if (refid >= 0) object_quat(m, d, reftype, refid, qr);
      negquat(qrinv, qr);
      // d(qr^-1 q) = 0.5 qr^-1 [0, w_k - wr_k] q
      for (int k = 0; k < nv; ++k) {
        double w[4] = {0, 0.5 * a.jr[3 * k], 0.5 * a.jr[3 * k + 1], 0.5 * a.jr[3 * k + 2]}, t[4], o[4];
        if (ref)
          for (int e = 0; e < 3; ++e) w[1 + e] -= 0.5 * r.jr[3 * k + e];
        mulquat(t, w, q);
        mulquat(o, qrinv, t);
        put(Cs, ndx, k, o, 4);
      }
      return;
    }
    case kSensVelocimeter:
    case kSensGyro: {
      const bool gyro = type == kSensGyro;
      const double* x = gyro ? a.w : a.v;
      for (int k = 0; k < nv; ++k) {
        double t[3], u3[3], o[3];
        copy3(t, gyro ? &a.dw[3 * k] : &a.dv[3 * k]);
        cross3(u3, &a.jr[3 * k], x);
        sub3(t, t, u3);
        mulmatTvec3(o, R, t);
        put(Cs, ndx, k, o, 3);
        mulmatTvec3(o, R, gyro ? &a.jr[3 * k] : &a.jp[3 * k]);
        put(Cs, ndx, nv + k, o, 3);
      }
      return;
    }
    case kSensFrameLinVel:
    case kSensFrameAngVel: {
      const bool ang = type == kSensFrameAngVel;
      double rel[3], dp[3] = {0, 0, 0};
      if (ref) sub3(dp, p, pr);
      if (ang) {
        copy3(rel, a.w);
        if (ref) sub3(rel, rel, r.w);
      } else {
        copy3(rel, a.v);
        if (ref) {
          double t[3];
          sub3(rel, rel, r.v);
          cross3(t, r.w, dp);
          sub3(rel, rel, t);
        }
      }
      for (int k = 0; k < nv; ++k) {
        double tq[3], tv[3], t[3], o[3];
        if (ang) {
          copy3(tq, &a.dw[3 * k]);
          copy3(tv, &a.jr[3 * k]);
          if (ref) {
            sub3(tq, tq, &r.dw[3 * k]);
            sub3(tv, tv, &r.jr[3 * k]);
          }
        } else {
          copy3(tq, &a.dv[3 * k]);
          copy3(tv, &a.jp[3 * k]);
          if (ref) {
            // d rel = dv - dvr - dwr x (p - pr) - wr x (jp - jpr)
            double ddp[3];
            sub3(tq, tq, &r.dv[3 * k]);
            cross3(t, &r.dw[3 * k], dp);
            sub3(tq, tq, t);
            sub3(ddp, &a.jp[3 * k], &r.jp[3 * k]);
            cross3(t, r.w, ddp);
            sub3(tq, tq, t);
            // velocity column: jp - jpr - jr_r x (p - pr)
            sub3(tv, tv, &r.jp[3 * k]);
            cross3(t, &r.jr[3 * k], dp);
            sub3(tv, tv, t);
          }
        }
        if (ref) {  // the reference frame's rotation
          cross3(t, &r.jr[3 * k], rel);
          sub3(tq, tq, t);
        }
        rot_r(o, tq);
        put(Cs, ndx, k, o, 3);
        rot_r(o, tv);
        put(Cs, ndx, nv + k, o, 3);
      }
      return;
    }
    default:
      return;
  }
}

using internal::StateCopy;

}  // namespace

const char* sensor_deriv_unsupported(const Model& m, int s) {
  const int type = m.sensor_type[s], objid = m.sensor_objid[s];
  const int dt = m.sensor_datatype.empty() ? kDataReal : m.sensor_datatype[s];
  const double noise = m.sensor_noise.empty() ? 0 : m.sensor_noise[s];
  if ((m.opt.enableflags & kEnblSensornoise) && noise > 0 && (dt == kDataAxis || dt == kDataQuaternion))
    return "sensor noise on an axis or quaternion";
  switch (type) {
    case kSensClock: case kSensJointPos: case kSensJointVel: case kSensBallQuat: case kSensBallAngVel:
    case kSensMagnetometer: case kSensSubtreeCom: case kSensFramePos: case kSensFrameQuat:
    case kSensFrameXAxis: case kSensFrameYAxis: case kSensFrameZAxis: case kSensVelocimeter:
    case kSensGyro: case kSensFrameLinVel: case kSensFrameAngVel: case kSensAccelerometer:
    case kSensFrameLinAcc: case kSensFrameAngAcc: case kSensSubtreeLinVel: case kSensSubtreeAngMom:
      return nullptr;
    case kSensTendonPos:
      return nullptr;
    case kSensTendonVel:
      return nullptr;
    case kSensActuatorPos:
    case kSensActuatorVel:
      return internal::transmission_deriv_supported(m, objid) ? nullptr : type_name(type);
    case kSensJointLimitPos:
    case kSensJointLimitVel:
      return scalar_joint(m, objid) ? nullptr : type_name(type);
    case kSensTendonLimitPos:
      return nullptr;
    case kSensTendonLimitVel:
      return nullptr;
    case kSensTouch: case kSensForce: case kSensTorque: case kSensJointLimitFrc: case kSensTendonLimitFrc:
      return nullptr;
    case kSensActuatorFrc: {
      const int u = objid;
      const int g = m.actuator_gaintype[u], b = m.actuator_biastype[u], y = m.actuator_dyntype[u];
      if (!internal::transmission_deriv_supported(m, u) || g == kGainUser || b == kBiasUser || y == kDynUser)
        return type_name(type);
      return nullptr;
    }
    default:
      return type_name(type);
  }
}

namespace {
bool reads_forces(int type) {
  return type == kSensTouch || type == kSensForce || type == kSensTorque || type == kSensJointLimitFrc ||
         type == kSensTendonLimitFrc;
}

bool connect_or_weld_active(const Model& m, const Data& d) {
  for (int r = 0; r < d.ne; ++r)
    if (d.efc_type[r] == kCnstrEquality && (m.eq_type[d.efc_id[r]] == kEqConnect || m.eq_type[d.efc_id[r]] == kEqWeld))
      return true;
  return false;
}
}  // namespace

const char* sensor_deriv_unsupported_at(const Model& m, const Data& d, int s, bool force_ok) {
  if (const char* what = sensor_deriv_unsupported(m, s)) return what;
  const int type = m.sensor_type[s];
  if (!reads_forces(type) || d.nefc == 0) return nullptr;
  if (!force_ok) {
    switch (type) {
      case kSensTouch: return "touch sensor (constraint forces with noslip or columns by differences)";
      case kSensForce: return "force sensor (constraint forces with noslip or columns by differences)";
      case kSensTorque: return "torque sensor (constraint forces with noslip or columns by differences)";
      case kSensJointLimitFrc: return "jointlimitfrc sensor (constraint forces with noslip or columns by differences)";
      default: return "tendonlimitfrc sensor (constraint forces with noslip or columns by differences)";
    }
  }
  if ((type == kSensForce || type == kSensTorque) && connect_or_weld_active(m, d))
    return type == kSensForce ? "force sensor (connect or weld forces)" : "torque sensor (connect or weld forces)";
  return nullptr;
}

bool sensors_need_forward(const Model& m) {
  if (m.opt.disableflags & kDsblSensor) return false;
  for (int s = 0; s < m.nsensor; ++s) {
    const int t = m.sensor_type[s];
    if ((t == kSensAccelerometer || t == kSensFrameLinAcc || t == kSensFrameAngAcc || reads_forces(t)) &&
        !sensor_deriv_unsupported(m, s))
      return true;
  }
  return false;
}

void sensor_fallbacks(const Model& m, const Data& d, bool force_ok, std::vector<std::string>& out) {
  if (m.opt.disableflags & kDsblSensor) return;
  std::vector<const char*> said;
  for (int s = 0; s < m.nsensor; ++s) {
    const char* what = sensor_deriv_unsupported_at(m, d, s, force_ok);
    if (!what || std::find(said.begin(), said.end(), what) != said.end()) continue;
    said.push_back(what);
    out.push_back(std::string(what) + " (C, D rows)");
  }
}

void sensor_derivatives(const Model& m, Data& d, double* C, double* D, const QaccDeriv* qa) {
  const int nv = m.nv, na = m.na, nu = m.nu, ndx = 2 * nv + na, ns = m.nsensordata;
  if (!C && !D) return;
  if (C) std::fill_n(C, static_cast<size_t>(ns) * ndx, 0.0);
  if (D) std::fill_n(D, static_cast<size_t>(ns) * nu, 0.0);
  if (ns == 0 || (m.opt.disableflags & kDsblSensor)) return;  // no sensordata: C, D are zero
  const StateCopy st(d);  // the caller's state (forward normalizes quaternions in qpos), restored on return
  forward(m, d);
  // rows of one sensor: C rows (dim x ndx) and D rows (dim x nu), then scattered
  Vec Cs, Ds;
  IVec dofs(static_cast<size_t>(std::max(nv, 1)));
  PointKin a, r;
  AccKin ak;
  bool any_fd = false;
  const bool force_ok = qa && qa->force_ok;
  IVec fb(static_cast<size_t>(std::max(m.nsensor, 1)), 0);  // 1: the sensor's rows by differences
  for (int s = 0; s < m.nsensor; ++s) fb[s] = sensor_deriv_unsupported_at(m, d, s, force_ok) != nullptr;
  for (int s = 0; s < m.nsensor; ++s) {
    if (fb[s]) {
      any_fd = true;
      continue;
    }
    const int dim = m.sensor_dim[s], adr = m.sensor_adr[s];
    Cs.assign(static_cast<size_t>(dim) * ndx, 0.0);
    Ds.assign(static_cast<size_t>(dim) * nu, 0.0);
    const int t = m.sensor_type[s];
    if (!qa && (t == kSensAccelerometer || t == kSensFrameLinAcc || t == kSensFrameAngAcc || t == kSensForce ||
                t == kSensTorque))
      throw std::invalid_argument("sensor_derivatives: the derivatives of qacc are needed");
    analytic_rows(m, d, s, qa, Cs.data(), Ds.data(), dofs, a, r, ak);
    // cutoff: a clamped component has derivative 0
    const double cutoff = m.sensor_cutoff.empty() ? 0 : m.sensor_cutoff[s];
    const int dt = m.sensor_datatype.empty() ? kDataReal : m.sensor_datatype[s];
    for (int i = 0; i < dim; ++i) {
      const double v = d.sensordata[adr + i];
      const bool clamped = cutoff > 0 && ((dt == kDataReal && std::fabs(v) >= cutoff) ||
                                          (dt == kDataPositive && v >= cutoff));
      if (C)
        for (int k = 0; k < ndx; ++k)
          C[static_cast<size_t>(adr + i) * ndx + k] = clamped ? 0 : Cs[static_cast<size_t>(i) * ndx + k];
      if (D)
        for (int k = 0; k < nu; ++k)
          D[static_cast<size_t>(adr + i) * nu + k] = clamped ? 0 : Ds[static_cast<size_t>(i) * nu + k];
    }
  }
  if (!any_fd) {
    st.restore(d);
    return;
  }

  // Fallback rows: centred differences of forward's sensordata.
  for (int s = 0; s < m.nsensor; ++s)
    if (fb[s]) warn_once(sensor_deriv_unsupported_at(m, d, s, force_ok));
  // Stages the perturbation does not change are skipped (as transition_fd does): controls and
  // activations from the actuation stage, velocities from the velocity stage, with the nominal
  // sensordata put back first (the skipped stages' sensors keep it); positions last, the whole
  // pipeline. d holds the nominal position/velocity results (forward above) of the normalized qpos,
  // from which the skipping evaluations start.
  Vec plus(static_cast<size_t>(ns)), minus(static_cast<size_t>(ns)), dq(static_cast<size_t>(nv));
  const Vec nominal(d.sensordata.begin(), d.sensordata.begin() + ns);
  const Vec qposn(d.qpos.begin(), d.qpos.end());
  auto eval = [&](auto perturb, double e, Vec& out, int skip) {
    st.restore(d);
    if (skip != kStageNone) std::copy(qposn.begin(), qposn.end(), d.qpos.begin());
    std::copy(nominal.begin(), nominal.end(), d.sensordata.begin());
    perturb(e);
    internal::forward_skip(m, d, skip, false);
    std::copy_n(d.sensordata.begin(), ns, out.begin());
  };
  // column j of the fallback rows from (plus - minus) / scale
  auto scatter = [&](double* X, int ncol, int j, double scale) {
    for (int s = 0; s < m.nsensor; ++s) {
      if (!fb[s]) continue;
      for (int i = m.sensor_adr[s]; i < m.sensor_adr[s] + m.sensor_dim[s]; ++i)
        X[static_cast<size_t>(i) * ncol + j] = (plus[i] - minus[i]) / scale;
    }
  };
  if (D) {
    const bool clamp = !(m.opt.disableflags & kDsblClampctrl);
    for (int j = 0; j < nu; ++j) {
      auto pu = [&](double e) { d.ctrl[j] += e; };
      bool up = true, down = true;
      if (clamp && m.actuator_ctrllimited[j]) {
        up = st.ctrl[j] + kEps <= m.actuator_ctrlrange[2 * j + 1];
        down = st.ctrl[j] - kEps >= m.actuator_ctrlrange[2 * j];
      }
      if (!up && !down) {
        std::fill(plus.begin(), plus.end(), 0.0);
        std::fill(minus.begin(), minus.end(), 0.0);
        scatter(D, nu, j, 1);
        continue;
      }
      eval(pu, up ? kEps : 0, plus, kStageVel);
      eval(pu, down ? -kEps : 0, minus, kStageVel);
      scatter(D, nu, j, (up ? kEps : 0) + (down ? kEps : 0));
    }
  }
  if (C) {
    for (int j = 0; j < na; ++j) {
      auto pa = [&](double e) { d.act[j] += e; };
      eval(pa, kEps, plus, kStageVel), eval(pa, -kEps, minus, kStageVel);
      scatter(C, ndx, 2 * nv + j, 2 * kEps);
    }
    for (int j = 0; j < nv; ++j) {
      auto pv = [&](double e) { d.qvel[j] += e; };
      eval(pv, kEps, plus, kStagePos), eval(pv, -kEps, minus, kStagePos);
      scatter(C, ndx, nv + j, 2 * kEps);
    }
  }
  if (C) {
    for (int j = 0; j < nv; ++j) {
      auto pq = [&](double e) {
        std::fill(dq.begin(), dq.end(), 0.0);
        dq[j] = 1;
        integrate_pos(m, d.qpos.data(), dq.data(), e);
      };
      eval(pq, kEps, plus, kStageNone), eval(pq, -kEps, minus, kStageNone);
      scatter(C, ndx, j, 2 * kEps);
    }
  }
  st.restore(d);
  forward(m, d);
  st.restore(d);
}

}  // namespace moreau::internal

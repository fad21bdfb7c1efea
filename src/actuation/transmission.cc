// Actuator transmission (computation chapter, "Actuation model" / "Transmission"; mj_transmission):
// the actuator length l(q) and its gradient, the moment arms, for each transmission type. The
// gear vector scales the length and the transmitted force.
#include <algorithm>
#include <cmath>

#include "engine/checks.h"
#include "kinematics/jacobian.h"
#include "math/vec.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {

// Joint transmission of a ball or free joint (scalar joints, l = gear0 q, are done in the stage's
// loop). Ball joints: the gear's first three numbers are a rotation axis; l is the rotation vector
// of the joint quaternion projected on it and the moment arms are the gear (angular velocity dofs
// are in the child frame; with jointinparent the gear is given in the parent frame and is rotated
// into the child frame). Free joints: zero length, moment arms = gear (translation in the parent
// frame, rotation as for ball joints).
void joint_transmission(const Model& m, const Data& d, int u, bool in_parent, double* length,
                        double* moment) {
  const double* gear = &m.actuator_gear[6 * u];
  const int j = m.actuator_trnid[2 * u];
  const int qadr = m.jnt_qposadr[j], dadr = m.jnt_dofadr[j];
  switch (m.jnt_type[j]) {
    case kJointBall: {
      double q[4];
      copy4(q, &d.qpos[qadr]);
      normalize4(q);
      double axis[3];
      quat2vel(axis, q, 1);
      double g[3];
      if (in_parent) {
        double qinv[4];
        negquat(qinv, q);
        rotvecquat(g, gear, qinv);
      } else {
        copy3(g, gear);
      }
      *length = dot3(axis, g);
      for (int k = 0; k < 3; ++k) moment[dadr + k] = g[k];
      break;
    }
    case kJointFree: {
      double g[3];
      if (in_parent) {
        double q[4], qinv[4];
        copy4(q, &d.qpos[qadr + 3]);
        normalize4(q);
        negquat(qinv, q);
        rotvecquat(g, gear + 3, qinv);
      } else {
        copy3(g, gear + 3);
      }
      *length = 0;
      for (int k = 0; k < 3; ++k) {
        moment[dadr + k] = gear[k];
        moment[dadr + 3 + k] = g[k];
      }
      break;
    }
  }
}

// Slider-crank: crank pin at site trnid[0], slider at site trnid[1] moving along its z axis, rod
// length r (cranklength). With v = crank - slider and a = axis: l = a.v - sqrt((a.v)^2 + r^2 - v.v)
// (the slider position that keeps the rod length). dl/dv and dl/da give the moment arms; a rotates
// with the slider's body, da = w x a, so dl = (a x dl/da) . w.
void slidercrank_transmission(const Model& m, const Data& d, int u, double* length, double* moment) {
  const double gear0 = m.actuator_gear[6 * u];
  const int sc = m.actuator_trnid[2 * u], ss = m.actuator_trnid[2 * u + 1];
  const double* pc = &d.site_xpos[3 * sc];
  const double* ps = &d.site_xpos[3 * ss];
  const double* R = &d.site_xmat[9 * ss];
  const double axis[3] = {R[2], R[5], R[8]};
  double v[3];
  sub3(v, pc, ps);
  const double r = m.actuator_cranklength[u];
  const double av = dot3(axis, v);
  const double det = av * av + r * r - dot3(v, v);
  double dldv[3], dlda[3];
  if (det <= 0) {
    // Rod too short for this pose: keep the projection (the square root is dropped).
    *length = av;
    copy3(dldv, axis);
    copy3(dlda, v);
  } else {
    const double sdet = std::sqrt(det);
    *length = av - sdet;
    for (int k = 0; k < 3; ++k) {
      dldv[k] = axis[k] - (av * axis[k] - v[k]) / sdet;
      dlda[k] = v[k] * (1 - av / sdet);
    }
  }
  *length *= gear0;
  scl3(dldv, dldv, gear0);
  scl3(dlda, dlda, gear0);
  double torque[3], neg[3];
  cross3(torque, axis, dlda);
  scl3(neg, dldv, -1);
  const double zero[3] = {0, 0, 0};
  internal::apply_ft(m, d, dldv, zero, pc, m.site_bodyid[sc], moment);
  internal::apply_ft(m, d, neg, torque, ps, m.site_bodyid[ss], moment);
}

// Site: the gear is a wrench (force, torque) in the site frame (or in the frame of refsite, when
// given: then the length is the site's pose relative to refsite projected on the gear).
void site_transmission(const Model& m, const Data& d, int u, double* length, double* moment) {
  const double* gear = &m.actuator_gear[6 * u];
  const int s = m.actuator_trnid[2 * u], ref = m.actuator_trnid[2 * u + 1];
  const int b = m.site_bodyid[s];
  const double zero[3] = {0, 0, 0};
  if (ref < 0) {
    double f[3], t[3];
    mulmatvec3(f, &d.site_xmat[9 * s], gear);
    mulmatvec3(t, &d.site_xmat[9 * s], gear + 3);
    *length = 0;
    internal::apply_ft(m, d, f, t, &d.site_xpos[3 * s], b, moment);
    return;
  }
  // Reference site (newer than 2.2.2).
  const double* Rr = &d.site_xmat[9 * ref];
  const double* pr = &d.site_xpos[3 * ref];
  const double* ps = &d.site_xpos[3 * s];
  const int br = m.site_bodyid[ref];
  double gf[3], gt[3], dp[3];
  mulmatvec3(gf, Rr, gear);
  mulmatvec3(gt, Rr, gear + 3);
  sub3(dp, ps, pr);
  // Relative rotation vector of the site in the reference frame.
  double qs[4], qr[4], qrinv[4], qrel[4], rv[3];
  mat2quat(qs, &d.site_xmat[9 * s]);
  mat2quat(qr, Rr);
  negquat(qrinv, qr);
  mulquat(qrel, qrinv, qs);
  quat2vel(rv, qrel, 1);
  *length = dot3(gf, dp) + dot3(gear + 3, rv);
  // Translation: d(gf.dp) = gf.(v_s - v_r) + w_r.(gf x dp). Rotation: gt.(w_s - w_r).
  double tr[3], ng[3], ngt[3];
  cross3(tr, gf, dp);
  sub3(tr, tr, gt);
  scl3(ng, gf, -1);
  internal::apply_ft(m, d, gf, gt, ps, b, moment);
  internal::apply_ft(m, d, ng, tr, pr, br, moment);
  (void)ngt;
  (void)zero;
}

// Body (adhesion): zero length; the moment arms are minus the average normal Jacobian of the
// contacts of the body's geoms, so a positive force pulls the contacting surfaces together. All
// detected contacts count, also those in the margin-gap band that generate no constraint
// (exclude = 1; the adhesion example inflates geoms with margin and gap for this).
void body_transmission(const Model& m, const Data& d, int u, double* length, double* moment) {
  const int b = m.actuator_trnid[2 * u];
  *length = 0;
  int count = 0;
  for (int c = 0; c < d.ncon; ++c) {
    const Contact& con = d.contact[c];
    if (con.exclude > 1) continue;
    const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
    if (b1 != b && b2 != b) continue;
    // Normal row: n . (J_b2(pos) - J_b1(pos)).
    double n[3], nn[3];
    copy3(n, con.frame);
    scl3(nn, n, -1);
    const double zero[3] = {0, 0, 0};
    internal::apply_ft(m, d, nn, zero, con.pos, b2, moment);
    internal::apply_ft(m, d, n, zero, con.pos, b1, moment);
    ++count;
  }
  if (count > 0) {
    const double s = m.actuator_gear[6 * u] / count;
    for (int i = 0; i < m.nv; ++i) moment[i] *= s;
  }
}

// The dofs that move body b (its chain) lie in [lo, hi): hi after its last dof, lo at the chain's
// root-most dof (dofs are numbered depth first, so every chain dof lies in between). Merged into
// *lo, *hi (an empty span has lo >= hi).
void add_chain_span(const Model& m, int b, int* lo, int* hi) {
  const int last = internal::last_dof(m, b);
  if (last < 0) return;
  int first = last;
  for (int i = last; i >= 0; i = m.dof_parentid[i]) first = i;
  if (*lo >= *hi) {
    *lo = first;
    *hi = last + 1;
  } else {
    *lo = std::min(*lo, first);
    *hi = std::max(*hi, last + 1);
  }
}

// [lo, hi) of the dofs on which actuator u's moment row can be non-zero, from its transmission's
// structure: the joint's dofs; the chains of the sites' bodies; the tendon row's span (ten_J_span,
// set by tendon()); every dof for adhesion (contacts with any body).
void moment_span(const Model& m, const Data& d, int u, int* lo, int* hi) {
  const int id = m.actuator_trnid[2 * u], ref = m.actuator_trnid[2 * u + 1];
  *lo = *hi = 0;
  if (id < 0) return;
  switch (m.actuator_trntype[u]) {
    case kTrnJoint:
    case kTrnJointInParent: {
      const int type = m.jnt_type[id];
      *lo = m.jnt_dofadr[id];
      *hi = *lo + (type == kJointFree ? 6 : type == kJointBall ? 3 : 1);
      return;
    }
    case kTrnSliderCrank:
      add_chain_span(m, m.site_bodyid[id], lo, hi);
      add_chain_span(m, m.site_bodyid[ref], lo, hi);
      return;
    case kTrnSite:
      add_chain_span(m, m.site_bodyid[id], lo, hi);
      if (ref >= 0) add_chain_span(m, m.site_bodyid[ref], lo, hi);
      return;
    case kTrnTendon:
      *lo = d.ten_J_span[2 * id];
      *hi = d.ten_J_span[2 * id + 1];
      return;
    default:
      *hi = m.nv;
      return;
  }
}

// Clears row[lo, hi).
inline void clear_span(double* row, int lo, int hi) {
  for (int i = lo; i < hi; ++i) row[i] = 0;
}

}  // namespace

void transmission(const Model& m, Data& d) {
  internal::check_data(m, d, "transmission");
  const int nv = m.nv, nu = m.nu;
  // The arrays read or written for every actuator, as local pointers so that their loads leave the
  // loop (stores into the rows could otherwise be taken to move them).
  const int* trntype = m.actuator_trntype.data();
  const int* trnid = m.actuator_trnid.data();
  const double* gear = m.actuator_gear.data();
  const int* jnt_type = m.jnt_type.data();
  const int* jnt_qposadr = m.jnt_qposadr.data();
  const int* jnt_dofadr = m.jnt_dofadr.data();
  const double* qpos = d.qpos.data();
  const double* ten_length = d.ten_length.data();
  const double* ten_J = d.ten_J.data();
  const int* ten_span = d.ten_J_span.data();
  double* moments = d.actuator_moment.data();
  int* spans = d.actuator_moment_span.data();
  double* lengths = d.actuator_length.data();
  for (int u = 0; u < nu; ++u) {
    double* moment = moments + static_cast<size_t>(u) * nv;
    int* span = spans + 2 * u;
    // Only the previous span can hold non-zeros. Scalar joints and tendons write every entry of
    // their new span, so the previous one is cleared only where it differs (the span is constant
    // for joints, and for a fixed tendon); this keeps a model with many dofs and few local
    // actuators (humanoid100: 21 x 627) from sweeping nu x nv per step.
    const int id = trnid[2 * u];
    const int type = trntype[u];
    if (id >= 0 && (type == kTrnJoint || type == kTrnJointInParent) &&
        (jnt_type[id] == kJointHinge || jnt_type[id] == kJointSlide)) {
      const int dof = jnt_dofadr[id];
      if (span[0] != dof || span[1] != dof + 1) {
        clear_span(moment, span[0], span[1]);
        span[0] = dof;
        span[1] = dof + 1;
      }
      const double g = gear[6 * u];
      lengths[u] = qpos[jnt_qposadr[id]] * g;
      moment[dof] = g;
      continue;
    }
    if (id >= 0 && type == kTrnTendon) {
      const int lo = ten_span[2 * id], hi = ten_span[2 * id + 1];
      if (span[0] != lo || span[1] != hi) {
        clear_span(moment, span[0], span[1]);
        span[0] = lo;
        span[1] = hi;
      }
      const double g = gear[6 * u];
      lengths[u] = ten_length[id] * g;
      const double* J = ten_J + static_cast<size_t>(id) * nv;
      for (int i = lo; i < hi; ++i) moment[i] = J[i] * g;
      continue;
    }
    // The other transmissions accumulate into the row: it is cleared over the whole previous span.
    if (span[0] < span[1]) std::fill(moment + span[0], moment + span[1], 0.0);
    moment_span(m, d, u, &span[0], &span[1]);
    double length = 0;
    if (id < 0) {
      lengths[u] = 0;
      continue;
    }
    switch (type) {
      case kTrnJoint:
      case kTrnJointInParent:
        joint_transmission(m, d, u, type == kTrnJointInParent, &length, moment);
        break;
      case kTrnSliderCrank:
        slidercrank_transmission(m, d, u, &length, moment);
        break;
      case kTrnSite:
        site_transmission(m, d, u, &length, moment);
        break;
      case kTrnBody:
        body_transmission(m, d, u, &length, moment);
        break;
      default:
        break;
    }
    lengths[u] = length;
  }
}

}  // namespace moreau

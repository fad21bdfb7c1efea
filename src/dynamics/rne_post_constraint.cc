// Body accelerations and interaction forces after the constraint solver (computation chapter,
// mj_rnePostConstraint), used by acceleration/force sensors:
//   cacc[b]     = cacc[parent] + cdof_dot qvel + cdof qacc, with cacc[world] = [0; -gravity];
//   cfrc_ext[b] = external spatial force on b: xfrc_applied at the body com, the contact forces
//                 and the connect/weld forces of the solver, in the com-based frame;
//   cfrc_int[b] = I a + v x* (I v) - cfrc_ext[b] + sum over the children of cfrc_int[child]
//                 (the force that the parent exerts on the subtree of b).
#include "engine/checks.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {

// Add a world force f and torque t acting at `point` on body b to cfrc_ext (scaled by sign).
void add_external(const Model& m, Data& d, int b, const double* f, const double* t, const double* point,
                  double sign) {
  if (b == 0) return;
  double spatial[6];
  force_at_origin(spatial, f, t, point, &d.subtree_com[3 * m.body_rootid[b]]);
  addtoscl6(&d.cfrc_ext[6 * b], spatial, sign);
}

// Connect and weld constraint forces, as MuJoCo 2.2.2 reports them in cfrc_ext. Their rows
// (src/constraint/equality.cc) are J = J1(p1) - J2(p2) for the anchors, so the force f of the three
// position rows acts as +f on body1 at p1 and -f on body2 at p2. The weld's orientation rows are
// 0.5 torquescale Im(q2^-1 [0, w1 - w2] q1 r) per unit angular velocity w = A w: the same J' f
// is produced by the torque 0.5 torquescale A' f_rot on body1 and its opposite on body2.
void equality_forces(const Model& m, Data& d) {
  for (int i = 0; i < d.ne;) {
    const int e = d.efc_id[i];
    const int type = m.eq_type[e];
    if (d.efc_type[i] != kCnstrEquality || (type != kEqConnect && type != kEqWeld)) {
      ++i;
      continue;
    }
    const bool weld = type == kEqWeld;
    const int b1 = m.eq_obj1id[e], b2 = m.eq_obj2id[e];
    const double* data = &m.eq_data[kNEQDATA * e];
    double p1[3], p2[3];
    mulmatvec3(p1, &d.xmat[9 * b1], weld ? data + 3 : data);
    add3(p1, p1, &d.xpos[3 * b1]);
    mulmatvec3(p2, &d.xmat[9 * b2], weld ? data : data + 3);
    add3(p2, p2, &d.xpos[3 * b2]);
    const double* f = &d.efc_force[i];
    const double zero[3] = {0, 0, 0};
    add_external(m, d, b1, f, zero, p1, 1.0);
    add_external(m, d, b2, f, zero, p2, -1.0);
    if (weld) {
      double q1r[4], q2inv[4], torque[3] = {0, 0, 0};
      mulquat(q1r, &d.xquat[4 * b1], data + 6);
      negquat(q2inv, &d.xquat[4 * b2]);
      for (int j = 0; j < 3; ++j) {  // column j of A, dotted with f_rot: (A' f_rot)_j
        double w[4] = {0, 0, 0, 0}, t[4], r[4];
        w[1 + j] = 1;
        mulquat(t, q2inv, w);
        mulquat(r, t, q1r);
        torque[j] = 0.5 * data[10] * (r[1] * f[3] + r[2] * f[4] + r[3] * f[5]);
      }
      add_external(m, d, b1, zero, torque, p1, 1.0);
      add_external(m, d, b2, zero, torque, p2, -1.0);
    }
    i += weld ? 6 : 3;
  }
}

}  // namespace

void rne_post_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "rne_post_constraint");
  // external forces: xfrc_applied (force, torque at xipos) as a spatial force about the origin
  zero6(&d.cfrc_ext[0]);
  for (int b = 1; b < m.nbody; ++b) {
    const double* x = &d.xfrc_applied[6 * b];
    force_at_origin(&d.cfrc_ext[6 * b], x, x + 3, &d.xipos[3 * b], &d.subtree_com[3 * m.body_rootid[b]]);
  }
  // contact forces: +f on geom2's body, -f on geom1's body (the frame's normal points from geom1
  // to geom2), applied at the contact point; the frame rows map contact to world coordinates.
  for (int c = 0; c < d.ncon; ++c) {
    const Contact& con = d.contact[c];
    if (con.efc_address < 0) continue;
    double local[6], f[3], t[3];
    contact_force(m, d, c, local);
    mulmatTvec3(f, con.frame, local);
    mulmatTvec3(t, con.frame, local + 3);
    add_external(m, d, m.geom_bodyid[con.geom1], f, t, con.pos, -1.0);
    add_external(m, d, m.geom_bodyid[con.geom2], f, t, con.pos, 1.0);
  }

  equality_forces(m, d);

  zero6(&d.cacc[0]);
  if (!(m.opt.disableflags & kDsblGravity)) scl3(&d.cacc[3], m.opt.gravity, -1.0);
  zero6(&d.cfrc_int[0]);
  for (int b = 1; b < m.nbody; ++b) {
    double* a = &d.cacc[6 * b];
    copy6(a, &d.cacc[6 * m.body_parentid[b]]);
    const int dofadr = m.body_dofadr[b];
    for (int i = dofadr; i < dofadr + m.body_dofnum[b]; ++i) {
      addtoscl6(a, &d.cdof_dot[6 * i], d.qvel[i]);
      addtoscl6(a, &d.cdof[6 * i], d.qacc[i]);
    }
    const double* I = &d.cinert[10 * b];
    const double* v = &d.cvel[6 * b];
    double* f = &d.cfrc_int[6 * b];
    double Iv[6], vxIv[6];
    mul_inert_vec(f, I, a);
    mul_inert_vec(Iv, I, v);
    cross_force(vxIv, v, Iv);
    addto6(f, vxIv);
    for (int k = 0; k < 6; ++k) f[k] -= d.cfrc_ext[6 * b + k];
  }
  // the world body receives the sum over its children: the total force the world exerts
  for (int b = m.nbody - 1; b > 0; --b) addto6(&d.cfrc_int[6 * m.body_parentid[b]], &d.cfrc_int[6 * b]);
}

}  // namespace moreau

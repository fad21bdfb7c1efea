// Body accelerations and interaction forces after the constraint solver (computation chapter,
// mj_rnePostConstraint), used by acceleration/force sensors:
//   cacc[b]     = cacc[parent] + cdof_dot qvel + cdof qacc, with cacc[world] = [0; -gravity];
//   cfrc_ext[b] = external spatial force on b: xfrc_applied at the body com and the contact
//                 forces of the solver, in the com-based frame;
//   cfrc_int[b] = I a + v x* (I v) - cfrc_ext[b] + sum over the children of cfrc_int[child]
//                 (the force that the parent exerts on the subtree of b).
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void rne_post_constraint(const Model& m, Data& d) {
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
    double local[6], f[3], t[3], spatial[6];
    contact_force(m, d, c, local);
    mulmatTvec3(f, con.frame, local);
    mulmatTvec3(t, con.frame, local + 3);
    for (int side = 0; side < 2; ++side) {
      const int b = m.geom_bodyid[side == 0 ? con.geom1 : con.geom2];
      if (b == 0) continue;
      force_at_origin(spatial, f, t, con.pos, &d.subtree_com[3 * m.body_rootid[b]]);
      addtoscl6(&d.cfrc_ext[6 * b], spatial, side == 0 ? -1.0 : 1.0);
    }
  }

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

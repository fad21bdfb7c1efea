// Recursive Newton-Euler (computation chapter, mj_rne; Featherstone RBDA 5.3) in com-based frames:
//   result = M(q) qacc + C(q, qvel)   (flg_acc), or C(q, qvel) = qfrc_bias (!flg_acc),
// where C holds Coriolis, centrifugal and gravitational forces. Gravity enters as a fictitious
// upward acceleration of the world, cacc[world] = [0; -gravity].
//   forward:  a[b] = a[parent] + sum_i (cdof_dot_i qvel_i + cdof_i qacc_i)
//             f[b] = I[b] a[b] + v[b] x* (I[b] v[b])
//   backward: f[parent] += f[b];  result_i = cdof_i . f[body(i)]
// Armature is not included (it is not part of the body inertias).
#include "dynamics/dynamics.h"
#include "engine/checks.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void rne(const Model& m, Data& d, bool flg_acc, double* result) {
  internal::check_data(m, d, "rne");
  internal::check_ptr(result, m.nv, "rne", "result");
  double* cacc = internal::dynamics_work(d);
  double* cfrc = cacc + 6 * m.nbody;

  zero6(cacc);
  if (!(m.opt.disableflags & kDsblGravity)) scl3(cacc + 3, m.opt.gravity, -1.0);

  for (int b = 1; b < m.nbody; ++b) {
    double* a = cacc + 6 * b;
    copy6(a, cacc + 6 * m.body_parentid[b]);
    const int dofadr = m.body_dofadr[b];
    for (int i = dofadr; i < dofadr + m.body_dofnum[b]; ++i) {
      addtoscl6(a, &d.cdof_dot[6 * i], d.qvel[i]);
      if (flg_acc) addtoscl6(a, &d.cdof[6 * i], d.qacc[i]);
    }
    // f = I a + v x* (I v)
    const double* I = &d.cinert[10 * b];
    const double* v = &d.cvel[6 * b];
    double Iv[6], vxIv[6];
    mul_inert_vec(cfrc + 6 * b, I, a);
    mul_inert_vec(Iv, I, v);
    cross_force(vxIv, v, Iv);
    addto6(cfrc + 6 * b, vxIv);
  }

  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    if (p > 0) addto6(cfrc + 6 * p, cfrc + 6 * b);
  }

  for (int i = 0; i < m.nv; ++i) result[i] = dot6(&d.cdof[6 * i], cfrc + 6 * m.dof_bodyid[i]);
}

}  // namespace moreau

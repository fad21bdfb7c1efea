// Subtree linear velocity and angular momentum (mj_subtreeVel), needed by the subtreelinvel and
// subtreeangmom sensors. One backward pass over the bodies (children have larger ids):
//   subtree_linvel[b] = (sum_i m_i v_i) / M_b over the subtree of b,
//   subtree_angmom[b] = sum_i I_i w_i + m_i (x_i - c_b) x (v_i - v_b)  (about the subtree com c_b),
// accumulated child by child with L_parent += L_child + M_child (c_child - c_parent) x (v_child - v_parent).
#include "engine/checks.h"
#include "math/vec.h"
#include "sensor/sensor.h"

namespace moreau {

using namespace math;

void subtree_vel(const Model& m, Data& d) {
  internal::check_data(m, d, "subtree_vel");
  const int nb = m.nbody;
  // Linear momentum of each body's com, summed into the parents, then divided by the subtree mass.
  for (int b = 0; b < nb; ++b) {
    double v[6];
    sensor_detail::point_velocity(m, d, b, &d.xipos[3 * b], v);
    scl3(&d.subtree_linvel[3 * b], v + 3, m.body_mass[b]);
  }
  for (int b = nb - 1; b > 0; --b)
    add3(&d.subtree_linvel[3 * m.body_parentid[b]], &d.subtree_linvel[3 * m.body_parentid[b]],
         &d.subtree_linvel[3 * b]);
  for (int b = 0; b < nb; ++b) {
    const double M = m.body_subtreemass[b];
    scl3(&d.subtree_linvel[3 * b], &d.subtree_linvel[3 * b], M > kMinVal ? 1 / M : 0.0);
  }

  // Each body's own angular momentum about its subtree com, then the children's.
  for (int b = 0; b < nb; ++b) {
    double v[6], wl[3], Iw[3], dx[3], dv[3], t[3];
    sensor_detail::point_velocity(m, d, b, &d.xipos[3 * b], v);
    const double* R = &d.ximat[9 * b];
    mulmatTvec3(wl, R, v);
    for (int k = 0; k < 3; ++k) wl[k] *= m.body_inertia[3 * b + k];
    mulmatvec3(Iw, R, wl);
    sub3(dx, &d.xipos[3 * b], &d.subtree_com[3 * b]);
    sub3(dv, v + 3, &d.subtree_linvel[3 * b]);
    cross3(t, dx, dv);
    addscl3(Iw, t, m.body_mass[b]);
    copy3(&d.subtree_angmom[3 * b], Iw);
  }
  for (int b = nb - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    double dx[3], dv[3], t[3];
    sub3(dx, &d.subtree_com[3 * b], &d.subtree_com[3 * p]);
    sub3(dv, &d.subtree_linvel[3 * b], &d.subtree_linvel[3 * p]);
    cross3(t, dx, dv);
    add3(&d.subtree_angmom[3 * p], &d.subtree_angmom[3 * p], &d.subtree_angmom[3 * b]);
    addscl3(&d.subtree_angmom[3 * p], t, m.body_subtreemass[b]);
  }
}

}  // namespace moreau

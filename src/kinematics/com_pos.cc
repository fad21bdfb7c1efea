// Com-based frames (computation chapter, stage 3, mj_comPos): subtree centres of mass, body spatial
// inertias (cinert) and joint motion subspaces (cdof), all in the frame with world orientation
// centred at subtree_com[body_rootid[b]].
#include "engine/checks.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void com_pos(const Model& m, Data& d) {
  internal::check_data(m, d, "com_pos");
  // subtree com: mass-weighted mean of the inertial frames, accumulated from the leaves up
  for (int b = 0; b < m.nbody; ++b) scl3(&d.subtree_com[3 * b], &d.xipos[3 * b], m.body_mass[b]);
  for (int b = m.nbody - 1; b > 0; --b)
    add3(&d.subtree_com[3 * m.body_parentid[b]], &d.subtree_com[3 * m.body_parentid[b]],
         &d.subtree_com[3 * b]);
  for (int b = 0; b < m.nbody; ++b) {
    const double mass = m.body_subtreemass[b];
    if (mass < kMinVal)
      copy3(&d.subtree_com[3 * b], &d.xipos[3 * b]);
    else
      scl3(&d.subtree_com[3 * b], &d.subtree_com[3 * b], 1.0 / mass);
  }

  // cinert: principal inertia rotated to world, shifted to the root's subtree com
  for (int k = 0; k < 10; ++k) d.cinert[k] = 0;
  for (int b = 1; b < m.nbody; ++b) {
    double offset[3];
    sub3(offset, &d.xipos[3 * b], &d.subtree_com[3 * m.body_rootid[b]]);
    inert_com(&d.cinert[10 * b], &m.body_inertia[3 * b], &d.ximat[9 * b], offset, m.body_mass[b]);
  }

  // cdof: unit motion of each dof
  for (int j = 0; j < m.njnt; ++j) {
    const int b = m.jnt_bodyid[j];
    const double* origin = &d.subtree_com[3 * m.body_rootid[b]];
    const double* anchor = &d.xanchor[3 * j];
    double* cdof = &d.cdof[6 * m.jnt_dofadr[j]];
    switch (m.jnt_type[j]) {
      case kJointFree:
        // translations along the world axes
        zero6(cdof);
        zero6(cdof + 6);
        zero6(cdof + 12);
        cdof[3] = cdof[10] = cdof[17] = 1;
        cdof += 18;
        [[fallthrough]];
      case kJointBall: {
        // rotations about the body's own axes (ball/free angular velocity is in the body frame)
        const double* R = &d.xmat[9 * b];
        for (int k = 0; k < 3; ++k) {
          const double axis[3] = {R[k], R[3 + k], R[6 + k]};
          dof_rotation(cdof + 6 * k, axis, origin, anchor);
        }
        break;
      }
      case kJointSlide:
        zero3(cdof);
        copy3(cdof + 3, &d.xaxis[3 * j]);
        break;
      case kJointHinge:
        dof_rotation(cdof, &d.xaxis[3 * j], origin, anchor);
        break;
    }
  }
}

}  // namespace moreau

// Com-based velocities (computation chapter, mj_comVel): body spatial velocities cvel and the time
// derivatives cdof_dot of the dof motion vectors.
//
// cvel[b] = cvel[parent] + sum over the dofs of b of cdof_i * qvel_i.
// A dof axis fixed in the frame that precedes the joint moves with that frame's velocity v, so its
// derivative is the motion cross product v x cdof_i (Featherstone's crm). Hinge and slide axes
// follow the velocity accumulated up to that joint; the three rotation axes of a ball (or of the
// rotational part of a free joint) are taken with the velocity before the joint's own rotation
// (their mutual terms w x w vanish in cdof_dot * qvel); the world-fixed translation axes of a free
// joint have zero derivative.
#include "engine/checks.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

void com_vel(const Model& m, Data& d) {
  internal::check_data(m, d, "com_vel");
  zero6(&d.cvel[0]);
  for (int b = 1; b < m.nbody; ++b) {
    double v[6];
    copy6(v, &d.cvel[6 * m.body_parentid[b]]);
    const int jadr = m.body_jntadr[b];
    for (int j = jadr; j < jadr + m.body_jntnum[b]; ++j) {
      int i = m.jnt_dofadr[j];
      switch (m.jnt_type[j]) {
        case kJointFree:
          for (int k = 0; k < 3; ++k, ++i) {
            zero6(&d.cdof_dot[6 * i]);
            addtoscl6(v, &d.cdof[6 * i], d.qvel[i]);
          }
          [[fallthrough]];
        case kJointBall:
          for (int k = 0; k < 3; ++k) cross_motion(&d.cdof_dot[6 * (i + k)], v, &d.cdof[6 * (i + k)]);
          for (int k = 0; k < 3; ++k) addtoscl6(v, &d.cdof[6 * (i + k)], d.qvel[i + k]);
          break;
        default:
          cross_motion(&d.cdof_dot[6 * i], v, &d.cdof[6 * i]);
          addtoscl6(v, &d.cdof[6 * i], d.qvel[i]);
          break;
      }
    }
    copy6(&d.cvel[6 * b], v);
  }
}

}  // namespace moreau

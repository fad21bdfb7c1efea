// Operations on the configuration manifold (simulation chapter, "State and control"; computation
// chapter, integrators): qpos has nq entries, qvel nv; ball and free joints hold unit quaternions in
// qpos and local-frame angular velocities in qvel, so positions are integrated with the exponential
// map q <- q * exp(w dt / 2) rather than added.
#include "engine/checks.h"
#include "math/vec.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;


void integrate_pos(const Model& m, double* qpos, const double* qvel, double dt) {
  internal::check_ptr(qpos, m.nq, "integrate_pos", "qpos");
  internal::check_ptr(qvel, m.nv, "integrate_pos", "qvel");
  for (int j = 0; j < m.njnt; ++j) {
    int qadr = m.jnt_qposadr[j];
    int vadr = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case kJointFree:
        for (int c = 0; c < 3; ++c) qpos[qadr + c] += dt * qvel[vadr + c];
        qadr += 3;
        vadr += 3;
        [[fallthrough]];
      case kJointBall:
        quatintegrate(qpos + qadr, qvel + vadr, dt);
        break;
      default:
        qpos[qadr] += dt * qvel[vadr];
        break;
    }
  }
}

void differentiate_pos(const Model& m, double* qvel, double dt, const double* qpos1, const double* qpos2) {
  internal::check_ptr(qvel, m.nv, "differentiate_pos", "qvel");
  internal::check_ptr(qpos1, m.nq, "differentiate_pos", "qpos1");
  internal::check_ptr(qpos2, m.nq, "differentiate_pos", "qpos2");
  for (int j = 0; j < m.njnt; ++j) {
    int qadr = m.jnt_qposadr[j];
    int vadr = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case kJointFree:
        for (int c = 0; c < 3; ++c) qvel[vadr + c] = (qpos2[qadr + c] - qpos1[qadr + c]) / dt;
        qadr += 3;
        vadr += 3;
        [[fallthrough]];
      case kJointBall: {
        // angular velocity w with qpos1 * exp(w dt / 2) = qpos2
        double q1[4], q2[4], dif[3];
        copy4(q1, qpos1 + qadr);
        copy4(q2, qpos2 + qadr);
        normalize4(q1);
        normalize4(q2);
        subquat(dif, q2, q1);
        scl3(qvel + vadr, dif, 1.0 / dt);
        break;
      }
      default:
        qvel[vadr] = (qpos2[qadr] - qpos1[qadr]) / dt;
        break;
    }
  }
}

void normalize_quat(const Model& m, double* qpos) {
  internal::check_ptr(qpos, m.nq, "normalize_quat", "qpos");
  for (int j = 0; j < m.njnt; ++j) {
    const int t = m.jnt_type[j];
    if (t == kJointFree)
      normalize4(qpos + m.jnt_qposadr[j] + 3);
    else if (t == kJointBall)
      normalize4(qpos + m.jnt_qposadr[j]);
  }
}

}  // namespace moreau

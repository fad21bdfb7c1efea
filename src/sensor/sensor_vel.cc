// Velocity-stage sensors (mj_sensorVel): everything that depends on qpos and qvel.
#include "engine/checks.h"
#include "math/vec.h"
#include "sensor/sensor.h"

namespace moreau {

using namespace math;
using namespace sensor_detail;

void sensor_vel(const Model& m, Data& d) {
  internal::check_data(m, d, "sensor_vel");
  if (m.opt.disableflags & kDsblSensor) return;
  bool subtree_done = false;
  for (int s = 0; s < m.nsensor; ++s) {
    if (sensor_stage(m, s) != kStageVel) continue;
    if (m.sensor_type[s] == kSensUser) continue;  // user_sensors below
    const int objid = m.sensor_objid[s], objtype = m.sensor_objtype[s];
    const int refid = m.sensor_refid.empty() ? -1 : m.sensor_refid[s];
    const int reftype = m.sensor_reftype.empty() ? 0 : m.sensor_reftype[s];
    double* out = &d.sensordata[m.sensor_adr[s]];
    const int type = m.sensor_type[s];
    switch (type) {
      case kSensVelocimeter:
      case kSensGyro: {  // site velocity in the site frame
        double v[6];
        point_velocity(m, d, m.site_bodyid[objid], &d.site_xpos[3 * objid], v);
        mulmatTvec3(out, &d.site_xmat[9 * objid], type == kSensGyro ? v : v + 3);
        break;
      }
      case kSensJointVel:
        out[0] = d.qvel[m.jnt_dofadr[objid]];
        break;
      case kSensTendonVel:
        out[0] = d.ten_velocity[objid];
        break;
      case kSensActuatorVel:
        out[0] = d.actuator_velocity[objid];
        break;
      case kSensBallAngVel:
        copy3(out, &d.qvel[m.jnt_dofadr[objid]]);
        break;
      case kSensJointLimitVel:
      case kSensTendonLimitVel: {
        const int r = limit_row(d, type == kSensJointLimitVel ? kCnstrLimitJoint : kCnstrLimitTendon, objid);
        out[0] = r >= 0 ? d.efc_vel[r] : 0;
        break;
      }
      case kSensFrameLinVel:
      case kSensFrameAngVel: {
        const double *p, *R;
        int b;
        if (!object_frame(m, d, objtype, objid, &p, &R, &b)) break;
        double v[6];
        point_velocity(m, d, b, p, v);
        const double *pr, *Rr;
        int br;
        if (refid >= 0 && object_frame(m, d, reftype, refid, &pr, &Rr, &br)) {
          // Relative to the moving reference frame, expressed in it:
          // w_rel = w - w_ref, v_rel = v - v_ref(p_ref) - w_ref x (p - p_ref).
          double vr[6], rel[3], t[3];
          point_velocity(m, d, br, pr, vr);
          if (type == kSensFrameAngVel) {
            sub3(rel, v, vr);
          } else {
            double dp[3];
            sub3(dp, p, pr);
            cross3(t, vr, dp);
            sub3(rel, v + 3, vr + 3);
            sub3(rel, rel, t);
          }
          mulmatTvec3(out, Rr, rel);
        } else {
          copy3(out, type == kSensFrameAngVel ? v : v + 3);
        }
        break;
      }
      case kSensSubtreeLinVel:
      case kSensSubtreeAngMom:
        if (!subtree_done) {
          subtree_vel(m, d);
          subtree_done = true;
        }
        copy3(out, type == kSensSubtreeLinVel ? &d.subtree_linvel[3 * objid] : &d.subtree_angmom[3 * objid]);
        break;
      default:
        break;
    }
    finish_sensor(m, d, s);
  }
  user_sensors(m, d, kStageVel);
}

}  // namespace moreau

// Position-stage sensors (mj_sensorPos): everything that depends on qpos only.
#include <cmath>

#include "engine/checks.h"
#include "math/vec.h"
#include "sensor/sensor.h"

namespace moreau {

using namespace math;
using namespace sensor_detail;

namespace {
// Orientation quaternion of a frame sensor's object.
void object_quat(const Model& m, const Data& d, int objtype, int objid, double q[4]) {
  switch (objtype) {
    case kObjXBody:
      copy4(q, &d.xquat[4 * objid]);
      return;
    case kObjBody:
      mulquat(q, &d.xquat[4 * objid], &m.body_iquat[4 * objid]);
      return;
    case kObjGeom:
      mulquat(q, &d.xquat[4 * m.geom_bodyid[objid]], &m.geom_quat[4 * objid]);
      return;
    case kObjSite:
      mulquat(q, &d.xquat[4 * m.site_bodyid[objid]], &m.site_quat[4 * objid]);
      return;
    case kObjCamera:
      mulquat(q, &d.xquat[4 * m.cam_bodyid[objid]], &m.cam_quat[4 * objid]);
      return;
    default:
      unitquat(q);
  }
}
}  // namespace

void sensor_pos(const Model& m, Data& d) {
  internal::check_data(m, d, "sensor_pos");
  if (m.opt.disableflags & kDsblSensor) return;
  for (int s = 0; s < m.nsensor; ++s) {
    if (sensor_stage(m, s) != kStagePos) continue;
    if (m.sensor_type[s] == kSensUser) continue;  // user_sensors below
    const int objid = m.sensor_objid[s], objtype = m.sensor_objtype[s];
    const int refid = m.sensor_refid.empty() ? -1 : m.sensor_refid[s];
    const int reftype = m.sensor_reftype.empty() ? 0 : m.sensor_reftype[s];
    double* out = &d.sensordata[m.sensor_adr[s]];
    switch (m.sensor_type[s]) {
      case kSensMagnetometer:  // magnetic field in the site frame
        mulmatTvec3(out, &d.site_xmat[9 * objid], m.opt.magnetic);
        break;
      case kSensRangefinder: {  // distance along the site's z axis, -1 if nothing is hit
        const double* R = &d.site_xmat[9 * objid];
        const double dir[3] = {R[2], R[5], R[8]};
        int geom;
        out[0] = ray(m, d, &d.site_xpos[3 * objid], dir, m.site_bodyid[objid], &geom);
        break;
      }
      case kSensJointPos:
        out[0] = d.qpos[m.jnt_qposadr[objid]];
        break;
      case kSensTendonPos:
        out[0] = d.ten_length[objid];
        break;
      case kSensActuatorPos:
        out[0] = d.actuator_length[objid];
        break;
      case kSensBallQuat:
        copy4(out, &d.qpos[m.jnt_qposadr[objid]]);
        normalize4(out);
        break;
      case kSensJointLimitPos:
      case kSensTendonLimitPos: {  // distance to the limit minus margin, 0 when not active
        const int r = limit_row(d, m.sensor_type[s] == kSensJointLimitPos ? kCnstrLimitJoint
                                                                          : kCnstrLimitTendon, objid);
        out[0] = r >= 0 ? d.efc_pos[r] - d.efc_margin[r] : 0;
        break;
      }
      case kSensFramePos:
      case kSensFrameXAxis:
      case kSensFrameYAxis:
      case kSensFrameZAxis: {
        const double *p, *R;
        int b;
        if (!object_frame(m, d, objtype, objid, &p, &R, &b)) break;
        double v[3];
        if (m.sensor_type[s] == kSensFramePos) {
          copy3(v, p);
        } else {
          const int k = m.sensor_type[s] - kSensFrameXAxis;
          v[0] = R[k]; v[1] = R[3 + k]; v[2] = R[6 + k];
        }
        const double *pr, *Rr;
        int br;
        if (refid >= 0 && object_frame(m, d, reftype, refid, &pr, &Rr, &br)) {
          // Expressed in the reference frame (positions relative to its origin).
          if (m.sensor_type[s] == kSensFramePos) sub3(v, v, pr);
          mulmatTvec3(out, Rr, v);
        } else {
          copy3(out, v);
        }
        break;
      }
      case kSensFrameQuat: {
        double q[4];
        object_quat(m, d, objtype, objid, q);
        if (refid >= 0) {
          double qr[4], qrinv[4];
          object_quat(m, d, reftype, refid, qr);
          negquat(qrinv, qr);
          mulquat(out, qrinv, q);
        } else {
          copy4(out, q);
        }
        break;
      }
      case kSensSubtreeCom:
        copy3(out, &d.subtree_com[3 * objid]);
        break;
      case kSensClock:
        out[0] = d.time;
        break;
      default:
        break;
    }
    finish_sensor(m, d, s);
  }
  user_sensors(m, d, kStagePos);
}

}  // namespace moreau

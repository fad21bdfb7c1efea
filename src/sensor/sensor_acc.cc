// Acceleration/force-stage sensors (mj_sensorAcc): touch, accelerometer, force, torque, actuator
// force, limit forces, frame linear/angular acceleration. Accelerations and interaction forces come
// from rne_post_constraint (cacc includes -gravity at the world, so an accelerometer at rest reads
// +g; cfrc_int is the force a body receives from its parent).
#include "engine/checks.h"
#include "math/vec.h"
#include "sensor/sensor.h"

namespace moreau {

using namespace math;
using namespace sensor_detail;

bool sensor_acc_needs_rne_post(const Model& m) {
  if (m.opt.disableflags & kDsblSensor) return false;
  for (int s = 0; s < m.nsensor; ++s) {
    switch (m.sensor_type[s]) {
      case kSensAccelerometer: case kSensForce: case kSensTorque: case kSensFrameLinAcc:
      case kSensFrameAngAcc:
        return true;
      default:
        break;
    }
  }
  return false;
}

// Normal force of contact c (the solver's force in the contact frame): the first row for
// frictionless and elliptic contacts; for pyramidal contacts the sum of the pyramid edge forces.
double sensor_detail::contact_normal_force(const Data& d, const Contact& con) {
  const int adr = con.efc_address;
  if (adr < 0) return 0;
  if (d.efc_type[adr] == kCnstrContactPyramidal) {
    double f = 0;
    for (int k = 0; k < 2 * (con.dim - 1); ++k) f += d.efc_force[adr + k];
    return f;
  }
  return d.efc_force[adr];
}

// A contact of the site's body counts for touch when its normal force is positive and it is in
// the sensor zone: the ray from the contact point along the contact normal, oriented away from the
// site's body (normal for geom1's body, -normal for geom2's), meets the site's volume; always true
// when the contact point is inside the zone.
bool sensor_detail::touch_counts(const Model& m, const Data& d, int site, int c) {
  const int b = m.site_bodyid[site];
  const Contact& con = d.contact[c];
  if (con.efc_address < 0) return false;
  const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
  if (b1 != b && b2 != b) return false;
  if (contact_normal_force(d, con) <= 0) return false;
  double dir[3];
  scl3(dir, con.frame, b1 == b ? 1.0 : -1.0);
  return ray_geom(&d.site_xpos[3 * site], &d.site_xmat[9 * site], &m.site_size[3 * site], con.pos, dir,
                  m.site_type[site]) >= 0;
}

namespace {
// Touch: the sum of the normal forces of the contacts that count (touch_counts).
double touch(const Model& m, const Data& d, int site) {
  double sum = 0;
  for (int c = 0; c < d.ncon; ++c)
    if (touch_counts(m, d, site, c)) sum += contact_normal_force(d, d.contact[c]);
  return sum;
}
}  // namespace

void sensor_acc(const Model& m, Data& d) {
  internal::check_data(m, d, "sensor_acc");
  if (m.opt.disableflags & kDsblSensor) return;
  for (int s = 0; s < m.nsensor; ++s) {
    if (sensor_stage(m, s) != kStageAcc) continue;
    if (m.sensor_type[s] == kSensUser) continue;  // user_sensors below
    const int objid = m.sensor_objid[s], objtype = m.sensor_objtype[s];
    double* out = &d.sensordata[m.sensor_adr[s]];
    const int type = m.sensor_type[s];
    switch (type) {
      case kSensTouch:
        out[0] = touch(m, d, objid);
        break;
      case kSensAccelerometer: {
        double a[6];
        point_acceleration(m, d, m.site_bodyid[objid], &d.site_xpos[3 * objid], a);
        mulmatTvec3(out, &d.site_xmat[9 * objid], a + 3);
        break;
      }
      case kSensForce:
      case kSensTorque: {
        // cfrc_int [torque; force] about o = subtree com of the root, moved to the site:
        // torque_site = torque_o - (p - o) x force; both in the site frame.
        const int b = m.site_bodyid[objid];
        const double* f = &d.cfrc_int[6 * b];
        const double* R = &d.site_xmat[9 * objid];
        if (type == kSensForce) {
          mulmatTvec3(out, R, f + 3);
        } else {
          double r[3], t[3];
          sub3(r, &d.site_xpos[3 * objid], &d.subtree_com[3 * m.body_rootid[b]]);
          cross3(t, r, f + 3);
          sub3(t, f, t);
          mulmatTvec3(out, R, t);
        }
        break;
      }
      case kSensActuatorFrc:
        out[0] = d.actuator_force[objid];
        break;
      case kSensJointLimitFrc:
      case kSensTendonLimitFrc: {
        const int r = limit_row(d, type == kSensJointLimitFrc ? kCnstrLimitJoint : kCnstrLimitTendon, objid);
        out[0] = r >= 0 ? d.efc_force[r] : 0;
        break;
      }
      case kSensFrameLinAcc:
      case kSensFrameAngAcc: {
        const double *p, *R;
        int b;
        if (!object_frame(m, d, objtype, objid, &p, &R, &b)) break;
        double a[6];
        point_acceleration(m, d, b, p, a);
        copy3(out, type == kSensFrameAngAcc ? a : a + 3);
        break;
      }
      default:
        break;
    }
    finish_sensor(m, d, s);
  }
  user_sensors(m, d, kStageAcc);
}

}  // namespace moreau

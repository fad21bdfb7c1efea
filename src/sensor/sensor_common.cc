// Shared parts of the sensor stages: which stage computes which sensor, object frames, point
// velocities/accelerations, cutoff and noise.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "math/vec.h"
#include "sensor/sensor.h"

namespace moreau::sensor_detail {

using namespace math;

int sensor_stage(const Model& m, int s) {
  switch (m.sensor_type[s]) {
    case kSensMagnetometer: case kSensRangefinder: case kSensJointPos: case kSensTendonPos:
    case kSensActuatorPos: case kSensBallQuat: case kSensJointLimitPos: case kSensTendonLimitPos:
    case kSensFramePos: case kSensFrameQuat: case kSensFrameXAxis: case kSensFrameYAxis:
    case kSensFrameZAxis: case kSensSubtreeCom: case kSensClock:
      return kStagePos;
    case kSensVelocimeter: case kSensGyro: case kSensJointVel: case kSensTendonVel:
    case kSensActuatorVel: case kSensBallAngVel: case kSensJointLimitVel: case kSensTendonLimitVel:
    case kSensFrameLinVel: case kSensFrameAngVel: case kSensSubtreeLinVel: case kSensSubtreeAngMom:
      return kStageVel;
    case kSensTouch: case kSensAccelerometer: case kSensForce: case kSensTorque:
    case kSensActuatorFrc: case kSensJointLimitFrc: case kSensTendonLimitFrc:
    case kSensFrameLinAcc: case kSensFrameAngAcc:
      return kStageAcc;
    default:
      return m.sensor_needstage.empty() ? kStageNone : m.sensor_needstage[s];
  }
}

namespace {
// Counter-based generator: a hash of (time, sensor, component) -> uniform in (0, 1). Deterministic,
// no state in Data or globals, reproducible across runs and threads.
inline double uniform01(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return (static_cast<double>(x >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
inline double standard_normal(double time, int s, int k) {
  uint64_t tb;
  std::memcpy(&tb, &time, sizeof tb);
  const uint64_t key = tb * 0x100000001B3ull ^ (static_cast<uint64_t>(s) << 8) ^ static_cast<uint64_t>(k);
  const double u1 = uniform01(key), u2 = uniform01(key ^ 0xA5A5A5A5A5A5A5A5ull);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}
}  // namespace

void user_sensors(const Model& m, Data& d, int stage) {
  if (!d.sensor_callback) return;
  bool any = false;
  for (int s = 0; s < m.nsensor && !any; ++s) any = m.sensor_type[s] == kSensUser && sensor_stage(m, s) == stage;
  if (!any) return;
  d.sensor_callback(m, d, stage);
  for (int s = 0; s < m.nsensor; ++s)
    if (m.sensor_type[s] == kSensUser && sensor_stage(m, s) == stage) finish_sensor(m, d, s);
}

void finish_sensor(const Model& m, Data& d, int s) {
  double* v = &d.sensordata[m.sensor_adr[s]];
  const int dim = m.sensor_dim[s];
  const int type = m.sensor_datatype.empty() ? kDataReal : m.sensor_datatype[s];
  // Noise (sensornoise flag): zero-mean Gaussian with standard deviation `noise`.
  const double noise = m.sensor_noise.empty() ? 0 : m.sensor_noise[s];
  if ((m.opt.enableflags & kEnblSensornoise) && noise > 0) {
    for (int k = 0; k < dim; ++k) v[k] += noise * standard_normal(d.time, s, k);
    if (type == kDataAxis && dim == 3) normalize3(v);
    if (type == kDataQuaternion && dim == 4) normalize4(v);
  }
  // Cutoff: real values to [-cutoff, cutoff], positive values to [0, cutoff]; 0 disables.
  const double cutoff = m.sensor_cutoff.empty() ? 0 : m.sensor_cutoff[s];
  if (cutoff > 0) {
    if (type == kDataReal) {
      for (int k = 0; k < dim; ++k) v[k] = std::clamp(v[k], -cutoff, cutoff);
    } else if (type == kDataPositive) {
      for (int k = 0; k < dim; ++k) v[k] = std::min(v[k], cutoff);
    }
  }
}

bool object_frame(const Model& m, const Data& d, int objtype, int objid, const double** pos,
                  const double** mat, int* body) {
  switch (objtype) {
    case kObjBody:
      *pos = &d.xipos[3 * objid]; *mat = &d.ximat[9 * objid]; *body = objid;
      return true;
    case kObjXBody:
      *pos = &d.xpos[3 * objid]; *mat = &d.xmat[9 * objid]; *body = objid;
      return true;
    case kObjGeom:
      *pos = &d.geom_xpos[3 * objid]; *mat = &d.geom_xmat[9 * objid]; *body = m.geom_bodyid[objid];
      return true;
    case kObjSite:
      *pos = &d.site_xpos[3 * objid]; *mat = &d.site_xmat[9 * objid]; *body = m.site_bodyid[objid];
      return true;
    case kObjCamera:
      *pos = &d.cam_xpos[3 * objid]; *mat = &d.cam_xmat[9 * objid]; *body = m.cam_bodyid[objid];
      return true;
    default:
      return false;
  }
}

int limit_row(const Data& d, int efc_type, int id) {
  for (int r = 0; r < d.nefc; ++r)
    if (d.efc_type[r] == efc_type && d.efc_id[r] == id) return r;
  return -1;
}

// cvel/cacc are spatial vectors [angular; linear] about o = subtree_com[root]; a point p of the
// body moves with v_o + w x (p - o).
void point_velocity(const Model& m, const Data& d, int b, const double p[3], double res[6]) {
  const double* c = &d.cvel[6 * b];
  double r[3], t[3];
  sub3(r, p, &d.subtree_com[3 * m.body_rootid[b]]);
  cross3(t, c, r);
  copy3(res, c);
  add3(res + 3, c + 3, t);
}

// Classical acceleration of the point: spatial acceleration at p plus w x v_p.
void point_acceleration(const Model& m, const Data& d, int b, const double p[3], double res[6]) {
  const double* a = &d.cacc[6 * b];
  double r[3], t[3], vel[6];
  sub3(r, p, &d.subtree_com[3 * m.body_rootid[b]]);
  cross3(t, a, r);
  copy3(res, a);
  add3(res + 3, a + 3, t);
  point_velocity(m, d, b, p, vel);
  cross3(t, vel, vel + 3);
  add3(res + 3, res + 3, t);
}

}  // namespace moreau::sensor_detail

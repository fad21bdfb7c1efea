// Utilities of the simulation chapter on top of the pipeline's results: object velocities and
// accelerations, subtree-com and axis Jacobians, products with the constraint Jacobian, applied
// forces, local-to-global poses, keyframes, the skip entry points and small model queries.
#include <algorithm>
#include <string>

#include "constraint/storage.h"
#include "engine/checks.h"
#include "engine/internal.h"
#include "engine/messages.h"
#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {

// Frame of an object for object_velocity/acceleration: origin, orientation and body.
struct ObjectFrame {
  const double* pos;
  const double* rot;
  int body;
};

ObjectFrame object_frame(const Model& m, const Data& d, ObjType objtype, int id, const char* fn) {
  switch (objtype) {
    case kObjBody:
      internal::check_id(fn, "body", id, m.nbody);
      return {&d.xipos[3 * id], &d.ximat[9 * id], id};
    case kObjXBody:
      internal::check_id(fn, "body", id, m.nbody);
      return {&d.xpos[3 * id], &d.xmat[9 * id], id};
    case kObjGeom:
      internal::check_id(fn, "geom", id, m.ngeom);
      return {&d.geom_xpos[3 * id], &d.geom_xmat[9 * id], m.geom_bodyid[id]};
    case kObjSite:
      internal::check_id(fn, "site", id, m.nsite);
      return {&d.site_xpos[3 * id], &d.site_xmat[9 * id], m.site_bodyid[id]};
    case kObjCamera:
      internal::check_id(fn, "camera", id, m.ncam);
      return {&d.cam_xpos[3 * id], &d.cam_xmat[9 * id], m.cam_bodyid[id]};
    default:
      internal::raise<std::invalid_argument>(
          std::string(fn) + ": object type " + std::to_string(static_cast<int>(objtype)) +
          " has no frame; expected kObjBody, kObjXBody, kObjGeom, kObjSite or kObjCamera");
  }
}

void check_skipstage(int skipstage, const char* fn) {
  if (skipstage != kStageNone && skipstage != kStagePos && skipstage != kStageVel)
    internal::raise<std::invalid_argument>(std::string(fn) + ": skipstage " + std::to_string(skipstage) +
                                           " is not kStageNone (0), kStagePos (1) or kStageVel (2)");
}

}  // namespace

void object_velocity(const Model& m, const Data& d, ObjType objtype, int id, double res[6], bool flg_local) {
  internal::check_data(m, d, "object_velocity");
  internal::check_ptr(res, "object_velocity", "res");
  const ObjectFrame f = object_frame(m, d, objtype, id, "object_velocity");
  transform_spatial(res, &d.cvel[6 * f.body], false, f.pos, &d.subtree_com[3 * m.body_rootid[f.body]],
                    flg_local ? f.rot : nullptr);
}

void object_acceleration(const Model& m, const Data& d, ObjType objtype, int id, double res[6],
                         bool flg_local) {
  internal::check_data(m, d, "object_acceleration");
  internal::check_ptr(res, "object_acceleration", "res");
  const ObjectFrame f = object_frame(m, d, objtype, id, "object_acceleration");
  const double* origin = &d.subtree_com[3 * m.body_rootid[f.body]];
  const double* rot = flg_local ? f.rot : nullptr;
  double vel[6], wv[3];
  transform_spatial(vel, &d.cvel[6 * f.body], false, f.pos, origin, rot);
  transform_spatial(res, &d.cacc[6 * f.body], false, f.pos, origin, rot);
  // cacc's linear part is the spatial acceleration; the point's own acceleration adds w x v
  cross3(wv, vel, vel + 3);
  add3(res + 3, res + 3, wv);
}

void jac_subtree_com(const Model& m, const Data& d, double* jacp, int body) {
  internal::check_data(m, d, "jac_subtree_com");
  internal::check_id("jac_subtree_com", "body", body, m.nbody);
  internal::check_ptr(jacp, m.nv, "jac_subtree_com", "jacp");
  const int nv = m.nv;
  std::fill_n(jacp, 3 * nv, 0.0);
  // each body of the subtree adds mass * the Jacobian of its com
  for (int b = body; b < m.nbody; ++b) {
    int p = b;  // parents precede their children: climb until at or above `body`
    while (p > body) p = m.body_parentid[p];
    if (p != body) continue;
    const double mass = m.body_mass[b];
    if (mass == 0) continue;
    double r[3];
    sub3(r, &d.xipos[3 * b], &d.subtree_com[3 * m.body_rootid[b]]);
    for (int i = internal::last_dof(m, b); i >= 0; i = m.dof_parentid[i]) {
      const double* cdof = &d.cdof[6 * i];
      double t[3];
      cross3(t, cdof, r);
      for (int k = 0; k < 3; ++k) jacp[k * nv + i] += mass * (cdof[3 + k] + t[k]);
    }
  }
  const double scale = 1.0 / std::max(kMinVal, m.body_subtreemass[body]);
  for (int k = 0; k < 3 * nv; ++k) jacp[k] *= scale;
}

void jac_point_axis(const Model& m, const Data& d, double* jac_point, double* jac_axis, const double point[3],
                    const double axis[3], int body) {
  internal::check_data(m, d, "jac_point_axis");
  internal::check_id("jac_point_axis", "body", body, m.nbody);
  internal::check_ptr(point, "jac_point_axis", "point");
  internal::check_ptr(axis, "jac_point_axis", "axis");
  const int nv = m.nv;
  jac(m, d, jac_point, nullptr, point, body);
  if (!jac_axis) return;
  std::fill_n(jac_axis, 3 * nv, 0.0);
  for (int i = internal::last_dof(m, body); i >= 0; i = m.dof_parentid[i]) {
    double c[3];
    cross3(c, &d.cdof[6 * i], axis);  // rotation column x axis
    for (int k = 0; k < 3; ++k) jac_axis[k * nv + i] = c[k];
  }
}

void apply_ft(const Model& m, const Data& d, const double force[3], const double torque[3],
              const double point[3], int body, double* qfrc_target) {
  internal::check_data(m, d, "apply_ft");
  internal::check_id("apply_ft", "body", body, m.nbody);
  internal::check_ptr(point, "apply_ft", "point");
  internal::check_ptr(qfrc_target, m.nv, "apply_ft", "qfrc_target");
  static constexpr double kZero[3] = {0, 0, 0};
  internal::apply_ft(m, d, force ? force : kZero, torque ? torque : kZero, point, body, qfrc_target);
}

void mul_jac_vec(const Model& m, const Data& d, double* res, const double* vec) {
  internal::check_data(m, d, "mul_jac_vec");
  internal::check_ptr(res, d.nefc, "mul_jac_vec", "res");
  internal::check_ptr(vec, m.nv, "mul_jac_vec", "vec");
  constraint::mul_J(m, d, res, vec);
}

void mul_jac_t_vec(const Model& m, const Data& d, double* res, const double* vec) {
  internal::check_data(m, d, "mul_jac_t_vec");
  internal::check_ptr(res, m.nv, "mul_jac_t_vec", "res");
  internal::check_ptr(vec, d.nefc, "mul_jac_t_vec", "vec");
  constraint::mul_JT(m, d, res, vec);
}

bool is_pyramidal(const Model& m) { return m.opt.cone == kConePyramidal; }
bool is_sparse(const Model& m) { return constraint::use_sparse(m); }

void local_to_global(const Model& m, const Data& d, double xpos[3], double xmat[9], const double pos[3],
                     const double quat[4], int body, int sameframe) {
  internal::check_data(m, d, "local_to_global");
  internal::check_id("local_to_global", "body", body, m.nbody);
  if (sameframe < 0 || sameframe > 2)
    internal::raise<std::invalid_argument>("local_to_global: sameframe " + std::to_string(sameframe) +
                                           " is not 0 (compute), 1 (body frame) or 2 (inertial frame)");
  if (xpos && pos) {
    if (sameframe == 0) {
      double t[3];
      mulmatvec3(t, &d.xmat[9 * body], pos);
      add3(xpos, t, &d.xpos[3 * body]);
    } else {
      copy3(xpos, sameframe == 1 ? &d.xpos[3 * body] : &d.xipos[3 * body]);
    }
  }
  if (xmat && quat) {
    if (sameframe == 0) {
      double q[4];
      mulquat(q, &d.xquat[4 * body], quat);
      quat2mat(xmat, q);
    } else {
      copy9(xmat, sameframe == 1 ? &d.xmat[9 * body] : &d.ximat[9 * body]);
    }
  }
}

double total_mass(const Model& m) {
  double s = 0;
  for (int b = 0; b < m.nbody; ++b) s += m.body_mass[b];
  return s;
}

void set_keyframe(Model& m, const Data& d, int key) {
  internal::check_data(m, d, "set_keyframe");
  internal::check_id("set_keyframe", "key", key, m.nkey);
  const size_t k = key;
  // keyframe arrays a model left empty (no ctrl, no mocap) are sized to nkey rows first
  auto row = [&](std::vector<double>& v, size_t width) {
    if (v.size() < m.nkey * width) v.resize(m.nkey * width);
    return v.data() + k * width;
  };
  if (m.key_time.size() < static_cast<size_t>(m.nkey)) m.key_time.resize(m.nkey);
  m.key_time[k] = d.time;
  std::copy_n(d.qpos.begin(), m.nq, row(m.key_qpos, m.nq));
  std::copy_n(d.qvel.begin(), m.nv, row(m.key_qvel, m.nv));
  std::copy_n(d.act.begin(), m.na, row(m.key_act, m.na));
  std::copy_n(d.ctrl.begin(), m.nu, row(m.key_ctrl, m.nu));
  std::copy_n(d.mocap_pos.begin(), 3 * m.nmocap, row(m.key_mpos, 3 * m.nmocap));
  std::copy_n(d.mocap_quat.begin(), 4 * m.nmocap, row(m.key_mquat, 4 * m.nmocap));
}

void forward_skip(const Model& m, Data& d, int skipstage, bool skip_sensor) {
  const internal::CheckedCall checked(m, d, "forward_skip");
  check_skipstage(skipstage, "forward_skip");
  internal::forward_skip(m, d, skipstage, skip_sensor);
}

}  // namespace moreau

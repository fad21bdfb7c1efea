// The public quaternion and pose helpers (include/moreau/pose.h) over src/math/vec.h.
#include "moreau/pose.h"

#include "engine/checks.h"
#include "math/vec.h"

namespace moreau {

using internal::check_ptr;

void quat_mul(double res[4], const double q1[4], const double q2[4]) {
  check_ptr(res, "quat_mul", "res");
  check_ptr(q1, "quat_mul", "q1");
  check_ptr(q2, "quat_mul", "q2");
  math::mulquat(res, q1, q2);
}

void quat_neg(double res[4], const double q[4]) {
  check_ptr(res, "quat_neg", "res");
  check_ptr(q, "quat_neg", "q");
  math::negquat(res, q);
}

void quat_mul_axis(double res[4], const double q[4], const double axis[3]) {
  check_ptr(res, "quat_mul_axis", "res");
  check_ptr(q, "quat_mul_axis", "q");
  check_ptr(axis, "quat_mul_axis", "axis");
  const double a[4] = {0, axis[0], axis[1], axis[2]};
  math::mulquat(res, q, a);
}

void rot_vec_quat(double res[3], const double vec[3], const double q[4]) {
  check_ptr(res, "rot_vec_quat", "res");
  check_ptr(vec, "rot_vec_quat", "vec");
  check_ptr(q, "rot_vec_quat", "q");
  math::rotvecquat(res, vec, q);
}

void quat_to_mat(double res[9], const double q[4]) {
  check_ptr(res, "quat_to_mat", "res");
  check_ptr(q, "quat_to_mat", "q");
  math::quat2mat(res, q);
}

void mat_to_quat(double q[4], const double mat[9]) {
  check_ptr(q, "mat_to_quat", "q");
  check_ptr(mat, "mat_to_quat", "mat");
  math::mat2quat(q, mat);
}

void axis_angle_to_quat(double res[4], const double axis[3], double angle) {
  check_ptr(res, "axis_angle_to_quat", "res");
  check_ptr(axis, "axis_angle_to_quat", "axis");
  math::axisangle2quat(res, axis, angle);
}

void quat_to_vel(double res[3], const double q[4], double dt) {
  check_ptr(res, "quat_to_vel", "res");
  check_ptr(q, "quat_to_vel", "q");
  math::quat2vel(res, q, dt);
}

void sub_quat(double res[3], const double qa[4], const double qb[4]) {
  check_ptr(res, "sub_quat", "res");
  check_ptr(qa, "sub_quat", "qa");
  check_ptr(qb, "sub_quat", "qb");
  math::subquat(res, qa, qb);
}

void deriv_quat(double res[4], const double q[4], const double vel[3]) {
  check_ptr(res, "deriv_quat", "res");
  check_ptr(q, "deriv_quat", "q");
  check_ptr(vel, "deriv_quat", "vel");
  const double v[4] = {0, 0.5 * vel[0], 0.5 * vel[1], 0.5 * vel[2]};
  double r[4];
  math::mulquat(r, v, q);
  math::copy4(res, r);
}

void quat_integrate(double q[4], const double vel[3], double scale) {
  check_ptr(q, "quat_integrate", "q");
  check_ptr(vel, "quat_integrate", "vel");
  math::quatintegrate(q, vel, scale);
}

void mul_pose(double posres[3], double quatres[4], const double pos1[3], const double quat1[4],
              const double pos2[3], const double quat2[4]) {
  check_ptr(posres, "mul_pose", "posres");
  check_ptr(quatres, "mul_pose", "quatres");
  check_ptr(pos1, "mul_pose", "pos1");
  check_ptr(quat1, "mul_pose", "quat1");
  check_ptr(pos2, "mul_pose", "pos2");
  check_ptr(quat2, "mul_pose", "quat2");
  double p[3], q[4];  // temporaries, so that the outputs may alias the inputs
  math::mulpose(p, q, pos1, quat1, pos2, quat2);
  math::copy3(posres, p);
  math::copy4(quatres, q);
}

void neg_pose(double posres[3], double quatres[4], const double pos[3], const double quat[4]) {
  check_ptr(posres, "neg_pose", "posres");
  check_ptr(quatres, "neg_pose", "quatres");
  check_ptr(pos, "neg_pose", "pos");
  check_ptr(quat, "neg_pose", "quat");
  double q[4], p[3];
  math::negquat(q, quat);
  math::rotvecquat(p, pos, q);
  math::scl3(posres, p, -1.0);
  math::copy4(quatres, q);
}

void trn_vec_pose(double res[3], const double pos[3], const double quat[4], const double vec[3]) {
  check_ptr(res, "trn_vec_pose", "res");
  check_ptr(pos, "trn_vec_pose", "pos");
  check_ptr(quat, "trn_vec_pose", "quat");
  check_ptr(vec, "trn_vec_pose", "vec");
  double r[3];
  math::rotvecquat(r, vec, quat);
  math::add3(res, r, pos);
}

void transform_spatial(double res[6], const double vec[6], bool flg_force, const double newpos[3],
                       const double oldpos[3], const double* rotnew2old) {
  check_ptr(res, "transform_spatial", "res");
  check_ptr(vec, "transform_spatial", "vec");
  check_ptr(newpos, "transform_spatial", "newpos");
  check_ptr(oldpos, "transform_spatial", "oldpos");
  // moving the reference point by dif changes the translation part of a motion (v - dif x w) and
  // the rotation part of a force (torque - dif x f)
  double tran[6], dif[3], cros[3];
  for (int i = 0; i < 6; ++i) tran[i] = vec[i];
  math::sub3(dif, newpos, oldpos);
  if (flg_force) {
    math::cross3(cros, dif, vec + 3);
    math::sub3(tran, vec, cros);
  } else {
    math::cross3(cros, dif, vec);
    math::sub3(tran + 3, vec + 3, cros);
  }
  if (rotnew2old) {
    math::mulmatTvec3(res, rotnew2old, tran);
    math::mulmatTvec3(res + 3, rotnew2old, tran + 3);
  } else {
    for (int i = 0; i < 6; ++i) res[i] = tran[i];
  }
}

}  // namespace moreau

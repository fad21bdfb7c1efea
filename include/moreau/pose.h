// Quaternion, pose and spatial-vector helpers (simulation chapter, "Coordinate frames and
// transformations"). Quaternions are (w, x, y, z); matrices 3x3 row-major; a pose is a position (3)
// and a unit quaternion (4). Outputs may alias inputs unless noted. Null pointers throw
// std::invalid_argument.
#pragma once

namespace moreau {

// res = q1 * q2 (Hamilton product: rotate by q2, then by q1).
void quat_mul(double res[4], const double q1[4], const double q2[4]);
// res = conjugate of q (the opposite rotation of a unit quaternion).
void quat_neg(double res[4], const double q[4]);
// res = q * (0, axis).
void quat_mul_axis(double res[4], const double q[4], const double axis[3]);
// res = vec rotated by the unit quaternion q.
void rot_vec_quat(double res[3], const double vec[3], const double q[4]);
// Rotation matrix of a unit quaternion.
void quat_to_mat(double res[9], const double q[4]);
// Unit quaternion of a rotation matrix (w >= 0 where the branch allows).
void mat_to_quat(double q[4], const double mat[9]);
// Quaternion of a rotation by `angle` radians about the unit `axis`.
void axis_angle_to_quat(double res[4], const double axis[3], double angle);
// Angular velocity (axis * angle / dt, angle in [-pi, pi]) of the orientation difference q.
void quat_to_vel(double res[3], const double q[4], double dt);
// The rotation vector res with qb * quat(res) = qa (in qb's local frame).
void sub_quat(double res[3], const double qa[4], const double qb[4]);
// Time derivative of q under the world-frame angular velocity vel: res = (0, vel) * q / 2 (as
// MuJoCo's mju_derivQuat; for a local angular velocity use quat_mul_axis(res, q, vel) / 2).
void deriv_quat(double res[4], const double q[4], const double vel[3]);
// q <- normalize(q * quat(vel * scale)): rotate q by the local rotation vector vel * scale.
void quat_integrate(double q[4], const double vel[3], double scale);

// (posres, quatres) = (pos1, quat1) * (pos2, quat2): pose 2 expressed in frame 1, mapped to the
// frame pose 1 is expressed in.
void mul_pose(double posres[3], double quatres[4], const double pos1[3], const double quat1[4],
              const double pos2[3], const double quat2[4]);
// The inverse pose: quatres = conj(quat), posres = -(quatres rotation of pos).
void neg_pose(double posres[3], double quatres[4], const double pos[3], const double quat[4]);
// res = pos + quat rotation of vec (vec mapped from the pose's frame to the outer frame).
void trn_vec_pose(double res[3], const double pos[3], const double quat[4], const double vec[3]);

// A 6D motion (flg_force false) or force vector [rotation; translation] about oldpos, moved to
// newpos and, when rotnew2old is not null, rotated into the frame whose orientation it gives
// (columns: the new frame's axes in the old frame).
void transform_spatial(double res[6], const double vec[6], bool flg_force, const double newpos[3],
                       const double oldpos[3], const double* rotnew2old);

}  // namespace moreau

// Tendons, actuators and sensors: the pipeline stages of the computation chapter's
// "Simulation pipeline" that compute tendon lengths/moment arms, actuator transmission, actuator
// forces and activation dynamics, tendon passive forces and sensor data.
//
// Where they go in the pipeline (forward):
//   fwd_position:  kinematics, com_pos, camlight, tendon, crb, factor_m, collision,
//                  make_constraint, transmission, project_constraint
//   sensors:       sensor_pos                      (after fwd_position; also energy_pos)
//   fwd_velocity:  tendon_actuator_velocity, com_vel, passive (calls tendon_passive), ...
//   sensors:       sensor_vel                      (after fwd_velocity)
//   fwd_actuation: actuation_force
//   sensors:       if (sensor_acc_needs_rne_post(m)) rne_post_constraint; sensor_acc  (after fwd_constraint)
//   integration:   act += h*act_dot via next_activation (filterexact, actrange clamping)
// None of them allocates; none keeps global state.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau {

// Tendon lengths and moment arms: ten_length, ten_J (dense ntendon x nv), ten_wrapadr, ten_wrapnum,
// wrap_obj (-1 site, -2 pulley, geom id for tangent points), wrap_xpos. Needs kinematics and com_pos.
void tendon(const Model& m, Data& d);

// Actuator lengths and moment arms: actuator_length, actuator_moment (dense nu x nv). Needs tendon;
// body (adhesion) transmissions read d.contact (after collision / make_constraint).
void transmission(const Model& m, Data& d);

// ten_velocity = ten_J qvel, actuator_velocity = actuator_moment qvel.
void tendon_actuator_velocity(const Model& m, Data& d);

// Adds tendon spring-dampers to qfrc_passive: ten_J' * (-stiffness*(length - lengthspring)
// - damping*velocity). Needs tendon and tendon_actuator_velocity. No-op when passive is disabled.
void tendon_passive(const Model& m, Data& d);
// Potential energy of the tendon springs (for energy_pos).
double tendon_energy(const Model& m, const Data& d);

// Actuator forces and activation dynamics: actuator_force, qfrc_actuator = moment' force, act_dot.
// Controls are clamped to ctrlrange (ctrllimited, unless clampctrl is disabled) without changing
// d.ctrl. Needs transmission and tendon_actuator_velocity.
void actuation_force(const Model& m, Data& d);

// Activation of actuator `u` after a step of h from `act` with rate `act_dot`: Euler for
// integrator/filter/muscle, the exact exponential for filterexact, then clamped to actrange when
// actlimited. The integrators apply it to every stateful actuator (act[actuator_actadr[u]]).
double next_activation(const Model& m, int u, double act, double act_dot, double h);

// Subtree linear velocity and angular momentum (subtree_linvel, subtree_angmom). Needs com_vel.
void subtree_vel(const Model& m, Data& d);

// Sensors of each stage (with cutoff and, if enabled, noise). sensor_vel calls subtree_vel itself
// when a subtree velocity/momentum sensor needs it. sensor_acc needs cacc/cfrc_int/cfrc_ext from
// rne_post_constraint when sensor_acc_needs_rne_post(m) (accelerometer, force, torque, frame
// linacc/angacc); the caller runs it first.
void sensor_pos(const Model& m, Data& d);
void sensor_vel(const Model& m, Data& d);
void sensor_acc(const Model& m, Data& d);
bool sensor_acc_needs_rne_post(const Model& m);

// Distance along the unit ray (pnt, vec) to the nearest geom surface, or -1. Geoms of body
// `bodyexclude` are skipped (-1: none), and invisible ones (rgba alpha 0). All geom types.
double ray(const Model& m, const Data& d, const double pnt[3], const double vec[3], int bodyexclude,
           int* geomid);
// Distance along the ray to one geom of the given type/size/pose, or -1.
double ray_geom(const double pos[3], const double mat[9], const double size[3], const double pnt[3],
                const double vec[3], int geomtype);

// Muscle curves (MJCF muscle; gainprm/biasprm = range[2], force, scale, lmin, lmax, vmax, fpmax,
// fvmax): normalized active force-length, force-velocity, passive force-length, and the gain/bias
// the force model multiplies by the activation.
double muscle_fl(double L, double lmin, double lmax);
double muscle_fv(double V, double fvmax);
double muscle_fp(double L, double lmax, double fpmax);
double muscle_gain(double len, double vel, const double lengthrange[2], double acc0, const double prm[]);
double muscle_bias(double len, const double lengthrange[2], double acc0, const double prm[]);
// d muscle_gain / d vel (the implicit integrators' actuator derivative).
double muscle_gain_vel(double len, double vel, const double lengthrange[2], double acc0, const double prm[]);
// Muscle activation dynamics: d act / dt for control ctrl (dynprm: tau_act, tau_deact, tausmooth).
double muscle_dynamics(double ctrl, double act, const double prm[]);

}  // namespace moreau

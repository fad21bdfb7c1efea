// Position derivatives of spatial tendons and actuator transmissions, and the derivatives of the
// muscle model's curves and activation dynamics (tendon_deriv.cc), for the analytic derivatives
// of forward dynamics and step (analytic_forward.cc).
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Whether tendon t is fixed (only joints): its length is linear in qpos and ten_J constant.
bool tendon_is_fixed(const Model& m, int t);

// d ten_J_t / d qpos along each dof's tangent direction: out (nv x nv, col-major, zeroed here)
// column k = d ten_J_t / d q_k. Zero for fixed tendons. Spatial tendons: the straight segments'
// directions and point Jacobians, and the tangent points of wrapped segments (the one-sided
// derivative of the branch the wrap routine takes at the state), in closed form; the touch point of
// a side site inside the obstacle by centred differences of the wrap routine alone.
void tendon_jacobian_deriv(const Model& m, const Data& d, int t, double* out);

// Whether actuator u's transmission has analytic position derivatives (transmission_deriv): every
// kind; the state's form also checks that each contact of an adhesion body has a geometry
// derivative (contact_geometry.h: not spheres/capsules with coincident centres).
bool transmission_deriv_supported(const Model& m, int u);
bool transmission_deriv_supported(const Model& m, const Data& d, int u);

// d actuator_length_u / d qpos into dlen (nv) and d actuator_moment_u / d qpos into dmom (nv x nv,
// col-major, column k). Returns false when the moment is constant (scalar joints, fixed tendons,
// ball and free joints without jointinparent): dmom is then not to be read. Requires
// transmission_deriv_supported.
bool transmission_deriv(const Model& m, const Data& d, int u, double* dlen, double* dmom);

// Muscle gain and bias (actuation/muscle.h) and their partial derivatives with respect to the
// actuator length and velocity; gvv = d^2 gain / d vel^2, glv = d^2 gain / d len d vel (the
// derivatives of the velocity term the implicit integrators use).
struct MuscleDeriv {
  double gain, gl, gv, bias, bl, glv, gvv;
};
MuscleDeriv muscle_deriv(double len, double vel, const double lengthrange[2], double acc0, const double gainprm[],
                         const double biasprm[]);

// Actuator u's force p = gain(len, vel) input + bias(len, vel) (clamped to forcerange) and act_dot,
// with the partial derivatives the analytic derivatives use: input (the control after ctrlrange
// clamping, the activation, or with actearly the next activation clamped to actrange) and its
// derivatives with respect to act and ctrl; gain, bias and their length and velocity derivatives
// (fixed, affine, muscle); dforce 0 when the force is clamped, dctrl 0 when the control is (a
// control exactly at a bound: 1, the derivative from inside); gact, gu: d act_dot / d act, d ctrl
// (ctrl clamping included). User gains, biases and dynamics are not covered (zero).
struct ActuatorTerms {
  double input, din_act, din_u, gain, glen, gvel, bias, blen, bvel, dforce, dctrl, gact, gu;
};
ActuatorTerms actuator_terms(const Model& m, const Data& d, int u);

// Muscle activation dynamics act_dot(ctrl, act) and its partial derivatives (ctrl after ctrlrange
// clamping; the clamp to [0, 1] inside the dynamics is included).
void muscle_dynamics_deriv(double ctrl, double act, const double prm[], double* dact, double* dctrl);

}  // namespace moreau::internal

namespace moreau::internal {

// Fq (nv x nv col-major, column k = d qfrc / d q_k) += the part of d(ten_J' f)/dq of spatial tendon
// t's spring-damper f = -k stretch - b ten_J qvel that comes from the moment arms' derivative:
// column k += f d ten_J/dq_k - b ten_J (d ten_J/dq_k . qvel).
void spatial_tendon_passive_pos(const Model& m, const Data& d, int t, double* Fq);

// The implicit integrators' D (smooth_vel.cc: passive and actuator velocity terms, restricted to
// M's sparsity) varies with qpos where moment arms do (spatial tendons' damping, actuators with
// spatial-tendon transmissions) and, for muscles, with the length, velocity and activation through
// gain_vel, and with the input of every actuator whose gain has a velocity term. rhs (nv rows,
// col-major; columns qpos, qvel, act, ctrl: 2nv + na + nu) += h d(D y)/d column.
void implicit_d_deriv(const Model& m, const Data& d, const double* y, double h, double* rhs);

}  // namespace moreau::internal

namespace moreau::internal {

// Whether constraint row r is a limit, friction or equality row of a spatial tendon (one whose
// Jacobian varies with qpos).
bool spatial_tendon_row(const Model& m, const Data& d, int r);

// d J_r / d qpos (col-major nv x nv, column k; zeroed here) of such a row, Jr its dense Jacobian:
// limit rows +-d ten_J (the sign of the row), friction rows d ten_J, equality rows
// d(J1 - p'(x2) J2) = dJ1 - p''(x2) J2[k] J2 - p'(x2) dJ2 (x2 = L2 - L2_0, p the polynomial).
void tendon_row_jacobian_deriv(const Model& m, const Data& d, int r, const double* Jr, double* out);

}  // namespace moreau::internal

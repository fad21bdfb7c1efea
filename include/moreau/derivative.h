// Derivatives (computation chapter, "Derivatives").
//
// Analytic: the derivative of the smooth forces with respect to velocity, which the implicit
// integrators use. Finite differences: the transition Jacobians of step (as MuJoCo's
// mjd_transitionFD) and the Jacobians of inverse dynamics.
//
// None of these functions allocates: their work space (Data::work.deriv, Data::work.fd) is sized by
// make_data, so that the signatures match MuJoCo's, a const Model stays shareable between threads,
// and a Data copy carries its own work space.
//
// Layout of qDeriv and qLU ("dof-dof sparse", Model::nD = 2*nM - nv entries): a dof i and a dof j
// interact only if one is an ancestor of the other in the dof tree (Model::dof_parentid), which is
// the sparsity of the inertia matrix. Entries [0, nM) hold D(i,i), D(i,parent(i)), ... at
// dof_Madr[i] (the layout of qM); entries [nM, nD) hold D(parent(i),i), D(grandparent(i),i), ... at
// nM + dof_Madr[i] - i. Entries between unrelated dofs (different branches) are not stored.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau {

// ------------------------------------------------------------------------------------ analytic

// d.qDeriv = d(qfrc_passive + qfrc_actuator - qfrc_bias) / d qvel at the current state, restricted
// to the sparsity of M, with every velocity-dependent smooth force except the constraints: joint and
// tendon damping, fluid forces (inertia-box model), actuator gain and bias velocity terms through
// actuator_velocity = moment qvel (affine and muscle; the force law is linearized before the
// forcerange clamp, the control as given in d.ctrl: as MuJoCo 2.2.2), and, when `rne` is true, the
// Coriolis and centrifugal forces of RNE. Needs the position and velocity stages (fwd_position,
// fwd_velocity). Throws std::runtime_error for bodies under the ellipsoid fluid model (their
// derivatives are not implemented).
void deriv_smooth_vel(const Model& m, Data& d, bool rne = true);

// Dense nv x nv row-major copy of a matrix in the dof-dof sparse layout (qDeriv, or M - h*qDeriv);
// entries outside the sparsity are 0.
void deriv_to_dense(const Model& m, const double* sparse, double* dense);

// ------------------------------------------------------------------------------------ finite differences

// Transition Jacobians of step, by finite differences at the current state (time, qpos, qvel, act,
// ctrl, qacc_warmstart), with the model's integrator:
//   d x_next = A dx + B du,   d sensordata = C dx + D du,
// x = (qpos in the tangent space: nv, qvel: nv, act: na), u = ctrl. Row-major:
//   A (2nv+na) x (2nv+na), B (2nv+na) x nu, C nsensordata x (2nv+na), D nsensordata x nu;
// any of them may be null (C and D null: sensors are not computed). Positions are perturbed on the
// manifold (integrate_pos of eps along each tangent direction) and differenced with differentiate_pos.
// Forward differences (centered = false) or centered ones; a control at the edge of its ctrlrange is
// differenced on the side that stays in range. Each perturbed step starts from the same warmstart;
// pipeline stages the perturbation does not change are not recomputed (a control perturbation starts
// at the actuation stage, a velocity one at the velocity stage). On return the state (time, qpos,
// qvel, act, ctrl, qacc_warmstart) is restored exactly; the other fields of d hold the results of the
// last perturbed evaluation. Sensors are those of the state before the step, as step computes them.
// A control callback (Data::control_callback) runs in every evaluation, as in step: with a feedback
// law, A is the closed-loop Jacobian, and the controls it overwrites have a zero column in B.
void transition_fd(const Model& m, Data& d, double eps, bool centered, double* A, double* B, double* C,
                   double* D);

// Jacobians of inverse dynamics (inverse) by finite differences at the current (qpos, qvel, qacc),
// row-major, any may be null:
//   DfDq, DfDv, DfDa  nv x nv:           d qfrc_inverse / d (qpos tangent, qvel, qacc)
//   DsDq, DsDv, DsDa  nsensordata x nv:  d sensordata / d (...)
//   DmDq              nM x nv:           d qM / d qpos tangent (qM in its tree-sparse layout)
// With flg_actuation, qfrc_actuator is subtracted from qfrc_inverse before differencing (the force
// that remains to be applied on top of the actuators). qpos, qvel, qacc are restored on return; the
// other fields hold the results of the last perturbed evaluation.
void inverse_fd(const Model& m, Data& d, double eps, bool centered, bool flg_actuation, double* DfDq,
                double* DfDv, double* DfDa, double* DsDq, double* DsDv, double* DsDa, double* DmDq);

// ------------------------------------------------------------------------------------ work space

// Doubles of Data::work.deriv (the analytic velocity derivatives, also used by the implicit
// integrators) and of Data::work.fd (transition_fd, inverse_fd); make_data allocates both.
long long deriv_work_size(const Model& m);
long long fd_work_size(const Model& m);

}  // namespace moreau

// Analytic derivatives of forward dynamics, inverse dynamics and the transition of step.
//
// Smooth dynamics: the derivatives of RNE with respect to qpos and qvel are computed recursively
// (forward-mode along each tangent direction, as Carpentier & Mansard, "Analytical derivatives of
// rigid body dynamics algorithms", RSS 2018, in the com-based frame: a dof k moves the motion axes
// cdof_j and inertias cinert_b of everything it carries, d cdof_j = cdof_k x cdof_j,
// d cinert_b = cdof_k x* I - I cdof_k x). Position derivatives of M come with them: the position
// derivative of RNE(q, qvel, qacc) = M qacc + C is (dM/dq) qacc + dC/dq.
//
// Constraints: the soft model's qacc minimizes the reduced primal cost; with the active set held
// fixed (the one-sided derivative of the current active set: rows that switch state exactly at the
// state are taken in the state they have), the implicit-function theorem on its optimality
// condition M (qacc - qacc_smooth) = J' f gives, for a parameter p that leaves J unchanged,
//   H dqacc/dp = d qfrc_smooth/dp + J' D_s d aref/dp,   H = M + J' D_s J
// (D_s: the Hessian of the constraint cost: efc_D on quadratic rows, the cone Hessian on elliptic
// contacts in the middle zone). H is built and factored by the Newton solver's routines. For qpos
// the rows themselves move: the right-hand side gains dJ' f - J' D_s (dJ qacc - daref) - J' dD z
// (z = J qacc - aref; D depends on qpos through the impedance of efc_pos).
//
// Finite-difference fallback: what the analytic path does not cover is computed by centred
// differences of forward dynamics for the affected columns, and a warning naming the feature is
// printed once per process (stderr). Covered analytically:
//   - RNE (Coriolis, centrifugal, gravity) and M, every joint type (a ball joint must be the last
//     joint of its body when other joints follow it: else fallback);
//   - passive: joint springs (every joint type) and joint damping, fixed-tendon springs and damping,
//     gravity compensation, fluid forces (inertia-box and ellipsoid models); xfrc_applied;
//   - actuators with joint (hinge/slide) or fixed-tendon transmission, fixed or affine gain and
//     none or affine bias, dynamics none, integrator, filter, filterexact; ctrl and force clamping
//     (a clamped value has zero derivative; a control at the edge of ctrlrange gets the inside
//     one-sided derivative);
//   - constraints: velocity, activation, control and applied-force columns (above).
//   - constraint position derivatives (the Jacobian, residual, impedance and reference acceleration
//     of each row) for joint limits (hinge, slide, ball), fixed-tendon limits and friction, dof friction,
//     joint and fixed-tendon equality (polynomial coupling included), connect and weld equality
//     (anchors, the weld's quaternion error, the impedance of the residual norm), and frictionless, pyramidal
//     and elliptic contacts between a plane on a static body and a sphere, capsule or box, and
//     between two spheres/capsules on any bodies (non-parallel capsules): the contact point,
//     distance and frame as functions of qpos.
// By finite differences (with the one warning; derivative_fallbacks lists them, and
// docs/notes/derivatives.md has the current list): position columns when a constraint row is of
// another kind (connect and weld with the jdotv flag, contacts of spheres/capsules with coincident
// centres); velocity columns with jdotv; every column with user callbacks, noslip with elliptic
// cones, or a hard-contact solver.
//
// The noslip post-pass (pyramidal cones, friction loss rows): implicit-function theorem on its own
// optimality conditions with its active set held fixed (interior friction-loss rows and pairs of
// pyramid edges with both forces positive are free; edges at zero and rows at their bound carry
// fixed forces), composed with the main solver's derivative for the forces noslip keeps. noslip
// runs a fixed number of Gauss-Seidel sweeps (noslip_iterations); the derivative given is that of
// its converged solution, which differences of an unconverged pass do not reproduce.
//
// Sensors (C, D of transition_derivatives, src/derivative/sensor_deriv.cc): sensordata as forward
// computes it at the state (no noise: it depends on time only), differentiated per sensor along
// the same tangent directions (quaternion rows as their 4 numbers; a value clamped by its cutoff has
// derivative 0). Analytic: clock, jointpos, jointvel, ballquat, ballangvel, tendonpos, tendonvel
// (fixed tendons), actuatorpos, actuatorvel and actuatorfrc (joint or fixed-tendon transmission,
// fixed/affine gain, none/affine bias, no muscle, user or actearly), magnetometer, framepos,
// framequat, framexaxis/yaxis/zaxis and framelinvel/frameangvel (with or without a reference
// frame), velocimeter, gyro, subtreecom, subtreelinvel, subtreeangmom, accelerometer, framelinacc
// and frameangacc (through d qacc, constraints included), jointlimitpos/vel (hinge, slide) and
// tendonlimitpos/vel (tendonlimitvel: fixed tendons). The other sensors' rows (touch, force, torque,
// rangefinder, the limit force sensors, spatial tendonvel, other transmissions, user and plugin
// sensors, noise on an axis or quaternion) come from centred differences of forward (eps 1e-6),
// with one warning per sensor type.
//
// Work space: the temporaries come from a per-thread cache of blocks (src/derivative/recycling.h)
// that keeps them between calls, so that transition_derivatives and forward_derivatives make no
// heap allocation after the first call on a thread (at states of the same model: the sizes recur;
// a new size class, e.g. many more constraint rows than before, takes one block). The cache holds
// the thread's peak until the thread ends.
#pragma once

#include <string>
#include <vector>

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau {

// d qacc / d (qpos tangent, qvel, act, ctrl, qfrc_applied) of forward dynamics at the current state,
// row-major: DaDq, DaDv, DaDf nv x nv, DaDact nv x na, DaDu nv x nu; any may be null. Also, when
// non-null: DactDact (na x na) and DactDu (na x nu), the derivatives of act_dot. Runs forward(m, d)
// first; on return d holds the results of forward at the unperturbed state.
void forward_derivatives(const Model& m, Data& d, double* DaDq, double* DaDv, double* DaDact,
                         double* DaDu, double* DaDf, double* DactDact = nullptr,
                         double* DactDu = nullptr);

// d qfrc_inverse / d (qpos tangent, qvel, qacc) of inverse dynamics (inverse(m, d)) at the current
// (qpos, qvel, qacc), row-major nv x nv, any may be null. Constraint rows are analytic (their forces
// are an explicit function of qacc in the inverse; active set held fixed), and so is invdiscrete with
// Euler (qacc is the discrete acceleration). The features derivative_fallbacks lists for qpos and
// qvel columns, and invdiscrete with an implicit integrator, are computed by inverse_fd (the warning
// is printed once).
void inverse_derivatives(const Model& m, Data& d, double* DfDq, double* DfDv, double* DfDa);

// Transition Jacobians of step at the current state, as transition_fd (same shapes, tangent-space
// conventions and state restoration): A (2nv+na)^2, B (2nv+na) x nu, C nsensordata x (2nv+na),
// D nsensordata x nu, any may be null. Euler (with implicit joint damping), implicit and
// implicitfast (their midpoint integration of free bodies included: the implicit-function theorem
// on each body's midpoint equations) and RK4 (the chain rule through its four stages) are analytic
// (above); implicitcon and the implicit integrators with fluid forces fall back to transition_fd
// (warning). On return the state is restored.
void transition_derivatives(const Model& m, Data& d, double* A, double* B, double* C, double* D);

// The features of the model and of its current state (after forward, which this runs) that make
// some columns fall back to finite differences, one line each (empty: all analytic).
std::vector<std::string> derivative_fallbacks(const Model& m, Data& d);

namespace internal {
// Dense d/dqpos (tangent) of RNE(q, qvel, qacc) without armature (nv x nv row-major), at the
// position stage of d (cdof, cinert); qvel and qacc given; gravity as the model's flags say when
// `gravity`. out[i*nv + k] = d rne_i / d q_k.
void rne_pos_deriv(const Model& m, const Data& d, const double* qvel, const double* qacc, bool gravity,
                   double* out);
// Whether rne_pos_deriv covers the model's joints (false: a ball joint followed by another joint
// of the same body).
bool rne_pos_supported(const Model& m);
}  // namespace internal

}  // namespace moreau

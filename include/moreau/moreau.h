// Moreau public API.
//
//   Model m = moreau::load_model("humanoid.xml");   // throws moreau::LoadError on bad input
//   Data d = moreau::make_data(m);
//   for (int i = 0; i < 1000; ++i) moreau::step(m, d);
//
// Every function is a free function of (const Model&, Data&). There is no global state, so any
// number of threads may step their own Data against one shared Model.
//
// Bad arguments throw: an id out of range (body, geom, site, actuator, contact, keyframe, ...)
// std::out_of_range, a null required pointer, a wrong size or a Data made for another Model
// std::invalid_argument; the message names the function and the value ("jac_body_com: body id -1
// out of range [0, 17)").
#pragma once

#include <stdexcept>
#include <string>

#include "moreau/actuation.h"
#include "moreau/data.h"
#include "moreau/analytic_derivative.h"  // forward_derivatives, transition_derivatives (analytic)
#include "moreau/derivative.h"  // qDeriv, transition_fd, inverse_fd
#include "moreau/io.h"
#include "moreau/messages.h"
#include "moreau/model.h"
#include "moreau/pose.h"
#include "moreau/rollout.h"  // batch rollouts on a thread pool
#include "moreau/state.h"

namespace moreau {

// ------------------------------------------------------------------------------------ loading

// A model that could not be loaded: which file, which line (0 if unknown), which element, what was
// expected. what() returns the whole message: "FILE:LINE: <element>: MESSAGE".
class LoadError : public std::runtime_error {
 public:
  LoadError(std::string file, int line, std::string element, std::string message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& element() const { return element_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string element_;
  std::string message_;
};

// Parse and compile an MJCF file. Throws LoadError.
Model load_model(const std::string& path);
// Parse and compile MJCF text; `path` names it in messages and anchors relative file names.
Model load_model_from_string(const std::string& xml, const std::string& path = "<string>");

// Recompute the constants derived from the model at qpos0 (dof_M0, dof/body/tendon_invweight0,
// tendon_length0, actuator_length0, actuator_acc0, stat). The loader calls it and then applies the
// values <statistic> gives; call it again after changing masses, inertias, armature or geometry of
// a loaded model (it recomputes every statistic, as 2.2.2's mj_setConst).
void set_const(Model& m);

// ------------------------------------------------------------------------------------ data

Data make_data(const Model& m);
// Reset to qpos0, zero velocity, activation, controls and inputs, mocap from the model.
void reset_data(const Model& m, Data& d);
// Reset, then set the state of keyframe `key`.
void reset_data_keyframe(const Model& m, Data& d, int key);
// Bytes of memory d holds: sizeof(Data) plus the capacity of every array it owns (results, the
// contact and constraint-row storage, Data::work). MuJoCo 2.2.2's counterpart for an mjData is
// sizeof(mjData) + nbuffer + nstack * sizeof(mjtNum).
size_t data_bytes(const Model& m, const Data& d);
// Copy the state of d (time, qpos, qvel, act, ctrl, mocap_pos, mocap_quat) into keyframe `key`.
void set_keyframe(Model& m, const Data& d, int key);

// ------------------------------------------------------------------------------------ main entry points

void step(const Model& m, Data& d);      // advance by one timestep with the model's integrator
// step1 + step2 = step for Euler, implicit, implicitfast and implicitcon. With RK4, step2 integrates with Euler,
// as the simulation chapter's mj_step2 (RK4's stages need the control: use step with
// Data::control_callback). step1 ends with the control callback, if any.
void step1(const Model& m, Data& d);     // position and velocity stages; set ctrl after this
void step2(const Model& m, Data& d);     // remaining stages and integration
void forward(const Model& m, Data& d);   // forward dynamics: everything but integration
void inverse(const Model& m, Data& d);   // inverse dynamics: qfrc_inverse from qacc
// forward / inverse without the stages whose inputs did not change (simulation chapter,
// mj_forwardSkip): skipstage kStagePos skips the position stage, kStageVel the position and velocity
// stages (d must hold their results for the current qpos, qvel); kStageNone skips nothing.
// skip_sensor leaves the sensors out. Other skipstage values throw std::invalid_argument.
void forward_skip(const Model& m, Data& d, int skipstage, bool skip_sensor);
void inverse_skip(const Model& m, Data& d, int skipstage, bool skip_sensor);

// ------------------------------------------------------------------------------------ pipeline stages
// In the order of "Simulation pipeline" of the computation chapter.

void check_pos(const Model& m, Data& d);     // NaN/Inf/huge qpos: warn and reset
void check_vel(const Model& m, Data& d);
void check_acc(const Model& m, Data& d);

void fwd_position(const Model& m, Data& d);
void fwd_velocity(const Model& m, Data& d);
void fwd_actuation(const Model& m, Data& d);
void fwd_acceleration(const Model& m, Data& d);
void fwd_constraint(const Model& m, Data& d);

void kinematics(const Model& m, Data& d);    // xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, geoms, sites
void com_pos(const Model& m, Data& d);       // subtree_com, cinert, cdof
void camlight(const Model& m, Data& d);      // cameras and lights
void crb(const Model& m, Data& d);           // composite rigid body: crb, qM (with armature)
void factor_m(const Model& m, Data& d);      // qLD, qLDiagInv, qLDiagSqrtInv
void com_vel(const Model& m, Data& d);       // cvel, cdof_dot
void passive(const Model& m, Data& d);       // qfrc_passive
void rne(const Model& m, Data& d, bool flg_acc, double* result);  // M*qacc (if flg_acc) + bias
void rne_post_constraint(const Model& m, Data& d);  // cacc, cfrc_int, cfrc_ext
void energy_pos(const Model& m, Data& d);
void energy_vel(const Model& m, Data& d);
// Collision detection (broad phase, filters, narrow phase): fills d.contact[0..d.ncon) from
// d.geom_xpos/geom_xmat. Custom narrow-phase functions: see moreau/collision.h.
void collision(const Model& m, Data& d);

// ------------------------------------------------------------------------------------ constraints
// Size the efc_* arrays and their work space (Data::work.efc, efc_int) from the model (capacity:
// Model::njmax rows if > 0, else the rule of src/constraint/storage.cc). make_data calls it; the
// hard-contact solvers size their own work space (Data::work.ncp) for the new capacity on their
// next solve.
void allocate_constraint_storage(const Model& m, Data& d);
// Constraint rows (equality, friction loss, limit, contact), in that order: efc_type, efc_id, efc_J,
// efc_pos, efc_margin, efc_frictionloss, efc_diagApprox, efc_KBIP, efc_R, efc_D; ne, nf, nefc;
// contact[i].efc_address and (elliptic) contact[i].mu. Needs kinematics, com_pos, ten_J/ten_length,
// contacts. Rows that do not fit: warning kWarnCnstrFull.
void make_constraint(const Model& m, Data& d);
// efc_vel = J*qvel and the reference acceleration efc_aref (needs qvel).
void reference_constraint(const Model& m, Data& d);
// Forward: from qacc_smooth/qfrc_smooth (and qacc_warmstart) with opt.solver: efc_b, efc_force,
// efc_state, qfrc_constraint = J'*efc_force, qacc, solver stats; fwdinv comparison if enabled.
void solve_constraint(const Model& m, Data& d);
// Inverse: efc_force, efc_state and qfrc_constraint from d.qacc by the analytic soft-constraint
// inverse (needs make_constraint and reference_constraint).
void inverse_constraint(const Model& m, Data& d);
// solver_fwdinv = (|qfrc_constraint(fwd) - qfrc_constraint(inv)|, |efc_force(fwd) - efc_force(inv)|)
// at the current qacc; called by solve_constraint when the fwdinv enable flag is set.
void compare_fwdinv(const Model& m, Data& d);
// efc_AR = J M^-1 J' + R for the current rows (after make_constraint; needs qLD), dense or in
// compressed rows as efc_J (see Data::efc_AR). MuJoCo 2.2.2 fills it inside forward for its dual
// solvers; here it is on demand: step never needs it (the dual solvers work on sparse rows), and
// storing it for every step would take capacity^2 doubles. Sizes the efc_AR arrays as needed
// (this call may allocate).
void project_constraint(const Model& m, Data& d);
// efc_J as a dense row-major nefc x nv matrix in out, whatever the jacobian option (with the
// sparse jacobian efc_J is compressed: see Data::efc_J_rownnz).
void efc_J_dense(const Model& m, const Data& d, double* out);
// Force of contact `id` (in [0, ncon)) in its contact frame (normal, tangent1, tangent2, spin, roll1,
// roll2) from efc_force; zeros for a contact that is not in the solver.
void contact_force(const Model& m, const Data& d, int id, double result[6]);
// res (nefc) = efc_J * vec (nv), for the dense or the sparse jacobian.
void mul_jac_vec(const Model& m, const Data& d, double* res, const double* vec);
// res (nv) = efc_J' * vec (nefc), for the dense or the sparse jacobian.
void mul_jac_t_vec(const Model& m, const Data& d, double* res, const double* vec);
// Whether contacts use the pyramidal friction cone (opt.cone).
bool is_pyramidal(const Model& m);
// Whether efc_J is stored in compressed rows (jacobian sparse, or auto with nv >= 60).
bool is_sparse(const Model& m);

// ------------------------------------------------------------------------------------ hard contact
// The velocity-stepping solvers of the RaiSim paper and the Underactuated chapter (src/solver/ncp):
// opt.solver = kSolverRaisim, kSolverRaisimDS, kSolverNcpPGS, kSolverCCP, kSolverLCP. They solve
// M v+ = M v_f + J' lambda (lambda: impulses) and set qacc = (v+ - v)/h, efc_force = lambda/h,
// qfrc_constraint and d.ncp (iterations, eps_abs). Only the Euler integrator is accepted with them.

// Whether `solver` (Option::solver) is one of the hard-contact solvers.
bool is_hard_contact_solver(int solver);
// With a hard-contact solver, a contact is detected, and makes rows, up to this distance beyond its
// margin (m). Such a row's reference shift phi/h lets the gap close and no further, so it exerts a
// force only when the step would close the gap; it keeps a resting contact, whose distance these
// solvers' stabilization drives to zero, from vanishing when round-off puts it above zero.
inline constexpr double kHardContactBand = 1e-9;
// That band for a solver: kHardContactBand for the hard-contact solvers, 0 for the others.
inline double contact_band(int solver) { return is_hard_contact_solver(solver) ? kHardContactBand : 0; }
// The MJCF / command-line name of a solver ("Newton", "raisim-ds", ...).
const char* solver_name(int solver);
// Impulsive collision with restitution (Underactuated Robotics, "Impulsive collisions"): replaces
// qvel (= v-) by the post-impact velocity v+ of M (v+ - v-) = J' Lambda with, at every contact of
// d.contact, Newton's law 0 <= Lambda_N  _|_  c_N+ + e c_N- >= 0 (c = J v, only for approaching
// contacts c_N- < 0), the Coulomb cone and maximum dissipation, solved by m.opt.solver (a
// hard-contact solver; throws otherwise). Runs fwd_position first. d.efc_force holds Lambda.
void impact(const Model& m, Data& d, double restitution);
// The RaiSim paper's errors (primal, dual, complementarity, eps_abs; see NcpStat in data.h) of the
// last forward's result, for any solver: contact forces from contact_force, contact velocities at
// v+ (vplus; null: qvel + h qacc, i.e. call it after forward; after step pass d.qvel, the velocity
// the step produced, while the contacts and kinematics of its forward are still in d), with the
// reference shift of the hard-contact problem (src/solver/ncp/ncp.h). Fills d.ncp except
// iterations. Lets the soft model be measured with the same yardstick.
void contact_metrics(const Model& m, Data& d, const double* vplus = nullptr);

// ------------------------------------------------------------------------------------ math on M

// res = M * vec (nv).
void mul_m(const Model& m, const Data& d, double* res, const double* vec);
// x <- M^-1 x, using the factorization in d.qLD (n columns of length nv, in place).
void solve_m(const Model& m, const Data& d, double* x, int n = 1);
// x <- L^-T D^-1/2 x ("half" solve used by the constraint solver).
void solve_m2(const Model& m, const Data& d, double* x, int n = 1);
// Dense nv*nv row-major copy of the tree-sparse qM.
void full_m(const Model& m, const double* qM, double* dense);

// ------------------------------------------------------------------------------------ Jacobians
// 3*nv row-major translational (jacp) and rotational (jacr) Jacobians; either may be null.

void jac(const Model& m, const Data& d, double* jacp, double* jacr, const double point[3], int body);
void jac_body(const Model& m, const Data& d, double* jacp, double* jacr, int body);      // at xpos
void jac_body_com(const Model& m, const Data& d, double* jacp, double* jacr, int body);  // at xipos
void jac_geom(const Model& m, const Data& d, double* jacp, double* jacr, int geom);
void jac_site(const Model& m, const Data& d, double* jacp, double* jacr, int site);
// 3*nv translational Jacobian of the centre of mass of body's subtree (subtree_com).
void jac_subtree_com(const Model& m, const Data& d, double* jacp, int body);
// Translational Jacobian of `point` (jac_point) and Jacobian of the world-frame direction `axis`
// carried by the body (jac_axis: d axis / d qvel = jacr x axis, column by column); either may be null.
void jac_point_axis(const Model& m, const Data& d, double* jac_point, double* jac_axis,
                    const double point[3], const double axis[3], int body);
// qfrc_target (nv) += J(point, body)' [force; torque]: a world-frame force at `point` and a torque on
// `body`, outside xfrc_applied. A null force or torque counts as zero.
void apply_ft(const Model& m, const Data& d, const double force[3], const double torque[3],
              const double point[3], int body, double* qfrc_target);

// ------------------------------------------------------------------------------------ frames and objects

// 6D velocity [angular; linear] of an object (kObjBody: at its com with the inertial frame,
// kObjXBody: body frame, kObjGeom, kObjSite, kObjCamera) at the object's origin, in world
// orientation or (flg_local) in the object's frame. Needs the position and velocity stages.
void object_velocity(const Model& m, const Data& d, ObjType objtype, int id, double res[6], bool flg_local);
// 6D acceleration of the same, from cacc (call rne_post_constraint first), with the linear part
// the acceleration of the origin point (cacc plus w x v). As cacc, it is measured against free fall:
// a body at rest reads -gravity, a falling one 0.
void object_acceleration(const Model& m, const Data& d, ObjType objtype, int id, double res[6],
                         bool flg_local);
// World pose of a pose (pos, quat) given in body's frame: xpos (3) and xmat (9), each skipped when it
// or its input is null. sameframe 1 copies the body frame (xpos, xmat), 2 its inertial frame (xipos,
// ximat), 0 computes the composition.
void local_to_global(const Model& m, const Data& d, double xpos[3], double xmat[9], const double pos[3],
                     const double quat[4], int body, int sameframe = 0);
// Sum of the body masses.
double total_mass(const Model& m);
// ------------------------------------------------------------------------------------ configuration space

// qpos <- qpos + qvel*dt on the configuration manifold (quaternions integrated exactly).
void integrate_pos(const Model& m, double* qpos, const double* qvel, double dt);
// qvel <- (qpos2 - qpos1)/dt on the manifold (inverse of integrate_pos).
void differentiate_pos(const Model& m, double* qvel, double dt, const double* qpos1,
                       const double* qpos2);
// Normalize the quaternions in qpos.
void normalize_quat(const Model& m, double* qpos);

}  // namespace moreau

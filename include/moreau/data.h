// Moreau Data: everything that changes during simulation.
//
// The state (time, qpos, qvel, act), the inputs (ctrl, qfrc_applied, xfrc_applied, mocap_*), and every
// intermediate result of the pipeline, named as in the computation chapter. All arrays are sized once,
// by make_data(model); nothing inside forward/step/inverse allocates on the heap. Variable-size results
// (contacts, constraint rows) live in preallocated storage whose capacity comes from the model's
// size/memory settings.
//
// Spatial conventions (as the computation chapter): 6-vectors are [rotation; translation]. The
// com-based quantities (cdof, cinert, cvel, crb, cacc, cfrc_*) are expressed in a frame with world
// orientation centred at the subtree centre of mass of the body's root (subtree_com[body_rootid]).
// cinert/crb store 10 numbers per body: the 6 entries of the rotational inertia about that origin
// (xx, yy, zz, xy, xz, yz), then mass*(com - origin) (3), then mass.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "moreau/model.h"

namespace moreau {

// One detected contact (filled by collision detection; issue 3).
struct Contact {
  double dist = 0;              // signed distance; negative: penetration
  double pos[3] = {0, 0, 0};    // position, midway between the surfaces
  double frame[9] = {0};        // rows: normal (geom1 -> geom2), tangent1, tangent2
  double includemargin = 0;     // include in the solver if dist < includemargin (= margin - gap)
  double friction[5] = {0};     // tangent1, tangent2, spin, roll1, roll2
  double solref[kNREF] = {0};
  double solimp[kNIMP] = {0};
  double mu = 0;                // friction of the regularized cone (elliptic)
  double H[36] = {0};           // cone Hessian (elliptic, Newton)
  int dim = 0;                  // condim
  int geom1 = -1, geom2 = -1;
  int exclude = 0;              // 0: include, 1: in gap, 2: fused, 3: equality, 4: no dofs
  int efc_address = -1;         // first constraint row, -1 if not included
};

// Constraint row types and solver states (efc_type, efc_state); values as MuJoCo 2.2.2's.
enum ConstraintType : int {
  kCnstrEquality = 0,
  kCnstrFrictionDof,
  kCnstrFrictionTendon,
  kCnstrLimitJoint,
  kCnstrLimitTendon,
  kCnstrContactFrictionless,
  kCnstrContactPyramidal,
  kCnstrContactElliptic,
};
enum ConstraintState : int {
  kCnstrSatisfied = 0,  // zero cost (limit, contact)
  kCnstrQuadratic,      // quadratic cost
  kCnstrLinearNeg,      // linear cost, negative side (friction loss)
  kCnstrLinearPos,      // linear cost, positive side (friction loss)
  kCnstrCone,           // squared distance to the cone (elliptic contact)
};

// Warnings recorded by the pipeline (the simulation chapter's diagnostics).
enum Warning : int {
  kWarnInertia = 0,    // (near) singular inertia matrix
  kWarnContactFull,    // too many contacts for the preallocated storage
  kWarnCnstrFull,      // too many constraint rows
  kWarnVGeomFull,      // unused, kept for index compatibility
  kWarnBadQpos,        // bad number in qpos
  kWarnBadQvel,        // bad number in qvel
  kWarnBadQacc,        // bad number in qacc
  kWarnBadCtrl,        // bad number in ctrl
  kNWarning,
};
struct WarningStat {
  int lastinfo = 0;   // index of the offending element of the last occurrence
  int number = 0;     // how many times it happened since the last reset
};

// Pipeline stage timers (moreau bench reports them).
enum Timer : int {
  kTimerStep = 0,
  kTimerForward,
  kTimerInverse,
  kTimerPosition,      // fwd position (kinematics .. factorization, collision, constraint making)
  kTimerVelocity,
  kTimerActuation,
  kTimerAcceleration,
  kTimerConstraint,
  kTimerPosKinematics,
  kTimerPosInertia,
  kTimerPosCollision,
  kTimerPosMake,
  kTimerPosProject,
  kNTimer,
};
struct TimerStat {
  double duration = 0;  // seconds, accumulated
  int number = 0;       // number of calls
};

// Per-iteration solver statistics.
struct SolverStat {
  double improvement = 0;
  double gradient = 0;
  double lineslope = 0;
  int nactive = 0;
  int nchange = 0;
  int neval = 0;
  int nupdate = 0;
};
inline constexpr int kNSolverStat = 1000;

struct Data {
  // ------------------------------------------------------------------ state
  double time = 0;
  std::vector<double> qpos;            // nq
  std::vector<double> qvel;            // nv
  std::vector<double> act;             // na
  std::vector<double> qacc_warmstart;  // nv

  // ------------------------------------------------------------------ inputs
  std::vector<double> ctrl;            // nu
  std::vector<double> qfrc_applied;    // nv
  std::vector<double> xfrc_applied;    // 6*nbody: force (3), torque (3) at the body com, world frame
  std::vector<double> mocap_pos;       // 3*nmocap
  std::vector<double> mocap_quat;      // 4*nmocap
  std::vector<uint8_t> eq_active;      // neq: equality constraints enabled at run time (reset: Model::eq_active)

  // ------------------------------------------------------------------ outputs of the step
  std::vector<double> qacc;            // nv
  std::vector<double> act_dot;         // na
  std::vector<double> sensordata;      // nsensordata
  std::vector<double> userdata;        // nuserdata
  double energy[2] = {0, 0};           // potential, kinetic

  // ------------------------------------------------------------------ position dependent
  std::vector<double> xpos, xquat, xmat;         // bodies: 3, 4, 9
  std::vector<double> xipos, ximat;              // body inertial frames: 3, 9
  std::vector<double> xanchor, xaxis;            // joints: 3, 3
  std::vector<double> geom_xpos, geom_xmat;      // 3, 9
  std::vector<double> site_xpos, site_xmat;      // 3, 9
  std::vector<double> cam_xpos, cam_xmat;        // 3, 9
  std::vector<double> light_xpos, light_xdir;    // 3, 3
  std::vector<double> subtree_com;               // 3*nbody
  std::vector<double> cdof;                      // 6*nv
  std::vector<double> cinert;                    // 10*nbody
  std::vector<double> crb;                       // 10*nbody
  std::vector<double> qM;                        // nM, tree-sparse (Model::dof_Madr)
  std::vector<double> qLD;                       // nM, L'DL factor of qM in the same layout
  std::vector<double> qLDiagInv;                 // nv
  std::vector<double> qLDiagSqrtInv;             // nv

  // tendons and actuator transmission (issue 5)
  std::vector<double> ten_length;                // ntendon
  std::vector<double> ten_J;                     // ntendon*nv, dense
  std::vector<int> ten_wrapadr, ten_wrapnum;     // ntendon
  std::vector<int> wrap_obj;                     // 2*nwrap
  std::vector<double> wrap_xpos;                 // 6*nwrap
  std::vector<double> actuator_length;           // nu
  std::vector<double> actuator_moment;           // nu*nv, dense

  // ------------------------------------------------------------------ velocity dependent
  std::vector<double> ten_velocity;              // ntendon
  std::vector<double> actuator_velocity;         // nu
  std::vector<double> cvel;                      // 6*nbody
  std::vector<double> cdof_dot;                  // 6*nv
  std::vector<double> qfrc_bias;                 // nv: C(q, v) (Coriolis, centrifugal, gravity)
  std::vector<double> qfrc_passive;              // nv: springs, dampers, gravity compensation
  std::vector<double> subtree_linvel;            // 3*nbody
  std::vector<double> subtree_angmom;            // 3*nbody

  // ------------------------------------------------------------------ control / acceleration dependent
  std::vector<double> actuator_force;            // nu
  std::vector<double> qfrc_actuator;             // nv
  std::vector<double> qfrc_smooth;               // nv: passive + actuator + applied - bias
  std::vector<double> qacc_smooth;               // nv: M^-1 qfrc_smooth
  std::vector<double> qfrc_constraint;           // nv
  std::vector<double> qfrc_inverse;              // nv
  std::vector<double> cacc;                      // 6*nbody
  std::vector<double> cfrc_int;                  // 6*nbody
  std::vector<double> cfrc_ext;                  // 6*nbody

  // ------------------------------------------------------------------ implicit integrators (issue 5)
  std::vector<double> qH;                        // nM: factor of M - h*D restricted to damping
  std::vector<double> qHDiagInv;                 // nv
  std::vector<double> qDeriv;                    // nv*nv
  std::vector<double> qLU;                       // nv*nv

  // ------------------------------------------------------------------ contacts and constraints
  int ncon = 0;                                  // contacts in use
  int ne = 0, nf = 0, nefc = 0;                  // equality rows, friction rows, all rows
  std::vector<Contact> contact;                  // capacity: nconmax
  // Constraint rows (issue 4); capacity njmax rows.
  std::vector<int> efc_type, efc_id;
  std::vector<double> efc_J;                     // njmax*nv
  std::vector<double> efc_pos, efc_margin, efc_frictionloss, efc_diagApprox, efc_KBIP, efc_D,
      efc_R, efc_vel, efc_aref, efc_b, efc_force, efc_state_d;
  std::vector<int> efc_state;
  // Row sparsity of efc_J (issue 4): efc_J is stored dense (row i at efc_J[i*nv]); row i has
  // efc_J_rownnz[i] non-zeros in columns efc_J_colind[efc_J_rowadr[i] + k] (used when the jacobian
  // option resolves to sparse).
  std::vector<int> efc_J_rownnz, efc_J_rowadr, efc_J_colind;
  // Constraint-solver work space (issue 4): sized by allocate_constraint_storage, carved by
  // src/constraint/storage.h; nothing in make/solve/inverse allocates.
  std::vector<double> efc_work;

  // ------------------------------------------------------------------ collision work space (issue 3)
  // Broad-phase buffers. collision_reserve(m, d) (moreau/collision.h) sizes them; collision() grows
  // them only if a state yields more candidate body pairs than reserved.
  std::vector<double> col_bound;                 // 6*nbody: body bounding boxes (min xyz, max xyz)
  std::vector<int> col_work;                     // sort order, candidate body pairs

  // ------------------------------------------------------------------ diagnostics
  std::array<WarningStat, kNWarning> warning{};
  std::array<TimerStat, kNTimer> timer{};
  bool timing = false;  // fill timer[] (off by default: each timed stage costs two clock reads)
  std::vector<SolverStat> solver;                // kNSolverStat
  int solver_iter = 0;
  int solver_nnz = 0;
  double solver_fwdinv[2] = {0, 0};
  int maxuse_con = 0, maxuse_efc = 0;

  // ------------------------------------------------------------------ scratch
  // Preallocated work space for the pipeline stages (no heap allocation inside a step).
  std::vector<double> scratch;                   // sized by make_data from the model
  // RK4 and integrator saved state.
  std::vector<double> rk_qpos0, rk_qvel0, rk_act0, rk_dqvel[4], rk_dact[4], rk_dqpos;
};

}  // namespace moreau

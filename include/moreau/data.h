// Moreau Data: everything that changes during simulation.
//
// The state (time, qpos, qvel, act), the inputs (ctrl, qfrc_applied, xfrc_applied, mocap_*), and every
// intermediate result of the pipeline, named as in the computation chapter. All arrays are sized once,
// by make_data(model); nothing inside forward/step/inverse allocates on the heap. Variable-size results
// (contacts, constraint rows) live in preallocated storage sized by the model's size/memory settings;
// the stages' temporaries live apart, in Data::work (Workspace). data_bytes(m, d) gives the total.
//
// Spatial conventions (as the computation chapter): 6-vectors are [rotation; translation]. The
// com-based quantities (cdof, cinert, cvel, crb, cacc, cfrc_*) are expressed in a frame with world
// orientation centred at the subtree centre of mass of the body's root (subtree_com[body_rootid]).
// cinert/crb store 10 numbers per body: the 6 entries of the rotational inertia about that origin
// (xx, yy, zz, xy, xz, yz), then mass*(com - origin) (3), then mass.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "moreau/model.h"

namespace moreau {

// One detected contact (filled by collision detection).
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

// Statistics of the last solve of a hard-contact solver (raisim, raisim-ds, ncp-pgs, ccp,
// lcp; src/solver/ncp). The errors are those of the RaiSim paper (Le Lidec & Carpentier, Sec. II,
// after eq. (6)), maximum over the contacts i, with lambda the impulses and h the timestep:
//   primal          eps_p = max_i dist_K(lambda_i / h)               (force, N)
//   dual            eps_d = max_i dist_K*(c_i + Gamma(c_i))          (velocity, m/s)
//   complementarity eps_c = max_i |<lambda_i / h, c_i + Gamma(c_i)>| (power, W)
//   eps_abs = max(eps_p, eps_d, eps_c).
// Rows that are not contacts (limits, equalities, friction loss) enter as 1D cones (see
// src/solver/ncp/metrics.cc).
struct NcpStat {
  int iterations = 0;          // Gauss-Seidel sweeps, or Lemke pivots (lcp)
  int nblock = 0;              // blocks of the problem: 3D contacts and 1D rows
  double primal = 0;
  double dual = 0;
  double complementarity = 0;
  double eps_abs = 0;
  double change = 0;           // relative change of lambda in the last sweep (stopping test)
};

// Work space of the pipeline stages: not state, inputs or results. Each stage owns its part and
// states its size rule beside its code; make_data sizes every part once, so nothing inside step,
// forward, inverse or the derivatives allocates. The contents mean nothing between calls, except
// the hard-contact solvers' warm start (ncp, cleared by reset_data), the mid-phase trees
// (col_bvh_*), the mesh hull tables (col_hull*) and the height-field tops (col_hfield_top), built
// once from the Model by collision_reserve.
struct Workspace {
  // Temporaries of one dynamics stage call (rne, energy): src/dynamics/dynamics.h.
  std::vector<double> stage;
  // Integrators and inverse dynamics: temporaries that live across stage calls, RK4's initial
  // state and stage derivatives: src/integrator/integrator.h.
  std::vector<double> integrator;
  // Analytic velocity derivatives and the midpoint integration of free bodies: src/derivative/work.h.
  std::vector<double> deriv;
  // transition_fd and inverse_fd: saved state, nominal and perturbed outputs: src/derivative/work.h.
  std::vector<double> fd;
  // Constraint rows and the soft-contact solvers (doubles and ints): src/constraint/storage.h,
  // sized by allocate_constraint_storage with the rows.
  std::vector<double> efc;
  std::vector<int> efc_int;
  // Hard-contact solvers (src/solver/ncp/ncp.h): sized when opt.solver is one of them (in make_data,
  // else on their first solve); holds their warm start.
  std::vector<double> ncp;
  // Collision broad phase (moreau/collision.h: collision_reserve sizes it; collision() grows it only
  // if a state yields more candidate body pairs than reserved): body bounding boxes (6*nbody, min
  // xyz, max xyz), sort order and candidate body pairs.
  std::vector<double> col_bound;
  std::vector<int> col_broad;
  // Mid phase (src/collision/midphase.h): per-body trees of geom bounds, built by collision_reserve.
  std::vector<int> col_bvh_adr;                  // nbody: first node of the body's tree, -1: none
  std::vector<int> col_bvh_node;                 // 3 per node
  std::vector<double> col_bvh_box;               // 7 per node
  std::vector<int> col_mid;                      // candidate geom lists, traversal stack
  // Mesh hulls for the support-vertex climb (src/collision/hull.h), built by collision_reserve.
  std::vector<int> col_hull_adr;                 // nmesh: the mesh's start in col_hull, -1: no hull graph
  std::vector<double> col_hull;                  // per mesh: 3 per hull vertex (hull order), then 4 (cap)
  std::vector<int> col_hull_start;               // kHullCells per mesh: start vertex per direction cell
  // Height fields (src/collision/collide_hfield.cc), built by collision_reserve.
  std::vector<double> col_hfield_top;            // nhfield: highest elevation (+inf: not finite)
};

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

  // tendons and actuator transmission
  std::vector<double> ten_length;                // ntendon
  std::vector<double> ten_J;                     // ntendon*nv, dense
  std::vector<int> ten_J_span;                   // 2*ntendon: [lo, hi) of the dofs a ten_J row may be
                                                 // non-zero on (the row is zero outside; tendon() sets
                                                 // it with the row and clears only the previous span)
  std::vector<int> ten_wrapadr, ten_wrapnum;     // ntendon
  std::vector<int> wrap_obj;                     // 2*nwrap
  std::vector<double> wrap_xpos;                 // 6*nwrap
  std::vector<double> actuator_length;           // nu
  std::vector<double> actuator_moment;           // nu*nv, dense
  std::vector<int> actuator_moment_span;         // 2*nu: [lo, hi) of the dofs a row may be non-zero on
                                                 // (the row is zero outside; transmission() keeps it)

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

  // ------------------------------------------------------------------ implicit integrators
  std::vector<double> qH;                        // nM: L'DL factor of M - h*D (Euler: D = joint damping;
                                                 // implicitfast: D symmetrized, no RNE terms)
  std::vector<double> qHDiagInv;                 // nv
  // qDeriv = d(qfrc_passive + qfrc_actuator - qfrc_bias)/d qvel and qLU, the LU factor of M - h*qDeriv,
  // in the dof-dof sparse layout of Model::nD = 2*nM - nv entries (moreau/derivative.h, "Layout"):
  //   [0, nM):   the lower triangle and the diagonal in the layout of qM (row i at dof_Madr[i]: D(i,i),
  //              then D(i, parent), D(i, grandparent), ...);
  //   [nM, nD):  the upper triangle, transposed the same way without the diagonal: D(ancestor, i).
  // Entries between dofs that are not ancestor and descendant are not stored (the chapter: D is
  // restricted to the sparsity of M).
  std::vector<double> qDeriv;                    // nD
  std::vector<double> qLU;                       // nD

  // ------------------------------------------------------------------ contacts and constraints
  int ncon = 0;                                  // contacts in use
  int ne = 0, nf = 0, nefc = 0;                  // equality rows, friction rows, all rows
  std::vector<Contact> contact;                  // capacity: nconmax
  // Constraint rows; capacity njmax rows.
  std::vector<int> efc_type, efc_id;
  std::vector<double> efc_J;                     // njmax*nv
  std::vector<double> efc_pos, efc_margin, efc_frictionloss, efc_diagApprox, efc_KBIP, efc_D,
      efc_R, efc_vel, efc_aref, efc_b, efc_force, efc_state_d;
  std::vector<int> efc_state;
  // Row sparsity of efc_J, filled in both jacobian modes: row i has efc_J_rownnz[i]
  // non-zeros in columns efc_J_colind[efc_J_rowadr[i] + k] (ascending). Sparse jacobian (option
  // sparse, or auto with nv >= 60): efc_J is compressed, the value of that entry is
  // efc_J[efc_J_rowadr[i] + k]. Dense jacobian: efc_J is nefc x nv (row i at efc_J[i*nv]).
  std::vector<int> efc_J_rownnz, efc_J_rowadr, efc_J_colind;
  // A + R = J M^-1 J' + R (the dual problem's matrix), computed on demand by project_constraint
  // (moreau.h), never by step: dense nefc x nefc with the dense jacobian; with the sparse
  // jacobian compressed rows as efc_J (row i: efc_AR_rownnz[i] entries at
  // efc_AR_colind/efc_AR[efc_AR_rowadr[i] + k], ascending columns).
  std::vector<double> efc_AR;
  std::vector<int> efc_AR_rownnz, efc_AR_rowadr, efc_AR_colind;

  // ------------------------------------------------------------------ diagnostics
  std::array<WarningStat, kNWarning> warning{};
  std::array<TimerStat, kNTimer> timer{};
  bool timing = false;  // fill timer[] (off by default: each timed stage costs two clock reads)
  std::vector<SolverStat> solver;                // kNSolverStat
  int solver_iter = 0;
  int solver_nnz = 0;
  double solver_fwdinv[2] = {0, 0};
  int maxuse_con = 0, maxuse_efc = 0;
  // Hard-contact solvers: statistics of the last solve (src/solver/ncp/ncp.h).
  NcpStat ncp;

  // ------------------------------------------------------------------ control callback
  // Called by forward dynamics (every forward_skip, so also at each RK4 stage) after the position and
  // velocity stages and before actuation, and at the end of step1: the place of MuJoCo's global
  // mjcb_control, stored per Data so that threads with their own Data never share it. It may set
  // ctrl, qfrc_applied, xfrc_applied; control_user is for the callback's own use.
  void (*control_callback)(const Model& m, Data& d) = nullptr;
  void* control_user = nullptr;

  // ------------------------------------------------------------------ user callbacks
  // The simulation chapter's other mjcb_* hooks, per Data (threads with their own Data never share
  // them; a copy of a Data gets copies of the functions and what they captured). Empty: not called.
  // passive(), after the built-in passive forces: may add to qfrc_passive (not called when passive
  // forces are disabled).
  std::function<void(const Model& m, Data& d)> passive_callback;
  // Actuators of dyntype / gaintype / biastype "user": act_dot, gain and bias of actuator `id`.
  // Without a callback: act_dot 0, gain 1, bias 0 (as MuJoCo 2.2.2).
  std::function<double(const Model& m, const Data& d, int id)> act_dyn_callback;
  std::function<double(const Model& m, const Data& d, int id)> act_gain_callback;
  std::function<double(const Model& m, const Data& d, int id)> act_bias_callback;
  // Sensors of type "user": called by sensor_pos/vel/acc with kStagePos/kStageVel/kStageAcc when the
  // model has user sensors of that needstage; writes their sensordata (cutoff and noise follow).
  std::function<void(const Model& m, Data& d, int stage)> sensor_callback;
  // Contact filter: called for each candidate geom pair that passed the built-in filters
  // (contype/conaffinity, same body, parent-child, exclude; explicit <pair>s are not filtered) before
  // the narrow phase; return true to discard the pair.
  std::function<bool(const Model& m, const Data& d, int geom1, int geom2)> contact_filter;

  // ------------------------------------------------------------------ argument checks
  // The Model this Data was checked against by a public entry point that is still running (step,
  // forward, inverse, ...): the stages it calls skip their own check of the Data's sizes. Null
  // outside such a call; not copied (a copy or an assigned Data starts unchecked).
  struct CheckMark {
    const Model* model = nullptr;
    CheckMark() = default;
    CheckMark(const CheckMark&) noexcept {}
    CheckMark& operator=(const CheckMark&) noexcept {
      model = nullptr;
      return *this;
    }
  };
  CheckMark checked;

  // ------------------------------------------------------------------ work space
  // The stages' temporaries (Workspace above): not state, inputs or results.
  Workspace work;
};

}  // namespace moreau

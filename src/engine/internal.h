// Internal declarations shared by the pipeline stages (not part of the public API).
#pragma once

#include "moreau/moreau.h"

namespace moreau::internal {

// ------------------------------------------------------------------------------------ scratch layout
// Data::scratch is one preallocated block (make_data sizes it with scratch_size). It is split into
// two regions so that a stage never overwrites the temporaries of its caller:
//   stage region      [0, stage_size):   temporaries of one pipeline stage (rne, energy, passive, ...)
//                                        -- valid only during that stage call.
//   integrator region [stage_size, ...): temporaries of step/inverse that live across stage calls.
inline long long scratch_stage_size(const Model& m) { return 12LL * m.nbody + 2LL * m.nv; }
inline long long scratch_integrator_size(const Model& m) { return 6LL * m.nv + 2LL * m.na + m.nq; }
inline long long scratch_size(const Model& m) { return scratch_stage_size(m) + scratch_integrator_size(m); }
inline double* scratch_stage(const Model& m, Data& d) { return d.scratch.data(); }
inline double* scratch_integrator(const Model& m, Data& d) { return d.scratch.data() + scratch_stage_size(m); }

// Forward dynamics without the optional computations (sensors, energy); RK4 calls it for its inner
// stages. With skip_sensor=false it is forward().
void forward_skip(const Model& m, Data& d, bool skip_sensor);
// The same, skipping the stages whose inputs did not change (simulation chapter, mj_forwardSkip):
// kStagePos skips the position stage (and position sensors), kStageVel also the velocity stage; the
// caller guarantees that d holds their results for the current qpos (and qvel). The control callback
// and everything from actuation on always run.
void forward_skip(const Model& m, Data& d, int skipstage, bool skip_sensor);
// step with skipped stages (transition_fd): forward_skip, check_acc, the model's integrator.
void step_skip(const Model& m, Data& d, int skipstage, bool skip_sensor);
// Acceleration-stage sensors (with the post-constraint RNE when a sensor needs it).
void acceleration_sensors(const Model& m, Data& d);

// Integrators (src/integrator/).
void euler(const Model& m, Data& d);
void runge_kutta4(const Model& m, Data& d);
void implicit(const Model& m, Data& d);  // implicit and implicitfast (src/integrator/implicit.cc)
// implicitcon: implicitfast with the constraint forces' velocity derivative
// (src/integrator/implicit_constraint.cc).
void implicit_constraint(const Model& m, Data& d);
// Continuous acceleration of a discrete one of the implicit integrators: res = qacc_d - h M^-1 D qacc_d
// (inverse dynamics with invdiscrete). Needs the position and velocity stages.
void implicit_discrete_to_continuous(const Model& m, Data& d, const double* qacc_d, double* res);
// Advance the state by one timestep h given act_dot, qacc and (optionally) qvel for the positions:
// act += h*act_dot; qvel += h*qacc; qpos <- integrate_pos(qpos, qvel_or_new_qvel, h); time += h.
void advance(const Model& m, Data& d, const double* act_dot, const double* qacc, const double* qvel);

// Last dof of the chain that moves body b (its own last dof, or its nearest moving ancestor's), or -1
// when b is welded to the world. The chain's dofs are this one and its dof_parentid ancestors.
inline int last_dof(const Model& m, int b) {
  while (b > 0 && m.body_dofnum[b] == 0) b = m.body_parentid[b];
  return b == 0 ? -1 : m.body_dofadr[b] + m.body_dofnum[b] - 1;
}

// Add J(point, body)' * [force; torque] to qfrc (nv) without forming J: the spatial force at the
// com origin dotted with each cdof of the body's chain (apply force/torque at a point).
void apply_ft(const Model& m, const Data& d, const double* force, const double* torque,
              const double* point, int body, double* qfrc);
// qfrc += projection of d.xfrc_applied (force and torque at each body's com, xipos).
void xfrc_accumulate(const Model& m, const Data& d, double* qfrc);

// L'DL factorization of a tree-sparse matrix in place (layout of Model::dof_Madr): on return the
// diagonal holds D, the off-diagonal entries hold L. diaginv = 1/D, diagsqrtinv (optional) = 1/sqrt(D).
void factor_ld(const Model& m, double* qld, double* diaginv, double* diagsqrtinv);
// x <- (L'DL)^-1 x with the factor of factor_ld.
void solve_ld(const Model& m, const double* qld, const double* diaginv, double* x, int n);

// True when x is NaN, Inf or larger than 1e10 in magnitude (divergence; simulation chapter).
inline bool is_bad(double x) { return !(x == x) || x > 1e10 || x < -1e10; }

}  // namespace moreau::internal

#include <chrono>

namespace moreau::internal {

// Accumulates the duration of the enclosing scope into d.timer[id] when d.timing is on.
class StageTimer {
 public:
  StageTimer(Data& d, Timer id) : d_(d), id_(id), on_(d.timing) {
    if (on_) t0_ = std::chrono::steady_clock::now();
  }
  ~StageTimer() {
    if (!on_) return;
    d_.timer[id_].duration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    d_.timer[id_].number++;
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Data& d_;
  Timer id_;
  bool on_;
  std::chrono::steady_clock::time_point t0_{};
};

}  // namespace moreau::internal

// Batch rollouts: many trajectories of one Model (or of one Model per trajectory) on a pool of
// threads, each thread with its own Data. The results are bitwise those of the serial loop
//
//   for b in 0..B:  reset_data(m_b, d); set_state(m_b, d, spec, initial_state[b]);
//                   for t in 0..T:  d.ctrl = ctrl[b][t] (if given); d.qfrc_applied = ...;
//                                   d.xfrc_applied = ...;  step(m_b, d);
//                                   state[b][t] = get_state(m_b, d, spec);
//                                   sensordata[b][t] = d.sensordata;
//
// whatever the thread count and whichever thread runs which rollout.
//
//   moreau::Rollout pool(m, 2);                 // threads and Datas made once
//   std::vector<double> x0(B * nstate), x(B * T * nstate);
//   moreau::RolloutArgs a;
//   a.nbatch = B; a.nstep = T; a.initial_state = x0; a.state = x;
//   pool.run(a);                                // again and again: no threads, no Datas made
//
// What a rollout starts from: reset_data (qpos0, zero velocity, activation, controls, applied
// forces, warm start and userdata; mocap from the model; eq_active from the model; warning counts
// zero), then set_state(spec, initial_state[b]). Components outside `spec` keep those reset
// values; a component inside `spec` but not given per step (for example ctrl in the spec and no
// ctrl array) keeps its initial value for the whole rollout, since step never changes an input.
// Warm start: qacc_warmstart is zero at the start (or the initial state's, when spec contains
// kStateWarmstart); during the rollout each step warm-starts from the previous one as in the loop.
// The control callback of the Datas is not used (null).
//
// State rows are those of `spec` after each step (time included when spec has kStateTime), and
// sensordata rows what that step computed (the sensors of the state before its integration, as
// MuJoCo's rollout reports them).
//
// T = 0 is allowed: nothing is stepped; warning counts are zero and final_sensordata holds the
// sensors of the initial states. B = 0 does nothing.
//
// Diverging states: a NaN, Inf or huge value in qpos, qvel or qacc (also in an initial state) is
// handled by step's divergence checks: the Data is reset (reset_data, so that step also runs with
// zero inputs), the warning is counted, and the rollout continues from the reset state with the
// next step's inputs; the state rows are what those steps produced. The
// optional `warning` output receives, per rollout, the count of each Warning (moreau/data.h) over
// its T steps, so a caller sees which rollouts diverged. (MuJoCo 3's rollout instead freezes the
// rows at the first warning.)
#pragma once

#include <memory>
#include <span>

#include "moreau/data.h"
#include "moreau/model.h"
#include "moreau/state.h"

namespace moreau {

// The arrays of one batch of B rollouts of T steps, row-major, sizes checked by run(). An empty
// optional span means "not given" (inputs) or "not wanted" (outputs).
struct RolloutArgs {
  int nbatch = 0;                           // B
  int nstep = 0;                            // T
  unsigned spec = kStateFullPhysics;        // components of initial_state and of state (state.h)
  std::span<const double> initial_state;    // B x state_size(m, spec)
  std::span<const double> ctrl;             // optional: B x T x nu, set before each step
  std::span<const double> qfrc_applied;     // optional: B x T x nv
  std::span<const double> xfrc_applied;     // optional: B x T x 6*nbody
  std::span<double> state;                  // optional: B x T x state_size(m, spec)
  std::span<double> sensordata;             // optional: B x T x nsensordata
  std::span<int> warning;                   // optional: B x kNWarning warning counts per rollout
  // optional: B x nsensordata, the sensors of the final state. After the last step the position and
  // velocity stages run on the state it produced (as MuJoCo's mj_step1, or dm_control's step), so
  // positions, velocities and the position/velocity sensors are those of the final state;
  // acceleration sensors keep the last step's values. Costs a step1 per rollout. The position
  // stage renormalizes quaternions in qpos (as the next step would): the last state row is the
  // state after this pass.
  std::span<double> final_sensordata;
  // true: a rollout starts from set_state alone, without reset_data, when spec holds every
  // component of kStateIntegration and the solver is a soft one (Newton, CG, PGS): from such a
  // state step reads nothing else of the Data, so the result is the same and the worker skips
  // clearing its whole Data (most of the cost of a short rollout of a small model). Ignored
  // otherwise (the hard-contact solvers warm-start from impulses kept in the Data).
  bool reuse_data = false;
};

// A pool of worker threads that run batches of rollouts of `m`. nthread threads work on a batch:
// the calling thread and nthread - 1 threads started by the constructor, which wait between
// batches. Each worker owns a Data made once from m by the constructor, so repeated run() calls
// start no thread and make no Data; the step loop allocates nothing. Rollouts are handed out one
// at a time in index order to whichever worker is free.
//
// The Model must outlive the pool and must not change while a batch runs. Parameters that no Data
// caches (friction, masses, gains, solver options of the same kind, ...) may change between
// batches; geometry or sizes may not (make a new pool, as for a Data).
//
// run() from several threads at once is serialized (one batch at a time).
class Rollout {
 public:
  // Throws std::invalid_argument if nthread < 1.
  Rollout(const Model& m, int nthread);
  ~Rollout();
  Rollout(const Rollout&) = delete;
  Rollout& operator=(const Rollout&) = delete;

  // Every rollout of the batch on the pool's model.
  void run(const RolloutArgs& args);

  // Rollout b on *models[b] (models.size() == B; e.g. randomized friction or masses). Every model
  // must have the pool model's state sizes (nq, nv, na, nu, nbody, nmocap, neq, nuserdata,
  // nsensordata): std::invalid_argument names the first that does not. A model other than the
  // pool's runs on a Data made from it: a worker makes one when its next rollout's model differs
  // from its previous rollout's in this batch (outside the step loop; consecutive rollouts of one
  // model share it). Passing the pool's own model uses the pool's Datas.
  void run(std::span<const Model* const> models, const RolloutArgs& args);

  // Persistent simulations (vectorized environments): datas[b] (made from the pool's model)
  // advances args.nstep steps from its own state, without reset_data or set_state, its inputs set
  // before each step from the per-step arrays as in run(); args.initial_state must be empty, the
  // outputs are those of run(), warning counts being those added during this call. Each Data keeps
  // everything between calls (the hard-contact solvers' warm start too), so the result is bitwise
  // a loop of step on each Data, whatever the thread count. A Data must not be in two batches at once.
  void step(std::span<Data* const> datas, const RolloutArgs& args);

  int nthread() const;
  const Model& model() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One batch without keeping a pool (starts nthread - 1 threads and makes nthread Datas).
void rollout(const Model& m, const RolloutArgs& args, int nthread = 1);
void rollout(std::span<const Model* const> models, const RolloutArgs& args, int nthread = 1);

// Throws std::invalid_argument unless `args` fits a batch of `m` (every array size, nbatch >= 0,
// nstep >= 0, spec bits). run() calls it; exposed for bindings that check before releasing a lock.
void check_rollout_args(const Model& m, const RolloutArgs& args);

}  // namespace moreau

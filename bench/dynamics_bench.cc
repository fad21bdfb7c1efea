// Smooth-dynamics timing, Moreau against MuJoCo 2.2.2 in the same run: forward(), Euler step() and
// RK4 step() on the same model file and the same state, with constraints disabled on both sides
// (this isolates the smooth pipeline: kinematics, com frames, CRB, L'DL, RNE, passive, solve).
// The "_noact" cases also disable actuation on both sides, so those rows time the smooth pipeline
// alone.
//
// State: a fixed pseudo-random configuration and velocity (hinges qpos0 + U(-0.3, 0.3), free joint
// quaternion perturbed, qvel U(-0.5, 0.5)), set on both engines. The step benchmarks restart from
// that state every kEpisode steps so both visit the same trajectory.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace {

constexpr int kEpisode = 500;

struct DynCase {
  std::string name;
  std::string path;
  int disable;
};

std::vector<DynCase> dyn_cases() {
  const std::string sys = "/usr/share/mujoco/model/";
  const int nocon = moreau::kDsblConstraint;
  const int noact = moreau::kDsblConstraint | moreau::kDsblActuation;
  return {
      {"humanoid_nocon", sys + "humanoid/humanoid.xml", nocon},
      {"humanoid_nocon_noact", sys + "humanoid/humanoid.xml", noact},
      {"humanoid100_nocon_noact", sys + "humanoid100/humanoid100.xml", noact},
  };
}

// The benchmark state, from the MuJoCo model (same sizes and layout as Moreau's).
void bench_state(const mjModel* m, std::vector<double>& qpos, std::vector<double>& qvel) {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  qpos.assign(m->qpos0, m->qpos0 + m->nq);
  qvel.assign(m->nv, 0.0);
  for (int j = 0; j < m->njnt; ++j) {
    double* q = qpos.data() + m->jnt_qposadr[j];
    if (m->jnt_type[j] == mjJNT_FREE || m->jnt_type[j] == mjJNT_BALL) {
      double* quat = m->jnt_type[j] == mjJNT_FREE ? q + 3 : q;
      for (int k = 0; k < 4; ++k) quat[k] += u(rng);
      const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
      for (int k = 0; k < 4; ++k) quat[k] /= n;
    } else {
      q[0] += u(rng);
    }
  }
  for (auto& v : qvel) v = 1.5 * u(rng);
}

struct Pair {
  mjModel* mj = nullptr;
  mjData* md = nullptr;
  moreau::Model m;
  moreau::Data d;
  std::vector<double> qpos, qvel;
  std::string error;
  explicit Pair(const DynCase& c) {
    char err[1000] = "";
    mj = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
    if (!mj) { error = err; return; }
    mj->opt.disableflags |= c.disable;
    md = mj_makeData(mj);
    try {
      m = moreau::load_model(c.path);
    } catch (const std::exception& e) {
      error = e.what();
      return;
    }
    m.opt.disableflags |= c.disable;
    d = moreau::make_data(m);
    bench_state(mj, qpos, qvel);
    if (m.nq != mj->nq || m.nv != mj->nv) error = "models differ in size";
  }
  ~Pair() {
    if (md) mj_deleteData(md);
    if (mj) mj_deleteModel(mj);
  }
  void restart_mujoco() {
    mj_resetData(mj, md);
    std::copy(qpos.begin(), qpos.end(), md->qpos);
    std::copy(qvel.begin(), qvel.end(), md->qvel);
  }
  void restart_moreau() {
    moreau::reset_data(m, d);
    std::copy(qpos.begin(), qpos.end(), d.qpos.begin());
    std::copy(qvel.begin(), qvel.end(), d.qvel.begin());
  }
};

void moreau_forward(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.restart_moreau();
  for (auto _ : state) {
    moreau::forward(p.m, p.d);
    benchmark::DoNotOptimize(p.d.qacc.data());
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_forward(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.restart_mujoco();
  for (auto _ : state) {
    mj_forward(p.mj, p.md);
    benchmark::DoNotOptimize(p.md->qacc);
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void moreau_rk4_step(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.m.opt.integrator = moreau::kIntRK4;
  p.restart_moreau();
  int n = 0;
  for (auto _ : state) {
    moreau::step(p.m, p.d);
    if (++n == kEpisode) { n = 0; p.restart_moreau(); }
  }
  state.counters["steps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_rk4_step(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.mj->opt.integrator = mjINT_RK4;
  p.restart_mujoco();
  int n = 0;
  for (auto _ : state) {
    mj_step(p.mj, p.md);
    if (++n == kEpisode) { n = 0; p.restart_mujoco(); }
  }
  state.counters["steps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void moreau_euler_step(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.m.opt.integrator = moreau::kIntEuler;
  p.restart_moreau();
  int n = 0;
  for (auto _ : state) {
    moreau::step(p.m, p.d);
    if (++n == kEpisode) { n = 0; p.restart_moreau(); }
  }
  state.counters["steps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_euler_step(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.mj->opt.integrator = mjINT_EULER;
  p.restart_mujoco();
  int n = 0;
  for (auto _ : state) {
    mj_step(p.mj, p.md);
    if (++n == kEpisode) { n = 0; p.restart_mujoco(); }
  }
  state.counters["steps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

// ------------------------------------------------------------------ implicit step, transition_fd
// Default options (contacts on), the model's own actuators at controls 0.3 sin(i+1): humanoid (free
// root, 21 motors, contacts) and arm26 (muscles, spatial tendons).
std::vector<DynCase> deriv_cases() {
  const std::string sys = "/usr/share/mujoco/model/";
  return {{"humanoid", sys + "humanoid/humanoid.xml", 0}, {"arm26", sys + "tendon_arm/arm26.xml", 0}};
}

void set_controls(double* ctrl, int nu) {
  for (int i = 0; i < nu; ++i) ctrl[i] = 0.3 * std::sin(i + 1.0);
}

void moreau_implicit_step(benchmark::State& state, DynCase c, int integrator) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.m.opt.integrator = integrator;
  p.restart_moreau();
  set_controls(p.d.ctrl.data(), p.m.nu);
  int n = 0;
  for (auto _ : state) {
    moreau::step(p.m, p.d);
    if (++n == kEpisode) { n = 0; p.restart_moreau(); set_controls(p.d.ctrl.data(), p.m.nu); }
  }
  state.counters["steps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_implicit_step(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.mj->opt.integrator = mjINT_IMPLICIT;
  p.restart_mujoco();
  set_controls(p.md->ctrl, p.mj->nu);
  int n = 0;
  for (auto _ : state) {
    mj_step(p.mj, p.md);
    if (++n == kEpisode) { n = 0; p.restart_mujoco(); set_controls(p.md->ctrl, p.mj->nu); }
  }
  state.counters["steps/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

// A, B, C, D by forward differences (eps 1e-6) with Euler, at the benchmark state after 100 steps.
void moreau_transition_fd(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.m.opt.integrator = moreau::kIntEuler;
  p.restart_moreau();
  set_controls(p.d.ctrl.data(), p.m.nu);
  for (int i = 0; i < 100; ++i) moreau::step(p.m, p.d);
  const int ndx = 2 * p.m.nv + p.m.na, nu = p.m.nu, ns = p.m.nsensordata;
  std::vector<double> A(ndx * ndx), B(ndx * nu), C(ns * ndx), D(ns * nu);
  for (auto _ : state) {
    moreau::transition_fd(p.m, p.d, 1e-6, false, A.data(), B.data(), ns ? C.data() : nullptr, ns ? D.data() : nullptr);
    benchmark::DoNotOptimize(A.data());
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_transition_fd(benchmark::State& state, DynCase c) {
  Pair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  p.mj->opt.integrator = mjINT_EULER;
  // 2.2.2's mjd_transitionFD works on its stack (arm26's default overflows it)
  p.mj->nstack = std::max(p.mj->nstack, 1000000);
  mj_deleteData(p.md);
  p.md = mj_makeData(p.mj);
  p.restart_mujoco();
  set_controls(p.md->ctrl, p.mj->nu);
  for (int i = 0; i < 100; ++i) mj_step(p.mj, p.md);
  const int ndx = 2 * p.mj->nv + p.mj->na, nu = p.mj->nu, ns = p.mj->nsensordata;
  std::vector<double> A(ndx * ndx), B(ndx * nu), C(ns * ndx), D(ns * nu);
  for (auto _ : state) {
    mjd_transitionFD(p.mj, p.md, 1e-6, 0, A.data(), B.data(), ns ? C.data() : nullptr, ns ? D.data() : nullptr);
    benchmark::DoNotOptimize(A.data());
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

const bool kRegisteredDerivatives = [] {
  for (const DynCase& c : deriv_cases()) {
    benchmark::RegisterBenchmark(("moreau/implicit_step/" + c.name).c_str(), moreau_implicit_step, c, moreau::kIntImplicit);
    benchmark::RegisterBenchmark(("mujoco/implicit_step/" + c.name).c_str(), mujoco_implicit_step, c);
    benchmark::RegisterBenchmark(("moreau/implicitfast_step/" + c.name).c_str(), moreau_implicit_step, c,
                                 moreau::kIntImplicitFast);
    benchmark::RegisterBenchmark(("moreau/transition_fd/" + c.name).c_str(), moreau_transition_fd, c);
    benchmark::RegisterBenchmark(("mujoco/transition_fd/" + c.name).c_str(), mujoco_transition_fd, c);
  }
  return true;
}();

const bool kRegisteredDynamics = [] {
  for (const DynCase& c : dyn_cases()) {
    benchmark::RegisterBenchmark(("moreau/forward/" + c.name).c_str(), moreau_forward, c);
    benchmark::RegisterBenchmark(("mujoco/forward/" + c.name).c_str(), mujoco_forward, c);
    benchmark::RegisterBenchmark(("moreau/euler_step/" + c.name).c_str(), moreau_euler_step, c);
    benchmark::RegisterBenchmark(("mujoco/euler_step/" + c.name).c_str(), mujoco_euler_step, c);
    benchmark::RegisterBenchmark(("moreau/rk4_step/" + c.name).c_str(), moreau_rk4_step, c);
    benchmark::RegisterBenchmark(("mujoco/rk4_step/" + c.name).c_str(), mujoco_rk4_step, c);
  }
  return true;
}();

}  // namespace

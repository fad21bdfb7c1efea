// Transition Jacobians, side by side in one run: Moreau's transition_derivatives (analytic, with
// finite-difference columns where the analytic path does not reach: derivative_fallbacks lists them),
// Moreau's transition_fd (centred and forward, eps 1e-6) and MuJoCo 2.2.2's mjd_transitionFD
// (centred and forward, eps 1e-6), A and B only (no sensors).
//
// State: both engines load the same file, start from keyframe 0 (else qpos0) with zero controls and
// step kSettle times (the humanoids fall onto the floor, so the state has contacts), then every
// iteration computes A and B at that state.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

constexpr int kSettle = 200;
const std::string kSystem = "/usr/share/mujoco/model/";
const std::string kShared = std::string(MOREAU_SHARED_DIR) + "/models/";

struct Case {
  std::string name, path;
};

std::vector<Case> cases() {
  return {{"humanoid", kSystem + "humanoid/humanoid.xml"},
          {"humanoid100", kSystem + "humanoid100/humanoid100.xml"},
          {"dog", kShared + "dm_control/dog.xml"},
          {"quadruped", kShared + "dm_control/quadruped.xml"}};
}

enum class Method { kAnalytic, kCentred, kForward };

void moreau_deriv(benchmark::State& state, Case c, Method method) {
  moreau::Model m;
  try {
    m = moreau::load_model(c.path);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  moreau::Data d = moreau::make_data(m);
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  for (int i = 0; i < kSettle; ++i) moreau::step(m, d);
  const int ndx = 2 * m.nv + m.na;
  std::vector<double> A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * m.nu);
  for (auto _ : state) {
    if (method == Method::kAnalytic)
      moreau::transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
    else
      moreau::transition_fd(m, d, 1e-6, method == Method::kCentred, A.data(), B.data(), nullptr, nullptr);
    benchmark::DoNotOptimize(A.data());
  }
  moreau::forward(m, d);
  state.counters["nv"] = m.nv;
  state.counters["nefc"] = d.nefc;
}

void mujoco_deriv(benchmark::State& state, Case c, bool centred) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
  if (!m) {
    state.SkipWithError(err);
    return;
  }
  mjData* d = mj_makeData(m);
  if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
  for (int i = 0; i < kSettle; ++i) mj_step(m, d);
  const int ndx = 2 * m->nv + m->na;
  std::vector<mjtNum> A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * m->nu);
  for (auto _ : state) {
    mjd_transitionFD(m, d, 1e-6, centred, A.data(), B.data(), nullptr, nullptr);
    benchmark::DoNotOptimize(A.data());
  }
  mj_forward(m, d);
  state.counters["nv"] = m->nv;
  state.counters["nefc"] = d->nefc;
  mj_deleteData(d);
  mj_deleteModel(m);
}

const bool registered = [] {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("deriv/moreau_analytic/" + c.name).c_str(), moreau_deriv, c, Method::kAnalytic)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("deriv/moreau_fd_centred/" + c.name).c_str(), moreau_deriv, c, Method::kCentred)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("deriv/moreau_fd_forward/" + c.name).c_str(), moreau_deriv, c, Method::kForward)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("deriv/mujoco_fd_centred/" + c.name).c_str(), mujoco_deriv, c, true)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("deriv/mujoco_fd_forward/" + c.name).c_str(), mujoco_deriv, c, false)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

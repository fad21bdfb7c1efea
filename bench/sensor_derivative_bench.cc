// Transition Jacobians with sensors (A, B, C, D), side by side in one run: transition_derivatives
// (analytic sensor rows, finite differences of forward for the uncovered sensors' rows), the same
// with the sensor rows from transition_fd (centred, eps 1e-6: what transition_derivatives did before
// the sensor rows were analytic), Moreau's transition_fd and MuJoCo 2.2.2's mjd_transitionFD
// (centred, eps 1e-6, A, B, C, D).
//
// State: keyframe 0 (else qpos0), zero controls, kSettle steps (contacts with the floor).
// humanoid_covered: dm_control's humanoid without its touch, force and torque sensors (the types
// that read the constraint forces), Moreau only (loaded from the edited text).
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

constexpr int kSettle = 200;
const std::string kShared = std::string(MOREAU_SHARED_DIR) + "/models/";

struct Case {
  std::string name, path;
  bool covered_only = false;  // drop the touch, force and torque sensors
};

std::vector<Case> cases() {
  return {{"humanoid", kShared + "dm_control/humanoid.xml"},
          {"quadruped", kShared + "dm_control/quadruped.xml"},
          {"humanoid_covered", kShared + "dm_control/humanoid.xml", true}};
}

moreau::Model load(const Case& c) {
  if (!c.covered_only) return moreau::load_model(c.path);
  std::ifstream in(c.path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string xml = std::regex_replace(text.str(), std::regex("<(touch|force|torque) [^>]*/>"), "");
  return moreau::load_model_from_string(xml, c.path);
}

enum class Method { kAnalytic, kSensorsFd, kCentred };

void moreau_sensor_deriv(benchmark::State& state, Case c, Method method) {
  moreau::Model m;
  try {
    m = load(c);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  moreau::Data d = moreau::make_data(m);
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  for (int i = 0; i < kSettle; ++i) moreau::step(m, d);
  const int ndx = 2 * m.nv + m.na, ns = m.nsensordata;
  std::vector<double> A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * m.nu),
      C(static_cast<size_t>(ns) * ndx), D(static_cast<size_t>(ns) * m.nu);
  for (auto _ : state) {
    switch (method) {
      case Method::kAnalytic:
        moreau::transition_derivatives(m, d, A.data(), B.data(), C.data(), D.data());
        break;
      case Method::kSensorsFd:
        moreau::transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
        moreau::transition_fd(m, d, 1e-6, true, nullptr, nullptr, C.data(), D.data());
        break;
      case Method::kCentred:
        moreau::transition_fd(m, d, 1e-6, true, A.data(), B.data(), C.data(), D.data());
        break;
    }
    benchmark::DoNotOptimize(C.data());
  }
  moreau::forward(m, d);
  state.counters["nv"] = m.nv;
  state.counters["nsensordata"] = ns;
}

void mujoco_sensor_deriv(benchmark::State& state, Case c) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
  if (!m) {
    state.SkipWithError(err);
    return;
  }
  mjData* d = mj_makeData(m);
  if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
  for (int i = 0; i < kSettle; ++i) mj_step(m, d);
  const int ndx = 2 * m->nv + m->na, ns = m->nsensordata;
  std::vector<mjtNum> A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * m->nu),
      C(static_cast<size_t>(ns) * ndx), D(static_cast<size_t>(ns) * m->nu);
  for (auto _ : state) {
    mjd_transitionFD(m, d, 1e-6, 1, A.data(), B.data(), C.data(), D.data());
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["nv"] = m->nv;
  state.counters["nsensordata"] = ns;
  mj_deleteData(d);
  mj_deleteModel(m);
}

const bool registered = [] {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("sensor_deriv/moreau_analytic/" + c.name).c_str(), moreau_sensor_deriv, c,
                                 Method::kAnalytic)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("sensor_deriv/moreau_sensors_fd/" + c.name).c_str(), moreau_sensor_deriv, c,
                                 Method::kSensorsFd)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("sensor_deriv/moreau_fd_centred/" + c.name).c_str(), moreau_sensor_deriv, c,
                                 Method::kCentred)
        ->Unit(benchmark::kMillisecond);
    if (!c.covered_only)
      benchmark::RegisterBenchmark(("sensor_deriv/mujoco_fd_centred/" + c.name).c_str(), mujoco_sensor_deriv, c)
          ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

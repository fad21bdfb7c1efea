// Whole-step timing, Moreau against MuJoCo 2.2.2 in the same process run: the same model file, the
// same initial state (keyframe 0 if the model has one, else qpos0), the same options, zero controls.
// Each case is registered twice, "moreau/<case>" and "mujoco/<case>", so the two rows of one model
// compare line by line; scripts/bench_table.py turns repeated runs into the README's ratios.
//
// Both engines restart from the initial state every kEpisode steps, so they visit the same part of
// the trajectory whatever number of iterations Google Benchmark picks.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <memory>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

constexpr int kEpisode = 1000;
const std::string kSystem = "/usr/share/mujoco/model/";
const std::string kShared = std::string(MOREAU_SHARED_DIR) + "/models/";

struct Case {
  std::string name;
  std::string path;
  int disable;  // disable flags applied to both engines (same bit values)
};

std::vector<Case> cases() {
  return {
      {"humanoid_noconstraint", kSystem + "humanoid/humanoid.xml", moreau::kDsblConstraint},
      {"humanoid", kSystem + "humanoid/humanoid.xml", 0},
      {"humanoid100", kSystem + "humanoid100/humanoid100.xml", 0},
      {"22_humanoids", kSystem + "humanoid/22_humanoids.xml", 0},
      {"quadruped", kShared + "dm_control/quadruped.xml", 0},
      {"dog", kShared + "dm_control/dog.xml", 0},
      {"cheetah", kShared + "dm_control/cheetah.xml", 0},
      {"flag", kSystem + "flag/flag.xml", 0},
      {"arm26", kSystem + "tendon_arm/arm26.xml", 0},
  };
}

void moreau_step(benchmark::State& state, Case c) {
  moreau::Model m;
  try {
    m = moreau::load_model(c.path);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  m.opt.disableflags |= c.disable;
  moreau::Data d = moreau::make_data(m);
  auto restart = [&] {
    if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
    else moreau::reset_data(m, d);
  };
  restart();
  int n = 0;
  for (auto _ : state) {
    moreau::step(m, d);
    if (++n == kEpisode) {
      n = 0;
      restart();
    }
  }
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate);
}

void mujoco_step(benchmark::State& state, Case c) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
  if (!m) {
    state.SkipWithError(err);
    return;
  }
  m->opt.disableflags |= c.disable;
  mjData* d = mj_makeData(m);
  auto restart = [&] {
    if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
    else mj_resetData(m, d);
  };
  restart();
  int n = 0;
  for (auto _ : state) {
    mj_step(m, d);
    if (++n == kEpisode) {
      n = 0;
      restart();
    }
  }
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate);
  mj_deleteData(d);
  mj_deleteModel(m);
}

const bool kRegistered = [] {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("moreau/step/" + c.name).c_str(), moreau_step, c);
    benchmark::RegisterBenchmark(("mujoco/step/" + c.name).c_str(), mujoco_step, c);
  }
  return true;
}();

}  // namespace

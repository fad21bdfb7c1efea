// Rollout throughput (moreau/rollout.h) beside a hand-written serial loop that does the same work:
// the bundled humanoid, B = 64 rollouts of T = 1000 steps from qpos0 with distinct initial
// velocities, zero controls, the full-physics state stored after every step. Wall-clock time (the
// pool's workers are other threads); items = steps, so items_per_second is the throughput.
//
//   build/bench/moreau_bench --benchmark_filter='Rollout' --benchmark_repetitions=3
//
// Rollout/threads:N keeps one pool across iterations (threads and Datas made before timing).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "moreau/moreau.h"
#include "moreau/rollout.h"

namespace {

constexpr int kBatch = 64;
constexpr int kSteps = 1000;
const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

struct Setup {
  moreau::Model m;
  int nstate = 0;
  std::vector<double> x0, state;
};

Setup setup() {
  Setup s;
  s.m = moreau::load_model(kHumanoid);
  s.nstate = moreau::state_size(s.m, moreau::kStateFullPhysics);
  moreau::Data d = moreau::make_data(s.m);
  s.x0.resize(static_cast<size_t>(kBatch) * s.nstate);
  for (int b = 0; b < kBatch; ++b) {
    moreau::reset_data(s.m, d);
    for (int i = 0; i < s.m.nv; ++i) d.qvel[i] = 0.01 * ((b * 7 + i * 3) % 11 - 5);
    moreau::get_state(s.m, d, moreau::kStateFullPhysics, s.x0.data() + static_cast<size_t>(b) * s.nstate);
  }
  s.state.resize(static_cast<size_t>(kBatch) * kSteps * s.nstate);
  return s;
}

// The loop a user would write: one Data, reset + set_state per rollout, step, copy the state out.
void BM_RolloutSerialLoop(benchmark::State& st) {
  Setup s = setup();
  moreau::Data d = moreau::make_data(s.m);
  for (auto _ : st) {
    for (int b = 0; b < kBatch; ++b) {
      moreau::reset_data(s.m, d);
      moreau::set_state(s.m, d, moreau::kStateFullPhysics, s.x0.data() + static_cast<size_t>(b) * s.nstate);
      for (int t = 0; t < kSteps; ++t) {
        moreau::step(s.m, d);
        moreau::get_state(s.m, d, moreau::kStateFullPhysics,
                          s.state.data() + (static_cast<size_t>(b) * kSteps + t) * s.nstate);
      }
    }
    benchmark::DoNotOptimize(s.state.data());
  }
  st.SetItemsProcessed(st.iterations() * kBatch * kSteps);
}

void BM_Rollout(benchmark::State& st) {
  Setup s = setup();
  moreau::Rollout pool(s.m, static_cast<int>(st.range(0)));
  moreau::RolloutArgs a;
  a.nbatch = kBatch;
  a.nstep = kSteps;
  a.initial_state = s.x0;
  a.state = s.state;
  for (auto _ : st) {
    pool.run(a);
    benchmark::DoNotOptimize(s.state.data());
  }
  st.SetItemsProcessed(st.iterations() * kBatch * kSteps);
}

}  // namespace

BENCHMARK(BM_RolloutSerialLoop)->Name("Rollout/serial_loop")->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_Rollout)->Name("Rollout/threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

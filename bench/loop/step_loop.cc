// The plain C++ stepping loop the Python benchmarks compare against (python/bench/bench_python.py):
// load a model, start from keyframe 0 (or qpos0), 100 warm-up steps, restart, then time `steps`
// calls of moreau::step. Prints one JSON line: {"us_per_step": ...}.
//
//   moreau_step_loop MODEL STEPS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "moreau/moreau.h"

namespace {

void start(const moreau::Model& m, moreau::Data& d) {
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  else moreau::reset_data(m, d);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: moreau_step_loop MODEL STEPS\n");
    return 2;
  }
  try {
    const long steps = std::atol(argv[2]);
    moreau::Model m = moreau::load_model(argv[1]);
    moreau::Data d = moreau::make_data(m);
    start(m, d);
    for (int i = 0; i < 100; ++i) moreau::step(m, d);
    start(m, d);
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < steps; ++i) moreau::step(m, d);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("{\"us_per_step\": %.6f, \"steps\": %ld, \"time\": %.17g}\n", 1e6 * wall / steps, steps, d.time);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

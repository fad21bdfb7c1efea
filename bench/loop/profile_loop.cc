// A stepping loop for instruction-count profiles of Moreau against MuJoCo 2.2.2 (valgrind
// --tool=callgrind or perf): load MODEL in ENGINE (moreau or mujoco), start from keyframe 0 (or
// qpos0), take SETTLE steps, then STEPS steps inside profiled_steps (a function of its own, so that
// `valgrind --tool=callgrind --toggle-collect='*profiled_steps*'` counts only those steps).
//
//   moreau_profile_loop ENGINE MODEL SETTLE STEPS [--disable BITS] [--integrator euler|rk4] [--forward]
// --disable ORs BITS (the disable flags, same values in both engines) into the model's options;
// --integrator sets the integrator; --forward profiles `forward` on the settled state instead of
// `step` (the same state at every call, as the forward benchmarks do).
// Prints the final time, ncon, nefc and a checksum of the final qpos bits (equal checksums: the
// same trajectory bit for bit, e.g. before and after a change that must not alter results).
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <exception>

#include "moreau/moreau.h"

namespace {

__attribute__((noinline)) void profiled_steps(const moreau::Model& m, moreau::Data& d, long n) {
  for (long i = 0; i < n; ++i) moreau::step(m, d);
}
__attribute__((noinline)) void profiled_steps(const mjModel* m, mjData* d, long n) {
  for (long i = 0; i < n; ++i) mj_step(m, d);
}
__attribute__((noinline)) void profiled_forwards(const moreau::Model& m, moreau::Data& d, long n) {
  for (long i = 0; i < n; ++i) moreau::forward(m, d);
}
__attribute__((noinline)) void profiled_forwards(const mjModel* m, mjData* d, long n) {
  for (long i = 0; i < n; ++i) mj_forward(m, d);
}

// FNV-1a over the bytes of x[0..n).
uint64_t checksum(const double* x, int n) {
  uint64_t h = 1469598103934665603ULL;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(x);
  for (size_t i = 0; i < sizeof(double) * n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: moreau_profile_loop moreau|mujoco MODEL SETTLE STEPS [--disable BITS] "
      "[--integrator euler|rk4] [--forward]\n";
  if (argc < 5 || (std::strcmp(argv[1], "moreau") != 0 && std::strcmp(argv[1], "mujoco") != 0)) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  int disable = 0, integrator = -1;  // integrator -1: the model's own
  bool forward_only = false;
  for (int i = 5; i < argc; ++i) {
    if (std::strcmp(argv[i], "--disable") == 0 && i + 1 < argc) {
      disable = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--integrator") == 0 && i + 1 < argc) {
      ++i;
      if (std::strcmp(argv[i], "euler") == 0) integrator = 0;
      else if (std::strcmp(argv[i], "rk4") == 0) integrator = 1;
      else {
        std::fprintf(stderr, "unknown integrator '%s' (expected euler or rk4)\n%s", argv[i], usage);
        return 2;
      }
    } else if (std::strcmp(argv[i], "--forward") == 0) {
      forward_only = true;
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n%s", argv[i], usage);
      return 2;
    }
  }
  const long settle = std::atol(argv[3]), steps = std::atol(argv[4]);
  if (std::strcmp(argv[1], "mujoco") == 0) {
    char err[1000];
    mjModel* m = mj_loadXML(argv[2], nullptr, err, sizeof(err));
    if (!m) {
      std::fprintf(stderr, "%s\n", err);
      return 1;
    }
    m->opt.disableflags |= disable;
    if (integrator >= 0) m->opt.integrator = integrator == 0 ? mjINT_EULER : mjINT_RK4;
    mjData* d = mj_makeData(m);
    if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
    for (long i = 0; i < settle; ++i) mj_step(m, d);
    if (forward_only) profiled_forwards(m, d, steps);
    else profiled_steps(m, d, steps);
    std::printf("mujoco time %.6f ncon %d nefc %d qpos %016llx\n", d->time, d->ncon, d->nefc,
                static_cast<unsigned long long>(checksum(d->qpos, m->nq)));
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
  }
  try {
    moreau::Model m = moreau::load_model(argv[2]);
    m.opt.disableflags |= disable;
    if (integrator >= 0) m.opt.integrator = integrator == 0 ? moreau::kIntEuler : moreau::kIntRK4;
    moreau::Data d = moreau::make_data(m);
    if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
    for (long i = 0; i < settle; ++i) moreau::step(m, d);
    if (forward_only) profiled_forwards(m, d, steps);
    else profiled_steps(m, d, steps);
    std::printf("moreau time %.6f ncon %d nefc %d qpos %016llx\n", d.time, d.ncon, d.nefc,
                static_cast<unsigned long long>(checksum(d.qpos.data(), m.nq)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

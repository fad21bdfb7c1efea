// Collision detection alone, for instruction counts (valgrind --tool=callgrind) of Moreau or of
// MuJoCo 2.2.2 on the same states: the states of bench/collision_bench.cc (a random-control rollout
// in MuJoCo, every 10th step of steps 300..499, MuJoCo's geom poses copied into Moreau's Data), then
// ROUNDS passes of collision detection over all of them in one engine. Prints one JSON line with the
// contacts found per pass and, with --compare, how Moreau's contacts differ from 2.2.2's in every
// state (counts per geom pair, largest dist/pos/normal difference).
//
//   moreau_collision_loop MODEL ROUNDS [--engine moreau|mujoco] [--compare]
//
// Under callgrind with --collect-atstart=no, only the timed passes are counted (the loop switches
// collection on and off around them), not the rollout that makes the states.
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_TOGGLE_COLLECT
#endif

#include "differential/collision_support.h"
#include "moreau/moreau.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL ROUNDS [--engine moreau|mujoco] [--compare]\n", argv[0]);
    return 2;
  }
  const char* path = argv[1];
  const long rounds = std::atol(argv[2]);
  std::string engine = "moreau";
  bool compare = false;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--engine") && i + 1 < argc) engine = argv[++i];
    else if (!std::strcmp(argv[i], "--compare")) compare = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  char err[1000] = "";
  mjModel* mm = mj_loadXML(path, nullptr, err, sizeof err);
  if (!mm) {
    std::fprintf(stderr, "%s\n", err);
    return 1;
  }
  mm->opt.enableflags &= ~mjENBL_MULTICCD;  // as the benchmark
  moreau::Model m = moreau::coltest::collision_model_from_mj(mm);
  std::vector<mjData*> md;
  std::vector<moreau::Data> d;
  mjData* run = mj_makeData(mm);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int step = 0; step < 500; ++step) {
    for (int i = 0; i < mm->nu; ++i) run->ctrl[i] = u(rng);
    mj_step(mm, run);
    if (step >= 300 && step % 10 == 0) {
      mjData* c = mj_copyData(nullptr, mm, run);
      mj_forward(mm, c);
      md.push_back(c);
      moreau::Data x = moreau::coltest::collision_data(m, mm);
      moreau::coltest::copy_poses(mm, c, x);
      d.push_back(std::move(x));
    }
  }
  mj_deleteData(run);
  long ncon = 0;
  CALLGRIND_TOGGLE_COLLECT;
  for (long r = 0; r < rounds; ++r)
    for (size_t i = 0; i < md.size(); ++i) {
      if (engine == "mujoco") {
        mj_collision(mm, md[i]);
        ncon += md[i]->ncon;
      } else {
        moreau::collision(m, d[i]);
        ncon += d[i].ncon;
      }
    }
  CALLGRIND_TOGGLE_COLLECT;
  std::printf("{\"engine\": \"%s\", \"states\": %zu, \"rounds\": %ld, \"contacts_per_pass\": %ld", engine.c_str(),
              md.size(), rounds, rounds > 0 ? ncon / rounds : 0);
  if (compare) {
    moreau::coltest::Report rep;
    const bool skip[8][8] = {};
    for (size_t i = 0; i < md.size(); ++i) {
      mj_collision(mm, md[i]);
      moreau::collision(m, d[i]);
      moreau::coltest::compare_contacts(mm, md[i], m, d[i], moreau::coltest::Tolerance{}, skip, rep);
    }
    std::printf(", \"pairs\": %d, \"count_mismatch\": %d, \"value_mismatch\": %d, \"order_mismatch\": %d, "
                "\"max_dist_err\": %.3g, \"max_pos_err\": %.3g, \"max_normal_err\": %.3g",
                rep.pairs_compared, rep.count_mismatch, rep.value_mismatch, rep.order_mismatch, rep.max_dist_err,
                rep.max_pos_err, rep.max_normal_err);
  }
  std::printf("}\n");
  for (mjData* c : md) mj_deleteData(c);
  mj_deleteModel(mm);
  return 0;
}

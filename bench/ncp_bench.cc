// Per-step cost of the hard-contact solvers against Moreau's soft Newton solver, and
// MuJoCo 2.2.2's Newton on the quadruped as an anchor across machines, all in one process run:
//   ncp/<scene>/<solver>
// scenes:
//   sliding_cube   models/experiments/sliding_cube.xml, 3 m/s (keyframe 1): four sliding contacts;
//                  restarts every 400 steps (it stops after 611)
//   resting_cube   models/experiments/dragged_cube.xml without force: four sticking contacts
//   quadruped      dm_control quadruped standing on its four feet (its free ball's collisions
//                  disabled: its condim 6 is outside lcp's friction pyramid, and every solver
//                  runs the same scene); each solver first
//                  settles it for 2 s, then steps from that state, restarting every 1000 steps
//   *_100sweeps    the same scenes with exactly 100 Gauss-Seidel sweeps per step from lambda = 0
//                  (tolerance 0, no warm start): the cost of a sweep, with and without de Saxce's
//                  correction, whatever the convergence (the paper's "no additional burden" claim)
// Counters: iterations per step (sweeps, Lemke pivots, Newton iterations) and mean eps_abs.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

const std::string kExperiments = std::string(MOREAU_SOURCE_DIR) + "/models/experiments/";
const std::string kQuadruped = std::string(MOREAU_SHARED_DIR) + "/models/dm_control/quadruped.xml";

struct Scene {
  std::string name, path;
  int key;       // keyframe (-1: qpos0)
  int settle;    // steps before timing
  int episode;   // steps between restarts
  bool fixed = false;  // 100 sweeps, no warm start (Gauss-Seidel solvers only)
};

const Scene kScenes[] = {
    {"sliding_cube", kExperiments + "sliding_cube.xml", 1, 0, 400},
    {"resting_cube", kExperiments + "dragged_cube.xml", -1, 10, 1000},
    {"quadruped", kQuadruped, -1, 400, 1000},
    {"sliding_cube_100sweeps", kExperiments + "sliding_cube.xml", 1, 0, 400, true},
    {"quadruped_100sweeps", kQuadruped, -1, 400, 1000, true},
};

struct SolverCase {
  const char* name;
  int solver;
  int cone;  // -1: the model's
};

const SolverCase kSolvers[] = {
    {"raisim", moreau::kSolverRaisim, -1},  {"raisim-ds", moreau::kSolverRaisimDS, -1},
    {"ncp-pgs", moreau::kSolverNcpPGS, -1}, {"ccp", moreau::kSolverCCP, -1},
    {"lcp", moreau::kSolverLCP, -1},        {"Newton", moreau::kSolverNewton, moreau::kConePyramidal},
    {"Newton-elliptic", moreau::kSolverNewton, moreau::kConeElliptic},
};

void moreau_ncp_step(benchmark::State& state, Scene scene, SolverCase sc) {
  moreau::Model m;
  try {
    m = moreau::load_model(scene.path);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  m.opt.solver = sc.solver;
  if (sc.cone >= 0) m.opt.cone = sc.cone;
  if (scene.fixed) {
    m.opt.iterations = 100;
    m.opt.tolerance = 0;
    m.opt.disableflags |= moreau::kDsblWarmstart;
  }
  const int ball = moreau::name2id(m, moreau::kObjGeom, "ball");
  if (ball >= 0) m.geom_contype[ball] = m.geom_conaffinity[ball] = 0;
  moreau::Data d = moreau::make_data(m);
  if (scene.key >= 0) moreau::reset_data_keyframe(m, d, scene.key);
  else moreau::reset_data(m, d);
  for (int i = 0; i < scene.settle; ++i) moreau::step(m, d);
  const moreau::Data start = d;
  const bool hard = moreau::is_hard_contact_solver(sc.solver);
  double iterations = 0, eps = 0;
  long steps = 0;
  int n = 0;
  for (auto _ : state) {
    moreau::step(m, d);
    iterations += hard ? d.ncp.iterations : d.solver_iter;
    eps += d.ncp.eps_abs;
    ++steps;
    if (++n == scene.episode) {
      n = 0;
      state.PauseTiming();
      d = start;
      state.ResumeTiming();
    }
  }
  state.counters["iter/step"] = iterations / steps;
  if (hard) state.counters["eps_abs"] = eps / steps;
}

// MuJoCo 2.2.2, Newton, the quadruped with the same protocol (its ball's collisions disabled).
void mujoco_quadruped(benchmark::State& state, int cone) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(kQuadruped.c_str(), nullptr, err, sizeof(err));
  if (!m) {
    state.SkipWithError(err);
    return;
  }
  m->opt.cone = cone;
  const int ball = mj_name2id(m, mjOBJ_GEOM, "ball");
  if (ball >= 0) m->geom_contype[ball] = m->geom_conaffinity[ball] = 0;
  mjData* d = mj_makeData(m);
  mjData* start = mj_makeData(m);
  for (int i = 0; i < 400; ++i) mj_step(m, d);
  mj_copyData(start, m, d);
  int n = 0;
  for (auto _ : state) {
    mj_step(m, d);
    if (++n == 1000) {
      n = 0;
      state.PauseTiming();
      mj_copyData(d, m, start);
      state.ResumeTiming();
    }
  }
  mj_deleteData(start);
  mj_deleteData(d);
  mj_deleteModel(m);
}

int register_all() {
  for (const Scene& s : kScenes)
    for (const SolverCase& c : kSolvers)
      if (!s.fixed || (moreau::is_hard_contact_solver(c.solver) && c.solver != moreau::kSolverLCP))
        benchmark::RegisterBenchmark(("ncp/" + s.name + "/" + c.name).c_str(), moreau_ncp_step, s, c);
  benchmark::RegisterBenchmark("ncp/quadruped/mujoco-Newton", mujoco_quadruped, static_cast<int>(mjCONE_PYRAMIDAL));
  benchmark::RegisterBenchmark("ncp/quadruped/mujoco-Newton-elliptic", mujoco_quadruped,
                               static_cast<int>(mjCONE_ELLIPTIC));
  return 0;
}
const int registered = register_all();

}  // namespace

// A plain stepping loop for instruction counts of one contact model (perf stat -e instructions:u,
// valgrind --tool=callgrind): load a model, start from keyframe 0 (or qpos0), override the solver
// and the feet's condim if asked, run STEPS steps of Moreau or of MuJoCo 2.2.2 on the same file, and
// print one JSON line with the final time, the base height and (Moreau's hard-contact solvers) the
// mean sweeps per step and the largest eps_abs, and a hash of the final qpos's bits (to check that a
// change keeps the trajectory bit for bit).
//
//   moreau_solver_loop MODEL STEPS [--engine moreau|mujoco] [--solver NAME] [--condim N]
//
// --condim N sets the condim of every geom that has condim > 1 (e.g. ANYmal's feet, 6 as shipped)
// in both engines, so that the same scene runs with and without torsional and rolling friction.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "moreau/moreau.h"

namespace {

// FNV-1a over the bytes of x[0..n).
unsigned long long bits_hash(const double* x, int n) {
  unsigned long long h = 1469598103934665603ULL;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(x);
  for (size_t i = 0; i < sizeof(double) * n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

int run_mujoco(const char* path, long steps, const std::string& solver, int condim) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(path, nullptr, err, sizeof(err));
  if (!m) {
    std::fprintf(stderr, "%s\n", err);
    return 1;
  }
  if (solver == "Newton") m->opt.solver = mjSOL_NEWTON;
  else if (solver == "CG") m->opt.solver = mjSOL_CG;
  else if (solver == "PGS") m->opt.solver = mjSOL_PGS;
  else if (!solver.empty()) {
    std::fprintf(stderr, "MuJoCo has no solver %s\n", solver.c_str());
    return 2;
  }
  if (condim > 0)
    for (int g = 0; g < m->ngeom; ++g)
      if (m->geom_condim[g] > 1) m->geom_condim[g] = condim;
  mjData* d = mj_makeData(m);
  if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
  for (long i = 0; i < steps; ++i) mj_step(m, d);
  std::printf("{\"engine\": \"mujoco\", \"steps\": %ld, \"time\": %.6f, \"z\": %.9f, \"qpos_hash\": \"%016llx\"}\n",
              steps, d->time, m->nq > 2 ? d->qpos[2] : 0.0, bits_hash(d->qpos, m->nq));
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}

int run_moreau(const char* path, long steps, const std::string& solver, int condim) {
  moreau::Model m = moreau::load_model(path);
  if (!solver.empty()) {
    int s = -1;
    for (int k = 0; k <= moreau::kSolverLCP; ++k)
      if (solver == moreau::solver_name(k)) s = k;
    if (s < 0) {
      std::fprintf(stderr, "unknown solver %s\n", solver.c_str());
      return 2;
    }
    m.opt.solver = s;
  }
  if (condim > 0)
    for (int g = 0; g < m.ngeom; ++g)
      if (m.geom_condim[g] > 1) m.geom_condim[g] = condim;
  moreau::Data d = moreau::make_data(m);
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  else moreau::reset_data(m, d);
  double sweeps = 0, eps = 0;
  for (long i = 0; i < steps; ++i) {
    moreau::step(m, d);
    sweeps += d.solver_iter;
    eps = std::max(eps, d.ncp.eps_abs);
  }
  std::printf(
      "{\"engine\": \"moreau\", \"solver\": \"%s\", \"steps\": %ld, \"time\": %.6f, \"z\": %.9f, "
      "\"iter_per_step\": %.3f, \"max_eps_abs\": %.3g, \"qpos_hash\": \"%016llx\"}\n",
      moreau::solver_name(m.opt.solver), steps, d.time, m.nq > 2 ? d.qpos[2] : 0.0,
      steps > 0 ? sweeps / steps : 0.0, eps, bits_hash(d.qpos.data(), m.nq));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: moreau_solver_loop MODEL STEPS [--engine moreau|mujoco] [--solver NAME] [--condim N]\n");
    return 2;
  }
  std::string engine = "moreau", solver;
  int condim = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--engine")) engine = argv[i + 1];
    else if (!std::strcmp(argv[i], "--solver")) solver = argv[i + 1];
    else if (!std::strcmp(argv[i], "--condim")) condim = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const long steps = std::atol(argv[2]);
  try {
    return engine == "mujoco" ? run_mujoco(argv[1], steps, solver, condim) : run_moreau(argv[1], steps, solver, condim);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

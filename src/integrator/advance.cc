// State update shared by the integrators (computation chapter, "Numerical integration"):
// semi-implicit Euler ordering -- the velocity is updated first and the positions are integrated
// with the new velocity (or with the velocity the caller supplies, e.g. RK4's weighted average).
#include "engine/internal.h"
#include "moreau/moreau.h"

namespace moreau::internal {

void advance(const Model& m, Data& d, const double* act_dot, const double* qacc, const double* qvel) {
  const double h = m.opt.timestep;
  for (int i = 0; i < m.na; ++i) d.act[i] += h * act_dot[i];
  for (int i = 0; i < m.nv; ++i) d.qvel[i] += h * qacc[i];
  integrate_pos(m, d.qpos.data(), qvel ? qvel : d.qvel.data(), h);
  d.time += h;
}

}  // namespace moreau::internal

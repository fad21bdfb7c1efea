// State update shared by the integrators (computation chapter, "Numerical integration"):
// semi-implicit Euler ordering -- the velocity is updated first and the positions are integrated
// with the new velocity (or with the velocity the caller supplies, e.g. RK4's weighted average).
#include "integrator/integrator.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau::internal {

void advance(const Model& m, Data& d, const double* act_dot, const double* qacc, const double* qvel) {
  const double h = m.opt.timestep;
  // activations: Euler, or the exact exponential for filterexact, then clamped to actrange
  for (int u = 0; u < m.nu; ++u) {
    const int a = m.actuator_actadr[u];
    if (a >= 0) d.act[a] = next_activation(m, u, d.act[a], act_dot[a], h);
  }
  for (int i = 0; i < m.nv; ++i) d.qvel[i] += h * qacc[i];
  integrate_pos(m, d.qpos.data(), qvel ? qvel : d.qvel.data(), h);
  d.time += h;
}

}  // namespace moreau::internal

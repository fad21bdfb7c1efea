// reference_constraint: constraint-space velocity efc_vel = J*qvel and the reference acceleration
// aref = -b*vel - k*d*(pos - margin) (computation chapter, "Solver parameters"). Friction loss rows
// and the friction rows of elliptic cones have no position residual, so only the damping term acts.
#include "constraint/storage.h"
#include "engine/checks.h"

namespace moreau {

void reference_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "reference_constraint");
  constraint::mul_J(m, d, d.efc_vel.data(), d.qvel.data());
  for (int i = 0; i < d.nefc; ++i) {
    const double* kbip = &d.efc_KBIP[4 * i];
    const double dist = d.efc_pos[i] - d.efc_margin[i];  // K = 0 where there is no position
    d.efc_aref[i] = -kbip[1] * d.efc_vel[i] - kbip[0] * kbip[2] * dist;
  }
}

}  // namespace moreau

// reference_constraint: constraint-space velocity efc_vel = J*qvel and the reference acceleration
// aref = -b*vel - k*d*(pos - margin) (computation chapter, "Solver parameters"). Friction loss rows
// and the friction rows of elliptic cones have no position residual, so only the damping term acts.
// With the jdotv enable flag the connect and weld rows also subtract Jdot*v (equality.cc), the
// acceleration their residual has at zero qacc, which the chapter's a_u contains.
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
  if (!(m.opt.enableflags & kEnblJdotv)) return;
  double jdotv[6];
  for (int i = 0; i < d.ne; ++i) {
    const int e = d.efc_id[i];
    if (d.efc_type[i] != kCnstrEquality || (i > 0 && d.efc_id[i - 1] == e)) continue;  // first row of e
    const int n = constraint::equality_jdotv(m, d, e, jdotv);
    for (int k = 0; k < n; ++k) d.efc_aref[i + k] -= jdotv[k];
  }
}

}  // namespace moreau

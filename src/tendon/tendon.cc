// Tendon stage (computation chapter, "Simulation pipeline": mj_tendon): lengths and moment arms of
// all tendons, and the path points of spatial tendons.
#include <algorithm>

#include "engine/checks.h"
#include "tendon/tendon.h"

namespace moreau {

void tendon(const Model& m, Data& d) {
  internal::check_data(m, d, "tendon");
  const int nv = m.nv;
  int wrapcount = 0;
  for (int t = 0; t < m.ntendon; ++t) {
    // The whole row is cleared (not only the previous span), so that the row and its span are
    // rebuilt from nothing whatever was written to ten_J before.
    double* J = d.ten_J.data() + static_cast<size_t>(t) * nv;
    std::fill(J, J + nv, 0.0);
    tendon_detail::Span span{nv, 0};
    d.ten_wrapadr[t] = wrapcount;
    d.ten_wrapnum[t] = 0;
    const int adr = m.tendon_adr[t];
    if (m.tendon_num[t] == 0) {
      d.ten_length[t] = 0;
    } else if (m.wrap_type[adr] == kWrapJoint) {
      d.ten_length[t] = tendon_detail::fixed_tendon(m, d, t, J, &span);
    } else {
      int n = 0;
      d.ten_length[t] = tendon_detail::spatial_tendon(m, d, t, J, &span, wrapcount, &n);
      d.ten_wrapnum[t] = n;
      wrapcount += n;
    }
    if (span.lo >= span.hi) span = {0, 0};
    d.ten_J_span[2 * t] = span.lo;
    d.ten_J_span[2 * t + 1] = span.hi;
  }
}

void tendon_actuator_velocity(const Model& m, Data& d) {
  internal::check_data(m, d, "tendon_actuator_velocity");
  const int nv = m.nv;
  for (int t = 0; t < m.ntendon; ++t) {
    const double* J = d.ten_J.data() + static_cast<size_t>(t) * nv;
    double v = 0;
    for (int i = d.ten_J_span[2 * t]; i < d.ten_J_span[2 * t + 1]; ++i) v += J[i] * d.qvel[i];
    d.ten_velocity[t] = v;
  }
  for (int u = 0; u < m.nu; ++u) {
    const double* M = d.actuator_moment.data() + static_cast<size_t>(u) * nv;
    double v = 0;
    for (int i = d.actuator_moment_span[2 * u]; i < d.actuator_moment_span[2 * u + 1]; ++i) v += M[i] * d.qvel[i];
    d.actuator_velocity[u] = v;
  }
}

}  // namespace moreau

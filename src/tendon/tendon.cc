// Tendon stage (computation chapter, "Simulation pipeline": mj_tendon): lengths and moment arms of
// all tendons, and the path points of spatial tendons.
#include <algorithm>

#include "engine/checks.h"
#include "tendon/tendon.h"

namespace moreau {

void tendon(const Model& m, Data& d) {
  internal::check_data(m, d, "tendon");
  const int nv = m.nv, ntendon = m.ntendon;
  const int* tendon_adr = m.tendon_adr.data();
  const int* tendon_num = m.tendon_num.data();
  const int* wrap_type = m.wrap_type.data();
  double* ten_J = d.ten_J.data();
  double* ten_length = d.ten_length.data();
  int* ten_span = d.ten_J_span.data();
  int* ten_wrapadr = d.ten_wrapadr.data();
  int* ten_wrapnum = d.ten_wrapnum.data();
  int wrapcount = 0;
  for (int t = 0; t < ntendon; ++t) {
    // A row is zero outside its span (data.h), so clearing the previous span zeroes the whole row:
    // a few dofs instead of nv for a tendon on a long chain.
    double* J = ten_J + static_cast<size_t>(t) * nv;
    for (int i = ten_span[2 * t]; i < ten_span[2 * t + 1]; ++i) J[i] = 0;
    tendon_detail::Span span{nv, 0};
    ten_wrapadr[t] = wrapcount;
    ten_wrapnum[t] = 0;
    const int adr = tendon_adr[t];
    if (tendon_num[t] == 0) {
      ten_length[t] = 0;
    } else if (wrap_type[adr] == kWrapJoint) {
      ten_length[t] = tendon_detail::fixed_tendon(m, d, t, J, &span);
    } else {
      int n = 0;
      ten_length[t] = tendon_detail::spatial_tendon(m, d, t, J, &span, wrapcount, &n);
      ten_wrapnum[t] = n;
      wrapcount += n;
    }
    if (span.lo >= span.hi) span = {0, 0};
    ten_span[2 * t] = span.lo;
    ten_span[2 * t + 1] = span.hi;
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

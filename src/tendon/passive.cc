// Tendon spring-dampers (computation chapter, "Passive forces"; MJCF tendon stiffness, springlength,
// damping): scalar force f = -k (L - L_spring) - b dL/dt along the tendon, mapped to joint space
// with the moment arms, qfrc_passive += ten_J' f. With a two-value springlength (newer than 2.2.2)
// the spring is a dead band: no force between the two lengths.
#include "engine/checks.h"
#include "tendon/tendon.h"

namespace moreau {

namespace {
// Spring stretch beyond the rest length (or the dead band [lo, hi]).
inline double stretch(const Model& m, const Data& d, int t) {
  const double L = d.ten_length[t];
  if (m.tendon_lengthspring.size() == 2 * static_cast<size_t>(m.ntendon)) {
    const double lo = m.tendon_lengthspring[2 * t], hi = m.tendon_lengthspring[2 * t + 1];
    return L < lo ? L - lo : (L > hi ? L - hi : 0.0);
  }
  return L - m.tendon_lengthspring[t];
}
}  // namespace

void tendon_passive(const Model& m, Data& d) {
  internal::check_data(m, d, "tendon_passive");
  if (m.opt.disableflags & kDsblPassive) return;
  const int nv = m.nv;
  for (int t = 0; t < m.ntendon; ++t) {
    const double k = m.tendon_stiffness[t], b = m.tendon_damping[t];
    if (k == 0 && b == 0) continue;
    const double f = -k * stretch(m, d, t) - b * d.ten_velocity[t];
    if (f == 0) continue;
    const double* J = d.ten_J.data() + static_cast<size_t>(t) * nv;
    for (int i = d.ten_J_span[2 * t]; i < d.ten_J_span[2 * t + 1]; ++i) d.qfrc_passive[i] += J[i] * f;
  }
}

double tendon_energy(const Model& m, const Data& d) {
  internal::check_data(m, d, "tendon_energy");
  double e = 0;
  for (int t = 0; t < m.ntendon; ++t) {
    const double k = m.tendon_stiffness[t];
    if (k == 0) continue;
    const double s = stretch(m, d, t);
    e += 0.5 * k * s * s;
  }
  return e;
}

}  // namespace moreau

// Divergence checks (simulation chapter, "Diagnostics"; computation chapter, stages 1 and 21):
// a NaN, Inf or |x| > 1e10 in qpos, qvel or qacc means the simulation diverged. The state is
// reset (reset_data), the warning records the index of the first offending element and counts the
// occurrence (counts survive the reset), and the simulation continues from the reset state.
#include "engine/checks.h"
#include "engine/internal.h"
#include "moreau/messages.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {
// Returns true if it reset the data.
bool check(const Model& m, Data& d, const double* x, int n, Warning w) {
  for (int i = 0; i < n; ++i) {
    if (internal::is_bad(x[i])) {
      const auto saved = d.warning;
      reset_data(m, d);
      d.warning = saved;
      warning(d, w, i);
      return true;
    }
  }
  return false;
}
}  // namespace

void check_pos(const Model& m, Data& d) {
  internal::check_data(m, d, "check_pos");
  check(m, d, d.qpos.data(), m.nq, kWarnBadQpos);
}
void check_vel(const Model& m, Data& d) {
  internal::check_data(m, d, "check_vel");
  check(m, d, d.qvel.data(), m.nv, kWarnBadQvel);
}
void check_acc(const Model& m, Data& d) {
  internal::check_data(m, d, "check_acc");
  // after a reset, recompute forward dynamics so that qacc and the derived quantities are valid
  if (check(m, d, d.qacc.data(), m.nv, kWarnBadQacc)) forward(m, d);
}

}  // namespace moreau

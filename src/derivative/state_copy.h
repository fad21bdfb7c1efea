// The part of a Data that the finite-difference fallbacks perturb (time, qpos, qvel, act, ctrl and
// the warm start), saved once and restored bit for bit after each perturbed evaluation.
#pragma once

#include <algorithm>

#include "derivative/recycling.h"
#include "moreau/data.h"

namespace moreau::internal {

struct StateCopy {
  double time;
  RecycledVec qpos, qvel, act, ctrl, warm;
  explicit StateCopy(const Data& d)
      : time(d.time),
        qpos(d.qpos.begin(), d.qpos.end()),
        qvel(d.qvel.begin(), d.qvel.end()),
        act(d.act.begin(), d.act.end()),
        ctrl(d.ctrl.begin(), d.ctrl.end()),
        warm(d.qacc_warmstart.begin(), d.qacc_warmstart.end()) {}
  void restore(Data& d) const {
    d.time = time;
    std::copy(qpos.begin(), qpos.end(), d.qpos.begin());
    std::copy(qvel.begin(), qvel.end(), d.qvel.begin());
    std::copy(act.begin(), act.end(), d.act.begin());
    std::copy(ctrl.begin(), ctrl.end(), d.ctrl.begin());
    std::copy(warm.begin(), warm.end(), d.qacc_warmstart.begin());
  }
};

}  // namespace moreau::internal

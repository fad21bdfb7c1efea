// The engine folder's own declarations (src/engine only; the stages below it export theirs in
// their own headers, the layers above use moreau/*.h and engine/pipeline.h).
#pragma once

#include <chrono>

#include "engine/pipeline.h"
#include "moreau/moreau.h"

namespace moreau::internal {

// Forward dynamics without the checks of the public entry (forward() and the public forward_skip
// check the Data, then call this). With skip_sensor=false it is forward().
void forward_skip(const Model& m, Data& d, bool skip_sensor);
// Acceleration-stage sensors (with the post-constraint RNE when a sensor needs it).
void acceleration_sensors(const Model& m, Data& d);

// True when x is NaN, Inf or larger than 1e10 in magnitude (divergence; simulation chapter).
inline bool is_bad(double x) { return !(x == x) || x > 1e10 || x < -1e10; }

// Accumulates the duration of the enclosing scope into d.timer[id] when d.timing is on.
class StageTimer {
 public:
  StageTimer(Data& d, Timer id) : d_(d), id_(id), on_(d.timing) {
    if (on_) t0_ = std::chrono::steady_clock::now();
  }
  ~StageTimer() {
    if (!on_) return;
    d_.timer[id_].duration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    d_.timer[id_].number++;
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  Data& d_;
  Timer id_;
  bool on_;
  std::chrono::steady_clock::time_point t0_{};
};

}  // namespace moreau::internal

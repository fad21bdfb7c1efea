// The pipeline's unchecked entry points for the layers that drive it from above (transition_fd
// steps with skipped stages). The public, checked forms are in moreau/moreau.h.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Forward dynamics skipping the stages whose inputs did not change (simulation chapter,
// mj_forwardSkip): kStagePos skips the position stage (and position sensors), kStageVel also the
// velocity stage; the caller guarantees that d holds their results for the current qpos (and qvel).
// The control callback and everything from actuation on always run.
void forward_skip(const Model& m, Data& d, int skipstage, bool skip_sensor);
// step with skipped stages: forward_skip, check_acc, the model's integrator.
void step_skip(const Model& m, Data& d, int skipstage, bool skip_sensor);

}  // namespace moreau::internal

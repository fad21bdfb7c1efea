// compiler coordinate="global" (src/compiler/global_coordinates.cc).
#pragma once

#include <vector>

#include "mjcf/spec.h"

namespace moreau::compiler {

// Whether a body below b (b itself unless it is the world) has no 'pos' attribute.
bool has_unplaced_body(const mjcf::BodySpec& b, bool world = true);
// Rewrites the world-frame poses of `spec` into local frames and marks it local. frames: the
// world pose (pos, quat: 7 numbers) of every body's inertial frame, depth first, for the bodies
// without 'pos'; null places those bodies at the world frame (to compute their inertial frames).
void global_to_local(mjcf::Spec& spec, const std::vector<double>* frames);

}  // namespace moreau::compiler

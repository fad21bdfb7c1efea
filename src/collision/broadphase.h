// Broad phase: candidate body pairs whose bounding boxes overlap.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::col {

// Writes the candidate body pairs (b1 < b2, not filtered by body_pair_filtered, with possibly
// compatible geoms) as signatures (b1 << 16) + b2 to d.work.col_broad, sorted ascending, and returns a
// pointer to them and their number. `margin_override` < 0: use geom margins.
const int* broadphase(const Model& m, Data& d, int* npairs);

}  // namespace moreau::col

// Collision filters of the computation chapter ("Selection" / "Filtering").
#pragma once

#include "moreau/model.h"

namespace moreau::col {

// contype/conaffinity compatibility: (contype1 & conaffinity2) || (contype2 & conaffinity1).
inline bool compatible(int contype1, int conaffinity1, int contype2, int conaffinity2) {
  return (contype1 & conaffinity2) || (contype2 & conaffinity1);
}

// Body-pair filter for dynamic (broad-phase) pairs. Bodies welded together (no joint between them,
// same body_weldid) count as one body: they never collide. A body does not collide with its parent
// (after welding) unless that parent is the world or the filterparent flag is disabled. Excluded
// body pairs (MJCF <exclude>) never collide.
inline bool body_pair_filtered(const Model& m, int b1, int b2) {
  const int w1 = m.body_weldid[b1], w2 = m.body_weldid[b2];
  if (w1 == w2) return true;
  if (!(m.opt.disableflags & kDsblFilterparent)) {
    const int p1 = m.body_weldid[m.body_parentid[w1]], p2 = m.body_weldid[m.body_parentid[w2]];
    if ((w1 != 0 && w1 == p2) || (w2 != 0 && w2 == p1)) return true;
  }
  if (m.nexclude) {
    // signature convention of Model (as 2.2.2): ((body1 + 1) << 16) + body2 + 1
    const int s1 = ((b1 + 1) << 16) + b2 + 1, s2 = ((b2 + 1) << 16) + b1 + 1;
    for (int e = 0; e < m.nexclude; ++e)
      if (m.exclude_signature[e] == s1 || m.exclude_signature[e] == s2) return true;
  }
  return false;
}

}  // namespace moreau::col

// Mid phase: for a candidate body pair in which a body has many geoms, the geoms of that body
// that can touch the other body, from a bounding volume hierarchy of its geoms.
//
// The tree of a body holds the bounding boxes of its collidable geoms' bounding spheres, in the
// frame of one of its geoms (the reference geom: geoms of one body never move relative to each
// other), and is built once per Data by collision_reserve. A query takes the other body's world
// bounding box (the broad phase's), expresses it in the reference geom's frame and returns, in
// increasing order, the geoms whose boxes overlap it, plus the geoms without bounds (planes,
// height fields). Every geom pair that passes the narrow phase's bounding-sphere test has
// overlapping boxes, so the pairs left out are exactly pairs the driver would have skipped: the
// contacts and their order do not change (tests/unit/collision_midphase_test.cc).
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::col {

// Bodies with at least this many collidable geoms get a tree. Measured (a body of N boxes among 10
// capsules, collision() per call, same process): N = 4: 4.4-6.1 us with a tree vs 4.7-7.8 without
// (equal within the noise), N = 8: 9.8 vs 11.4-14.8, N = 32: 13-17 vs 31-33; midphase.xml (1000
// boxes in one body): 7.5x faster. 8 keeps compact bodies (limbs of 1-3 geoms) on the plain loop.
inline constexpr int kMidphaseMinGeoms = 8;

// Builds the trees of all bodies with kMidphaseMinGeoms or more collidable geoms into d.
void midphase_build(const Model& m, Data& d);

// True if body b has a tree.
inline bool midphase_has_tree(const Data& d, int b) {
  return !d.work.col_bvh_adr.empty() && d.work.col_bvh_adr[b] >= 0;
}

// Geoms of body b (which has a tree) whose bounds overlap the world box `box` (min xyz, max xyz),
// written in increasing order to out (room for body_geomnum[b]); returns their number. Uses the
// traversal stack in d.work.col_mid.
int midphase_query(const Model& m, Data& d, int b, const double* box, int* out);

// The two candidate lists of the query work space (room for the largest body_geomnum each).
inline int* midphase_list(Data& d, int which) {
  return d.work.col_mid.data() + which * (d.work.col_mid.size() / 4);
}

}  // namespace moreau::col

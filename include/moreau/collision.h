// Moreau collision detection: the narrow-phase function table and the collision entry points.
//
// Narrow-phase functions are chosen per geom-type pair from a CollisionTable. The table is a plain
// value owned by the caller (not global state, not part of Model): a caller who wants a custom
// function for, say, (capsule, mesh) copies default_collision_table(), sets that one entry and passes
// the copy to collision(m, d, table). Keeping it out of Model keeps Model plain compiled data that
// can be shared read-only by threads; keeping it out of global state means two users in one process
// (two threads, two libraries) can install different functions without seeing each other.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau {

// Most contacts one geom pair may produce (box-box needs 8; custom functions may use more).
inline constexpr int kMaxContactsPerPair = 50;

// The geometric part of a contact, as a narrow-phase function reports it. frame[0..2] is the unit
// normal, pointing from geom1 to geom2. frame[3..5] may hold a preferred first tangent (it is
// orthogonalized against the normal); leave it zero to let the driver choose one.
struct ContactPoint {
  double dist;        // signed distance between the surfaces along the normal (< 0: penetration)
  double pos[3];      // midway between the two surfaces
  double frame[9];
};

// A narrow-phase function: test geoms g1 and g2 (geom_type[g1] <= geom_type[g2]) at the poses in
// d.geom_xpos / d.geom_xmat and write at most kMaxContactsPerPair contacts with dist <= margin to
// `out`. Returns the number written. `user` is the pointer stored beside the function in the table.
// Must not allocate, must not write to d (it receives d const).
using CollisionFunction = int (*)(const Model& m, const Data& d, int g1, int g2, double margin,
                                  ContactPoint* out, void* user);

struct CollisionTable {
  // fn[t1][t2] for t1 <= t2 (entries below the diagonal are ignored); null: this pair never collides.
  CollisionFunction fn[kNGeomTypes][kNGeomTypes] = {};
  void* user[kNGeomTypes][kNGeomTypes] = {};
};

// The built-in functions: analytic for primitive pairs, MPR (libccd) for the other convex pairs,
// meshes (their convex hulls) and height fields against convex geoms; null for pairs that never
// collide (plane-plane, plane-hfield, hfield-hfield).
const CollisionTable& default_collision_table();

// Collision detection with a caller-supplied table (collision(m, d) uses the default table).
void collision(const Model& m, Data& d, const CollisionTable& table);

}  // namespace moreau

namespace moreau {
// Reserve the broad-phase work space of d for model m (make_data calls it; collision() calls it too
// when the space is missing, which allocates once).
void collision_reserve(const Model& m, Data& d);
}  // namespace moreau

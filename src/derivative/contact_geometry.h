// The derivative of a contact's geometry (position, distance, frame) with respect to the rigid
// motions of its two geoms, for the qpos columns of the analytic derivatives (analytic_forward.cc).
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// How the derivative of a contact's geometry is computed (contact_geometry.cc explains each).
enum class ContactDerivMethod {
  kUnsupported,  // no derivative: the qpos columns fall back to differences of forward
  kAnalytic,     // closed form (plane, sphere/capsule pairs, sphere-box, recognised box-box, capsule-box): exact
  kNarrowPhase,  // centred differences of the pair's own narrow-phase routine (box and MPR pairs)
  kConvergedMpr,  // differences of MPR run to convergence (where the model's MPR jumps)
  kWitness,      // witness points held on their geoms, normal fixed (a rough fallback)
};
ContactDerivMethod contact_deriv_method(const Model& m, const Data& d, const Contact& con);

// d (pos, dist, frame) / d (twist of geom1, twist of geom2): 13 rows (pos 3, dist 1, frame 9 row
// by row), 12 columns (geom1's angular velocity and the velocity of its origin geom_xpos, then
// geom2's), row-major. A static geom's columns are zero.
struct ContactJacobian {
  double G[13 * 12];
};

// The Jacobian of contact `id` of d (its geoms' poses are those of d; d is restored bitwise).
// The narrow-phase differences fall back, with a warning, to differences of MPR run to convergence
// where the model's MPR jumps under 1e-6 perturbations, and to the witness approximation where
// that jumps too or a perturbation loses the contact (contact_geometry.cc). witness: use it for
// every MPR pair (the tests measure its error). Returns the method used.
ContactDerivMethod contact_jacobian(const Model& m, Data& d, int id, ContactJacobian* out, bool witness = false);

// Centred differences of the pair's narrow-phase routine (the kNarrowPhase method) for contact
// `id`, whatever method contact_jacobian would choose; false where the routine jumps or loses the
// contact under the perturbations. For tests of the closed forms.
bool narrow_phase_contact_jacobian(const Model& m, Data& d, int id, ContactJacobian* out);

// The feature of a box-box contact that the closed form recognises (contact_geometry.cc): a
// face contact's or an edge contact's point from an incident edge crossing a reference side line,
// a reference corner inside the incident face, or an incident vertex; kNone where the contact
// keeps the narrow-phase differences (or is not box-box).
enum class BoxBoxFeature { kNone, kFaceCrossing, kFaceCorner, kFaceVertex, kEdgeCrossing, kEdgeCorner, kEdgeVertex };
BoxBoxFeature box_box_feature(const Model& m, const Data& d, const Contact& con);

// The centre of a capsule-box contact's sphere as the closed form recognises it: a segment end
// (outside the box), the segment's crossing of a box plane, the segment's point closest to the box,
// a segment end inside the box, a slide across the box from one of the first or third; kNone where
// the contact keeps the narrow-phase differences (or is not capsule-box).
enum class CapsuleBoxFeature { kNone, kEnd, kPlaneCrossing, kClosestPoint, kEndInside, kSlide };
CapsuleBoxFeature capsule_box_feature(const Model& m, const Data& d, const Contact& con);

// d pos (3), d dist and d frame (9) along a dof's unit motion Sk = (angular, linear at o1 / o2,
// the com origins of the geoms' trees), moving geom1 (on1) and/or geom2 (on2).
void contact_jacobian_apply(const Model& m, const Data& d, const Contact& con, const ContactJacobian& cj,
                            const double* Sk, bool on1, bool on2, const double* o1, const double* o2, double* dpos,
                            double* ddist, double* dframe);

}  // namespace moreau::internal

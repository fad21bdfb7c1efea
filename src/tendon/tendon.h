// Internal helpers of the tendon stage.
#pragma once

#include "moreau/actuation.h"

namespace moreau::tendon_detail {

// The dofs a moment-arm row is non-zero on, [lo, hi) (empty: lo >= hi), grown as a row is built.
struct Span {
  int lo, hi;
  void add(int i) {
    lo = i < lo ? i : lo;
    hi = i + 1 > hi ? i + 1 : hi;
  }
};

// Length and moment-arm row of a fixed tendon (linear combination of scalar joint positions); the
// row J is zero on entry, *span grows by the dofs written.
double fixed_tendon(const Model& m, const Data& d, int t, double* J, Span* span);
// Length and moment-arm row of a spatial tendon (J zero on entry, *span grows by the dofs written);
// records its path in wrap_obj/wrap_xpos from address `wrapcount`, returns the number of path
// points in *wrapnum.
double spatial_tendon(const Model& m, Data& d, int t, double* J, Span* span, int wrapcount, int* wrapnum);

// J += (J_b1(p1) - J_b0(p0))' u * scale: derivative of |p1 - p0| for the unit direction u from p0 to
// p1; *span grows by the dofs written.
void add_segment_jacobian(const Model& m, const Data& d, const double p0[3], int b0,
                          const double p1[3], int b1, double scale, double* J, Span* span);

}  // namespace moreau::tendon_detail

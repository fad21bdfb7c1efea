// Internal helpers of the tendon stage.
#pragma once

#include "moreau/actuation.h"

namespace moreau::tendon_detail {

// Length and moment-arm row of a fixed tendon (linear combination of scalar joint positions).
double fixed_tendon(const Model& m, const Data& d, int t, double* J);
// Length and moment-arm row of a spatial tendon; records its path in wrap_obj/wrap_xpos from
// address `wrapcount`, returns the number of path points in *wrapnum.
double spatial_tendon(const Model& m, Data& d, int t, double* J, int wrapcount, int* wrapnum);

// J += (J_b1(p1) - J_b0(p0))' u * scale: derivative of |p1 - p0| for the unit direction u from p0 to p1.
void add_segment_jacobian(const Model& m, const Data& d, const double p0[3], int b0,
                          const double p1[3], int b1, double scale, double* J);

}  // namespace moreau::tendon_detail

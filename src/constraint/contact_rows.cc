// Contact rows (computation chapter, "Contact"): the contact Jacobian E'S. S (6 x nv) maps joint
// velocities to the relative spatial velocity of geom2 with respect to geom1 at the contact point,
// expressed in the contact frame (rows: normal, tangent1, tangent2 for the translation, then the
// same axes for the rotation); the first geom's Jacobian enters with a negative sign because the
// force acts from geom1 towards geom2.
//   condim 1: one row (frictionless), for either cone.
//   elliptic: E = I, the first condim rows of S.
//   pyramidal: 2(condim-1) edges, edge pair k = S_normal +/- mu_k S_k, mu = friction.
// All rows of a contact carry efc_pos = dist and efc_margin = includemargin. Contacts with
// exclude != 0 make no rows (efc_address = -1).
// diagApprox and R (as MuJoCo 2.2.2 computes them; checked row by row in the differential tests):
// with tran = sum of the two bodies' translational inverse weights at qpos0 and mu = friction[0],
// contact_rows stores the base approximation (frictionless and elliptic: tran; pyramidal:
// tran (1 + mu^2), the edge n + mu t), and make_impedance (impedance.cc) turns it into
//   R_normal = max(mjMINVAL, (1-d)/d base),
//   pyramidal edges: R = R_normal 2 mu^2 / impratio;
//   elliptic friction row j: R = R_normal mu^2 / (friction[j-1]^2 impratio), so that R_j
//     friction_j^2 is the same for all friction rows and R_1 = R_0 / impratio;
// and reports diagApprox = R d / (1-d). Elliptic friction rows have no position residual
// (efc_pos = efc_margin = 0) but take the impedance of the contact's distance.
#include <algorithm>

#include "constraint/storage.h"
#include "math/vec.h"

namespace moreau::constraint {

using namespace math;

void contact_rows(const Model& m, Data& d) {
  if (m.opt.disableflags & kDsblContact) return;
  const int nv = m.nv;
  // the hard-contact solvers (issue 6) read each contact as (normal, tangent1, tangent2) rows and
  // define their own cone (src/solver/ncp/ncp.h), whatever opt.cone says
  const bool elliptic = m.opt.cone == kConeElliptic || is_hard_contact_solver(m.opt.solver);
  double* work = carve(m, d).jac;
  double* jacp1 = work;
  double* jacr1 = work + 3 * nv;
  double* jacp2 = work + 6 * nv;
  double* jacr2 = work + 9 * nv;
  double* S = work + 12 * nv;  // 6 rows in the contact frame
  double* edge = jacp1;        // reused for pyramidal edges once S is built
  for (int c = 0; c < d.ncon; ++c) {
    Contact& con = d.contact[c];
    // A contact in the gap (margin - gap <= dist < margin) stays in the contact list but makes no
    // rows: "include in the solver if dist < margin - gap". It is marked exclude = 1, as 2.2.2 does
    // (adhesion actuators count these contacts).
    if (con.exclude == 0 && con.dist >= con.includemargin) con.exclude = 1;
    if (con.exclude) continue;
    const int dim = con.dim;
    const int nrow = dim == 1 ? 1 : elliptic ? dim : 2 * (dim - 1);
    if (!reserve_rows(d, nrow)) return;
    const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
    moreau::jac(m, d, jacp1, dim > 3 ? jacr1 : nullptr, con.pos, b1);
    moreau::jac(m, d, jacp2, dim > 3 ? jacr2 : nullptr, con.pos, b2);
    const int nS = dim > 3 ? 6 : dim;
    for (int r = 0; r < nS; ++r) {
      const double* axis = con.frame + 3 * (r % 3);
      const double* j1 = r < 3 ? jacp1 : jacr1;
      const double* j2 = r < 3 ? jacp2 : jacr2;
      double* out = S + r * nv;
      for (int k = 0; k < nv; ++k)
        out[k] = axis[0] * (j2[k] - j1[k]) + axis[1] * (j2[nv + k] - j1[nv + k]) +
                 axis[2] * (j2[2 * nv + k] - j1[2 * nv + k]);
    }
    const double tran = m.body_invweight0[2 * b1] + m.body_invweight0[2 * b2];
    const double mu0 = con.friction[0];
    con.efc_address = d.nefc;
    if (dim == 1) {
      const int i = add_row(m, d, kCnstrContactFrictionless, c, S, con.dist, con.includemargin, 0);
      d.efc_diagApprox[i] = tran;
    } else if (elliptic) {
      for (int r = 0; r < dim; ++r) {
        const int i = add_row(m, d, kCnstrContactElliptic, c, S + r * nv, r == 0 ? con.dist : 0,
                              r == 0 ? con.includemargin : 0, 0);
        d.efc_diagApprox[i] = tran;
      }
    } else {
      for (int k = 1; k < dim; ++k) {
        const double mu = con.friction[k - 1];
        for (int s = 1; s >= -1; s -= 2) {
          for (int q = 0; q < nv; ++q) edge[q] = S[q] + s * mu * S[k * nv + q];
          const int i = add_row(m, d, kCnstrContactPyramidal, c, edge, con.dist,
                                con.includemargin, 0);
          d.efc_diagApprox[i] = tran * (1 + mu0 * mu0);
        }
      }
    }
  }
}

}  // namespace moreau::constraint

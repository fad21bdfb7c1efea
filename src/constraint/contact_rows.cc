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

namespace {

// S (nS rows, row r at S + r*nv, n columns) for the dofs that move exactly one of the two bodies
// (cols, ascending): a dof that moves both moves the two coincident contact points alike, so its
// column of the relative velocity is exactly zero and is left out. Returns n.
int contact_frame_rows(const Model& m, const Data& d, const Contact& con, int nS, int* chain,
                       int* cols, double* S) {
  const int nv = m.nv;
  const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
  int* c1 = chain;
  int* c2 = chain + m.nv;
  const int n1 = dof_chain(m, b1, c1), n2 = dof_chain(m, b2, c2);
  double r1[3], r2[3];
  sub3(r1, con.pos, &d.subtree_com[3 * m.body_rootid[b1]]);
  sub3(r2, con.pos, &d.subtree_com[3 * m.body_rootid[b2]]);
  // merge the two ascending chains, keeping the dofs of one chain only; columns: velocity of the
  // contact point (translation) and angular velocity (rotation) of each dof, projected on the
  // frame axes; body 1 enters with a negative sign
  int n = 0;
  for (int a = 0, b = 0; a < n1 || b < n2;) {
    bool on2;
    if (b >= n2 || (a < n1 && c1[a] < c2[b])) {
      on2 = false;
    } else if (a >= n1 || c2[b] < c1[a]) {
      on2 = true;
    } else {
      ++a, ++b;  // common ancestor
      continue;
    }
    const int dof = on2 ? c2[b++] : c1[a++];
    const double* r = on2 ? r2 : r1;
    const double* cdof = &d.cdof[6 * dof];
    const double* f = con.frame;  // rows: normal, tangent1, tangent2
    // one branch per column for the sign (body 1 negated as 0 - x, which keeps +0 for a zero)
    double t[3], jp[3], jr[3];
    cross3(t, cdof, r);
    if (on2) {
      for (int c = 0; c < 3; ++c) jp[c] = cdof[3 + c] + t[c];
      for (int c = 0; c < 3; ++c) jr[c] = cdof[c];
    } else {
      for (int c = 0; c < 3; ++c) jp[c] = 0 - (cdof[3 + c] + t[c]);
      for (int c = 0; c < 3; ++c) jr[c] = 0 - cdof[c];
    }
    // nS is 1 (frictionless), 3 (translation) or 6 (and rotation)
    double* col = S + n;
    col[0] = f[0] * jp[0] + f[1] * jp[1] + f[2] * jp[2];
    if (nS > 1) {
      col[nv] = f[3] * jp[0] + f[4] * jp[1] + f[5] * jp[2];
      col[2 * nv] = f[6] * jp[0] + f[7] * jp[1] + f[8] * jp[2];
    }
    if (nS > 3) {
      col[3 * nv] = f[0] * jr[0] + f[1] * jr[1] + f[2] * jr[2];
      col[4 * nv] = f[3] * jr[0] + f[4] * jr[1] + f[5] * jr[2];
      col[5 * nv] = f[6] * jr[0] + f[7] * jr[1] + f[8] * jr[2];
    }
    cols[n++] = dof;
  }
  return n;
}

}  // namespace

void contact_rows(const Model& m, Data& d) {
  if (m.opt.disableflags & kDsblContact) return;
  // the hard-contact solvers read each contact as (normal, tangent1, tangent2) rows and
  // define their own cone (src/solver/ncp/ncp.h), whatever opt.cone says
  const bool elliptic = m.opt.cone == kConeElliptic || is_hard_contact_solver(m.opt.solver);
  const Work w = carve(m, d);
  double* S = w.jac;                 // 6 rows in the contact frame
  double* edge = w.jac + 6 * m.nv;  // a pyramidal edge
  int* cols = w.chain + 2 * m.nv;
  const double band = contact_band(m.opt.solver);  // moreau.h
  for (int c = 0; c < d.ncon; ++c) {
    Contact& con = d.contact[c];
    // A contact in the gap (margin - gap <= dist < margin) stays in the contact list but makes no
    // rows: "include in the solver if dist < margin - gap". It is marked exclude = 1, as 2.2.2 does
    // (adhesion actuators count these contacts).
    if (con.exclude == 0 && con.dist >= con.includemargin + band) con.exclude = 1;
    if (con.exclude) continue;
    const int dim = con.dim;
    const int nrow = dim == 1 ? 1 : elliptic ? dim : 2 * (dim - 1);
    if (!reserve_rows(d, nrow)) return;
    const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
    const int nS = dim > 3 ? 6 : dim;
    const int n = contact_frame_rows(m, d, con, nS, w.chain, cols, S);
    const double tran = m.body_invweight0[2 * b1] + m.body_invweight0[2 * b2];
    const double mu0 = con.friction[0];
    con.efc_address = d.nefc;
    if (dim == 1) {
      const int i = add_row(m, d, kCnstrContactFrictionless, c, n, cols, S, con.dist,
                            con.includemargin, 0);
      d.efc_diagApprox[i] = tran;
    } else if (elliptic) {
      for (int r = 0; r < dim; ++r) {
        const int i = add_row(m, d, kCnstrContactElliptic, c, n, cols, S + r * m.nv,
                              r == 0 ? con.dist : 0, r == 0 ? con.includemargin : 0, 0);
        d.efc_diagApprox[i] = tran;
      }
    } else {
      for (int k = 1; k < dim; ++k) {
        const double mu = con.friction[k - 1];
        for (int s = 1; s >= -1; s -= 2) {
          for (int q = 0; q < n; ++q) edge[q] = S[q] + s * mu * S[k * m.nv + q];
          const int i = add_row(m, d, kCnstrContactPyramidal, c, n, cols, edge, con.dist,
                                con.includemargin, 0);
          d.efc_diagApprox[i] = tran * (1 + mu0 * mu0);
        }
      }
    }
  }
}

}  // namespace moreau::constraint

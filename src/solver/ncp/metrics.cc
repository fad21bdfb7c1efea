// Physical-accuracy metrics of a hard-contact solve: the primal, dual and complementarity errors of
// the RaiSim paper (Sec. II, after eq. (6)) and eps_abs, their maximum over the blocks. With
// l = lambda/h (force), c = G lambda + g (velocity, with the reference shift) and y = c + Gamma(c):
//   3D contact:        eps_p = dist_K(l),  eps_d = dist_K*(y),  eps_c = |<l, y>|
//     (the paper writes dist_K for eps_d; the NCP (6) asks y in the dual cone K*, which is what is
//     measured here: the two coincide for mu = 1, and only K* vanishes at a solution for mu != 1);
//   unilateral row:    K = K* = R+:  eps_p = max(0, -l), eps_d = max(0, -c), eps_c = |l c|;
//   bilateral row:     K = R, K* = {0}:  eps_p = 0, eps_d = |c|, eps_c = |l c|;
//   friction loss (|l| <= F): eps_p = max(0, |l| - F); eps_d = |c| inside the box, the part of c
//     along l on its faces; eps_c = |l c + F |c||, the 1D maximum-dissipation residual.
#include <algorithm>
#include <cmath>

#include "engine/checks.h"
#include "solver/ncp/ncp.h"

namespace moreau::ncp {

// Errors of a scaled-cone block (ncp.h) in z = D^-1 l and the velocity D y, y = c + Gamma(c):
// dist_K1(z), dist_K1(D y) (K1 is self-dual) and |z . D y| = |l . y|. In these coordinates every
// component of z is a force (a torque over its friction length) and every component of D y a
// velocity, so the errors keep the units of the 3D ones.
void scaled_errors(const Contact& con, const double* lam, double scale, const double* c, double* ep,
                   double* ed, double* ec) {
  const int dim = con.dim;
  double D[6], z[6] = {}, y[6] = {}, g2 = 0;
  cone_scale(con, D);
  for (int j = 0; j < dim; ++j) {
    z[j] = D[j] > 0 ? lam[j] * scale / D[j] : 0;
    y[j] = D[j] * c[j];
  }
  for (int j = 1; j < dim; ++j) g2 += y[j] * y[j];
  y[0] += std::sqrt(g2);
  double zy = 0;
  for (int j = 0; j < dim; ++j) zy += z[j] * y[j];
  *ep = dist_unit_cone(dim, z);
  *ed = dist_unit_cone(dim, y);
  *ec = std::fabs(zy);
}

void metrics(const Model& m, Data& d, Work& w, double h) {
  const int nefc = d.nefc;
  const double* Jv = constraint::J_values(m, d);
  NcpStat& st = d.ncp;
  st.primal = st.dual = st.complementarity = 0;
  st.nblock = 0;
  // c = g + J v: from the dual rows and z where the Gauss-Seidel solvers left them (c_r = g_r +
  // u_r . z), from the columns' v for lcp
  const bool dual = m.opt.solver != kSolverLCP;
  if (!dual)
    for (int r = 0; r < nefc; ++r) w.c[r] = w.g[r] + constraint::dot_row(Jv, d, r, w.v);
  for (int r = 0; r < nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    if (dual) {
      if (kind == kCone) block_dot(w.u, r, dim, w.z, w.g + r, w.c + r);
      else w.c[r] = w.g[r] + solver::dual_dot(w.u, r, w.z);
    }
    const double* c = w.c + r;
    double ep = 0, ed = 0, ec = 0;
    if (kind == kCone && scaled_cone(d.contact[d.efc_id[r]])) {
      scaled_errors(d.contact[d.efc_id[r]], w.lam + r, 1 / h, c, &ep, &ed, &ec);
    } else if (kind == kCone) {
      const double mu = d.contact[d.efc_id[r]].friction[0];
      const double l[3] = {w.lam[r] / h, w.lam[r + 1] / h, w.lam[r + 2] / h};
      const double y[3] = {c[0] + mu * std::sqrt(c[1] * c[1] + c[2] * c[2]), c[1], c[2]};
      ep = dist_cone(mu, l);
      ed = dist_dual_cone(mu, y);
      ec = std::fabs(l[0] * y[0] + l[1] * y[1] + l[2] * y[2]);
    } else {
      const double l = w.lam[r] / h;
      if (kind == kUnilateral) {
        ep = std::max(0.0, -l);
        ed = std::max(0.0, -c[0]);
        ec = std::fabs(l * c[0]);
      } else if (kind == kBilateral) {
        ed = std::fabs(c[0]);
        ec = std::fabs(l * c[0]);
      } else {
        const double F = w.h > 0 ? d.efc_frictionloss[r] : 0;  // no impulse in an impact
        ep = std::max(0.0, std::fabs(l) - F);
        ed = std::fabs(l) < F * (1 - 1e-9) ? std::fabs(c[0]) : l > 0 ? std::max(0.0, c[0]) : std::max(0.0, -c[0]);
        ec = std::fabs(l * c[0] + F * std::fabs(c[0]));
      }
    }
    st.primal = std::max(st.primal, ep);
    st.dual = std::max(st.dual, ed);
    st.complementarity = std::max(st.complementarity, ec);
    ++st.nblock;
    r += dim;
  }
  st.eps_abs = std::max(st.primal, std::max(st.dual, st.complementarity));
}

}  // namespace moreau::ncp

namespace moreau {

// The same errors for the result of any solver (ncp.h; moreau.h): l = contact force in the contact
// frame (contact_force), c = relative velocity of the contact points at v+ = qvel + h qacc in the
// contact frame plus the shift s (computed with the point Jacobians, so pyramidal and elliptic rows
// alike); non-contact rows as in metrics() with c = J_r v+ + s.
void contact_metrics(const Model& m, Data& d, const double* vplus_in) {
  internal::check_data(m, d, "contact_metrics");
  const int nv = m.nv;
  const double h = m.opt.timestep;
  const double* Jv = constraint::J_values(m, d);
  NcpStat& st = d.ncp;
  st.primal = st.dual = st.complementarity = st.eps_abs = 0;
  st.nblock = 0;
  if (d.nefc == 0) return;
  constraint::Work cw = constraint::carve(m, d);
  double* vplus = cw.v[0];
  double* jacp1 = cw.jac;
  double* jacp2 = cw.jac + 3 * nv;
  double* jacr1 = cw.jac + 6 * nv;
  double* jacr2 = cw.jac + 9 * nv;
  for (int k = 0; k < nv; ++k) vplus[k] = vplus_in ? vplus_in[k] : d.qvel[k] + h * d.qacc[k];
  auto account = [&](double ep, double ed, double ec) {
    st.primal = std::max(st.primal, ep);
    st.dual = std::max(st.dual, ed);
    st.complementarity = std::max(st.complementarity, ec);
    ++st.nblock;
  };
  // rows that are not contacts
  for (int r = 0; r < d.nefc; ++r) {
    const int type = d.efc_type[r];
    if (type >= kCnstrContactFrictionless) continue;
    int dim;
    const ncp::Kind kind = ncp::block_kind(d, r, &dim);
    const double c = constraint::dot_row(Jv, d, r, vplus) + ncp::shift(m, d, r, kind, 0, h);
    const double l = d.efc_force[r];
    if (kind == ncp::kUnilateral) {
      account(std::max(0.0, -l), std::max(0.0, -c), std::fabs(l * c));
    } else if (kind == ncp::kBilateral) {
      account(0, std::fabs(c), std::fabs(l * c));
    } else {
      const double F = d.efc_frictionloss[r];
      const double ed = std::fabs(l) < F * (1 - 1e-9) ? std::fabs(c) : l > 0 ? std::max(0.0, c) : std::max(0.0, -c);
      account(std::max(0.0, std::fabs(l) - F), ed, std::fabs(l * c + F * std::fabs(c)));
    }
  }
  // contacts: c = relative velocity (and, from condim 4, angular velocity) of geom2 with respect
  // to geom1 in the contact frame, plus the normal shift
  for (int i = 0; i < d.ncon; ++i) {
    const Contact& con = d.contact[i];
    if (con.efc_address < 0) continue;
    const bool rot = con.dim > 3;
    double f6[6];
    contact_force(m, d, i, f6);
    jac(m, d, jacp1, rot ? jacr1 : nullptr, con.pos, m.geom_bodyid[con.geom1]);
    jac(m, d, jacp2, rot ? jacr2 : nullptr, con.pos, m.geom_bodyid[con.geom2]);
    double vrel[6] = {0, 0, 0, 0, 0, 0};
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < nv; ++k) vrel[a] += (jacp2[a * nv + k] - jacp1[a * nv + k]) * vplus[k];
    if (rot)
      for (int a = 0; a < 3; ++a)
        for (int k = 0; k < nv; ++k) vrel[3 + a] += (jacr2[a * nv + k] - jacr1[a * nv + k]) * vplus[k];
    double c[6];
    for (int a = 0; a < 6; ++a) {
      const double* v = vrel + (a < 3 ? 0 : 3);
      const double* ax = con.frame + 3 * (a % 3);
      c[a] = ax[0] * v[0] + ax[1] * v[1] + ax[2] * v[2];
    }
    c[0] += ncp::shift(m, d, con.efc_address, ncp::kUnilateral, 0, h);
    if (con.dim == 1) {
      account(std::max(0.0, -f6[0]), std::max(0.0, -c[0]), std::fabs(f6[0] * c[0]));
    } else if (ncp::scaled_cone(con)) {
      double ep, ed, ec;
      ncp::scaled_errors(con, f6, 1, c, &ep, &ed, &ec);
      account(ep, ed, ec);
    } else {
      const double mu = con.friction[0];
      const double l[3] = {f6[0], f6[1], f6[2]};
      const double y[3] = {c[0] + mu * std::sqrt(c[1] * c[1] + c[2] * c[2]), c[1], c[2]};
      account(ncp::dist_cone(mu, l), ncp::dist_dual_cone(mu, y),
              std::fabs(l[0] * y[0] + l[1] * y[1] + l[2] * y[2]));
    }
  }
  st.eps_abs = std::max(st.primal, std::max(st.dual, st.complementarity));
}

}  // namespace moreau

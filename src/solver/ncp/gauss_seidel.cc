// Gauss-Seidel solvers of the hard-contact problem (ncp.h): one sweep visits every block in row
// order and replaces its impulse given the current impulses of the others. With v = Mt^-1 J' lambda
// kept up to date, the velocity of block i is c_i = g_i + J_i v, and the free velocity of block i
// "as if it were free" (paper, Sec. II) is g~_i = c_i - G_ii lambda_i.
//
// 3D contacts, by solver:
//   raisim    RaiSim's per-contact update (paper, Sec. II; Alg. 1 without lines 10-11): takeoff if
//             g~_N > 0 (lambda = 0); stiction if lambda_v0 = -G_ii^-1 g~ lies in K_mu; otherwise
//             sliding: the minimum of (7) on the ellipse dK ∩ V_N by bisection on the polar angle.
//   raisim-ds Alg. 1: the same with de Saxce's correction in the sliding case (lines 10-12):
//             g_cor = g~ + Gamma(G_ii lambda_i + g~), minimum of (13) on the same ellipse.
//             Both raisim solvers relax each contact update, lambda <- (1-alpha) lambda +
//             alpha lambda*, alpha <- gamma alpha + (1-gamma) alpha_min (lines 14-15; alpha decays
//             per contact update, as Alg. 1 counts them).
//   ncp-pgs   projected Gauss-Seidel on the NCP (6) with de Saxce's function: lambda <-
//             P_K(lambda - rho (c + Gamma(c))), rho = 1/lambda_max(G_ii); its fixed points are
//             exactly the solutions of (6) (lambda = P_K(lambda - rho y) <=> K ∋ lambda ⊥ y ∈ K*).
//   ccp       the same projection without Gamma: Anitescu's cone complementarity problem, the
//             optimality conditions of the convex problem min 0.5 l'Gl + g'l over K (block
//             coordinate descent with step 1/L: monotone).
// 1D rows (all solvers): the exact 1D minimizer lambda - c/G_ii, projected on R (equality), R+
// (limit, frictionless contact) or [-frictionloss h, frictionloss h] (friction loss), not relaxed:
// the relaxation stabilizes RaiSim's non-convex contact update, while a projected 1D minimization
// is a step of coordinate descent on a convex problem that needs none (relaxing it too slowed the
// friction-loss rows of legged robots, which then held the sweeps far from convergence).
// Stopping test: max |delta lambda| <= tolerance * max |lambda| over a sweep (a relative criterion,
// as RaiSim's), or opt.iterations sweeps.
#include <algorithm>
#include <cmath>

#include "solver/ncp/ncp.h"

namespace moreau::ncp {

namespace {

inline void mul3(const double* A, const double* x, double* y) {
  for (int a = 0; a < 3; ++a) y[a] = A[3 * a] * x[0] + A[3 * a + 1] * x[1] + A[3 * a + 2] * x[2];
}

// RaiSim's update of one contact (Alg. 1, lines 2-12), with or without de Saxce's correction.
void raisim_contact(const double* G, const double* Ginv, double mu, const double* gt,
                    const double* lam, bool desaxce, double* out) {
  if (gt[0] > 0) {  // takeoff (line 5)
    out[0] = out[1] = out[2] = 0;
    return;
  }
  double lv0[3];
  mul3(Ginv, gt, lv0);
  for (double& x : lv0) x = -x;
  if (in_cone(mu, lv0)) {  // stiction (line 7)
    std::copy_n(lv0, 3, out);
    return;
  }
  if (mu <= 0) {  // frictionless contact: the plane V_N with l_T = 0
    out[0] = G[0] > 0 ? -gt[0] / G[0] : 0;
    out[1] = out[2] = 0;
    return;
  }
  // sliding (lines 10-12): the objective's linear term, corrected or not
  double b[3] = {gt[0], gt[1], gt[2]};
  if (desaxce) {
    double c[3];
    mul3(G, lam, c);
    for (int a = 0; a < 3; ++a) c[a] += gt[a];
    b[0] += mu * std::sqrt(c[1] * c[1] + c[2] * c[2]);
  }
  double lcor[3];
  mul3(Ginv, b, lcor);
  // start from the direction of lambda_v0^cor = -G^-1 b, the point the ellipse's closest point
  // (in the G metric) is sought for (Fig. 2)
  const bool tangent = lcor[1] != 0 || lcor[2] != 0;
  const double u0[2] = {tangent ? -lcor[1] : lv0[1], tangent ? -lcor[2] : lv0[2]};
  ellipse_min(G, b, gt[0], mu, u0, out);
}

// Projected step on the cone, with (ncp-pgs) or without (ccp) de Saxce's function.
void projected_contact(const double* c, double rho, double mu, const double* lam, bool desaxce,
                       double* out) {
  double x[3];
  const double gamma = desaxce ? mu * std::sqrt(c[1] * c[1] + c[2] * c[2]) : 0;
  x[0] = lam[0] - rho * (c[0] + gamma);
  x[1] = lam[1] - rho * c[1];
  x[2] = lam[2] - rho * c[2];
  project_cone(mu, x, out);
}

}  // namespace

int gauss_seidel(const Model& m, Data& d, Work& w, int solver) {
  const int nv = m.nv, nefc = d.nefc;
  const double* Jv = constraint::J_values(m, d);
  const bool relax = solver == kSolverRaisim || solver == kSolverRaisimDS;
  const bool desaxce = solver == kSolverRaisimDS || solver == kSolverNcpPGS;
  const double h = w.h;
  double alpha = kAlpha0;
  int iter = 0;
  d.ncp.change = 0;
  while (iter < m.opt.iterations) {
    double dmax = 0, lmax = 0;
    for (int r = 0; r < nefc;) {
      int dim;
      const Kind kind = block_kind(d, r, &dim);
      double* lam = w.lam + r;
      const double* G = w.G + 6 * r;
      double c[6] = {0, 0, 0, 0, 0, 0}, lnew[6] = {0, 0, 0, 0, 0, 0};
      for (int a = 0; a < dim; ++a) c[a] = w.g[r + a] + constraint::dot_row(Jv, d, r + a, w.v);
      if (kind == kCone) {
        const Contact& con = d.contact[d.efc_id[r]];
        if (scaled_cone(con)) {
          double D[6];
          cone_scale(con, D);
          if (relax) {
            double gt[6];
            for (int a = 0; a < dim; ++a) {
              double Gl = 0;
              for (int b = 0; b < dim; ++b) Gl += G[a * dim + b] * lam[b];
              gt[a] = c[a] - Gl;
            }
            raisim_scaled(dim, G, w.Ginv + 6 * r, D, w.eig + 6 * r, gt, lam, desaxce, lnew);
          } else {
            projected_scaled(dim, D, c, w.rho[r], lam, desaxce, lnew);
          }
        } else if (relax) {
          const double mu = con.friction[0];
          double gt[3], Gl[3];
          mul3(G, lam, Gl);
          for (int a = 0; a < 3; ++a) gt[a] = c[a] - Gl[a];
          raisim_contact(G, w.Ginv + 6 * r, mu, gt, lam, desaxce, lnew);
        } else {
          projected_contact(c, w.rho[r], con.friction[0], lam, desaxce, lnew);
        }
      } else {
        lnew[0] = lam[0] - c[0] * w.Ginv[6 * r];
        if (kind == kUnilateral) {
          lnew[0] = std::max(0.0, lnew[0]);
        } else if (kind == kBox) {
          const double bound = d.efc_frictionloss[r] * h;
          lnew[0] = std::clamp(lnew[0], -bound, bound);
        }
      }
      if (relax && kind == kCone) {  // Alg. 1, lines 14-15
        for (int a = 0; a < dim; ++a) lnew[a] = (1 - alpha) * lam[a] + alpha * lnew[a];
        alpha = kGammaRelax * alpha + (1 - kGammaRelax) * kAlphaMin;
      }
      for (int a = 0; a < dim; ++a) {
        const double delta = lnew[a] - lam[a];
        lmax = std::max(lmax, std::fabs(lnew[a]));
        if (delta == 0) continue;
        dmax = std::max(dmax, std::fabs(delta));
        lam[a] = lnew[a];
        const double* col = w.MinvJT + static_cast<size_t>(r + a) * nv;
        axpy_range(delta, col, w.v, static_cast<int>(w.lo[r + a]), static_cast<int>(w.hi[r + a]));
      }
      r += dim;
    }
    ++iter;
    d.ncp.change = lmax > 0 ? dmax / lmax : 0;
    if (d.ncp.change <= m.opt.tolerance) break;
  }
  return iter;
}

}  // namespace moreau::ncp

// Exact line search of the primal solvers (computation chapter, "Algorithms": Newton's method in
// one dimension with analytic first and second derivatives of the piecewise-quadratic cost; the
// elliptic cone pieces are smooth but not quadratic, cone.cc).
//
// Along x + alpha*p the cost is convex and C1, so its derivative is monotone. We keep a bracket
// [lo, hi] with slope(lo) < 0 < slope(hi), take Newton steps inside it, and bisect when a step
// leaves it. Within one quadratic piece a single Newton step is exact.
#include <algorithm>
#include <cmath>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

struct LineEval {
  double d1 = 0, d2 = 0;
};

// The unilateral rows [i0, i1) (limits, frictionless and pyramidal contacts: active where
// z = Jaref + alpha jv < 0) added to e's derivatives; a loop of its own so that the sums stay in
// registers.
inline void unilateral_rows(const double* Jaref, const double* jv, const double* D, int i0, int i1,
                            double alpha, LineEval* e) {
  double d1 = e->d1, d2 = e->d2;
  for (int i = i0; i < i1; ++i) {
    const double v = jv[i], z = Jaref[i] + alpha * v;
    if (z < 0) {
      const double Dv = D[i] * v;
      d1 += Dv * z;
      d2 += Dv * v;
    }
  }
  e->d1 = d1;
  e->d2 = d2;
}

// First and second derivative of the cost along the line at alpha (the search needs no values:
// the decrease is computed once at the end, line_delta). Rows come in the order equality
// [0, ne), friction loss [ne, ne + nf), then limits and contacts, so each range is a loop of its
// own. pyramidal: no elliptic contact rows (the tight loop of unilateral_rows for the rest).
LineEval line_eval(const Model& m, const Data& d, const Primal& p, double alpha, double gq1,
                   double gq2, bool pyramidal) {
  LineEval e;
  // gauss part: gq1 = p'(Ma - qfrc_smooth), gq2 = p'Mp
  double d1 = gq1 + alpha * gq2, d2 = gq2;
  const double* Jaref = p.Jaref;
  const double* jv = p.jv;
  const double* D = d.efc_D.data();
  const int ne = d.ne, nf = d.nf, nefc = d.nefc;
  for (int i = 0; i < ne; ++i) {
    const double v = jv[i], Dv = D[i] * v;
    d1 += Dv * (Jaref[i] + alpha * v);
    d2 += Dv * v;
  }
  for (int i = ne; i < ne + nf; ++i) {
    const double z = Jaref[i] + alpha * jv[i], v = jv[i];
    const double eta = d.efc_frictionloss[i], Reta = d.efc_R[i] * eta;
    if (z <= -Reta) {
      d1 -= eta * v;
    } else if (z >= Reta) {
      d1 += eta * v;
    } else {
      d1 += D[i] * z * v;
      d2 += D[i] * v * v;
    }
  }
  if (pyramidal) {
    e.d1 = d1;
    e.d2 = d2;
    unilateral_rows(Jaref, jv, D, ne + nf, nefc, alpha, &e);
    return e;
  }
  double dummy = 0;
  for (int i = ne + nf; i < nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[i]];
      elliptic_line(p.ecoef + 3 * i, con.mu, alpha, &dummy, &d1, &d2);
      i += con.dim - 1;
      continue;
    }
    const double v = jv[i], z = Jaref[i] + alpha * v;
    if (z < 0) {
      const double Dv = D[i] * v;
      d1 += Dv * z;
      d2 += Dv * v;
    }
  }
  e.d1 = d1;
  e.d2 = d2;
  return e;
}

// cost(alpha) - cost(0) evaluated row by row in a form without cancellation where both ends lie in
// the same quadratic or linear piece, so that tiny improvements near convergence are not lost to
// round-off (they drive the improvement < tolerance test).
double line_delta(const Model& m, const Data& d, const Primal& p, double alpha, double gq1,
                  double gq2) {
  double delta = alpha * gq1 + 0.5 * alpha * alpha * gq2;
  for (int i = 0; i < d.nefc; ++i) {
    const double z0 = p.Jaref[i], v = p.jv[i], z1 = z0 + alpha * v, D = d.efc_D[i];
    const double quad = 0.5 * D * alpha * v * (2 * z0 + alpha * v);  // 0.5 D (z1^2 - z0^2)
    switch (d.efc_type[i]) {
      case kCnstrEquality: delta += quad; break;
      case kCnstrFrictionDof:
      case kCnstrFrictionTendon: {
        const double eta = d.efc_frictionloss[i], R = d.efc_R[i];
        auto zone = [&](double z) { return z <= -R * eta ? -1 : z >= R * eta ? 1 : 0; };
        auto cost = [&](double z) {
          const int k = zone(z);
          return k == 0 ? 0.5 * D * z * z : k * eta * z - 0.5 * R * eta * eta;
        };
        const int k0 = zone(z0), k1 = zone(z1);
        if (k0 == k1) delta += k0 == 0 ? quad : k0 * eta * alpha * v;
        else delta += cost(z1) - cost(z0);
        break;
      }
      case kCnstrContactElliptic: {
        const Contact& con = d.contact[d.efc_id[i]];
        double v1 = 0, v0 = 0, t1 = 0, t2 = 0;
        elliptic_line(p.ecoef + 3 * i, con.mu, alpha, &v1, &t1, &t2);
        elliptic_line(p.ecoef + 3 * i, con.mu, 0, &v0, &t1, &t2);
        delta += v1 - v0;
        i += con.dim - 1;
        break;
      }
      default:
        if (z0 < 0 && z1 < 0) delta += quad;
        else delta += 0.5 * D * (std::min(z1, 0.0) * std::min(z1, 0.0) - std::min(z0, 0.0) * std::min(z0, 0.0));
        break;
    }
  }
  return delta;
}

}  // namespace

double linesearch(const Model& m, Data& d, Primal& p, int* neval, double* slope0,
                  double* decrease) {
  const int nv = m.nv;
  if (!p.Mv_given) mul_m(m, d, p.Mv, p.search);
  constraint::mul_J(m, d, p.jv, p.search);
  for (int i = d.ne + d.nf; i < d.nefc; ++i) {
    if (d.efc_type[i] != kCnstrContactElliptic) continue;
    elliptic_line_prepare(d, i, p.Jaref, p.jv, p.ecoef + 3 * i);
    i += d.contact[d.efc_id[i]].dim - 1;
  }
  // contact rows are elliptic only with the elliptic cone (contact_rows.cc; the hard-contact
  // solvers never come here)
  const bool pyramidal = m.opt.cone != kConeElliptic;
  // gabs: the size of the slope's terms, search' (|M a| + |qfrc_smooth|) (the constraint forces
  // balance these near a solution); with rounding_stop (Newton), a slope within kSlopeRounding of
  // it is rounding. CG keeps the relative test alone (its iterates depend on every line search).
  double gq1 = 0, gq2 = 0, gabs = 0;
  for (int k = 0; k < nv; ++k) {
    gq1 += p.search[k] * (p.Ma[k] - d.qfrc_smooth[k]);
    gq2 += p.search[k] * p.Mv[k];
    gabs += std::fabs(p.search[k]) * (std::fabs(p.Ma[k]) + std::fabs(d.qfrc_smooth[k]));
  }
  const double rounding = p.rounding_stop ? kSlopeRounding * gabs : 0.0;
  LineEval e0 = line_eval(m, d, p, 0, gq1, gq2, pyramidal);
  int n = 1;
  *slope0 = e0.d1;
  double alpha = 0;
  if (e0.d1 < -rounding && gq2 > 0) {
    // converged when the slope is 1e-10 of the starting one, or at rounding level
    const double tol = std::max(1e-10 * std::fabs(e0.d1), rounding);
    double lo = 0, hi = -1;  // hi < 0: no upper bracket yet
    LineEval e = e0;
    for (int it = 0; it < 60; ++it) {
      double next = e.d2 > 0 ? alpha - e.d1 / e.d2 : -1;
      const bool inside = next > lo && (hi < 0 || next < hi);
      if (!inside) next = hi < 0 ? 2 * (alpha > 0 ? alpha : 1) : 0.5 * (lo + hi);
      alpha = next;
      e = line_eval(m, d, p, alpha, gq1, gq2, pyramidal);
      ++n;
      if (std::fabs(e.d1) <= tol) break;
      if (e.d1 < 0) lo = alpha; else hi = alpha;
      if (hi >= 0 && hi - lo <= 1e-15 * hi) break;
    }
  }
  *neval = n;
  *decrease = alpha != 0 ? -line_delta(m, d, p, alpha, gq1, gq2) : 0.0;
  if (alpha != 0) {
    for (int k = 0; k < nv; ++k) {
      p.x[k] += alpha * p.search[k];
      p.Ma[k] += alpha * p.Mv[k];
    }
    for (int i = 0; i < d.nefc; ++i) p.Jaref[i] += alpha * p.jv[i];
  }
  return alpha;
}

}  // namespace moreau::solver

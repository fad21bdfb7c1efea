// The noslip post-pass (computation chapter, "Algorithms": not a solver of its own but a
// post-processing step after the main solver, enabled by opt.noslip_iterations > 0): projected
// Gauss-Seidel on the dual problem restricted to the friction dimensions, with the regularizer R
// left out so that the soft model's slip is removed, all other forces held fixed:
//   minimize 0.5 f'Af + f'b over the friction forces,  A = J M^-1 J', b = J qacc_smooth - aref,
// one constraint at a time, in row order:
//   friction loss row:  scalar update, |f| <= frictionloss;
//   pyramidal contact:  each pair of opposite edges (n + mu_j t_j, n - mu_j t_j): the pair's sum
//                       (its share of the normal force) stays, the difference moves, both >= 0;
//   elliptic contact:   the friction rows with the normal force fixed, inside the contact's
//                       friction ellipse (the unregularized cone: contact.friction).
// Equality, limit and frictionless rows and the elliptic normal keep the main solver's force.
// Established against MuJoCo 2.2.2 (which rows move, the R-free cost and its stopping rule):
// tests/differential/noslip_test.cc. The dual rows come from dual.cc; the iteration statistics
// follow the main solver's in d.solver, and solver_iter counts both.
#include <algorithm>
#include <cmath>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

// One pair of pyramidal edges a, b = a + 1: f_a += t, f_b -= t minimizing the cost; returns the
// cost decrease.
double pyramid_pair(const DualRows& u, Data& d, int a, const double* Adiag, double* v) {
  double* f = d.efc_force.data();
  const int b = a + 1;
  const double ra = dual_dot(u, a, v) + d.efc_b[a];
  const double rb = dual_dot(u, b, v) + d.efc_b[b];
  const double curv = Adiag[a] + Adiag[b] - 2 * dual_pair(u, a, b);
  if (!(curv > kMinVal)) return 0;
  double t = -(ra - rb) / curv;
  t = std::min(f[b], std::max(-f[a], t));
  if (t == 0) return 0;
  f[a] += t;
  f[b] -= t;
  dual_axpy(u, a, t, v);
  dual_axpy(u, b, -t, v);
  return -(t * (ra - rb) + 0.5 * t * t * curv);
}

// Friction rows of the elliptic contact at i0; returns the cost decrease.
double elliptic_pair(const DualRows& u, Data& d, int i0, const double* Adiag, double* v) {
  double* force = d.efc_force.data();
  const Contact& con = d.contact[d.efc_id[i0]];
  const int dim = con.dim;
  // block cost q(f) = 0.5 f'Af + f'g with g = residual - A f_old (no R)
  double A[36], g[6], f[6], fold[6];
  for (int a = 0; a < dim; ++a) {
    A[a * dim + a] = Adiag[i0 + a];
    for (int b = a + 1; b < dim; ++b) A[a * dim + b] = A[b * dim + a] = dual_pair(u, i0 + a, i0 + b);
    fold[a] = f[a] = force[i0 + a];
  }
  for (int a = 0; a < dim; ++a) {
    double r = dual_dot(u, i0 + a, v) + d.efc_b[i0 + a];
    for (int b = 0; b < dim; ++b) r -= A[a * dim + b] * fold[b];
    g[a] = r;
  }
  auto cost = [&](const double* x) {
    double c = 0;
    for (int a = 0; a < dim; ++a) {
      c += x[a] * g[a];
      for (int b = 0; b < dim; ++b) c += 0.5 * x[a] * A[a * dim + b] * x[b];
    }
    return c;
  };
  const double q_old = cost(fold);
  elliptic_friction(dim, con.friction, A, g, f);
  const double q_new = cost(f);
  for (int a = 1; a < dim; ++a) {
    const double delta = f[a] - fold[a];
    if (delta == 0) continue;
    force[i0 + a] = f[a];
    dual_axpy(u, i0 + a, delta, v);
  }
  return q_old - q_new;
}

}  // namespace

void noslip(const Model& m, Data& d) {
  const int nv = m.nv, nefc = d.nefc;
  Work w = constraint::carve(m, d);
  const DualRows u = dual_rows(m, d, w);
  double* v = w.v[0];  // sum_i u_i f_i
  double* Adiag = w.etmp;
  double* force = d.efc_force.data();
  std::fill_n(v, nv, 0.0);
  for (int i = 0; i < nefc; ++i) {
    Adiag[i] = dual_pair(u, i, i);
    if (force[i] != 0) dual_axpy(u, i, force[i], v);
  }
  const double scale = stat_scale(m);
  // MuJoCo 2.2.2 measures the first sweep's improvement from the dual cost of the main solver's
  // forces with the regularizer (0.5 f'(A+R)f + f'b) to the R-free cost after the sweep: the
  // sweep's own decrease plus 0.5 sum_i R_i f_i^2 (measured on 2.2.2: the improvement it
  // reports and its stopping iteration); the later sweeps compare R-free costs.
  double first = 0;
  for (int i = 0; i < nefc; ++i) first += 0.5 * d.efc_R[i] * force[i] * force[i];
  int iter = 0;
  while (iter < m.opt.noslip_iterations) {
    double decrease = 0;
    for (int i = 0; i < nefc; ++i) {
      switch (d.efc_type[i]) {
        case kCnstrFrictionDof:
        case kCnstrFrictionTendon: {
          if (!(Adiag[i] > kMinVal)) break;
          const double res = dual_dot(u, i, v) + d.efc_b[i];
          const double eta = d.efc_frictionloss[i];
          const double fi = std::min(eta, std::max(-eta, force[i] - res / Adiag[i]));
          const double delta = fi - force[i];
          if (delta == 0) break;
          decrease -= delta * res + 0.5 * delta * delta * Adiag[i];
          force[i] = fi;
          dual_axpy(u, i, delta, v);
          break;
        }
        case kCnstrContactPyramidal: {
          const int nrow = 2 * (d.contact[d.efc_id[i]].dim - 1);
          for (int k = 0; k < nrow; k += 2) decrease += pyramid_pair(u, d, i + k, Adiag, v);
          i += nrow - 1;
          break;
        }
        case kCnstrContactElliptic: {
          const int dim = d.contact[d.efc_id[i]].dim;
          if (dim > 1) decrease += elliptic_pair(u, d, i, Adiag, v);
          i += dim - 1;
          break;
        }
        default: break;
      }
    }
    const double improvement = scale * (decrease + (iter == 0 ? first : 0));
    const int slot = d.solver_iter + iter;
    if (slot < kNSolverStat && static_cast<int>(d.solver.size()) > slot) {
      SolverStat& st = d.solver[slot];
      st = SolverStat{};
      st.improvement = improvement;
    }
    ++iter;
    if (improvement < m.opt.noslip_tolerance) break;
  }
  const int first_stat = d.solver_iter;
  d.solver_iter += iter;
  dual_finish(m, d, v);
  int nactive = 0;
  for (int i = 0; i < nefc; ++i) nactive += d.efc_state[i] != kCnstrSatisfied;
  for (int k = first_stat; k < d.solver_iter && k < static_cast<int>(d.solver.size()); ++k)
    d.solver[k].nactive = nactive;
}

}  // namespace moreau::solver

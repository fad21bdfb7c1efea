// Projected Gauss-Seidel on the dual problem (computation chapter, "Dual problem", "Algorithms"):
//   minimize 0.5 f'(A + R) f + f'(J qacc_smooth - aref),  A = J M^-1 J',  f in Omega
// (equality: free; friction loss: |f| <= frictionloss; limits and pyramidal/frictionless
// contacts: f >= 0; elliptic contacts: the cone, updated per contact as in cone.cc).
// A is never formed: the columns M^-1 J_i' are computed once (cost: nefc solves with the factor
// of M) and v = M^-1 J' f is kept up to date, so the residual of row i is J_i v + b_i + R_i f_i and
// the diagonal A_ii = J_i M^-1 J_i'. qacc = qacc_smooth + v at the end.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

// Dual cost 0.5 f'(A+R)f + f'b, with v = M^-1 J' f and JTf = J' f.
double dual_cost(const Model& m, const Data& d, const double* f, const double* v, double* JTf) {
  constraint::mul_JT(m, d, JTf, f);
  double c = 0;
  for (int k = 0; k < m.nv; ++k) c += 0.5 * JTf[k] * v[k];
  for (int i = 0; i < d.nefc; ++i) c += f[i] * (0.5 * d.efc_R[i] * f[i] + d.efc_b[i]);
  return c;
}

void set_state(const Model& m, Data& d) {
  for (int i = 0; i < d.nefc; ++i) {
    const double f = d.efc_force[i];
    switch (d.efc_type[i]) {
      case kCnstrEquality: d.efc_state[i] = kCnstrQuadratic; break;
      case kCnstrFrictionDof:
      case kCnstrFrictionTendon: {
        const double eta = d.efc_frictionloss[i];
        d.efc_state[i] = f >= eta ? kCnstrLinearNeg : f <= -eta ? kCnstrLinearPos : kCnstrQuadratic;
        break;
      }
      case kCnstrContactElliptic: {
        const Contact& con = d.contact[d.efc_id[i]];
        const int dim = con.dim;
        double t = 0;
        for (int j = 1; j < dim; ++j) {
          const double q = d.efc_force[i + j] / con.friction[j - 1];
          t += q * q;
        }
        const int s = f <= 0 ? kCnstrSatisfied
                      : std::sqrt(t) >= f * (1 - 1e-10) ? kCnstrCone : kCnstrQuadratic;
        for (int j = 0; j < dim; ++j) d.efc_state[i + j] = s;
        i += dim - 1;
        break;
      }
      default: d.efc_state[i] = f > 0 ? kCnstrQuadratic : kCnstrSatisfied; break;
    }
  }
}

}  // namespace

void pgs(const Model& m, Data& d) {
  const int nv = m.nv, nefc = d.nefc;
  Work w = constraint::carve(m, d);
  const double* J = constraint::J_values(m, d);
  double* v = w.v[0];
  double* JTf = w.v[1];
  double* x = w.v[2];
  double* Adiag = w.etmp;
  double* force = d.efc_force.data();

  // columns M^-1 J_i', and the range [lo, hi) of dofs where each is non-zero (a column only
  // touches the kinematic trees that row i touches, so the updates of v cost that range, not nv)
  double* lo = w.quad;
  double* hi = w.quad + nefc;
  for (int i = 0; i < nefc; ++i) {
    double* col = w.MinvJT + static_cast<size_t>(i) * nv;
    std::fill_n(col, nv, 0.0);
    const constraint::SparseRow r = constraint::row_of(d, J, i);
    for (int k = 0; k < r.nnz; ++k) col[r.col[k]] = r.val[k];
    solve_m(m, d, col);
    Adiag[i] = constraint::dot_row(J, d, i, col);
    int a = 0, b = nv;
    while (a < nv && col[a] == 0) ++a;
    while (b > a && col[b - 1] == 0) --b;
    lo[i] = a;
    hi[i] = b;
  }
  d.solver_nnz = nefc * nefc;

  // warm start: the forces the primal map gives at qacc_warmstart, if their dual cost is negative
  // (better than f = 0)
  std::fill_n(force, nefc, 0.0);
  std::fill_n(v, nv, 0.0);
  if (!(m.opt.disableflags & kDsblWarmstart) && static_cast<int>(d.qacc_warmstart.size()) >= nv) {
    constraint::mul_J(m, d, w.Jaref, d.qacc_warmstart.data());
    for (int i = 0; i < nefc; ++i) w.Jaref[i] -= d.efc_aref[i];
    eval_constraint(m, d, w.Jaref, force, d.efc_state.data(), false, nullptr);
    constraint::mul_JT(m, d, v, force);
    solve_m(m, d, v);
    const double c = dual_cost(m, d, force, v, JTf);
    if (c >= 0) {
      std::fill_n(force, nefc, 0.0);
      std::fill_n(v, nv, 0.0);
    }
  }

  const double scale = stat_scale(m);
  int iter = 0;
  while (iter < m.opt.iterations) {
    // improvement: the sum of the exact cost decreases of the row and block updates (accurate to
    // round-off of each small update, unlike a difference of two total costs)
    double decrease = 0;
    for (int i = 0; i < nefc; ++i) {
      const int type = d.efc_type[i];
      if (type == kCnstrContactElliptic) {
        const Contact& con = d.contact[d.efc_id[i]];
        const int dim = con.dim;
        // block: A (dim x dim, with R), g = residual - A f_old, so q(f) = 0.5 f'Af + f'g
        double A[36], g[6], f[6], fold[6];
        for (int a = 0; a < dim; ++a) {
          const double* col = w.MinvJT + static_cast<size_t>(i + a) * nv;
          for (int b = 0; b < dim; ++b) A[a * dim + b] = constraint::dot_row(J, d, i + b, col);
          A[a * dim + a] += d.efc_R[i + a];
          fold[a] = f[a] = force[i + a];
        }
        for (int a = 0; a < dim; ++a) {
          double r = constraint::dot_row(J, d, i + a, v) + d.efc_b[i + a] +
                     d.efc_R[i + a] * fold[a];
          for (int b = 0; b < dim; ++b) r -= A[a * dim + b] * fold[b];
          g[a] = r;
        }
        const double q_old = [&] {
          double c = 0;
          for (int a = 0; a < dim; ++a) {
            c += fold[a] * g[a];
            for (int b = 0; b < dim; ++b) c += 0.5 * fold[a] * A[a * dim + b] * fold[b];
          }
          return c;
        }();
        elliptic_block(dim, con.friction, A, g, f);
        double q_new = 0;
        for (int a = 0; a < dim; ++a) {
          q_new += f[a] * g[a];
          for (int b = 0; b < dim; ++b) q_new += 0.5 * f[a] * A[a * dim + b] * f[b];
        }
        decrease += q_old - q_new;
        for (int a = 0; a < dim; ++a) {
          const double delta = f[a] - fold[a];
          if (delta == 0) continue;
          force[i + a] = f[a];
          const double* col = w.MinvJT + static_cast<size_t>(i + a) * nv;
          for (int k = static_cast<int>(lo[i + a]), e = static_cast<int>(hi[i + a]); k < e; ++k)
            v[k] += delta * col[k];
        }
        i += dim - 1;
        continue;
      }
      const double res = constraint::dot_row(J, d, i, v) + d.efc_b[i] + d.efc_R[i] * force[i];
      double fi = force[i] - res / (Adiag[i] + d.efc_R[i]);
      if (type == kCnstrFrictionDof || type == kCnstrFrictionTendon) {
        const double eta = d.efc_frictionloss[i];
        fi = std::min(eta, std::max(-eta, fi));
      } else if (type != kCnstrEquality) {
        fi = std::max(0.0, fi);
      }
      const double delta = fi - force[i];
      if (delta == 0) continue;
      decrease -= delta * res + 0.5 * delta * delta * (Adiag[i] + d.efc_R[i]);
      force[i] = fi;
      const double* col = w.MinvJT + static_cast<size_t>(i) * nv;
      for (int k = static_cast<int>(lo[i]), e = static_cast<int>(hi[i]); k < e; ++k)
        v[k] += delta * col[k];
    }
    const double improvement = scale * decrease;
    if (iter < kNSolverStat && static_cast<int>(d.solver.size()) > iter) {
      SolverStat& st = d.solver[iter];
      st = SolverStat{};
      st.improvement = improvement;
      int nactive = 0;
      for (int i = 0; i < nefc; ++i) nactive += force[i] != 0;
      st.nactive = nactive;
    }
    ++iter;
    if (improvement < m.opt.tolerance) break;
  }
  d.solver_iter = iter;
  set_state(m, d);
  for (int k = 0; k < nv; ++k) d.qacc[k] = d.qacc_smooth[k] + v[k];
  constraint::mul_JT(m, d, d.qfrc_constraint.data(), force);
  (void)x;
}

}  // namespace moreau::solver

// Projected Gauss-Seidel on the dual problem (computation chapter, "Dual problem", "Algorithms"):
//   minimize 0.5 f'(A + R) f + f'(J qacc_smooth - aref),  A = J M^-1 J',  f in Omega
// (equality: free; friction loss: |f| <= frictionloss; limits and pyramidal/frictionless
// contacts: f >= 0; elliptic contacts: the cone, updated per contact as in cone.cc).
// A is never formed: with the rows in dual form (dual.cc, A_ij = u_i . u_j) the vector
// w = sum_j u_j f_j is kept up to date, so the residual of row i is u_i . w + b_i + R_i f_i and
// A_ii = |u_i|^2; each costs the length of u_i (the dof chains of the row). At the end
// qacc = qacc_smooth + M^-1 J' f, with M^-1 J' f = L^-1 D^-1/2 w.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

namespace {

// Dual cost 0.5 f'(A+R)f + f'b = 0.5 |w|^2 + f'(0.5 R f + b), with w = sum_i u_i f_i.
double dual_cost(const Model& m, const Data& d, const double* f, const double* w) {
  double c = 0;
  for (int k = 0; k < m.nv; ++k) c += 0.5 * w[k] * w[k];
  for (int i = 0; i < d.nefc; ++i) c += f[i] * (0.5 * d.efc_R[i] * f[i] + d.efc_b[i]);
  return c;
}

}  // namespace

void pgs(const Model& m, Data& d) {
  const int nv = m.nv, nefc = d.nefc;
  Work w = constraint::carve(m, d);
  const DualRows u = dual_rows(m, d, w);
  double* v = w.v[0];  // sum_i u_i f_i
  double* Adiag = w.etmp;
  double* force = d.efc_force.data();
  for (int i = 0; i < nefc; ++i) Adiag[i] = dual_pair(u, i, i);
  // off-diagonal blocks of elliptic contacts, once: dim(dim-1)/2 <= 3 dim values at 3*i0
  double* Aoff = w.quad;
  for (int i = 0; i < nefc; ++i) {
    if (d.efc_type[i] != kCnstrContactElliptic) continue;
    const int dim = d.contact[d.efc_id[i]].dim;
    double* o = Aoff + 3 * i;
    for (int a = 0; a < dim; ++a)
      for (int b = a + 1; b < dim; ++b) *o++ = dual_pair(u, i + a, i + b);
    i += dim - 1;
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
    for (int i = 0; i < nefc; ++i)
      if (force[i] != 0) dual_axpy(u, i, force[i], v);
    if (dual_cost(m, d, force, v) >= 0) {
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
        const double* o = Aoff + 3 * i;
        for (int a = 0; a < dim; ++a) {
          A[a * dim + a] = Adiag[i + a] + d.efc_R[i + a];
          for (int b = a + 1; b < dim; ++b) A[a * dim + b] = A[b * dim + a] = *o++;
          fold[a] = f[a] = force[i + a];
        }
        for (int a = 0; a < dim; ++a) {
          double r = dual_dot(u, i + a, v) + d.efc_b[i + a] + d.efc_R[i + a] * fold[a];
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
          dual_axpy(u, i + a, delta, v);
        }
        i += dim - 1;
        continue;
      }
      const double res = dual_dot(u, i, v) + d.efc_b[i] + d.efc_R[i] * force[i];
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
      dual_axpy(u, i, delta, v);
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
  dual_finish(m, d, v);
}

}  // namespace moreau::solver

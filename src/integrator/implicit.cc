// Implicit-in-velocity Euler (computation chapter, "Numerical integration", eq. implicit_update):
//   v_{t+h} = v_t + h (M - h D)^-1 M a(v_t),   M a(v_t) = qfrc_smooth + qfrc_constraint,
// with D = d(passive + actuator - bias)/dv restricted to the sparsity of M (src/derivative/smooth_vel.cc).
//
//  implicit:      D with the RNE (Coriolis, centrifugal) derivatives; M - hD is not symmetric and is
//                 factored by the reverse-order LU below, which has the sparsity of M (no fill-in),
//                 in d.qLU (dof-dof sparse layout, moreau/derivative.h).
//  implicitfast:  D without RNE derivatives, symmetrized (D + D')/2; M - hD is factored by the same
//                 tree-sparse L'DL as M, in d.qH.
// Both integrate eligible free bodies with the midpoint method (src/integrator/midpoint.cc) unless the
// invdiscrete enable flag is set.
#include <algorithm>

#include "derivative/work.h"
#include "dynamics/dynamics.h"
#include "integrator/implicit.h"
#include "integrator/integrator.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau::internal {

// Reverse-order LU of H (dof-dof sparse layout), in place. Dofs are eliminated from the leaves to the
// root: eliminating k changes only H(i, j) for i, j ancestors of k, which are ancestor-related and
// therefore inside the layout. On return the upper slots hold l_ik = H(i,k)/H(k,k) and the lower
// slots the reduced rows H(k, k), H(k, ancestors).
void factor_lu(const Model& m, double* H) {
  for (int k = m.nv - 1; k >= 0; --k) {
    const double pivot = H[deriv_lower(m, k, 0)];
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) {
      const double l = H[deriv_upper(m, k, t)] / pivot;
      H[deriv_upper(m, k, t)] = l;
      if (l == 0) continue;
      int s = 1;
      for (int j = m.dof_parentid[k]; j >= 0; j = m.dof_parentid[j], ++s) {
        const double hkj = H[deriv_lower(m, k, s)];
        if (s == t)
          H[deriv_lower(m, i, 0)] -= l * hkj;  // j == i
        else if (s > t)
          H[deriv_lower(m, i, s - t)] -= l * hkj;  // j above i
        else
          H[deriv_upper(m, j, t - s)] -= l * hkj;  // j between k and i: H(i, j) is j's upper entry
      }
    }
  }
}

// x <- H^-1 x with the factor of factor_lu.
void solve_lu(const Model& m, const double* LU, double* x) {
  for (int k = m.nv - 1; k >= 0; --k) {
    const double xk = x[k];
    if (xk == 0) continue;
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) x[i] -= LU[deriv_upper(m, k, t)] * xk;
  }
  for (int k = 0; k < m.nv; ++k) {
    double s = x[k];
    int t = 1;
    for (int j = m.dof_parentid[k]; j >= 0; j = m.dof_parentid[j], ++t) s -= LU[deriv_lower(m, k, t)] * x[j];
    x[k] = s / LU[deriv_lower(m, k, 0)];
  }
}

void implicit(const Model& m, Data& d) {
  const int nv = m.nv;
  const double h = m.opt.timestep;
  const bool fast = m.opt.integrator == kIntImplicitFast;
  const bool midpoint = midpoint_enabled(m);

  deriv_passive_actuator_vel(m, d);
  if (midpoint) midpoint_save_blocks(m, d);  // D of the free bodies without RNE terms
  if (!fast) deriv_rne_vel(m, d);

  double* dv = integrator_temp(d);  // (v_{t+h} - v_t) / h
  for (int i = 0; i < nv; ++i) dv[i] = d.qfrc_smooth[i] + d.qfrc_constraint[i];

  const double* D = d.qDeriv.data();
  if (fast) {
    implicitfast_matrix(m, d);
    factor_ld(m, d.qH.data(), d.qHDiagInv.data(), nullptr);
    solve_ld(m, d.qH.data(), d.qHDiagInv.data(), dv, 1);
  } else {
    double* LU = d.qLU.data();
    for (int i = 0; i < nv; ++i) {
      const int depth = dof_depth(m, i);
      for (int t = 0; t <= depth; ++t) {
        const double Mit = d.qM[m.dof_Madr[i] + t];  // M is symmetric: also M(ancestor, i)
        LU[deriv_lower(m, i, t)] = Mit - h * D[deriv_lower(m, i, t)];
        if (t > 0) LU[deriv_upper(m, i, t)] = Mit - h * D[deriv_upper(m, i, t)];
      }
    }
    factor_lu(m, LU);
    solve_lu(m, LU, dv);
  }

  if (midpoint) midpoint_free_bodies(m, d, dv);
  advance(m, d, d.act_dot.data(), dv, nullptr);
}


// d.qH = M - h (D + D')/2 in qM's layout, D = d.qDeriv (implicitfast's matrix, also implicitcon's base).
void implicitfast_matrix(const Model& m, Data& d) {
  const double h = m.opt.timestep;
  const double* D = d.qDeriv.data();
  for (int i = 0; i < m.nv; ++i) {
    d.qH[deriv_lower(m, i, 0)] = d.qM[m.dof_Madr[i]] - h * D[deriv_lower(m, i, 0)];
    const int depth = dof_depth(m, i);
    for (int t = 1; t <= depth; ++t)
      d.qH[deriv_lower(m, i, t)] =
          d.qM[m.dof_Madr[i] + t] - 0.5 * h * (D[deriv_lower(m, i, t)] + D[deriv_upper(m, i, t)]);
  }
}

}  // namespace moreau::internal

namespace moreau::internal {

void implicit_discrete_to_continuous(const Model& m, Data& d, const double* qacc_d, double* res) {
  const bool fast = m.opt.integrator == kIntImplicitFast;
  deriv_passive_actuator_vel(m, d);
  if (!fast) deriv_rne_vel(m, d);
  // res = D qacc_d (implicitfast: the symmetrized D)
  const double* D = d.qDeriv.data();
  for (int i = 0; i < m.nv; ++i) res[i] = D[deriv_lower(m, i, 0)] * qacc_d[i];
  for (int i = 0; i < m.nv; ++i) {
    int t = 1;
    for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a], ++t) {
      double lo = D[deriv_lower(m, i, t)], up = D[deriv_upper(m, i, t)];
      if (fast) lo = up = 0.5 * (lo + up);
      res[i] += lo * qacc_d[a];  // D(i, a)
      res[a] += up * qacc_d[i];  // D(a, i)
    }
  }
  solve_m(m, d, res, 1);
  for (int i = 0; i < m.nv; ++i) res[i] = qacc_d[i] - m.opt.timestep * res[i];
}

}  // namespace moreau::internal

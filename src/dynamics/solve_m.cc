// Solves with the L'DL factor of the inertia (computation chapter: qacc = M^-1 f is computed with
// the sparse factor, never with a dense inverse).
//
// M x = b with M = L' D L:  (1) L' y = b, eliminating from the leaves to the root;
// (2) z = D^-1 y; (3) L x = z, substituting from the root to the leaves.
#include "dynamics/dynamics.h"
#include "engine/checks.h"
#include "moreau/moreau.h"

namespace moreau {
namespace internal {

void solve_ld(const Model& m, const double* qld, const double* diaginv, double* x, int n) {
  const int nv = m.nv;
  for (int c = 0; c < n; ++c, x += nv) {
    for (int k = nv - 1; k >= 0; --k) {
      const double xk = x[k];
      if (xk == 0) continue;
      const double* row = qld + m.dof_Madr[k];
      int t = 1;
      for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) x[i] -= row[t] * xk;
    }
    for (int k = 0; k < nv; ++k) x[k] *= diaginv[k];
    for (int k = 0; k < nv; ++k) {
      const double* row = qld + m.dof_Madr[k];
      double s = 0;
      int t = 1;
      for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) s += row[t] * x[i];
      x[k] -= s;
    }
  }
}

}  // namespace internal

void solve_m(const Model& m, const Data& d, double* x, int n) {
  internal::check_data(m, d, "solve_m");
  internal::check_ptr(x, 1LL * m.nv * n, "solve_m", "x");
  if (n < 0) internal::throw_invalid("solve_m", "the number of columns n must be non-negative");
  internal::solve_ld(m, d.qLD.data(), d.qLDiagInv.data(), x, n);
}

// "Half" solve: x <- D^-1/2 L'^-1 x, so that |x|^2 = b' M^-1 b.
void solve_m2(const Model& m, const Data& d, double* x, int n) {
  internal::check_data(m, d, "solve_m2");
  internal::check_ptr(x, 1LL * m.nv * n, "solve_m2", "x");
  if (n < 0) internal::throw_invalid("solve_m2", "the number of columns n must be non-negative");
  const int nv = m.nv;
  for (int c = 0; c < n; ++c, x += nv) {
    for (int k = nv - 1; k >= 0; --k) {
      const double xk = x[k];
      if (xk == 0) continue;
      const double* row = d.qLD.data() + m.dof_Madr[k];
      int t = 1;
      for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) x[i] -= row[t] * xk;
    }
    for (int k = 0; k < nv; ++k) x[k] *= d.qLDiagSqrtInv[k];
  }
}

}  // namespace moreau

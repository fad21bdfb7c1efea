// Solves with the L'DL factor of the inertia (computation chapter: qacc = M^-1 f is computed with
// the sparse factor, never with a dense inverse).
//
// M x = b with M = L' D L:  (1) L' y = b, eliminating from the leaves to the root;
// (2) z = D^-1 y; (3) L x = z, substituting from the root to the leaves.
#include "dynamics/dynamics.h"
#include "engine/checks.h"
#include "math/simd2.h"
#include "moreau/moreau.h"

namespace moreau {
namespace internal {

namespace {

// One right-hand side. kSkipSimple: the rows of simple dofs hold zero L entries and are skipped
// (dof_simplenum[k] > 0: dofs k .. k + dof_simplenum[k] - 1 are simple).
template <bool kSkipSimple>
void solve_one(const Model& m, const double* qld, const double* diaginv, double* x) {
  const int nv = m.nv;
  const int* parent = m.dof_parentid.data();
  const int* madr = m.dof_Madr.data();
  const int* simple = m.dof_simplenum.data();
  for (int k = nv - 1; k >= 0; --k) {
    if (kSkipSimple && simple[k]) continue;
    const double xk = x[k];
    if (xk == 0) continue;
    const double* row = qld + madr[k];
    int t = 1;
    for (int i = parent[k]; i >= 0; i = parent[i], ++t) x[i] -= row[t] * xk;
  }
  int k = 0;
  for (; k + 2 <= nv; k += 2) math::store2(x + k, math::load2(x + k) * math::load2(diaginv + k));
  if (k < nv) x[k] *= diaginv[k];
  for (k = 0; k < nv; ++k) {
    if (kSkipSimple && simple[k]) {
      k += simple[k] - 1;
      continue;
    }
    const double* row = qld + madr[k];
    double s = 0;
    int t = 1;
    for (int i = parent[k]; i >= 0; i = parent[i], ++t) s += row[t] * x[i];
    x[k] -= s;
  }
}

}  // namespace

void solve_ld(const Model& m, const double* qld, const double* diaginv, double* x, int n,
              bool simple_diagonal) {
  for (int c = 0; c < n; ++c, x += m.nv) {
    if (simple_diagonal) solve_one<true>(m, qld, diaginv, x);
    else solve_one<false>(m, qld, diaginv, x);
  }
}

}  // namespace internal

void solve_m(const Model& m, const Data& d, double* x, int n) {
  internal::check_data(m, d, "solve_m");
  internal::check_ptr(x, 1LL * m.nv * n, "solve_m", "x");
  if (n < 0) internal::throw_invalid("solve_m", "the number of columns n must be non-negative");
  internal::solve_ld(m, d.qLD.data(), d.qLDiagInv.data(), x, n, true);
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
      if (xk == 0 || m.dof_simplenum[k]) continue;
      const double* row = d.qLD.data() + m.dof_Madr[k];
      int t = 1;
      for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) x[i] -= row[t] * xk;
    }
    for (int k = 0; k < nv; ++k) x[k] *= d.qLDiagSqrtInv[k];
  }
}

}  // namespace moreau

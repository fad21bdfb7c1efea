// The Stewart-Trinkle time-stepping LCP (Underactuated chapter, "Time-stepping LCP: Coulomb
// friction"; Stewart & Trinkle 1996) with a polyhedral friction cone, solved exactly by Lemke's
// algorithm (Murty & Yu, "Linear complementarity, linear and nonlinear programming", ch. 2).
//
// Variables z and complementary w = M z + q, per block (c = G lambda + g, efc space):
//   3D contact, edges d_j = cos(2 pi j/k) t1 + sin(2 pi j/k) t2, j < k = kLcpDirections:
//     lambda_N : w = c_N                                  (Signorini)
//     beta_j   : w = d_j' c_T + sigma                     (beta_j > 0 only along the sliding direction)
//     sigma    : w = mu lambda_N - sum_j beta_j           (sigma = sliding speed; > 0 only on the
//                                                          boundary of the pyramid: max. dissipation)
//     and lambda = (lambda_N, sum_j beta_j d_j). A frictionless contact keeps lambda_N alone.
//   unilateral row (limit, condim-1 contact): lambda >= 0, w = c.
//   equality row: lambda = l+ - l-, w+ = c, w- = -c (both >= 0 and complementary: c = 0).
//   friction loss (bound B = frictionloss h): lambda = f+ - f-, w+ = c + sigma, w- = -c + sigma,
//     w_sigma = B - f+ - f-  (the same structure as one friction direction pair).
// Lemke's algorithm processes these copositive-plus matrices (Anitescu & Potra 1997, cited by the
// Underactuated chapter). Dense: the LCP matrix and the tableau grow as n^2, so the solver refuses
// problems with more than kLcpMaxSize variables or kLcpMaxRows rows (a runtime error that says so).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/messages.h"
#include "solver/ncp/ncp.h"

namespace moreau::ncp {

namespace {

// Variable descriptor (6 doubles): a force variable has kind 0 and rows r1, r2 (-1: none) with
// coefficients a1, a2 (its direction in efc space) and the index of its slack sigma (or -1) in [5];
// a slack has kind 1, the index of its normal variable (or -1) in [1], mu in [2], its first edge
// variable in [3], the number of edges in [4] and the constant term B in [5].
void set_force(double* p, int r1, double a1, int r2, double a2, int sigma) {
  p[0] = 0; p[1] = r1; p[2] = a1; p[3] = r2; p[4] = a2; p[5] = sigma;
}
void set_sigma(double* p, int normal, double mu, int first, int count, double B) {
  p[0] = 1; p[1] = normal; p[2] = mu; p[3] = first; p[4] = count; p[5] = B;
}

void pivot(double* T, int n, int cols, int r, int c) {
  double* row = T + static_cast<size_t>(r) * cols;
  const double inv = 1 / row[c];
  for (int j = 0; j < cols; ++j) row[j] *= inv;
  row[c] = 1;
  for (int i = 0; i < n; ++i) {
    if (i == r) continue;
    double* ri = T + static_cast<size_t>(i) * cols;
    const double f = ri[c];
    if (f == 0) continue;
    for (int j = 0; j < cols; ++j) ri[j] -= f * row[j];
    ri[c] = 0;
  }
}

}  // namespace

int lemke(int n, const double* M, const double* q, double* z, double* work, int max_pivots) {
  // tableau [I | -M | -e | q]: columns w (0..n-1), z (n..2n-1), z0 (2n), right-hand side (2n+1);
  // basis[i] = column of the basic variable of row i
  const int cols = 2 * n + 2, z0 = 2 * n, rhs = 2 * n + 1;
  double* T = work;
  double* basis = work + static_cast<size_t>(n) * cols;
  std::fill_n(z, n, 0.0);
  if (n == 0) return 0;
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (q[i] < q[r]) r = i;
  if (q[r] >= 0) return 0;  // z = 0 solves it
  for (int i = 0; i < n; ++i) {
    double* row = T + static_cast<size_t>(i) * cols;
    std::fill_n(row, cols, 0.0);
    row[i] = 1;
    for (int j = 0; j < n; ++j) row[n + j] = -M[static_cast<size_t>(i) * n + j];
    row[z0] = -1;
    row[rhs] = q[i];
    basis[i] = i;
  }
  // z0 enters at the most negative q; the w that leaves is replaced by its complement next
  pivot(T, n, cols, r, z0);
  int entering = n + static_cast<int>(basis[r]);
  basis[r] = z0;
  int pivots = 1;
  while (true) {
    // ratio test on the entering column; ties broken lexicographically on rows of B^-1 (the w
    // columns of the tableau), z0 leaving first: this rules out cycling on degenerate problems
    double colmax = 0;
    for (int i = 0; i < n; ++i) colmax = std::max(colmax, std::fabs(T[static_cast<size_t>(i) * cols + entering]));
    const double tol = 1e-11 * std::max(colmax, 1.0);
    int best = -1;
    double best_ratio = 0;
    for (int i = 0; i < n; ++i) {
      const double* row = T + static_cast<size_t>(i) * cols;
      const double a = row[entering];
      if (a <= tol) continue;
      const double ratio = std::max(0.0, row[rhs]) / a;
      if (best < 0 || ratio < best_ratio - 1e-12 * std::max(1.0, best_ratio)) {
        best = i;
        best_ratio = ratio;
        continue;
      }
      if (ratio > best_ratio + 1e-12 * std::max(1.0, best_ratio)) continue;
      // tie
      if (static_cast<int>(basis[i]) == z0) { best = i; best_ratio = ratio; continue; }
      if (static_cast<int>(basis[best]) == z0) continue;
      const double* rb = T + static_cast<size_t>(best) * cols;
      const double ab = rb[entering];
      for (int j = 0; j < n; ++j) {
        const double x = row[j] / a, y = rb[j] / ab;
        if (x < y - 1e-14) { best = i; best_ratio = ratio; break; }
        if (x > y + 1e-14) break;
      }
    }
    if (best < 0) return -1;  // secondary ray
    const int leaving = static_cast<int>(basis[best]);
    pivot(T, n, cols, best, entering);
    basis[best] = entering;
    ++pivots;
    if (leaving == z0) break;
    if (pivots > max_pivots) return -2;
    entering = leaving < n ? leaving + n : leaving - n;  // the complement of the leaving variable
  }
  for (int i = 0; i < n; ++i) {
    const int b = static_cast<int>(basis[i]);
    if (b >= n && b < 2 * n) z[b - n] = std::max(0.0, T[static_cast<size_t>(i) * cols + rhs]);
  }
  return pivots;
}

int lcp(const Model& m, Data& d, Work& w) {
  const int nv = m.nv, nefc = d.nefc;
  const double* Jv = constraint::J_values(m, d);
  constexpr double kTwoPi = 6.28318530717958647692;
  w.header[0] = 0;
  if (nefc > kLcpMaxRows)
    internal::raise<std::runtime_error>("lcp: " + std::to_string(nefc) + " constraint rows, more than the " +
                                        std::to_string(kLcpMaxRows) +
                                        " the dense Lemke solver accepts (use raisim-ds or ncp-pgs)");

  // variables
  int n = 0;
  auto need = [&](int k) {
    if (n + k > kLcpMaxSize)
      internal::raise<std::runtime_error>("lcp: the problem needs more than " + std::to_string(kLcpMaxSize) +
                                          " LCP variables (" + std::to_string(nefc) +
                                          " constraint rows), the most the dense Lemke solver accepts (use "
                                          "raisim-ds or ncp-pgs)");
  };
  double* var = w.lcpvar;
  for (int r = 0; r < nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    if (kind == kBilateral) {
      need(2);
      set_force(var + 6 * n++, r, 1, -1, 0, -1);
      set_force(var + 6 * n++, r, -1, -1, 0, -1);
    } else if (kind == kUnilateral) {
      need(1);
      set_force(var + 6 * n++, r, 1, -1, 0, -1);
    } else if (kind == kBox) {
      need(3);
      const int s = n + 2;
      set_force(var + 6 * n++, r, 1, -1, 0, s);
      set_force(var + 6 * n++, r, -1, -1, 0, s);
      set_sigma(var + 6 * n++, -1, 0, s - 2, 2, d.efc_frictionloss[r] * w.h);
    } else {
      const double mu = d.contact[d.efc_id[r]].friction[0];
      const int normal = n;
      need(1);
      set_force(var + 6 * n++, r, 1, -1, 0, -1);
      if (mu > 0) {
        need(kLcpDirections + 1);
        const int s = n + kLcpDirections;
        for (int j = 0; j < kLcpDirections; ++j) {
          const double a = kTwoPi * j / kLcpDirections;
          set_force(var + 6 * n++, r + 1, std::cos(a), r + 2, std::sin(a), s);
        }
        set_sigma(var + 6 * n++, normal, mu, s - kLcpDirections, kLcpDirections, 0);
      }
    }
    r += dim;
  }

  // dense Delassus matrix over the rows
  double* G = w.Gd;
  for (int i = 0; i < nefc; ++i)
    for (int j = i; j < nefc; ++j)
      G[i * nefc + j] = G[j * nefc + i] =
          constraint::dot_row(Jv, d, i, w.MinvJT + static_cast<size_t>(j) * nv);
  auto Gat = [&](int i, int j) { return G[i * nefc + j]; };

  // M and q
  double* M = w.lcpM;
  double* q = w.lcpq;
  std::fill_n(M, static_cast<size_t>(n) * n, 0.0);
  for (int u = 0; u < n; ++u) {
    const double* pu = var + 6 * u;
    double* Mu = M + static_cast<size_t>(u) * n;
    if (pu[0] == 1) {  // slack: w = mu lambda_N - sum beta + B
      if (pu[1] >= 0) Mu[static_cast<int>(pu[1])] = pu[2];
      for (int k = 0; k < static_cast<int>(pu[4]); ++k) Mu[static_cast<int>(pu[3]) + k] = -1;
      q[u] = pu[5];
      continue;
    }
    const int ru1 = static_cast<int>(pu[1]), ru2 = static_cast<int>(pu[3]);
    q[u] = pu[2] * w.g[ru1] + (ru2 >= 0 ? pu[4] * w.g[ru2] : 0);
    for (int v = 0; v < n; ++v) {
      const double* pv = var + 6 * v;
      if (pv[0] == 1) continue;
      const int rv1 = static_cast<int>(pv[1]), rv2 = static_cast<int>(pv[3]);
      double s = pu[2] * pv[2] * Gat(ru1, rv1);
      if (rv2 >= 0) s += pu[2] * pv[4] * Gat(ru1, rv2);
      if (ru2 >= 0) {
        s += pu[4] * pv[2] * Gat(ru2, rv1);
        if (rv2 >= 0) s += pu[4] * pv[4] * Gat(ru2, rv2);
      }
      Mu[v] = s;
    }
    if (pu[5] >= 0) Mu[static_cast<int>(pu[5])] = 1;  // + sigma
  }

  const int pivots = lemke(n, M, q, w.lcpz, w.lemke, 50 * n + 100);
  if (pivots < 0)
    internal::raise<std::runtime_error>(std::string("lcp: Lemke's algorithm ") +
                                        (pivots == -1 ? "ended on a secondary ray" : "exceeded its pivot limit") +
                                        " on an LCP of " + std::to_string(n) + " variables (time " +
                                        std::to_string(d.time) + "): no solution found");
  for (int u = 0; u < n; ++u) {
    double s = q[u];
    for (int v = 0; v < n; ++v) s += M[static_cast<size_t>(u) * n + v] * w.lcpz[v];
    w.lcpw[u] = s;
  }
  w.header[0] = n;

  // impulses in efc space and v = Mt^-1 J' lambda
  std::fill_n(w.lam, nefc, 0.0);
  for (int u = 0; u < n; ++u) {
    const double* pu = var + 6 * u;
    if (pu[0] == 1) continue;
    w.lam[static_cast<int>(pu[1])] += pu[2] * w.lcpz[u];
    if (pu[3] >= 0) w.lam[static_cast<int>(pu[3])] += pu[4] * w.lcpz[u];
  }
  std::fill_n(w.v, nv, 0.0);
  for (int r = 0; r < nefc; ++r) {
    const double l = w.lam[r];
    if (l == 0) continue;
    const double* col = w.MinvJT + static_cast<size_t>(r) * nv;
    for (int k = static_cast<int>(w.lo[r]), e = static_cast<int>(w.hi[r]); k < e; ++k) w.v[k] += l * col[k];
  }
  return pivots;
}

LcpView last_lcp(const Model& m, const Data& d) {
  LcpView view;
  if (m.opt.solver != kSolverLCP || d.work.ncp.empty()) return view;
  Work w = carve(m, const_cast<Data&>(d));
  view.n = static_cast<int>(w.header[0]);
  view.M = w.lcpM;
  view.q = w.lcpq;
  view.z = w.lcpz;
  view.w = w.lcpw;
  return view;
}

}  // namespace moreau::ncp

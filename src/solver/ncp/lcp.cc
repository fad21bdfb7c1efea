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
// Where the LCP has several solutions and Lemke's lets contacts slide, the solver prefers a
// sticking solution: the friction-limited QP's, when it solves the LCP (see lcp() below).
#include <algorithm>
#include <cmath>
#include <memory>
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

// The tableau's scalar: x87 extended precision (64-bit mantissa). Hyperstatic contact sets (a box
// held by two pads and resting on the floor) make bases with condition numbers near 1e10; in
// double precision the tableau's rounding then decides near-ties badly often enough that Lemke
// ends on secondary rays (docs/contact_models.md, "lcp: what the theory guarantees").
using Real = long double;
// Ties of the ratio test: rows whose right-hand side after the pivot is within kTie times max|q|
// of zero; lexicographic comparison: equal to kTie of the compared entries' scale (about 1e4
// roundings of Real).
constexpr Real kTie = 1e-15L;

void pivot(Real* T, int n, int cols, int r, int c) {
  Real* row = T + static_cast<size_t>(r) * cols;
  const Real inv = 1 / row[c];
  for (int j = 0; j < cols; ++j) row[j] *= inv;
  row[c] = 1;
  for (int i = 0; i < n; ++i) {
    if (i == r) continue;
    Real* ri = T + static_cast<size_t>(i) * cols;
    const Real f = ri[c];
    if (f == 0) continue;
    for (int j = 0; j < cols; ++j) ri[j] -= f * row[j];
    ri[c] = 0;
  }
}

}  // namespace

int lemke(int n, const double* M, const double* q, double* z, double* work, int max_pivots) {
  // tableau [I | -M | -e | q]: columns w (0..n-1), z (n..2n-1), z0 (2n), right-hand side (2n+1);
  // basis[i] = column of the basic variable of row i; tie, lex: rows of the ratio test's ties
  const int cols = 2 * n + 2, z0 = 2 * n, rhs = 2 * n + 1;
  const size_t cells = static_cast<size_t>(n) * cols;
  void* at = work;
  size_t space = (cells + 1) * sizeof(Real);
  Real* T = static_cast<Real*>(std::align(alignof(Real), cells * sizeof(Real), at, space));
  std::uninitialized_fill_n(T, cells, Real(0));
  double* basis = work + 2 * cells + 2;
  double* tie = basis + n;
  double* lex = tie + n;
  std::fill_n(z, n, 0.0);
  if (n == 0) return 0;
  // z0 enters at the most negative q; among equal minima the last one, the most negative of the
  // perturbed q + (eps, eps^2, ..., eps^n) that the lexicographic rule solves (every other row of
  // [rhs | B^-1] then starts lexicographically positive)
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (q[i] <= q[r]) r = i;
  if (q[r] >= 0) return 0;  // z = 0 solves it
  for (int i = 0; i < n; ++i) {
    Real* row = T + static_cast<size_t>(i) * cols;
    row[i] = 1;
    for (int j = 0; j < n; ++j) row[n + j] = -M[static_cast<size_t>(i) * n + j];
    row[z0] = -1;
    row[rhs] = q[i];
    basis[i] = i;
  }
  pivot(T, n, cols, r, z0);
  Real qscale = 0;
  for (int i = 0; i < n; ++i) qscale = std::max(qscale, Real(std::fabs(q[i])));
  const Real tol_rhs = kTie * qscale;
  // the w that left is replaced by its complement next
  int entering = n + static_cast<int>(basis[r]);
  basis[r] = z0;
  int pivots = 1;
  while (true) {
    // Minimum-ratio test on the entering column a. Entries at or below tol_a are rounding noise of
    // zeros (pivoting on them would blow the tableau up): they do not bound the step.
    Real colmax = 0;
    for (int i = 0; i < n; ++i) colmax = std::max(colmax, std::fabs(T[static_cast<size_t>(i) * cols + entering]));
    const Real tol_a = 1e-11 * std::max(colmax, Real(1));
    Real theta = INFINITY;
    for (int i = 0; i < n; ++i) {
      const Real* row = T + static_cast<size_t>(i) * cols;
      if (row[entering] > tol_a) theta = std::min(theta, row[rhs] / row[entering]);
    }
    if (theta == INFINITY) return -1;  // secondary ray
    // Ties: rows that the step theta brings to zero up to rounding (rhs - theta a <= tol_rhs).
    // After the pivot they are exactly degenerate (rhs 0); which one leaves is decided
    // lexicographically.
    int ntie = 0;
    bool z0_ties = false;
    for (int i = 0; i < n; ++i) {
      const Real* row = T + static_cast<size_t>(i) * cols;
      if (row[entering] > tol_a && row[rhs] - theta * row[entering] <= tol_rhs) {
        tie[ntie++] = i;
        if (static_cast<int>(basis[i]) == z0) z0_ties = true;
      }
    }
    int best = -1;
    if (z0_ties) {
      // z0 leaving ends the algorithm on a solution
      for (int k = 0; k < ntie; ++k)
        if (static_cast<int>(basis[static_cast<int>(tie[k])]) == z0) best = static_cast<int>(tie[k]);
    } else {
      // Lexicographic rule: the rows of [rhs | B^-1] (B^-1: the w columns) divided by a, compared
      // column by column; keep the smallest (to kTie of the column's scale) until one is left.
      // In exact arithmetic no two rows tie (B^-1 is nonsingular), every row of [rhs | B^-1] stays
      // lexicographically positive and no basis repeats: Lemke's algorithm terminates.
      int nlex = ntie;
      std::copy_n(tie, ntie, lex);
      for (int j = 0; j < n && nlex > 1; ++j) {
        Real vmin = INFINITY, scale = 0;
        for (int k = 0; k < nlex; ++k) {
          const Real* row = T + static_cast<size_t>(lex[k]) * cols;
          const Real v = row[j] / row[entering];
          vmin = std::min(vmin, v);
          scale = std::max(scale, std::fabs(v));
        }
        int kept = 0;
        for (int k = 0; k < nlex; ++k) {
          const Real* row = T + static_cast<size_t>(lex[k]) * cols;
          if (row[j] / row[entering] <= vmin + kTie * scale) lex[kept++] = lex[k];
        }
        nlex = kept;
      }
      // rows equal to rounding in every column (only possible through rounding): the largest pivot
      best = static_cast<int>(lex[0]);
      for (int k = 1; k < nlex; ++k) {
        const int i = static_cast<int>(lex[k]);
        if (T[static_cast<size_t>(i) * cols + entering] > T[static_cast<size_t>(best) * cols + entering]) best = i;
      }
    }
    const int leaving = static_cast<int>(basis[best]);
    pivot(T, n, cols, best, entering);
    basis[best] = entering;
    ++pivots;
    // keep the basis feasible: the tied rows are degenerate (rhs exactly 0), rounding below zero
    // is clipped
    for (int k = 0; k < ntie; ++k) {
      const int i = static_cast<int>(tie[k]);
      if (i != best) T[static_cast<size_t>(i) * cols + rhs] = 0;
    }
    for (int i = 0; i < n; ++i) {
      Real& b = T[static_cast<size_t>(i) * cols + rhs];
      if (b < 0) b = 0;
    }
    if (leaving == z0) break;
    if (pivots > max_pivots) return -2;
    entering = leaving < n ? leaving + n : leaving - n;  // the complement of the leaving variable
  }
  for (int i = 0; i < n; ++i) {
    const int b = static_cast<int>(basis[i]);
    if (b >= n && b < 2 * n) z[b - n] = static_cast<double>(T[static_cast<size_t>(i) * cols + rhs]);
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

  // M and q. P_uv = a_u' G a_v for force variables u, v (a: the variable's direction in efc space).
  double* M = w.lcpM;
  double* q = w.lcpq;
  auto P = [&](const double* pu, const double* pv) {
    const int ru1 = static_cast<int>(pu[1]), ru2 = static_cast<int>(pu[3]);
    const int rv1 = static_cast<int>(pv[1]), rv2 = static_cast<int>(pv[3]);
    double s = pu[2] * pv[2] * Gat(ru1, rv1);
    if (rv2 >= 0) s += pu[2] * pv[4] * Gat(ru1, rv2);
    if (ru2 >= 0) {
      s += pu[4] * pv[2] * Gat(ru2, rv1);
      if (rv2 >= 0) s += pu[4] * pv[4] * Gat(ru2, rv2);
    }
    return s;
  };
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
      Mu[v] = P(pu, pv);
    }
    if (pu[5] >= 0) Mu[static_cast<int>(pu[5])] = 1;  // + sigma
  }

  // Feasibility margin. Lemke's algorithm solves this LCP because q'z >= 0 on SOL(0, M) (see
  // docs/contact_models.md, "lcp: what the theory guarantees"); along the slacks of contacts
  // (q = 0) that holds with equality, so a rounding error of the tableau can make the problem it
  // actually pivots on infeasible (a secondary ray). kLcpMargin times the problem's impulse scale
  // on those rows makes the condition strict: a friction impulse may exceed mu lambda_N by that
  // much. (Friction-loss slacks have q = B > 0 already.)
  double vscale = 0, iscale = 0;
  for (int u = 0; u < n; ++u) {
    if (var[6 * u] == 1) continue;
    const double Muu = M[static_cast<size_t>(u) * n + u];
    vscale = std::max(vscale, std::fabs(q[u]));
    if (Muu > 0) iscale = std::max(iscale, std::fabs(q[u]) / Muu);
  }
  for (int u = 0; u < n; ++u)
    if (var[6 * u] == 1 && var[6 * u + 1] >= 0) q[u] += kLcpMargin * iscale;  // contact slacks (B = 0)

  // Solve, check, and if rounding made Lemke fail or end off the solution, solve again a copy of
  // the problem whose q is raised by a small positive perturbation (pseudo-random per row, so
  // that no two rows tie): a positive perturbation keeps q'z > 0 on SOL(0, M), the condition that
  // Lemke's algorithm ends on a solution, and only moves the ties that rounding resolves badly.
  // Accepted: every row's natural residual |min(z/z_scale, w/w_scale)| <= kLcpAccept.
  auto residual = [&](const double* z) {
    double worst = 0;
    for (int u = 0; u < n; ++u) {
      double s = q[u];
      for (int v = 0; v < n; ++v) s += M[static_cast<size_t>(u) * n + v] * z[v];
      w.lcpw[u] = s;
      const bool slack = var[6 * u] == 1;
      const double zs = std::max(slack ? vscale : iscale, 1e-300), ws = std::max(slack ? iscale : vscale, 1e-300);
      worst = std::max(worst, std::fabs(std::min(z[u] / zs, s / ws)));
    }
    return worst;
  };
  int pivots = 0, attempt = 0, failure = 0;
  double worst = 0;
  for (; attempt < kLcpAttempts; ++attempt) {
    const double* qa = q;
    if (attempt > 0) {
      const double rel = std::pow(10.0, attempt - 11);
      for (int u = 0; u < n; ++u) {
        const double frac = std::fmod(0.6180339887498949 * (u + 1) * (attempt + 1), 1.0);
        w.lcpd[u] = q[u] + rel * (var[6 * u] == 1 ? iscale : vscale) * (1 + frac);
      }
      qa = w.lcpd;
    }
    pivots = lemke(n, M, qa, w.lcpz, w.lemke, 50 * n + 100);
    if (pivots < 0) {
      failure = pivots;
      continue;
    }
    worst = residual(w.lcpz);
    if (worst <= kLcpAccept) break;
    failure = 0;
  }
  if (attempt == kLcpAttempts)
    internal::raise<std::runtime_error>(
        std::string("lcp: Lemke's algorithm ") +
        (failure == -1   ? "ended on a secondary ray"
         : failure == -2 ? "exceeded its pivot limit"
                         : "ended off the solution (residual " + std::to_string(worst) + ")") +
        " on an LCP of " + std::to_string(n) + " variables (time " + std::to_string(d.time) + ") in " +
        std::to_string(kLcpAttempts) + " attempts: no solution found");
  w.header[0] = n;

  // Preference for sticking. On a hyperstatic contact set (a box held between two pads) the LCP
  // can have many solutions, and Lemke's first complementary basis may let contacts slide where
  // others hold. When some contact slides (sigma > kLcpStickReg vscale: slower sliding is below
  // the creep of the QP's own solution), solve the friction-limited QP
  //   min 1/2 z_F' (P + eps I) z_F + q_F' z_F  over  z_F >= 0, sum_j beta_j <= mu lambda_N (per contact)
  // (eps = kLcpStickReg max diag P): the impulse that leaves the least kinetic energy within the
  // pyramids (Anitescu's relaxation on the pyramid), made unique by eps, which spreads a pad's
  // impulse over its contacts. Its KKT conditions are the LCP with
  // M' = M + eps I_F and -mu in the normal row's slack column (the slack sigma is the friction
  // constraint's multiplier): M' + M'^T is positive semi-definite, so Lemke's algorithm solves it.
  // They differ from the original LCP only by c_N = mu sigma on a contact with lambda_N > 0 and by
  // eps z_F: every original solution with all contacts sticking solves the QP for eps = 0, and
  // every QP solution gives the same v+. The QP's solution replaces Lemke's only if it solves the
  // original LCP to kLcpAccept; where contacts must slide (the sliding cube) it does not (it
  // would lift them: c_N = mu sigma > 0), and Lemke's solution stays, bit for bit.
  bool slides = false;
  for (int u = 0; u < n && !slides; ++u)
    slides = var[6 * u] == 1 && var[6 * u + 1] >= 0 && w.lcpz[u] > kLcpStickReg * vscale;
  if (slides) {
    double pmax = 0;
    for (int u = 0; u < n; ++u)
      if (var[6 * u] == 0) pmax = std::max(pmax, M[static_cast<size_t>(u) * n + u]);
    const double eps = kLcpStickReg * pmax;
    for (int u = 0; u < n; ++u) {
      const double* pu = var + 6 * u;
      if (pu[0] == 0) M[static_cast<size_t>(u) * n + u] += eps;
      else if (pu[1] >= 0) M[static_cast<size_t>(pu[1]) * n + u] = -pu[2];
    }
    const int qp_pivots = lemke(n, M, q, w.lcpd, w.lemke, 50 * n + 100);
    // restore M (the diagonal recomputed as it was built, so that M is bitwise the original)
    for (int u = 0; u < n; ++u) {
      const double* pu = var + 6 * u;
      if (pu[0] == 0) M[static_cast<size_t>(u) * n + u] = P(pu, pu);
      else if (pu[1] >= 0) M[static_cast<size_t>(pu[1]) * n + u] = 0;
    }
    if (qp_pivots >= 0) {
      pivots += qp_pivots;
      if (residual(w.lcpd) <= kLcpAccept) std::copy_n(w.lcpd, n, w.lcpz);
      else residual(w.lcpz);  // w.lcpw back to Lemke's solution
    }
  }

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

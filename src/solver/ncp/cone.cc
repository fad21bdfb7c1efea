// Coulomb cone geometry for the hard-contact solvers: membership, Euclidean projection and distance
// for K_mu and its dual, the 3x3 helpers of the per-contact updates, and RaiSim's ellipse problem.
//
// Projection on K_k = {||x_T|| <= k x_N} (k > 0): with t = ||x_T||, x itself if t <= k x_N; 0 if
// k t <= -x_N (x in the polar cone); otherwise the orthogonal projection on the boundary ray
// (1, k)/sqrt(1+k^2) of the half-plane spanned by the normal and x_T:
//   a = (x_N + k t) / (1 + k^2),  P(x) = (a, k a x_T / t).
//
// Ellipse of the sliding case (paper, Sec. II and Fig. 2): on dK ∩ V_N write l_T = r u(theta),
// u = (cos, sin), l_N = r / mu. The plane G_N l + gN = 0 gives
//   r(theta) = -mu gN / d(theta),  d(theta) = G_NN + mu G_NT . u(theta),
// positive when gN < 0 and d > 0 (d > 0 for every theta when mu ||G_NT|| < G_NN: the set is an
// ellipse; otherwise the curve is unbounded and the search stays where d > 0). The objective
// f(theta) = 0.5 l'Gl + b'l has f' = (G l + b) . dl/dtheta with
//   r' = mu gN d' / d^2,  d' = mu G_NT . u',  dl/dtheta = (r'/mu, r' u + r u').
#include <algorithm>
#include <cmath>

#include "solver/ncp/ncp.h"

namespace moreau::ncp {

namespace {

// Projection on {||x_T|| <= k x_N}; k = inf: the half-space x_N >= 0.
void project_slope(double k, const double* x, double* out) {
  const double t = std::sqrt(x[1] * x[1] + x[2] * x[2]);
  if (std::isinf(k)) {
    out[0] = std::max(0.0, x[0]);
    out[1] = x[1];
    out[2] = x[2];
    return;
  }
  if (k <= 0) {  // the ray x_T = 0, x_N >= 0
    out[0] = std::max(0.0, x[0]);
    out[1] = out[2] = 0;
    return;
  }
  if (t <= k * x[0]) {
    std::copy_n(x, 3, out);
    return;
  }
  if (k * t <= -x[0]) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  const double a = (x[0] + k * t) / (1 + k * k);
  const double s = k * a / t;
  out[0] = a;
  out[1] = s * x[1];
  out[2] = s * x[2];
}

double dist_slope(double k, const double* x) {
  double p[3];
  project_slope(k, x, p);
  const double a = x[0] - p[0], b = x[1] - p[1], c = x[2] - p[2];
  return std::sqrt(a * a + b * b + c * c);
}

// The ellipse problem in terms of the direction u = (cos theta, sin theta) of l_T: bisection on the
// angle without trigonometry (the bisector of two directions less than pi apart is the normalized
// sum of their unit vectors).
struct Ellipse {
  const double* G;
  const double* b;
  double gN, mu;
  double dmin;  // smallest d(theta) accepted (away from the asymptotes of an unbounded curve)

  // l(u) and dl/dtheta; false where d <= dmin
  bool point(const double* u, double* l, double* dl) const {
    const double d = G[0] + mu * (G[1] * u[0] + G[2] * u[1]);
    if (d <= dmin) return false;
    const double dd = mu * (-G[1] * u[1] + G[2] * u[0]);
    const double inv = 1 / d;
    const double r = -mu * gN * inv;
    const double dr = -r * dd * inv;
    l[0] = r / mu;
    l[1] = r * u[0];
    l[2] = r * u[1];
    dl[0] = dr / mu;
    dl[1] = dr * u[0] - r * u[1];
    dl[2] = dr * u[1] + r * u[0];
    return true;
  }
  // sign of f'(theta) at u: +1, -1, 0; invalid points count as +2 (a wall: f grows towards it)
  int slope_sign(const double* u, double* l) const {
    double dl[3];
    if (!point(u, l, dl)) return 2;
    double s = 0;
    for (int a = 0; a < 3; ++a) s += (G[3 * a] * l[0] + G[3 * a + 1] * l[1] + G[3 * a + 2] * l[2] + b[a]) * dl[a];
    return s > 0 ? 1 : s < 0 ? -1 : 0;
  }
};

}  // namespace

void project_cone(double mu, const double* x, double* out) { project_slope(mu, x, out); }
double dist_cone(double mu, const double* x) { return dist_slope(mu, x); }
double dist_dual_cone(double mu, const double* x) {
  return dist_slope(mu > 0 ? 1 / mu : INFINITY, x);
}

void ellipse_min(const double* G, const double* b, double gN, double mu, const double* u0, double* lam) {
  const Ellipse e{G, b, gN, mu, 1e-9 * G[0]};
  double u[2] = {u0[0], u0[1]}, l[3];
  const double n0 = std::hypot(u[0], u[1]);
  if (n0 > 0) {
    u[0] /= n0;
    u[1] /= n0;
  } else {
    u[0] = 1;
    u[1] = 0;
  }
  int s0 = e.slope_sign(u, l);
  if (s0 == 2) {  // start outside the valid arc: restart where d(theta) is largest, u ∥ G_NT
    const double n = std::hypot(G[1], G[2]);
    u[0] = G[1] / n;
    u[1] = G[2] / n;
    s0 = e.slope_sign(u, l);
  }
  if (s0 == 0) {
    std::copy_n(l, 3, lam);
    return;
  }
  // bracket: walk downhill by pi/8 until the slope changes sign (at most one turn)
  const double c8 = 0.92387953251128674, s8 = (s0 > 0 ? -1.0 : 1.0) * 0.38268343236508978;
  double lo[2] = {u[0], u[1]}, hi[2];
  bool found = false;
  for (int k = 0; k < 16; ++k) {
    hi[0] = c8 * lo[0] - s8 * lo[1];
    hi[1] = s8 * lo[0] + c8 * lo[1];
    const int s = e.slope_sign(hi, l);
    if (s == 0) {
      std::copy_n(l, 3, lam);
      return;
    }
    if (s != s0) {
      found = true;
      break;
    }
    lo[0] = hi[0];
    lo[1] = hi[1];
  }
  if (!found) {  // no sign change in a full turn (flat objective): keep the start
    e.slope_sign(u, lam);
    return;
  }
  // bisection on the sign of f' (the "dichotomous algorithm" of the paper) down to 1e-10 rad
  double mid[2];
  for (int it = 0; it < 60; ++it) {
    mid[0] = lo[0] + hi[0];
    mid[1] = lo[1] + hi[1];
    const double n = std::sqrt(mid[0] * mid[0] + mid[1] * mid[1]);
    mid[0] /= n;
    mid[1] /= n;
    if (std::fabs(lo[0] * hi[1] - lo[1] * hi[0]) <= 1e-10) break;
    const int s = e.slope_sign(mid, l);
    if (s == 0) {
      std::copy_n(l, 3, lam);
      return;
    }
    double* side = s == s0 ? lo : hi;
    side[0] = mid[0];
    side[1] = mid[1];
  }
  if (e.slope_sign(mid, lam) == 2) e.slope_sign(lo, lam);
}

// ------------------------------------------------------------------------------ scaled cones (ncp.h)

bool in_elliptic_cone(int dim, const double* D, const double* l) {
  if (l[0] < 0) return false;
  double s = 0;
  for (int j = 1; j < dim; ++j) {
    if (D[j] > 0) {
      const double q = l[j] / D[j];
      s += q * q;
    } else if (l[j] != 0) {
      return false;
    }
  }
  return std::sqrt(s) <= l[0];
}

void project_unit_cone(int dim, const double* x, double* out) {
  double t = 0;
  for (int j = 1; j < dim; ++j) t += x[j] * x[j];
  t = std::sqrt(t);
  if (t <= x[0]) {
    std::copy_n(x, dim, out);
    return;
  }
  if (t <= -x[0]) {
    std::fill_n(out, dim, 0.0);
    return;
  }
  const double a = 0.5 * (x[0] + t), s = a / t;
  out[0] = a;
  for (int j = 1; j < dim; ++j) out[j] = s * x[j];
}

double dist_unit_cone(int dim, const double* x) {
  double p[6], e = 0;
  project_unit_cone(dim, x, p);
  for (int j = 0; j < dim; ++j) e += (x[j] - p[j]) * (x[j] - p[j]);
  return std::sqrt(e);
}

void sym_eigen(int n, const double* A, double* w, double* Q) {
  double a[36];
  std::copy_n(A, n * n, a);
  double scale = 0;
  for (int i = 0; i < n * n; ++i) scale += a[i] * a[i];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) Q[i * n + j] = i == j ? 1 : 0;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off <= 1e-32 * scale) break;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        // rotation in the (p, q) plane that zeroes a_pq (Jacobi's method)
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {
          const double kp = a[k * n + p], kq = a[k * n + q];
          a[k * n + p] = c * kp - s * kq;
          a[k * n + q] = s * kp + c * kq;
        }
        for (int k = 0; k < n; ++k) {
          const double pk = a[p * n + k], qk = a[q * n + k];
          a[p * n + k] = c * pk - s * qk;
          a[q * n + k] = s * pk + c * qk;
        }
        for (int k = 0; k < n; ++k) {
          const double kp = Q[k * n + p], kq = Q[k * n + q];
          Q[k * n + p] = c * kp - s * kq;
          Q[k * n + q] = s * kp + c * kq;
        }
      }
    }
  }
  for (int i = 0; i < n; ++i) w[i] = a[i * n + i];
}

namespace {

// sym_factor for a size known at compile time (the loops unroll).
template <int n>
double sym_factor_n(const double* A, double* F) {
  // Cholesky factor L L' of A + eps I, eps = 0, then 1e-10 trace if a pivot is not positive (a
  // block that does not span R^n: the rows without effect get no force, as for the 3x3 blocks);
  // F holds L's strict lower triangle and 1 / L_jj on the diagonal
  double trace = 0;
  for (int i = 0; i < n; ++i) trace += A[i * n + i];
  if (trace > 0) {
    for (double eps : {0.0, 1e-10 * trace}) {
      bool ok = true;
      for (int j = 0; j < n && ok; ++j) {
        double djj = A[j * n + j] + eps;
        for (int k = 0; k < j; ++k) djj -= F[j * n + k] * F[j * n + k];
        if (!(djj > 1e-14 * trace)) {
          ok = false;
          break;
        }
        const double inv = 1 / std::sqrt(djj);
        F[j * n + j] = inv;
        for (int i = j + 1; i < n; ++i) {
          double s = A[i * n + j];
          for (int k = 0; k < j; ++k) s -= F[i * n + k] * F[j * n + k];
          F[i * n + j] = s * inv;
        }
      }
      if (ok) return trace;
    }
  }
  std::fill_n(F, n * n, 0.0);
  return 0;
}

template <int n>
void sym_solve_n(const double* F, const double* b, double* x) {
  if (F[0] == 0) {  // no factor: the zero inverse
    std::fill_n(x, n, 0.0);
    return;
  }
  double y[n];
#pragma GCC unroll 6
  for (int i = 0; i < n; ++i) {
    double s = b[i];
#pragma GCC unroll 6
    for (int k = 0; k < i; ++k) s -= F[i * n + k] * y[k];
    y[i] = s * F[i * n + i];
  }
#pragma GCC unroll 6
  for (int i = n - 1; i >= 0; --i) {
    double s = y[i];
#pragma GCC unroll 6
    for (int k = i + 1; k < n; ++k) s -= F[k * n + i] * x[k];
    x[i] = s * F[i * n + i];
  }
}

}  // namespace

double sym_factor(int n, const double* A, double* F) {
  switch (n) {
    case 1: return sym_factor_n<1>(A, F);
    case 2: return sym_factor_n<2>(A, F);
    case 3: return sym_factor_n<3>(A, F);
    case 4: return sym_factor_n<4>(A, F);
    case 5: return sym_factor_n<5>(A, F);
    case 6: return sym_factor_n<6>(A, F);
    default: return 0;  // n <= 6 (ncp.h)
  }
}

void sym_solve(int n, const double* F, const double* b, double* x) {
  switch (n) {
    case 1: sym_solve_n<1>(F, b, x); return;
    case 2: sym_solve_n<2>(F, b, x); return;
    case 3: sym_solve_n<3>(F, b, x); return;
    case 4: sym_solve_n<4>(F, b, x); return;
    case 5: sym_solve_n<5>(F, b, x); return;
    case 6: sym_solve_n<6>(F, b, x); return;
    default: return;  // n <= 6 (ncp.h)
  }
}

namespace {

// The sliding problem of a scaled cone in the eigenbasis of A (ncp.h): min 0.5 x'Wx + a'x subject
// to ||x|| + beta.x <= alpha, W = diag(w) > 0.
struct Sliding {
  int n;
  const double* w;
  const double* a;
  const double* beta;
  double wmin, wmax;

  // x(nu) = argmin 0.5 x'Wx + (a + nu beta)'x + nu ||x||; returns ||x|| + beta.x. With c = a + nu beta: x = 0 if ||c|| <= nu, otherwise
  // x_i = -c_i t / (w_i t + nu) where t = ||x|| solves sum c_i^2 / (w_i t + nu)^2 = 1 (a decreasing
  // function of t: one root, bracketed by (||c|| - nu) / w_max and (||c|| - nu) / w_min), found by
  // Newton on psi(t) = 1/||q(t)|| - 1, q_i = c_i / (w_i t + nu), safeguarded by the bracket.
  double eval(double nu, double* x) const {
    double c[5], cn = 0;
    for (int i = 0; i < n; ++i) {
      c[i] = a[i] + nu * beta[i];
      cn += c[i] * c[i];
    }
    cn = std::sqrt(cn);
    if (cn <= nu) {
      std::fill_n(x, n, 0.0);
      return 0;
    }
    if (nu == 0) {
      for (int i = 0; i < n; ++i) x[i] = -c[i] / w[i];
    } else {
      double lo = (cn - nu) / wmax, hi = (cn - nu) / wmin, t = lo;
      for (int it = 0; it < 100; ++it) {
        double s2 = 0, ds = 0;
        for (int i = 0; i < n; ++i) {
          const double den = w[i] * t + nu, q = c[i] / den;
          s2 += q * q;
          ds += q * q * w[i] / den;
        }
        const double qn = std::sqrt(s2), psi = 1 / qn - 1;
        if (psi == 0) break;
        if (psi < 0) lo = t;
        else hi = t;
        double next = t - psi * s2 * qn / ds;
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const bool done = std::fabs(next - t) <= 1e-15 * next;
        t = next;
        if (done) break;
      }
      for (int i = 0; i < n; ++i) x[i] = -c[i] * t / (w[i] * t + nu);
    }
    double nx = 0, bx = 0;
    for (int i = 0; i < n; ++i) {
      nx += x[i] * x[i];
      bx += beta[i] * x[i];
    }
    return std::sqrt(nx) + bx;
  }
};

// The minimizer of 0.5 x'Wx + a'x subject to ||x|| + beta.x <= alpha0 + alpha1 nu, where nu is the
// constraint's own multiplier (alpha1 = 0: the plane V_N of (7); alpha1 = 1/G_NN: the cone
// constraint of (12) with z_N eliminated, whose value z_N = alpha0 + alpha1 nu - beta.x moves with
// nu). x(0) if it satisfies the constraint; otherwise x(nu*) with the constraint active:
// h(nu) = ||x(nu)|| + beta.x(nu) - alpha0 - alpha1 nu does not increase (the derivative of the
// concave dual), so nu* is bracketed and found by the Illinois variant of regula falsi. The bracket
// grows from guess (the block's nu* of the previous sweep, 0 if none) by steps of 1% of it that
// quadruple, or else by doubling from ||a||: between sweeps nu* moves little, so the bracket is
// tight and regula falsi takes few evaluations. Returns nu*.
double sliding_min(const Sliding& s, double alpha0, double alpha1, double guess, double* x) {
  auto h = [&](double nu) { return s.eval(nu, x) - alpha0 - alpha1 * nu; };
  const double f0 = h(0);
  if (f0 <= 0) return 0;
  double lo = 0, flo = f0, hi, fhi;
  if (guess > 0) {
    const double fg = h(guess);
    double step = 0.01 * guess;
    if (fg > 0) {  // nu* > guess: walk up
      lo = guess;
      flo = fg;
      hi = guess + step;
      fhi = h(hi);
      for (int k = 0; k < 200 && fhi > 0; ++k) {
        lo = hi;
        flo = fhi;
        step *= 4;
        hi = lo + step;
        fhi = h(hi);
      }
    } else {  // nu* <= guess: walk down, at most to 0 (h(0) > 0)
      hi = guess;
      fhi = fg;
      for (int k = 0; k < 200; ++k) {
        const double nu = hi - step;
        if (!(nu > 0)) break;
        const double f = h(nu);
        if (f > 0) {
          lo = nu;
          flo = f;
          break;
        }
        hi = nu;
        fhi = f;
        step *= 4;
      }
    }
  } else {
    double an = 0;
    for (int i = 0; i < s.n; ++i) an += s.a[i] * s.a[i];
    hi = std::max(std::sqrt(an), 1e-300);
    fhi = h(hi);
    for (int k = 0; k < 200 && fhi > 0; ++k) {
      lo = hi;
      flo = fhi;
      hi *= 2;
      fhi = h(hi);
    }
  }
  if (fhi > 0) return hi;
  const double scale = std::fabs(alpha0) + alpha1 * hi;
  const double tol = 1e-14 * (scale > 0 ? scale : 1.0);
  int side = 0;
  for (int it = 0; it < 100 && fhi < -tol; ++it) {
    double nu = (lo * fhi - hi * flo) / (fhi - flo);
    if (!(nu > lo && nu < hi)) nu = 0.5 * (lo + hi);
    const double f = h(nu);
    if (std::fabs(f) <= tol || hi - lo <= 1e-15 * hi) return nu;
    if (f > 0) {
      lo = nu;
      flo = f;
      if (side == -1) fhi *= 0.5;
      side = -1;
    } else {
      hi = nu;
      fhi = f;
      if (side == 1) flo *= 0.5;
      side = 1;
    }
  }
  h(hi);  // the feasible end of the bracket
  return hi;
}

}  // namespace

void raisim_scaled(int dim, const double* G, const double* Gfac, const double* D, double* eig,
                   double* nu_last, const double* gt, const double* lam, bool desaxce, double* out) {
  if (gt[0] > 0) {  // takeoff
    std::fill_n(out, dim, 0.0);
    return;
  }
  double lv0[6] = {0, 0, 0, 0, 0, 0};
  sym_solve(dim, Gfac, gt, lv0);
  for (int a = 0; a < dim; ++a) lv0[a] = -lv0[a];
  if (in_elliptic_cone(dim, D, lv0)) {  // stiction
    std::copy_n(lv0, dim, out);
    return;
  }
  const double GNN = G[0];
  if (!(GNN > 0)) {
    std::fill_n(out, dim, 0.0);
    return;
  }
  // sliding: the problem's constant data in z (once per solve): A = Schur complement of the
  // normal entry of D G D, its eigen-decomposition, beta in that basis
  const int n = dim - 1;
  double* w = eig + 1;
  double* bt = w + n;
  double* Q = bt + n;
  if (eig[0] == 0) {
    double A[25] = {}, beta[5] = {};
    for (int i = 0; i < n; ++i) beta[i] = D[i + 1] * G[(i + 1) * dim] / GNN;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        A[i * n + j] = D[i + 1] * G[(i + 1) * dim + j + 1] * D[j + 1] - beta[i] * beta[j] * GNN;
    sym_eigen(n, A, w, Q);
    double wmax = 0;
    for (int i = 0; i < n; ++i) wmax = std::max(wmax, w[i]);
    for (int i = 0; i < n; ++i) w[i] = std::max(w[i], wmax > 0 ? 1e-12 * wmax : 1e-300);
    for (int k = 0; k < n; ++k) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += Q[i * n + k] * beta[i];
      bt[k] = s;
    }
    eig[0] = 1;
  }
  // the objective's linear term b (with de Saxce's correction for raisim-ds), in z and the basis
  double b0 = gt[0];
  if (desaxce) {
    double g2 = 0;
    for (int j = 1; j < dim; ++j) {
      double cj = gt[j];
      for (int k = 0; k < dim; ++k) cj += G[j * dim + k] * lam[k];
      g2 += D[j] * D[j] * cj * cj;
    }
    b0 += std::sqrt(g2);
  }
  double at[5];
  for (int k = 0; k < n; ++k) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += Q[i * n + k] * D[i + 1] * gt[i + 1];
    at[k] = s - b0 * bt[k];
  }
  double wmin = w[0], wmax = w[0];
  for (int i = 1; i < n; ++i) {
    wmin = std::min(wmin, w[i]);
    wmax = std::max(wmax, w[i]);
  }
  // raisim: (7) over K_1 ∩ V_N, the plane G_N z + g~_N = 0 (alpha = -g~_N / G_NN);
  // raisim-ds: (12) over K_1, z_N = (nu - b_N) / G_NN - beta.x (ncp.h)
  const Sliding s{n, w, at, bt, wmin, wmax};
  const double alpha0 = desaxce ? -b0 / GNN : -gt[0] / GNN, alpha1 = desaxce ? 1 / GNN : 0;
  double xt[5];
  const double nu = sliding_min(s, alpha0, alpha1, *nu_last, xt);
  *nu_last = nu;
  double zN = alpha0 + alpha1 * nu;
  for (int k = 0; k < n; ++k) zN -= bt[k] * xt[k];
  out[0] = zN;
  for (int i = 0; i < n; ++i) {
    double x = 0;
    for (int k = 0; k < n; ++k) x += Q[i * n + k] * xt[k];
    out[i + 1] = D[i + 1] * x;
  }
}

void projected_scaled(int dim, const double* D, const double* c, double rho, const double* lam,
                      bool desaxce, double* out) {
  double x[6] = {}, cz[6] = {}, g2 = 0;
  for (int j = 0; j < dim; ++j) cz[j] = D[j] * c[j];
  for (int j = 1; j < dim; ++j) g2 += cz[j] * cz[j];
  x[0] = lam[0] - rho * (cz[0] + (desaxce ? std::sqrt(g2) : 0));
  for (int j = 1; j < dim; ++j) x[j] = (D[j] > 0 ? lam[j] / D[j] : 0) - rho * cz[j];
  project_unit_cone(dim, x, out);
  for (int j = 1; j < dim; ++j) out[j] *= D[j];
}

double max_eigenvalue3(const double* A) {
  const double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  const double q = (A[0] + A[4] + A[8]) / 3;
  const double a = A[0] - q, b = A[4] - q, c = A[8] - q;
  const double p2 = a * a + b * b + c * c + 2 * p1;
  if (p2 <= 1e-300) return q;
  const double p = std::sqrt(p2 / 6);
  // B = (A - q I) / p; r = det(B) / 2 in [-1, 1]
  const double B0 = a / p, B4 = b / p, B8 = c / p, B1 = A[1] / p, B2 = A[2] / p, B5 = A[5] / p;
  const double det = B0 * (B4 * B8 - B5 * B5) - B1 * (B1 * B8 - B5 * B2) + B2 * (B1 * B5 - B4 * B2);
  const double r = std::clamp(det / 2, -1.0, 1.0);
  return q + 2 * p * std::cos(std::acos(r) / 3);
}

bool invert3(const double* A, double* Ainv) {
  const double c0 = A[4] * A[8] - A[5] * A[7];
  const double c1 = A[5] * A[6] - A[3] * A[8];
  const double c2 = A[3] * A[7] - A[4] * A[6];
  const double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
  if (!(std::fabs(det) > 0)) return false;
  const double s = 1 / det;
  Ainv[0] = c0 * s;
  Ainv[1] = (A[2] * A[7] - A[1] * A[8]) * s;
  Ainv[2] = (A[1] * A[5] - A[2] * A[4]) * s;
  Ainv[3] = c1 * s;
  Ainv[4] = (A[0] * A[8] - A[2] * A[6]) * s;
  Ainv[5] = (A[2] * A[3] - A[0] * A[5]) * s;
  Ainv[6] = c2 * s;
  Ainv[7] = (A[1] * A[6] - A[0] * A[7]) * s;
  Ainv[8] = (A[0] * A[4] - A[1] * A[3]) * s;
  return true;
}

}  // namespace moreau::ncp

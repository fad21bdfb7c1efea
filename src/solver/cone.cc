// Elliptic friction cones (computation chapter, "Friction cones", "Reduced primal problem").
//
// Primal: for one contact with rows z = Jaref (normal z0, friction z_j with coefficients mu_j =
// friction[j-1]) the constraint cost is the squared R^-1-weighted distance from z to the dual cone
// K* = {w0 >= sqrt(sum mu_j^2 w_j^2)}. Because the regularizer is built so that R_j mu_j^2 is the
// same for every friction row (impedance.cc), scaling by R^-1/2 turns K* into a circular cone of
// slope mu = contact.mu, and the projection is analytic. With T = sqrt(sum (mu_j z_j)^2):
//   top zone    z0 >= T               (z in K*):   s = 0, force 0                       satisfied
//   bottom zone mu^2 z0 + T <= 0      (-z in K):   s = 0.5 sum D_i z_i^2, force -D z     quadratic
//   middle zone otherwise:                          s = 0.5 Dm (z0 - T)^2, Dm = D0/(1+mu^2)   cone
//     force_0 = -Dm (z0 - T), force_j = Dm (z0 - T) mu_j^2 z_j / T,
//     Hessian = Dm (e0 - dT)(e0 - dT)' - Dm (z0 - T) d2T, dT_j = mu_j^2 z_j / T,
//     d2T_jk = mu_j^2 delta_jk / T - mu_j^2 z_j mu_k^2 z_k / T^3.
// s is convex and once continuously differentiable.
//
// Dual (PGS): the per-contact update of the chapter: first optimize along the ray from the cone's
// tip through the current force, then, with the normal force fixed, optimize the friction forces
// in the ellipse sum f_j^2/mu_j^2 <= f0^2 (a QCQP solved through its scalar dual by Newton's method).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

double elliptic_eval(const Model& m, Data& d, int i0, const double* Jaref, double* force,
                     int* state, bool hessian) {
  Contact& con = d.contact[d.efc_id[i0]];
  const int dim = con.dim;
  const double* z = Jaref + i0;
  const double* D = d.efc_D.data() + i0;
  const double mu = con.mu;
  double T2 = 0;
  for (int j = 1; j < dim; ++j) T2 += con.friction[j - 1] * con.friction[j - 1] * z[j] * z[j];
  const double T = std::sqrt(T2);
  const double N = z[0];
  double* H = con.H;
  if (hessian) std::fill_n(H, 36, 0.0);
  if (N >= T) {  // top zone
    for (int j = 0; j < dim; ++j) { force[i0 + j] = 0; state[i0 + j] = kCnstrSatisfied; }
    return 0;
  }
  if (mu * mu * N + T <= 0) {  // bottom zone
    double cost = 0;
    for (int j = 0; j < dim; ++j) {
      force[i0 + j] = -D[j] * z[j];
      state[i0 + j] = kCnstrQuadratic;
      cost += 0.5 * D[j] * z[j] * z[j];
      if (hessian) H[j * dim + j] = D[j];
    }
    return cost;
  }
  // middle zone
  const double Dm = D[0] / (1 + mu * mu);
  const double delta = N - T;
  const double Ts = std::max(T, kMinVal);
  force[i0] = -Dm * delta;
  state[i0] = kCnstrCone;
  double dT[6] = {0};
  for (int j = 1; j < dim; ++j) {
    const double mj2 = con.friction[j - 1] * con.friction[j - 1];
    dT[j] = mj2 * z[j] / Ts;
    force[i0 + j] = Dm * delta * dT[j];
    state[i0 + j] = kCnstrCone;
  }
  if (hessian) {
    double u[6];
    u[0] = 1;
    for (int j = 1; j < dim; ++j) u[j] = -dT[j];
    for (int a = 0; a < dim; ++a)
      for (int b = 0; b < dim; ++b) H[a * dim + b] = Dm * u[a] * u[b];
    for (int a = 1; a < dim; ++a) {
      const double ma2 = con.friction[a - 1] * con.friction[a - 1];
      H[a * dim + a] -= Dm * delta * ma2 / Ts;
      for (int b = 1; b < dim; ++b) H[a * dim + b] += Dm * delta * dT[a] * dT[b] / Ts;
    }
  }
  return 0.5 * Dm * delta * delta;
}

void elliptic_line_prepare(const Data& d, int i0, const double* Jaref, const double* jv,
                           double* c) {
  const Contact& con = d.contact[d.efc_id[i0]];
  const int dim = con.dim;
  const double* z = Jaref + i0;
  const double* v = jv + i0;
  const double* D = d.efc_D.data() + i0;
  double A = 0, B = 0, C = 0, Dzz = 0, Dzv = 0, Dvv = 0;
  for (int j = 1; j < dim; ++j) {
    const double mj2 = con.friction[j - 1] * con.friction[j - 1];
    A += mj2 * z[j] * z[j];
    B += mj2 * z[j] * v[j];
    C += mj2 * v[j] * v[j];
  }
  for (int j = 0; j < dim; ++j) {
    Dzz += D[j] * z[j] * z[j];
    Dzv += D[j] * z[j] * v[j];
    Dvv += D[j] * v[j] * v[j];
  }
  c[0] = A; c[1] = B; c[2] = C; c[3] = z[0]; c[4] = v[0];
  c[5] = Dzz; c[6] = Dzv; c[7] = Dvv;
  c[8] = D[0] / (1 + con.mu * con.mu);
}

void elliptic_line(const double* c, double mu, double alpha, double* value, double* d1,
                   double* d2) {
  const double A = c[0], B = c[1], C = c[2], v0 = c[4];
  const double N = c[3] + alpha * v0;
  const double T2 = std::max(0.0, A + alpha * (2 * B + alpha * C));
  const double T = std::sqrt(T2);
  if (N >= T) return;  // top zone
  if (mu * mu * N + T <= 0) {
    // bottom zone: sum_j 0.5 D_j (z_j + alpha v_j)^2
    *value += 0.5 * (c[5] + alpha * (2 * c[6] + alpha * c[7]));
    *d1 += c[6] + alpha * c[7];
    *d2 += c[7];
    return;
  }
  const double Dm = c[8];
  const double Ts = std::max(T, kMinVal);
  const double Tp = (B + alpha * C) / Ts;
  const double Tpp = (C - Tp * Tp) / Ts;
  const double delta = N - T;
  *value += 0.5 * Dm * delta * delta;
  *d1 += Dm * delta * (v0 - Tp);
  *d2 += Dm * ((v0 - Tp) * (v0 - Tp) - delta * Tpp);
}

namespace {

// Solve (B + lambda I) x = c for n <= 5 by Cholesky; returns false if not positive definite.
bool small_solve(int n, const double* B, double lambda, const double* c, double* x) {
  double L[25];
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      double s = B[i * n + j] + (i == j ? lambda : 0);
      for (int k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      if (i == j) {
        if (s <= 0) return false;
        L[i * n + i] = std::sqrt(s);
      } else {
        L[i * n + j] = s / L[j * n + j];
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    double s = c[i];
    for (int k = 0; k < i; ++k) s -= L[i * n + k] * x[k];
    x[i] = s / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = x[i];
    for (int k = i + 1; k < n; ++k) s -= L[k * n + i] * x[k];
    x[i] = s / L[i * n + i];
  }
  return true;
}

}  // namespace

void elliptic_block(int dim, const double* friction, const double* A, const double* g, double* f) {
  // (1) ray from the tip of the cone through the current force (normal direction if f = 0)
  double u[6] = {0};
  bool zero = true;
  for (int j = 0; j < dim; ++j) { u[j] = f[j]; zero = zero && f[j] == 0; }
  if (zero) u[0] = 1;
  double uAu = 0, ug = 0, uAf = 0;
  for (int a = 0; a < dim; ++a) {
    ug += u[a] * g[a];
    for (int b = 0; b < dim; ++b) uAu += u[a] * A[a * dim + b] * u[b];
  }
  (void)uAf;
  const double t = uAu > kMinVal ? std::max(0.0, -ug / uAu) : 0.0;
  for (int j = 0; j < dim; ++j) f[j] = t * u[j];
  if (dim == 1) return;
  elliptic_friction(dim, friction, A, g, f);
}

void elliptic_friction(int dim, const double* friction, const double* A, const double* g, double* f) {
  // (2) friction forces within the ellipse, normal force fixed
  const int n = dim - 1;
  const double f0 = f[0];
  if (f0 <= 0) {
    for (int j = 1; j < dim; ++j) f[j] = 0;
    return;
  }
  // scaled variables w_j = f_j / mu_j: minimize 0.5 w'Bw + w'c subject to |w| <= f0
  double B[25] = {0}, c[5] = {0}, w[5] = {0};
  for (int a = 0; a < n; ++a) {
    const double ma = friction[a];
    c[a] = ma * (g[1 + a] + A[(1 + a) * dim] * f0);
    for (int b = 0; b < n; ++b) B[a * n + b] = ma * A[(1 + a) * dim + 1 + b] * friction[b];
  }
  for (int a = 0; a < n; ++a) c[a] = -c[a];  // solve (B + lambda I) w = -c
  if (!small_solve(n, B, 0, c, w)) return;
  double nw = 0;
  for (int a = 0; a < n; ++a) nw += w[a] * w[a];
  nw = std::sqrt(nw);
  if (nw > f0) {
    // secular equation 1/|w(lambda)| = 1/f0, Newton from lambda = 0 (monotone convergence)
    double lambda = 0;
    for (int it = 0; it < 30; ++it) {
      double y[5];
      small_solve(n, B, lambda, w, y);  // y = (B + lambda I)^-1 w
      double wy = 0;
      for (int a = 0; a < n; ++a) wy += w[a] * y[a];
      const double phi = 1 / nw - 1 / f0;
      const double dphi = wy / (nw * nw * nw);
      const double step = phi / dphi;
      lambda -= step;  // Newton: lambda - phi/phi'
      if (!small_solve(n, B, lambda, c, w)) break;
      nw = 0;
      for (int a = 0; a < n; ++a) nw += w[a] * w[a];
      nw = std::sqrt(nw);
      if (std::fabs(step) <= 1e-14 * (1 + lambda) || std::fabs(nw - f0) <= 1e-14 * f0) break;
    }
    if (nw > f0) for (int a = 0; a < n; ++a) w[a] *= f0 / nw;
  }
  for (int a = 0; a < n; ++a) f[1 + a] = friction[a] * w[a];
}

}  // namespace moreau::solver

// Gauss-Seidel solvers of the hard-contact problem (ncp.h): one sweep visits every block in row
// order and replaces its impulse given the current impulses of the others. With z = sum_r u_r
// lambda_r kept up to date (the rows in dual form, ncp.h), the velocity of block i is
// c_i = g_i + u_i . z (= g_i + J_i Mt^-1 J' lambda), and the free velocity of block i "as if it
// were free" (paper, Sec. II) is g~_i = c_i - G_ii lambda_i. At the end v = Mt^-1 J' lambda comes
// from z by one substitution.
//
// 3D contacts, by solver:
//   raisim    RaiSim's per-contact update (paper, Sec. II; Alg. 1 without lines 10-11): takeoff if
//             g~_N > 0 (lambda = 0); stiction if lambda_v0 = -G_ii^-1 g~ lies in K_mu; otherwise
//             sliding: the minimum of (7) on the ellipse dK ∩ V_N by bisection on the polar angle.
//   raisim-ds Alg. 1: the same with de Saxce's correction in the sliding case (lines 10-12):
//             g_cor = g~ + Gamma(G_ii lambda_i + g~), minimum of (13) on the same ellipse.
//             Both raisim solvers relax each contact update, lambda <- (1-alpha) lambda +
//             alpha lambda*, alpha <- gamma alpha + (1-gamma) alpha_min (lines 14-15; alpha decays
//             per contact update, as Alg. 1 counts them).
//   ncp-pgs   projected Gauss-Seidel on the NCP (6) with de Saxce's function: lambda <-
//             P_K(lambda - rho (c + Gamma(c))), rho = 1/lambda_max(G_ii); its fixed points are
//             exactly the solutions of (6) (lambda = P_K(lambda - rho y) <=> K ∋ lambda ⊥ y ∈ K*).
//   ccp       the same projection without Gamma: Anitescu's cone complementarity problem, the
//             optimality conditions of the convex problem min 0.5 l'Gl + g'l over K (block
//             coordinate descent with step 1/L: monotone).
// 1D rows (all solvers): the exact 1D minimizer lambda - c/G_ii, projected on R (equality), R+
// (limit, frictionless contact) or [-frictionloss h, frictionloss h] (friction loss), not relaxed:
// the relaxation stabilizes RaiSim's non-convex contact update, while a projected 1D minimization
// is a step of coordinate descent on a convex problem that needs none (relaxing it too slowed the
// friction-loss rows of legged robots, which then held the sweeps far from convergence).
// Acceleration (raisim, raisim-ds): on a hyperstatic stance (a legged robot's feet and the
// friction loss of its joints) G is nearly singular, and Gauss-Seidel crawls along a direction of
// internal forces (two joints' friction loss against the feet's tangential forces) that barely
// changes the motion: each sweep moves lambda by the same small step, for hundreds of sweeps,
// until a friction-loss row reaches its bound. While every contact sticks, the sweeps are block
// coordinate descent on q(l) = 0.5 l'Gl + g'l over the blocks' sets, and after such a sweep that
// did not converge a face step (face_step below: Newton steps on q over the face of the active
// set, with the bounds met on the way) jumps to where the crawl ends. Where it does not apply and
// two successive sweeps change lambda in nearly the same direction (cosine > kDriftCos), one exact
// line search on q along the last change does (drift extrapolation). Where a contact slides, the
// sweeps are no descent on q, but the same crawl continues at a nearly constant rate, and
// extrapolating its geometric series (slide_extrapolate) shortens it; the next sweep undoes that
// step if it moves lambda more than the sweep before it. The sweeps then go on, and the stopping
// test is unchanged: the steps only shorten the way to the same fixed points.
// Stopping test: max |delta lambda| <= tolerance * max |lambda| over a sweep (a relative criterion,
// as RaiSim's), or opt.iterations sweeps.
#include <algorithm>
#include <cmath>

#include "solver/ncp/ncp.h"

namespace moreau::ncp {

namespace {

inline void mul3(const double* A, const double* x, double* y) {
  for (int a = 0; a < 3; ++a) y[a] = A[3 * a] * x[0] + A[3 * a + 1] * x[1] + A[3 * a + 2] * x[2];
}

// g~ = c - G lambda of a block (dim x dim; DIM = 0: dim known at run time only).
template <int DIM>
inline void free_velocity(const double* G, const double* lam, const double* c, double* gt, int dim_ = DIM) {
  const int dim = DIM > 0 ? DIM : dim_;
#pragma GCC unroll 6
  for (int a = 0; a < dim; ++a) {
    double Gl = 0;
#pragma GCC unroll 6
    for (int b = 0; b < dim; ++b) Gl += G[a * dim + b] * lam[b];
    gt[a] = c[a] - Gl;
  }
}

// RaiSim's update of one contact (Alg. 1, lines 2-12), with or without de Saxce's correction.
void raisim_contact(const double* G, const double* Ginv, double mu, const double* gt,
                    const double* lam, bool desaxce, double* out) {
  if (gt[0] > 0) {  // takeoff (line 5)
    out[0] = out[1] = out[2] = 0;
    return;
  }
  double lv0[3];
  mul3(Ginv, gt, lv0);
  for (double& x : lv0) x = -x;
  if (in_cone(mu, lv0)) {  // stiction (line 7)
    std::copy_n(lv0, 3, out);
    return;
  }
  if (mu <= 0) {  // frictionless contact: the plane V_N with l_T = 0
    out[0] = G[0] > 0 ? -gt[0] / G[0] : 0;
    out[1] = out[2] = 0;
    return;
  }
  // sliding (lines 10-12): the objective's linear term, corrected or not
  double b[3] = {gt[0], gt[1], gt[2]};
  if (desaxce) {
    double c[3];
    mul3(G, lam, c);
    for (int a = 0; a < 3; ++a) c[a] += gt[a];
    b[0] += mu * std::sqrt(c[1] * c[1] + c[2] * c[2]);
  }
  double lcor[3];
  mul3(Ginv, b, lcor);
  // start from the direction of lambda_v0^cor = -G^-1 b, the point the ellipse's closest point
  // (in the G metric) is sought for (Fig. 2)
  const bool tangent = lcor[1] != 0 || lcor[2] != 0;
  const double u0[2] = {tangent ? -lcor[1] : lv0[1], tangent ? -lcor[2] : lv0[2]};
  ellipse_min(G, b, gt[0], mu, u0, out);
}

// Projected step on the cone, with (ncp-pgs) or without (ccp) de Saxce's function.
void projected_contact(const double* c, double rho, double mu, const double* lam, bool desaxce,
                       double* out) {
  double x[3];
  const double gamma = desaxce ? mu * std::sqrt(c[1] * c[1] + c[2] * c[2]) : 0;
  x[0] = lam[0] - rho * (c[0] + gamma);
  x[1] = lam[1] - rho * c[1];
  x[2] = lam[2] - rho * c[2];
  project_cone(mu, x, out);
}

// sum of x[k] y[k] over [lo, hi), two products per operation
inline double dot_range(const double* x, const double* y, int lo, int hi) {
  typedef double Pair __attribute__((vector_size(16), aligned(8)));
  Pair s = {0, 0};
  int k = lo;
  for (; k + 2 <= hi; k += 2)
    s += *reinterpret_cast<const Pair*>(x + k) * *reinterpret_cast<const Pair*>(y + k);
  double r = s[0] + s[1];
  if (k < hi) r += x[k] * y[k];
  return r;
}

// Whether the impulse l of a contact block lies strictly inside its cone (a sticking contact).
// The scaled tangential norm ||(l_j / mu_j)_j>0|| of a contact block's impulse l (its cone's
// radius at l), infinite where a component with mu_j = 0 is non-zero.
double cone_radius(const Contact& con, int dim, const double* l) {
  double D[6];
  cone_scale(con, D);
  double t = 0;
  for (int a = 1; a < dim; ++a) {
    if (D[a] > 0) t += (l[a] / D[a]) * (l[a] / D[a]);
    else if (l[a] != 0) return HUGE_VAL;
  }
  return std::sqrt(t);
}

bool inside_cone(const Contact& con, int dim, const double* l) {
  return cone_radius(con, dim, l) < (1 - 1e-9) * l[0];
}

// Largest t' in [0, t] with l + t' e feasible for the block of kind and size dim at row r
// (l, e: its impulse and direction): inside its box (friction loss), non-negative (unilateral),
// inside its cone (0.99 of the way to the boundary, so that a sticking contact stays strictly
// inside); 0 if a moving contact block is on its cone's boundary.
double block_step(const Data& d, const Work& w, int r, Kind kind, int dim, const double* l,
                  const double* e, double t) {
  if (kind == kBox) {
    const double B = d.efc_frictionloss[r] * w.h;
    if (e[0] > 0) t = std::min(t, (B - l[0]) / e[0]);
    else if (e[0] < 0) t = std::min(t, (-B - l[0]) / e[0]);
  } else if (kind == kUnilateral) {
    if (e[0] < 0) t = std::min(t, -l[0] / e[0]);
  } else if (kind == kCone) {
    bool moving = false;
    for (int a = 0; a < dim; ++a) moving = moving || e[a] != 0;
    if (moving) {
      double D[6];
      cone_scale(d.contact[d.efc_id[r]], D);
      double zz = 0, zd = 0, dd = 0;
      for (int a = 1; a < dim; ++a) {
        if (D[a] > 0) {
          const double z = l[a] / D[a], y = e[a] / D[a];
          zz += z * z;
          zd += z * y;
          dd += y * y;
        } else if (e[a] != 0) {
          return 0;
        }
      }
      const double A = dd - e[0] * e[0], B = zd - l[0] * e[0], C = zz - l[0] * l[0];
      if (!(C < 0) || !(l[0] > 0)) return 0;  // on the cone's boundary
      // ||z_T + t y_T||^2 - (z_N + t y_N)^2 = A t^2 + 2 B t + C <= 0 and z_N + t y_N >= 0
      if (e[0] < 0) t = std::min(t, -l[0] / e[0]);
      const double disc = B * B - A * C;
      if (A != 0 && disc >= 0) {
        const double sq = std::sqrt(disc);
        for (double root : {(-B + sq) / A, (-B - sq) / A})
          if (root > 0) t = std::min(t, 0.99 * root);
      } else if (A == 0 && B > 0) {
        t = std::min(t, 0.99 * (-C / (2 * B)));
      }
    }
  }
  return std::max(t, 0.0);
}

// Largest t >= 0 (up to tmax) with lambda + t dl feasible for every block (block_step).
double feasible_step(const Data& d, const Work& w, const double* dl, double tmax) {
  double t = tmax;
  for (int r = 0; r < d.nefc && t > 0;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    t = block_step(d, w, r, kind, dim, w.lam + r, dl + r, t);
    r += dim;
  }
  return t;
}

// Drift extrapolation: lambda += t dl, z += t dz (dz = sum u_r dl_r, the sweep's changes), t the
// minimizer of q(l) = 0.5 l'Gl + g'l along dl (q'(0) = c.dl = g.dl + z.dz, q'' = dl'G dl = dz.dz),
// cut where a block would leave its feasible set, at most kDriftMaxStep. False (nothing changed)
// unless dl descends q and t > 1 (more than the sweep itself).
bool extrapolate(const Model& m, const Data& d, Work& w, const double* dl, const double* dz) {
  double s1 = 0, s2 = 0;
  for (int r = 0; r < d.nefc; ++r) s1 += dl[r] * w.g[r];
  for (int k = 0; k < m.nv; ++k) {
    s1 += w.z[k] * dz[k];
    s2 += dz[k] * dz[k];
  }
  if (!(s1 < 0)) return false;
  const double t = feasible_step(d, w, dl, s2 > 0 ? std::min(-s1 / s2, kDriftMaxStep) : kDriftMaxStep);
  if (!(t > 1)) return false;
  for (int r = 0; r < d.nefc; ++r) w.lam[r] += t * dl[r];
  for (int k = 0; k < m.nv; ++k) w.z[k] += t * dz[k];
  return true;
}


// Whether a contact block's impulse l lies on its cone's boundary (sliding) and pushes.
bool on_boundary(const Contact& con, int dim, const double* l) {
  return l[0] > 0 && !inside_cone(con, dim, l);
}

// Sliding drift extrapolation (raisim solvers), after a sweep in which a contact slid: the sweeps
// are then no descent on q, so neither the face step nor the line search on q applies, but a
// hyperstatic stance still crawls along one direction of internal forces (the feet's normal
// impulses, diagonal pairs against each other), each sweep changing lambda by nearly the same dl,
// a fixed fraction rho < 1 of the last (linear convergence at a rate near 1). The remaining changes
// sum to t dl with t = rho / (1 - rho) (Aitken's extrapolation of the geometric series), so the
// step is lambda += t dl, z += t dz, t cut where a block not on its cone's boundary would leave
// its set (block_step) and where a sliding contact's normal impulse would vanish; a sliding
// contact's tangential impulses are then scaled back onto its cone's boundary (its normal impulse
// kept), z corrected by the same change. lambda and z before the step are kept in w.dprev and w.v:
// where the next sweep changes lambda more than the sweep before the step, the step is undone
// (gauss_seidel). False (nothing changed) unless t > 1.
bool slide_extrapolate(const Model& m, const Data& d, Work& w, const double* dl, const double* dz, double t) {
  const int nefc = d.nefc;
  for (int r = 0; r < nefc && t > 1;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    const double* l = w.lam + r;
    if (kind == kCone && on_boundary(d.contact[d.efc_id[r]], dim, l)) {
      if (dl[r] < 0) t = std::min(t, -0.99 * l[0] / dl[r]);
    } else {
      t = block_step(d, w, r, kind, dim, l, dl + r, t);
    }
    r += dim;
  }
  if (!(t > 1)) return false;
  std::copy_n(w.lam, nefc, w.dprev);
  std::copy_n(w.z, m.nv, w.v);
  for (int r = 0; r < nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    double* l = w.lam + r;
    const bool sliding = kind == kCone && on_boundary(d.contact[d.efc_id[r]], dim, l);
    for (int a = 0; a < dim; ++a) l[a] += t * dl[r + a];
    const double e = sliding ? cone_radius(d.contact[d.efc_id[r]], dim, l) : 0;
    if (e > 0 && std::isfinite(e)) {  // back onto the boundary, the normal impulse kept
      const double s = l[0] / e;
      double delta[6] = {0, 0, 0, 0, 0, 0};
      for (int a = 1; a < dim; ++a) {
        delta[a] = (s - 1) * l[a];
        l[a] *= s;
      }
      block_axpy(w.u, r, dim, delta, w.z);
    }
    r += dim;
  }
  for (int k = 0; k < m.nv; ++k) w.z[k] += t * dz[k];
  return true;
}


// Face step (raisim solvers), after a sweep that did not converge and in which every contact
// stuck. The raisim updates (a sticking contact's stiction solution, the exact 1D minimization of
// the other rows) are then block coordinate descent on q(l) = 0.5 l'Gl + g'l over the blocks' sets.
// The rows whose impulse is not held at a bound (contacts strictly inside their cone and pushing,
// friction loss inside its box, pushing limits and frictionless contacts, equalities) are the free
// rows F of the face of that set the iterate lies on; the others are held. One primal active-set
// pass on q over the face: the regularized Newton step p = -(G_FF + delta I)^-1 c_F (c = G lambda
// + g, the gradient of q), then the exact line search along p, cut where a block would leave its
// set; a friction-loss or unilateral row that cuts it is put exactly on its bound and leaves F, and
// the step is solved again on the smaller face (its factor updated, at most kFacePasses solves); a
// cone that would cut it ends the pass without that step: moving a sticking contact towards its
// cone's boundary is left to the sweeps, which decide whether it slides. On a hyperstatic stance
// G_FF has more rows than rank, and c_F has a part outside its range along which q decreases until
// a bound: delta keeps that part of p finite and the cut stops it at the bound, where the sweeps'
// crawl would end after hundreds of sweeps. The sweeps then go on with the unchanged stopping test:
// the step only shortens the way to the same fixed points.
// G_FF comes from the dual rows (one sparse dot product per entry of its lower triangle), and its
// Cholesky factor is kept with the rows it belongs to (type, object and place in the face). The
// first try of a solve whose face has the same rows as the kept factor's solves with that factor
// (formed on an earlier step: p is then a quasi-Newton direction, still one of descent) instead of
// forming G_FF anew; G p (from the dual rows), the line search and the cuts always use the current G. A
// later try in the same solve forms G_FF anew. A solve tries at most kFaceSteps face steps: where
// they do not end the crawl (a contact at its cone's boundary), the sweeps go on alone. False
// (nothing changed) when F is empty or has more than kFaceMaxRows rows, the factor fails, or p does
// not descend q.
bool face_step(const Model& m, const Data& d, Work& w, bool reuse) {
  const int nv = m.nv, nefc = d.nefc;
  constexpr int N = kFaceMaxRows;
  double* L = w.face;      // N x N: Cholesky factor of the current face's G_FF + delta I (lower)
  double* Lc = L + N * N;  // N x N: the factor of the last face whose G_FF was formed
  double* c = Lc + N * N;  // N: c on the first face's rows
  double* p = c + N;       // N: the step on the first face's rows (zero off the current face)
  double* Gp = p + N;      // N: G p on the first face's rows
  double* x = Gp + N;      // N: the step on the current face, then the update's vector
  double* rows = x + N;    // N: the first face's rows
  double* key = rows + N;  // 2 N + 1: per row of the face Lc belongs to, its type plus 16 times
                           // its distance to the previous one, and its object (efc_id); its size
  int face[N];             // the current face: positions in the first face, in row order
  int n = 0;
  for (int r = 0; r < nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    const double* l = w.lam + r;
    bool free = true;
    if (kind == kBox) free = std::fabs(l[0]) < d.efc_frictionloss[r] * w.h;
    else if (kind == kUnilateral) free = l[0] > 0;
    else if (kind == kCone) free = l[0] > 0 && inside_cone(d.contact[d.efc_id[r]], dim, l);
    if (free) {
      if (n + dim > N) return false;
      for (int a = 0; a < dim; ++a) rows[n++] = r + a;
    }
    r += dim;
  }
  if (n == 0) return false;
  // c_F, and whether the cached factor belongs to the same rows (same type and object, in order)
  bool same = reuse && key[2 * N] == n;
  for (int a = 0; a < n; ++a) {
    const int ra = static_cast<int>(rows[a]);
    c[a] = w.g[ra] + solver::dual_dot(w.u, ra, w.z);
    same = same && key[2 * a] == d.efc_type[ra] + 16.0 * (ra - (a > 0 ? rows[a - 1] : 0)) &&
           key[2 * a + 1] == d.efc_id[ra];
  }
  if (!same) {
    // G_FF (into L's storage): each dual row scattered into a dense vector (w.tmp2) and dotted
    // with the later rows; then its Cholesky factor, kept with the rows it belongs to
    double* G = L;
    double* ud = w.tmp2;
    std::fill_n(ud, nv, 0.0);
    double gmax = 0;
    for (int a = 0; a < n; ++a) {
      const int ra = static_cast<int>(rows[a]);
      const solver::DualRows& u = w.u;
      for (int k = u.adr[ra]; k < u.adr[ra + 1]; ++k) ud[u.col[k]] = u.val[k];
      for (int b = a; b < n; ++b) G[b * N + a] = solver::dual_dot(u, static_cast<int>(rows[b]), ud);
      for (int k = u.adr[ra]; k < u.adr[ra + 1]; ++k) ud[u.col[k]] = 0;
      gmax = std::max(gmax, G[a * N + a]);
    }
    key[2 * N] = 0;
    if (!(gmax > 0)) return false;
    const double delta = kFaceReg * gmax;
    for (int i = 0; i < n; ++i) {  // in place: row i of G's lower triangle becomes row i of L
      double* Li = L + i * N;
      for (int j = 0; j < i; ++j) Li[j] = (Li[j] - dot_range(Li, L + j * N, 0, j)) / L[j * N + j];
      const double s = Li[i] + delta - dot_range(Li, Li, 0, i);
      if (!(s > 0)) return false;
      Li[i] = std::sqrt(s);
    }
    for (int i = 0; i < n; ++i) std::copy_n(L + i * N, i + 1, Lc + i * N);
    for (int a = 0; a < n; ++a) {
      const int ra = static_cast<int>(rows[a]);
      key[2 * a] = d.efc_type[ra] + 16.0 * (ra - (a > 0 ? rows[a - 1] : 0));
      key[2 * a + 1] = d.efc_id[ra];
    }
    key[2 * N] = n;
  } else {
    for (int i = 0; i < n; ++i) std::copy_n(Lc + i * N, i + 1, L + i * N);
  }
  for (int a = 0; a < n; ++a) face[a] = a;
  int nf = n;
  bool moved = false;
  for (int pass = 0; pass < kFacePasses; ++pass) {
    // x = -(G_FF + delta I)^-1 c_F
    for (int i = 0; i < nf; ++i) {
      const double* Li = L + i * N;
      double s = -c[face[i]];
      for (int k = 0; k < i; ++k) s -= Li[k] * x[k];
      x[i] = s / Li[i];
    }
    for (int i = nf - 1; i >= 0; --i) {
      double s = x[i];
      for (int k = i + 1; k < nf; ++k) s -= L[k * N + i] * x[k];
      x[i] = s / L[i * N + i];
    }
    std::fill_n(p, n, 0.0);
    for (int i = 0; i < nf; ++i) p[face[i]] = x[i];
    // G p on the first face (u_a . sum u_r p_r, exact whichever factor gave p); q'(0) = c_F . x,
    // q'' = x' G_FF x
    double* dz = w.tmp2;
    std::fill_n(dz, nv, 0.0);
    for (int i = 0; i < nf; ++i) solver::dual_axpy(w.u, static_cast<int>(rows[face[i]]), x[i], dz);
    for (int a = 0; a < n; ++a) Gp[a] = solver::dual_dot(w.u, static_cast<int>(rows[a]), dz);
    double s1 = 0, s2 = 0;
    for (int i = 0; i < nf; ++i) {
      s1 += c[face[i]] * x[i];
      s2 += Gp[face[i]] * x[i];
    }
    if (!(s1 < 0)) return moved;
    double t = s2 > 0 ? std::min(-s1 / s2, kDriftMaxStep) : kDriftMaxStep;
    int cut = -1;
    Kind cut_kind = kBilateral;
    for (int a = 0; a < n && t > 0;) {
      const int r = static_cast<int>(rows[a]);
      int dim;
      const Kind kind = block_kind(d, r, &dim);
      const double t0 = t;
      t = block_step(d, w, r, kind, dim, w.lam + r, p + a, t);
      if (t < t0) {
        cut = a;
        cut_kind = kind;
      }
      a += dim;
    }
    if (cut >= 0 && cut_kind == kCone) return moved;  // the sweeps decide whether it slides
    if (t > 0) {
      for (int i = 0; i < nf; ++i) {
        const int r = static_cast<int>(rows[face[i]]);
        const double dl = t * x[i];
        w.lam[r] += dl;
        solver::dual_axpy(w.u, r, dl, w.z);
      }
      for (int a = 0; a < n; ++a) c[a] += t * Gp[a];
      moved = true;
    }
    if (cut < 0) return moved;
    // the row that cut the step: exactly on its bound, out of the face
    const int r = static_cast<int>(rows[cut]);
    const double bound = cut_kind == kBox ? (p[cut] > 0 ? 1 : -1) * d.efc_frictionloss[r] * w.h : 0;
    const double dl = bound - w.lam[r];
    if (dl != 0) {
      w.lam[r] = bound;
      solver::dual_axpy(w.u, r, dl, w.z);
      double* ur = w.tmp2;
      std::fill_n(ur, nv, 0.0);
      solver::dual_axpy(w.u, r, 1.0, ur);
      for (int a = 0; a < n; ++a) c[a] += solver::dual_dot(w.u, static_cast<int>(rows[a]), ur) * dl;
    }
    moved = true;
    // the factor of the smaller face: row and column k of L deleted, and the trailing block
    // updated by the rank-one term of the deleted column (L22 L22' + u u')
    int k = 0;
    while (face[k] != cut) ++k;
    for (int i = k + 1; i < nf; ++i) x[i] = L[i * N + k];
    for (int i = k + 1; i < nf; ++i) {
      double* src = L + i * N;
      double* dst = L + (i - 1) * N;
      for (int j = 0; j < k; ++j) dst[j] = src[j];
      for (int j = k + 1; j <= i; ++j) dst[j - 1] = src[j];
      face[i - 1] = face[i];
    }
    --nf;
    double* u = x + 1;  // u[j] for j in [k, nf): the deleted column below the diagonal
    for (int j = k; j < nf; ++j) {
      double* Lj = L + j * N;
      const double ljj = Lj[j], r2 = std::sqrt(ljj * ljj + u[j] * u[j]);
      const double cs = r2 / ljj, sn = u[j] / ljj;
      Lj[j] = r2;
      for (int i = j + 1; i < nf; ++i) {
        double& lij = L[i * N + j];
        lij = (lij + sn * u[i]) / cs;
        u[i] = cs * u[i] - sn * lij;
      }
    }
    if (nf == 0) return moved;
  }
  return moved;
}

}  // namespace

int gauss_seidel(const Model& m, Data& d, Work& w, int solver) {
  const int nv = m.nv, nefc = d.nefc;
  const bool relax = relaxed_solver(solver);
  const bool desaxce = solver == kSolverRaisimDS || solver == kSolverNcpPGS;
  const double h = w.h;
  double alpha = kAlpha0;
  int iter = 0;
  d.ncp.change = 0;
  // drift extrapolation (raisim solvers): w.c holds lambda at the start of the sweep, then its
  // change; w.tmp z at the start, then its change; w.dprev the previous sweep's change
  const bool accelerate = relax;
  bool have_prev = false;
  int faces = 0;          // face steps tried
  bool slides = true;     // sliding extrapolation allowed (until one is undone)
  double undo_above = -1; // after a sliding extrapolation: the change that undoes it
  double* L0 = w.c;
  if (accelerate) {
    std::copy_n(w.lam, nefc, L0);
    std::copy_n(w.z, nv, w.tmp);
  }
  while (iter < m.opt.iterations) {
    double dmax = 0, lmax = 0;
    bool stick = relax;
    for (int r = 0; r < nefc;) {
      int dim;
      const Kind kind = block_kind(d, r, &dim);
      double* lam = w.lam + r;
      const double* G = w.G + 6 * r;
      double c[6], lnew[6];  // entries [0, dim) are set
      if (kind == kCone) block_dot(w.u, r, dim, w.z, w.g + r, c);
      else c[0] = w.g[r] + solver::dual_dot(w.u, r, w.z);
      if (kind == kCone) {
        const Contact& con = d.contact[d.efc_id[r]];
        if (scaled_cone(con)) {
          double D[6];
          cone_scale(con, D);
          if (relax) {
            double gt[6];
            switch (dim) {
              case 4: free_velocity<4>(G, lam, c, gt); break;
              case 6: free_velocity<6>(G, lam, c, gt); break;
              default: free_velocity<0>(G, lam, c, gt, dim);
            }
            raisim_scaled(dim, G, w.Ginv + 6 * r, D, w.eig + 6 * r, w.rho + r, gt, lam, desaxce, lnew);
          } else {
            projected_scaled(dim, D, c, w.rho[r], lam, desaxce, lnew);
          }
        } else if (relax) {
          const double mu = con.friction[0];
          double gt[3], Gl[3];
          mul3(G, lam, Gl);
          for (int a = 0; a < 3; ++a) gt[a] = c[a] - Gl[a];
          raisim_contact(G, w.Ginv + 6 * r, mu, gt, lam, desaxce, lnew);
        } else {
          projected_contact(c, w.rho[r], con.friction[0], lam, desaxce, lnew);
        }
      } else {
        lnew[0] = lam[0] - c[0] * w.Ginv[6 * r];
        if (kind == kUnilateral) {
          lnew[0] = std::max(0.0, lnew[0]);
        } else if (kind == kBox) {
          const double bound = d.efc_frictionloss[r] * h;
          lnew[0] = std::clamp(lnew[0], -bound, bound);
        }
      }
      if (relax && kind == kCone && stick) {
        // stiction: the block's own solution strictly inside its cone, or zero and staying zero
        const Contact& con = d.contact[d.efc_id[r]];
        double D[6];
        cone_scale(con, D);
        double t = 0;
        bool zero = true;
        for (int a = 1; a < dim; ++a) {
          zero = zero && lnew[a] == 0 && lam[a] == 0;
          if (D[a] > 0) t += (lnew[a] / D[a]) * (lnew[a] / D[a]);
          else if (lnew[a] != 0) stick = false;
        }
        zero = zero && lnew[0] == 0 && lam[0] == 0;
        if (!zero && !(std::sqrt(t) < (1 - 1e-9) * lnew[0])) stick = false;
      }
      if (relax && kind == kCone) {  // Alg. 1, lines 14-15
        for (int a = 0; a < dim; ++a) lnew[a] = (1 - alpha) * lam[a] + alpha * lnew[a];
        alpha = kGammaRelax * alpha + (1 - kGammaRelax) * kAlphaMin;
      }
      double delta[6];
      bool moved = false;
      for (int a = 0; a < dim; ++a) {
        delta[a] = lnew[a] - lam[a];
        lmax = std::max(lmax, std::fabs(lnew[a]));
        if (delta[a] == 0) continue;
        moved = true;
        dmax = std::max(dmax, std::fabs(delta[a]));
        lam[a] = lnew[a];
      }
      if (moved) {
        if (kind == kCone) block_axpy(w.u, r, dim, delta, w.z);
        else solver::dual_axpy(w.u, r, delta[0], w.z);
      }
      r += dim;
    }
    ++iter;
    if (undo_above >= 0) {
      if (dmax > undo_above) {  // the sliding extrapolation did not shorten the way: undone
        std::copy_n(w.dprev, nefc, w.lam);
        std::copy_n(w.v, nv, w.z);
        slides = false;
        std::copy_n(w.lam, nefc, L0);  // (only the accelerated solvers extrapolate)
        std::copy_n(w.z, nv, w.tmp);
        undo_above = -1;
        continue;
      }
      undo_above = -1;
    }
    d.ncp.change = lmax > 0 ? dmax / lmax : 0;
    if (d.ncp.change <= m.opt.tolerance) break;
    if (accelerate) {
      // the sweep's change dl (in L0) and its cosine with the previous sweep's
      double dd = 0, dp = 0, pp = 0;
      for (int r = 0; r < nefc; ++r) {
        const double dl = w.lam[r] - L0[r];
        dd += dl * dl;
        dp += dl * w.dprev[r];
        pp += w.dprev[r] * w.dprev[r];
        L0[r] = dl;
      }
      for (int k = 0; k < nv; ++k) w.tmp[k] = w.z[k] - w.tmp[k];
      const bool drift = stick && have_prev && dp > kDriftCos * std::sqrt(dd * pp);
      // a sliding sweep's rate: its change over the previous one's (the same direction, shorter)
      const bool slide = !stick && slides && have_prev && dd < pp && dp > kSlideCos * std::sqrt(dd * pp);
      const double rho = slide ? std::sqrt(dd / pp) : 0;
      if (stick && faces < kFaceSteps && face_step(m, d, w, faces++ == 0)) {
        have_prev = false;
      } else if (drift && extrapolate(m, d, w, L0, w.tmp)) {
        have_prev = false;
      } else if (slide && slide_extrapolate(m, d, w, L0, w.tmp, std::min(rho / (1 - rho), kDriftMaxStep))) {
        have_prev = false;
        undo_above = dmax;
      } else {
        std::copy_n(L0, nefc, w.dprev);
        have_prev = true;
      }
      std::copy_n(w.lam, nefc, L0);
      std::copy_n(w.z, nv, w.tmp);
    }
  }
  velocity_from_z(m, d, w);
  return iter;
}

}  // namespace moreau::ncp

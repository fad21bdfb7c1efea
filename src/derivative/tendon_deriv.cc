// Position derivatives of spatial tendons and actuator transmissions; derivatives of the muscle
// curves and activation dynamics (tendon_deriv.h).
//
// A spatial tendon's moment arms are a sum over its straight segments (src/tendon/spatial.cc):
//   ten_J_i = sum_s c_s u_s . (jp_B,i(p_B) - jp_A,i(p_A)),
// u_s the unit direction from p_A to p_B, c_s = 1/divisor of the segment's branch, jp_b,i(p) =
// v_i + w_i x (p - o) the velocity that dof i gives the point p fixed on body b (cdof_i = (w_i,
// v_i) at o, the com of b's tree; o is held fixed, as in the contact derivatives). Along dof k,
// with dp_A, dp_B the motions of the segment's ends:
//   d u_s = (I - u u') (dp_B - dp_A) / |p_B - p_A|,
//   d jp_b,i(p) = dS_v + dS_w x (p - o) + w_i x dp,   dS = cdof_k x cdof_i when k moves i's axis.
// A site moves with its body (dp = jp_b,k). A tangent point of a wrapped segment lies on the
// obstacle where the wrap routine (src/tendon/wrap.cc) places it as a function of the two end sites
// in the obstacle's frame: dp = jp_g,k(t) + R dt_local, dt_local = W dx_local, dx_local = R' (dx -
// jp_g,k(x)) the motion of each end relative to the obstacle. W (6 x 6) is analytic (wrap_jacobian:
// the implicit-function theorem on the tangency conditions, the branch of the current solution;
// a side site only selects the branch). For the touch point of a side site inside the obstacle
// (wrap_inside's minimisation) and degenerate configurations, W (with the side site's columns) is
// taken by centred differences of the wrap routine alone (step 1e-5 of the radius and half of it,
// extrapolated), one-sided where a perturbation changes the branch.
//
// Transmissions: the moment arms of site, slider-crank, ball and free joint transmissions are
// differentiated the same way (the point Jacobians' derivatives, the rotating gear or axis); see
// the functions below.
#include "derivative/tendon_deriv.h"

#include <algorithm>
#include <cmath>

#include "actuation/muscle.h"
#include "derivative/contact_geometry.h"
#include "derivative/recycling.h"
#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "tendon/wrap.h"

namespace moreau::internal {

namespace {

using namespace math;
using Vec = RecycledVec;
using IVec = RecycledIntVec;

// Whether dof k's motion moves the axis of dof i (both on one chain): i below k, or the other
// rotation axes of k's own ball or free joint; never the world-fixed translations of a free joint.
// (The same rule as the constraint rows' derivatives in analytic_forward.cc.)
bool moves(const Model& m, int k, int i) {
  const int ji = m.dof_jntid[i], jk = m.dof_jntid[k];
  if (i == k || (m.jnt_type[ji] == kJointFree && i < m.jnt_dofadr[ji] + 3)) return false;
  if (i > k) return true;
  const bool krot = m.jnt_type[jk] == kJointBall || (m.jnt_type[jk] == kJointFree && k >= m.jnt_dofadr[jk] + 3);
  return krot && ji == jk;
}

// A point of the path: position, the body it is fixed on (tangent points: the obstacle's), the
// dofs that move that body (mask), the rigid point velocities jp (3 x nv) and the point's motion
// dp (3 x nv; jp for a site).
struct Point {
  double p[3];
  int body;
  const double* o;
  IVec mask;
  Vec jp, dp;
};

void make_point(const Model& m, const Data& d, const double* p, int body, Point& pt) {
  const int nv = m.nv;
  copy3(pt.p, p);
  pt.body = body;
  pt.o = &d.subtree_com[3 * m.body_rootid[body]];
  pt.mask.assign(nv, 0);
  pt.jp.assign(3 * static_cast<size_t>(nv), 0.0);
  double r[3];
  sub3(r, p, pt.o);
  for (int i = last_dof(m, body); i >= 0; i = m.dof_parentid[i]) {
    pt.mask[i] = 1;
    const double* S = &d.cdof[6 * i];
    double t[3];
    cross3(t, S, r);
    add3(&pt.jp[3 * i], S + 3, t);
  }
  pt.dp = pt.jp;
}

// out (col-major nv x nv) += c d/dq [u . (jp_B(p_B) - jp_A(p_A))]
void add_segment(const Model& m, const Data& d, const Point& A, const Point& B, double c, double* out) {
  const int nv = m.nv;
  if (A.body == B.body) return;  // the segment moves rigidly: its length is constant
  double u[3];
  sub3(u, B.p, A.p);
  const double len = norm3(u);
  if (len < kMinVal) return;
  scl3(u, u, 1 / len);
  double rA[3], rB[3];
  sub3(rA, A.p, A.o);
  sub3(rB, B.p, B.o);
  for (int k = 0; k < nv; ++k) {
    const double* dpA = &A.dp[3 * k];
    const double* dpB = &B.dp[3 * k];
    if (!A.mask[k] && !B.mask[k] && norm3(dpA) == 0 && norm3(dpB) == 0) continue;
    double dD[3], du[3];
    sub3(dD, dpB, dpA);
    const double ud = dot3(u, dD);
    for (int a = 0; a < 3; ++a) du[a] = (dD[a] - u[a] * ud) / len;
    const double* Sk = &d.cdof[6 * k];
    double* col = out + static_cast<size_t>(k) * nv;
    for (int i = 0; i < nv; ++i) {
      if (!A.mask[i] && !B.mask[i]) continue;
      const double* Si = &d.cdof[6 * i];
      double G[3] = {0, 0, 0}, dG[3] = {0, 0, 0};
      for (int side = 0; side < 2; ++side) {
        const Point& P = side ? B : A;
        if (!P.mask[i]) continue;
        const double sg = side ? 1.0 : -1.0;
        const double* dp = side ? dpB : dpA;
        double t[3], dS[6] = {0, 0, 0, 0, 0, 0};
        if (P.mask[k] && moves(m, k, i)) cross_motion(dS, Sk, Si);
        cross3(t, dS, side ? rB : rA);
        double w[3];
        cross3(w, Si, dp);
        for (int a = 0; a < 3; ++a) {
          G[a] += sg * P.jp[3 * i + a];
          dG[a] += sg * (dS[3 + a] + t[a] + w[a]);
        }
      }
      col[i] += c * (dot3(du, G) + dot3(u, dG));
    }
  }
}

// Tangent points of x0 -> x1 around geom g in its frame, from local inputs in (x0, x1, side).
double wrap_local(const Model& m, int g, const double* in, bool side, double* t01) {
  static const double zero[3] = {0, 0, 0}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  return tendon_detail::wrap(in, in + 3, zero, eye, m.geom_size[3 * g], m.geom_type[g] == kGeomCylinder,
                             side ? in + 6 : nullptr, t01, t01 + 3);
}

// Inverse of a 3x3 matrix (row-major); false when singular.
bool inverse3(const double* A, double* inv) {
  const double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8], c2 = A[3] * A[7] - A[4] * A[6];
  const double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
  const double scale = std::abs(A[0]) + std::abs(A[1]) + std::abs(A[2]) + std::abs(A[3]) + std::abs(A[4]) +
                       std::abs(A[5]) + std::abs(A[6]) + std::abs(A[7]) + std::abs(A[8]);
  if (!(std::abs(det) > 1e-12 * scale * scale * scale)) return false;
  inv[0] = c0 / det, inv[3] = c1 / det, inv[6] = c2 / det;
  inv[1] = (A[2] * A[7] - A[1] * A[8]) / det, inv[4] = (A[0] * A[8] - A[2] * A[6]) / det;
  inv[7] = (A[1] * A[6] - A[0] * A[7]) / det;
  inv[2] = (A[1] * A[5] - A[2] * A[4]) / det, inv[5] = (A[2] * A[3] - A[0] * A[5]) / det;
  inv[8] = (A[0] * A[4] - A[1] * A[3]) / det;
  return true;
}

// W (6 x 6, col-major W[6c + a]) = d(t0, t1)/d(p0, p1) in the obstacle's frame, analytic, from the
// conditions the tangent points satisfy (implicit-function theorem, the branch of the current
// solution). Sphere: |t|^2 = r^2, t.p = r^2 (tangent from p, p = p0 for t0, p1 for t1) and
// t.(p0 x p1) = 0 (the plane through the centre and both points). Cylinder: the same two in the
// cross-section for (t_x, t_y), and the helix heights t0_z = p0_z + dz L0/T, t1_z = p0_z +
// dz (L0 + arc)/T (dz = p1_z - p0_z, L0, L1 the planar straight parts, arc = r alpha, T = L0 +
// arc + L1), alpha the angle from t0 to t1 in the direction the path turns. False where this does
// not apply (the touch point of a side site inside the obstacle, degenerate configurations).
bool wrap_jacobian(double r, bool cylinder, const double* p0, const double* p1, const double* t0,
                   const double* t1, double* W) {
  std::fill_n(W, 36, 0.0);
  double dd[3];
  sub3(dd, t1, t0);
  if (norm3(dd) < 1e-9 * r) return false;  // the touch point (or no arc): left to the differences
  if (!cylinder) {
    double n[3];
    cross3(n, p0, p1);
    for (int w = 0; w < 2; ++w) {
      const double* t = w ? t1 : t0;
      const double* p = w ? p1 : p0;
      const double A[9] = {2 * t[0], 2 * t[1], 2 * t[2], p[0], p[1], p[2], n[0], n[1], n[2]};
      double inv[9];
      if (!inverse3(A, inv)) return false;
      double p1xt[3], txp0[3];
      cross3(p1xt, p1, t);
      cross3(txp0, t, p0);
      for (int c = 0; c < 6; ++c) {
        // - dF/d input_c: F2 = t.p - r^2 depends on its own p; F3 = t.(p0 x p1) on both
        const bool first = c < 3;
        const int e = c % 3;
        const double rhs[3] = {0, (first == (w == 0)) ? -t[e] : 0.0, first ? -p1xt[e] : -txp0[e]};
        for (int a = 0; a < 3; ++a) W[6 * c + 3 * w + a] = dot3(inv + 3 * a, rhs);
      }
    }
    return true;
  }
  // cross-section: (t_x, t_y) from |t|^2 = r^2, t.a = r^2: [2t; a] dt = -[0; t] da
  const double a[2] = {p0[0], p0[1]}, b[2] = {p1[0], p1[1]};
  double Ja[4], Jb[4];  // d t0_xy / d a, d t1_xy / d b (row-major 2x2)
  for (int w = 0; w < 2; ++w) {
    const double* t = w ? t1 : t0;
    const double* q = w ? b : a;
    const double det = 2 * t[0] * q[1] - 2 * t[1] * q[0];
    if (std::abs(det) < 1e-12 * r * r) return false;
    // inverse of [[2t0, 2t1], [q0, q1]] times [[0, 0], [-t0, -t1]]
    const double i01 = -2 * t[1] / det, i11 = 2 * t[0] / det;  // the inverse's second column
    double* J = w ? Jb : Ja;
    for (int e = 0; e < 2; ++e) J[e] = -i01 * t[e], J[2 + e] = -i11 * t[e];
  }
  // the direction the path turns: from a towards t0, then along the circle
  const double va[2] = {t0[0] - a[0], t0[1] - a[1]};
  const double sg = t0[0] * va[1] - t0[1] * va[0] > 0 ? 1.0 : -1.0;
  double alpha = sg * (std::atan2(t1[1], t1[0]) - std::atan2(t0[1], t0[0]));
  while (alpha < 0) alpha += 2 * M_PI;
  while (alpha >= 2 * M_PI) alpha -= 2 * M_PI;
  const double arc = r * alpha;
  const double L0 = std::hypot(a[0] - t0[0], a[1] - t0[1]), L1 = std::hypot(b[0] - t1[0], b[1] - t1[1]);
  const double T = L0 + arc + L1, dz = p1[2] - p0[2];
  if (L0 < kMinVal || L1 < kMinVal || T < kMinVal) return false;
  for (int c = 0; c < 6; ++c) {
    const int e = c % 3, w = c / 3;
    double da[2] = {0, 0}, db[2] = {0, 0}, dt0[2] = {0, 0}, dt1[2] = {0, 0}, ddz = 0, dp0z = 0;
    if (e == 2) {
      ddz = w ? 1 : -1;
      dp0z = w ? 0 : 1;
    } else if (w == 0) {
      da[e] = 1, dt0[0] = Ja[e], dt0[1] = Ja[2 + e];
    } else {
      db[e] = 1, dt1[0] = Jb[e], dt1[1] = Jb[2 + e];
    }
    const double dL0 = ((a[0] - t0[0]) * (da[0] - dt0[0]) + (a[1] - t0[1]) * (da[1] - dt0[1])) / L0;
    const double dL1 = ((b[0] - t1[0]) * (db[0] - dt1[0]) + (b[1] - t1[1]) * (db[1] - dt1[1])) / L1;
    const double darc = sg * ((t1[0] * dt1[1] - t1[1] * dt1[0]) - (t0[0] * dt0[1] - t0[1] * dt0[0])) / r;
    const double dT = dL0 + darc + dL1;
    W[6 * c + 0] = dt0[0], W[6 * c + 1] = dt0[1];
    W[6 * c + 3] = dt1[0], W[6 * c + 4] = dt1[1];
    W[6 * c + 2] = dp0z + ddz * L0 / T + dz * (dL0 * T - L0 * dT) / (T * T);
    W[6 * c + 5] = dp0z + ddz * (L0 + arc) / T + dz * ((dL0 + darc) * T - (L0 + arc) * dT) / (T * T);
  }
  return true;
}

// The tangent points t0, t1 (Points on geom g's body) with their motions, for sites x0, x1 (and
// side site s, or -1) already as Points.
void wrap_points(const Model& m, const Data& d, int g, const Point& X0, const Point& X1, const Point* Sd,
                 Point& T0, Point& T1, const double* t0, const double* t1) {
  const int nv = m.nv, bg = m.geom_bodyid[g];
  const double* gp = &d.geom_xpos[3 * g];
  const double* R = &d.geom_xmat[9 * g];
  make_point(m, d, t0, bg, T0);
  make_point(m, d, t1, bg, T1);
  const int nin = Sd ? 9 : 6;
  double in[9], dif[3];
  const Point* P[3] = {&X0, &X1, Sd};
  for (int j = 0; j < nin / 3; ++j) {
    sub3(dif, P[j]->p, gp);
    mulmatTvec3(in + 3 * j, R, dif);
  }
  // W (6 x nin, col-major): analytic (the side site only selects the branch: no column), else
  // centred differences of the wrap routine, extrapolated
  const double h = 1e-5 * m.geom_size[3 * g];
  double W[54], tl[6], dif0[3], dif1[3];
  sub3(dif0, t0, gp), sub3(dif1, t1, gp);
  mulmatTvec3(tl, R, dif0), mulmatTvec3(tl + 3, R, dif1);
  const bool analytic = wrap_jacobian(m.geom_size[3 * g], m.geom_type[g] == kGeomCylinder, in, in + 3, tl, tl + 3, W);
  if (analytic) std::fill_n(W + 36, 18, 0.0);
  for (int c = 0; c < nin && !analytic; ++c) {
    double o[4][6];
    bool ok[4];
    const double steps[4] = {h, -h, h / 2, -h / 2};
    for (int e = 0; e < 4; ++e) {
      double x[9];
      std::copy_n(in, nin, x);
      x[c] += steps[e];
      ok[e] = wrap_local(m, g, x, Sd != nullptr, o[e]) >= 0;
    }
    double base[6];
    const bool okb = wrap_local(m, g, in, Sd != nullptr, base) >= 0;
    for (int a = 0; a < 6; ++a) {
      double v = 0;
      if (ok[0] && ok[1] && ok[2] && ok[3]) {
        const double d1 = (o[0][a] - o[1][a]) / (2 * h), d2 = (o[2][a] - o[3][a]) / h;
        v = (4 * d2 - d1) / 3;
      } else if (okb && ok[2]) {
        v = (o[2][a] - base[a]) / (h / 2);
      } else if (okb && ok[3]) {
        v = (base[a] - o[3][a]) / (h / 2);
      }
      W[6 * c + a] = v;
    }
  }
  // per dof: the inputs' motion relative to the obstacle, in its frame
  double og[3];
  copy3(og, T0.o);
  for (int k = 0; k < nv; ++k) {
    double dl[9];
    bool any = false;
    for (int j = 0; j < nin / 3; ++j) {
      double rel[3], r[3], t[3];
      copy3(rel, &P[j]->dp[3 * k]);
      if (T0.mask[k]) {
        const double* S = &d.cdof[6 * k];
        sub3(r, P[j]->p, og);
        cross3(t, S, r);
        for (int a = 0; a < 3; ++a) rel[a] -= S[3 + a] + t[a];
      }
      mulmatTvec3(dl + 3 * j, R, rel);
      any = any || dl[3 * j] != 0 || dl[3 * j + 1] != 0 || dl[3 * j + 2] != 0;
    }
    if (!any) continue;
    double dt[6] = {0, 0, 0, 0, 0, 0};
    for (int c = 0; c < nin; ++c)
      for (int a = 0; a < 6; ++a) dt[a] += W[6 * c + a] * dl[c];
    double w0[3], w1[3];
    mulmatvec3(w0, R, dt);
    mulmatvec3(w1, R, dt + 3);
    for (int a = 0; a < 3; ++a) {
      T0.dp[3 * k + a] += w0[a];
      T1.dp[3 * k + a] += w1[a];
    }
  }
}

}  // namespace

bool tendon_is_fixed(const Model& m, int t) {
  for (int w = m.tendon_adr[t]; w < m.tendon_adr[t] + m.tendon_num[t]; ++w)
    if (m.wrap_type[w] != kWrapJoint) return false;
  return true;
}

void tendon_jacobian_deriv(const Model& m, const Data& d, int t, double* out) {
  const int nv = m.nv;
  std::fill_n(out, static_cast<size_t>(nv) * nv, 0.0);
  if (tendon_is_fixed(m, t)) return;
  const int adr = m.tendon_adr[t], end = adr + m.tendon_num[t];
  double divisor = 1;
  Point X0, X1, Sd, T0, T1;
  for (int w = adr; w < end;) {
    if (m.wrap_type[w] == kWrapPulley) {
      divisor = m.wrap_prm[w];
      ++w;
      continue;
    }
    if (w + 1 >= end || m.wrap_type[w + 1] == kWrapPulley) {
      ++w;
      continue;
    }
    const double c = 1.0 / divisor;
    const int s0 = m.wrap_objid[w];
    make_point(m, d, &d.site_xpos[3 * s0], m.site_bodyid[s0], X0);
    if (m.wrap_type[w + 1] == kWrapSite) {
      const int s1 = m.wrap_objid[w + 1];
      make_point(m, d, &d.site_xpos[3 * s1], m.site_bodyid[s1], X1);
      add_segment(m, d, X0, X1, c, out);
      ++w;
      continue;
    }
    const int g = m.wrap_objid[w + 1];
    const int side = static_cast<int>(m.wrap_prm[w + 1]);
    const int s1 = m.wrap_objid[w + 2];
    make_point(m, d, &d.site_xpos[3 * s1], m.site_bodyid[s1], X1);
    if (side >= 0) make_point(m, d, &d.site_xpos[3 * side], m.site_bodyid[side], Sd);
    double t0[3], t1[3];
    const double wlen =
        tendon_detail::wrap(X0.p, X1.p, &d.geom_xpos[3 * g], &d.geom_xmat[9 * g], m.geom_size[3 * g],
                            m.geom_type[g] == kGeomCylinder, side >= 0 ? Sd.p : nullptr, t0, t1);
    if (wlen < 0) {
      add_segment(m, d, X0, X1, c, out);
    } else {
      wrap_points(m, d, g, X0, X1, side >= 0 ? &Sd : nullptr, T0, T1, t0, t1);
      add_segment(m, d, X0, T0, c, out);
      add_segment(m, d, T1, X1, c, out);
    }
    w += 2;
  }
}

bool transmission_deriv_supported(const Model& m, int u) {
  const int trn = m.actuator_trntype[u], id = m.actuator_trnid[2 * u];
  if (id < 0) return true;
  switch (trn) {
    case kTrnJoint:
    case kTrnJointInParent:
    case kTrnTendon:
    case kTrnSliderCrank:
    case kTrnBody:
      return true;
    case kTrnSite:
      return true;
    default:
      return false;
  }
}

bool transmission_deriv_supported(const Model& m, const Data& d, int u) {
  if (!transmission_deriv_supported(m, u)) return false;
  if (m.actuator_trntype[u] != kTrnBody || m.actuator_trnid[2 * u] < 0) return true;
  // adhesion: the geometry derivative of each of the body's contacts
  const int b = m.actuator_trnid[2 * u];
  for (int c = 0; c < d.ncon; ++c) {
    const Contact& con = d.contact[c];
    if (con.exclude > 1 || (m.geom_bodyid[con.geom1] != b && m.geom_bodyid[con.geom2] != b)) continue;
    if (contact_deriv_method(m, d, con) == ContactDerivMethod::kUnsupported) return false;
  }
  return true;
}

namespace {

// d jp_b,i(p) along dof k for the point P (body b), dp its motion along k: dS_v + dS_w x (p - o) +
// w_i x dp, dS = cdof_k x cdof_i when k moves i's axis; 0 when i does not move b.
void point_jac_deriv(const Model& m, const Data& d, const Point& P, int i, int k, const double* dp, double* out) {
  zero3(out);
  if (!P.mask[i]) return;
  const double* Si = &d.cdof[6 * i];
  if (P.mask[k] && moves(m, k, i)) {
    double dS[6], r[3], t[3];
    cross_motion(dS, &d.cdof[6 * k], Si);
    sub3(r, P.p, P.o);
    cross3(t, dS, r);
    add3(out, dS + 3, t);
  }
  double w[3];
  cross3(w, Si, dp);
  add3(out, out, w);
}

// d w_i along dof k for a dof i moving body b (mask): dS_w
void axis_deriv(const Model& m, const Data& d, const Point& P, int i, int k, double* out) {
  zero3(out);
  if (!P.mask[i] || !P.mask[k] || !moves(m, k, i)) return;
  double dS[6];
  cross_motion(dS, &d.cdof[6 * k], &d.cdof[6 * i]);
  copy3(out, dS);
}

// out_a = sum_b Jr^-1(rv)[b][a] g_b (Jr^-1 = I + K/2 + c K^2, K = [rv]x, Jr the right Jacobian of
// SO(3)): the gradient of rv . g when the rotation turns by dw in its own frame (d rv = Jr^-1 dw).
void jr_inv_t(const double* rv, const double* g, double* out) {
  const double th = norm3(rv);
  const double K[9] = {0, -rv[2], rv[1], rv[2], 0, -rv[0], -rv[1], rv[0], 0};
  const double c = th < 1e-6 ? 1.0 / 12 : 1 / (th * th) - (1 + std::cos(th)) / (2 * th * std::sin(th));
  for (int a = 0; a < 3; ++a) {
    double s = 0;
    for (int b = 0; b < 3; ++b) {
      double K2 = 0;
      for (int l = 0; l < 3; ++l) K2 += K[3 * b + l] * K[3 * l + a];
      s += ((a == b ? 1 : 0) + 0.5 * K[3 * b + a] + c * K2) * g[b];
    }
    out[a] = s;
  }
}

// Site transmission: moment_i = f . jp_i(p) + t . w_i, (f, t) = R_s (gear force, gear torque); with a
// reference site r, moment_i = gf . (jp_s,i - jp_r,i) + w_r,i . (gf x dp) + gt . (w_s,i - w_r,i),
// (gf, gt) = R_r gear, dp = p_s - p_r; length gf . dp + g_rot . rv, rv the rotation vector of
// q_r^-1 q_s, whose derivative d rv = Jl^-1(rv) R_r' (w_s - w_r) makes the length's gradient
// differ from the moment's rotational part: (R_r Jl^-1(rv)' g_rot) . (w_s - w_r).
void site_deriv(const Model& m, const Data& d, int u, double* dlen, double* dmom) {
  const int nv = m.nv, s = m.actuator_trnid[2 * u], ref = m.actuator_trnid[2 * u + 1];
  const double* gear = &m.actuator_gear[6 * u];
  Point S, R;
  make_point(m, d, &d.site_xpos[3 * s], m.site_bodyid[s], S);
  if (ref < 0) {
    std::fill_n(dlen, nv, 0.0);
    double f[3], t[3];
    mulmatvec3(f, &d.site_xmat[9 * s], gear);
    mulmatvec3(t, &d.site_xmat[9 * s], gear + 3);
    for (int k = 0; k < nv; ++k) {
      if (!S.mask[k]) continue;
      const double* wk = &d.cdof[6 * k];
      double df[3], dt[3];
      cross3(df, wk, f);
      cross3(dt, wk, t);
      for (int i = 0; i < nv; ++i) {
        if (!S.mask[i]) continue;
        double djp[3], dw[3];
        point_jac_deriv(m, d, S, i, k, &S.jp[3 * k], djp);
        axis_deriv(m, d, S, i, k, dw);
        dmom[static_cast<size_t>(k) * nv + i] =
            dot3(f, djp) + dot3(df, &S.jp[3 * i]) + dot3(t, dw) + dot3(dt, &d.cdof[6 * i]);
      }
    }
    return;
  }
  make_point(m, d, &d.site_xpos[3 * ref], m.site_bodyid[ref], R);
  double gf[3], dp[3];
  mulmatvec3(gf, &d.site_xmat[9 * ref], gear);
  sub3(dp, S.p, R.p);
  const double* mom = &d.actuator_moment[static_cast<size_t>(u) * nv];
  std::copy_n(mom, nv, dlen);
  // the rotational gear: gt = R_r g_rot, hl = R_r Jl^-1(rv)' g_rot
  double gt[3], hl[3];
  mulmatvec3(gt, &d.site_xmat[9 * ref], gear + 3);
  {
    double qs[4], qr[4], qrinv[4], qrel[4], rv[3], jg[3];
    mat2quat(qs, &d.site_xmat[9 * s]);
    mat2quat(qr, &d.site_xmat[9 * ref]);
    negquat(qrinv, qr);
    mulquat(qrel, qrinv, qs);
    quat2vel(rv, qrel, 1);
    // Jl^-1(rv)' g = Jr^-1(rv) g = Jr^-1(-rv)' g
    scl3(rv, rv, -1);
    jr_inv_t(rv, gear + 3, jg);
    mulmatvec3(hl, &d.site_xmat[9 * ref], jg);
  }
  auto wrel = [&](int i, double* w) {  // w_s,i - w_r,i
    zero3(w);
    if (S.mask[i]) add3(w, w, &d.cdof[6 * i]);
    if (R.mask[i]) sub3(w, w, &d.cdof[6 * i]);
  };
  for (int k = 0; k < nv; ++k) {
    double w[3], t[3];
    wrel(k, w);
    sub3(t, hl, gt);
    dlen[k] += dot3(t, w);
  }
  for (int k = 0; k < nv; ++k) {
    if (!S.mask[k] && !R.mask[k]) continue;
    double dgt[3] = {0, 0, 0};
    if (R.mask[k]) cross3(dgt, &d.cdof[6 * k], gt);
    for (int i = 0; i < nv; ++i) {
      if (!S.mask[i] && !R.mask[i]) continue;
      double w[3], dws[3], dwr[3];
      wrel(i, w);
      axis_deriv(m, d, S, i, k, dws);
      axis_deriv(m, d, R, i, k, dwr);
      dmom[static_cast<size_t>(k) * nv + i] += dot3(dgt, w) + dot3(gt, dws) - dot3(gt, dwr);
    }
  }
  for (int k = 0; k < nv; ++k) {
    if (!S.mask[k] && !R.mask[k]) continue;
    double dgf[3] = {0, 0, 0}, ddp[3];
    if (R.mask[k]) cross3(dgf, &d.cdof[6 * k], gf);
    sub3(ddp, &S.jp[3 * k], &R.jp[3 * k]);
    double gxd[3], dgxd[3], t1[3], t2[3];
    cross3(gxd, gf, dp);
    cross3(t1, dgf, dp);
    cross3(t2, gf, ddp);
    add3(dgxd, t1, t2);
    for (int i = 0; i < nv; ++i) {
      if (!S.mask[i] && !R.mask[i]) continue;
      double js[3], jr[3], djs[3], djr[3], dwr[3];
      point_jac_deriv(m, d, S, i, k, &S.jp[3 * k], djs);
      point_jac_deriv(m, d, R, i, k, &R.jp[3 * k], djr);
      axis_deriv(m, d, R, i, k, dwr);
      sub3(js, &S.jp[3 * i], &R.jp[3 * i]);
      sub3(jr, djs, djr);
      double v = dot3(dgf, js) + dot3(gf, jr);
      if (R.mask[i]) v += dot3(dwr, gxd) + dot3(&d.cdof[6 * i], dgxd);
      dmom[static_cast<size_t>(k) * nv + i] += v;
    }
  }
}

// Slider-crank (transmission.cc): l = g (a.v - sqrt(det)), det = (a.v)^2 + r^2 - v.v, v = p_c - p_s,
// a the slider's z axis; moment_i = dl/dv . (jp_c,i - jp_s,i) + (a x dl/da) . w_s,i. Along dof k,
// dv = jp_c,k - jp_s,k and da = w_s,k x a move dl/dv and dl/da through their Hessians.
void slidercrank_deriv(const Model& m, const Data& d, int u, double* dlen, double* dmom) {
  const int nv = m.nv, sc = m.actuator_trnid[2 * u], ss = m.actuator_trnid[2 * u + 1];
  const double g = m.actuator_gear[6 * u];
  Point C, S;
  make_point(m, d, &d.site_xpos[3 * sc], m.site_bodyid[sc], C);
  make_point(m, d, &d.site_xpos[3 * ss], m.site_bodyid[ss], S);
  const double* Rm = &d.site_xmat[9 * ss];
  const double a[3] = {Rm[2], Rm[5], Rm[8]};
  double v[3];
  sub3(v, C.p, S.p);
  const double r = m.actuator_cranklength[u], av = dot3(a, v);
  const double det = av * av + r * r - dot3(v, v);
  double dldv[3], dlda[3], Hvv[9], Hva[9], Hav[9], Haa[9];  // H_xy = d(dl/dx)/dy, row-major
  if (det <= 0) {
    copy3(dldv, a);
    copy3(dlda, v);
    for (int i = 0; i < 9; ++i) Hvv[i] = Haa[i] = 0, Hva[i] = Hav[i] = (i % 4 == 0) ? 1 : 0;
  } else {
    const double sd = std::sqrt(det), s3 = sd * det;
    double c[3];
    for (int i = 0; i < 3; ++i) c[i] = av * a[i] - v[i];
    for (int i = 0; i < 3; ++i) {
      dldv[i] = a[i] - c[i] / sd;
      dlda[i] = v[i] * (1 - av / sd);
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double I = i == j ? 1 : 0;
        Hvv[3 * i + j] = -(a[i] * a[j] - I) / sd + c[i] * c[j] / s3;
        Hva[3 * i + j] = I - (av * I + a[i] * v[j]) / sd + c[i] * av * v[j] / s3;
        Hav[3 * i + j] = (1 - av / sd) * I - v[i] * (a[j] / sd - av * c[j] / s3);
        Haa[3 * i + j] = -v[i] * (v[j] / sd - av * av * v[j] / s3);
      }
  }
  const double* mom = &d.actuator_moment[static_cast<size_t>(u) * nv];
  std::copy_n(mom, nv, dlen);
  double axd[3];
  cross3(axd, a, dlda);
  for (int k = 0; k < nv; ++k) {
    if (!C.mask[k] && !S.mask[k]) continue;
    double dv[3], da[3] = {0, 0, 0};
    sub3(dv, &C.jp[3 * k], &S.jp[3 * k]);
    if (S.mask[k]) cross3(da, &d.cdof[6 * k], a);
    double ddv[3], dda[3], daxd[3], t1[3], t2[3];
    for (int i = 0; i < 3; ++i) {
      ddv[i] = g * (dot3(Hvv + 3 * i, dv) + dot3(Hva + 3 * i, da));
      dda[i] = g * (dot3(Hav + 3 * i, dv) + dot3(Haa + 3 * i, da));
    }
    cross3(t1, da, dlda);
    cross3(t2, a, dda);
    for (int i = 0; i < 3; ++i) daxd[i] = g * t1[i] + t2[i];
    for (int i = 0; i < nv; ++i) {
      if (!C.mask[i] && !S.mask[i]) continue;
      double djc[3], djs[3], dw[3], j[3], dj[3];
      point_jac_deriv(m, d, C, i, k, &C.jp[3 * k], djc);
      point_jac_deriv(m, d, S, i, k, &S.jp[3 * k], djs);
      sub3(j, &C.jp[3 * i], &S.jp[3 * i]);
      sub3(dj, djc, djs);
      double val = dot3(ddv, j) + g * dot3(dldv, dj);
      if (S.mask[i]) {
        axis_deriv(m, d, S, i, k, dw);
        val += dot3(daxd, &d.cdof[6 * i]) + g * dot3(axd, dw);
      }
      dmom[static_cast<size_t>(k) * nv + i] = val;
    }
  }
}

// Ball and free joint transmissions (transmission.cc). Ball: l = rv(q) . g, rv the rotation vector
// of the joint quaternion; along the joint's local angular tangent, d rv = Jr^-1(rv) dw, so
// dlen = Jr^-1(rv)' g. With jointinparent g = R(q)' gear varies: dg = g x e_k along the joint's
// rotational dof k (and dlen gains rv . dg). Free: l = 0; the rotational moment arms as the ball's.
void joint_deriv(const Model& m, const Data& d, int u, bool in_parent, double* dlen, double* dmom) {
  const int nv = m.nv, j = m.actuator_trnid[2 * u];
  const int qadr = m.jnt_qposadr[j], dadr = m.jnt_dofadr[j];
  const double* mom = &d.actuator_moment[static_cast<size_t>(u) * nv];
  std::fill_n(dlen, nv, 0.0);
  const bool ball = m.jnt_type[j] == kJointBall;
  const int r0 = ball ? dadr : dadr + 3;  // the rotational dofs
  const double* g = mom + r0;             // the rotational moment arms (gear, or rotated into the child)
  if (ball) {
    double q[4], rv[3];
    copy4(q, &d.qpos[qadr]);
    normalize4(q);
    quat2vel(rv, q, 1);
    jr_inv_t(rv, g, dlen + dadr);
    if (in_parent) {  // + rv . dg = (rv x g)_k
      double t[3];
      cross3(t, rv, g);
      for (int a = 0; a < 3; ++a) dlen[dadr + a] += t[a];
    }
  }
  if (in_parent)
    for (int k = 0; k < 3; ++k) {
      const double e[3] = {k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0};
      double dg[3];
      cross3(dg, g, e);
      for (int a = 0; a < 3; ++a) dmom[static_cast<size_t>(r0 + k) * nv + r0 + a] = dg[a];
    }
}

// Body transmission (adhesion): moment_i = s sum_c n_c . (jp_b1,i(pos_c) - jp_b2,i(pos_c)) over the
// contacts c of the body's geoms (exclude <= 1), s = gear / count; length 0. Each contact's normal
// and point move with its geoms as contact_geometry.h derives (the contact set held fixed: the
// one-sided derivative where a contact appears or leaves). contact_jacobian perturbs the geoms'
// poses in d and restores them bitwise.
void body_deriv(const Model& m, const Data& dc, int u, double* dlen, double* dmom) {
  Data& d = const_cast<Data&>(dc);
  const int nv = m.nv, b = m.actuator_trnid[2 * u];
  std::fill_n(dlen, nv, 0.0);
  int count = 0;
  for (int c = 0; c < d.ncon; ++c) {
    const Contact& con = d.contact[c];
    if (con.exclude > 1) continue;
    if (m.geom_bodyid[con.geom1] == b || m.geom_bodyid[con.geom2] == b) ++count;
  }
  if (!count) return;
  const double sc = m.actuator_gear[6 * u] / count;
  Point P1, P2;
  for (int c = 0; c < d.ncon; ++c) {
    const Contact& con = d.contact[c];
    if (con.exclude > 1) continue;
    const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
    if (b1 != b && b2 != b) continue;
    ContactJacobian cj;
    contact_jacobian(m, d, c, &cj);
    make_point(m, d, con.pos, b1, P1);
    make_point(m, d, con.pos, b2, P2);
    const double* n = con.frame;
    for (int k = 0; k < nv; ++k) {
      if (!P1.mask[k] && !P2.mask[k]) continue;
      double dpos[3], ddist, dframe[9];
      contact_jacobian_apply(m, d, con, cj, &d.cdof[6 * k], P1.mask[k], P2.mask[k], P1.o, P2.o, dpos, &ddist, dframe);
      for (int i = 0; i < nv; ++i) {
        if (!P1.mask[i] && !P2.mask[i]) continue;
        double j[3], dj1[3], dj2[3], dj[3];
        sub3(j, &P1.jp[3 * i], &P2.jp[3 * i]);
        point_jac_deriv(m, d, P1, i, k, dpos, dj1);
        point_jac_deriv(m, d, P2, i, k, dpos, dj2);
        sub3(dj, dj1, dj2);
        dmom[static_cast<size_t>(k) * nv + i] += sc * (dot3(dframe, j) + dot3(n, dj));
      }
    }
  }
}

}  // namespace

bool transmission_deriv(const Model& m, const Data& d, int u, double* dlen, double* dmom) {
  const int nv = m.nv, id = m.actuator_trnid[2 * u];
  const double* mom = &d.actuator_moment[static_cast<size_t>(u) * nv];
  if (id < 0) {
    std::fill_n(dlen, nv, 0.0);
    return false;
  }
  const int trn = m.actuator_trntype[u];
  if (trn == kTrnTendon) {
    std::copy_n(mom, nv, dlen);
    if (tendon_is_fixed(m, id)) return false;
    tendon_jacobian_deriv(m, d, id, dmom);
    const double g = m.actuator_gear[6 * u];
    for (size_t i = 0; i < static_cast<size_t>(nv) * nv; ++i) dmom[i] *= g;
    return true;
  }
  if ((trn == kTrnJoint || trn == kTrnJointInParent) &&
      (m.jnt_type[id] == kJointHinge || m.jnt_type[id] == kJointSlide)) {
    std::copy_n(mom, nv, dlen);
    return false;
  }
  std::fill_n(dmom, static_cast<size_t>(nv) * nv, 0.0);
  switch (trn) {
    case kTrnJoint:
    case kTrnJointInParent:
      joint_deriv(m, d, u, trn == kTrnJointInParent, dlen, dmom);
      return trn == kTrnJointInParent;
    case kTrnSliderCrank:
      slidercrank_deriv(m, d, u, dlen, dmom);
      return true;
    case kTrnSite:
      site_deriv(m, d, u, dlen, dmom);
      return true;
    case kTrnBody:
      body_deriv(m, d, u, dlen, dmom);
      return true;
    default:
      return false;
  }
}

MuscleDeriv muscle_deriv(double len, double vel, const double lengthrange[2], double acc0, const double gp[],
                         const double bp[]) {
  using namespace muscle_detail;
  MuscleDeriv r{};
  // gain: -F0 FL(L) FV(V), L = range0 + (len - lr0)/L0, V = vel/(L0 vmax)
  {
    double L0, F0;
    scales(lengthrange, acc0, gp, &L0, &F0);
    const double sl = 1 / std::max(kMinVal, L0), sv = 1 / std::max(kMinVal, L0 * gp[6]);
    const double L = gp[0] + (len - lengthrange[0]) * sl, V = vel * sv;
    const double lmin = gp[4], lmax = gp[5], a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax);
    double dfl = 0;
    if (L <= lmin || L >= lmax) dfl = 0;
    else if (L < a) dfl = (L - lmin) / ((a - lmin) * (a - lmin));
    else if (L <= 1) dfl = (1 - L) / ((1 - a) * (1 - a));
    else if (L <= b) dfl = -(L - 1) / ((b - 1) * (b - 1));
    else dfl = -(lmax - L) / ((lmax - b) * (lmax - b));
    const double c = gp[8] - 1;
    double dfv = 0, ddfv = 0;
    if (V > -1 && V <= 0) dfv = 2 * (V + 1), ddfv = 2;
    else if (V > 0 && V <= c) dfv = 2 * (c - V) / c, ddfv = -2 / c;
    const double FL = fl(L, lmin, lmax), FV = fv(V, gp[8]);
    r.gain = -F0 * FL * FV;
    r.gl = -F0 * dfl * sl * FV;
    r.gv = -F0 * FL * dfv * sv;
    r.glv = -F0 * dfl * sl * dfv * sv;
    r.gvv = -F0 * FL * ddfv * sv * sv;
  }
  // bias: -F0 FP(L)
  {
    double L0, F0;
    scales(lengthrange, acc0, bp, &L0, &F0);
    const double sl = 1 / std::max(kMinVal, L0);
    const double L = bp[0] + (len - lengthrange[0]) * sl;
    const double b = 0.5 * (1 + bp[5]);
    double dfp = 0;
    if (L > 1 && L <= b) dfp = bp[7] * (L - 1) / ((b - 1) * (b - 1));
    else if (L > b) dfp = bp[7] / (b - 1);
    r.bias = -F0 * fp(L, bp[5], bp[7]);
    r.bl = -F0 * dfp * sl;
  }
  return r;
}

ActuatorTerms actuator_terms(const Model& m, const Data& d, int u) {
  ActuatorTerms a{};
  const double* gp = &m.actuator_gainprm[kNGAIN * u];
  const double* bp = &m.actuator_biasprm[kNBIAS * u];
  double ctrl = d.ctrl[u];
  a.dctrl = 1;
  if (!(m.opt.disableflags & kDsblClampctrl) && m.actuator_ctrllimited[u]) {
    const double lo = m.actuator_ctrlrange[2 * u], hi = m.actuator_ctrlrange[2 * u + 1];
    if (ctrl < lo || ctrl > hi) a.dctrl = 0;
    ctrl = std::clamp(ctrl, lo, hi);
  }
  const int adr = m.actuator_actadr[u];
  a.input = adr >= 0 ? d.act[adr] : ctrl;
  a.din_act = 1;
  if (adr >= 0) {
    const double* dp = &m.actuator_dynprm[kNDYN * u];
    switch (m.actuator_dyntype[u]) {
      case kDynIntegrator:
        a.gu = a.dctrl;
        break;
      case kDynFilter:
      case kDynFilterExact: {
        const double tau = std::max(kMinVal, dp[0]);
        a.gu = a.dctrl / tau, a.gact = -1 / tau;
        break;
      }
      case kDynMuscle:
        muscle_dynamics_deriv(ctrl, d.act[adr], dp, &a.gact, &a.gu);
        a.gu *= a.dctrl;
        break;
      default:
        break;
    }
    if (m.actuator_actearly.size() > static_cast<size_t>(u) && m.actuator_actearly[u]) {
      double hh = m.opt.timestep;
      if (m.actuator_dyntype[u] == kDynFilterExact) {
        const double tau = std::max(kMinVal, dp[0]);
        hh = tau * (1 - std::exp(-hh / tau));
      }
      double next = d.act[adr] + hh * d.act_dot[adr], clampd = 1;
      if (m.actuator_actlimited.size() > static_cast<size_t>(u) && m.actuator_actlimited[u]) {
        const double lo = m.actuator_actrange[2 * u], hi = m.actuator_actrange[2 * u + 1];
        if (next < lo || next > hi) clampd = 0;
        next = std::clamp(next, lo, hi);
      }
      a.input = next, a.din_act = clampd * (1 + hh * a.gact), a.din_u = clampd * hh * a.gu;
    }
  }
  const double len = d.actuator_length[u], vel = d.actuator_velocity[u];
  if (m.actuator_gaintype[u] == kGainFixed) a.gain = gp[0];
  if (m.actuator_gaintype[u] == kGainAffine) a.gain = gp[0] + gp[1] * len + gp[2] * vel, a.glen = gp[1], a.gvel = gp[2];
  if (m.actuator_biastype[u] == kBiasAffine) a.bias = bp[0] + bp[1] * len + bp[2] * vel, a.blen = bp[1], a.bvel = bp[2];
  if (m.actuator_gaintype[u] == kGainMuscle || m.actuator_biastype[u] == kBiasMuscle) {
    const MuscleDeriv md = muscle_deriv(len, vel, &m.actuator_lengthrange[2 * u], m.actuator_acc0[u], gp, bp);
    if (m.actuator_gaintype[u] == kGainMuscle) a.gain = md.gain, a.glen = md.gl, a.gvel = md.gv;
    if (m.actuator_biastype[u] == kBiasMuscle) a.bias = md.bias, a.blen = md.bl;
  }
  a.dforce = 1;
  if (m.actuator_forcelimited[u]) {
    const double f = a.gain * a.input + a.bias;
    if (f < m.actuator_forcerange[2 * u] || f > m.actuator_forcerange[2 * u + 1]) a.dforce = 0;
  }
  return a;
}

void muscle_dynamics_deriv(double ctrl, double act, const double prm[], double* dact, double* dctrl) {
  // act_dot = (u - act) / tau(u, a), u = clamp(ctrl, 0, 1), a = clamp(act, 0, 1)
  const double u = std::clamp(ctrl, 0.0, 1.0), a = std::clamp(act, 0.0, 1.0);
  // at ctrl = 0 or 1 exactly: the derivative from inside (as transition_fd differences a control
  // at the edge of its range)
  const double du = (ctrl >= 0 && ctrl <= 1) ? 1.0 : 0.0, da = (act > 0 && act < 1) ? 1.0 : 0.0;
  const double ta = prm[0] * (0.5 + 1.5 * a), dta = prm[0] * 1.5 * da;
  const double q = 0.5 + 1.5 * a;
  const double td = prm[1] / q, dtd = -prm[1] * 1.5 * da / (q * q);
  const double smooth = prm[2];
  double tau, tau_act, tau_u;  // tau and its derivatives with respect to act and u
  if (smooth < kMinVal) {
    const bool up = u - act > 0;
    tau = up ? ta : td;
    tau_act = up ? dta : dtd;
    tau_u = 0;
  } else {
    const double xr = (u - act) / smooth + 0.5;
    const double x = std::clamp(xr, 0.0, 1.0);
    const double s = x * x * x * (x * (6 * x - 15) + 10);
    const double ds = (xr > 0 && xr < 1) ? 30 * x * x * (1 - x) * (1 - x) / smooth : 0.0;
    tau = td + (ta - td) * s;
    tau_act = dtd + (dta - dtd) * s - (ta - td) * ds;
    tau_u = (ta - td) * ds;
  }
  if (tau < kMinVal) tau = kMinVal, tau_act = tau_u = 0;
  const double e = u - act;
  *dact = -1 / tau - e * tau_act / (tau * tau);
  *dctrl = du * (1 / tau - e * tau_u / (tau * tau));
}

}  // namespace moreau::internal

namespace moreau::internal {

void spatial_tendon_passive_pos(const Model& m, const Data& d, int t, double* Fq) {
  const int nv = m.nv;
  const double k = m.tendon_stiffness[t], b = m.tendon_damping[t], L = d.ten_length[t];
  double stretch;
  if (m.tendon_lengthspring.size() == 2 * static_cast<size_t>(m.ntendon)) {
    const double lo = m.tendon_lengthspring[2 * t], hi = m.tendon_lengthspring[2 * t + 1];
    stretch = L < lo ? L - lo : (L > hi ? L - hi : 0.0);
  } else {
    stretch = L - m.tendon_lengthspring[t];
  }
  const double f = -k * stretch - b * d.ten_velocity[t];
  const double* J = &d.ten_J[static_cast<size_t>(t) * nv];
  Vec DJ(static_cast<size_t>(nv) * nv);
  tendon_jacobian_deriv(m, d, t, DJ.data());
  for (int c = 0; c < nv; ++c) {
    const double* dj = &DJ[static_cast<size_t>(c) * nv];
    double dv = 0;
    for (int i = 0; i < nv; ++i) dv += dj[i] * d.qvel[i];
    double* col = Fq + static_cast<size_t>(c) * nv;
    for (int i = 0; i < nv; ++i) col[i] += f * dj[i] - b * dv * J[i];
  }
}

namespace {
// res += c P(x z') y, P keeping the entries of M's sparsity (i = a, a an ancestor of i, or i of a).
void add_outer_restricted(const Model& m, const double* x, const double* z, const double* y, double c, double* res) {
  if (c == 0) return;
  for (int i = 0; i < m.nv; ++i) {
    res[i] += c * x[i] * z[i] * y[i];
    for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a]) {
      res[i] += c * x[i] * z[a] * y[a];
      res[a] += c * x[a] * z[i] * y[i];
    }
  }
}
}  // namespace

void implicit_d_deriv(const Model& m, const Data& d, const double* y, double h, double* rhs) {
  const int nv = m.nv, na = m.na, ndx = 2 * nv + na;
  Vec D1(static_cast<size_t>(nv) * nv), dlen(nv);
  auto col = [&](int k) { return rhs + static_cast<size_t>(k) * nv; };
  // c(q) x x' with x = x(q): d(P(c x x') y)/dq_k = P(c (dx_k x' + x dx_k') + dc_k x x') y
  auto moment_terms = [&](const double* x, const double* DX, double c) {
    for (int k = 0; k < nv; ++k) {
      const double* dx = DX + static_cast<size_t>(k) * nv;
      add_outer_restricted(m, dx, x, y, h * c, col(k));
      add_outer_restricted(m, x, dx, y, h * c, col(k));
    }
  };
  if (!(m.opt.disableflags & kDsblPassive))
    for (int t = 0; t < m.ntendon; ++t) {
      if (m.tendon_damping[t] == 0 || tendon_is_fixed(m, t)) continue;
      tendon_jacobian_deriv(m, d, t, D1.data());
      moment_terms(&d.ten_J[static_cast<size_t>(t) * nv], D1.data(), -m.tendon_damping[t]);
    }
  if (m.nu == 0 || (m.opt.disableflags & kDsblActuation)) return;
  for (int u = 0; u < m.nu; ++u) {
    const double* gp = &m.actuator_gainprm[kNGAIN * u];
    const double* bp = &m.actuator_biasprm[kNBIAS * u];
    const bool muscle = m.actuator_gaintype[u] == kGainMuscle;
    if (!muscle && m.actuator_gaintype[u] != kGainAffine && m.actuator_biastype[u] != kBiasAffine) continue;
    const double* x = &d.actuator_moment[static_cast<size_t>(u) * nv];
    const int adr = m.actuator_actadr[u];
    // the input as smooth_vel.cc's actuator_vel takes it
    const double input = adr >= 0 ? d.act[adr] : d.ctrl[u];
    double gv = 0, bv = m.actuator_biastype[u] == kBiasAffine ? bp[2] : 0.0;
    MuscleDeriv md{};
    if (muscle) {
      md = muscle_deriv(d.actuator_length[u], d.actuator_velocity[u], &m.actuator_lengthrange[2 * u],
                        m.actuator_acc0[u], gp, bp);
      gv = md.gv;
    } else if (m.actuator_gaintype[u] == kGainAffine) {
      gv = gp[2];
    }
    const double c = gv * input + bv;
    const bool varying = transmission_deriv(m, d, u, dlen.data(), D1.data());
    if (varying && c != 0) moment_terms(x, D1.data(), c);
    // the input's column: gain_vel x x' (a control outside its range: 0, as the force's derivative)
    double dctrl = 1;
    if (adr < 0 && !(m.opt.disableflags & kDsblClampctrl) && m.actuator_ctrllimited[u] &&
        (d.ctrl[u] < m.actuator_ctrlrange[2 * u] || d.ctrl[u] > m.actuator_ctrlrange[2 * u + 1]))
      dctrl = 0;
    add_outer_restricted(m, x, x, y, h * gv * dctrl, col(adr >= 0 ? 2 * nv + adr : ndx + u));
    if (!muscle) continue;
    // dc: through the length and velocity (qpos, qvel columns) and the input (act or ctrl column)
    for (int k = 0; k < nv; ++k) {
      double dvel = 0;
      if (varying)
        for (int i = 0; i < nv; ++i) dvel += D1[static_cast<size_t>(k) * nv + i] * d.qvel[i];
      add_outer_restricted(m, x, x, y, h * input * (md.glv * dlen[k] + md.gvv * dvel), col(k));
      add_outer_restricted(m, x, x, y, h * input * md.gvv * x[k], col(nv + k));
    }
  }
}

}  // namespace moreau::internal

namespace moreau::internal {

bool spatial_tendon_row(const Model& m, const Data& d, int r) {
  const int id = d.efc_id[r];
  switch (d.efc_type[r]) {
    case kCnstrLimitTendon:
    case kCnstrFrictionTendon:
      return !tendon_is_fixed(m, id);
    case kCnstrEquality:
      if (m.eq_type[id] != kEqTendon) return false;
      return !tendon_is_fixed(m, m.eq_obj1id[id]) || (m.eq_obj2id[id] >= 0 && !tendon_is_fixed(m, m.eq_obj2id[id]));
    default:
      return false;
  }
}

void tendon_row_jacobian_deriv(const Model& m, const Data& d, int r, const double* Jr, double* out) {
  const int nv = m.nv, id = d.efc_id[r];
  const size_t nn = static_cast<size_t>(nv) * nv;
  if (d.efc_type[r] != kCnstrEquality) {
    tendon_jacobian_deriv(m, d, id, out);
    // the row is +-ten_J: its sign from the largest entry
    const double* J = &d.ten_J[static_cast<size_t>(id) * nv];
    int big = 0;
    for (int i = 1; i < nv; ++i)
      if (std::abs(J[i]) > std::abs(J[big])) big = i;
    if (J[big] != 0 && Jr[big] * J[big] < 0)
      for (size_t i = 0; i < nn; ++i) out[i] = -out[i];
    return;
  }
  const int o1 = m.eq_obj1id[id], o2 = m.eq_obj2id[id];
  tendon_jacobian_deriv(m, d, o1, out);
  if (o2 < 0) return;
  const double* a = &m.eq_data[kNEQDATA * id];
  const double x = d.ten_length[o2] - m.tendon_length0[o2];
  const double p1 = a[1] + 2 * a[2] * x + 3 * a[3] * x * x + 4 * a[4] * x * x * x;
  const double p2 = 2 * a[2] + 6 * a[3] * x + 12 * a[4] * x * x;
  const double* J2 = &d.ten_J[static_cast<size_t>(o2) * nv];
  Vec D2(nn);
  tendon_jacobian_deriv(m, d, o2, D2.data());
  for (int k = 0; k < nv; ++k)
    for (int i = 0; i < nv; ++i)
      out[static_cast<size_t>(k) * nv + i] -= p2 * J2[k] * J2[i] + p1 * D2[static_cast<size_t>(k) * nv + i];
}

}  // namespace moreau::internal

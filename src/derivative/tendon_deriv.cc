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
// (and the side site) in the obstacle's frame: dp = jp_g,k(t) + R dt_local, dt_local = W dx_local,
// dx_local = R' (dx - jp_g,k(x)) the motion of each input relative to the obstacle. W (6 x 9) is
// taken by centred differences of the wrap routine alone (step 1e-5 of the radius and half of it,
// extrapolated: truncation O(h^4), round-off ~1e-11 of the radius), on the branch the routine takes
// at the state; where a perturbation changes the branch, the one-sided difference of the branch at
// the state (first order).
#include "derivative/tendon_deriv.h"

#include <algorithm>
#include <cmath>

#include "actuation/muscle.h"
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
  // W (6 x nin, col-major) by centred differences of the wrap routine, extrapolated
  const double h = 1e-5 * m.geom_size[3 * g];
  double W[54];
  for (int c = 0; c < nin; ++c) {
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
      return m.jnt_type[id] == kJointHinge || m.jnt_type[id] == kJointSlide;
    case kTrnTendon:
      return true;
    default:
      return false;
  }
}

bool transmission_deriv(const Model& m, const Data& d, int u, double* dlen, double* dmom) {
  const int nv = m.nv, id = m.actuator_trnid[2 * u];
  const double* mom = &d.actuator_moment[static_cast<size_t>(u) * nv];
  if (id < 0) {
    std::fill_n(dlen, nv, 0.0);
    return false;
  }
  switch (m.actuator_trntype[u]) {
    case kTrnTendon: {
      std::copy_n(mom, nv, dlen);
      if (tendon_is_fixed(m, id)) return false;
      tendon_jacobian_deriv(m, d, id, dmom);
      const double g = m.actuator_gear[6 * u];
      for (size_t i = 0; i < static_cast<size_t>(nv) * nv; ++i) dmom[i] *= g;
      return true;
    }
    default:  // scalar joints
      std::copy_n(mom, nv, dlen);
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
    if (!muscle) continue;
    // dc: through the length and velocity (qpos, qvel columns) and the input (act or ctrl column)
    for (int k = 0; k < nv; ++k) {
      double dvel = 0;
      if (varying)
        for (int i = 0; i < nv; ++i) dvel += D1[static_cast<size_t>(k) * nv + i] * d.qvel[i];
      add_outer_restricted(m, x, x, y, h * input * (md.glv * dlen[k] + md.gvv * dvel), col(k));
      add_outer_restricted(m, x, x, y, h * input * md.gvv * x[k], col(nv + k));
    }
    add_outer_restricted(m, x, x, y, h * gv, col(adr >= 0 ? 2 * nv + adr : ndx + u));
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

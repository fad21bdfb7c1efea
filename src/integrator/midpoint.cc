// Midpoint integration of free bodies (computation chapter, "Numerical integration", midpoint
// integration for free bodies): the implicit-in-velocity update linearizes the gyroscopic force
// w x Iw, which is quadratic; for a free body without children the rotational equation is instead
// discretized at the midpoint w_mid = (w_t + w_{t+h})/2 in the principal-axis frame,
//   (2/h) I (w_mid - w_t) + w_mid x I w_mid = tau,
// and solved by Newton's method with a backtracking line search. The midpoint rule keeps the
// quadratic invariants of Euler's equations, the kinetic energy w'Iw/2 and |Iw|^2/2, exactly.
//
// The body's 6 dofs (u: world velocity of the body origin, w_l: local angular velocity) are mapped to
// com coordinates x_c = (v_com in world, w_p in the principal frame), where the mass matrix is
// diag(m, I) and the velocity-product force is (0, w x Iw):
//   u = v_com + r x (R_i w_p),   w_l = R_p w_p      (v_gen = T x_c),
// r = xipos - xpos, R_i = ximat, R_p = xmat' ximat. The external force f = qfrc_smooth +
// qfrc_constraint + qfrc_bias - gravity part of qfrc_bias maps to T' f = (F at the com, torque about
// the com in the principal frame). The other velocity-dependent forces keep their implicit
// treatment through the non-RNE block D_c = T' D T of the same 6 dofs:
//   m (v' - v) = h F + h D_c [v' - v; w' - w],     w' = 2 w_mid - w_t,
//   2 I (w_mid - w_t) + h w_mid x I w_mid = h tau + h D_c [...] (rotational rows).
// With D = 0 this is exactly the chapter's equation; translation is then linear (v' = v + hF/m).
// The new origin velocity is taken with the com offset at t+h, u' = v_com' - R_{t+h}(w_l' x ipos),
// so that the kinetic energy evaluated at the next state is that of the solution.
//
// Eligible: a free joint whose body has no child bodies, has mass and inertia, and whose dofs have no
// armature (armature is an extra diagonal inertia in joint coordinates, outside the rigid-body form
// above). The block of
// such a body in M and D is decoupled from every other dof, so replacing its velocities leaves the
// rest of the implicit solution unchanged.
#include <algorithm>
#include <cmath>

#include "derivative/work.h"
#include "integrator/implicit.h"
#include "integrator/integrator.h"
#include "math/so3.h"
#include "math/vec.h"
#include "moreau/moreau.h"

namespace moreau::internal {

using namespace math;

bool midpoint_eligible(const Model& m, int jnt) {
  if (m.jnt_type[jnt] != kJointFree) return false;
  const int b = m.jnt_bodyid[jnt];
  if (m.body_jntnum[b] != 1) return false;
  if (b + 1 < m.nbody && m.body_parentid[b + 1] == b) return false;  // depth-first: a child follows
  const int a = m.jnt_dofadr[jnt];
  for (int c = 0; c < 6; ++c)
    if (m.dof_armature[a + c] != 0) return false;
  if (m.body_mass[b] < kMinVal) return false;  // the equations divide by mass and inertia
  for (int c = 0; c < 3; ++c)
    if (m.body_inertia[3 * b + c] < kMinVal) return false;
  return true;
}

bool midpoint_enabled(const Model& m) {
  if (m.opt.integrator != kIntImplicit && m.opt.integrator != kIntImplicitFast) return false;
  if (m.opt.enableflags & kEnblInvdiscrete) return false;
  for (int j = 0; j < m.njnt; ++j)
    if (midpoint_eligible(m, j)) return true;
  return false;
}

void midpoint_save_blocks(const Model& m, Data& d) {
  double* blocks = deriv_work_midpoint(m, d.work.deriv.data());
  int f = 0;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != kJointFree) continue;
    double* Dg = blocks + 36 * f++;
    const int a = m.jnt_dofadr[j];
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c)
        Dg[6 * r + c] = r >= c ? d.qDeriv[deriv_lower(m, a + r, r - c)] : d.qDeriv[deriv_upper(m, a + c, c - r)];
  }
}

namespace {

// x <- A^-1 x for a dense 6x6 A (row-major, destroyed), Gaussian elimination with partial pivoting.
// Returns false if A is singular.
bool solve6(double* A, double* x) {
  for (int c = 0; c < 6; ++c) {
    int p = c;
    for (int r = c + 1; r < 6; ++r)
      if (std::abs(A[6 * r + c]) > std::abs(A[6 * p + c])) p = r;
    if (A[6 * p + c] == 0) return false;
    if (p != c) {
      for (int k = 0; k < 6; ++k) std::swap(A[6 * c + k], A[6 * p + k]);
      std::swap(x[c], x[p]);
    }
    for (int r = c + 1; r < 6; ++r) {
      const double l = A[6 * r + c] / A[6 * c + c];
      if (l == 0) continue;
      for (int k = c; k < 6; ++k) A[6 * r + k] -= l * A[6 * c + k];
      x[r] -= l * x[c];
    }
  }
  for (int c = 5; c >= 0; --c) {
    double s = x[c];
    for (int k = c + 1; k < 6; ++k) s -= A[6 * c + k] * x[k];
    x[c] = s / A[6 * c + c];
  }
  return true;
}

inline double norm6(const double* x) {
  double s = 0;
  for (int i = 0; i < 6; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

// The midpoint equations of one body in com coordinates (see the file comment).
struct MidpointProblem {
  double h, mass, I[3];
  double F[3], tau[3];  // force at the com (world), torque about the com (principal frame)
  double wt[3];         // w_p at t
  double Dc[36];        // non-RNE velocity derivative in com coordinates

  // Residual of x = (dv, w_mid).
  void residual(const double* x, double* R) const {
    const double* dv = x;
    const double* wm = x + 3;
    double dw[6];  // (v' - v, w' - w) = (dv, 2 (w_mid - w_t))
    for (int i = 0; i < 3; ++i) {
      dw[i] = dv[i];
      dw[3 + i] = 2 * (wm[i] - wt[i]);
    }
    double Iw[3] = {I[0] * wm[0], I[1] * wm[1], I[2] * wm[2]}, gyro[3];
    cross3(gyro, wm, Iw);
    for (int i = 0; i < 6; ++i) {
      double Ddw = 0;
      for (int k = 0; k < 6; ++k) Ddw += Dc[6 * i + k] * dw[k];
      R[i] = i < 3 ? mass * dv[i] - h * F[i] - h * Ddw
                   : I[i - 3] * dw[i] + h * gyro[i - 3] - h * tau[i - 3] - h * Ddw;
    }
  }

  // Jacobian of the residual.
  void jacobian(const double* x, double* J) const {
    const double* wm = x + 3;
    for (int i = 0; i < 6; ++i)
      for (int k = 0; k < 6; ++k) J[6 * i + k] = -h * Dc[6 * i + k] * (k < 3 ? 1 : 2);
    for (int i = 0; i < 3; ++i) {
      J[6 * i + i] += mass;
      J[6 * (3 + i) + 3 + i] += 2 * I[i];
    }
    // d(w x Iw)/dw = [w]x I - [Iw]x
    const double Iw[3] = {I[0] * wm[0], I[1] * wm[1], I[2] * wm[2]};
    const double wx[9] = {0, -wm[2], wm[1], wm[2], 0, -wm[0], -wm[1], wm[0], 0};
    const double Iwx[9] = {0, -Iw[2], Iw[1], Iw[2], 0, -Iw[0], -Iw[1], Iw[0], 0};
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) J[6 * (3 + i) + 3 + k] += h * (wx[3 * i + k] * I[k] - Iwx[3 * i + k]);
  }

  // Newton's method with a backtracking line search from x; stops when the residual no longer
  // decreases (it has reached rounding level) or after kMaxIter iterations.
  void solve(double* x) const {
    constexpr int kMaxIter = 50;
    double R[6], J[36], step[6], xn[6], Rn[6];
    residual(x, R);
    double r = norm6(R);
    for (int it = 0; it < kMaxIter && r > 0; ++it) {
      jacobian(x, J);
      for (int i = 0; i < 6; ++i) step[i] = -R[i];
      if (!solve6(J, step)) return;
      bool improved = false;
      for (double alpha = 1; alpha > 1e-10; alpha *= 0.5) {
        for (int i = 0; i < 6; ++i) xn[i] = x[i] + alpha * step[i];
        residual(xn, Rn);
        const double rn = norm6(Rn);
        if (rn < r) {
          std::copy_n(xn, 6, x);
          std::copy_n(Rn, 6, R);
          r = rn;
          improved = true;
          break;
        }
      }
      if (!improved) return;
    }
  }
};

// 6x6 C = T' A T with T = [E S; 0 P] (3x3 blocks).
void congruence(double* C, const double* A, const double* S, const double* P) {
  double T[36] = {0}, AT[36];
  for (int i = 0; i < 3; ++i) {
    T[6 * i + i] = 1;
    for (int k = 0; k < 3; ++k) {
      T[6 * i + 3 + k] = S[3 * i + k];
      T[6 * (3 + i) + 3 + k] = P[3 * i + k];
    }
  }
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) {
      double s = 0;
      for (int l = 0; l < 6; ++l) s += A[6 * i + l] * T[6 * l + k];
      AT[6 * i + k] = s;
    }
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) {
      double s = 0;
      for (int l = 0; l < 6; ++l) s += T[6 * l + i] * AT[6 * l + k];
      C[6 * i + k] = s;
    }
}

// One body's midpoint problem at the current state, with the map T = [E, S; 0, R_p] from com to
// joint coordinates (file comment) and the external force f in joint coordinates.
struct MidpointSetup {
  MidpointProblem p;
  const double* R;  // xmat
  double Rp[9], r[3], S[9];
  double vcom[3];
  double f[6];
};

MidpointSetup midpoint_setup(const Model& m, const Data& d, int jnt, const double* Dg) {
  const int b = m.jnt_bodyid[jnt];
  const int a = m.jnt_dofadr[jnt];
  const double h = m.opt.timestep;
  MidpointSetup s;
  s.R = &d.xmat[9 * b];
  const double* R = s.R;
  const double* Ri = &d.ximat[9 * b];
  mulmatTmat3(s.Rp, R, Ri);
  sub3(s.r, &d.xipos[3 * b], &d.xpos[3 * b]);

  // state in com coordinates
  const double* u = &d.qvel[a];
  const double* wl = &d.qvel[a + 3];
  double ww[3], wxr[3];
  mulmatvec3(ww, R, wl);
  cross3(wxr, ww, s.r);
  add3(s.vcom, u, wxr);

  MidpointProblem& p = s.p;
  p.h = h;
  p.mass = m.body_mass[b];
  copy3(p.I, &m.body_inertia[3 * b]);
  mulmatTvec3(p.wt, s.Rp, wl);

  // external force: everything but the velocity-product part of qfrc_bias
  for (int i = 0; i < 6; ++i) s.f[i] = d.qfrc_smooth[a + i] + d.qfrc_constraint[a + i] + d.qfrc_bias[a + i];
  copy3(p.F, s.f);
  if (!(m.opt.disableflags & kDsblGravity)) addscl3(p.F, m.opt.gravity, p.mass);
  double tw[3], rxf[3];
  mulmatvec3(tw, R, s.f + 3);
  cross3(rxf, s.r, s.f);
  sub3(tw, tw, rxf);
  mulmatTvec3(p.tau, Ri, tw);

  // D in com coordinates: T = [E, [r]x R_i; 0, R_p]
  const double rx[9] = {0, -s.r[2], s.r[1], s.r[2], 0, -s.r[0], -s.r[1], s.r[0], 0};
  mulmatmat3(s.S, rx, Ri);
  congruence(p.Dc, Dg, s.S, s.Rp);
  return s;
}

// Newton's method from the explicit half step.
void midpoint_solve(const MidpointProblem& p, double* x) {
  for (int i = 0; i < 3; ++i) x[i] = p.h * p.F[i] / p.mass;
  {
    const double Iw[3] = {p.I[0] * p.wt[0], p.I[1] * p.wt[1], p.I[2] * p.wt[2]};
    double g[3];
    cross3(g, p.wt, Iw);
    for (int i = 0; i < 3; ++i) x[3 + i] = p.wt[i] + 0.5 * p.h * (p.tau[i] - g[i]) / std::max(kMinVal, p.I[i]);
  }
  p.solve(x);
}

// Back to joint coordinates at t+h: dv = (v_{t+h} - v_t)/h from the solution x; also the new local
// angular velocity and the orientation at t+h.
void midpoint_finish(const Model& m, const Data& d, int jnt, const MidpointSetup& s, const double* x, double* dv,
                     double* wl_next, double* Rn) {
  const int b = m.jnt_bodyid[jnt];
  const int qa = m.jnt_qposadr[jnt];
  const double h = s.p.h;
  const double* u = &d.qvel[m.jnt_dofadr[jnt]];
  const double* wl = u + 3;
  double wp_next[3], vcom_next[3];
  for (int i = 0; i < 3; ++i) {
    wp_next[i] = 2 * x[3 + i] - s.p.wt[i];
    vcom_next[i] = s.vcom[i] + x[i];
  }
  mulmatvec3(wl_next, s.Rp, wp_next);
  double q[4], axis[3] = {wl_next[0], wl_next[1], wl_next[2]};
  copy4(q, &d.qpos[qa + 3]);
  normalize4(q);
  const double n = normalize3(axis);
  if (n >= kMinVal) {
    double dq[4];
    axisangle2quat(dq, axis, n * h);
    mulquat(q, q, dq);
    normalize4(q);
  }
  double wxi[3], off[3];
  quat2mat(Rn, q);
  cross3(wxi, wl_next, &m.body_ipos[3 * b]);
  mulmatvec3(off, Rn, wxi);
  for (int i = 0; i < 3; ++i) {
    dv[i] = (vcom_next[i] - off[i] - u[i]) / h;
    dv[3 + i] = (wl_next[i] - wl[i]) / h;
  }
}

void midpoint_body(const Model& m, Data& d, int jnt, const double* Dg, double* dv) {
  const MidpointSetup s = midpoint_setup(m, d, jnt, Dg);
  double x[6], wl_next[3], Rn[9];
  midpoint_solve(s.p, x);
  midpoint_finish(m, d, jnt, s, x, dv + m.jnt_dofadr[jnt], wl_next, Rn);
}

}  // namespace

void midpoint_free_bodies(const Model& m, Data& d, double* dv) {
  const double* blocks = deriv_work_midpoint(m, d.work.deriv.data());
  int f = 0;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != kJointFree) continue;
    const double* Dg = blocks + 36 * f++;
    if (midpoint_eligible(m, j)) midpoint_body(m, d, j, Dg, dv);
  }
}

}  // namespace moreau::internal

namespace moreau::internal {

using namespace math;

// Linearization (implicit-function theorem on the residual at the solution x, J dx = -dR/dp dp):
// with the tangent dr of the body's rotation (R' = R exp([dr]x), local frame), the setup moves by
//   d w_t = R_p' d w_l,
//   d v_com = d u + R (dr x (w_l x ipos)) + R (d w_l x ipos),
//   d F = d f_lin,   d tau = R_p' (d f_ang - ipos x (R' d f_lin - dr x R' f_lin)),
//   d S = R [dr]x [ipos]x R_p   (S = [r]x R_i = R [ipos]x R_p; R_p is constant),
// and D_c dw = T' D T dw moves by dT' z + T' dD y + T' D dT dw (y = T dw, z = D y). After the solve,
// t+h: d w_l' = R_p (2 d w_mid - d w_t), R_{t+h} = R exp(h w_l') moves by
// psi = exp(h w_l')' dr + Jr(h w_l') h d w_l' (math/so3.h), and u' = v_com' - R_{t+h} (w_l' x ipos).
void midpoint_linearize(const Model& m, const Data& d, int jnt, const double* Dg, MidpointLinear& L) {
  const int b = m.jnt_bodyid[jnt];
  const MidpointSetup s = midpoint_setup(m, d, jnt, Dg);
  double x[6], Rn[9];
  midpoint_solve(s.p, x);
  midpoint_finish(m, d, jnt, s, x, L.dv, L.wl_next, Rn);

  L.h = s.p.h;
  copy3(L.I, s.p.I);
  copy3(L.ipos, &m.body_ipos[3 * b]);
  copy9(L.R, s.R);
  copy9(L.Rp, s.Rp);
  copy9(L.S, s.S);
  copy9(L.Rn, Rn);
  copy3(L.flin, s.f);
  copy3(L.wl, &d.qvel[m.jnt_dofadr[jnt] + 3]);
  std::copy_n(s.p.Dc, 36, L.Dc);
  std::copy_n(Dg, 36, L.Dg);
  // dw = (dv_c, 2 (w_mid - w_t)), y = T dw, z = D y
  for (int i = 0; i < 3; ++i) {
    L.dw[i] = x[i];
    L.dw[3 + i] = 2 * (x[3 + i] - s.p.wt[i]);
  }
  double t[3];
  mulmatvec3(t, s.S, L.dw + 3);
  add3(L.y, L.dw, t);
  mulmatvec3(L.y + 3, s.Rp, L.dw + 3);
  for (int i = 0; i < 6; ++i) {
    double z = 0;
    for (int k = 0; k < 6; ++k) z += Dg[6 * i + k] * L.y[k];
    L.z[i] = z;
  }
  // J^-1 at the solution, column by column
  double J[36], A[36];
  s.p.jacobian(x, J);
  for (int c = 0; c < 6; ++c) {
    double e[6] = {0, 0, 0, 0, 0, 0};
    e[c] = 1;
    std::copy_n(J, 36, A);
    solve6(A, e);
    for (int i = 0; i < 6; ++i) L.Jinv[6 * i + c] = e[i];
  }
  double phi[3];
  scl3(phi, L.wl_next, L.h);
  so3_jacobians(phi, L.Jr, L.E);
}

void midpoint_tangent(const MidpointLinear& L, const double* dr, const double* dvel, const double* df,
                      const double* hdDy, double* ddv) {
  const double h = L.h;
  const double* du = dvel;
  const double* dwl = dvel + 3;
  double t1[3], t2[3], t3[3];
  // the setup's tangent
  double dwt[3], dvcom[3], dtau[3];
  mulmatTvec3(dwt, L.Rp, dwl);
  cross3(t3, L.wl, L.ipos);
  cross3(t1, dr, t3);
  cross3(t2, dwl, L.ipos);
  add3(t1, t1, t2);
  mulmatvec3(t2, L.R, t1);
  add3(dvcom, du, t2);
  mulmatTvec3(t1, L.R, L.flin);
  cross3(t2, dr, t1);
  mulmatTvec3(t1, L.R, df);
  sub3(t1, t1, t2);
  cross3(t2, L.ipos, t1);
  sub3(t2, df + 3, t2);
  mulmatTvec3(dtau, L.Rp, t2);
  // dS dw_ang = R (dr x (ipos x R_p dw_ang)); dS' z_lin = R_p' (ipos x (dr x R' z_lin))
  double dSdw[3], dStz[3];
  mulmatvec3(t1, L.Rp, L.dw + 3);
  cross3(t2, L.ipos, t1);
  cross3(t1, dr, t2);
  mulmatvec3(dSdw, L.R, t1);
  mulmatTvec3(t1, L.R, L.z);
  cross3(t2, dr, t1);
  cross3(t1, L.ipos, t2);
  mulmatTvec3(dStz, L.Rp, t1);
  // w = h D dT dw + h dD y (joint coordinates), then T' w = (w_lin, S' w_lin + R_p' w_ang)
  double w[6], Tw[6];
  for (int i = 0; i < 6; ++i) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s += L.Dg[6 * i + k] * dSdw[k];
    w[i] = h * s + hdDy[i];
  }
  copy3(Tw, w);
  mulmatTvec3(t1, L.S, w);
  mulmatTvec3(t2, L.Rp, w + 3);
  add3(Tw + 3, t1, t2);
  // dR/dp dp
  double rho[6];
  for (int i = 0; i < 6; ++i) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s += L.Dc[6 * i + 3 + k] * dwt[k];
    rho[i] = 2 * h * s - Tw[i];
  }
  for (int i = 0; i < 3; ++i) {
    rho[i] -= h * df[i];
    rho[3 + i] -= h * dtau[i] + 2 * L.I[i] * dwt[i] + h * dStz[i];
  }
  double dx[6];
  for (int i = 0; i < 6; ++i) {
    double s = 0;
    for (int k = 0; k < 6; ++k) s -= L.Jinv[6 * i + k] * rho[k];
    dx[i] = s;
  }
  // t+h
  double dwl_next[3], psi[3], dvcom_next[3];
  for (int i = 0; i < 3; ++i) {
    t1[i] = 2 * dx[3 + i] - dwt[i];
    dvcom_next[i] = dvcom[i] + dx[i];
  }
  mulmatvec3(dwl_next, L.Rp, t1);
  mulmatTvec3(psi, L.E, dr);
  mulmatvec3(t1, L.Jr, dwl_next);
  addscl3(psi, t1, h);
  // du' = dv_com' - R_{t+h} (psi x (w_l' x ipos) + d w_l' x ipos)
  cross3(t3, L.wl_next, L.ipos);
  cross3(t1, psi, t3);
  cross3(t2, dwl_next, L.ipos);
  add3(t1, t1, t2);
  mulmatvec3(t2, L.Rn, t1);
  for (int i = 0; i < 3; ++i) {
    ddv[i] = (dvcom_next[i] - t2[i] - du[i]) / h;
    ddv[3 + i] = (dwl_next[i] - dwl[i]) / h;
  }
}

}  // namespace moreau::internal

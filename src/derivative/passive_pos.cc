// Position derivatives of ball/free joint springs, gravity compensation and xfrc_applied.
//
// Body forces: qfrc_i = cdof_i . F_sub(body(i)) over the dofs of the chain, F_b the spatial force
// [torque about the origin; force] on body b in the frame of cdof (a frame fixed in space at the
// current subtree com: the scalars cdof . F do not depend on it), F_sub the sum over b's subtree.
// Along the tangent direction of dof k, with unit motion S_k = cdof_k = [w_k; v_k], everything that
// dof k carries moves rigidly (as in analytic_rne.cc):
//   d cdof_j = S_k x cdof_j for the dofs whose axes follow body(k),
//   gravity compensation F_b = gc I_b [0; -g]:   dF_b = gc (S_k x* (I_b a) - I_b (S_k x a)), a = [0; -g]
//   xfrc_applied F_b = [t + (p - o) x f; f]:     dF_b = [dp x f; 0], dp = v_k + w_k x (p - o)
// (f, t and g are fixed in the world; p = xipos_b moves with the body), for b in body(k)'s subtree.
#include <algorithm>
#include <cmath>

#include "derivative/passive_pos.h"
#include "derivative/recycling.h"
#include "derivative/work.h"
#include "dynamics/fluid.h"
#include "math/spatial.h"
#include "math/vec.h"

namespace moreau::internal {

using namespace math;

void ball_spring_pos(const Model& m, const Data& d, double* Fq) {
  const int nv = m.nv;
  for (int j = 0; j < m.njnt; ++j) {
    const double k = m.jnt_stiffness[j];
    const int type = m.jnt_type[j];
    if (k == 0 || (type != kJointBall && type != kJointFree)) continue;
    int qadr = m.jnt_qposadr[j], vadr = m.jnt_dofadr[j];
    if (type == kJointFree) {
      for (int c = 0; c < 3; ++c) Fq[static_cast<size_t>(vadr + c) * nv + vadr + c] -= k;
      qadr += 3;
      vadr += 3;
    }
    double q[4], rv[3];
    copy4(q, &d.qpos[qadr]);
    normalize4(q);
    subquat(rv, q, &m.qpos_spring[qadr]);
    // Jr^-1(rv) = I + K/2 + c K^2, K = [rv]x, c = 1/th^2 - (1 + cos th) / (2 th sin th) (-> 1/12)
    const double th = norm3(rv);
    const double K[9] = {0, -rv[2], rv[1], rv[2], 0, -rv[0], -rv[1], rv[0], 0};
    const double c = th < 1e-6 ? 1.0 / 12 : 1 / (th * th) - (1 + std::cos(th)) / (2 * th * std::sin(th));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double K2 = 0;
        for (int l = 0; l < 3; ++l) K2 += K[3 * a + l] * K[3 * l + b];
        const double Jinv = (a == b ? 1.0 : 0.0) + 0.5 * K[3 * a + b] + c * K2;
        Fq[static_cast<size_t>(vadr + b) * nv + vadr + a] -= k * Jinv;
      }
  }
}

void body_force_pos(const Model& m, const Data& d, bool gravcomp, bool xfrc, double* Fq) {
  const int nv = m.nv, nb = m.nbody;
  if (nv == 0) return;
  gravcomp = gravcomp && !m.body_gravcomp.empty();
  auto gc_of = [&](int b) { return gravcomp ? m.body_gravcomp[b] : 0.0; };
  auto xf_of = [&](int b) -> const double* {
    if (!xfrc) return nullptr;
    const double* x = &d.xfrc_applied[6 * b];
    return (x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] == 0 && x[4] == 0 && x[5] == 0) ? nullptr : x;
  };
  bool any = false;
  for (int b = 1; b < nb && !any; ++b) any = gc_of(b) != 0 || xf_of(b);
  if (!any) return;
  using Vec = RecycledVec;
  Vec F(6 * nb, 0.0), dF(6 * nb), dS(6 * nv);
  const double a[6] = {0, 0, 0, -m.opt.gravity[0], -m.opt.gravity[1], -m.opt.gravity[2]};
  for (int b = 1; b < nb; ++b) {
    const double* o = &d.subtree_com[3 * m.body_rootid[b]];
    if (const double gc = gc_of(b); gc != 0) {
      double t[6];
      mul_inert_vec(t, &d.cinert[10 * b], a);
      addtoscl6(&F[6 * b], t, gc);
    }
    if (const double* x = xf_of(b)) {
      double t[6];
      force_at_origin(t, x, x + 3, &d.xipos[3 * b], o);
      addto6(&F[6 * b], t);
    }
  }
  for (int b = nb - 1; b > 0; --b)
    if (m.body_parentid[b] > 0) addto6(&F[6 * m.body_parentid[b]], &F[6 * b]);

  const double* S = d.cdof.data();
  for (int k = 0; k < nv; ++k) {
    const int bk = m.dof_bodyid[k];
    const int end = internal::subtree_end(m, bk);
    const double* Sk = S + 6 * k;
    const int jk = m.dof_jntid[k];
    const bool krot_ballfree = internal::rotational_ballfree_dof(m, k);
    // body forces' derivatives over the subtree, summed towards body(k)
    bool nonzero = false;
    for (int b = bk; b < end; ++b) {
      double* df = &dF[6 * b];
      zero6(df);
      if (const double gc = gc_of(b); gc != 0) {
        double Ia[6], t[6], Sa[6];
        const double* I = &d.cinert[10 * b];
        mul_inert_vec(Ia, I, a);
        cross_force(t, Sk, Ia);
        addtoscl6(df, t, gc);
        cross_motion(Sa, Sk, a);
        mul_inert_vec(t, I, Sa);
        addtoscl6(df, t, -gc);
        nonzero = true;
      }
      if (const double* x = xf_of(b)) {
        const double* o = &d.subtree_com[3 * m.body_rootid[b]];
        double r[3], dp[3], t[3];
        sub3(r, &d.xipos[3 * b], o);
        cross3(dp, Sk, r);
        add3(dp, dp, Sk + 3);
        cross3(t, dp, x);
        add3(df, df, t);
        nonzero = true;
      }
    }
    for (int b = end - 1; b > bk; --b) addto6(&dF[6 * m.body_parentid[b]], &dF[6 * b]);
    // d cdof of the dofs of the subtree (the rule of analytic_rne.cc)
    const int dof0 = m.body_dofadr[bk];
    const int dof1 = internal::subtree_dof_end(m, bk, end);
    for (int i = dof0; i < dof1; ++i) {
      const int ji = m.dof_jntid[i];
      const bool itrans_free = m.jnt_type[ji] == kJointFree && i < m.jnt_dofadr[ji] + 3;
      bool moved;
      if (itrans_free || i == k)
        moved = false;
      else if (m.dof_bodyid[i] != bk || i > k)
        moved = true;
      else
        moved = krot_ballfree && ji == jk;
      const int b = m.dof_bodyid[i];
      double v = nonzero ? dot6(S + 6 * i, &dF[6 * b]) : 0;
      if (moved) {
        cross_motion(&dS[6 * i], Sk, S + 6 * i);
        v += dot6(&dS[6 * i], &F[6 * b]);
      }
      Fq[static_cast<size_t>(k) * nv + i] += v;
    }
    if (nonzero)
      for (int i = m.dof_parentid[dof0]; i >= 0; i = m.dof_parentid[i])
        Fq[static_cast<size_t>(k) * nv + i] += dot6(S + 6 * i, &dF[6 * bk]);
  }
}

}  // namespace moreau::internal

namespace moreau::internal {

// Fluid forces (src/dynamics/fluid.cc): per fluid frame (a body's inertia frame under the
// inertia-box model, each geom of the ellipsoid model) at point p with rotation R, the local wrench
// (g_l, f_l) = W(w_l, v_l) of the local velocities w_l = R' w, v_l = R' (v_p - wind), with the local
// Jacobian H = dW/d(w_l, v_l) (smooth_vel.cc's). Along dof k (S_k = [wk; uk]) for a frame carried
// by k: dR = [wk]x R, dp = uk + wk x (p - o), the body's velocity turns with the dofs k moves,
// d cvel = S_k x V_moved, so
//   dw_l = R' (dw - wk x w),  dv_l = R' (dv_p - wk x (v_p - wind)),  dv_p = dv_o + dw x r + w x dp,
//   d(g, f) = wk x (g, f) + R H (dw_l, dv_l),
//   dF = [dg + dp x f + r x df; df]   (F = [g + r x f; f], r = p - o),
// projected as body_force_pos does. The inertia box's H is diagonal:
//   df_i/dv_i = -4 rho r_j r_k |v_i| - 6 beta pi r_eq,  dg_i/dw_i = -rho r_i (r_j^4 + r_k^4) |w_i| - 8 beta pi r_eq^3.
void fluid_pos(const Model& m, const Data& d, double* Fq) {
  const int nv = m.nv, nb = m.nbody;
  if (nv == 0 || (m.opt.disableflags & kDsblPassive) || !(m.opt.density > 0 || m.opt.viscosity > 0)) return;
  using Vec = RecycledVec;
  using IVec = RecycledIntVec;
  // frames: p 3, R 9, g 3, f 3 (world), H 36, local w 3, local v 3 -> stride 60
  constexpr int kS = 60;
  IVec first(nb + 1, 0);
  int nframe = 0;
  for (int b = 1; b < nb; ++b) {
    if (fluid_ellipsoid_body(m, b)) {
      for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g)
        nframe += m.geom_fluid[kNFLUID * g] > 0;
    } else if (m.body_mass[b] >= kMinVal) {
      ++nframe;
    }
  }
  Vec fr(static_cast<size_t>(nframe) * kS, 0.0), F(6 * nb, 0.0), dF(6 * nb), Vm(6 * nb);
  IVec fbody(nframe);
  const double rho = m.opt.density, beta = m.opt.viscosity, pi = M_PI;
  int n = 0;
  auto add_frame = [&](int b, const double* p, const double* R, int geom) {
    double* x = &fr[static_cast<size_t>(n) * kS];
    double *P = x, *RR = x + 3, *g = x + 12, *f = x + 15, *H = x + 18, *wl = x + 54, *vl = x + 57;
    copy3(P, p);
    for (int i = 0; i < 9; ++i) RR[i] = R[i];
    fluid_local_velocity(m, d, b, p, R, wl, vl);
    double gl[3], fl[3];
    if (geom >= 0) {
      ellipsoid_fluid_wrench(m, geom, wl, vl, gl, fl);
      ellipsoid_fluid_jacobian(m, geom, wl, vl, H);
    } else {
      double r[3];
      fluid_box_halfsizes(m, b, r);
      const double req = (r[0] + r[1] + r[2]) / 3;
      for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        const double r4 = r[j] * r[j] * r[j] * r[j] + r[k] * r[k] * r[k] * r[k];
        fl[i] = -2 * rho * r[j] * r[k] * std::abs(vl[i]) * vl[i] - 6 * beta * pi * req * vl[i];
        gl[i] = -0.5 * rho * r[i] * r4 * std::abs(wl[i]) * wl[i] - 8 * beta * pi * req * req * req * wl[i];
        H[6 * i + i] = -rho * r[i] * r4 * std::abs(wl[i]) - 8 * beta * pi * req * req * req;
        H[6 * (3 + i) + 3 + i] = -4 * rho * r[j] * r[k] * std::abs(vl[i]) - 6 * beta * pi * req;
      }
    }
    mulmatvec3(g, R, gl);
    mulmatvec3(f, R, fl);
    fbody[n] = b;
    double t[6];
    force_at_origin(t, f, g, p, &d.subtree_com[3 * m.body_rootid[b]]);
    addto6(&F[6 * b], t);
    ++n;
  };
  for (int b = 1; b < nb; ++b) {
    first[b] = n;
    if (fluid_ellipsoid_body(m, b)) {
      for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g)
        if (m.geom_fluid[kNFLUID * g] > 0) add_frame(b, &d.geom_xpos[3 * g], &d.geom_xmat[9 * g], g);
    } else if (m.body_mass[b] >= kMinVal) {
      add_frame(b, &d.xipos[3 * b], &d.ximat[9 * b], -1);
    }
  }
  first[nb] = n;
  if (nframe == 0) return;
  for (int b = nb - 1; b > 0; --b)
    if (m.body_parentid[b] > 0) addto6(&F[6 * m.body_parentid[b]], &F[6 * b]);

  const double* S = d.cdof.data();
  Vec dS(6 * nv);
  for (int k = 0; k < nv; ++k) {
    const int bk = m.dof_bodyid[k];
    const int end = internal::subtree_end(m, bk);
    const double* Sk = S + 6 * k;
    const int jk = m.dof_jntid[k];
    const bool krot_ballfree = internal::rotational_ballfree_dof(m, k);
    auto moves = [&](int i) {
      const int ji = m.dof_jntid[i];
      if ((m.jnt_type[ji] == kJointFree && i < m.jnt_dofadr[ji] + 3) || i == k) return false;
      if (m.dof_bodyid[i] != bk || i > k) return true;
      return krot_ballfree && ji == jk;
    };
    // velocity of the moved dofs per body of the subtree, and the frames' dF
    for (int b = bk; b < end; ++b) {
      double* vm = &Vm[6 * b];
      if (b == bk) zero6(vm);
      else copy6(vm, &Vm[6 * m.body_parentid[b]]);
      for (int i = m.body_dofadr[b]; i < m.body_dofadr[b] + m.body_dofnum[b]; ++i)
        if (moves(i)) addtoscl6(vm, S + 6 * i, d.qvel[i]);
      double* df = &dF[6 * b];
      zero6(df);
      const double* cv = &d.cvel[6 * b];
      const double* o = &d.subtree_com[3 * m.body_rootid[b]];
      double dcv[6];
      cross_motion(dcv, Sk, vm);
      for (int q = first[b]; q < first[b + 1]; ++q) {
        const double* x = &fr[static_cast<size_t>(q) * kS];
        const double *p = x, *R = x + 3, *g = x + 12, *f = x + 15, *H = x + 18;
        double r[3], dp[3], t[3], vp[3], dvp[3], a[3], dwl[6], dl[6];
        sub3(r, p, o);
        cross3(dp, Sk, r);
        add3(dp, dp, Sk + 3);
        cross3(t, cv, r);
        add3(vp, cv + 3, t);                   // v_p
        cross3(dvp, dcv, r);
        add3(dvp, dvp, dcv + 3);
        cross3(t, cv, dp);
        add3(dvp, dvp, t);                     // dv_p
        cross3(t, Sk, cv);
        sub3(a, dcv, t);
        mulmatTvec3(dwl, R, a);                // dw_l
        sub3(vp, vp, m.opt.wind);
        cross3(t, Sk, vp);
        sub3(a, dvp, t);
        mulmatTvec3(dwl + 3, R, a);            // dv_l
        for (int i = 0; i < 6; ++i) {
          double s = 0;
          for (int j = 0; j < 6; ++j) s += H[6 * i + j] * dwl[j];
          dl[i] = s;
        }
        double dg[3], dfw[3];
        mulmatvec3(dg, R, dl);
        mulmatvec3(dfw, R, dl + 3);
        cross3(t, Sk, g);
        add3(dg, dg, t);
        cross3(t, Sk, f);
        add3(dfw, dfw, t);
        // dF = [dg + dp x f + r x df; df]
        cross3(t, dp, f);
        add3(dg, dg, t);
        cross3(t, r, dfw);
        add3(dg, dg, t);
        add3(df, df, dg);
        add3(df + 3, df + 3, dfw);
      }
    }
    for (int b = end - 1; b > bk; --b) addto6(&dF[6 * m.body_parentid[b]], &dF[6 * b]);
    const int dof0 = m.body_dofadr[bk];
    const int dof1 = internal::subtree_dof_end(m, bk, end);
    for (int i = dof0; i < dof1; ++i) {
      const int b = m.dof_bodyid[i];
      double v = dot6(S + 6 * i, &dF[6 * b]);
      if (moves(i)) {
        cross_motion(&dS[6 * i], Sk, S + 6 * i);
        v += dot6(&dS[6 * i], &F[6 * b]);
      }
      Fq[static_cast<size_t>(k) * nv + i] += v;
    }
    for (int i = m.dof_parentid[dof0]; i >= 0; i = m.dof_parentid[i])
      Fq[static_cast<size_t>(k) * nv + i] += dot6(S + 6 * i, &dF[6 * bk]);
  }
}

}  // namespace moreau::internal

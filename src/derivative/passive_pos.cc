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
    int end = bk + 1;
    while (end < nb && m.body_parentid[end] >= bk) ++end;
    const double* Sk = S + 6 * k;
    const int jk = m.dof_jntid[k];
    const bool krot_ballfree =
        m.jnt_type[jk] == kJointBall || (m.jnt_type[jk] == kJointFree && k >= m.jnt_dofadr[jk] + 3);
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
    int dof1 = dof0;
    for (int b = bk; b < end; ++b) dof1 = std::max(dof1, m.body_dofadr[b] + m.body_dofnum[b]);
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

// Position derivative of RNE (forward-mode along each tangent direction of qpos; Carpentier &
// Mansard, RSS 2018, in the com-based frame of src/dynamics/rne.cc).
//
// The derivative is taken in a frame fixed in space at the current subtree com (the scalars
// rne_i = cdof_i . f are frame-independent, so the moving com origin of cdof and cinert does not
// enter). Along the tangent direction of dof k, everything that dof k carries moves rigidly with the
// unit motion S_k = cdof_k:
//   d cdof_j   = S_k x cdof_j                      (motion cross product)
//   d cinert_b x = S_k x* (I_b x) - I_b (S_k x x)    (spatial inertia in a fixed frame)
// for the bodies b of the subtree of body(k) and the dofs j whose axis follows body(k)'s motion:
// the later dofs of the chain, and all three rotation axes of k's own ball (or free) joint, which
// com_pos takes from the body's final frame. The translation axes of a free joint are world-fixed.
// The recursion of com_vel and rne is then differentiated term by term:
//   cdof_dot_j = v_before_j x S_j,  v_b = v_parent + sum S_j qvel_j,
//   a_b = a_parent + sum (cdof_dot_j qvel_j + S_j qacc_j),  f_b = I_b a_b + v_b x* (I_b v_b),
//   F_b = sum of f over the subtree of b,  rne_i = S_i . F_body(i).
// Only the subtree of body(k) has non-zero dv, da, df; the dofs above it see dF_body(k).
#include <algorithm>
#include <vector>

#include "derivative/recycling.h"
#include "derivative/work.h"
#include "math/spatial.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau::internal {

using namespace math;

bool rne_pos_supported(const Model& m) {
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != kJointBall && m.jnt_type[j] != kJointFree) continue;
    const int b = m.jnt_bodyid[j];
    if (j != m.body_jntadr[b] + m.body_jntnum[b] - 1) return false;
  }
  return true;
}

namespace {

// d I x for I moving with unit motion S (fixed frame): S x* (I x) - I (S x x).
void dinert_vec(double* r, const double* I, const double* S, const double* x) {
  double Ix[6], Sx[6], t[6];
  mul_inert_vec(Ix, I, x);
  cross_force(r, S, Ix);
  cross_motion(Sx, S, x);
  mul_inert_vec(t, I, Sx);
  for (int c = 0; c < 6; ++c) r[c] -= t[c];
}

}  // namespace

void rne_pos_deriv(const Model& m, const Data& d, const double* qvel, const double* qacc, bool gravity,
                   double* out) {
  const int nv = m.nv, nb = m.nbody;
  std::fill_n(out, static_cast<size_t>(nv) * nv, 0.0);
  if (nv == 0) return;
  // nominal pass: cvel, cdof_dot, cacc, cfrc, subtree sums F
  using Vec = RecycledVec;  // per-thread block cache: no heap allocation after the first call
  Vec cvel(6 * nb, 0.0), cacc(6 * nb, 0.0), F(6 * nb, 0.0), cdd(6 * nv, 0.0);
  Vec dS(6 * nv), dv(6 * nb), da(6 * nb), dF(6 * nb), dcdd(6);
  if (gravity && !(m.opt.disableflags & kDsblGravity)) scl3(&cacc[3], m.opt.gravity, -1.0);
  const double* S = d.cdof.data();
  for (int b = 1; b < nb; ++b) {
    const int p = m.body_parentid[b];
    double v[6], a[6];
    copy6(v, &cvel[6 * p]);
    copy6(a, &cacc[6 * p]);
    for (int j = m.body_jntadr[b]; j < m.body_jntadr[b] + m.body_jntnum[b]; ++j) {
      int i = m.jnt_dofadr[j];
      switch (m.jnt_type[j]) {
        case kJointFree:
          for (int c = 0; c < 3; ++c, ++i) addtoscl6(v, S + 6 * i, qvel[i]);
          [[fallthrough]];
        case kJointBall:
          for (int c = 0; c < 3; ++c) cross_motion(&cdd[6 * (i + c)], v, S + 6 * (i + c));
          for (int c = 0; c < 3; ++c) addtoscl6(v, S + 6 * (i + c), qvel[i + c]);
          break;
        default:
          cross_motion(&cdd[6 * i], v, S + 6 * i);
          addtoscl6(v, S + 6 * i, qvel[i]);
          break;
      }
    }
    for (int i = m.body_dofadr[b]; i < m.body_dofadr[b] + m.body_dofnum[b]; ++i) {
      addtoscl6(a, &cdd[6 * i], qvel[i]);
      addtoscl6(a, S + 6 * i, qacc[i]);
    }
    copy6(&cvel[6 * b], v);
    copy6(&cacc[6 * b], a);
    const double* I = &d.cinert[10 * b];
    double Iv[6], t[6];
    mul_inert_vec(&F[6 * b], I, a);
    mul_inert_vec(Iv, I, v);
    cross_force(t, v, Iv);
    addto6(&F[6 * b], t);
  }
  for (int b = nb - 1; b > 0; --b) {
    const int p = m.body_parentid[b];
    if (p > 0) addto6(&F[6 * p], &F[6 * b]);
  }

  for (int k = 0; k < nv; ++k) {
    const int bk = m.dof_bodyid[k];
    const int end = internal::subtree_end(m, bk);
    const double* Sk = S + 6 * k;
    const int jk = m.dof_jntid[k];
    const bool krot_ballfree = internal::rotational_ballfree_dof(m, k);
    // d cdof of the dofs of the subtree
    const int dof0 = m.body_dofadr[bk];
    const int dof1 = internal::subtree_dof_end(m, bk, end);
    for (int j = dof0; j < dof1; ++j) {
      bool moved;
      const int jj = m.dof_jntid[j];
      const bool jtrans_free = m.jnt_type[jj] == kJointFree && j < m.jnt_dofadr[jj] + 3;
      if (jtrans_free || j == k)
        moved = false;
      else if (m.dof_bodyid[j] != bk || j > k)
        moved = true;
      else  // earlier dof of the same body: only the other rotation axes of k's ball/free joint
        moved = krot_ballfree && jj == jk;
      if (moved)
        cross_motion(&dS[6 * j], Sk, S + 6 * j);
      else
        zero6(&dS[6 * j]);
    }
    // forward over the subtree
    for (int b = bk; b < end; ++b) {
      const int p = m.body_parentid[b];
      double v[6], dvb[6], dab[6];
      copy6(v, &cvel[6 * p]);
      if (b == bk) {
        zero6(dvb);
        zero6(dab);
      } else {
        copy6(dvb, &dv[6 * p]);
        copy6(dab, &da[6 * p]);
      }
      for (int j = m.body_jntadr[b]; j < m.body_jntadr[b] + m.body_jntnum[b]; ++j) {
        int i = m.jnt_dofadr[j];
        int nrot = 1;
        switch (m.jnt_type[j]) {
          case kJointFree:
            for (int c = 0; c < 3; ++c, ++i) {
              addtoscl6(v, S + 6 * i, qvel[i]);
              addtoscl6(dvb, &dS[6 * i], qvel[i]);
            }
            nrot = 3;
            break;
          case kJointBall:
            nrot = 3;
            break;
          default:
            break;
        }
        // cdof_dot of the (rotation) axes with the velocity before them
        for (int c = 0; c < nrot; ++c) {
          double t[6];
          cross_motion(dcdd.data(), dvb, S + 6 * (i + c));
          cross_motion(t, v, &dS[6 * (i + c)]);
          addto6(dcdd.data(), t);
          addtoscl6(dab, dcdd.data(), qvel[i + c]);
        }
        for (int c = 0; c < nrot; ++c) {
          addtoscl6(v, S + 6 * (i + c), qvel[i + c]);
          addtoscl6(dvb, &dS[6 * (i + c)], qvel[i + c]);
        }
      }
      for (int i = m.body_dofadr[b]; i < m.body_dofadr[b] + m.body_dofnum[b]; ++i)
        addtoscl6(dab, &dS[6 * i], qacc[i]);
      copy6(&dv[6 * b], dvb);
      copy6(&da[6 * b], dab);
      // df = dI a + I da + dv x* (I v) + v x* (dI v + I dv)
      const double* I = &d.cinert[10 * b];
      const double* vb = &cvel[6 * b];
      double* df = &dF[6 * b];
      double t[6], u[6], w[6];
      dinert_vec(df, I, Sk, &cacc[6 * b]);
      mul_inert_vec(t, I, dab);
      addto6(df, t);
      mul_inert_vec(t, I, vb);
      cross_force(u, dvb, t);
      addto6(df, u);
      dinert_vec(t, I, Sk, vb);
      mul_inert_vec(u, I, dvb);
      addto6(t, u);
      cross_force(w, vb, t);
      addto6(df, w);
    }
    for (int b = end - 1; b > bk; --b) addto6(&dF[6 * m.body_parentid[b]], &dF[6 * b]);
    // dofs of the subtree
    for (int i = dof0; i < dof1; ++i) {
      const int b = m.dof_bodyid[i];
      out[static_cast<size_t>(i) * nv + k] = dot6(&dS[6 * i], &F[6 * b]) + dot6(S + 6 * i, &dF[6 * b]);
    }
    // dofs above body(k)
    for (int i = m.dof_parentid[dof0]; i >= 0; i = m.dof_parentid[i])
      out[static_cast<size_t>(i) * nv + k] = dot6(S + 6 * i, &dF[6 * bk]);
  }
}

}  // namespace moreau::internal

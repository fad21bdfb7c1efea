// Analytic derivative of the smooth forces with respect to velocity (computation chapter,
// "Numerical integration": D = d(tau(v) - c(v))/dv without the constraint forces, restricted to the
// sparsity of M), in the dof-dof sparse layout of moreau/derivative.h:
//
//   passive:   joint damping -b on the diagonal; tendon damping -b J'J; fluid forces J' H J per
//              body (inertia-box model) or per geom (ellipsoid model), H the derivative of the
//              local wrench with respect to the local velocity (fluid_vel below);
//   actuators: moment' (d force/d actuator_velocity) moment, with d force/d vel = gain_vel * input +
//              bias_vel (affine: gainprm[2], biasprm[2]; muscle: the slope of the force-velocity
//              curve);
//   RNE:       -d qfrc_bias/dv, by forward-mode differentiation of com_vel and rne along each
//              column (below).
//
// Entries between dofs on different branches of the tree are dropped (the chapter: "this restriction
// will exclude damping in tendons which connect bodies that are on different branches").
#include <algorithm>
#include <cstring>

#include "derivative/work.h"
#include "dynamics/fluid.h"
#include "engine/checks.h"
#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "moreau/actuation.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {

// D += c x x' on the sparsity of M (x dense, nv).
void add_outer(const Model& m, double* D, const double* x, double c) {
  for (int k = 0; k < m.nv; ++k) {
    const double xk = x[k];
    if (xk == 0) continue;
    D[internal::deriv_lower(m, k, 0)] += c * xk * xk;
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) {
      if (x[i] == 0) continue;
      const double v = c * xk * x[i];
      D[internal::deriv_lower(m, k, t)] += v;
      D[internal::deriv_upper(m, k, t)] += v;
    }
  }
}

// D += J' H J for a wrench (torque, force) in the frame R applied at the point `pos` of body b, whose
// local value depends on the local velocity (w, v) = J qvel through H = d(torque, force)/d(w, v)
// (row-major 6x6). J's column for dof i is (R' cdof_rot, R' (cdof_lin + cdof_rot x (pos - com))),
// the same map fluid.cc uses for velocities and (transposed) for forces. Every pair of dofs on the
// chain of b is ancestor-related, so all entries lie in the sparsity of M; H need not be symmetric
// (lower and upper entries are stored separately).
void add_chain_product(const Model& m, Data& d, int b, const double* pos, const double* R, const double* H,
                       double* D) {
  double* jac = internal::deriv_work_chain(m, d.work.deriv.data());  // per chain dof: J (6), H J (6)
  double off[3];
  sub3(off, pos, &d.subtree_com[3 * m.body_rootid[b]]);
  int n = 0;
  for (int i = internal::last_dof(m, b); i >= 0; i = m.dof_parentid[i], ++n) {
    const double* cdof = &d.cdof[6 * i];
    double* j = jac + 12 * n;
    double lin[3];
    cross3(lin, cdof, off);
    add3(lin, lin, cdof + 3);
    mulmatTvec3(j, R, cdof);
    mulmatTvec3(j + 3, R, lin);
    for (int r = 0; r < 6; ++r) j[6 + r] = dot6(H + 6 * r, j);
  }
  int s = 0;
  for (int i = internal::last_dof(m, b); i >= 0; i = m.dof_parentid[i], ++s) {
    const double* ji = jac + 12 * s;
    int t = 0;
    for (int a = i; a >= 0; a = m.dof_parentid[a], ++t) {
      const double* ja = jac + 12 * (s + t);
      D[internal::deriv_lower(m, i, t)] += dot6(ji, ja + 6);  // row i, column a: J_i' H J_a
      if (t > 0) D[internal::deriv_upper(m, i, t)] += dot6(ja, ji + 6);
    }
  }
}

// Fluid forces (src/dynamics/fluid.cc) depend on qvel through the local velocities only (the
// Jacobians depend on qpos), so their derivative is J' H J per wrench:
//   inertia-box model: f_i(v_i), g_i(w_i) component by component in the inertia frame, H diagonal,
//     df_i/dv_i = -4 rho r_j r_k |v_i| - 6 beta pi r_eq,
//     dg_i/dw_i = -rho r_i (r_j^4 + r_k^4) |w_i| - 8 beta pi r_eq^3 (equal to 2.2.2's qDeriv);
//   ellipsoid model: per geom, H = the exact Jacobian of the local wrench (ellipsoid_fluid_jacobian,
//     forward-mode differentiation of the force function itself). 2.2.2's qDeriv term for this
//     model is not the derivative of its own forces (known_differences.h), so it is not followed.
void fluid_vel(const Model& m, Data& d, double* D) {
  const double rho = m.opt.density, beta = m.opt.viscosity;
  for (int b = 1; b < m.nbody; ++b) {
    double H[36];
    if (fluid_ellipsoid_body(m, b)) {
      for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g) {
        if (m.geom_fluid[kNFLUID * g] <= 0) continue;
        const double* pos = &d.geom_xpos[3 * g];
        const double* R = &d.geom_xmat[9 * g];
        double wl[3], vl[3];
        fluid_local_velocity(m, d, b, pos, R, wl, vl);
        ellipsoid_fluid_jacobian(m, g, wl, vl, H);
        add_chain_product(m, d, b, pos, R, H, D);
      }
      continue;
    }
    if (m.body_mass[b] < kMinVal) continue;
    double r[3];
    fluid_box_halfsizes(m, b, r);
    const double req = (r[0] + r[1] + r[2]) / 3;
    const double* pos = &d.xipos[3 * b];
    const double* R = &d.ximat[9 * b];
    double wl[3], vl[3];
    fluid_local_velocity(m, d, b, pos, R, wl, vl);
    std::fill_n(H, 36, 0.0);
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      H[7 * i] = -rho * r[i] * (r[j] * r[j] * r[j] * r[j] + r[k] * r[k] * r[k] * r[k]) * std::abs(wl[i]) -
                 8 * beta * M_PI * req * req * req;
      H[7 * (3 + i)] = -4 * rho * r[j] * r[k] * std::abs(vl[i]) - 6 * beta * M_PI * req;
    }
    add_chain_product(m, d, b, pos, R, H, D);
  }
}

void passive_vel(const Model& m, Data& d, double* D) {
  if (m.opt.disableflags & kDsblPassive) return;
  for (int i = 0; i < m.nv; ++i) D[internal::deriv_lower(m, i, 0)] -= m.dof_damping[i];
  for (int t = 0; t < m.ntendon; ++t) {
    const double b = m.tendon_damping[t];
    if (b != 0) add_outer(m, D, &d.ten_J[static_cast<size_t>(t) * m.nv], -b);
  }
  if (m.opt.density > 0 || m.opt.viscosity > 0) fluid_vel(m, d, D);
}

void actuator_vel(const Model& m, Data& d, double* D) {
  if (m.nu == 0 || (m.opt.disableflags & kDsblActuation)) return;
  for (int u = 0; u < m.nu; ++u) {
    const double* gainprm = &m.actuator_gainprm[kNGAIN * u];
    const double* biasprm = &m.actuator_biasprm[kNBIAS * u];
    double gain_vel = 0, bias_vel = 0;
    if (m.actuator_gaintype[u] == kGainAffine)
      gain_vel = gainprm[2];
    else if (m.actuator_gaintype[u] == kGainMuscle)
      gain_vel = muscle_gain_vel(d.actuator_length[u], d.actuator_velocity[u], &m.actuator_lengthrange[2 * u],
                                 m.actuator_acc0[u], gainprm);
    if (m.actuator_biastype[u] == kBiasAffine) bias_vel = biasprm[2];
    // the input the gain multiplies: the activation of a stateful actuator, else the control as
    // given (MuJoCo 2.2.2 differentiates with d.ctrl before ctrlrange clamping; measured)
    const int adr = m.actuator_actadr[u];
    const double input = adr >= 0 ? d.act[adr] : d.ctrl[u];
    const double c = gain_vel * input + bias_vel;
    if (c != 0) add_outer(m, D, &d.actuator_moment[static_cast<size_t>(u) * m.nv], c);
  }
}

// -d qfrc_bias/dv, one column k at a time. qfrc_bias_i = cdof_i . f(body_i), f accumulated from the
// leaves, f_b = I_b a_b + v_b x* (I_b v_b), a_b = a_parent + sum_j cdof_dot_j qvel_j,
// cdof_dot_j = v_before_j x cdof_j (com_vel). Differentiating along qvel_k:
//   dv_b = dv_parent (+ cdof_k when passing dof k), dcdof_dot_j = dv_before_j x cdof_j,
//   da_b = da_parent + sum_j (dcdof_dot_j qvel_j) + cdof_dot_k,
//   df_b = I_b da_b + dv_b x* (I_b v_b) + v_b x* (I_b dv_b).
// dv and da vanish outside the subtree of body(k), so only that subtree is visited (bodies are
// numbered depth first: the subtree of b is the range [b, end)); above it the accumulated force is
// df[body(k)], which gives the entries of the ancestors of k.
void body_deriv(const Model& m, const Data& d, int b, int k, const double* dv_parent, const double* da_parent,
                double* dv, double* da, double* df) {
  copy6(dv, dv_parent);
  copy6(da, da_parent);
  double dcdd[6];
  const int jadr = m.body_jntadr[b];
  for (int j = jadr; j < jadr + m.body_jntnum[b]; ++j) {
    int i = m.jnt_dofadr[j];
    switch (m.jnt_type[j]) {
      case kJointFree:
        for (int c = 0; c < 3; ++c, ++i)  // cdof_dot = 0 for the translation axes
          if (i == k) addto6(dv, &d.cdof[6 * i]);
        [[fallthrough]];
      case kJointBall:
        for (int c = 0; c < 3; ++c) {
          cross_motion(dcdd, dv, &d.cdof[6 * (i + c)]);
          addtoscl6(da, dcdd, d.qvel[i + c]);
          if (i + c == k) addto6(da, &d.cdof_dot[6 * (i + c)]);
        }
        for (int c = 0; c < 3; ++c)
          if (i + c == k) addto6(dv, &d.cdof[6 * (i + c)]);
        break;
      default:
        cross_motion(dcdd, dv, &d.cdof[6 * i]);
        addtoscl6(da, dcdd, d.qvel[i]);
        if (i == k) {
          addto6(da, &d.cdof_dot[6 * i]);
          addto6(dv, &d.cdof[6 * i]);
        }
        break;
    }
  }
  const double* I = &d.cinert[10 * b];
  const double* v = &d.cvel[6 * b];
  double Iv[6], Idv[6], t[6];
  mul_inert_vec(df, I, da);
  mul_inert_vec(Iv, I, v);
  cross_force(t, dv, Iv);
  addto6(df, t);
  mul_inert_vec(Idv, I, dv);
  cross_force(t, v, Idv);
  addto6(df, t);
}

void rne_vel(const Model& m, Data& d, double* D) {
  double* w = internal::deriv_work_rne(m, d.work.deriv.data());
  double* dv = w;
  double* da = w + 6 * m.nbody;
  double* df = w + 12 * m.nbody;
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int k = 0; k < m.nv; ++k) {
    const int bk = m.dof_bodyid[k];
    const int end = internal::subtree_end(m, bk);
    body_deriv(m, d, bk, k, zero, zero, dv + 6 * bk, da + 6 * bk, df + 6 * bk);
    for (int b = bk + 1; b < end; ++b) {
      const int p = m.body_parentid[b];
      body_deriv(m, d, b, k, dv + 6 * p, da + 6 * p, dv + 6 * b, da + 6 * b, df + 6 * b);
    }
    for (int b = end - 1; b > bk; --b) addto6(df + 6 * m.body_parentid[b], df + 6 * b);
    // descendants of k: the later dofs of body(k) and the dofs of the subtree
    const int kdepth = internal::dof_depth(m, k);
    for (int i = k + 1; i < m.nv && m.dof_bodyid[i] < end; ++i)
      D[internal::deriv_lower(m, i, internal::dof_depth(m, i) - kdepth)] -=
          dot6(&d.cdof[6 * i], df + 6 * m.dof_bodyid[i]);
    // k and its ancestors: the force accumulated at body(k)
    const double* f = df + 6 * bk;
    D[internal::deriv_lower(m, k, 0)] -= dot6(&d.cdof[6 * k], f);
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t)
      D[internal::deriv_upper(m, k, t)] -= dot6(&d.cdof[6 * i], f);
  }
}

}  // namespace

namespace internal {
// The parts of D: passive and actuator terms, and RNE (separately, for the midpoint integration).
void deriv_passive_actuator_vel(const Model& m, Data& d) {
  std::fill(d.qDeriv.begin(), d.qDeriv.end(), 0.0);  // 2 nM - nv entries (make_data)
  passive_vel(m, d, d.qDeriv.data());
  actuator_vel(m, d, d.qDeriv.data());
}
void deriv_rne_vel(const Model& m, Data& d) { rne_vel(m, d, d.qDeriv.data()); }
// The fluid forces' part alone, added into D (dof-dof sparse, nD entries).
void deriv_fluid_vel(const Model& m, Data& d, double* D) { fluid_vel(m, d, D); }
}  // namespace internal

void deriv_smooth_vel(const Model& m, Data& d, bool rne) {
  internal::check_data(m, d, "deriv_smooth_vel");
  internal::deriv_passive_actuator_vel(m, d);
  if (rne) internal::deriv_rne_vel(m, d);
}

void deriv_to_dense(const Model& m, const double* sparse, double* dense) {
  internal::check_ptr(sparse, m.nv, "deriv_to_dense", "sparse");
  internal::check_ptr(dense, m.nv, "deriv_to_dense", "dense");
  const int nv = m.nv;
  std::fill_n(dense, static_cast<size_t>(nv) * nv, 0.0);
  for (int i = 0; i < nv; ++i) {
    dense[static_cast<size_t>(i) * nv + i] = sparse[internal::deriv_lower(m, i, 0)];
    int t = 1;
    for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a], ++t) {
      dense[static_cast<size_t>(i) * nv + a] = sparse[internal::deriv_lower(m, i, t)];
      dense[static_cast<size_t>(a) * nv + i] = sparse[internal::deriv_upper(m, i, t)];
    }
  }
}

}  // namespace moreau

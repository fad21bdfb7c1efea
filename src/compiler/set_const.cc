// Derived model constants, computed from the model in its default configuration qpos0.
//
// The computation chapter's "Parameters" section: the diagonal approximation of A = J M^-1 J' used
// for the constraint regularizer R is built from "endeffector" inverse inertias of bodies, dofs and
// tendons at qpos0, computed by the compiler. This file computes them, plus the other constants that
// need the dynamics (dof_M0, actuator_acc0, tendon_length0, actuator_length0, the mean inertia that
// scales solver tolerances), the subtree masses, the mean body mass, the model's centre, extent and
// mean body size (statistic.cc), and the offsets of tracking cameras and lights. Call set_const
// again after changing masses, inertias or geometry.
#include <algorithm>
#include <cmath>
#include <vector>

#include "compiler/statistic.h"
#include "math/vec.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

// trace of the 3x3 block of J M^-1 J' for the 3 x nv Jacobian J (rows contiguous), divided by 3.
double mean_inverse_inertia(const Model& m, const Data& d, const double* J, std::vector<double>& tmp) {
  double sum = 0;
  for (int r = 0; r < 3; ++r) {
    std::copy(J + r * m.nv, J + (r + 1) * m.nv, tmp.begin());
    solve_m(m, d, tmp.data());
    for (int k = 0; k < m.nv; ++k) sum += J[r * m.nv + k] * tmp[k];
  }
  return sum / 3;
}

// Mass of each body's subtree.
void subtree_masses(Model& m) {
  m.body_subtreemass = m.body_mass;
  for (int b = m.nbody - 1; b > 0; --b) m.body_subtreemass[m.body_parentid[b]] += m.body_subtreemass[b];
}

// The body whose subtree com poscom0 is relative to: the target body if there is one (2.2.2, measured
// on the targetbodycom cameras of the dog; camlight reads poscom0 for trackcom only), else the own body.
int com_body(const std::vector<int>& targetbodyid, int i, int body) {
  return !targetbodyid.empty() && targetbodyid[i] >= 0 ? targetbodyid[i] : body;
}

// The constant offsets of tracking cameras and lights (src/kinematics/camlight.cc): their frames at
// qpos0 as if rigidly attached (mode fixed), relative to the body (pos0) and to a subtree com
// (poscom0), and their orientation (cam_mat0, light_dir0).
void camlight_constants(Model& m, const Data& d) {
  using namespace math;
  for (int c = 0; c < m.ncam; ++c) {
    const int b = m.cam_bodyid[c];
    double pos[3], q[4];
    mulmatvec3(pos, &d.xmat[9 * b], &m.cam_pos[3 * c]);
    add3(pos, pos, &d.xpos[3 * b]);
    mulquat(q, &d.xquat[4 * b], &m.cam_quat[4 * c]);
    quat2mat(&m.cam_mat0[9 * c], q);
    sub3(&m.cam_pos0[3 * c], pos, &d.xpos[3 * b]);
    sub3(&m.cam_poscom0[3 * c], pos, &d.subtree_com[3 * com_body(m.cam_targetbodyid, c, b)]);
  }
  for (int l = 0; l < m.nlight; ++l) {
    const int b = m.light_bodyid[l];
    double pos[3];
    mulmatvec3(pos, &d.xmat[9 * b], &m.light_pos[3 * l]);
    add3(pos, pos, &d.xpos[3 * b]);
    mulmatvec3(&m.light_dir0[3 * l], &d.xmat[9 * b], &m.light_dir[3 * l]);
    normalize3(&m.light_dir0[3 * l]);
    sub3(&m.light_pos0[3 * l], pos, &d.xpos[3 * b]);
    sub3(&m.light_poscom0[3 * l], pos, &d.subtree_com[3 * com_body(m.light_targetbodyid, l, b)]);
  }
}

}  // namespace

void set_const(Model& m) {
  subtree_masses(m);
  Data d = make_data(m);
  reset_data(m, d);
  // Position-dependent quantities at qpos0; velocities are zero.
  kinematics(m, d);
  com_pos(m, d);
  tendon(m, d);
  crb(m, d);
  factor_m(m, d);
  transmission(m, d);
  camlight_constants(m, d);

  const int nv = m.nv;
  std::vector<double> tmp(std::max(nv, 1)), jacp(3 * std::max(nv, 1)), jacr(3 * std::max(nv, 1));

  // Diagonal of M and of M^-1.
  m.dof_M0.assign(nv, 0);
  std::vector<double> minv_diag(nv, 0);
  for (int i = 0; i < nv; ++i) {
    m.dof_M0[i] = d.qM[m.dof_Madr[i]];
    std::fill(tmp.begin(), tmp.end(), 0.0);
    tmp[i] = 1;
    solve_m(m, d, tmp.data());
    minv_diag[i] = tmp[i];
  }

  // dof_invweight0: M^-1 diagonal, averaged over the translational and the rotational dofs of free
  // joints and over the three dofs of ball joints, so the weight does not depend on the axes.
  m.dof_invweight0.assign(nv, 0);
  for (int j = 0; j < m.njnt; ++j) {
    const int a = m.jnt_dofadr[j];
    auto average = [&](int start, int n) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += minv_diag[start + k];
      for (int k = 0; k < n; ++k) m.dof_invweight0[start + k] = s / n;
    };
    switch (m.jnt_type[j]) {
      case kJointFree: average(a, 3); average(a + 3, 3); break;
      case kJointBall: average(a, 3); break;
      default: m.dof_invweight0[a] = minv_diag[a]; break;
    }
  }

  // body_invweight0: mean translational and rotational inverse inertia at the body's com.
  m.body_invweight0.assign(2 * m.nbody, 0);
  for (int b = 1; b < m.nbody; ++b) {
    if (m.body_weldid[b] == 0) continue;  // welded to the world: no dofs move it
    jac_body_com(m, d, jacp.data(), jacr.data(), b);
    m.body_invweight0[2 * b] = mean_inverse_inertia(m, d, jacp.data(), tmp);
    m.body_invweight0[2 * b + 1] = mean_inverse_inertia(m, d, jacr.data(), tmp);
  }

  // Tendons: length at qpos0 and J M^-1 J'.
  m.tendon_length0.assign(m.ntendon, 0);
  m.tendon_invweight0.assign(m.ntendon, 0);
  for (int t = 0; t < m.ntendon; ++t) {
    m.tendon_length0[t] = d.ten_length[t];
    const double* J = d.ten_J.data() + static_cast<size_t>(t) * nv;
    std::copy(J, J + nv, tmp.begin());
    solve_m(m, d, tmp.data());
    double w = 0;
    for (int k = 0; k < nv; ++k) w += J[k] * tmp[k];
    m.tendon_invweight0[t] = w;
  }

  // Actuators: length at qpos0 and the norm of the acceleration a unit actuator force produces.
  m.actuator_length0.assign(m.nu, 0);
  m.actuator_acc0.assign(m.nu, 0);
  for (int u = 0; u < m.nu; ++u) {
    m.actuator_length0[u] = d.actuator_length[u];
    const double* moment = d.actuator_moment.data() + static_cast<size_t>(u) * nv;
    std::copy(moment, moment + nv, tmp.begin());
    solve_m(m, d, tmp.data());
    double n2 = 0;
    for (int k = 0; k < nv; ++k) n2 += tmp[k] * tmp[k];
    m.actuator_acc0[u] = std::sqrt(n2);
  }

  // Mean diagonal inertia: the scale of the solver's convergence criteria.
  double trace = 0;
  for (int i = 0; i < nv; ++i) trace += m.dof_M0[i];
  m.stat.meaninertia = nv > 0 ? trace / nv : 1;
  // Mean body mass (the world excluded).
  double mass = 0;
  for (int b = 1; b < m.nbody; ++b) mass += m.body_mass[b];
  m.stat.meanmass = m.nbody > 1 ? mass / (m.nbody - 1) : 1;
  // Centre, extent and mean body size.
  set_statistic(m, d);
}

}  // namespace moreau

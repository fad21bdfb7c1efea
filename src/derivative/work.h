// Layout of the work space of the derivatives and the implicit integrators (Data::work.deriv and
// Data::work.fd; their sizes: deriv_work_size and fd_work_size in moreau/derivative.h, work.cc).
#pragma once

#include <algorithm>

#include "moreau/model.h"

namespace moreau::internal {

inline int count_free_joints(const Model& m) {
  int n = 0;
  for (int j = 0; j < m.njnt; ++j) n += m.jnt_type[j] == kJointFree;
  return n;
}

// Data::work.deriv: derivatives of cvel, cacc, cfrc per body (18*nbody) and a fluid wrench's local
// Jacobian J and H J along one dof chain (12*nv) (src/derivative/smooth_vel.cc), and the 6x6 non-RNE blocks of D of the
// free bodies for the midpoint integration (36 each, src/integrator/midpoint.cc).
inline double* deriv_work_rne(const Model& m, double* work) { return work; }
inline double* deriv_work_chain(const Model& m, double* work) { return work + 18LL * m.nbody; }
inline double* deriv_work_midpoint(const Model& m, double* work) { return work + 18LL * m.nbody + 12LL * m.nv; }

// Addresses in the dof-dof sparse layout (moreau/derivative.h): D(i, t-th ancestor of i) for t >= 0,
// and D(t-th ancestor of i, i) for t >= 1.
inline int deriv_lower(const Model& m, int i, int t) { return m.dof_Madr[i] + t; }
inline int deriv_upper(const Model& m, int i, int t) { return m.nM + m.dof_Madr[i] - i + t - 1; }
// Number of ancestors of dof i (its row of qM has depth + 1 entries).
inline int dof_depth(const Model& m, int i) {
  return (i + 1 < m.nv ? m.dof_Madr[i + 1] : m.nM) - m.dof_Madr[i] - 1;
}

// One past the last body of body b's subtree (bodies are numbered depth first).
inline int subtree_end(const Model& m, int b) {
  int end = b + 1;
  while (end < m.nbody && m.body_parentid[end] >= b) ++end;
  return end;
}
// One past the last dof of the subtree of bodies [b, end) (its dofs are contiguous from
// body_dofadr[b], bodies and dofs being numbered depth first).
inline int subtree_dof_end(const Model& m, int b, int end) {
  int dof1 = m.body_dofadr[b];
  for (int c = b; c < end; ++c) dof1 = std::max(dof1, m.body_dofadr[c] + m.body_dofnum[c]);
  return dof1;
}
// Whether dof k rotates a ball joint or is one of a free joint's rotational dofs.
inline bool rotational_ballfree_dof(const Model& m, int k) {
  const int j = m.dof_jntid[k];
  return m.jnt_type[j] == kJointBall || (m.jnt_type[j] == kJointFree && k >= m.jnt_dofadr[j] + 3);
}

// Data::work.fd: saved state (qpos, qvel, act, ctrl, warmstart, qacc), nominal and perturbed outputs
// (next state or qfrc_inverse, sensordata, qM) and a tangent vector (src/derivative/*_fd.cc).
// transition_fd: 4nq + 7nv + 4na + nu + 3ns; inverse_fd: nq + 6nv + 3ns + 3nM.

}  // namespace moreau::internal

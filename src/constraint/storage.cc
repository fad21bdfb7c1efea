// Constraint storage: efc_* capacity, row appending, products with efc_J.
//
// Capacity rule when Model::njmax <= 0: every equality, friction-loss and limit row the model can
// produce at once (connect 3, weld 6, joint/tendon 1; one friction row per dof/tendon with
// frictionloss > 0; two limit rows per limited scalar joint/tendon, one per ball joint) plus
// rows for the contact capacity (d.contact.size(), else nconmax, else 1000 contacts) times the most
// rows one contact can take under either cone (pyramidal 2(condim-1), elliptic condim).
#include <algorithm>
#include <cstring>

#include "constraint/storage.h"
#include "solver/ncp/ncp.h"

namespace moreau {

using constraint::capacity;

void allocate_constraint_storage(const Model& m, Data& d) {
  const int nv = m.nv;
  long long cap = 0;
  if (m.njmax > 0) {
    cap = m.njmax;
  } else {
    for (int i = 0; i < m.neq; ++i) {
      const int t = m.eq_type[i];
      cap += t == kEqConnect ? 3 : t == kEqWeld ? 6 : 1;
    }
    for (int i = 0; i < nv; ++i) cap += m.dof_frictionloss[i] > 0;
    for (int i = 0; i < m.ntendon; ++i) cap += m.tendon_frictionloss[i] > 0;
    for (int j = 0; j < m.njnt; ++j)
      if (m.jnt_limited[j]) cap += m.jnt_type[j] == kJointBall ? 1 : 2;
    for (int i = 0; i < m.ntendon; ++i) cap += 2 * (m.tendon_limited[i] != 0);
    int maxdim = 1;
    for (int g = 0; g < m.ngeom; ++g) maxdim = std::max(maxdim, m.geom_condim[g]);
    for (int p = 0; p < m.npair; ++p) maxdim = std::max(maxdim, m.pair_dim[p]);
    const int rows_per_contact = std::max(maxdim, std::max(1, 2 * (maxdim - 1)));
    long long ncon = static_cast<long long>(d.contact.size());
    if (ncon == 0) ncon = m.nconmax > 0 ? m.nconmax : 1000;
    cap += ncon * rows_per_contact;
  }
  cap = std::max<long long>(cap, 1);
  const size_t n = static_cast<size_t>(cap);
  d.efc_type.assign(n, 0);
  d.efc_id.assign(n, 0);
  d.efc_J.assign(n * nv, 0.0);
  for (auto* v : {&d.efc_pos, &d.efc_margin, &d.efc_frictionloss, &d.efc_diagApprox, &d.efc_D,
                  &d.efc_R, &d.efc_vel, &d.efc_aref, &d.efc_b, &d.efc_force})
    v->assign(n, 0.0);
  d.efc_KBIP.assign(4 * n, 0.0);
  d.efc_state.assign(n, 0);
  d.efc_J_rownnz.assign(n, 0);
  d.efc_J_rowadr.assign(n, 0);
  d.efc_J_colind.assign(n * std::max(nv, 1), 0);
  d.efc_work.assign(static_cast<size_t>(constraint::work_size(static_cast<int>(cap), nv)), 0.0);
  if (d.solver.size() < static_cast<size_t>(kNSolverStat)) d.solver.resize(kNSolverStat);
  if (static_cast<int>(d.qfrc_constraint.size()) < nv) d.qfrc_constraint.assign(nv, 0.0);
  // hard-contact solvers (issue 6): their work space, only when one of them is selected
  if (is_hard_contact_solver(m.opt.solver)) ncp::ensure_storage(m, d);
  d.ne = d.nf = d.nefc = 0;
}

namespace constraint {

bool reserve_rows(Data& d, int n) {
  if (d.nefc + n <= capacity(d)) return true;
  auto& w = d.warning[kWarnCnstrFull];
  w.lastinfo = d.nefc + n;
  w.number++;
  return false;
}

int add_row(const Model& m, Data& d, int type, int id, const double* jrow, double pos,
            double margin, double frictionloss) {
  const int nv = m.nv, i = d.nefc++;
  double* J = d.efc_J.data() + static_cast<size_t>(i) * nv;
  int* colind = d.efc_J_colind.data() + static_cast<size_t>(i) * nv;
  int nnz = 0;
  if (jrow) {
    for (int k = 0; k < nv; ++k) {
      J[k] = jrow[k];
      if (jrow[k] != 0) colind[nnz++] = k;
    }
  } else {
    std::fill_n(J, nv, 0.0);
  }
  d.efc_J_rownnz[i] = nnz;
  d.efc_J_rowadr[i] = i * nv;
  d.efc_type[i] = type;
  d.efc_id[i] = id;
  d.efc_pos[i] = pos;
  d.efc_margin[i] = margin;
  d.efc_frictionloss[i] = frictionloss;
  return i;
}

double dot_row(const Model& m, const Data& d, int i, const double* vec, bool sparse) {
  const int nv = m.nv;
  const double* J = d.efc_J.data() + static_cast<size_t>(i) * nv;
  double s = 0;
  if (sparse) {
    const int* c = d.efc_J_colind.data() + d.efc_J_rowadr[i];
    for (int k = 0, n = d.efc_J_rownnz[i]; k < n; ++k) s += J[c[k]] * vec[c[k]];
  } else {
    for (int k = 0; k < nv; ++k) s += J[k] * vec[k];
  }
  return s;
}

void mul_J(const Model& m, const Data& d, double* res, const double* vec) {
  const bool sparse = use_sparse(m);
  for (int i = 0; i < d.nefc; ++i) res[i] = dot_row(m, d, i, vec, sparse);
}

void mul_JT(const Model& m, const Data& d, double* res, const double* vec) {
  const int nv = m.nv;
  const bool sparse = use_sparse(m);
  std::fill_n(res, nv, 0.0);
  for (int i = 0; i < d.nefc; ++i) {
    const double f = vec[i];
    if (f == 0) continue;
    const double* J = d.efc_J.data() + static_cast<size_t>(i) * nv;
    if (sparse) {
      const int* c = d.efc_J_colind.data() + d.efc_J_rowadr[i];
      for (int k = 0, n = d.efc_J_rownnz[i]; k < n; ++k) res[c[k]] += J[c[k]] * f;
    } else {
      for (int k = 0; k < nv; ++k) res[k] += J[k] * f;
    }
  }
}

}  // namespace constraint
}  // namespace moreau

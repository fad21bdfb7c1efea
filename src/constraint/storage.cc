// Constraint storage: efc_* capacity, row appending, products with efc_J.
//
// Contact capacity (d.contact.size(), make_data): Model::nconmax if > 0; else, if Model::memory
// > 0 (MuJoCo 3.x's arena bytes), as many contacts as fit in `memory` bytes with their constraint
// rows: a contact takes sizeof(Contact) and up to 6 rows of nv + 16 doubles (dense efc_J and the
// per-row arrays), between 1 and 2^30; else max(100, 4*ngeom), at most 10000.
//
// Row capacity rule when Model::njmax <= 0: every equality, friction-loss and limit row the model
// can produce at once (connect 3, weld 6, joint/tendon 1; one friction row per dof/tendon with
// frictionloss > 0; two limit rows per limited scalar joint/tendon, one per ball joint) plus
// rows for the contact capacity (d.contact.size(), else nconmax, else 1000 contacts) times the most
// rows one contact can take under either cone (pyramidal 2(condim-1), elliptic condim).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "constraint/storage.h"
#include "engine/checks.h"
#include "moreau/messages.h"

namespace moreau {

using constraint::capacity;

namespace constraint {

long long memory_per_contact(const Model& m) {
  return static_cast<long long>(sizeof(Contact)) + 6LL * 8 * (m.nv + 16);
}

long long contact_capacity(const Model& m) {
  if (m.nconmax > 0) return m.nconmax;
  if (m.memory > 0) return std::clamp<long long>(m.memory / memory_per_contact(m), 1, 1LL << 30);
  return std::min(10000, std::max(100, 4 * m.ngeom));
}

long long row_capacity(const Model& m, long long ncon) {
  long long cap = 0;
  if (m.njmax > 0) {
    cap = m.njmax;
  } else {
    for (int i = 0; i < m.neq; ++i) {
      const int t = m.eq_type[i];
      cap += t == kEqConnect ? 3 : t == kEqWeld ? 6 : 1;
    }
    for (int i = 0; i < m.nv; ++i) cap += m.dof_frictionloss[i] > 0;
    for (int i = 0; i < m.ntendon; ++i) cap += m.tendon_frictionloss[i] > 0;
    for (int j = 0; j < m.njnt; ++j)
      if (m.jnt_limited[j]) cap += m.jnt_type[j] == kJointBall ? 1 : 2;
    for (int i = 0; i < m.ntendon; ++i) cap += 2 * (m.tendon_limited[i] != 0);
    int maxdim = 1;
    for (int g = 0; g < m.ngeom; ++g) maxdim = std::max(maxdim, m.geom_condim[g]);
    for (int p = 0; p < m.npair; ++p) maxdim = std::max(maxdim, m.pair_dim[p]);
    const int rows_per_contact = std::max(maxdim, std::max(1, 2 * (maxdim - 1)));
    cap += ncon * rows_per_contact;
  }
  return std::max<long long>(cap, 1);
}

long long arena_bytes(const Model& m, long long ncon, long long rows) {
  const long long nnz = nnz_bound(m, rows);
  const long long jacobian = dense_values(m) ? rows * m.nv : nnz;
  const long long work = work_size(m, rows, nnz), iwork = iwork_size(m, rows, nnz);
  const long long per_row = 14 * static_cast<long long>(sizeof(double)) + 5 * static_cast<long long>(sizeof(int));
  return ncon * static_cast<long long>(sizeof(Contact)) + rows * per_row +
         (jacobian + work) * static_cast<long long>(sizeof(double)) +
         (nnz + iwork) * static_cast<long long>(sizeof(int));
}

std::string arena_problem(const Model& m, long long ncon, long long rows, long long memory_limit) {
  constexpr long long kMaxIndex = std::numeric_limits<int>::max();
  if (ncon > kMaxIndex)
    return std::to_string(ncon) + " contacts, more than the " + std::to_string(kMaxIndex) + " that Moreau indexes";
  if (rows > kMaxIndex)
    return std::to_string(ncon) + " contacts with " + std::to_string(rows) + " constraint rows, more than the " +
           std::to_string(kMaxIndex) + " rows that Moreau indexes";
  const long long nnz = nnz_bound(m, rows);
  if (nnz > kMaxIndex)
    return std::to_string(rows) + " constraint rows with up to " + std::to_string(nnz) +
           " Jacobian entries, more than the " + std::to_string(kMaxIndex) + " that Moreau indexes";
  const long long bytes = arena_bytes(m, ncon, rows);
  if (memory_limit > 0 && bytes > memory_limit)
    return std::to_string(ncon) + " contacts and " + std::to_string(rows) + " constraint rows taking " +
           std::to_string(bytes) + " bytes, more than this machine's memory (" + std::to_string(memory_limit) +
           " bytes)";
  return {};
}

}  // namespace constraint

void allocate_constraint_storage(const Model& m, Data& d) {
  internal::check_data(m, d, "allocate_constraint_storage");
  const int nv = m.nv;
  long long ncon = static_cast<long long>(d.contact.size());
  if (ncon == 0) ncon = m.nconmax > 0 ? m.nconmax : 1000;
  const long long cap = constraint::row_capacity(m, ncon);
  const size_t n = static_cast<size_t>(cap);
  const long long nnz = constraint::nnz_bound(m, cap);
  d.efc_type.assign(n, 0);
  d.efc_id.assign(n, 0);
  d.efc_J.assign(constraint::dense_values(m) ? n * nv : static_cast<size_t>(nnz), 0.0);
  for (auto* v : {&d.efc_pos, &d.efc_margin, &d.efc_frictionloss, &d.efc_diagApprox, &d.efc_D,
                  &d.efc_R, &d.efc_vel, &d.efc_aref, &d.efc_b, &d.efc_force})
    v->assign(n, 0.0);
  d.efc_KBIP.assign(4 * n, 0.0);
  d.efc_state.assign(n, 0);
  d.efc_J_rownnz.assign(n, 0);
  d.efc_J_rowadr.assign(n, 0);
  d.efc_J_colind.assign(static_cast<size_t>(nnz), 0);
  d.work.efc.assign(static_cast<size_t>(constraint::work_size(m, static_cast<int>(cap), nnz)), 0.0);
  d.work.efc_int.assign(static_cast<size_t>(constraint::iwork_size(m, static_cast<int>(cap), nnz)), 0);
  if (d.solver.size() < static_cast<size_t>(kNSolverStat)) d.solver.resize(kNSolverStat);
  if (static_cast<int>(d.qfrc_constraint.size()) < nv) d.qfrc_constraint.assign(nv, 0.0);
  d.ne = d.nf = d.nefc = 0;
}

void efc_J_dense(const Model& m, const Data& d, double* out) {
  internal::check_data(m, d, "efc_J_dense");
  internal::check_ptr(out, 1LL * d.nefc * m.nv, "efc_J_dense", "out");
  const int nv = m.nv;
  const double* J = constraint::J_values(m, d);
  std::fill_n(out, static_cast<size_t>(d.nefc) * nv, 0.0);
  for (int i = 0; i < d.nefc; ++i) {
    const constraint::SparseRow r = constraint::row_of(d, J, i);
    for (int k = 0; k < r.nnz; ++k) out[static_cast<size_t>(i) * nv + r.col[k]] = r.val[k];
  }
}

namespace constraint {

// A row's non-zeros are the dofs of at most two bodies' chains (contact, connect, weld: the two
// bodies; joint equality: two joints; friction loss and limits: one joint), except the rows of
// tendons, which can touch every dof. The same bound holds for the dual rows (the ancestor
// closure of those columns, dual.cc).
long long nnz_bound(const Model& m, long long cap) {
  const int nv = m.nv;
  int chain = 0;
  for (int i = 0; i < nv; ++i) {
    int n = 0;
    for (int a = i; a >= 0; a = m.dof_parentid[a]) ++n;
    chain = std::max(chain, n);
  }
  long long tendon_rows = 0;
  for (int t = 0; t < m.ntendon; ++t)
    tendon_rows += (m.tendon_frictionloss[t] > 0) + 2 * (m.tendon_limited[t] != 0);
  for (int e = 0; e < m.neq; ++e) tendon_rows += m.eq_type[e] == kEqTendon;
  const long long per_row = std::max(1, std::min(nv, 2 * chain));
  return std::max<long long>(1, cap * per_row + std::min(tendon_rows, cap) * nv);
}

bool reserve_rows(Data& d, int n) {
  if (d.nefc + n <= capacity(d)) return true;
  warning(d, kWarnCnstrFull, d.nefc + n);
  return false;
}

namespace {
// Common part of add_row and add_row_dense: the row's bookkeeping; returns the row index.
int start_row(Data& d, int type, int id, double pos, double margin, double frictionloss) {
  const int i = d.nefc++;
  d.efc_J_rowadr[i] = i == 0 ? 0 : d.efc_J_rowadr[i - 1] + d.efc_J_rownnz[i - 1];
  d.efc_J_rownnz[i] = 0;
  d.efc_type[i] = type;
  d.efc_id[i] = id;
  d.efc_pos[i] = pos;
  d.efc_margin[i] = margin;
  d.efc_frictionloss[i] = frictionloss;
  return i;
}
double* values(const Model& m, Data& d) { return const_cast<double*>(J_values(m, d)); }

// Whether nnz more values fit the compressed rows; if not (nnz_bound broken: never expected),
// the row keeps no columns and the overflow is reported as a full constraint storage.
bool fits(Data& d, int i, int nnz) {
  if (d.efc_J_rowadr[i] + static_cast<long long>(nnz) <= nnz_capacity(d)) return true;
  warning(d, kWarnCnstrFull, i);
  return false;
}
}  // namespace

int add_row(const Model& m, Data& d, int type, int id, int nnz, const int* cols,
            const double* vals, double pos, double margin, double frictionloss) {
  const int i = start_row(d, type, id, pos, margin, frictionloss);
  if (!fits(d, i, nnz)) nnz = 0;
  const int adr = d.efc_J_rowadr[i];
  if (nnz == 1) {  // (one dof's friction loss or limit: no library calls for one entry)
    d.efc_J_colind[adr] = cols[0];
    values(m, d)[adr] = vals[0];
  } else {
    std::copy_n(cols, nnz, d.efc_J_colind.data() + adr);
    std::copy_n(vals, nnz, values(m, d) + adr);
  }
  d.efc_J_rownnz[i] = nnz;
  if (dense_values(m)) {
    double* J = d.efc_J.data() + static_cast<size_t>(i) * m.nv;
    std::fill_n(J, m.nv, 0.0);
    for (int k = 0; k < nnz; ++k) J[cols[k]] = vals[k];
  }
  return i;
}

int add_row_dense(const Model& m, Data& d, int type, int id, const double* jrow, double pos,
                  double margin, double frictionloss) {
  const int nv = m.nv;
  const int i = start_row(d, type, id, pos, margin, frictionloss);
  const int adr = d.efc_J_rowadr[i];
  int* col = d.efc_J_colind.data() + adr;
  double* val = values(m, d) + adr;
  int nnz = 0;
  int count = 0;
  for (int k = 0; k < nv; ++k) count += jrow[k] != 0;
  if (!fits(d, i, count)) {
    d.efc_J_rownnz[i] = 0;
    if (dense_values(m)) std::fill_n(d.efc_J.data() + static_cast<size_t>(i) * nv, nv, 0.0);
    return i;
  }
  for (int k = 0; k < nv; ++k) {
    if (jrow[k] == 0) continue;
    col[nnz] = k;
    val[nnz++] = jrow[k];
  }
  d.efc_J_rownnz[i] = nnz;
  if (dense_values(m)) std::copy_n(jrow, nv, d.efc_J.data() + static_cast<size_t>(i) * nv);
  return i;
}

int dof_chain(const Model& m, int body, int* chain) {
  int b = body;
  while (b > 0 && m.body_dofnum[b] == 0) b = m.body_parentid[b];
  if (b <= 0) return 0;
  int n = 0;
  for (int i = m.body_dofadr[b] + m.body_dofnum[b] - 1; i >= 0; i = m.dof_parentid[i]) chain[n++] = i;
  std::reverse(chain, chain + n);
  return n;
}

namespace {

// Number of rows from i on (at most shared_rows) whose columns are row i's: all of them unless a
// row was cut short by a full storage (fits).
[[gnu::always_inline]] inline int block_rows(const Data& d, int i) {
  const int g = shared_rows(d, i);
  if (g == 1 || i + g > d.nefc) return 1;
  const int n = d.efc_J_rownnz[i];
  for (int q = 1; q < g; ++q)
    if (d.efc_J_rownnz[i + q] != n) return 1;
  return g;
}

// res[i + q] = row (i + q) . vec for the G rows of a block (values of row q at val + q*n).
template <int G>
void dot_block(const double* val, const int* col, int n, const double* vec, double* res) {
  double s[G] = {};
  for (int k = 0; k < n; ++k) {
    const double x = vec[col[k]];
    for (int q = 0; q < G; ++q) s[q] += val[q * n + k] * x;
  }
  for (int q = 0; q < G; ++q) res[q] = s[q];
}

// res[col[k]] += sum over the NA rows q (in order) of val[q][k] * f[q].
template <int NA>
void axpy_block(const double* const* val, const double* f, const int* col, int n, double* res) {
  for (int k = 0; k < n; ++k) {
    double x = res[col[k]];
    for (int q = 0; q < NA; ++q) x += val[q][k] * f[q];
    res[col[k]] = x;
  }
}

}  // namespace

void mul_J(const Model& m, const Data& d, double* res, const double* vec) {
  const double* J = J_values(m, d);
  for (int i = 0; i < d.nefc;) {
    const int g = block_rows(d, i);
    const int a = d.efc_J_rowadr[i], n = d.efc_J_rownnz[i];
    const int* col = d.efc_J_colind.data() + a;
    switch (g) {
      case 2: dot_block<2>(J + a, col, n, vec, res + i); break;
      case 3: dot_block<3>(J + a, col, n, vec, res + i); break;
      case 4: dot_block<4>(J + a, col, n, vec, res + i); break;
      case 6: dot_block<6>(J + a, col, n, vec, res + i); break;
      default:
        for (int q = 0; q < g; ++q) res[i + q] = dot_row(J, d, i + q, vec);
        break;
    }
    i += g;
  }
}

void mul_JT(const Model& m, const Data& d, double* res, const double* vec) {
  const double* J = J_values(m, d);
  std::fill_n(res, m.nv, 0.0);
  for (int i = 0; i < d.nefc;) {
    const int g = block_rows(d, i);
    const int a = d.efc_J_rowadr[i], n = d.efc_J_rownnz[i];
    // the rows of the block with a non-zero force (the others add nothing)
    const double* val[10];
    double f[10];
    int na = 0;
    for (int q = 0; q < g && g <= 10; ++q) {
      if (vec[i + q] == 0) continue;
      val[na] = J + a + q * n;
      f[na++] = vec[i + q];
    }
    const int* col = d.efc_J_colind.data() + a;
    switch (g <= 10 ? na : -1) {
      case 0: break;
      case 1: axpy_block<1>(val, f, col, n, res); break;
      case 2: axpy_block<2>(val, f, col, n, res); break;
      case 3: axpy_block<3>(val, f, col, n, res); break;
      case 4: axpy_block<4>(val, f, col, n, res); break;
      default:
        for (int q = 0; q < g; ++q) {
          const double fq = vec[i + q];
          if (fq == 0) continue;
          const SparseRow r = row_of(d, J, i + q);
          for (int k = 0; k < r.nnz; ++k) res[r.col[k]] += r.val[k] * fq;
        }
        break;
    }
    i += g;
  }
}

}  // namespace constraint
}  // namespace moreau

// Constraint storage: capacity rule, the layout of Data::work.efc, and the row helpers that every
// constraint type uses to append rows to efc_* (internal to src/constraint and src/solver).
#pragma once

#include <string>

#include "moreau/moreau.h"

namespace moreau::constraint {

// Bytes of Model::memory that one contact takes with its rows (the contact capacity rule).
long long memory_per_contact(const Model& m);
// Contacts a Data of this model holds (d.contact.size(), make_data; rule in storage.cc).
long long contact_capacity(const Model& m);
// Constraint rows allocate_constraint_storage gives a Data with ncon contacts (rule in storage.cc).
long long row_capacity(const Model& m, long long ncon);
// Bytes of the contact and constraint-row storage for ncon contacts and `rows` rows: the contacts,
// the efc_* arrays, the Jacobian and the solvers' work space (Data::work.efc, work.efc_int).
long long arena_bytes(const Model& m, long long ncon, long long rows);
// Why a Data with ncon contacts and `rows` rows cannot be made: the contact, row and Jacobian
// entry indices are int, and the storage must fit in memory_limit bytes (<= 0: no limit).
// Empty when it can.
std::string arena_problem(const Model& m, long long ncon, long long rows, long long memory_limit);

// Rows the storage can hold (efc_type.size()).
inline int capacity(const Data& d) { return static_cast<int>(d.efc_type.size()); }

// Whether efc_J products use the row sparsity (jacobian option: dense, sparse, auto = sparse if
// nv >= 60, the rule of the computation chapter).
inline bool use_sparse(const Model& m) {
  return m.opt.jacobian == kJacSparse || (m.opt.jacobian == kJacAuto && m.nv >= 60);
}
// With the dense jacobian, efc_J holds the dense rows for the user and the solvers read a
// compressed copy (Work::Jc); with the sparse jacobian efc_J itself is compressed.
inline bool dense_values(const Model& m) { return !use_sparse(m); }

// Work space carved from d.work.efc (doubles) and d.work.efc_int (ints). Sizes: cap = capacity rows,
// nv dofs.
//   make:   jac (18*nv): jacp1, jacr1, jacp2, jacr2, contact-frame rows (6 rows)
//   solver: per-row vectors (Jaref, jv, quad[3], force0, tmp[2]); per-dof vectors; nv*nv Hessian /
//           factor (entries addressed densely, only the sparse pattern touched); nnz_capacity
//           (MinvJT) holding the dual rows' values (dual.cc: a dual row's columns are the ancestor
//           closure of its own, within the same nnz_bound).
//   Jc:     nnz_capacity, dense jacobian only: the compressed values of efc_J's rows (the solvers
//           read rows through efc_J_rowadr/colind in both jacobian modes; see J_values).
//   ints:   chain (4*nv), the Newton factor's row patterns (nv*(nv+1)/2) and bookkeeping
//           (8*nv + cap + 1); the dual rows' columns (cap+1 + nnz_capacity).
struct Work {
  double* jac;       // 18*nv
  double* Jaref;     // cap
  double* jv;        // cap
  double* quad;      // 3*cap
  double* force0;    // cap
  double* etmp;      // 2*cap
  double* v[14];     // 14 vectors of nv
  double* first;     // nv: pivots D of the Newton factor H = L' D L
  double* L;         // nv*nv: Newton Hessian and its factor (sparse pattern, dense addressing)
  double* MinvJT;    // nnz_capacity: values of the dual rows (dual.cc)
  double* Jc;        // nnz_capacity (dense jacobian) or null
  int* chain;        // 4*nv: dof chains of the two bodies of a row
  int* pattern;      // nv*(nv+1)/2: row patterns of the Newton factor
  int* iv[8];        // 8 int vectors of nv
  int* rowlist;      // cap: active rows grouped by their largest column
  int* tree_pattern; // 1: non-zero when the factor's pattern is M's tree pattern (hessian.cc)
  int* dualadr;      // cap+1: start of each row's u = D^-1/2 L'^-1 J' (dual solvers, dual.cc)
  int* dualcol;      // nnz_capacity: its columns (values in MinvJT)
};
// Non-zeros the compressed rows can hold (efc_J_colind.size(), from nnz_bound).
inline long long nnz_capacity(const Data& d) {
  return static_cast<long long>(d.efc_J_colind.size());
}
// The most non-zeros cap rows of this model can have (storage.cc).
long long nnz_bound(const Model& m, long long cap);
inline long long work_size(const Model& m, long long cap, long long nnz) {
  const long long nv = m.nv;
  return 18LL * nv + 8LL * cap + 15LL * nv + nv * nv + nnz + (dense_values(m) ? nnz : 0) + 16;
}
inline long long iwork_size(const Model& m, long long cap, long long nnz) {
  const long long nv = m.nv;
  return 4 * nv + nv * (nv + 1) / 2 + 8 * nv + cap + 1 + (cap + 1) + nnz + 16;
}
inline Work carve(const Model& m, Data& d) {
  const int nv = m.nv, cap = capacity(d);
  Work w;
  double* p = d.work.efc.data();
  w.jac = p; p += 18 * nv;
  w.Jaref = p; p += cap;
  w.jv = p; p += cap;
  w.quad = p; p += 3 * cap;
  w.force0 = p; p += cap;
  w.etmp = p; p += 2 * cap;
  for (auto& v : w.v) { v = p; p += nv; }
  w.first = p; p += nv;
  w.L = p; p += static_cast<long long>(nv) * nv;
  w.MinvJT = p; p += nnz_capacity(d);
  w.Jc = dense_values(m) ? p : nullptr;
  int* q = d.work.efc_int.data();
  w.chain = q; q += 4 * nv;
  w.pattern = q; q += static_cast<long long>(nv) * (nv + 1) / 2;
  for (auto& v : w.iv) { v = q; q += nv; }
  w.rowlist = q; q += cap;
  w.tree_pattern = q; q += 1;
  w.dualadr = q; q += cap + 1;
  w.dualcol = q;
  return w;
}

// Compressed values of efc_J's rows: row i has efc_J_rownnz[i] non-zeros, at columns
// efc_J_colind[efc_J_rowadr[i] + k] (ascending) with values J_values(m, d)[efc_J_rowadr[i] + k].
inline const double* J_values(const Model& m, const Data& d) {
  if (!dense_values(m)) return d.efc_J.data();
  const long long nv = m.nv, cap = capacity(d);
  return d.work.efc.data() + 18 * nv + 8 * cap + 15 * nv + nv * nv + nnz_capacity(d);
}

// One row of efc_J in compressed form.
struct SparseRow {
  const double* val;
  const int* col;
  int nnz;
};
inline SparseRow row_of(const Data& d, const double* values, int i) {
  const int a = d.efc_J_rowadr[i];
  return {values + a, d.efc_J_colind.data() + a, d.efc_J_rownnz[i]};
}

// Reserve n rows: false (and warning kWarnCnstrFull) when they do not fit.
bool reserve_rows(Data& d, int n);
// Append one row with nnz non-zeros at columns cols (ascending) with values vals. Returns the row
// index. The caller has reserved the row.
int add_row(const Model& m, Data& d, int type, int id, int nnz, const int* cols,
            const double* vals, double pos, double margin, double frictionloss);
// The same for a dense row jrow (nv; its non-zeros are kept).
int add_row_dense(const Model& m, Data& d, int type, int id, const double* jrow, double pos,
                  double margin, double frictionloss);

// Dofs that move body b, ascending (b's own dofs and its ancestors'); returns their number.
int dof_chain(const Model& m, int body, int* chain);

// Rows from i on that share row i's columns: the rows of one frictional contact (built over the
// same dof chains, contact_rows.cc), else 1.
inline int shared_rows(const Data& d, int i) {
  const int type = d.efc_type[i];
  if (type != kCnstrContactPyramidal && type != kCnstrContactElliptic) return 1;
  const int dim = d.contact[d.efc_id[i]].dim;
  return type == kCnstrContactPyramidal ? 2 * (dim - 1) : dim;
}

// res(nefc) = efc_J * vec(nv); res(nv) = efc_J' * vec(nefc) (compressed rows). Both walk the rows
// that share columns together (one gather of vec, one read-modify-write of res per column); each
// row's sum runs in column order and each res entry adds the rows in row order, as a row-by-row
// product does.
void mul_J(const Model& m, const Data& d, double* res, const double* vec);
void mul_JT(const Model& m, const Data& d, double* res, const double* vec);
// Dot product of row i of efc_J with vec(nv).
inline double dot_row(const double* values, const Data& d, int i, const double* vec) {
  const SparseRow r = row_of(d, values, i);
  double s = 0;
  for (int k = 0; k < r.nnz; ++k) s += r.val[k] * vec[r.col[k]];
  return s;
}

// Impedance d(r) of the solimp sigmoid at violation |pos - margin| and its derivative with
// respect to pos - margin (impedance.cc).
double impedance(const double* solimp, double pos, double margin, double* deriv);

}  // namespace moreau::constraint

namespace moreau::constraint {
// Row builders, called in this order by make_constraint (one file each). Each sets efc_J, efc_pos,
// efc_margin, efc_frictionloss, efc_type, efc_id and efc_diagApprox of its rows.
void equality_rows(const Model& m, Data& d);   // equality.cc
// Jdot*v of the rows of connect or weld constraint e (3 or 6 values in out; returns the count, 0
// for other types): the constraint-space acceleration at zero qacc. Needs cvel and cdof_dot.
int equality_jdotv(const Model& m, const Data& d, int e, double* out);   // equality.cc
// The world positions of the anchors of connect or weld constraint e: p1 on body 1, p2 on body 2
// (connect: eq_data 0..2 in body 1's frame, 3..5 in body 2's; weld: 3..5 in body 1's, 0..2 in body
// 2's).
void equality_anchors(const Model& m, const Data& d, int e, double p1[3], double p2[3]);   // equality.cc
void friction_rows(const Model& m, Data& d);   // friction.cc
void limit_rows(const Model& m, Data& d);      // limit.cc
void contact_rows(const Model& m, Data& d);    // contact_rows.cc
// efc_KBIP, efc_R, efc_D from solref/solimp and efc_diagApprox; contact mu (impedance.cc).
void make_impedance(const Model& m, Data& d);
// solref/solimp of row i.
void row_params(const Model& m, const Data& d, int i, const double** solref, const double** solimp);
}  // namespace moreau::constraint

// Constraint storage: capacity rule, the layout of Data::efc_work, and the row helpers that every
// constraint type uses to append rows to efc_* (internal to src/constraint and src/solver).
#pragma once

#include "moreau/moreau.h"

namespace moreau::constraint {

// Rows the storage can hold (efc_type.size()).
inline int capacity(const Data& d) { return static_cast<int>(d.efc_type.size()); }

// Whether efc_J products use the row sparsity (jacobian option: dense, sparse, auto = sparse if
// nv >= 60, the rule of the computation chapter).
inline bool use_sparse(const Model& m) {
  return m.opt.jacobian == kJacSparse || (m.opt.jacobian == kJacAuto && m.nv >= 60);
}

// Work space carved from d.efc_work. Sizes: cap = capacity rows, nv dofs.
//   make:   jac (18*nv): jacp1, jacr1, jacp2, jacr2, contact-frame rows (6 rows)
//   solver: per-row vectors (Jaref, jv, quad[3], force0, tmp[2]); per-dof vectors; nv*nv Hessian /
//           Cholesky factor; cap*nv for M^-1 J' (PGS).
struct Work {
  double* jac;       // 18*nv
  double* Jaref;     // cap
  double* jv;        // cap
  double* quad;      // 3*cap
  double* force0;    // cap
  double* etmp;      // 2*cap
  double* v[14];     // 14 vectors of nv
  double* first;     // nv: first non-zero column of each row of the Newton Hessian (envelope)
  double* L;         // nv*nv: Newton Hessian and its Cholesky factor (envelope used)
  double* MinvJT;    // cap*nv
};
inline long long work_size(int cap, int nv) {
  return 18LL * nv + 8LL * cap + 15LL * nv + 1LL * nv * nv + 1LL * cap * nv + 16;
}
inline Work carve(const Model& m, Data& d) {
  const int nv = m.nv, cap = capacity(d);
  Work w;
  double* p = d.efc_work.data();
  w.jac = p; p += 18 * nv;
  w.Jaref = p; p += cap;
  w.jv = p; p += cap;
  w.quad = p; p += 3 * cap;
  w.force0 = p; p += cap;
  w.etmp = p; p += 2 * cap;
  for (auto& v : w.v) { v = p; p += nv; }
  w.first = p; p += nv;
  w.L = p; p += static_cast<long long>(nv) * nv;
  w.MinvJT = p;
  return w;
}

// Reserve n rows: false (and warning kWarnCnstrFull) when they do not fit.
bool reserve_rows(Data& d, int n);
// Append one row whose Jacobian is jrow (nv; null: all zero). Returns the row index. The caller
// has reserved the row.
int add_row(const Model& m, Data& d, int type, int id, const double* jrow, double pos,
            double margin, double frictionloss);

// res(nefc) = efc_J * vec(nv); res(nv) = efc_J' * vec(nefc) (dense or with the row sparsity).
void mul_J(const Model& m, const Data& d, double* res, const double* vec);
void mul_JT(const Model& m, const Data& d, double* res, const double* vec);
// Dot product of row i of efc_J with vec(nv).
double dot_row(const Model& m, const Data& d, int i, const double* vec, bool sparse);

// Impedance d(r) of the solimp sigmoid at violation |pos - margin| and its derivative with
// respect to pos - margin (impedance.cc).
double impedance(const double* solimp, double pos, double margin, double* deriv);

}  // namespace moreau::constraint

namespace moreau::constraint {
// Row builders, called in this order by make_constraint (one file each). Each sets efc_J, efc_pos,
// efc_margin, efc_frictionloss, efc_type, efc_id and efc_diagApprox of its rows.
void equality_rows(const Model& m, Data& d);   // equality.cc
void friction_rows(const Model& m, Data& d);   // friction.cc
void limit_rows(const Model& m, Data& d);      // limit.cc
void contact_rows(const Model& m, Data& d);    // contact_rows.cc
// efc_KBIP, efc_R, efc_D from solref/solimp and efc_diagApprox; contact mu (impedance.cc).
void make_impedance(const Model& m, Data& d);
// solref/solimp of row i.
void row_params(const Model& m, const Data& d, int i, const double** solref, const double** solimp);
}  // namespace moreau::constraint

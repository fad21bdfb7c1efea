// What src/dynamics gives the other stages: the tree-sparse L'DL factorization and solve (the
// integrators and solvers factor their own matrices with them), and the dynamics stages' work space.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Doubles of Data::work.stage: the temporaries of one dynamics stage call (rne: 6*nbody cacc and
// 6*nbody cfrc; energy: nv for M qvel), valid only during that call.
inline long long dynamics_work_size(const Model& m) { return 12LL * m.nbody + 2LL * m.nv; }
inline double* dynamics_work(Data& d) { return d.work.stage.data(); }

// L'DL factorization of a tree-sparse matrix in place (layout of Model::dof_Madr): on return the
// diagonal holds D, the off-diagonal entries hold L. diaginv = 1/D, diagsqrtinv (optional) = 1/sqrt(D).
// simple_diagonal: the matrix's rows of simple dofs (Model::dof_simplenum > 0) have zero
// off-diagonal entries (as M from crb and M + h B with diagonal B), so those rows are skipped:
// their L entries stay zero, exactly what the full elimination would give.
void factor_ld(const Model& m, double* qld, double* diaginv, double* diagsqrtinv,
               bool simple_diagonal = false);
// x <- (L'DL)^-1 x with the factor of factor_ld (n right-hand sides of nv, one after the other).
// simple_diagonal: as for factor_ld; the zero L entries of simple dofs are skipped.
void solve_ld(const Model& m, const double* qld, const double* diaginv, double* x, int n,
              bool simple_diagonal = false);

}  // namespace moreau::internal

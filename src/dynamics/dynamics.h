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
void factor_ld(const Model& m, double* qld, double* diaginv, double* diagsqrtinv);
// x <- (L'DL)^-1 x with the factor of factor_ld (n right-hand sides of nv, one after the other).
void solve_ld(const Model& m, const double* qld, const double* diaginv, double* x, int n);

}  // namespace moreau::internal

// Internal interface of the constraint solvers (src/solver). The primal solvers (Newton, CG)
// minimize the reduced primal cost of the computation chapter,
//   cost(x) = 0.5 (x - qacc_smooth)' M (x - qacc_smooth) + s(J x - aref),
// whose constraint part s is a sum over rows (equality, friction loss: Huber, limit and pyramidal
// contact: half-quadratic) and over elliptic contacts (cone.cc). The constraint force is -grad s.
// PGS solves the dual (pgs.cc). The analytic inverse evaluates -grad s at the given qacc.
#pragma once

#include "constraint/storage.h"

namespace moreau::solver {

using constraint::Work;

// Constraint cost s(Jaref) with efc_force = -grad s and efc_state of every row; with
// cone_hessian, contact.H (dim x dim Hessian of s) of each elliptic contact in the cone state.
// nactive: rows with non-zero curvature or force.
double eval_constraint(const Model& m, Data& d, const double* Jaref, double* force, int* state,
                       bool cone_hessian, int* nactive);

// Elliptic contact whose rows start at i0: cost, force and state of its rows (cone.cc).
double elliptic_eval(const Model& m, Data& d, int i0, const double* Jaref, double* force,
                     int* state, bool hessian);
// Cost along the line Jaref + alpha*jv for the elliptic contact at i0: adds value, first and
// second derivative in alpha.
void elliptic_line(const Model& m, const Data& d, int i0, const double* Jaref, const double* jv,
                   double alpha, double* value, double* d1, double* d2);
// Dual block update of an elliptic contact for PGS: minimize 0.5 f'Af + f'g over the elliptic cone
// of `friction` (dim), starting from f (in/out). A is dim x dim (row-major, includes R).
void elliptic_block(int dim, const double* friction, const double* A, const double* g, double* f);

// State of the primal iteration (pointers into Data::efc_work).
struct Primal {
  double* x;         // nv: qacc
  double* Ma;        // nv: M x
  double* grad;      // nv: M x - qfrc_smooth - J' force
  double* Mgrad;     // nv: preconditioned gradient (H^-1 grad or M^-1 grad)
  double* search;    // nv
  double* Mv;        // nv: M search
  double* gradold;   // nv
  double* Mgradold;  // nv
  double* tmp;       // nv
  double* Jaref;     // nefc: J x - aref
  double* jv;        // nefc: J search
  double cost = 0;   // gauss + constraint cost
  double gauss = 0;
  int nactive = 0;   // rows with non-zero force or curvature
};
Primal primal_setup(const Model& m, Data& d, const Work& w);
// Start point: qacc_warmstart when warmstart is enabled and its cost is lower, else qacc_smooth.
// Sets x, Ma, Jaref, efc_force, efc_state, cost.
void primal_init(const Model& m, Data& d, Primal& p);
// Ma, Jaref from x; force, state, cost (and cone Hessians).
void primal_eval(const Model& m, Data& d, Primal& p, bool cone_hessian);
// grad = Ma - qfrc_smooth - J' force.
void primal_gradient(const Model& m, Data& d, Primal& p);
// Exact line search along p.search (jv, Mv computed here); moves x, Ma, Jaref; returns alpha.
// neval: cost evaluations; slope0: initial slope; decrease: cost(0) - cost(alpha), evaluated
// without cancellation (the improvement of the iteration).
double linesearch(const Model& m, Data& d, Primal& p, int* neval, double* slope0,
                  double* decrease);
// Finish: qacc = x, qfrc_constraint = J' efc_force.
void primal_finish(const Model& m, Data& d, Primal& p);

// Scale of improvement and gradient for the tolerance test: 1 / (meaninertia * max(1, nv)).
inline double stat_scale(const Model& m) {
  return 1.0 / (m.stat.meaninertia * (m.nv > 1 ? m.nv : 1));
}

void newton(const Model& m, Data& d);  // newton.cc
void cg(const Model& m, Data& d);      // cg.cc
void pgs(const Model& m, Data& d);     // pgs.cc

}  // namespace moreau::solver

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
// Cost along the line Jaref + alpha*jv for the elliptic contact at i0, from 9 coefficients that
// prepare computes once per line search (c: T^2(alpha) = c0 + 2 c1 alpha + c2 alpha^2 with
// T = sqrt(sum mu_j^2 z_j^2), the normal c3 + c4 alpha, the bottom zone's quadratic c5..c7, and
// Dm); elliptic_line adds value, first and second derivative in alpha (mu = contact.mu).
void elliptic_line_prepare(const Data& d, int i0, const double* Jaref, const double* jv,
                           double* c);
void elliptic_line(const double* c, double mu, double alpha, double* value, double* d1,
                   double* d2);
// Dual block update of an elliptic contact for PGS: minimize 0.5 f'Af + f'g over the elliptic cone
// of `friction` (dim), starting from f (in/out). A is dim x dim (row-major, includes R).
void elliptic_block(int dim, const double* friction, const double* A, const double* g, double* f);
// Its second step alone: the friction forces f[1..dim) minimizing the same cost with the normal
// force f[0] fixed, inside the ellipse sum (f_j / friction_j)^2 <= f0^2.
void elliptic_friction(int dim, const double* friction, const double* A, const double* g, double* f);

// State of the primal iteration (pointers into Data::work.efc).
// Relative rounding level of Newton's sums (64 ulps): a line search slope, or a starting gradient,
// below it times the size of its terms is rounding (linesearch.cc, newton.cc).
inline constexpr double kSlopeRounding = 64 * 2.220446049250313e-16;

struct Primal {
  double* x;         // nv: qacc
  double* Ma;        // nv: M x
  double* grad;      // nv: M x - qfrc_smooth - J' force
  double* Mgrad;     // nv: preconditioned gradient (H^-1 grad or M^-1 grad)
  double* search;    // nv
  double* Mv;        // nv: M search
  bool Mv_given = false;  // Mv already holds M search (CG's recurrence): the line search keeps it
  bool rounding_stop = false;  // the line search stops at rounding-level slopes (Newton)
  double* gradold;   // nv
  double* Mgradold;  // nv
  double* tmp;       // nv
  double* Jaref;     // nefc: J x - aref
  double* jv;        // nefc: J search
  double* ecoef;     // 3*nefc: line coefficients of the elliptic contact at row i0 at 3*i0
  double cost = 0;   // gauss + constraint cost
  double gauss = 0;
  int nactive = 0;   // rows with non-zero force or curvature
};
Primal primal_setup(const Model& m, Data& d, const Work& w);
// Start point: qacc_warmstart when warmstart is enabled and its cost is lower, else qacc_smooth.
// Sets x, Ma, Jaref, efc_force, efc_state, cost (and cone Hessians).
void primal_init(const Model& m, Data& d, Primal& p, bool cone_hessian);
// Ma, Jaref from x; force, state, cost (and cone Hessians).
void primal_eval(const Model& m, Data& d, Primal& p, bool cone_hessian);
// force, state, cost (and cone Hessians) from the current x, Ma, Jaref (after the line search has
// moved them along the search direction).
void primal_cost(const Model& m, Data& d, Primal& p, bool cone_hessian);
// grad = Ma - qfrc_smooth - J' force.
void primal_gradient(const Model& m, Data& d, Primal& p);
// Exact line search along p.search (jv and, unless Mv_given, Mv computed here); moves x, Ma,
// Jaref; returns alpha.
// neval: cost evaluations; slope0: initial slope; decrease: cost(0) - cost(alpha), evaluated
// without cancellation (the improvement of the iteration).
double linesearch(const Model& m, Data& d, Primal& p, int* neval, double* slope0,
                  double* decrease);
// Finish: qacc = x, qfrc_constraint = J' efc_force.
void primal_finish(const Model& m, Data& d, Primal& p);

// End of one primal iteration (Newton, CG): records the statistics of iteration `iter` in d.solver
// (improvement = scale * decrease, gradient = scale * |grad|, lineslope, nactive, nchange, neval,
// nupdate) and returns true when either is below opt.tolerance (converged). nchange counts the rows
// whose efc_state differs from oldstate.
bool primal_iteration_done(const Model& m, Data& d, const Primal& p, int iter, const double* oldstate,
                           double decrease, double slope, int neval, bool newton, int* nchange);

// Scale of improvement and gradient for the tolerance test: 1 / (meaninertia * max(1, nv)).
inline double stat_scale(const Model& m) {
  return 1.0 / (m.stat.meaninertia * (m.nv > 1 ? m.nv : 1));
}

// Newton Hessian H = M + J'DJ (+ cone terms) at the current states, factored sparsely as L'DL
// into w.L / w.first (hessian.cc); returns the non-zeros of H's factor (L + D + L'). Solve:
// x <- H^-1 x.
// reuse_pattern: keep the previous factor's pattern when it still holds the active rows (a
// refactorization within one solve). Without it the pattern is rebuilt unless the stored one is
// M's tree pattern and still holds them (then the rebuild would give the same pattern).
int hessian_factor(const Model& m, Data& d, const Work& w, bool reuse_pattern);
// Rank-1 update of that factor: H + sigma D_i J_i J_i' for row i (sigma = +-D_i), along the
// elimination tree. False when row i does not fit the factor's pattern or a downdate loses
// definiteness: the factor is then invalid and must be refactored.
bool hessian_update(const Model& m, const Data& d, const Work& w, int i, double sigma);
// The same factorization (fresh pattern) of base + J' diag(rowscale D) J (+ the cone terms, each
// elliptic block scaled by its first row's rowscale): base holds nM values in qM's layout, symmetric
// (the implicitcon integrator's matrix, src/integrator/implicit_constraint.cc). hessian_solve solves.
void hessian_factor_scaled(const Model& m, Data& d, const Work& w, const double* base, const double* rowscale);
void hessian_solve(const Model& m, const Work& w, double* x);
// The same solve over the dofs dofs[0..n) only (ascending), for x non-zero only there: a set closed
// under H's coupling (a connected component of its graph: the factor's pattern stays inside it).
void hessian_solve_dofs(const Model& m, const Work& w, const int* dofs, int n, double* x);

// Rows in the dual form (dual.cc): u_i = D^-1/2 L'^-1 J_i' (M = L'DL), so that
// A = J M^-1 J' has A_ij = u_i . u_j. Row i: values val[adr[i]..adr[i+1]) at columns col[...]
// (ascending). Stored in w.MinvJT / w.dualcol / w.dualadr.
struct DualRows {
  double* val;
  int* col;
  int* adr;
};
DualRows dual_rows(const Model& m, Data& d, const Work& w);
// The same with another factor of the same pattern (qld, and the square roots of its inverted
// pivots), e.g. that of M + h B.
DualRows dual_rows(const Model& m, Data& d, const Work& w, const double* qld, const double* sqrtinv);
// u_i . u_j
double dual_pair(const DualRows& u, int i, int j);
// u_i . x and x += a u_i (x: nv)
inline double dual_dot(const DualRows& u, int i, const double* x) {
  double s = 0;
#pragma GCC unroll 4
  for (int k = u.adr[i], e = u.adr[i + 1]; k < e; ++k) s += u.val[k] * x[u.col[k]];
  return s;
}
inline void dual_axpy(const DualRows& u, int i, double a, double* x) {
#pragma GCC unroll 4
  for (int k = u.adr[i], e = u.adr[i + 1]; k < e; ++k) x[u.col[k]] += a * u.val[k];
}
// x <- L^-1 D^-1/2 x: from w = sum_i u_i f_i to M^-1 J' f.
void dual_to_acc(const Model& m, const Data& d, double* x);
// The same with another factor of the same pattern (as dual_rows).
void dual_to_acc(const Model& m, const double* qld, const double* sqrtinv, double* x);
// End of a dual solver, from x = sum_i u_i f_i (overwritten): efc_state from efc_force,
// qacc = qacc_smooth + M^-1 J' f, qfrc_constraint = J' f.
void dual_finish(const Model& m, Data& d, double* x);

void pgs(const Model& m, Data& d);     // pgs.cc
// The noslip post-pass after the main solver (opt.noslip_iterations > 0; noslip.cc).
void noslip(const Model& m, Data& d);

void newton(const Model& m, Data& d);  // newton.cc
void cg(const Model& m, Data& d);      // cg.cc

}  // namespace moreau::solver

// Internal interface of the hard-contact solvers: the discrete-time contact problem of
// the RaiSim paper (Le Lidec & Carpentier, "Reconciling RaiSim with the Maximum Dissipation
// Principle", Sec. II) and of the Underactuated chapter ("Time-stepping approximations for rigid
// contact"), built from Moreau's own constraint rows.
//
// Velocity stepping, eq. (2):  Mt v+ = Mt v_f + J' lambda, lambda the impulses (N s), with
//   Mt  = M + h B (B: joint damping, integrated implicitly exactly as the Euler integrator does, so
//         that Euler's update reproduces v+),
//   v_f = v + h Mt^-1 qfrc_smooth (the free velocity),
//   c   = J v+ + s = G lambda + g,  G = J Mt^-1 J' (the Delassus matrix), g = J v_f + s,
// where s is the reference-velocity shift of each row (c* = -s in eq. (3)):
//   contact normal and limit rows (phi = efc_pos, the signed distance; the MJCF margin, plus
//     kHardContactBand for contacts (moreau.h), only decides when a row exists): s = phi/h if phi >= 0 (the row may close the gap, no more: the exact
//     time-stepping constraint phi + h c_N >= 0 of the Underactuated chapter), s = phi/tau if phi < 0
//     (first-order Baumgarte stabilization of the penetration, the velocity-level form
//     dh/dt = -alpha h of the Underactuated chapter with alpha = 1/tau);
//   equality rows: s = pos/tau (the same Baumgarte form, both signs);
//   friction-loss rows and contact tangent rows: s = 0.
//   tau = max(solref[0], 2h) (the row's time constant, with MuJoCo's refsafe floor; h if refsafe is
//   disabled; 2h for direct solref = (-stiffness, -damping)).
// Blocks (one per Gauss-Seidel update):
//   contact of condim 3, 4 or 6 (efc rows n, t1, t2, then spin, then roll1, roll2 of an elliptic
//     contact): lambda in MuJoCo's elliptic cone K = {l : sum_j (l_j / mu_j)^2 <= l_N^2, l_N >= 0},
//     mu_j = friction[j-1]; for condim 3 with isotropic friction this is the Coulomb cone K_mu of
//     eqs. (4)-(6), mu = friction[0]. The other cones are solved in the scaled coordinates
//     z = D^-1 l, D = diag(1, mu_1, ..., mu_{d-1}), where K is the circular cone of slope 1 (see
//     "scaled cones" below);
//   1D rows: equality (bilateral, lambda free), limit and frictionless contact (unilateral,
//     lambda >= 0 _|_ c >= 0), friction loss (box |lambda| <= frictionloss h, c opposes lambda).
// The contact rows are built in the elliptic layout for these solvers whatever opt.cone says
// (src/constraint/contact_rows.cc): the solvers define their own cone (exact, or the polyhedral
// cone of kLcpDirections edges for lcp).
#pragma once

#include <algorithm>
#include <cmath>

#include "constraint/storage.h"
#include "solver/solver.h"

namespace moreau::ncp {

// Parameters the paper leaves open: our choices (docs/contact_models.md).
inline constexpr double kAlpha0 = 1.0;      // initial relaxation alpha of Alg. 1 (line 14)
inline constexpr double kAlphaMin = 0.7;    // alpha_min of Alg. 1 (line 15)
inline constexpr double kGammaRelax = 0.99; // gamma of Alg. 1 (line 15)
inline constexpr double kDriftCos = 0.9;     // raisim solvers' drift: least cosine of two sweeps' changes
inline constexpr double kDriftMaxStep = 1e4; // longest drift extrapolation, in sweeps' changes
inline constexpr double kSlideCos = 0.99;    // sliding drift: least cosine of two sweeps' changes
inline constexpr int kFaceMaxRows = 64;      // raisim solvers' face step: most free rows it solves for
inline constexpr double kFaceReg = 1e-10;    // its regularization, relative to the largest diagonal entry
inline constexpr int kFacePasses = 8;        // its most Newton solves (a bound reached ends each one)
inline constexpr int kFaceSteps = 4;         // its most tries in one solve
inline constexpr int kLcpDirections = 4;    // edges of the Stewart-Trinkle friction pyramid
inline constexpr double kLcpMargin = 1e-13;  // lcp's feasibility margin, relative (lcp.cc)
inline constexpr int kLcpAttempts = 4;       // lcp's solves of a step: the problem, then perturbed copies
inline constexpr double kLcpAccept = 1e-7;   // lcp's largest accepted relative residual
inline constexpr double kLcpStickReg = 1e-8;  // lcp's regularization of its sticking QP, relative (lcp.cc)
inline constexpr int kLcpMaxSize = 240;     // most LCP variables the lcp solver accepts
inline constexpr int kLcpMaxRows = 240;     // most constraint rows the lcp solver accepts

// Block kinds.
enum Kind : int { kBilateral = 0, kBox, kUnilateral, kCone };

// The solvers of RaiSim's Alg. 1 (per-contact bisection with relaxation): raisim, raisim-ds.
inline bool relaxed_solver(int solver) { return solver == kSolverRaisim || solver == kSolverRaisimDS; }

// The kind and size of the block starting at efc row r.
inline Kind block_kind(const Data& d, int r, int* dim) {
  *dim = 1;
  switch (d.efc_type[r]) {
    case kCnstrEquality: return kBilateral;
    case kCnstrFrictionDof:
    case kCnstrFrictionTendon: return kBox;
    case kCnstrContactElliptic: *dim = d.contact[d.efc_id[r]].dim; return *dim == 1 ? kUnilateral : kCone;
    default: return kUnilateral;  // limits, frictionless contacts (pyramidal rows never reach here)
  }
}

// Views into Data::work.ncp (cap = constraint capacity rows).
struct Work {
  double* header;  // 4: [0] = size of the last LCP, [1] = rows of the previous solve (warm start)
  double* vf;      // nv: free velocity
  double* v;       // nv: Mt^-1 J' lambda
  double* tmp;     // nv
  double* tmp2;    // nv
  double* g;       // cap: J v_f + s
  double* lam;     // cap: impulses
  double* c;       // cap: G lambda + g at the end
  double* G;       // 6 cap: the block's rows of G (dim x dim, row-major from 6*r0)
  double* Ginv;    // 6 cap: inverse of the block (regularized); raisim solvers on a scaled cone:
                   // its Cholesky factor (sym_factor)
  double* eig;     // 6 cap: scaled cones, raisim: the sliding problem's data (6*r0; sliding_data)
  double* rho;     // cap: step of the projected updates: 1/lambda_max(block); raisim solvers on a
                   // scaled cone: the multiplier nu of the block's last sliding solve (cone.cc)
  double* lo;      // cap: lcp: first dof where column Mt^-1 J_r' is non-zero
  double* hi;      // cap: lcp: one past the last
  // the previous step's solution, for the warm start (row by row: impulse, type, key, contact point)
  double* prev_lam;   // cap
  double* prev_type;  // cap
  double* prev_key;   // cap: geom1 * ngeom + geom2 for contact rows, efc_id otherwise
  double* prev_pos;   // 3 cap: contact point of contact rows
  double* dprev;   // cap: the change of lambda over the previous sweep
  double* z;       // nv: Gauss-Seidel solvers: sum over rows of u_r lambda_r (below)
  double* dsi;     // nv: D^-1/2 of the factor of Mt = M + h B (when damped)
  // Gauss-Seidel solvers: the rows in dual form, u_r = D^-1/2 L'^-1 J_r' with Mt = L' D L
  // (solver::dual_rows, in the constraint work space): G_rs = u_r . u_s, and with z = sum u_r
  // lambda_r, c_r = g_r + u_r . z and Mt^-1 J' lambda = L^-1 D^-1/2 z. u_r is non-zero on the
  // ancestor closure of row r's columns only (a foot contact: the base and one leg).
  solver::DualRows u{};
  // lcp only (null otherwise): the dense columns
  double* MinvJT;  // cap*nv: the columns Mt^-1 J_r', dense
  double* cols;    // nv*(cap+1): the same, dof-major (row stride nefc rounded up to even), for their solve
  double* dofrange;  // 2 nv + 1: that solve's column range of each dof (and the sort's counts)
  double* face;    // kFaceMaxRows (2 kFaceMaxRows + 7) + 1: the face step's factors, vectors, cache key
  // lcp only (null otherwise)
  double* Gd;      // kLcpMaxRows^2: dense Delassus matrix
  double* lcpM;    // kLcpMaxSize^2
  double* lcpq;    // kLcpMaxSize
  double* lcpz;    // kLcpMaxSize
  double* lcpw;    // kLcpMaxSize
  double* lcpd;    // kLcpMaxSize: the perturbed q of a repeated solve
  double* lcpvar;  // 6*kLcpMaxSize: variable descriptors
  double* lemke;   // lemke_work_size(kLcpMaxSize)
  bool damped = false;  // Mt = M + hB factored in d.qH
  double h = 0;         // step of the problem; 0 for the impact map (friction loss gives no impulse)
};

// y[k] += a x[k] for k in [lo, hi), two entries per operation (SSE2 on any x86-64; GCC and Clang
// lower it elsewhere); each entry is the same product and sum as the plain loop's.
inline void axpy_range(double a, const double* x, double* y, int lo, int hi) {
  typedef double Pair __attribute__((vector_size(16), aligned(8)));
  int k = lo;
  for (; k + 2 <= hi; k += 2)
    *reinterpret_cast<Pair*>(y + k) += a * *reinterpret_cast<const Pair*>(x + k);
  if (k < hi) y[k] += a * x[k];
}

// The rows of a contact block share their columns (contact_rows.cc), so their dual rows do: they
// lie one after the other, n values each, over the same n columns. block_dot: c[a] = g[a] +
// u_{r+a} . z, each sum in the order of dual_dot; block_axpy: z += sum_a delta[a] u_{r+a}, each
// entry's terms in row order as dim dual_axpy calls add them (a zero delta adds a zero). One pass
// over the columns for the whole block.
template <int dim>
inline void block_dot_n(const solver::DualRows& u, int r, const double* z, const double* g, double* c) {
  const int a0 = u.adr[r], n = u.adr[r + 1] - a0;
  const int* col = u.col + a0;
  const double* v = u.val + a0;
  double s[dim] = {};
  for (int k = 0; k < n; ++k) {
    const double zk = z[col[k]];
#pragma GCC unroll 6
    for (int a = 0; a < dim; ++a) s[a] += v[a * n + k] * zk;
  }
  for (int a = 0; a < dim; ++a) c[a] = g[a] + s[a];
}
template <int dim>
inline void block_axpy_n(const solver::DualRows& u, int r, const double* delta, double* z) {
  const int a0 = u.adr[r], n = u.adr[r + 1] - a0;
  const int* col = u.col + a0;
  const double* v = u.val + a0;
  for (int k = 0; k < n; ++k) {
    double zk = z[col[k]];
#pragma GCC unroll 6
    for (int a = 0; a < dim; ++a) zk += delta[a] * v[a * n + k];
    z[col[k]] = zk;
  }
}
inline void block_dot(const solver::DualRows& u, int r, int dim, const double* z, const double* g, double* c) {
  switch (dim) {
    case 3: block_dot_n<3>(u, r, z, g, c); return;
    case 4: block_dot_n<4>(u, r, z, g, c); return;
    case 6: block_dot_n<6>(u, r, z, g, c); return;
    default:
      for (int a = 0; a < dim; ++a) c[a] = g[a] + solver::dual_dot(u, r + a, z);
  }
}
inline void block_axpy(const solver::DualRows& u, int r, int dim, const double* delta, double* z) {
  switch (dim) {
    case 3: block_axpy_n<3>(u, r, delta, z); return;
    case 4: block_axpy_n<4>(u, r, delta, z); return;
    case 6: block_axpy_n<6>(u, r, delta, z); return;
    default:
      for (int a = 0; a < dim; ++a) solver::dual_axpy(u, r + a, delta[a], z);
  }
}

// the tableau in long double (two doubles a cell, one more for alignment), then 3 n doubles
inline long long lemke_work_size(int n) { return 2LL * n * (2LL * n + 2) + 2 + 3LL * n; }
long long work_size(const Model& m, int cap);
// Size d.work.ncp for m (allocates only when it is too small: once, in make_data or on the first
// solve after opt.solver changed).
void ensure_storage(const Model& m, Data& d);
Work carve(const Model& m, Data& d);

// Build the problem: Mt (factored when damped), v_f, Mt^-1 J', the blocks of G, g; lambda = v = 0.
// impulsive: the impact map (v_f = qvel, no damping, s = restitution * c_N- for approaching
// unilateral rows); otherwise the velocity-stepping problem of step h.
void setup(const Model& m, Data& d, Work& w, double h, bool impulsive, double restitution);
// Reference-velocity shift s of row i, k-th row of its block, for a step h (the table above).
double shift(const Model& m, const Data& d, int i, Kind kind, int k, double h);
// Warm start of the Gauss-Seidel solvers (unless the warmstart flag is disabled): each block takes
// the impulse of the previous step's block of the same type and object (contacts: same geom pair,
// nearest contact point among the previous blocks within 16 rows; other rows: the nearest such row
// within 16, so that the rows of a multi-row equality each find their own); z = sum u_r lambda_r
// to match.
// save_solution keeps this step's solution for the next.
void warm_start(const Model& m, Data& d, Work& w);
// w.v = Mt^-1 J' lambda = L^-1 D^-1/2 w.z (the Gauss-Seidel solvers' velocity change).
void velocity_from_z(const Model& m, const Data& d, Work& w);
void save_solution(const Model& m, Data& d, Work& w);
// x <- Mt^-1 x (n columns).
void solve_mt(const Model& m, Data& d, const Work& w, double* x, int n);

// Solvers: fill w.lam and w.v. Return the iterations (sweeps) or pivots.
int gauss_seidel(const Model& m, Data& d, Work& w, int solver);  // gauss_seidel.cc
int lcp(const Model& m, Data& d, Work& w);                       // lcp.cc

// c = g + J v, then d.ncp errors with lambda scaled by 1/h (metrics.cc).
void metrics(const Model& m, Data& d, Work& w, double h);

// ------------------------------------------------------------------------------ cone geometry (cone.cc)
// K_mu = {x in R^3 : ||x_T|| <= mu x_N}, x = (x_N, x_T1, x_T2); K*_mu = K_{1/mu} (mu = 0: the
// half-space x_N >= 0); Gamma(c, mu) = (mu ||c_T||, 0, 0), de Saxce's function, eq. (6).
inline bool in_cone(double mu, const double* x) {
  return x[0] >= 0 && std::sqrt(x[1] * x[1] + x[2] * x[2]) <= mu * x[0];
}
void project_cone(double mu, const double* x, double* out);
double dist_cone(double mu, const double* x);
double dist_dual_cone(double mu, const double* x);
// RaiSim's sliding case, eqs. (7) and (13): minimize 0.5 l'Gl + b'l over the ellipse
// dK_mu ∩ {G_N l + gN = 0} (gN < 0), parametrized by the polar angle theta of l_T; bisection on
// the derivative in theta, from the direction u0 (2 components, any length).
void ellipse_min(const double* G, const double* b, double gN, double mu, const double* u0, double* lam);
// Largest eigenvalue of a symmetric 3x3 matrix; inverse of a 3x3 matrix (false if singular).
double max_eigenvalue3(const double* A);
bool invert3(const double* A, double* Ainv);

// ------------------------------------------------------------------------------ scaled cones (cone.cc)
// A contact block whose cone is not the isotropic 3D Coulomb cone (torsional or rolling friction,
// condim 4 or 6, or anisotropic tangential friction). With D = diag(1, mu_1, ..., mu_{d-1}) and
// z = D^-1 lambda, the elliptic cone becomes K_1 = {||z_T|| <= z_N}, self-dual; the velocity
// becomes D c, the block D G D, and de Saxce's function Gamma(c) = (||D c_T||, 0, ...) (the
// velocity-side weights of the elliptic cone's dual). In z every equation of the paper holds as
// written with mu = 1 in R^d, so the solvers run unchanged there:
//   ncp-pgs / ccp: z <- P_K1(z - rho (D c + Gamma)), rho = 1 / lambda_max(D G D);
//   raisim / raisim-ds: takeoff and stiction as in 3D (the stiction test in the elliptic cone).
//     raisim's sliding case minimizes (7) over K_1 ∩ V_N, the d-dimensional form of the paper's
//     ellipse: eliminating z_N with the plane V_N leaves
//       min 0.5 x'Ax + a'x  s.t.  ||x|| + beta.x <= alpha      (x = z_T in R^(d-1))
//     with A the Schur complement of the normal entry of D G D (positive definite), beta =
//     (D G D)_TN / (D G D)_NN, alpha = -g~_N / G_NN > 0, a = D_T b_T - b_N beta. The plane's
//     unconstrained minimizer lambda_v0 lies outside the cone (the stiction test failed), so the
//     minimum lies on dK ∩ V_N, as in the paper. The paper's bisection on the polar angle becomes
//     a bisection on the constraint's multiplier nu (the constraint value at the Lagrangian
//     minimizer decreases monotonically in nu), each inner minimizer of
//     0.5 x'Ax + (a + nu beta)'x + nu ||x|| found by a monotone 1D Newton iteration in the
//     eigenbasis of A.
//     raisim-ds's sliding case minimizes the corrected objective over K_1, the paper's (12), of
//     which (13) is the restriction to dK ∩ V_N that holds for a sliding contact at convergence.
//     Eliminating z_N by its own stationarity gives the same inner problem, with the constraint
//     ||x|| + beta.x <= (nu - b_N) / G_NN. (12)'s fixed points are exactly the NCP's solutions; (13)
//     solved directly in R^d also has fixed points where the plane's multiplier is not zero (on
//     ANYmal's condim-6 feet: feet sliding with friction along their velocity), so it is not used.
// mu_j = 0 (a direction without friction) gives D_j = 0: that impulse component stays 0.
inline bool scaled_cone(const Contact& con) {
  return con.dim > 3 || (con.dim == 3 && con.friction[0] != con.friction[1]);
}
// D of the block (dim entries).
inline void cone_scale(const Contact& con, double* D) {
  D[0] = 1;
  for (int j = 1; j < con.dim; ++j) D[j] = std::max(0.0, con.friction[j - 1]);
}
bool in_elliptic_cone(int dim, const double* D, const double* l);
// Projection on K_1 in R^dim.
void project_unit_cone(int dim, const double* x, double* out);
double dist_unit_cone(int dim, const double* x);
// Eigen-decomposition of a symmetric n x n matrix (n <= 6, row-major) by cyclic Jacobi rotations:
// A = Q diag(w) Q', eigenvector k in column k of Q (row-major n x n).
void sym_eigen(int n, const double* A, double* w, double* Q);
// The paper's errors of a scaled-cone block from its impulses times scale (forces) and velocities c.
void scaled_errors(const Contact& con, const double* lam, double scale, const double* c, double* ep,
                   double* ed, double* ec);
// Cholesky factor F of a symmetric positive semi-definite n x n matrix (n <= 6), regularized by
// 1e-10 trace(A) when A is (numerically) singular: L's strict lower triangle and 1 / L_jj on the
// diagonal; returns the trace (0 and a zero F when A is zero). sym_solve: x = A^-1 b from F (zero
// for a zero F).
double sym_factor(int n, const double* A, double* F);
void sym_solve(int n, const double* F, const double* b, double* x);
// The raisim update of a scaled-cone block (Alg. 1, lines 2-12, in z): G the block in lambda
// coordinates and Gfac its factor (sym_factor), gt = g~, lam the current impulse, eig: 6*dim
// doubles of per-solve cache (eig[0] = 0 until filled), nu_last: the multiplier of the block's last sliding solve (0 if none), the start of
// the next one's search.
void raisim_scaled(int dim, const double* G, const double* Gfac, const double* D, double* eig,
                   double* nu_last, const double* gt, const double* lam, bool desaxce, double* out);
// The projected update of ncp-pgs / ccp on a scaled-cone block: out = D P_K1(D^-1 lam - rho (D c + Gamma)).
void projected_scaled(int dim, const double* D, const double* c, double rho, const double* lam,
                      bool desaxce, double* out);

// ------------------------------------------------------------------------------ LCP (lcp.cc)
// Lemke's complementary pivoting with the covering vector (1..1) and lexicographic ratio test:
// find z >= 0 with w = M z + q >= 0, z'w = 0 (M: n x n row-major). work: lemke_work_size(n).
// Returns the number of pivots, -1 on a secondary ray (no solution found), -2 past max_pivots.
int lemke(int n, const double* M, const double* q, double* z, double* work, int max_pivots);
// The last LCP the lcp solver solved (pointers into d.work.ncp; n = 0 if none).
struct LcpView {
  int n = 0;
  const double* M = nullptr;
  const double* q = nullptr;
  const double* z = nullptr;
  const double* w = nullptr;
};
LcpView last_lcp(const Model& m, const Data& d);

// The solve of a step (called by solve_constraint for the hard-contact solvers; solve.cc).
void solve(const Model& m, Data& d);

}  // namespace moreau::ncp

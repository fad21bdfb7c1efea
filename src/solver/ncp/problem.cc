// The discrete-time contact problem of the hard-contact solvers (ncp.h): work space, the free
// velocity, the rows in dual form (Gauss-Seidel solvers) or the columns Mt^-1 J' (lcp), both from
// the tree-sparse L'DL factor (never a dense inverse), the diagonal blocks of the Delassus matrix
// and the shifted free velocity g.
#include <algorithm>
#include <cmath>

#include "dynamics/dynamics.h"
#include "solver/ncp/ncp.h"

namespace moreau::ncp {

long long work_size(const Model& m, int cap) {
  long long n = 4 + 6LL * m.nv + 31LL * cap + 1LL * kFaceMaxRows * (2 * kFaceMaxRows + 7) + 1;
  if (m.opt.solver == kSolverLCP) {
    const long long L = kLcpMaxSize;
    n += (2LL * cap + 1) * m.nv + 2LL * m.nv + 1;
    n += 1LL * kLcpMaxRows * kLcpMaxRows + L * L + 4 * L + 6 * L + lemke_work_size(kLcpMaxSize);
  }
  return n;
}

void ensure_storage(const Model& m, Data& d) {
  const long long n = work_size(m, constraint::capacity(d));
  if (static_cast<long long>(d.work.ncp.size()) < n) d.work.ncp.assign(static_cast<size_t>(n), 0.0);
}

Work carve(const Model& m, Data& d) {
  const int nv = m.nv, cap = constraint::capacity(d);
  Work w;
  double* p = d.work.ncp.data();
  w.header = p; p += 4;
  w.vf = p; p += nv;
  w.v = p; p += nv;
  w.tmp = p; p += nv;
  w.tmp2 = p; p += nv;
  w.g = p; p += cap;
  w.lam = p; p += cap;
  w.c = p; p += cap;
  w.G = p; p += 6 * cap;
  w.Ginv = p; p += 6 * cap;
  w.eig = p; p += 6 * cap;
  w.rho = p; p += cap;
  w.lo = p; p += cap;
  w.hi = p; p += cap;
  w.prev_lam = p; p += cap;
  w.prev_type = p; p += cap;
  w.prev_key = p; p += cap;
  w.prev_pos = p; p += 3 * cap;
  w.dprev = p; p += cap;
  w.z = p; p += nv;
  w.dsi = p; p += nv;
  w.face = p; p += kFaceMaxRows * (2 * kFaceMaxRows + 7) + 1;
  w.MinvJT = w.cols = w.dofrange = nullptr;
  w.Gd = w.lcpM = w.lcpq = w.lcpz = w.lcpw = w.lcpd = w.lcpvar = w.lemke = nullptr;
  if (m.opt.solver == kSolverLCP) {
    const long long L = kLcpMaxSize;
    w.MinvJT = p; p += static_cast<long long>(cap) * nv;
    w.cols = p; p += static_cast<long long>(cap + 1) * nv;
    w.dofrange = p; p += 2 * nv + 1;
    w.Gd = p; p += 1LL * kLcpMaxRows * kLcpMaxRows;
    w.lcpM = p; p += L * L;
    w.lcpq = p; p += L;
    w.lcpz = p; p += L;
    w.lcpw = p; p += L;
    w.lcpd = p; p += L;
    w.lcpvar = p; p += 6 * L;
    w.lemke = p;
  }
  return w;
}

void solve_mt(const Model& m, Data& d, const Work& w, double* x, int n) {
  if (w.damped) internal::solve_ld(m, d.qH.data(), d.qHDiagInv.data(), x, n);
  else solve_m(m, d, x, n);
}

namespace {

// Two columns at once (SSE2 on any x86-64; GCC and Clang lower it elsewhere).
typedef double Pair __attribute__((vector_size(16), aligned(8)));

// x[0, n) = 0 by stores of two doubles (n even), kept a loop: GCC makes a plain fill a call to
// memset, which runs it as `rep stosb`, and instruction counts (callgrind) charge that one
// instruction per byte. (Clang has no such function attribute.)
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
void zero_pairs(double* x, size_t n) {
  const Pair z = {0, 0};
  for (size_t k = 0; k < n; k += 2) *reinterpret_cast<Pair*>(x + k) = z;
}

// w.MinvJT = Mt^-1 J' for every row, with the tree-sparse factor (qld, diaginv) of Mt. The nefc
// right-hand sides are held dof-major (X[k * ld + p] = entry k of the column at position p) so
// that each step of the two substitutions of solve_ld is one loop over columns, two at a time;
// each column sees the same operations in the same order as in solve_ld (the steps skipped here
// multiply zeros, as solve_ld skips them: they change no non-zero value).
// (1) only touches the ancestors of each row's dofs. The columns are placed in the order of their
// row's deepest dof (the last of its ascending column indices); dofs are numbered depth first, so
// the columns whose support reaches into the subtree of dof k, the only ones (1) makes non-zero at
// k, sit together: (1) runs over each dof's column range only (a foot contact's column touches the
// base and one leg, not the other legs). (3) fills every column below its first non-zero dof.
// Then transposed to the column layout the sweeps use, with each column's non-zero dof range.
void solve_columns(const Model& m, const Data& d, Work& w, const double* Jv, const double* qld,
                   const double* diaginv) {
  const int nv = m.nv, n = d.nefc, ld = (n + 1) & ~1;
  double* X = w.cols;
  double* pos = w.lo;             // column position of each row (w.lo is set at the end)
  double* clo = w.dofrange;       // per dof: first column that may be non-zero (then, at the
  double* chi = w.dofrange + nv;  // start, the counts of the sort), one past the last
  // counting sort of the rows by deepest dof (rows without entries first)
  std::fill_n(clo, nv + 1, 0.0);
  for (int r = 0; r < n; ++r) {
    const int nnz = d.efc_J_rownnz[r];
    clo[nnz > 0 ? d.efc_J_colind[d.efc_J_rowadr[r] + nnz - 1] + 1 : 0] += 1;
  }
  for (int k = 0, acc = 0; k <= nv; ++k) {
    const int c = static_cast<int>(clo[k]);
    clo[k] = acc;
    acc += c;
  }
  for (int r = 0; r < n; ++r) {
    const int nnz = d.efc_J_rownnz[r];
    double& next = clo[nnz > 0 ? d.efc_J_colind[d.efc_J_rowadr[r] + nnz - 1] + 1 : 0];
    pos[r] = next;
    next += 1;
  }
  // scatter J' and the column range of each dof
  zero_pairs(X, static_cast<size_t>(nv) * ld);
  std::fill_n(clo, nv, static_cast<double>(ld));
  std::fill_n(chi, nv, 0.0);
  for (int r = 0; r < n; ++r) {
    const constraint::SparseRow row = constraint::row_of(d, Jv, r);
    const int p = static_cast<int>(pos[r]);
    for (int k = 0; k < row.nnz; ++k) {
      const int j = row.col[k];
      X[static_cast<size_t>(j) * ld + p] = row.val[k];
      clo[j] = std::min(clo[j], static_cast<double>(p));
      chi[j] = std::max(chi[j], static_cast<double>(p + 1));
    }
  }
  // (1) L' y = b, from the leaves to the root, over the column range of each dof (in pairs)
  for (int k = nv - 1; k >= 0; --k) {
    if (clo[k] >= chi[k]) continue;
    const int c0 = static_cast<int>(clo[k]) & ~1, c1 = (static_cast<int>(chi[k]) + 1) & ~1;
    const double* row = qld + m.dof_Madr[k];
    const double* xk = X + static_cast<size_t>(k) * ld;
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) {
      const double l = row[t];
      double* xi = X + static_cast<size_t>(i) * ld;
      for (int c = c0; c < c1; c += 2)
        *reinterpret_cast<Pair*>(xi + c) -= l * *reinterpret_cast<const Pair*>(xk + c);
      clo[i] = std::min(clo[i], clo[k]);
      chi[i] = std::max(chi[i], chi[k]);
    }
  }
  // (2) z = D^-1 y
  for (int k = 0; k < nv; ++k) {
    if (clo[k] >= chi[k]) continue;
    const int c0 = static_cast<int>(clo[k]) & ~1, c1 = (static_cast<int>(chi[k]) + 1) & ~1;
    double* xk = X + static_cast<size_t>(k) * ld;
    const double s = diaginv[k];
    for (int c = c0; c < c1; c += 2) *reinterpret_cast<Pair*>(xk + c) *= s;
  }
  // (3) L x = z, from the root to the leaves: x_k -= s_k, s_k = sum over the ancestors i of
  // L_ki x_i (from the parent up, as solve_ld), eight columns at a time in registers
  for (int k = 0; k < nv; ++k) {
    if (m.dof_parentid[k] < 0) continue;
    const double* row = qld + m.dof_Madr[k];
    double* xk = X + static_cast<size_t>(k) * ld;
    int c = 0;
    for (; c + 8 <= ld; c += 8) {
      Pair s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
      int t = 1;
      for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) {
        const double l = row[t];
        const double* xi = X + static_cast<size_t>(i) * ld + c;
        s0 += l * *reinterpret_cast<const Pair*>(xi);
        s1 += l * *reinterpret_cast<const Pair*>(xi + 2);
        s2 += l * *reinterpret_cast<const Pair*>(xi + 4);
        s3 += l * *reinterpret_cast<const Pair*>(xi + 6);
      }
      *reinterpret_cast<Pair*>(xk + c) -= s0;
      *reinterpret_cast<Pair*>(xk + c + 2) -= s1;
      *reinterpret_cast<Pair*>(xk + c + 4) -= s2;
      *reinterpret_cast<Pair*>(xk + c + 6) -= s3;
    }
    for (; c < ld; c += 2) {
      Pair s0 = {0, 0};
      int t = 1;
      for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t)
        s0 += row[t] * *reinterpret_cast<const Pair*>(X + static_cast<size_t>(i) * ld + c);
      *reinterpret_cast<Pair*>(xk + c) -= s0;
    }
  }
  for (int r = 0; r < n; ++r) {
    const int p = static_cast<int>(pos[r]);
    double* col = w.MinvJT + static_cast<size_t>(r) * nv;
    for (int k = 0; k < nv; ++k) col[k] = X[static_cast<size_t>(k) * ld + p];
    int a = 0, b = nv;
    while (a < nv && col[a] == 0) ++a;
    while (b > a && col[b - 1] == 0) --b;
    w.lo[r] = a;
    w.hi[r] = b;
  }
}

// G of the block of dim rows at row r (dim x dim, symmetric): u_{r+a} . u_{r+b}. The rows of a
// contact share their columns (contact_rows.cc), so their dual rows lie one after the other over
// the same columns: one pass over the columns accumulates every entry, two per SSE2 operation
// (GCC/Clang vector types), each sum in column order (entries (a, b) and (b, a) add the same
// products: G is exactly symmetric).
template <int dim>
void block_gram_n(const solver::DualRows& u, int r, double* G) {
  typedef double Pair __attribute__((vector_size(16), aligned(8)));
  constexpr int P = (dim + 1) / 2;  // pairs of a row of G
  const int a0 = u.adr[r], n = u.adr[r + 1] - a0;
  const double* v = u.val + a0;
  Pair S[dim][P];
  for (int a = 0; a < dim; ++a)
    for (int p = 0; p < P; ++p) S[a][p] = Pair{0, 0};
  for (int k = 0; k < n; ++k) {
    double x[2 * P];
    for (int a = 0; a < dim; ++a) x[a] = v[a * n + k];
    if (dim % 2) x[2 * P - 1] = 0;
#pragma GCC unroll 6
    for (int a = 0; a < dim; ++a) {
      const Pair xa = {x[a], x[a]};
#pragma GCC unroll 3
      for (int p = 0; p < P; ++p) S[a][p] += xa * Pair{x[2 * p], x[2 * p + 1]};
    }
  }
  for (int a = 0; a < dim; ++a)
    for (int b = 0; b < dim; ++b) G[a * dim + b] = S[a][b / 2][b % 2];
}
void block_gram(const solver::DualRows& u, int r, int dim, double* G) {
  switch (dim) {
    case 1: block_gram_n<1>(u, r, G); return;
    case 3: block_gram_n<3>(u, r, G); return;
    case 4: block_gram_n<4>(u, r, G); return;
    default: block_gram_n<6>(u, r, G); return;  // dim is 1, 3, 4 or 6
  }
}

// Time constant of the Baumgarte term of row i (ncp.h).
double time_constant(const Model& m, const Data& d, int i, double h) {
  const double* solref;
  const double* solimp;
  constraint::row_params(m, d, i, &solref, &solimp);
  const double floor = (m.opt.disableflags & kDsblRefsafe) ? h : 2 * h;
  return solref[0] > 0 ? std::max(solref[0], floor) : floor;
}

}  // namespace

// Reference-velocity shift s of row i for velocity stepping (ncp.h).
double shift(const Model& m, const Data& d, int i, Kind kind, int k, double h) {
  if (kind == kBox || (kind == kCone && k > 0)) return 0;
  const double phi = d.efc_pos[i];
  if (kind == kBilateral) return phi / time_constant(m, d, i, h);
  return phi >= 0 ? phi / h : phi / time_constant(m, d, i, h);
}

void setup(const Model& m, Data& d, Work& w, double h, bool impulsive, double restitution) {
  const int nv = m.nv, nefc = d.nefc;
  const double* Jv = constraint::J_values(m, d);

  // Mt = M + h B, factored in qH as the Euler integrator does (it refactors the same matrix)
  w.h = impulsive ? 0 : h;
  w.damped = false;
  if (!impulsive)
    for (int i = 0; i < nv; ++i) w.damped = w.damped || m.dof_damping[i] > 0;
  const bool lcp = m.opt.solver == kSolverLCP;
  if (w.damped) {
    std::copy_n(d.qM.begin(), m.nM, d.qH.begin());
    for (int i = 0; i < nv; ++i) d.qH[m.dof_Madr[i]] += h * m.dof_damping[i];
    internal::factor_ld(m, d.qH.data(), d.qHDiagInv.data(), lcp ? nullptr : w.dsi);
  }

  // free velocity
  if (impulsive) {
    std::copy_n(d.qvel.data(), nv, w.vf);
  } else {
    std::copy_n(d.qfrc_smooth.data(), nv, w.tmp);
    solve_mt(m, d, w, w.tmp, 1);
    for (int k = 0; k < nv; ++k) w.vf[k] = d.qvel[k] + h * w.tmp[k];
  }

  // lcp: the columns Mt^-1 J_r' and their non-zero dof range; the Gauss-Seidel solvers: the rows
  // in dual form
  if (lcp) {
    if (w.damped) solve_columns(m, d, w, Jv, d.qH.data(), d.qHDiagInv.data());
    else solve_columns(m, d, w, Jv, d.qLD.data(), d.qLDiagInv.data());
  } else {
    const constraint::Work cw = constraint::carve(m, d);
    w.u = w.damped ? solver::dual_rows(m, d, cw, d.qH.data(), w.dsi)
                   : solver::dual_rows(m, d, cw, d.qLD.data(), d.qLDiagSqrtInv.data());
  }

  // diagonal blocks of G = J Mt^-1 J', their inverse and projection step; g = J v_f + s
  for (int r = 0; r < nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    double* G = w.G + 6 * r;
    // G is symmetric: the upper triangle's products, mirrored (exactly symmetric, half the dots)
    if (lcp) {
      for (int a = 0; a < dim; ++a)
        for (int b = a; b < dim; ++b)
          G[a * dim + b] = G[b * dim + a] =
              constraint::dot_row(Jv, d, r + a, w.MinvJT + static_cast<size_t>(r + b) * nv);
    } else {
      block_gram(w.u, r, dim, G);
    }
    if (kind == kCone && scaled_cone(d.contact[d.efc_id[r]])) {
      // torsional / rolling friction or anisotropic friction (ncp.h, scaled cones): the raisim
      // solvers need G^-1, the projected ones the step 1 / lambda_max(D G D)
      double D[6];
      cone_scale(d.contact[d.efc_id[r]], D);
      w.eig[6 * r] = 0;
      if (relaxed_solver(m.opt.solver)) {
        sym_factor(dim, G, w.Ginv + 6 * r);
        w.rho[r] = 0;
      } else {
        double Gz[36], ev[6], Q[36];
        for (int a = 0; a < dim; ++a)
          for (int b = 0; b < dim; ++b) Gz[a * dim + b] = D[a] * G[a * dim + b] * D[b];
        sym_eigen(dim, Gz, ev, Q);
        double lmax = 0;
        for (int a = 0; a < dim; ++a) lmax = std::max(lmax, ev[a]);
        w.rho[r] = lmax > 0 ? 1 / lmax : 0;
      }
    } else if (dim == 3) {
      // a block that does not span R^3 (e.g. a contact on a body that cannot slide; detected by
      // its smallest eigenvalue, det / (product of the two others) <= 1e-10 lambda_max) is inverted
      // with a regularization of 1e-10 lambda_max: the rows without effect get no force. The
      // raisim solvers need lambda_max only for that: G is a Gram matrix, so where det > 1e-10
      // trace^3 > 0 its eigenvalues are positive and lambda_max <= trace passes the test too.
      const double det = G[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (G[3] * G[8] - G[5] * G[6]) +
                         G[2] * (G[3] * G[7] - G[4] * G[6]);
      const double tr = G[0] + G[4] + G[8];
      const bool raisim = relaxed_solver(m.opt.solver);
      const bool clear = raisim && det > 1e-10 * tr * tr * tr;
      const double lmax = clear ? 0 : max_eigenvalue3(G);
      double R[9];
      std::copy_n(G, 9, R);
      if (!clear && !(det > 1e-10 * lmax * lmax * lmax))
        for (int a = 0; a < 3; ++a) R[4 * a] += 1e-10 * lmax;
      if (!invert3(R, w.Ginv + 6 * r)) std::fill_n(w.Ginv + 6 * r, 9, 0.0);
      w.rho[r] = raisim ? 0 : lmax > 0 ? 1 / lmax : 0;  // the projected solvers' step
    } else {
      w.Ginv[6 * r] = G[0] > 0 ? 1 / G[0] : 0;
      w.rho[r] = w.Ginv[6 * r];
    }
    for (int k = 0; k < dim; ++k) {
      const int i = r + k;
      const double cv = constraint::dot_row(Jv, d, i, w.vf);
      double s;
      if (impulsive) {
        // Newton's restitution on approaching unilateral rows: c+ >= -e c-
        const bool normal = kind == kUnilateral || (kind == kCone && k == 0);
        s = normal && cv < 0 ? restitution * cv : 0;
      } else {
        s = shift(m, d, i, kind, k, h);
      }
      w.g[i] = cv + s;
    }
    r += dim;
  }
  std::fill_n(w.lam, nefc, 0.0);
  std::fill_n(w.v, nv, 0.0);
  std::fill_n(w.z, nv, 0.0);
}

namespace {

double row_key(const Model& m, const Data& d, int r) {
  if (d.efc_type[r] < kCnstrContactFrictionless) return d.efc_id[r];
  const Contact& con = d.contact[d.efc_id[r]];
  return static_cast<double>(con.geom1) * m.ngeom + con.geom2;
}

}  // namespace

void warm_start(const Model& m, Data& d, Work& w) {
  const int nefc = d.nefc, nprev = static_cast<int>(w.header[1]);
  constexpr int kWindow = 16;
  if (nprev == 0 || (m.opt.disableflags & kDsblWarmstart)) return;
  for (int r = 0; r < nefc;) {
    int dim;
    block_kind(d, r, &dim);
    const double type = d.efc_type[r], key = row_key(m, d, r);
    const bool contact = d.efc_type[r] >= kCnstrContactFrictionless;
    const double* pos = contact ? d.contact[d.efc_id[r]].pos : nullptr;
    int best = -1;
    if (contact) {  // the nearest contact point of the same geom pair in the window
      double best_dist = 0;
      for (int q = std::max(0, r - kWindow); q < std::min(nprev, r + kWindow + 1); ++q) {
        if (w.prev_type[q] != type || w.prev_key[q] != key) continue;
        const double* p = w.prev_pos + 3 * q;
        const double dist = (p[0] - pos[0]) * (p[0] - pos[0]) + (p[1] - pos[1]) * (p[1] - pos[1]) + (p[2] - pos[2]) * (p[2] - pos[2]);
        if (best < 0 || dist < best_dist) {
          best = q;
          best_dist = dist;
        }
      }
    } else {  // the nearest row of the same type and object: the same place first, then outwards
      for (int k = 0; k <= kWindow && best < 0; ++k)
        for (int q : {r - k, r + k}) {
          if (q < 0 || q >= nprev || w.prev_type[q] != type || w.prev_key[q] != key) continue;
          best = q;
          break;
        }
    }
    if (best >= 0 && best + dim <= nprev)
      for (int a = 0; a < dim; ++a) w.lam[r + a] = w.prev_lam[best + a];
    r += dim;
  }
  for (int r = 0; r < nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    bool any = false;
    for (int a = 0; a < dim; ++a) any = any || w.lam[r + a] != 0;
    if (any) {
      if (kind == kCone) block_axpy(w.u, r, dim, w.lam + r, w.z);
      else solver::dual_axpy(w.u, r, w.lam[r], w.z);
    }
    r += dim;
  }
}

void velocity_from_z(const Model& m, const Data& d, Work& w) {
  std::copy_n(w.z, m.nv, w.v);
  if (w.damped) solver::dual_to_acc(m, d.qH.data(), w.dsi, w.v);
  else solver::dual_to_acc(m, d, w.v);
}

void save_solution(const Model& m, Data& d, Work& w) {
  const int nefc = d.nefc;
  for (int r = 0; r < nefc;) {
    int dim;
    block_kind(d, r, &dim);
    const bool contact = d.efc_type[r] >= kCnstrContactFrictionless;
    const double key = row_key(m, d, r);
    for (int a = 0; a < dim; ++a) {
      // only a block's first row is a match candidate: its other rows get type -1
      w.prev_type[r + a] = a == 0 ? d.efc_type[r] : -1;
      w.prev_key[r + a] = key;
      w.prev_lam[r + a] = w.lam[r + a];
      if (contact) {
        const double* pos = d.contact[d.efc_id[r]].pos;
        double* prev = w.prev_pos + 3 * (r + a);
        prev[0] = pos[0], prev[1] = pos[1], prev[2] = pos[2];
      }
    }
    r += dim;
  }
  w.header[1] = nefc;
}

}  // namespace moreau::ncp

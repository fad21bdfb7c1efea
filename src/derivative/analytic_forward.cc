// Analytic derivatives of forward dynamics, inverse dynamics and step (moreau/analytic_derivative.h).
//
// Forward dynamics: M qacc = f(q, v, act, ctrl) + J' force. Without constraint rows
//   dqacc/dx = M^-1 (df/dx - (dM/dx) qacc),
// where (dM/dq) qacc + dC/dq is the position derivative of RNE(q, v, qacc) (analytic_rne.cc) and
// dC/dv the velocity derivative of RNE (smooth_vel.cc). With constraint rows M^-1 becomes H^-1,
// H = M + J' D_s J (implicit-function theorem, header), and the velocity columns gain
// -J' D_s B J from aref = -B J v - K imp (pos - margin).
//
// Step: qacc_e = (M + h B_damp)^-1 M qacc (Euler with damping), (M - h D)^-1 M qacc (implicit,
// implicitfast with D symmetrized), differentiated with D's own derivative where it is not
// constant: the RNE part of D is linear in v, so d(D_rne(v) y)/dv = D_rne evaluated at velocity y,
// and d(D_rne y)/dq = -d/dq [C(v + y) - C(v) - C(y)] (C without gravity); the actuator part of D
// depends on the actuator input through gain_vel. Then v' = v + h qacc_e, act' = act + h act_dot
// (filterexact: tau (1 - exp(-h/tau))) clamped to actrange, and q' = q exp(h v') per joint: in the
// tangent space dq' = R(h v')' dq + Jr(h v') h dv' for the rotation of ball and free joints (Jr the
// right Jacobian of SO(3)), dq' = dq + h dv' otherwise. The implicit integrators' midpoint free
// bodies replace their rows of d qacc_e (midpoint_rows); RK4 chains the four stages (rk4_transition).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "constraint/storage.h"
#include "derivative/contact_geometry.h"
#include "derivative/passive_pos.h"
#include "derivative/recycling.h"
#include "derivative/sensor_deriv.h"
#include "derivative/state_copy.h"
#include "derivative/tendon_deriv.h"
#include "derivative/work.h"
#include "dynamics/dynamics.h"
#include "integrator/implicit.h"
#include "kinematics/jacobian.h"
#include "math/so3.h"
#include "math/spatial.h"
#include "moreau/analytic_derivative.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"
#include "solver/solver.h"

namespace moreau {

namespace internal {
void deriv_passive_actuator_vel(const Model& m, Data& d);
void deriv_rne_vel(const Model& m, Data& d);
void deriv_fluid_vel(const Model& m, Data& d, double* D);
}  // namespace internal

namespace {

// Temporaries come from the per-thread block cache (derivative/recycling.h): no heap allocation
// after the first call.
using Vec = internal::RecycledVec;
using IVec = internal::RecycledIntVec;

// The warning of a fallback, once per process for each (feature, columns) pair of literals; the
// pairs said are compared by address (no allocation per call).
void warn_once(const char* what, const char* columns = "") {
  static std::mutex mu;
  static const char* said[64][2];
  static int nsaid = 0;
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < nsaid; ++i)
    if (said[i][0] == what && said[i][1] == columns) return;
  if (nsaid < 64) said[nsaid][0] = what, said[nsaid][1] = columns, ++nsaid;
  std::fprintf(stderr, "moreau: analytic derivatives: %s%s: computed by finite differences\n", what, columns);
}

// First unsupported feature per class of columns (null: analytic); string literals.
struct Coverage {
  const char* pos = nullptr;  // qpos columns
  const char* vel = nullptr;  // qvel columns
  const char* ctl = nullptr;  // act and ctrl columns
  void all(const char* s) {
    if (!pos) pos = s;
    if (!vel) vel = s;
    if (!ctl) ctl = s;
  }
  void p(const char* s) { if (!pos) pos = s; }
  void v(const char* s) { if (!vel) vel = s; }
};

bool fixed_tendon(const Model& m, int t) {
  for (int w = m.tendon_adr[t]; w < m.tendon_adr[t] + m.tendon_num[t]; ++w)
    if (m.wrap_type[w] != kWrapJoint) return false;
  return true;
}

bool scalar_joint(const Model& m, int j) { return m.jnt_type[j] == kJointHinge || m.jnt_type[j] == kJointSlide; }

// Whether the position derivative of every constraint row is analytic (below); else the feature.
// Covered: joint limits (hinge, slide), tendon limits and friction, dof friction, joint, tendon,
// connect and weld equality, and contacts (contact_geometry.h).
const char* constraint_pos_unsupported(const Model& m, const Data& d) {
  for (int r = 0; r < d.nefc; ++r) {
    const int id = d.efc_id[r];
    switch (d.efc_type[r]) {
      case kCnstrFrictionDof:
        break;
      case kCnstrFrictionTendon:
      case kCnstrLimitTendon:
        break;
      case kCnstrLimitJoint:
        break;
      case kCnstrContactFrictionless:
      case kCnstrContactPyramidal:
      case kCnstrContactElliptic: {
        if (internal::contact_deriv_method(m, d, d.contact[id]) == internal::ContactDerivMethod::kUnsupported)
          return "contacts of spheres/capsules with coincident centres (qpos derivative)";
        break;
      }
      case kCnstrEquality: {
        const int o1 = m.eq_obj1id[id], o2 = m.eq_obj2id[id];
        if (m.eq_type[id] == kEqJoint) {
          if (!scalar_joint(m, o1) || (o2 >= 0 && !scalar_joint(m, o2))) return "ball joint equality (qpos derivative)";
        } else if (m.eq_type[id] == kEqTendon) {
          // fixed and spatial tendons (tendon_deriv.h)
        } else if (m.opt.enableflags & kEnblJdotv) {
          return "jdotv term of connect and weld rows (qpos derivative)";
        }
        break;
      }
      default:
        return "unknown constraint rows (qpos derivative)";
    }
  }
  return nullptr;
}

bool has_elliptic(const Data& d) {
  for (int r = 0; r < d.nefc; ++r)
    if (d.efc_type[r] == kCnstrContactElliptic) return true;
  return false;
}

Coverage coverage(const Model& m, const Data& d) {
  Coverage c;
  if (d.nefc > 0) {
    if (const char* rows = constraint_pos_unsupported(m, d)) c.p(rows);
    if (m.opt.noslip_iterations > 0 && has_elliptic(d)) c.all("noslip post-pass with elliptic cones");
    // the hard-contact solvers do not minimize the soft model's primal cost
    if (is_hard_contact_solver(m.opt.solver)) c.all("hard-contact solver");
    if ((m.opt.enableflags & kEnblJdotv) && d.ne > 0) c.v("jdotv term of equality constraints");
  }
  if (!internal::rne_pos_supported(m)) c.p("ball joint followed by another joint in one body");
  if (!(m.opt.disableflags & kDsblActuation)) {
    for (int u = 0; u < m.nu; ++u) {
      if (!internal::transmission_deriv_supported(m, d, u))
        c.all("body transmission (adhesion) with a contact of spheres/capsules with coincident centres");
      const int g = m.actuator_gaintype[u], b = m.actuator_biastype[u], y = m.actuator_dyntype[u];
      if (g == kGainUser || b == kBiasUser || y == kDynUser) c.all("user actuator callbacks");
    }
  }
  return c;
}

// Derivatives of the smooth applied forces (passive + actuator, dense) and of act_dot:
//   Fq, Fv nv x nv (col-major: column k at k*nv), Fact nv x na, Fu nv x nu (col-major),
//   Gact na x na, Gu na x nu (row-major). Passive only (no actuators, no xfrc_applied: what
//   qfrc_inverse subtracts) when actuators is false.
struct Smooth {
  Vec Fq, Fv, Fact, Fu, Gact, Gu;
};

void add_outer_dense(int nv, double* F, const double* x, const double* y, double c) {
  // F += c x y' (col-major)
  for (int k = 0; k < nv; ++k) {
    if (y[k] == 0) continue;
    const double s = c * y[k];
    for (int i = 0; i < nv; ++i) F[static_cast<size_t>(k) * nv + i] += s * x[i];
  }
}

Smooth smooth_forces(const Model& m, const Data& d, bool actuators) {
  const int nv = m.nv, na = m.na, nu = m.nu;
  Smooth s{Vec(static_cast<size_t>(nv) * nv), Vec(static_cast<size_t>(nv) * nv), Vec(static_cast<size_t>(nv) * na),
           Vec(static_cast<size_t>(nv) * nu), Vec(static_cast<size_t>(na) * na), Vec(static_cast<size_t>(na) * nu)};
  if (!(m.opt.disableflags & kDsblPassive)) {
    for (int j = 0; j < m.njnt; ++j)
      if (scalar_joint(m, j)) {
        const int i = m.jnt_dofadr[j];
        s.Fq[static_cast<size_t>(i) * nv + i] -= m.jnt_stiffness[j];
      }
    for (int i = 0; i < nv; ++i) s.Fv[static_cast<size_t>(i) * nv + i] -= m.dof_damping[i];
    for (int t = 0; t < m.ntendon; ++t) {
      const double* J = &d.ten_J[static_cast<size_t>(t) * nv];
      double k = m.tendon_stiffness[t];
      if (k != 0 && m.tendon_lengthspring.size() == 2 * static_cast<size_t>(m.ntendon)) {
        const double L = d.ten_length[t];
        if (L >= m.tendon_lengthspring[2 * t] && L <= m.tendon_lengthspring[2 * t + 1]) k = 0;  // dead band
      }
      if (k != 0) add_outer_dense(nv, s.Fq.data(), J, J, -k);
      if (m.tendon_damping[t] != 0) add_outer_dense(nv, s.Fv.data(), J, J, -m.tendon_damping[t]);
      if ((m.tendon_stiffness[t] != 0 || m.tendon_damping[t] != 0) && !fixed_tendon(m, t))
        internal::spatial_tendon_passive_pos(m, d, t, s.Fq.data());  // the moment arms' derivative
    }
    internal::ball_spring_pos(m, d, s.Fq.data());
    internal::fluid_pos(m, d, s.Fq.data());
    internal::body_force_pos(m, d, !(m.opt.disableflags & kDsblGravity), false, s.Fq.data());  // gravcomp
  }
  // xfrc_applied enters forward's qfrc_smooth, not qfrc_inverse
  if (actuators) internal::body_force_pos(m, d, false, true, s.Fq.data());
  if (!actuators || nu == 0 || (m.opt.disableflags & kDsblActuation)) return s;
  Vec dlen(nv), dmom(static_cast<size_t>(nv) * nv);
  for (int u = 0; u < nu; ++u) {
    const double* moment = &d.actuator_moment[static_cast<size_t>(u) * nv];
    const internal::ActuatorTerms a = internal::actuator_terms(m, d, u);
    const int adr = m.actuator_actadr[u];
    if (adr >= 0) {
      s.Gu[static_cast<size_t>(adr) * nu + u] += a.gu;
      s.Gact[static_cast<size_t>(adr) * na + adr] += a.gact;
    }
    const double input = a.input, gain = a.gain, glen = a.glen, gvel = a.gvel, blen = a.blen, bvel = a.bvel;
    const double dforce = a.dforce, din_act = a.din_act, din_u = a.din_u, dctrl = a.dctrl;
    // length: d len/dq = dlen (the moment for joint and tendon transmissions); vel = moment v; a
    // moment that varies with qpos (spatial tendons, sites, slider-cranks, jointinparent) adds
    // force dmoment and the velocity's dmoment' v
    const bool varying = internal::transmission_deriv(m, d, u, dlen.data(), dmom.data());
    add_outer_dense(nv, s.Fq.data(), moment, dlen.data(), dforce * (glen * input + blen));
    add_outer_dense(nv, s.Fv.data(), moment, moment, dforce * (gvel * input + bvel));
    if (varying) {
      const double fu = d.actuator_force[u], cv = dforce * (gvel * input + bvel);
      for (int k = 0; k < nv; ++k) {
        const double* dm = &dmom[static_cast<size_t>(k) * nv];
        double dv = 0;
        for (int i = 0; i < nv; ++i) dv += dm[i] * d.qvel[i];
        double* col = &s.Fq[static_cast<size_t>(k) * nv];
        for (int i = 0; i < nv; ++i) col[i] += fu * dm[i] + cv * dv * moment[i];
      }
    }
    const double gi = dforce * gain;
    if (adr >= 0) {
      for (int i = 0; i < nv; ++i) s.Fact[static_cast<size_t>(adr) * nv + i] += gi * din_act * moment[i];
      if (din_u != 0)
        for (int i = 0; i < nv; ++i) s.Fu[static_cast<size_t>(u) * nv + i] += gi * din_u * moment[i];
    } else {
      for (int i = 0; i < nv; ++i) s.Fu[static_cast<size_t>(u) * nv + i] += gi * dctrl * moment[i];
    }
  }
  return s;
}

// Dense M (row-major) from qM, armature included.
Vec dense_m(const Model& m, const Data& d) {
  const int nv = m.nv;
  Vec M(static_cast<size_t>(nv) * nv);
  for (int i = 0; i < nv; ++i) {
    M[static_cast<size_t>(i) * nv + i] = d.qM[m.dof_Madr[i]];
    int t = 1;
    for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a], ++t)
      M[static_cast<size_t>(i) * nv + a] = M[static_cast<size_t>(a) * nv + i] = d.qM[m.dof_Madr[i] + t];
  }
  return M;
}

// Dense -dC/dv (col-major, nv x nv) of RNE at the velocity currently in d (cvel, cdof_dot).
Vec rne_vel_dense(const Model& m, Data& d) {
  const int nv = m.nv;
  std::fill(d.qDeriv.begin(), d.qDeriv.end(), 0.0);
  internal::deriv_rne_vel(m, d);
  Vec rm(static_cast<size_t>(nv) * nv), cm(rm.size());
  deriv_to_dense(m, d.qDeriv.data(), rm.data());
  for (int i = 0; i < nv; ++i)
    for (int k = 0; k < nv; ++k) cm[static_cast<size_t>(k) * nv + i] = rm[static_cast<size_t>(i) * nv + k];
  return cm;
}

// Adds the fluid forces' velocity derivative (smooth_vel.cc: J' H J per body or geom) to the
// col-major nv x nv Cv.
void add_fluid_vel(const Model& m, Data& d, double* Cv) {
  if ((m.opt.disableflags & kDsblPassive) || !(m.opt.density > 0 || m.opt.viscosity > 0)) return;
  const int nv = m.nv;
  Vec D(d.qDeriv.size(), 0.0), dense(static_cast<size_t>(nv) * nv);
  internal::deriv_fluid_vel(m, d, D.data());
  deriv_to_dense(m, D.data(), dense.data());
  for (int k = 0; k < nv; ++k)
    for (int i = 0; i < nv; ++i) Cv[static_cast<size_t>(k) * nv + i] += dense[static_cast<size_t>(i) * nv + k];
}

// Row-major to col-major and back (rows x cols <-> cols x rows).
void transpose(int rows, int cols, const double* a, double* b) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) b[static_cast<size_t>(j) * rows + i] = a[static_cast<size_t>(i) * cols + j];
}

// A and B (row-major) from T, whose column k (at k*ndx) is d x' / d (x, u)_k.
void write_transition(int ndx, int nu, const double* T, double* A, double* B) {
  if (A) transpose(ndx, ndx, T, A);
  if (B) transpose(nu, ndx, T + static_cast<size_t>(ndx) * ndx, B);
}

using internal::StateCopy;

constexpr double kEps = 1e-6;    // transition_fd's step where the whole transition falls back
constexpr double kFdStep = 1e-5;  // step of the column fallback (extrapolated, below)

// Column of d(qacc, act_dot)/d(perturbation) into qa (nv) and ad (na). Without constraint rows:
// centred differences at h and h/2 extrapolated (Richardson: truncation O(h^4), round-off
// ~1e-16 |f| cond(M) / h). With constraint rows: centred differences at eps = 1e-6 (transition_fd's
// step: a larger step crosses active-set switches more often, and extrapolation amplifies them).
// One-sided first-order differences for a control at the edge of its range (room < h on one side).
template <class Perturb>
void fd_column(const Model& m, Data& d, const StateCopy& s, Perturb perturb, double lo_room, double hi_room,
               double* qa, double* ad) {
  const int nv = m.nv, na = m.na;
  const bool constrained = d.nefc > 0;
  const double h = constrained ? kEps : kFdStep;
  const bool up = hi_room >= h, down = lo_room >= h;
  if (!up && !down) {
    std::fill_n(qa, nv, 0.0);
    std::fill_n(ad, na, 0.0);
    return;
  }
  Vec out[4];
  auto eval = [&](double e, Vec& o) {
    s.restore(d);
    perturb(e);
    forward(m, d);
    o.assign(d.qacc.begin(), d.qacc.begin() + nv);
    o.insert(o.end(), d.act_dot.begin(), d.act_dot.begin() + na);
  };
  if (up && down && constrained) {
    eval(h, out[0]), eval(-h, out[1]);
    for (int i = 0; i < nv + na; ++i) (i < nv ? qa[i] : ad[i - nv]) = (out[0][i] - out[1][i]) / (2 * h);
    return;
  }
  if (up && down) {
    eval(h, out[0]), eval(-h, out[1]), eval(h / 2, out[2]), eval(-h / 2, out[3]);
    for (int i = 0; i < nv + na; ++i) {
      const double d1 = (out[0][i] - out[1][i]) / (2 * h), d2 = (out[2][i] - out[3][i]) / h;
      (i < nv ? qa[i] : ad[i - nv]) = (4 * d2 - d1) / 3;
    }
    return;
  }
  const double e = up ? h : -h;
  eval(e, out[0]), eval(0, out[1]);
  for (int i = 0; i < nv + na; ++i) (i < nv ? qa[i] : ad[i - nv]) = (out[0][i] - out[1][i]) / e;
}

// The derivatives of forward dynamics, col-major: X[k*nv + i] = d qacc_i / d x_k; act_dot rows in
// col-major Y[k*na + i].
struct Forward {
  Vec aq, av, aact, au, af;     // nv x (nv, nv, na, nu, nv)
  Vec gq, gv, gact, gu;         // na x (nv, nv, na, nu)
  Smooth sm;                    // smooth force derivatives (passive + actuator)
  Vec Cv;                       // -dC/dv, col-major
  bool constrained = false;
  // d efc_force / d (q, v, act, u) (nefc x (2nv + na + nu), col-major: column c at c*nefc), for
  // the touch, force, torque and limit-force sensor rows; ff_ok: computed (or nefc = 0)
  Vec ff;
  bool ff_ok = false;
};

// Connected components of the dofs' coupling graph: the kinematic tree, the columns of every
// constraint row, every tendon's Jacobian and every actuator's moment. M, H = M + J'DJ, the
// implicit integrators' matrices and every right-hand side of a dof's (or an actuator's) column
// stay inside one component (a dof moves its subtree; a row couples the trees it touches), so the
// solves and products of a column run over its component's dofs only: with many free bodies (a
// pile of objects) the nv x nv work shrinks to the sum of the components' squares.
struct Components {
  IVec id;    // dof -> component
  IVec adr;   // component c: dofs[adr[c] .. adr[c + 1]), ascending
  IVec dofs;
  IVec act;   // activation -> component (-1: none)
  IVec ctl;   // actuator -> component of its moment (-1: zero moment)
  const int* of(int c) const { return dofs.data() + adr[c]; }
  int size(int c) const { return adr[c + 1] - adr[c]; }
};

Components dof_components(const Model& m, const Data& d) {
  const int nv = m.nv;
  Components c;
  IVec parent(nv);
  for (int i = 0; i < nv; ++i) parent[i] = i;
  auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  auto unite = [&](int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  for (int i = 0; i < nv; ++i)
    if (m.dof_parentid[i] >= 0) unite(i, m.dof_parentid[i]);
  const double* vals = constraint::J_values(m, d);
  for (int r = 0; r < d.nefc; ++r) {
    const constraint::SparseRow row = constraint::row_of(d, vals, r);
    for (int a = 1; a < row.nnz; ++a) unite(row.col[0], row.col[a]);
  }
  auto dense_row = [&](const double* J) {
    int first = -1;
    for (int i = 0; i < nv; ++i)
      if (J[i] != 0) {
        if (first < 0) first = i;
        else unite(first, i);
      }
    return first;
  };
  for (int t = 0; t < m.ntendon; ++t) dense_row(&d.ten_J[static_cast<size_t>(t) * nv]);
  c.ctl.assign(m.nu, -1);
  c.act.assign(m.na, -1);
  IVec first(m.nu);
  for (int u = 0; u < m.nu; ++u) first[u] = dense_row(&d.actuator_moment[static_cast<size_t>(u) * nv]);
  // number the components by their first dof, list their dofs
  c.id.assign(nv, -1);
  IVec count(nv + 1, 0);
  int n = 0;
  for (int i = 0; i < nv; ++i) {
    const int root = find(i);
    if (c.id[root] < 0) c.id[root] = n++;
    c.id[i] = c.id[root];
    ++count[c.id[i] + 1];
  }
  c.adr.assign(n + 1, 0);
  for (int k = 0; k < n; ++k) c.adr[k + 1] = c.adr[k] + count[k + 1];
  c.dofs.assign(nv, 0);
  IVec fill(c.adr.begin(), c.adr.end() - 1);
  for (int i = 0; i < nv; ++i) c.dofs[fill[c.id[i]]++] = i;
  for (int u = 0; u < m.nu; ++u) {
    c.ctl[u] = first[u] >= 0 ? c.id[first[u]] : -1;
    if (m.actuator_actadr[u] >= 0) c.act[m.actuator_actadr[u]] = c.ctl[u];
  }
  return c;
}

// x <- M^-1 x over the dofs of one component (x zero elsewhere), with M = L'DL in qld (qM's
// layout) and diaginv = 1/D.
void solve_ld_dofs(const Model& m, const double* qld, const double* diaginv, const int* dofs, int n, double* x) {
  for (int q = n - 1; q >= 0; --q) {
    const int k = dofs[q];
    const double xk = x[k];
    if (xk == 0) continue;
    const double* row = qld + m.dof_Madr[k];
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) x[i] -= row[t] * xk;
  }
  for (int q = 0; q < n; ++q) x[dofs[q]] *= diaginv[dofs[q]];
  for (int q = 0; q < n; ++q) {
    const int k = dofs[q];
    const double* row = qld + m.dof_Madr[k];
    double s = 0;
    int t = 1;
    for (int i = m.dof_parentid[k]; i >= 0; i = m.dof_parentid[i], ++t) s += row[t] * x[i];
    x[k] -= s;
  }
}

// res = M x over the dofs of one component (x zero elsewhere; res written there only).
void mul_m_dofs(const Model& m, const Data& d, const int* dofs, int n, double* res, const double* x) {
  for (int q = 0; q < n; ++q) res[dofs[q]] = d.qM[m.dof_Madr[dofs[q]]] * x[dofs[q]];
  for (int q = 0; q < n; ++q) {
    const int i = dofs[q];
    int t = 1;
    for (int a = m.dof_parentid[i]; a >= 0; a = m.dof_parentid[a], ++t) {
      const double v = d.qM[m.dof_Madr[i] + t];
      res[i] += v * x[a];
      res[a] += v * x[i];
    }
  }
}

// H^-1 (or M^-1 without constraint rows) applied to n col-major vectors; column k's right-hand
// side lies in component comp[k] (-1 or comp null: anywhere).
struct Solver {
  const Model& m;
  Data& d;
  bool constrained;
  const Components& cc;
  constraint::Work w{};
  void prepare() {
    if (!constrained) return;
    w = constraint::carve(m, d);
    solver::hessian_factor(m, d, w, false);
  }
  void solve(double* x, int n, const int* comp) {
    const int nv = m.nv;
    for (int k = 0; k < n; ++k) {
      double* xk = x + static_cast<size_t>(k) * nv;
      const int c = comp ? comp[k] : -1;
      if (c < 0) {
        if (constrained) solver::hessian_solve(m, w, xk);
        else solve_m(m, d, xk, 1);
      } else if (constrained) {
        solver::hessian_solve_dofs(m, w, cc.of(c), cc.size(c), xk);
      } else {
        solve_ld_dofs(m, d.qLD.data(), d.qLDiagInv.data(), cc.of(c), cc.size(c), xk);
      }
    }
  }
};

// Dense J (nefc x nv, row-major), z = J qacc - aref and force = -grad s at the main solver's qacc
// (the final one without noslip); the constraint states and cone Hessians in d are recomputed
// there (as the Newton solver leaves them).
struct Rows {
  Vec J, z, force;
};
Rows constraint_rows(const Model& m, Data& d, const double* qacc) {
  const int nv = m.nv, nefc = d.nefc;
  // blocks sized by the row capacity, not nefc: the same size classes at every state
  const size_t cap = static_cast<size_t>(constraint::capacity(d));
  Rows c;
  c.J.reserve(cap * nv), c.z.reserve(cap), c.force.reserve(cap);
  c.J.assign(static_cast<size_t>(nefc) * nv, 0.0), c.z.assign(nefc, 0.0), c.force.assign(nefc, 0.0);
  const double* vals = constraint::J_values(m, d);
  for (int r = 0; r < nefc; ++r) {
    const constraint::SparseRow row = constraint::row_of(d, vals, r);
    for (int a = 0; a < row.nnz; ++a) c.J[static_cast<size_t>(r) * nv + row.col[a]] = row.val[a];
  }
  constraint::mul_J(m, d, c.z.data(), qacc);
  for (int r = 0; r < nefc; ++r) c.z[r] -= d.efc_aref[r];
  int nactive = 0;
  solver::eval_constraint(m, d, c.z.data(), c.force.data(), d.efc_state.data(), true, &nactive);
  return c;
}

// -J' D_s B J (col-major nv x nv): the velocity term of aref = -B J v through the constraint cost's
// Hessian D_s (efc_D on quadratic rows, the cone Hessian of elliptic contacts not in the top zone).
// with_B false: -J' D_s J (the acceleration term of inverse dynamics).
Vec constraint_vel_term(const Model& m, Data& d, const Rows& c, bool with_B = true) {
  const int nv = m.nv, nefc = d.nefc;
  const Vec& J = c.J;
  // W = D_s diag(B) J (nefc x nv), then term = -J' W
  Vec W;
  W.reserve(static_cast<size_t>(constraint::capacity(d)) * nv);  // the same size class at every state
  W.assign(static_cast<size_t>(nefc) * nv, 0.0);
  for (int r = 0; r < nefc;) {
    if (d.efc_type[r] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[r]];
      const int dim = con.dim;
      if (d.efc_state[r] != kCnstrSatisfied)
        for (int a = 0; a < dim; ++a)
          for (int b = 0; b < dim; ++b) {
            const double h = con.H[a * dim + b] * (with_B ? d.efc_KBIP[4 * (r + b) + 1] : 1.0);
            if (h == 0) continue;
            for (int i = 0; i < nv; ++i)
              W[static_cast<size_t>(r + a) * nv + i] += h * J[static_cast<size_t>(r + b) * nv + i];
          }
      r += dim;
      continue;
    }
    if (d.efc_state[r] == kCnstrQuadratic) {
      const double h = d.efc_D[r] * (with_B ? d.efc_KBIP[4 * r + 1] : 1.0);
      for (int i = 0; i < nv; ++i) W[static_cast<size_t>(r) * nv + i] = h * J[static_cast<size_t>(r) * nv + i];
    }
    ++r;
  }
  Vec T(static_cast<size_t>(nv) * nv, 0.0);  // col-major: T[k*nv + i] = -sum_r J[r,i] W[r,k]
  for (int r = 0; r < nefc; ++r)
    for (int k = 0; k < nv; ++k) {
      const double w = W[static_cast<size_t>(r) * nv + k];
      if (w == 0) continue;
      for (int i = 0; i < nv; ++i) T[static_cast<size_t>(k) * nv + i] -= J[static_cast<size_t>(r) * nv + i] * w;
    }
  return T;
}

// Whether dof k's motion moves the axis of dof i (both on one chain): i below k, or the other
// rotation axes of k's own ball or free joint; never the world-fixed translations of a free joint.
bool moves(const Model& m, int k, int i) {
  const int ji = m.dof_jntid[i], jk = m.dof_jntid[k];
  if (i == k || (m.jnt_type[ji] == kJointFree && i < m.jnt_dofadr[ji] + 3)) return false;
  if (i > k) return true;
  const bool krot = m.jnt_type[jk] == kJointBall || (m.jnt_type[jk] == kJointFree && k >= m.jnt_dofadr[jk] + 3);
  return krot && ji == jk;
}

using namespace math;

// Position term of the rows of one connect (3 rows) or weld (6 rows) constraint starting at row r0,
// added to T (col-major nv x nv); returns the number of rows. With the anchors p_b (body b's point,
// world frame), the rows' Jacobian columns are e_j.(jp1_i - jp2_i), jp_b,i = v_i + w_i x (p_b - o_b)
// for the dofs i that move body b (cdof_i = (w_i, v_i) at o_b, the com origin of b's tree), and the
// weld's rotation rows 0.5 ts imag(q2^-1 [0, wr_i] q1 r), wr_i = w_i (body 1) - w_i (body 2). Along
// dof k: d cdof_i = cdof_k x cdof_i when k moves i's axis on the same chain, dp_b = v_k + w_k x
// (p_b - o_b) and dq_b = 0.5 [0, w_k] q_b when k moves body b; the residual moves as the rows
// without torquescale (dpos = dp1 - dp2, 0.5 imag(q2^-1 [0, w_k1 - w_k2] q1 r)), and the impedance
// with the norm of (position, ts x rotation) residual.
template <class RowScalar, class AddJ>
int connect_weld_pos_term(const Model& m, Data& d, const Rows& c, int r0, const double* qacc, RowScalar row_scalar,
                          AddJ add_J, double* T) {
  using namespace math;
  const int nv = m.nv, e = d.efc_id[r0];
  const bool weld = m.eq_type[e] == kEqWeld;
  const int nrow = weld ? 6 : 3;
  const int b1 = m.eq_obj1id[e], b2 = m.eq_obj2id[e];
  const double* data = &m.eq_data[kNEQDATA * e];
  const double ts = weld ? data[10] : 1.0;
  double p1[3], p2[3], r1[3], r2[3], q1r[4], q2inv[4];
  constraint::equality_anchors(m, d, e, p1, p2);
  sub3(r1, p1, &d.subtree_com[3 * m.body_rootid[b1]]);
  sub3(r2, p2, &d.subtree_com[3 * m.body_rootid[b2]]);
  mulquat(q1r, &d.xquat[4 * b1], data + 6);
  negquat(q2inv, &d.xquat[4 * b2]);
  // the row columns: the union of the two chains
  IVec c1(nv), c2(nv), un(2 * nv);
  const int n1 = constraint::dof_chain(m, b1, c1.data()), n2 = constraint::dof_chain(m, b2, c2.data());
  const int n = static_cast<int>(std::set_union(c1.begin(), c1.begin() + n1, c2.begin(), c2.begin() + n2, un.begin()) -
                                 un.begin());
  auto in = [&](const IVec& ch, int nc, int k) { return std::binary_search(ch.begin(), ch.begin() + nc, k); };
  // |(pos, ts rot)| of the impedance
  double norm = 0;
  for (int j = 0; j < nrow; ++j) norm += (j < 3 ? 1 : ts * ts) * d.efc_pos[r0 + j] * d.efc_pos[r0 + j];
  norm = std::sqrt(norm);
  const double* qvel = d.qvel.data();
  // q2^-1 [0, a] [0, b] q1 r, imaginary part
  auto qprod = [&](const double* a, const double* b, double* out) {
    const double A[4] = {0, a[0], a[1], a[2]}, Bq[4] = {0, b[0], b[1], b[2]};
    double t[4], u[4], v[4];
    mulquat(t, q2inv, A);
    mulquat(u, t, Bq);
    mulquat(v, u, q1r);
    copy3(out, v + 1);
  };
  auto qone = [&](const double* a, double* out) {
    const double A[4] = {0, a[0], a[1], a[2]};
    double t[4], u[4];
    mulquat(t, q2inv, A);
    mulquat(u, t, q1r);
    copy3(out, u + 1);
  };
  const double zero[3] = {0, 0, 0};
  for (int x = 0; x < n; ++x) {
    const int k = un[x];
    const double* Sk = &d.cdof[6 * k];
    const bool on1 = in(c1, n1, k), on2 = in(c2, n2, k);
    double dp1[3] = {0, 0, 0}, dp2[3] = {0, 0, 0}, t[3];
    if (on1) cross3(t, Sk, r1), add3(dp1, Sk + 3, t);
    if (on2) cross3(t, Sk, r2), add3(dp2, Sk + 3, t);
    const double* w1 = on1 ? Sk : zero;
    const double* w2 = on2 ? Sk : zero;
    double dpos[6];
    sub3(dpos, dp1, dp2);
    if (weld) {
      double dw[3];
      sub3(dw, w1, w2);
      qone(dw, dpos + 3);
      for (int a = 0; a < 3; ++a) dpos[3 + a] *= 0.5;
    }
    double dnorm = 0;
    if (norm > 0)
      for (int j = 0; j < nrow; ++j) dnorm += (j < 3 ? 1 : ts * ts) * d.efc_pos[r0 + j] * dpos[j] / norm;
    double dJa[6] = {0, 0, 0, 0, 0, 0}, dJv[6] = {0, 0, 0, 0, 0, 0};
    double* col = &T[static_cast<size_t>(k) * nv];
    for (int y = 0; y < n; ++y) {
      const int i = un[y];
      const double* Si = &d.cdof[6 * i];
      const bool in1 = in(c1, n1, i), in2 = in(c2, n2, i);
      double djp[3] = {0, 0, 0}, dwr[3] = {0, 0, 0}, wr[3] = {0, 0, 0};
      for (int b = 0; b < 2; ++b) {
        const bool ini = b == 0 ? in1 : in2, onk = b == 0 ? on1 : on2;
        if (!ini) continue;
        const double sg = b == 0 ? 1.0 : -1.0;
        const double* rb = b == 0 ? r1 : r2;
        const double* dpb = b == 0 ? dp1 : dp2;
        double dS[6] = {0, 0, 0, 0, 0, 0}, a1[3], a2[3];
        if (onk && moves(m, k, i)) cross_motion(dS, Sk, Si);
        cross3(a1, dS, rb);
        cross3(a2, Si, dpb);
        for (int a = 0; a < 3; ++a) {
          djp[a] += sg * (dS[3 + a] + a1[a] + a2[a]);
          dwr[a] += sg * dS[a];
          wr[a] += sg * Si[a];
        }
      }
      double dJ[6];
      copy3(dJ, djp);
      if (weld) {
        double a[3], b[3], g[3];
        qprod(w2, wr, a);  // -0.5 q2^-1 [0, w_k2] [0, wr] q1 r
        qone(dwr, b);      // q2^-1 [0, dwr] q1 r
        qprod(wr, w1, g);  // 0.5 q2^-1 [0, wr] [0, w_k1] q1 r
        for (int j = 0; j < 3; ++j) dJ[3 + j] = 0.5 * ts * (-0.5 * a[j] + b[j] + 0.5 * g[j]);
      }
      for (int j = 0; j < nrow; ++j) {
        dJa[j] += dJ[j] * qacc[i];
        dJv[j] += dJ[j] * qvel[i];
        col[i] += dJ[j] * c.force[r0 + j];
      }
    }
    for (int j = 0; j < nrow; ++j) add_J(col, r0 + j, row_scalar(r0 + j, dJa[j], dJv[j], dpos[j], dnorm));
  }
  return nrow;
}

// Position term of the optimality condition (col-major nv x nv), the active set held fixed:
//   column k = sum_r dJ_r,k f_r + J_r s_r,k,   s_r,k = -D_r (dJ_r,k qacc - daref_r,k) - dD_r,k z_r
// (s on quadratic rows only), with aref = -B J v - K imp (pos - margin), D = imp / ((1 - imp) c):
//   daref = -B dJ v - K (impP (pos - margin) + imp) dpos,  dD = D impP dpos / (imp (1 - imp)).
// Limit rows have a constant J and dpos = J_r[k]. A contact's position, distance and frame move
// with its geoms as contact_geometry.cc derives (d pos, d dist, d frame along dof k). Row
// Jacobians (contact_rows.cc) are the frame axes dotted with jp_i = lin_i + rot_i x (p - o) and
// jr_i = rot_i, whose derivatives follow from d cdof_i = cdof_k x cdof_i (moves) and dp.
//
// qacc: the acceleration the rows' forces c.force belong to. rec (optional, nefc x nv col-major):
// receives s_r,k. residual: s_r,k = dJ_r,k qacc - daref_r,k for every row whatever its state (the
// derivative of the row's residual at fixed force, as the noslip pass needs it), and column k holds
// only sum_r dJ_r,k' f_r (elliptic rows excluded: their block term is the cone's).
Vec constraint_pos_term(const Model& m, Data& d, const Rows& c, const double* qacc, double* rec = nullptr,
                        bool residual = false) {
  using namespace math;
  const int nv = m.nv, nefc = d.nefc;
  Vec T(static_cast<size_t>(nv) * nv, 0.0);
  const double* qvel = d.qvel.data();
  // scalar part of one row for column k: s = -D (dJa - daref) - dD z, with dJa = dJ.qacc,
  // dJv = dJ.qvel
  auto row_scalar = [&](int r, double dJa, double dJv, double dpos) {
    if (!residual && d.efc_state[r] != kCnstrQuadratic) return 0.0;
    const double* kbip = &d.efc_KBIP[4 * r];
    const double K = kbip[0], B = kbip[1], imp = kbip[2], impP = kbip[3];
    const double daref = -B * dJv - K * (impP * (d.efc_pos[r] - d.efc_margin[r]) + imp) * dpos;
    if (residual) return dJa - daref;
    const double D = d.efc_D[r];
    const double dD = (imp > 0 && imp < 1) ? D * impP * dpos / (imp * (1 - imp)) : 0.0;
    return -D * (dJa - daref) - dD * c.z[r];
  };
  // the same for a row whose impedance takes the norm of its constraint's residual (connect, weld):
  // dimp = impP dnorm, aref's position term K imp pos_r moves with dpos_r and dimp
  auto row_scalar_norm = [&](int r, double dJa, double dJv, double dpos, double dnorm) {
    if (!residual && d.efc_state[r] != kCnstrQuadratic) return 0.0;
    const double* kbip = &d.efc_KBIP[4 * r];
    const double K = kbip[0], B = kbip[1], imp = kbip[2], impP = kbip[3];
    const double daref = -B * dJv - K * (impP * dnorm * (d.efc_pos[r] - d.efc_margin[r]) + imp * dpos);
    if (residual) return dJa - daref;
    const double D = d.efc_D[r];
    const double dD = (imp > 0 && imp < 1) ? D * impP * dnorm / (imp * (1 - imp)) : 0.0;
    return -D * (dJa - daref) - dD * c.z[r];
  };
  auto add_J = [&](double* col, int r, double sc) {
    if (rec) rec[static_cast<size_t>((col - T.data()) / nv) * nefc + r] += sc;
    if (sc == 0 || residual) return;
    const double* J = &c.J[static_cast<size_t>(r) * nv];
    for (int i = 0; i < nv; ++i) col[i] += sc * J[i];
  };
  IVec chain(2 * nv), cols, sides, ks;
  cols.reserve(nv), sides.reserve(nv), ks.reserve(nv);
  Vec jp(3 * nv), jr(3 * nv), djp(3 * nv), djr(3 * nv), Srow(6 * nv), dSrow(6 * nv);
  Vec dJ;
  for (int r = 0; r < nefc;) {
    const int type = d.efc_type[r];
    if (internal::spatial_tendon_row(m, d, r)) {
      // a spatial tendon's limit, friction or equality row: J varies with qpos (tendon_deriv.h);
      // dpos = J[k] (friction rows: no position)
      const double* J = &c.J[static_cast<size_t>(r) * nv];
      dJ.resize(static_cast<size_t>(nv) * nv);
      internal::tendon_row_jacobian_deriv(m, d, r, J, dJ.data());
      for (int k = 0; k < nv; ++k) {
        const double* dj = &dJ[static_cast<size_t>(k) * nv];
        double* col = &T[static_cast<size_t>(k) * nv];
        double dJa = 0, dJv = 0;
        for (int i = 0; i < nv; ++i) {
          dJa += dj[i] * qacc[i];
          dJv += dj[i] * qvel[i];
          col[i] += dj[i] * c.force[r];
        }
        add_J(col, r, row_scalar(r, dJa, dJv, type == kCnstrFrictionTendon ? 0.0 : J[k]));
      }
      ++r;
      continue;
    }
    if (type == kCnstrLimitJoint && m.jnt_type[d.efc_id[r]] == kJointBall) {
      // ball limit: pos = rmax - theta, J = -u on the joint's dofs (rv = theta u the rotation
      // vector of its quaternion). A local turn e_k moves rv by Jr^-1(rv) e_k (Jr the right
      // Jacobian of SO(3)), so dpos = -u.e_k = J[k] (u' Jr^-1 = u') and
      // dJ = -(I - u u') Jr^-1 e_k / theta
      const int j = d.efc_id[r], vadr = m.jnt_dofadr[j];
      double rv[3];
      quat2vel(rv, &d.qpos[m.jnt_qposadr[j]], 1);
      const double th = norm3(rv);
      const double* J = &c.J[static_cast<size_t>(r) * nv];
      if (th > 0) {
        const double u[3] = {rv[0] / th, rv[1] / th, rv[2] / th};
        const double K[9] = {0, -rv[2], rv[1], rv[2], 0, -rv[0], -rv[1], rv[0], 0};
        const double cc = th < 1e-6 ? 1.0 / 12 : 1 / (th * th) - (1 + std::cos(th)) / (2 * th * std::sin(th));
        for (int kk = 0; kk < 3; ++kk) {
          double g[3], dj[3];  // g = Jr^-1 e_k
          for (int a = 0; a < 3; ++a) {
            double K2 = 0;
            for (int l = 0; l < 3; ++l) K2 += K[3 * a + l] * K[3 * l + kk];
            g[a] = (a == kk ? 1.0 : 0.0) + 0.5 * K[3 * a + kk] + cc * K2;
          }
          const double ug = dot3(u, g);
          for (int a = 0; a < 3; ++a) dj[a] = -(g[a] - u[a] * ug) / th;
          double* col = &T[static_cast<size_t>(vadr + kk) * nv];
          double dJa = 0, dJv = 0;
          for (int a = 0; a < 3; ++a) {
            dJa += dj[a] * qacc[vadr + a];
            dJv += dj[a] * qvel[vadr + a];
            col[vadr + a] += dj[a] * c.force[r];
          }
          add_J(col, r, row_scalar(r, dJa, dJv, J[vadr + kk]));
        }
      }
      ++r;
      continue;
    }
    if (type == kCnstrLimitJoint || type == kCnstrLimitTendon) {
      const double* J = &c.J[static_cast<size_t>(r) * nv];
      for (int k = 0; k < nv; ++k)
        if (J[k] != 0) add_J(&T[static_cast<size_t>(k) * nv], r, row_scalar(r, 0, 0, J[k]));
      ++r;
      continue;
    }
    if (type == kCnstrEquality && (m.eq_type[d.efc_id[r]] == kEqConnect || m.eq_type[d.efc_id[r]] == kEqWeld)) {
      r += connect_weld_pos_term(m, d, c, r, qacc, row_scalar_norm, add_J, T.data());
      continue;
    }
    if (type == kCnstrEquality) {
      // joint or fixed-tendon equality: pos = x1 - x1_0 - p(x2 - x2_0) (or - p0), J = J1 - p'(x2) J2
      // with J1, J2 constant, so dpos = J and dJ along dof k = -p''(x2) J2[k] J2
      const int e = d.efc_id[r], o2 = m.eq_obj2id[e];
      const double* J = &c.J[static_cast<size_t>(r) * nv];
      Vec J2(nv, 0.0);
      double p2 = 0;
      if (o2 >= 0) {
        const double* a = &m.eq_data[kNEQDATA * e];
        double x;
        if (m.eq_type[e] == kEqJoint) {
          J2[m.jnt_dofadr[o2]] = 1;
          x = d.qpos[m.jnt_qposadr[o2]] - m.qpos0[m.jnt_qposadr[o2]];
        } else {
          std::copy_n(&d.ten_J[static_cast<size_t>(o2) * nv], nv, J2.begin());
          x = d.ten_length[o2] - m.tendon_length0[o2];
        }
        p2 = 2 * a[2] + 6 * a[3] * x + 12 * a[4] * x * x;
      }
      for (int k = 0; k < nv; ++k) {
        const double g = -p2 * J2[k];
        if (J[k] == 0 && g == 0) continue;
        double* col = &T[static_cast<size_t>(k) * nv];
        double dJa = 0, dJv = 0;
        if (g != 0)
          for (int i = 0; i < nv; ++i) {
            dJa += g * J2[i] * qacc[i];
            dJv += g * J2[i] * qvel[i];
            col[i] += g * J2[i] * c.force[r];
          }
        add_J(col, r, row_scalar(r, dJa, dJv, J[k]));
      }
      ++r;
      continue;
    }
    if (type != kCnstrContactFrictionless && type != kCnstrContactPyramidal && type != kCnstrContactElliptic) {
      ++r;  // friction rows: constant J, no position residual
      continue;
    }
    const Contact& con = d.contact[d.efc_id[r]];
    const bool elliptic = type == kCnstrContactElliptic;
    const int nrow = elliptic ? con.dim : con.dim == 1 ? 1 : 2 * (con.dim - 1);
    internal::ContactJacobian cj;
    internal::contact_jacobian(m, d, d.efc_id[r], &cj);
    const int b1 = m.geom_bodyid[con.geom1], b2 = m.geom_bodyid[con.geom2];
    const int n1 = constraint::dof_chain(m, b1, chain.data());
    const int n2 = constraint::dof_chain(m, b2, chain.data() + n1);
    const int* c1 = chain.data();
    const int* c2 = chain.data() + n1;
    const double* o1 = &d.subtree_com[3 * m.body_rootid[b1]];
    const double* o2 = &d.subtree_com[3 * m.body_rootid[b2]];
    // columns of the rows (dofs of exactly one chain, body 1 negative) and the dofs that move
    // anything (the union of the chains)
    cols.clear(), sides.clear(), ks.clear();
    for (int x = 0, y = 0; x < n1 || y < n2;) {
      if (y >= n2 || (x < n1 && c1[x] < c2[y])) {
        cols.push_back(c1[x]), sides.push_back(1), ks.push_back(c1[x++]);
      } else if (x >= n1 || c2[y] < c1[x]) {
        cols.push_back(c2[y]), sides.push_back(2), ks.push_back(c2[y++]);
      } else {
        ks.push_back(c1[x]), ++x, ++y;
      }
    }
    const int n = static_cast<int>(cols.size());
    auto in_chain = [&](const int* c, int nc, int k) { return std::binary_search(c, c + nc, k); };
    double pr1[3], pr2[3];
    sub3(pr1, con.pos, o1);
    sub3(pr2, con.pos, o2);
    const int nS = con.dim > 3 ? 6 : con.dim;
    // nominal jp, jr per column
    for (int q = 0; q < n; ++q) {
      const double* S = &d.cdof[6 * cols[q]];
      const double sg = sides[q] == 1 ? -1.0 : 1.0;
      double t[3];
      cross3(t, S, sides[q] == 1 ? pr1 : pr2);
      for (int a = 0; a < 3; ++a) jp[3 * q + a] = sg * (S[3 + a] + t[a]), jr[3 * q + a] = sg * S[a];
    }
    for (const int k : ks) {
      const double* Sk = &d.cdof[6 * k];
      const bool on1 = in_chain(c1, n1, k), on2 = in_chain(c2, n2, k);
      double dpos[3], dframe[9], ddist;
      internal::contact_jacobian_apply(m, d, con, cj, Sk, on1, on2, o1, o2, dpos, &ddist, dframe);
      for (int q = 0; q < n; ++q) {
        const int i = cols[q];
        const double* Si = &d.cdof[6 * i];
        const bool same = sides[q] == 1 ? on1 : on2;
        const double sg = sides[q] == 1 ? -1.0 : 1.0;
        double dS[6] = {0, 0, 0, 0, 0, 0};
        if (same && moves(m, k, i)) cross_motion(dS, Sk, Si);
        double a1[3], a2[3];
        cross3(a1, dS, sides[q] == 1 ? pr1 : pr2);
        cross3(a2, Si, dpos);
        for (int a = 0; a < 3; ++a) djp[3 * q + a] = sg * (dS[3 + a] + a1[a] + a2[a]), djr[3 * q + a] = sg * dS[a];
      }
      for (int rho_i = 0; rho_i < nS; ++rho_i) {
        const double* axis = con.frame + 3 * (rho_i % 3);
        const double* daxis = dframe + 3 * (rho_i % 3);
        const double* v = rho_i < 3 ? jp.data() : jr.data();
        const double* dv = rho_i < 3 ? djp.data() : djr.data();
        for (int q = 0; q < n; ++q) {
          Srow[rho_i * nv + q] = dot3(axis, v + 3 * q);
          dSrow[rho_i * nv + q] = dot3(daxis, v + 3 * q) + dot3(axis, dv + 3 * q);
        }
      }
      double* col = &T[static_cast<size_t>(k) * nv];
      int rr = r;
      auto one_row = [&](int j, double sgn) {
        double dJa = 0, dJv = 0;
        for (int q = 0; q < n; ++q) {
          const double dJ = dSrow[q] + (j > 0 ? sgn * dSrow[j * nv + q] : 0.0);
          dJa += dJ * qacc[cols[q]];
          dJv += dJ * qvel[cols[q]];
          col[cols[q]] += dJ * c.force[rr];
        }
        add_J(col, rr, row_scalar(rr, dJa, dJv, ddist));
        ++rr;
      };
      if (elliptic) {
        // rows = the frame rows; the block's force depends on z through the cone Hessian H_c and
        // scales with D (all rows' R share the factor (1 - imp)/imp): column += sum dJ_rho f_rho +
        // J_rho (-(H_c x)_rho + f_rho g), x = dJ qacc - daref, g = impP dpos / (imp (1 - imp))
        const int dim = con.dim;
        const double* kb = &d.efc_KBIP[4 * r];
        const double g = (kb[2] > 0 && kb[2] < 1) ? kb[3] * ddist / (kb[2] * (1 - kb[2])) : 0.0;
        double x[6];
        for (int rho_i = 0; rho_i < dim; ++rho_i) {
          const int row = r + rho_i;
          const double* kr = &d.efc_KBIP[4 * row];
          double dJa = 0, dJv = 0;
          for (int q = 0; q < n; ++q) {
            const double dJ = dSrow[rho_i * nv + q];
            dJa += dJ * qacc[cols[q]];
            dJv += dJ * qvel[cols[q]];
            col[cols[q]] += dJ * c.force[row];
          }
          const double daref =
              -kr[1] * dJv - kr[0] * (kr[3] * (d.efc_pos[row] - d.efc_margin[row]) + kr[2]) * ddist;
          x[rho_i] = dJa - daref;
        }
        if (d.efc_state[r] != kCnstrSatisfied)
          for (int rho_i = 0; rho_i < dim; ++rho_i) {
            double hx = 0;
            for (int sg = 0; sg < dim; ++sg) hx += con.H[rho_i * dim + sg] * x[sg];
            add_J(col, r + rho_i, -hx + c.force[r + rho_i] * g);
          }
      } else if (con.dim == 1) {
        one_row(0, 0);
      } else {
        for (int j = 1; j < con.dim; ++j)
          for (int sg = 1; sg >= -1; sg -= 2) one_row(j, sg * con.friction[j - 1]);
      }
    }
    r += nrow;
  }
  return T;
}

// The noslip post-pass (src/solver/noslip.cc) keeps the main solver's forces on every row except
// the friction directions, which it re-solves without regularization: a friction-loss row's force,
// and the difference of each pair of opposite pyramidal edges (their sum stays). Its optimality
// conditions with the active set held fixed (the one-sided derivative of the current active set):
//   M qacc = qfrc_smooth + J' f,   f = P f_main + c + G lambda,   G' (J qacc - aref) = 0,
// where G holds the free directions (e_i of an interior friction-loss row, e_a - e_b of a pair
// with both edges positive), P maps the main solver's forces onto the fixed part (the rows noslip
// does not touch; the pair's sum split evenly, or carried by the positive edge when the other is
// at zero; nothing for friction-loss rows), c the bounds (+-frictionloss, constant). Differentiated:
//   y = M^-1 (dqfrc_smooth - dM qacc + dJ' f + J' P df_main),
//   (J_G M^-1 J_G') dlambda = -(d(J_G) qacc - G' daref + J_G y),   dqacc = y + M^-1 J_G' dlambda,
// with df_main = s - D J dqacc_main on the main solver's quadratic rows (s: the row's own
// derivative at fixed qacc) and dqacc_main from H. J_G M^-1 J_G' is singular when the free
// directions are redundant (four corners of a box on a plane): the right-hand side lies in its
// range, the pivots of the dependent directions are dropped and qacc's derivative is unique.
// When noslip stops at noslip_iterations before converging, this is the derivative of the
// converged solution.
struct NoSlip {
  const Model& m;
  Data& d;
  const Rows& c;          // rows at the main solver's qacc, d.efc_state the main solver's states
  const double* ffin;     // final forces (after noslip), nefc
  int nG = 0;
  IVec ga{}, gb{};        // free direction g: e_ga - e_gb (gb = -1: e_ga)
  IVec partner{};         // phi_r = ws_r df_r + wp_r df_partner(r)
  Vec ws{}, wp{};
  Vec Jg{}, Xg{}, Ag{};   // Jg nG x nv row-major, Xg = M^-1 Jg' (nG columns of nv), Ag factored
  IVec keep{};            // pivot of Ag kept

  void prepare() {
    const int nv = m.nv, nefc = d.nefc;
    partner.assign(nefc, -1), ws.assign(nefc, 1.0), wp.assign(nefc, 0.0);
    ga.reserve(nefc), gb.reserve(nefc);
    ga.clear(), gb.clear();
    for (int r = 0; r < nefc; ++r) {
      const int type = d.efc_type[r];
      if (type == kCnstrFrictionDof || type == kCnstrFrictionTendon) {
        ws[r] = 0;
        if (std::abs(ffin[r]) < d.efc_frictionloss[r]) ga.push_back(r), gb.push_back(-1);
      } else if (type == kCnstrContactPyramidal) {
        const int nrow = 2 * (d.contact[d.efc_id[r]].dim - 1);
        for (int a = r; a < r + nrow; a += 2) {
          const int b = a + 1;
          partner[a] = b, partner[b] = a;
          if (ffin[a] > 0 && ffin[b] > 0) {
            ws[a] = ws[b] = wp[a] = wp[b] = 0.5;
            ga.push_back(a), gb.push_back(b);
          } else {
            const int carry = ffin[b] > 0 ? b : a;
            ws[carry] = wp[carry] = 1;
            ws[carry == a ? b : a] = 0;
          }
        }
        r += nrow - 1;
      }
    }
    nG = static_cast<int>(ga.size());
    Jg.assign(static_cast<size_t>(nG) * nv, 0.0);
    for (int g = 0; g < nG; ++g)
      for (int i = 0; i < nv; ++i)
        Jg[static_cast<size_t>(g) * nv + i] =
            c.J[static_cast<size_t>(ga[g]) * nv + i] - (gb[g] >= 0 ? c.J[static_cast<size_t>(gb[g]) * nv + i] : 0.0);
    Xg = Jg;
    if (nG) solve_m(m, d, Xg.data(), nG);
    // Ag = Jg M^-1 Jg' as L diag L' (row-major, lower part), dependent pivots dropped
    Ag.assign(static_cast<size_t>(nG) * nG, 0.0);
    keep.assign(nG, 1);
    double maxdiag = 0;
    for (int g = 0; g < nG; ++g)
      for (int h = 0; h <= g; ++h) {
        double sum = 0;
        for (int i = 0; i < nv; ++i) sum += Jg[static_cast<size_t>(g) * nv + i] * Xg[static_cast<size_t>(h) * nv + i];
        Ag[static_cast<size_t>(g) * nG + h] = sum;
        if (g == h) maxdiag = std::max(maxdiag, sum);
      }
    for (int j = 0; j < nG; ++j) {
      double* Lj = &Ag[static_cast<size_t>(j) * nG];
      for (int k = 0; k < j; ++k) Lj[j] -= Lj[k] * Lj[k] * Ag[static_cast<size_t>(k) * nG + k];
      if (!(Lj[j] > 1e-11 * maxdiag)) {
        keep[j] = 0;
        for (int i = j; i < nG; ++i) Ag[static_cast<size_t>(i) * nG + j] = 0;
        continue;
      }
      for (int i = j + 1; i < nG; ++i) {
        double* Li = &Ag[static_cast<size_t>(i) * nG];
        for (int k = 0; k < j; ++k) Li[j] -= Li[k] * Lj[k] * Ag[static_cast<size_t>(k) * nG + k];
        Li[j] /= Lj[j];
      }
    }
  }

  // Columns out (nv x n col-major) hold dqacc_main = H^-1 (main right-hand side) on entry, the
  // final dqacc on return. rf (nv x n): the final right-hand side without the rows' forces
  // (dqfrc_smooth - dM qacc + dJ' f); S (nefc x n, null: 0): s; W (nG x n, null: 0):
  // d(J_G) qacc - G' daref.
  void apply(double* out, const double* rf, const double* S, const double* W, int n) {
    const int nv = m.nv, nefc = d.nefc;
    Vec df(nefc), y(static_cast<size_t>(nv) * n), t(nG);
    for (int k = 0; k < n; ++k) {
      const double* dqm = out + static_cast<size_t>(k) * nv;
      for (int r = 0; r < nefc; ++r) {
        double v = 0;
        if (d.efc_state[r] == kCnstrQuadratic) {
          const double* J = &c.J[static_cast<size_t>(r) * nv];
          double Jd = 0;
          for (int i = 0; i < nv; ++i) Jd += J[i] * dqm[i];
          v = (S ? S[static_cast<size_t>(k) * nefc + r] : 0.0) - d.efc_D[r] * Jd;
        }
        df[r] = v;
      }
      double* yk = &y[static_cast<size_t>(k) * nv];
      std::copy_n(rf + static_cast<size_t>(k) * nv, nv, yk);
      for (int r = 0; r < nefc; ++r) {
        const double phi = ws[r] * df[r] + (partner[r] >= 0 ? wp[r] * df[partner[r]] : 0.0);
        if (phi == 0) continue;
        const double* J = &c.J[static_cast<size_t>(r) * nv];
        for (int i = 0; i < nv; ++i) yk[i] += J[i] * phi;
      }
    }
    solve_m(m, d, y.data(), n);
    for (int k = 0; k < n; ++k) {
      const double* yk = &y[static_cast<size_t>(k) * nv];
      double* o = out + static_cast<size_t>(k) * nv;
      std::copy_n(yk, nv, o);
      if (!nG) continue;
      for (int g = 0; g < nG; ++g) {
        double sum = W ? W[static_cast<size_t>(k) * nG + g] : 0.0;
        for (int i = 0; i < nv; ++i) sum += Jg[static_cast<size_t>(g) * nv + i] * yk[i];
        t[g] = -sum;
      }
      // Ag dlambda = t: L, diag, L'
      for (int g = 0; g < nG; ++g)
        for (int h = 0; h < g; ++h) t[g] -= Ag[static_cast<size_t>(g) * nG + h] * t[h];
      for (int g = 0; g < nG; ++g) t[g] = keep[g] ? t[g] / Ag[static_cast<size_t>(g) * nG + g] : 0.0;
      for (int g = nG - 1; g >= 0; --g)
        for (int h = g + 1; h < nG; ++h) t[g] -= Ag[static_cast<size_t>(h) * nG + g] * t[h];
      for (int g = 0; g < nG; ++g) {
        if (t[g] == 0) continue;
        const double* x = &Xg[static_cast<size_t>(g) * nv];
        for (int i = 0; i < nv; ++i) o[i] += x[i] * t[g];
      }
    }
  }
};

// Whether the constraint forces' derivative is analytic (efc_force_deriv below): every column of
// d qacc analytic and no noslip post-pass (its forces are not differentiated row by row).
bool efc_force_deriv_ok(const Model& m, const Data& d, const Coverage& cov) {
  if (d.nefc == 0) return true;
  return m.opt.noslip_iterations == 0 && !cov.pos && !cov.vel && !cov.ctl;
}

// d efc_force along every column, the active set held fixed: each row's force is a function of its
// residual z = J qacc - aref (and of D), f = -D_s z on quadratic rows and in an elliptic cone's
// block (D_s its cone Hessian), constant elsewhere (satisfied rows, friction loss at its bound), so
//   df = s - D_s (J dqacc - daref_v),
// s the force's derivative at fixed qacc along qpos (constraint_pos_term's record: dJ qacc, aref,
// D), daref_v = -B J[k] along qvel_k and 0 along act and ctrl.
void efc_force_deriv(const Model& m, const Data& d, const Rows& rows, const double* Sm, Forward& f) {
  const int nv = m.nv, na = m.na, nu = m.nu, nefc = d.nefc, ncol = 2 * nv + na + nu;
  // blocks sized by the row capacity, not nefc: the same size classes at every state
  const size_t cap = static_cast<size_t>(constraint::capacity(d));
  f.ff.reserve(cap * ncol);
  f.ff.assign(static_cast<size_t>(nefc) * ncol, 0.0);
  Vec x;
  x.reserve(cap);
  x.assign(nefc, 0.0);
  const double* vals = constraint::J_values(m, d);
  for (int c = 0; c < ncol; ++c) {
    const double* dq = c < nv ? &f.aq[static_cast<size_t>(c) * nv]
                       : c < 2 * nv ? &f.av[static_cast<size_t>(c - nv) * nv]
                       : c < 2 * nv + na ? &f.aact[static_cast<size_t>(c - 2 * nv) * nv]
                                         : &f.au[static_cast<size_t>(c - 2 * nv - na) * nv];
    for (int r = 0; r < nefc; ++r) {
      const constraint::SparseRow row = constraint::row_of(d, vals, r);
      double z = 0;
      for (int a = 0; a < row.nnz; ++a) z += row.val[a] * dq[row.col[a]];
      if (c >= nv && c < 2 * nv) z += d.efc_KBIP[4 * r + 1] * rows.J[static_cast<size_t>(r) * nv + c - nv];
      x[r] = z;
    }
    double* out = &f.ff[static_cast<size_t>(c) * nefc];
    if (c < nv) std::copy_n(Sm + static_cast<size_t>(c) * nefc, nefc, out);
    for (int r = 0; r < nefc;) {
      if (d.efc_type[r] == kCnstrContactElliptic) {
        const Contact& con = d.contact[d.efc_id[r]];
        if (d.efc_state[r] != kCnstrSatisfied)
          for (int a = 0; a < con.dim; ++a)
            for (int b = 0; b < con.dim; ++b) out[r + a] -= con.H[a * con.dim + b] * x[r + b];
        r += con.dim;
        continue;
      }
      if (d.efc_state[r] == kCnstrQuadratic) out[r] -= d.efc_D[r] * x[r];
      ++r;
    }
  }
}

// with_af: also d qacc / d qfrc_applied (forward_derivatives' DaDf; the transition does not use it).
// with_ff: also d efc_force (Forward::ff) where efc_force_deriv_ok.
Forward compute_forward(const Model& m, Data& d, const Components& cc, bool with_af, bool with_ff = false) {
  const int nv = m.nv, na = m.na, nu = m.nu;
  const Coverage cov = coverage(m, d);
  Forward f;
  f.constrained = d.nefc > 0;
  f.sm = smooth_forces(m, d, true);
  f.Cv = rne_vel_dense(m, d);
  add_fluid_vel(m, d, f.Cv.data());
  f.aq.assign(static_cast<size_t>(nv) * nv, 0.0);
  f.av = f.aq;
  if (with_af) f.af = f.aq;
  f.aact.assign(static_cast<size_t>(nv) * na, 0.0);
  f.au.assign(static_cast<size_t>(nv) * nu, 0.0);
  f.gq.assign(static_cast<size_t>(na) * nv, 0.0);
  f.gv = f.gq;
  f.gact.assign(static_cast<size_t>(na) * na, 0.0);
  f.gu.assign(static_cast<size_t>(na) * nu, 0.0);

  // with noslip, the main solver's qacc (the warm start: solve_constraint copies it before the
  // noslip pass) and the final forces and states, restored below
  const bool ns = f.constrained && m.opt.noslip_iterations > 0 && !has_elliptic(d);
  Vec qm(d.qacc.begin(), d.qacc.begin() + nv), ffin;
  IVec state_fin;
  if (ns) {
    std::copy_n(d.qacc_warmstart.begin(), nv, qm.begin());
    ffin.assign(d.efc_force.begin(), d.efc_force.begin() + d.nefc);
    state_fin.assign(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  }
  Rows rows;
  if (f.constrained) rows = constraint_rows(m, d, qm.data());
  Solver S{m, d, f.constrained, cc};
  S.prepare();
  NoSlip nsl{m, d, rows, ffin.data()};
  if (ns) nsl.prepare();
  const int nefc = d.nefc, nG = nsl.nG;
  f.ff_ok = efc_force_deriv_ok(m, d, cov);
  const bool ff = with_ff && f.ff_ok && f.constrained;
  Vec Sm;  // s_r,k of constraint_pos_term: the rows' force derivative at fixed qacc (noslip, ff)
  // positions: H^-1 (Fq - d RNE(q, v, qacc)/dq + constraint term)
  if (!cov.pos) {
    Vec R(static_cast<size_t>(nv) * nv);
    internal::rne_pos_deriv(m, d, d.qvel.data(), qm.data(), true, R.data());
    for (int k = 0; k < nv; ++k)
      for (int i = 0; i < nv; ++i)
        f.aq[static_cast<size_t>(k) * nv + i] = f.sm.Fq[static_cast<size_t>(k) * nv + i] - R[static_cast<size_t>(i) * nv + k];
    if (ns || ff) {
      Sm.reserve(static_cast<size_t>(constraint::capacity(d)) * nv);
      Sm.assign(static_cast<size_t>(nefc) * nv, 0.0);
    }
    if (f.constrained) {
      const Vec T = constraint_pos_term(m, d, rows, qm.data(), ns || ff ? Sm.data() : nullptr);
      for (size_t i = 0; i < f.aq.size(); ++i) f.aq[i] += T[i];
    }
    S.solve(f.aq.data(), nv, cc.id.data());
    if (ns) {
      // final: Fq - d RNE(q, v, qacc_final)/dq + dJ' f_final; W = G' (dJ qacc_final - daref)
      Vec Sr(static_cast<size_t>(nefc) * nv, 0.0), W(static_cast<size_t>(nG) * nv);
      std::swap(rows.force, ffin);
      Vec rf = constraint_pos_term(m, d, rows, d.qacc.data(), Sr.data(), true);
      std::swap(rows.force, ffin);
      internal::rne_pos_deriv(m, d, d.qvel.data(), d.qacc.data(), true, R.data());
      for (int k = 0; k < nv; ++k) {
        for (int i = 0; i < nv; ++i)
          rf[static_cast<size_t>(k) * nv + i] += f.sm.Fq[static_cast<size_t>(k) * nv + i] - R[static_cast<size_t>(i) * nv + k];
        const double* sk = &Sr[static_cast<size_t>(k) * nefc];
        for (int g = 0; g < nG; ++g)
          W[static_cast<size_t>(k) * nG + g] = sk[nsl.ga[g]] - (nsl.gb[g] >= 0 ? sk[nsl.gb[g]] : 0.0);
      }
      nsl.apply(f.aq.data(), rf.data(), Sm.data(), W.data(), nv);
    }
  }
  if (!cov.vel) {
    for (size_t i = 0; i < f.av.size(); ++i) f.av[i] = f.sm.Fv[i] + f.Cv[i];
    if (f.constrained) {
      const Vec T = constraint_vel_term(m, d, rows);
      for (size_t i = 0; i < f.av.size(); ++i) f.av[i] += T[i];
    }
    S.solve(f.av.data(), nv, cc.id.data());
    if (ns) {
      // aref = -B J v: s = -D B J[k] on the main solver's quadratic rows, W = G' B J[k]
      Vec rf(static_cast<size_t>(nv) * nv), Sv(static_cast<size_t>(nefc) * nv, 0.0), W(static_cast<size_t>(nG) * nv);
      for (size_t i = 0; i < rf.size(); ++i) rf[i] = f.sm.Fv[i] + f.Cv[i];
      auto BJ = [&](int r, int k) { return d.efc_KBIP[4 * r + 1] * rows.J[static_cast<size_t>(r) * nv + k]; };
      for (int k = 0; k < nv; ++k) {
        for (int r = 0; r < nefc; ++r)
          if (d.efc_state[r] == kCnstrQuadratic) Sv[static_cast<size_t>(k) * nefc + r] = -d.efc_D[r] * BJ(r, k);
        for (int g = 0; g < nG; ++g)
          W[static_cast<size_t>(k) * nG + g] = BJ(nsl.ga[g], k) - (nsl.gb[g] >= 0 ? BJ(nsl.gb[g], k) : 0.0);
      }
      nsl.apply(f.av.data(), rf.data(), Sv.data(), W.data(), nv);
    }
  }
  if (!cov.ctl) {
    f.aact = f.sm.Fact;
    f.au = f.sm.Fu;
    if (na) S.solve(f.aact.data(), na, cc.act.data());
    if (nu) S.solve(f.au.data(), nu, cc.ctl.data());
    if (ns && na) nsl.apply(f.aact.data(), f.sm.Fact.data(), nullptr, nullptr, na);
    if (ns && nu) nsl.apply(f.au.data(), f.sm.Fu.data(), nullptr, nullptr, nu);
    transpose(na, na, f.sm.Gact.data(), f.gact.data());
    transpose(na, nu, f.sm.Gu.data(), f.gu.data());
  }
  if (with_af) {
    for (int k = 0; k < nv; ++k) f.af[static_cast<size_t>(k) * nv + k] = 1;
    S.solve(f.af.data(), nv, cc.id.data());
  }
  if (ns && with_af) {
    Vec I(static_cast<size_t>(nv) * nv, 0.0);
    for (int k = 0; k < nv; ++k) I[static_cast<size_t>(k) * nv + k] = 1;
    nsl.apply(f.af.data(), I.data(), nullptr, nullptr, nv);
  }
  if (ns) std::copy(state_fin.begin(), state_fin.end(), d.efc_state.begin());
  if (ff) efc_force_deriv(m, d, rows, Sm.data(), f);

  // finite-difference fallback
  if (cov.pos || cov.vel || cov.ctl) {
    const StateCopy s(d);
    const double inf = 1e300;
    if (cov.pos) {
      warn_once(cov.pos, " (qpos columns)");
      Vec dq(nv);
      for (int k = 0; k < nv; ++k)
        fd_column(m, d, s, [&](double e) {
          std::fill(dq.begin(), dq.end(), 0.0);
          dq[k] = 1;
          integrate_pos(m, d.qpos.data(), dq.data(), e);
        }, inf, inf, f.aq.data() + static_cast<size_t>(k) * nv, f.gq.data() + static_cast<size_t>(k) * na);
    }
    if (cov.vel) {
      warn_once(cov.vel, " (qvel columns)");
      for (int k = 0; k < nv; ++k)
        fd_column(m, d, s, [&](double e) { d.qvel[k] += e; }, inf, inf, f.av.data() + static_cast<size_t>(k) * nv,
                  f.gv.data() + static_cast<size_t>(k) * na);
    }
    if (cov.ctl) {
      warn_once(cov.ctl, " (act and ctrl columns)");
      for (int k = 0; k < na; ++k)
        fd_column(m, d, s, [&](double e) { d.act[k] += e; }, inf, inf, f.aact.data() + static_cast<size_t>(k) * nv,
                  f.gact.data() + static_cast<size_t>(k) * na);
      const bool clamp = !(m.opt.disableflags & kDsblClampctrl);
      for (int k = 0; k < nu; ++k) {
        double lo = inf, hi = inf;
        if (clamp && m.actuator_ctrllimited[k]) {
          lo = s.ctrl[k] - m.actuator_ctrlrange[2 * k];
          hi = m.actuator_ctrlrange[2 * k + 1] - s.ctrl[k];
        }
        fd_column(m, d, s, [&](double e) { d.ctrl[k] += e; }, lo, hi, f.au.data() + static_cast<size_t>(k) * nv,
                  f.gu.data() + static_cast<size_t>(k) * na);
      }
    }
    s.restore(d);
    forward(m, d);
  }
  return f;
}

}  // namespace

std::vector<std::string> derivative_fallbacks(const Model& m, Data& d) {
  forward(m, d);
  const Coverage c = coverage(m, d);
  std::vector<std::string> out;
  if (c.pos) out.push_back(std::string(c.pos) + " (qpos columns)");
  if (c.vel) out.push_back(std::string(c.vel) + " (qvel columns)");
  if (c.ctl) out.push_back(std::string(c.ctl) + " (act and ctrl columns)");
  if (m.opt.integrator == kIntImplicitCon) out.push_back("implicitcon integrator (transition)");
  if ((m.opt.integrator == kIntImplicit || m.opt.integrator == kIntImplicitFast) &&
      !(m.opt.disableflags & kDsblPassive) && (m.opt.density > 0 || m.opt.viscosity > 0))
    out.push_back("fluid forces with an implicit integrator (transition)");
  internal::sensor_fallbacks(m, d, efc_force_deriv_ok(m, d, c), out);
  return out;
}

void forward_derivatives(const Model& m, Data& d, double* DaDq, double* DaDv, double* DaDact, double* DaDu,
                         double* DaDf, double* DactDact, double* DactDu) {
  const int nv = m.nv, na = m.na, nu = m.nu;
  forward(m, d);
  const Components cc = dof_components(m, d);
  const Forward f = compute_forward(m, d, cc, DaDf != nullptr);
  if (DaDq) transpose(nv, nv, f.aq.data(), DaDq);
  if (DaDv) transpose(nv, nv, f.av.data(), DaDv);
  if (DaDact) transpose(na, nv, f.aact.data(), DaDact);
  if (DaDu) transpose(nu, nv, f.au.data(), DaDu);
  if (DaDf) transpose(nv, nv, f.af.data(), DaDf);
  if (DactDact) transpose(na, na, f.gact.data(), DactDact);
  if (DactDu) transpose(nu, na, f.gu.data(), DactDu);
}

// Inverse dynamics: qfrc_inverse = M qacc + C(q, v) - qfrc_passive - J' f(J qacc - aref), the
// constraint forces an explicit function of qacc (the soft model's inverse, no solver). Their
// derivatives at fixed qacc are those of forward's optimality condition: d(J' f)/dq is
// constraint_pos_term, d(J' f)/dv = -J' D_s B J, d(J' f)/dqacc = -J' D_s J. invdiscrete with Euler
// and joint damping B: the inverse runs on qacc_c = M^-1 (M + hB) qacc_d, so by the chain rule
// DfDa = F_a (I + h M^-1 B) and DfDq = F_q - F_a M^-1 (dM/dq)(qacc_c - qacc_d), F the continuous
// inverse at qacc_c.
void inverse_derivatives(const Model& m, Data& d, double* DfDq, double* DfDv, double* DfDa) {
  const int nv = m.nv;
  inverse(m, d);
  const bool implicit_discrete = (m.opt.enableflags & kEnblInvdiscrete) &&
                                 (m.opt.integrator == kIntImplicit || m.opt.integrator == kIntImplicitFast);
  bool damped = false;
  for (int i = 0; i < nv; ++i) damped = damped || m.dof_damping[i] > 0;
  const bool euler_discrete = (m.opt.enableflags & kEnblInvdiscrete) && m.opt.integrator == kIntEuler && damped;
  Coverage cov = coverage(m, d);
  // actuators do not enter qfrc_inverse
  cov.ctl = nullptr;
  if (implicit_discrete) cov.all("invdiscrete with an implicit integrator");
  if (cov.pos || cov.vel) {
    warn_once(cov.pos ? cov.pos : cov.vel);
    inverse_fd(m, d, kEps, true, false, DfDq, DfDv, DfDa, nullptr, nullptr, nullptr, nullptr);
    inverse(m, d);
    return;
  }
  // the continuous acceleration the inverse ran on (inverse.cc), in d.qacc until the end
  const Vec qacc_d(d.qacc.begin(), d.qacc.begin() + nv);
  if (euler_discrete) {
    Vec t(nv);
    for (int i = 0; i < nv; ++i) t[i] = m.dof_damping[i] * qacc_d[i];
    solve_m(m, d, t.data(), 1);
    for (int i = 0; i < nv; ++i) d.qacc[i] = qacc_d[i] + m.opt.timestep * t[i];
  }
  const bool constrained = d.nefc > 0;
  Rows rows;
  if (constrained) rows = constraint_rows(m, d, d.qacc.data());
  const Smooth sm = smooth_forces(m, d, false);
  Vec Fa;  // d qfrc_inverse / d qacc_c, row-major: M + J' D_s J
  if (DfDa || (DfDq && euler_discrete)) {
    Fa = dense_m(m, d);
    if (constrained) {
      const Vec T = constraint_vel_term(m, d, rows, false);  // -J' D_s J, col-major
      for (int i = 0; i < nv; ++i)
        for (int k = 0; k < nv; ++k) Fa[static_cast<size_t>(i) * nv + k] -= T[static_cast<size_t>(k) * nv + i];
    }
  }
  if (DfDq) {
    internal::rne_pos_deriv(m, d, d.qvel.data(), d.qacc.data(), true, DfDq);
    for (int i = 0; i < nv; ++i)
      for (int k = 0; k < nv; ++k) DfDq[static_cast<size_t>(i) * nv + k] -= sm.Fq[static_cast<size_t>(k) * nv + i];
    if (constrained) {
      const Vec T = constraint_pos_term(m, d, rows, d.qacc.data());
      for (int i = 0; i < nv; ++i)
        for (int k = 0; k < nv; ++k) DfDq[static_cast<size_t>(i) * nv + k] -= T[static_cast<size_t>(k) * nv + i];
    }
    if (euler_discrete) {
      // - F_a M^-1 (dM/dq_k) y, y = qacc_c - qacc_d
      Vec y(nv), zero(nv, 0.0), R(static_cast<size_t>(nv) * nv), X(static_cast<size_t>(nv) * nv);
      for (int i = 0; i < nv; ++i) y[i] = d.qacc[i] - qacc_d[i];
      internal::rne_pos_deriv(m, d, zero.data(), y.data(), false, R.data());
      transpose(nv, nv, R.data(), X.data());  // column k at k*nv
      solve_m(m, d, X.data(), nv);
      for (int i = 0; i < nv; ++i)
        for (int k = 0; k < nv; ++k) {
          double sum = 0;
          for (int j = 0; j < nv; ++j) sum += Fa[static_cast<size_t>(i) * nv + j] * X[static_cast<size_t>(k) * nv + j];
          DfDq[static_cast<size_t>(i) * nv + k] -= sum;
        }
    }
  }
  if (DfDv) {
    Vec Cv = rne_vel_dense(m, d);
    add_fluid_vel(m, d, Cv.data());
    const Vec T = constrained ? constraint_vel_term(m, d, rows) : Vec();
    for (int i = 0; i < nv; ++i)
      for (int k = 0; k < nv; ++k) {
        const size_t c = static_cast<size_t>(k) * nv + i;
        DfDv[static_cast<size_t>(i) * nv + k] = -Cv[c] - sm.Fv[c] - (constrained ? T[c] : 0.0);
      }
  }
  if (DfDa) {
    if (euler_discrete) {
      // F_a (I + h M^-1 B): column k of M^-1 B is b_k M^-1 e_k
      Vec X(static_cast<size_t>(nv) * nv, 0.0);
      for (int k = 0; k < nv; ++k) X[static_cast<size_t>(k) * nv + k] = m.opt.timestep * m.dof_damping[k];
      solve_m(m, d, X.data(), nv);
      for (int i = 0; i < nv; ++i)
        for (int k = 0; k < nv; ++k) {
          double sum = Fa[static_cast<size_t>(i) * nv + k];
          for (int j = 0; j < nv; ++j) sum += Fa[static_cast<size_t>(i) * nv + j] * X[static_cast<size_t>(k) * nv + j];
          DfDa[static_cast<size_t>(i) * nv + k] = sum;
        }
    } else {
      std::copy(Fa.begin(), Fa.end(), DfDa);
    }
  }
  // d holds inverse's results at the caller's qacc
  std::copy(qacc_d.begin(), qacc_d.end(), d.qacc.begin());
  if (constrained) inverse(m, d);
}

namespace {

// C, D (sensor_deriv.cc), with the derivatives of qacc of f (computed here when null and needed).
void sensor_rows(const Model& m, Data& d, double* C, double* D, const Forward* f) {
  if (!C && !D) return;
  Forward local;
  if (!f && internal::sensors_need_forward(m)) {
    // forward renormalizes the quaternions in qpos (a last-bit change): the caller's state back
    const StateCopy s(d);
    forward(m, d);
    local = compute_forward(m, d, dof_components(m, d), false, true);
    s.restore(d);
    f = &local;
  }
  internal::QaccDeriv qa{};
  if (f) {
    qa = {f->aq.data(), f->av.data(), f->aact.data(), f->au.data()};
    qa.force = f->ff.empty() ? nullptr : f->ff.data();
    qa.force_ok = f->ff_ok && (!f->constrained || qa.force);
  }
  internal::sensor_derivatives(m, d, C, D, f ? &qa : nullptr);
}

// The rows of the eligible free bodies with midpoint integration (src/integrator/midpoint.cc): their
// update replaces qacc_e and the derivative of its linearization replaces d qacc_e. A column enters
// through the body's rotation and velocity, its external force f = M qacc + qfrc_bias
// (d f = M d qacc + d RNE(q, v, qacc)/dq on qpos columns, M d qacc - dC/dv on qvel columns; the
// body's block of M is decoupled from every other dof) and h d(D y)/dx (tendon_deriv.h), y the
// velocity change the body's block of D multiplies. Only the columns of the body's component (and
// of none) reach its rows.
void midpoint_rows(const Model& m, Data& d, const Forward& f, const Components& cc, const IVec& cadr, const IVec& cols,
                   double* qacc_e, double* dqa) {
  const int nv = m.nv, ndx = 2 * nv + m.na, ncol = ndx + m.nu;
  const double* blocks = internal::deriv_work_midpoint(m, d.work.deriv.data());
  internal::MidpointLinear L;
  // the bodies' y, for h d(D y)/dx in one call
  Vec y(nv, 0.0), G;
  int fj = 0;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != kJointFree) continue;
    const double* Dg = blocks + 36 * fj++;
    if (!internal::midpoint_eligible(m, j)) continue;
    internal::midpoint_linearize(m, d, j, Dg, L);
    std::copy_n(L.y, 6, &y[m.jnt_dofadr[j]]);
  }
  const bool dD = m.ntendon > 0 || (m.nu > 0 && !(m.opt.disableflags & kDsblActuation));
  if (dD) {
    G.assign(static_cast<size_t>(nv) * ncol, 0.0);
    internal::implicit_d_deriv(m, d, y.data(), m.opt.timestep, G.data());
  }
  Vec Rq(static_cast<size_t>(nv) * nv);
  internal::rne_pos_deriv(m, d, d.qvel.data(), d.qacc.data(), true, Rq.data());
  fj = 0;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != kJointFree) continue;
    const double* Dg = blocks + 36 * fj++;
    if (!internal::midpoint_eligible(m, j)) continue;
    internal::midpoint_linearize(m, d, j, Dg, L);
    const int a = m.jnt_dofadr[j];
    std::copy_n(L.dv, 6, qacc_e + a);
    double Mb[36];  // the body's block of M (its dofs form one chain)
    for (int i = 0; i < 6; ++i)
      for (int t = 0; t <= i; ++t) Mb[6 * i + i - t] = Mb[6 * (i - t) + i] = d.qM[m.dof_Madr[a + i] + t];
    const int comp = cc.id[a];
    for (int x = 0; x < cadr[1] + cadr[comp + 2] - cadr[comp + 1]; ++x) {
      const int k = x < cadr[1] ? cols[x] : cols[cadr[comp + 1] + x - cadr[1]];
      const double* da = k < nv       ? &f.aq[static_cast<size_t>(k) * nv]
                         : k < 2 * nv ? &f.av[static_cast<size_t>(k - nv) * nv]
                         : k < ndx    ? &f.aact[static_cast<size_t>(k - 2 * nv) * nv]
                                      : &f.au[static_cast<size_t>(k - ndx) * nv];
      double dr[3] = {0, 0, 0}, dvel[6] = {0, 0, 0, 0, 0, 0}, df[6], g[6] = {0, 0, 0, 0, 0, 0}, ddv[6];
      for (int i = 0; i < 6; ++i) {
        double s = 0;
        for (int l = 0; l < 6; ++l) s += Mb[6 * i + l] * da[a + l];
        if (k < nv) s += Rq[static_cast<size_t>(a + i) * nv + k];
        else if (k < 2 * nv) s -= f.Cv[static_cast<size_t>(k - nv) * nv + a + i];
        df[i] = s;
        if (dD) g[i] = G[static_cast<size_t>(k) * nv + a + i];
      }
      if (k >= a + 3 && k < a + 6) dr[k - a - 3] = 1;
      if (k >= nv + a && k < nv + a + 6) dvel[k - nv - a] = 1;
      internal::midpoint_tangent(L, dr, dvel, df, g, ddv);
      std::copy_n(ddv, 6, dqa + static_cast<size_t>(k) * nv + a);
    }
  }
}

// out (nv x n, col-major) = the tangent of integrate_pos(q, w, s) given the tangents dq of q and dw of
// w (col-major nv x n): dq + s dw on scalar and translation dofs, exp(s w)' dq + Jr(s w) s dw on
// the rotation of ball and free joints (math/so3.h).
void manifold_tangent(const Model& m, const double* w, double s, const double* dq, const double* dw, int n,
                      double* out) {
  const int nv = m.nv;
  for (int j = 0; j < m.njnt; ++j) {
    const int v0 = m.jnt_dofadr[j];
    int nrot = 0, nlin = 1;
    if (m.jnt_type[j] == kJointFree) nlin = 3, nrot = 3;
    if (m.jnt_type[j] == kJointBall) nlin = 0, nrot = 3;
    for (int k = 0; k < n; ++k)
      for (int c = 0; c < nlin; ++c) {
        const size_t i = static_cast<size_t>(k) * nv + v0 + c;
        out[i] = dq[i] + s * dw[i];
      }
    if (!nrot) continue;
    const int r0 = v0 + nlin;
    double phi[3], Jr[9], R[9];
    for (int c = 0; c < 3; ++c) phi[c] = s * w[r0 + c];
    math::so3_jacobians(phi, Jr, R);
    for (int k = 0; k < n; ++k) {
      const double* q = dq + static_cast<size_t>(k) * nv + r0;
      const double* v = dw + static_cast<size_t>(k) * nv + r0;
      double* o = out + static_cast<size_t>(k) * nv + r0;
      for (int a = 0; a < 3; ++a) {
        double sum = 0;
        for (int b = 0; b < 3; ++b) sum += R[3 * b + a] * q[b] + Jr[3 * a + b] * s * v[b];
        o[a] = sum;
      }
    }
  }
}

// T's activation rows (ndx rows, col-major, ncol columns): act' = act + hh act_dot clamped to
// actrange, hh = h (filterexact: tau (1 - exp(-h/tau))); g(k, adr) = d act_dot_adr / d column k.
template <class G>
void activation_rows(const Model& m, const double* act, const double* act_dot, G g, double* T) {
  const int nv = m.nv, na = m.na, ndx = 2 * nv + na, ncol = ndx + m.nu;
  const double h = m.opt.timestep;
  for (int u = 0; u < m.nu; ++u) {
    const int adr = m.actuator_actadr[u];
    if (adr < 0) continue;
    double hh = h;
    if (m.actuator_dyntype[u] == kDynFilterExact) {
      const double tau = std::max(kMinVal, m.actuator_dynprm[kNDYN * u]);
      hh = tau * (1 - std::exp(-h / tau));
    }
    double clampd = 1;
    if (m.actuator_actlimited.size() > static_cast<size_t>(u) && m.actuator_actlimited[u]) {
      const double next = act[adr] + hh * act_dot[adr];
      if (next < m.actuator_actrange[2 * u] || next > m.actuator_actrange[2 * u + 1]) clampd = 0;
    }
    for (int k = 0; k < ncol; ++k)
      T[static_cast<size_t>(k) * ndx + 2 * nv + adr] = clampd * ((k == 2 * nv + adr ? 1 : 0) + hh * g(k, adr));
  }
}

// RK4 (src/integrator/rk4.cc): the chain rule through the four stages. Stage i's state
//   q_i = q_0 (+) a h vel_{i-1},  v_i = v_0 + a h acc_{i-1},  act_i = act_0 + a h act_dot_{i-1}
// has the tangents (Q_i, V_i, Act_i) of every column; its forward derivatives (at the stage state)
// give d acc_i = Aq Q_i + Av V_i + Aact Act_i + Au U, likewise d act_dot_i. The step is
// q' = q_0 (+) h sum b_i vel_i, v' = v_0 + h sum b_i acc_i, act' = act_0 + h sum b_i act_dot_i.
// Returns stage 0's forward derivatives (the sensor rows use them); d is left at a stage state.
Forward rk4_transition(const Model& m, Data& d, double* A, double* B) {
  constexpr double kA[3] = {0.5, 0.5, 1.0};
  constexpr double kB[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  const int nq = m.nq, nv = m.nv, na = m.na, nu = m.nu, ndx = 2 * nv + na, ncol = ndx + nu;
  const double h = m.opt.timestep, time0 = d.time;
  const size_t nvc = static_cast<size_t>(nv) * ncol, nac = static_cast<size_t>(na) * ncol;
  Vec q0(d.qpos.begin(), d.qpos.begin() + nq), v0(d.qvel.begin(), d.qvel.begin() + nv),
      act0(d.act.begin(), d.act.begin() + na);
  // the initial tangents: identity on the state's columns
  Vec Q0(nvc, 0.0), V0(nvc, 0.0), Act0(nac, 0.0);
  for (int k = 0; k < nv; ++k) Q0[static_cast<size_t>(k) * nv + k] = V0[static_cast<size_t>(nv + k) * nv + k] = 1;
  for (int k = 0; k < na; ++k) Act0[static_cast<size_t>(2 * nv + k) * na + k] = 1;
  Vec Q(nvc), V(V0), Act(Act0), ACC(nvc), G(nac);
  Vec sumV(nvc, 0.0), sumA(nvc, 0.0), sumG(nac, 0.0);
  Vec vel(nv), acc(nv), actdot(na), svel(nv, 0.0), sacc(nv, 0.0), sact(na, 0.0);
  Forward f0;
  for (int i = 0; i < 4; ++i) {
    if (i == 0) {
      Q = Q0;
    } else {
      const double a = kA[i - 1];
      std::copy(q0.begin(), q0.end(), d.qpos.begin());
      integrate_pos(m, d.qpos.data(), vel.data(), a * h);
      for (int k = 0; k < nv; ++k) d.qvel[k] = v0[k] + a * h * acc[k];
      for (int k = 0; k < na; ++k) d.act[k] = act0[k] + a * h * actdot[k];
      d.time = time0 + a * h;
      manifold_tangent(m, vel.data(), a * h, Q0.data(), V.data(), ncol, Q.data());  // V: V_{i-1}
      for (size_t x = 0; x < nvc; ++x) V[x] = V0[x] + a * h * ACC[x];
      for (size_t x = 0; x < nac; ++x) Act[x] = Act0[x] + a * h * G[x];
    }
    forward(m, d);
    Forward f = compute_forward(m, d, dof_components(m, d), false);
    std::copy_n(d.qvel.begin(), nv, vel.begin());
    std::copy_n(d.qacc.begin(), nv, acc.begin());
    std::copy_n(d.act_dot.begin(), na, actdot.begin());
    // d acc_i and d act_dot_i of every column
    std::fill(ACC.begin(), ACC.end(), 0.0);
    std::fill(G.begin(), G.end(), 0.0);
    auto add = [&](const Vec& fa, const Vec& fg, const double* X, int nx, int k) {
      // column k += fa X[:, k] (fa col-major nv x nx, fg na x nx; X col-major nx rows)
      for (int l = 0; l < nx; ++l) {
        const double x = X[static_cast<size_t>(k) * nx + l];
        if (x == 0) continue;
        const double* ca = fa.data() + static_cast<size_t>(l) * nv;
        double* o = ACC.data() + static_cast<size_t>(k) * nv;
        for (int r = 0; r < nv; ++r) o[r] += ca[r] * x;
        // data() + offset: na may be 0 (empty vectors, no element to reference)
        const double* cg = fg.data() + static_cast<size_t>(l) * na;
        double* og = G.data() + static_cast<size_t>(k) * na;
        for (int r = 0; r < na; ++r) og[r] += cg[r] * x;
      }
    };
    for (int k = 0; k < ncol; ++k) {
      add(f.aq, f.gq, Q.data(), nv, k);
      add(f.av, f.gv, V.data(), nv, k);
      if (na) add(f.aact, f.gact, Act.data(), na, k);
      if (k >= ndx) {
        const int u = k - ndx;
        for (int r = 0; r < nv; ++r) ACC[static_cast<size_t>(k) * nv + r] += f.au[static_cast<size_t>(u) * nv + r];
        for (int r = 0; r < na; ++r) G[static_cast<size_t>(k) * na + r] += f.gu[static_cast<size_t>(u) * na + r];
      }
    }
    const double b = kB[i];
    for (size_t x = 0; x < nvc; ++x) sumV[x] += b * V[x], sumA[x] += b * ACC[x];
    for (size_t x = 0; x < nac; ++x) sumG[x] += b * G[x];
    for (int k = 0; k < nv; ++k) svel[k] += b * vel[k], sacc[k] += b * acc[k];
    for (int k = 0; k < na; ++k) sact[k] += b * actdot[k];
    if (i == 0) f0 = std::move(f);
  }
  d.time = time0;
  // T[k*ndx + r]: d x'_r / d (x, u)_k
  Vec T(static_cast<size_t>(ndx) * ncol, 0.0), P(nvc);
  manifold_tangent(m, svel.data(), h, Q0.data(), sumV.data(), ncol, P.data());
  for (int k = 0; k < ncol; ++k) {
    double* t = &T[static_cast<size_t>(k) * ndx];
    for (int r = 0; r < nv; ++r) {
      t[r] = P[static_cast<size_t>(k) * nv + r];
      t[nv + r] = V0[static_cast<size_t>(k) * nv + r] + h * sumA[static_cast<size_t>(k) * nv + r];
    }
  }
  activation_rows(m, act0.data(), sact.data(), [&](int k, int adr) { return sumG[static_cast<size_t>(k) * na + adr]; },
                  T.data());
  write_transition(ndx, nu, T.data(), A, B);
  return f0;
}

}  // namespace

void transition_derivatives(const Model& m, Data& d, double* A, double* B, double* C, double* D) {
  const int nv = m.nv, na = m.na, nu = m.nu, ndx = 2 * nv + na;
  const double h = m.opt.timestep;
  const int integ = m.opt.integrator;
  if (integ == kIntImplicitCon) {
    warn_once("implicitcon integrator");
    transition_fd(m, d, kEps, true, A, B, C, D);
    return;
  }
  if (!A && !B) {
    sensor_rows(m, d, C, D, nullptr);
    return;
  }
  const StateCopy s(d);
  if (integ == kIntRK4) {
    const Forward f0 = rk4_transition(m, d, A, B);
    s.restore(d);
    sensor_rows(m, d, C, D, &f0);
    return;
  }
  if (integ != kIntEuler) {
    // the implicit integrators' D must be covered analytically (its derivative enters A and B)
    forward(m, d);
    Coverage cov = coverage(m, d);
    if (d.nefc > 0 && constraint_pos_unsupported(m, d) == cov.pos) cov.pos = nullptr;
    const char* what = cov.pos ? cov.pos : (cov.vel ? cov.vel : cov.ctl);
    // the fluid forces' part of D depends on qpos and qvel; its derivative is not computed
    if (!what && !(m.opt.disableflags & kDsblPassive) && (m.opt.density > 0 || m.opt.viscosity > 0))
      what = "fluid forces";
    if (what) {
      warn_once(what, " with an implicit integrator");
      transition_fd(m, d, kEps, true, A, B, nullptr, nullptr);
      sensor_rows(m, d, C, D, nullptr);
      return;
    }
  }
  forward(m, d);
  const Components cc = dof_components(m, d);
  Forward f = compute_forward(m, d, cc, false, (C || D) && internal::sensors_need_forward(m));

  // qacc_e = E^-1 M qacc, E = M + h B_damp (Euler), M - h D_s (implicitfast), M - h D (implicit).
  // d qacc_e = E^-1 (M d qacc - dM (qacc_e - qacc) + h dD qacc_e)
  const bool damped = [&] {
    for (int i = 0; i < nv; ++i)
      if (m.dof_damping[i] > 0) return true;
    return false;
  }();
  const bool euler = integ == kIntEuler;
  const bool midpoint = internal::midpoint_enabled(m);
  Vec qacc_e(d.qacc.begin(), d.qacc.begin() + nv);
  const int ncol = ndx + nu;
  Vec dqa(static_cast<size_t>(nv) * ncol, 0.0);  // col-major: d qacc_e / d (q, v, act, u)
  auto col = [&](int k) { return &dqa[static_cast<size_t>(k) * nv]; };
  for (int k = 0; k < nv; ++k) {
    std::copy_n(f.aq.data() + static_cast<size_t>(k) * nv, nv, col(k));
    std::copy_n(f.av.data() + static_cast<size_t>(k) * nv, nv, col(nv + k));
  }
  for (int k = 0; k < na; ++k) std::copy_n(f.aact.data() + static_cast<size_t>(k) * nv, nv, col(2 * nv + k));
  for (int k = 0; k < nu; ++k) std::copy_n(f.au.data() + static_cast<size_t>(k) * nv, nv, col(ndx + k));
  // the component of each column (-1: any), and the columns of each component
  IVec ccol(ncol), cadr(cc.adr.size() + 1, 0), cols(ncol);
  for (int k = 0; k < ncol; ++k)
    ccol[k] = k < 2 * nv ? cc.id[k % nv] : k < ndx ? cc.act[k - 2 * nv] : cc.ctl[k - ndx];
  for (int k = 0; k < ncol; ++k) ++cadr[ccol[k] + 2];  // slot 0: the columns of no component
  for (size_t c = 1; c < cadr.size(); ++c) cadr[c] += cadr[c - 1];
  {
    IVec fill(cadr.begin(), cadr.end() - 1);
    for (int k = 0; k < ncol; ++k) cols[fill[ccol[k] + 1]++] = k;
  }

  if (!euler || damped) {
    // E in M's sparsity, factored as the step factors it: L'DL of M + h B (Euler) or of
    // M - h (D + D')/2 (implicitfast), the reverse-order LU of M - h D (implicit)
    const bool lu = integ == kIntImplicit;
    Vec Eh(lu ? m.nD : m.nM), diaginv(nv);
    if (euler) {
      std::copy(d.qM.begin(), d.qM.begin() + m.nM, Eh.begin());
      for (int i = 0; i < nv; ++i) Eh[m.dof_Madr[i]] += h * m.dof_damping[i];
    } else {
      internal::deriv_passive_actuator_vel(m, d);
      if (midpoint) internal::midpoint_save_blocks(m, d);  // D of the free bodies without RNE terms
      if (lu) internal::deriv_rne_vel(m, d);
      const double* Dq = d.qDeriv.data();
      for (int i = 0; i < nv; ++i) {
        const int depth = internal::dof_depth(m, i);
        for (int t = 0; t <= depth; ++t) {
          const double Mit = d.qM[m.dof_Madr[i] + t];
          const double lo = Dq[internal::deriv_lower(m, i, t)];
          const double up = t > 0 ? Dq[internal::deriv_upper(m, i, t)] : lo;
          if (lu) {
            Eh[internal::deriv_lower(m, i, t)] = Mit - h * lo;
            if (t > 0) Eh[internal::deriv_upper(m, i, t)] = Mit - h * up;
          } else {
            Eh[m.dof_Madr[i] + t] = Mit - 0.5 * h * (lo + up);
          }
        }
      }
    }
    if (lu)
      internal::factor_lu(m, Eh.data());
    else
      internal::factor_ld(m, Eh.data(), diaginv.data(), nullptr);
    // column k in component comp[k] (comp null or -1: anywhere); the LU of implicit solves in full
    auto Esolve = [&](double* x, int n, const int* comp) {
      for (int k = 0; k < n; ++k) {
        double* xk = x + static_cast<size_t>(k) * nv;
        const int c = comp ? comp[k] : -1;
        if (lu) internal::solve_lu(m, Eh.data(), xk);
        else if (c < 0) internal::solve_ld(m, Eh.data(), diaginv.data(), xk, 1);
        else solve_ld_dofs(m, Eh.data(), diaginv.data(), cc.of(c), cc.size(c), xk);
      }
    };
    mul_m(m, d, qacc_e.data(), d.qacc.data());
    Esolve(qacc_e.data(), 1, nullptr);
    // right-hand sides: M dqacc
    Vec rhs(static_cast<size_t>(nv) * ncol, 0.0);
    for (int k = 0; k < ncol; ++k) {
      double* r = &rhs[static_cast<size_t>(k) * nv];
      const double* x = &dqa[static_cast<size_t>(k) * nv];
      if (ccol[k] < 0) mul_m(m, d, r, x);
      else mul_m_dofs(m, d, cc.of(ccol[k]), cc.size(ccol[k]), r, x);
    }
    // - dM/dq (qacc_e - qacc)
    Vec y(nv), R(static_cast<size_t>(nv) * nv);
    for (int i = 0; i < nv; ++i) y[i] = qacc_e[i] - d.qacc[i];
    internal::rne_pos_deriv(m, d, Vec(nv, 0.0).data(), y.data(), false, R.data());
    for (int k = 0; k < nv; ++k)
      for (int i = 0; i < nv; ++i) rhs[static_cast<size_t>(k) * nv + i] -= R[static_cast<size_t>(i) * nv + k];
    if (!euler) {
      // + h dD qacc_e: the passive and actuator part (tendon_deriv.h), and for implicit the RNE part
      internal::implicit_d_deriv(m, d, qacc_e.data(), h, rhs.data());
      if (integ == kIntImplicit) {
        // velocity: d(D_rne(v) y)/dv = D_rne at velocity y = qacc_e
        const StateCopy sv(d);
        std::copy(qacc_e.begin(), qacc_e.end(), d.qvel.begin());
        com_vel(m, d);
        const Vec Dy = rne_vel_dense(m, d);
        sv.restore(d);
        com_vel(m, d);
        for (int k = 0; k < nv; ++k)
          for (int i = 0; i < nv; ++i) rhs[static_cast<size_t>(nv + k) * nv + i] += h * Dy[static_cast<size_t>(k) * nv + i];
        // position: d(D_rne y)/dq = -(Rp(v + y) - Rp(v) - Rp(y)), gravity off
        Vec vy(nv), zero(nv, 0.0), R1(R.size()), R2(R.size()), R3(R.size());
        for (int i = 0; i < nv; ++i) vy[i] = d.qvel[i] + qacc_e[i];
        internal::rne_pos_deriv(m, d, vy.data(), zero.data(), false, R1.data());
        internal::rne_pos_deriv(m, d, d.qvel.data(), zero.data(), false, R2.data());
        internal::rne_pos_deriv(m, d, qacc_e.data(), zero.data(), false, R3.data());
        for (int k = 0; k < nv; ++k)
          for (int i = 0; i < nv; ++i) {
            const size_t r = static_cast<size_t>(i) * nv + k;
            rhs[static_cast<size_t>(k) * nv + i] -= h * (R1[r] - R2[r] - R3[r]);
          }
      }
    }
    Esolve(rhs.data(), ncol, ccol.data());
    std::swap(dqa, rhs);
    if (midpoint) midpoint_rows(m, d, f, cc, cadr, cols, qacc_e.data(), dqa.data());
  }

  // next state: v' = v + h qacc_e; act' = act + hh act_dot (clamped); q' = q exp(h v')
  Vec vn(nv);
  for (int i = 0; i < nv; ++i) vn[i] = d.qvel[i] + h * qacc_e[i];
  // T[k*ndx + r]: d x'_r / d (x, u)_k, col-major with ndx rows
  Vec T(static_cast<size_t>(ndx) * ncol, 0.0);
  for (int k = 0; k < ncol; ++k) {
    double* t = &T[static_cast<size_t>(k) * ndx];
    const double* a = col(k);
    for (int i = 0; i < nv; ++i) t[nv + i] = h * a[i] + (k == nv + i ? 1 : 0);
  }
  // activations
  activation_rows(m, d.act.data(), d.act_dot.data(), [&](int k, int adr) {
    if (k < nv) return f.gq[static_cast<size_t>(k) * na + adr];
    if (k < 2 * nv) return f.gv[static_cast<size_t>(k - nv) * na + adr];
    if (k < ndx) return f.gact[static_cast<size_t>(k - 2 * nv) * na + adr];
    return f.gu[static_cast<size_t>(k - ndx) * na + adr];
  }, T.data());
  // positions
  for (int j = 0; j < m.njnt; ++j) {
    int v0 = m.jnt_dofadr[j];
    int nrot = 0, nlin = 1;
    if (m.jnt_type[j] == kJointFree) nlin = 3, nrot = 3;
    if (m.jnt_type[j] == kJointBall) nlin = 0, nrot = 3;
    for (int c = 0; c < nlin; ++c) {
      const int i = v0 + c;
      for (int k = 0; k < ncol; ++k) {
        double* t = &T[static_cast<size_t>(k) * ndx];
        t[i] = (k == i ? 1 : 0) + h * t[nv + i];
      }
    }
    if (!nrot) continue;
    const int r0 = v0 + nlin;
    double phi[3], Jr[9], R[9];
    for (int c = 0; c < 3; ++c) phi[c] = h * vn[r0 + c];
    math::so3_jacobians(phi, Jr, R);
    // the columns of the joint's component and of none (the others are zero on its rows)
    const int comp = cc.id[v0];
    for (int x = 0; x < cadr[1] + cadr[comp + 2] - cadr[comp + 1]; ++x) {
      const int k = x < cadr[1] ? cols[x] : cols[cadr[comp + 1] + x - cadr[1]];
      double* t = &T[static_cast<size_t>(k) * ndx];
      for (int a = 0; a < 3; ++a) {
        double sum = 0;
        for (int b = 0; b < 3; ++b) {
          sum += Jr[3 * a + b] * h * t[nv + r0 + b];
          if (k == r0 + b) sum += R[3 * b + a];  // R' dq
        }
        t[r0 + a] = sum;
      }
    }
  }
  write_transition(ndx, nu, T.data(), A, B);
  s.restore(d);
  sensor_rows(m, d, C, D, &f);
}

}  // namespace moreau

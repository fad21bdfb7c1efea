// Entry points of the hard-contact solvers: the velocity-stepping solve of a step (called by
// solve_constraint), the impulsive collision map, and the checks that refuse what they cannot do.
//
// Results of a step (h = timestep), so that the rest of the pipeline works unchanged:
//   qacc            = (v+ - v)/h = (v_f - v)/h + Mt^-1 J' lambda / h; the Euler integrator then
//                     gives qvel <- v+ exactly (with joint damping it solves Mt qacc = qfrc_smooth +
//                     qfrc_constraint, the same equation);
//   efc_force       = lambda/h (forces: contact_force, cfrc_ext and the force sensors read them);
//   qfrc_constraint = J' efc_force;  efc_state: satisfied (no force), cone (sliding contact: on the
//                     cone's boundary), quadratic (other active rows);
//   d.ncp, solver_iter: iterations and the paper's errors.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/checks.h"
#include "engine/messages.h"
#include "solver/ncp/ncp.h"

namespace moreau {

bool is_hard_contact_solver(int solver) { return solver >= kSolverRaisim && solver <= kSolverLCP; }

const char* solver_name(int solver) {
  static constexpr const char* kNames[] = {"PGS", "CG", "Newton", "raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"};
  return solver >= 0 && solver <= kSolverLCP ? kNames[solver] : "unknown";
}

namespace ncp {

namespace {

std::string geom_label(const Model& m, int g) {
  if (g >= 0 && g < static_cast<int>(m.geom_names.size()) && !m.geom_names[g].empty())
    return "'" + m.geom_names[g] + "'";
  return std::to_string(g);
}

// Contacts these solvers model: every condim (1, 3, 4, 6) with MuJoCo's elliptic cone; lcp's
// polyhedral cone has tangential edges only, so it takes condim 1 and isotropic condim 3.
void check_contacts(const Model& m, const Data& d) {
  if (m.opt.solver != kSolverLCP) return;
  for (int i = 0; i < d.ncon; ++i) {
    const Contact& con = d.contact[i];
    if (con.efc_address < 0) continue;
    if (con.dim != 1 && con.dim != 3)
      internal::raise<std::runtime_error>(
          std::string("solver ") + solver_name(m.opt.solver) + ": contact between geoms " +
          geom_label(m, con.geom1) + " and " + geom_label(m, con.geom2) + " has condim " +
          std::to_string(con.dim) +
          "; the lcp solver's friction pyramid models condim 1 and 3 only (no torsional or "
          "rolling friction: use raisim, raisim-ds, ncp-pgs or ccp)");
    if (con.dim == 3 && con.friction[0] != con.friction[1])
      internal::raise<std::runtime_error>(
          std::string("solver ") + solver_name(m.opt.solver) + ": contact between geoms " +
          geom_label(m, con.geom1) + " and " + geom_label(m, con.geom2) +
          " has anisotropic friction; the lcp solver's friction pyramid is isotropic (use raisim, "
          "raisim-ds, ncp-pgs or ccp)");
  }
}

void check_options(const Model& m) {
  if (m.opt.integrator != kIntEuler)
    internal::raise<std::runtime_error>(
        std::string("solver ") + solver_name(m.opt.solver) +
        " is a velocity-stepping (hard-contact) solver: it needs the Euler integrator, "
        "not integrator " + std::to_string(m.opt.integrator));
  if (m.opt.enableflags & kEnblFwdinv)
    internal::raise<std::runtime_error>(
        std::string("solver ") + solver_name(m.opt.solver) +
        ": the fwdinv check compares with the soft model's inverse, which the hard-contact "
        "solvers do not have");
}

int run(const Model& m, Data& d, Work& w) {
  return m.opt.solver == kSolverLCP ? lcp(m, d, w) : gauss_seidel(m, d, w, m.opt.solver);
}

void set_state(const Model& m, Data& d, const Work& w) {
  for (int r = 0; r < d.nefc;) {
    int dim;
    const Kind kind = block_kind(d, r, &dim);
    const double* l = w.lam + r;
    int s = kCnstrSatisfied;
    for (int a = 0; a < dim; ++a)
      if (l[a] != 0) s = kCnstrQuadratic;
    if (kind == kCone && s != kCnstrSatisfied) {
      const Contact& con = d.contact[d.efc_id[r]];
      if (scaled_cone(con)) {
        double D[6], t = 0;
        cone_scale(con, D);
        for (int a = 1; a < dim; ++a) t += D[a] > 0 ? (l[a] / D[a]) * (l[a] / D[a]) : 0;
        if (std::sqrt(t) >= l[0] * (1 - 1e-9)) s = kCnstrCone;
      } else if (std::sqrt(l[1] * l[1] + l[2] * l[2]) >= con.friction[0] * l[0] * (1 - 1e-9)) {
        s = kCnstrCone;
      }
    }
    for (int a = 0; a < dim; ++a) d.efc_state[r + a] = s;
    r += dim;
  }
}

}  // namespace

void solve(const Model& m, Data& d) {
  const int nv = m.nv, nefc = d.nefc;
  const double h = m.opt.timestep;
  check_options(m);
  d.ncp = NcpStat{};
  if (nefc == 0) {
    std::copy_n(d.qacc_smooth.data(), nv, d.qacc.data());
    std::fill_n(d.qfrc_constraint.data(), nv, 0.0);
    d.solver_iter = 0;
    std::copy_n(d.qacc.data(), nv, d.qacc_warmstart.data());
    return;
  }
  check_contacts(m, d);
  ensure_storage(m, d);
  Work w = carve(m, d);
  setup(m, d, w, h, false, 0);
  if (m.opt.solver != kSolverLCP) warm_start(m, d, w);
  const int iterations = run(m, d, w);
  save_solution(m, d, w);
  metrics(m, d, w, h);
  d.ncp.iterations = d.solver_iter = iterations;
  for (int r = 0; r < nefc; ++r) d.efc_force[r] = w.lam[r] / h;
  constraint::mul_JT(m, d, d.qfrc_constraint.data(), d.efc_force.data());
  for (int k = 0; k < nv; ++k) d.qacc[k] = (w.vf[k] - d.qvel[k] + w.v[k]) / h;
  set_state(m, d, w);
  std::copy_n(d.qacc.data(), nv, d.qacc_warmstart.data());
}

}  // namespace ncp

void impact(const Model& m, Data& d, double restitution) {
  internal::check_data(m, d, "impact");
  if (!is_hard_contact_solver(m.opt.solver))
    internal::raise<std::invalid_argument>(
        std::string("impact: opt.solver is ") + solver_name(m.opt.solver) +
        "; the impact map needs a hard-contact solver (raisim, raisim-ds, ncp-pgs, ccp, lcp)");
  if (!(restitution >= 0 && restitution <= 1))
    internal::raise<std::invalid_argument>("impact: the coefficient of restitution must lie in [0, 1], not " +
                                           std::to_string(restitution));
  fwd_position(m, d);
  d.ncp = NcpStat{};
  if (d.nefc == 0) return;
  ncp::check_contacts(m, d);
  ncp::ensure_storage(m, d);
  ncp::Work w = ncp::carve(m, d);
  ncp::setup(m, d, w, 1, true, restitution);
  const int iterations = ncp::run(m, d, w);
  ncp::metrics(m, d, w, 1);  // impulses: lambda itself
  d.ncp.iterations = d.solver_iter = iterations;
  for (int r = 0; r < d.nefc; ++r) d.efc_force[r] = w.lam[r];
  ncp::set_state(m, d, w);
  for (int k = 0; k < m.nv; ++k) d.qvel[k] = w.vf[k] + w.v[k];
}

}  // namespace moreau

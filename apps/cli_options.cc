#include "cli_options.h"

#include "moreau/moreau.h"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace moreau::cli {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// Index of `value` in `names`, or throw listing the accepted names.
int pick(const std::string& what, const std::string& value, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) return static_cast<int>(i);
  std::string msg = what + " '" + value + "' is not one of:";
  for (const auto& n : names) msg += " " + n;
  throw std::invalid_argument(msg);
}

int flag_bits(const std::string& list, const char* const* names, int n, const std::string& what) {
  std::vector<std::string> choices(names, names + n);
  int bits = 0;
  for (const auto& f : split_commas(list)) bits |= 1 << pick(what, f, choices);
  return bits;
}

}  // namespace

void apply_overrides(const OptionOverrides& o, Model& m) {
  m.opt.disableflags |= flag_bits(o.disable, kDisableNames, kNDisable, "--disable flag");
  m.opt.enableflags |= flag_bits(o.enable, kEnableNames, kNEnable, "--enable flag");
  if (!o.solver.empty()) {
    m.opt.solver = pick("--solver", o.solver,
                        {"PGS", "CG", "Newton", "raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"});
  }
  if (!o.cone.empty()) m.opt.cone = pick("--cone", o.cone, {"pyramidal", "elliptic"});
  if (!o.integrator.empty())
    m.opt.integrator = pick("--integrator", o.integrator, {"Euler", "RK4", "implicit", "implicitfast"});
  if (!o.jacobian.empty()) m.opt.jacobian = pick("--jacobian", o.jacobian, {"dense", "sparse", "auto"});
  if (o.iterations >= 0) m.opt.iterations = o.iterations;
  if (o.tolerance >= 0) m.opt.tolerance = o.tolerance;
  if (o.impratio >= 0) {
    if (!(o.impratio > 0)) throw std::invalid_argument("--impratio must be positive");
    m.opt.impratio = o.impratio;
  }
  if (o.noslip_iterations >= 0) m.opt.noslip_iterations = o.noslip_iterations;
  // the hard-contact solvers step velocities: only with the Euler integrator (model or command line)
  if (is_hard_contact_solver(m.opt.solver) && m.opt.integrator != kIntEuler)
    throw std::invalid_argument(std::string("--solver ") + solver_name(m.opt.solver) +
                                " is a velocity-stepping (hard-contact) solver: it needs the Euler integrator");
  if (o.timestep >= 0) {
    if (!(o.timestep > 0)) throw std::invalid_argument("--timestep must be positive");
    m.opt.timestep = o.timestep;
  }
}

}  // namespace moreau::cli

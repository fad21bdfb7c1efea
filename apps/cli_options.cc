#include "cli_options.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "moreau/moreau.h"

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

// Index of `value` in `names`, or throw UsageError listing the accepted names.
int pick(const std::string& what, const std::string& value, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) return static_cast<int>(i);
  std::string msg = what + " '" + value + "' is not one of:";
  for (const auto& n : names) msg += " " + n;
  throw UsageError(msg);
}

int flag_bits(const std::string& list, const char* const* names, int n, const std::string& what) {
  std::vector<std::string> choices(names, names + n);
  int bits = 0;
  for (const auto& f : split_commas(list)) bits |= 1 << pick(what, f, choices);
  return bits;
}

const std::vector<std::string> kSolvers = {"PGS", "CG", "Newton", "raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"};
const std::vector<std::string> kCones = {"pyramidal", "elliptic"};
const std::vector<std::string> kIntegrators = {"Euler", "RK4", "implicit", "implicitfast", "implicitcon"};
const std::vector<std::string> kJacobians = {"dense", "sparse", "auto"};

}  // namespace

long parse_integer(const std::string& option, const std::string& text, long min) {
  const char* what = min >= 1 ? "a positive integer" : "a non-negative integer";
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || (v < min && errno != ERANGE))
    throw UsageError(option + " must be " + what + ", not '" + text + "'");
  if (errno == ERANGE || v > INT_MAX)
    throw UsageError(option + " must be at most " + std::to_string(INT_MAX) + ", not '" + text + "'");
  return v;
}

double parse_number(const std::string& option, const std::string& text, bool positive) {
  const char* what = positive ? "a positive number" : "a non-negative number";
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || (positive && v == 0))
    throw UsageError(option + " must be " + what + ", not '" + text + "'");
  return v;
}

void validate_overrides(const OptionOverrides& o) {
  flag_bits(o.disable, kDisableNames, kNDisable, "--disable flag");
  flag_bits(o.enable, kEnableNames, kNEnable, "--enable flag");
  if (!o.solver.empty()) pick("--solver", o.solver, kSolvers);
  if (!o.cone.empty()) pick("--cone", o.cone, kCones);
  if (!o.integrator.empty()) pick("--integrator", o.integrator, kIntegrators);
  if (!o.jacobian.empty()) pick("--jacobian", o.jacobian, kJacobians);
  if (!o.iterations.empty()) parse_integer("--iterations", o.iterations, 0);
  if (!o.tolerance.empty()) parse_number("--tolerance", o.tolerance, false);
  if (!o.timestep.empty()) parse_number("--timestep", o.timestep, true);
  if (!o.impratio.empty()) parse_number("--impratio", o.impratio, true);
  if (!o.noslip_iterations.empty()) parse_integer("--noslip-iterations", o.noslip_iterations, 0);
}

void apply_overrides(const OptionOverrides& o, Model& m) {
  validate_overrides(o);
  m.opt.disableflags |= flag_bits(o.disable, kDisableNames, kNDisable, "--disable flag");
  m.opt.enableflags |= flag_bits(o.enable, kEnableNames, kNEnable, "--enable flag");
  if (!o.solver.empty()) m.opt.solver = pick("--solver", o.solver, kSolvers);
  if (!o.cone.empty()) m.opt.cone = pick("--cone", o.cone, kCones);
  if (!o.integrator.empty()) m.opt.integrator = pick("--integrator", o.integrator, kIntegrators);
  if (!o.jacobian.empty()) m.opt.jacobian = pick("--jacobian", o.jacobian, kJacobians);
  if (!o.iterations.empty()) m.opt.iterations = static_cast<int>(parse_integer("--iterations", o.iterations, 0));
  if (!o.tolerance.empty()) m.opt.tolerance = parse_number("--tolerance", o.tolerance, false);
  if (!o.timestep.empty()) m.opt.timestep = parse_number("--timestep", o.timestep, true);
  if (!o.impratio.empty()) m.opt.impratio = parse_number("--impratio", o.impratio, true);
  if (!o.noslip_iterations.empty())
    m.opt.noslip_iterations = static_cast<int>(parse_integer("--noslip-iterations", o.noslip_iterations, 0));
  // the hard-contact solvers step velocities: only with the Euler integrator (model or command line)
  if (is_hard_contact_solver(m.opt.solver) && m.opt.integrator != kIntEuler)
    throw std::invalid_argument(std::string("--solver ") + solver_name(m.opt.solver) +
                                " is a velocity-stepping (hard-contact) solver: it needs the Euler integrator");
}

std::string bundled_model(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the bundled models: /proc/self/exe is not readable (" + ec.message() + ")");
  const fs::path bin = exe.parent_path();
  const fs::path candidates[] = {bin / ".." / "models" / file, bin / ".." / "share" / "moreau" / "models" / file};
  for (const fs::path& p : candidates)
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  throw std::runtime_error("the bundled model " + file + " is neither at " +
                           candidates[0].lexically_normal().string() + " nor at " +
                           candidates[1].lexically_normal().string() + "; give a MODEL file");
}

}  // namespace moreau::cli

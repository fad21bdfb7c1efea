// Command-line overrides of a model's physics options (`--disable`, `--solver`, ...), the checks of
// numeric arguments, and where the bundled models are.
#pragma once

#include <stdexcept>
#include <string>

#include "moreau/model.h"

namespace moreau::cli {

// Exit codes of `moreau` (README, `moreau --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;    // the model or the input lines
inline constexpr int kExitBadCommand = 2;  // the command line

// A bad command line (unknown subcommand or option, a value that is not accepted): exit code 2.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The option values as typed; empty strings mean "keep the model's".
struct OptionOverrides {
  std::string disable, enable;  // comma-separated MJCF flag names
  std::string solver, cone, integrator, jacobian;
  std::string iterations, tolerance, timestep;
};

// Throws UsageError for a name or number the options do not accept, naming the option and what it
// accepts ("--timestep must be a positive number, not '-1'"). Needs no model.
void validate_overrides(const OptionOverrides& o);
// validate_overrides, then apply to m.opt. Throws std::invalid_argument for a combination the model
// cannot run (a hard-contact solver with an integrator other than Euler).
void apply_overrides(const OptionOverrides& o, Model& m);

// An integer option: its value, or UsageError "--steps must be a non-negative integer, not 'x'"
// (min 0) or "... a positive integer ..." (min 1).
long parse_integer(const std::string& option, const std::string& text, long min);
// A finite number option: > 0 when `positive`, else >= 0; UsageError otherwise.
double parse_number(const std::string& option, const std::string& text, bool positive);

// The folder of the models that come with moreau, found from the executable's own location
// (/proc/self/exe): <bin>/../models (a build folder in the source tree) or
// <bin>/../share/moreau/models (an installed prefix). Throws std::runtime_error naming both places
// when neither holds `file` (a path relative to the models folder).
std::string bundled_model(const std::string& file);

}  // namespace moreau::cli

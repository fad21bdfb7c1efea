// Command-line overrides of a model's physics options (`--disable`, `--solver`, ...).
#pragma once

#include <string>

#include "moreau/model.h"

namespace moreau::cli {

// The option values as typed; empty strings / negative numbers mean "keep the model's".
struct OptionOverrides {
  std::string disable, enable;  // comma-separated MJCF flag names
  std::string solver, cone, integrator, jacobian;
  int iterations = -1;
  double tolerance = -1;
  double timestep = -1;
  double impratio = -1;        // ratio of frictional to normal impedance (elliptic cones)
  int noslip_iterations = -1;  // iterations of the noslip post-processor (0: off)
};

// Apply the overrides to m.opt. Throws std::invalid_argument naming the bad value and the choices.
void apply_overrides(const OptionOverrides& o, Model& m);

}  // namespace moreau::cli

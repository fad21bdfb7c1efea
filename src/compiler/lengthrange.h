// Actuator length ranges computed by the compiler (src/compiler/lengthrange.cc) with the MJCF
// compiler/lengthrange options of the Spec (mjcf/spec.h).
#pragma once

#include <string>

#include "mjcf/spec.h"
#include "moreau/moreau.h"

namespace moreau {

// Fill actuator_lengthrange of the selected actuators (needs the other set_const constants).
// Returns -1, or the index of the first actuator whose simulated length did not settle within
// tolrange during the evaluation interval (its message in *error); the ranges of the actuators
// before it are set.
int set_lengthrange(Model& m, const mjcf::LengthRangeOptions& opt, std::string* error = nullptr);

}  // namespace moreau

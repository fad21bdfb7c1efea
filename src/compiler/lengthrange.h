// Actuator length ranges computed by the compiler (src/compiler/lengthrange.cc): MJCF
// compiler/lengthrange options (names and defaults of the MJCF reference).
#pragma once

#include <string>

#include "moreau/moreau.h"

namespace moreau {

struct LengthRangeOptions {
  int mode = 1;  // 0 none, 1 muscle, 2 muscleuser, 3 all
  bool useexisting = true;
  bool uselimit = false;
  double accel = 20;      // target acceleration of the pushing force
  double maxforce = 0;    // cap on the force norm; 0: none
  double timeconst = 1;   // velocity damping time constant (at least 0.01)
  double timestep = 0.01; // 0: the model's timestep
  double inttotal = 10;   // simulated time per side
  double inteval = 2;     // evaluation interval at the end
  double tolrange = 0.05; // convergence tolerance, relative to the range
};

// Fill actuator_lengthrange of the selected actuators (needs the other set_const constants).
// Returns -1, or the index of the first actuator whose simulated length did not settle within
// tolrange during the evaluation interval (its message in *error); the ranges of the actuators
// before it are set.
int set_lengthrange(Model& m, const LengthRangeOptions& opt, std::string* error = nullptr);

}  // namespace moreau

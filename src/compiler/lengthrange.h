// Actuator length ranges computed by the compiler (src/compiler/lengthrange.cc): MJCF
// compiler/lengthrange options with their documented defaults.
#pragma once

#include "moreau/moreau.h"

namespace moreau {

struct LengthRangeOptions {
  int mode = 1;  // 0 none, 1 muscle, 2 muscleuser, 3 all
  bool useexisting = true;
  bool uselimit = false;
  double accel = 20;
  double maxforce = 0;
  double timeconst = 1;
  double timestep = 0.01;
  double inttotal = 10;
  double interval = 2;
  double tolrange = 0.05;
};

// Fill actuator_lengthrange of the selected actuators (needs the other set_const constants).
void set_lengthrange(Model& m, const LengthRangeOptions& opt);
void set_lengthrange(Model& m);  // default options

}  // namespace moreau

// Entry of the compiler (compiler/): an MJCF Spec -> a Model with every derived constant.
//
// Layering of the model front end, each layer including only those below it:
//   model_geometry/  geometry that parsing and compiling both need (fromto frames, geom mass),
//                    on plain numbers
//   mjcf/            XML -> Spec (mjcf/spec.h); includes nothing from compiler/
//   compiler/        Spec -> Model (this header); reads the Spec and its source elements for
//                    errors with file:line; load.cc runs the parser and then the compiler for the
//                    public load_model entries
#pragma once

#include "mjcf/spec.h"
#include "moreau/model.h"

namespace moreau::compiler {

// The Model of a parsed Spec: the compiled arrays, then the constants that need the dynamics at
// qpos0 (set_const, springdamper gains, tendon spring lengths, actuator length ranges). Throws
// LoadError naming the element's file and line.
Model compile(const mjcf::Spec& spec);

}  // namespace moreau::compiler

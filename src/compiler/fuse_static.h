// compiler fusestatic="true" (src/compiler/fuse_static.cc).
#pragma once

#include "mjcf/spec.h"

namespace moreau::compiler {

// False when the model has an element that makes MuJoCo 2.2.2 skip fusion altogether.
bool fusion_allowed(const mjcf::Spec& s);
// The Spec with every static body fused into its parent; `unfused` is the Spec compiled as it is
// (without settotalmass), which gives each body's own mass properties.
mjcf::Spec fuse_static(const mjcf::Spec& spec, const Model& unfused);

}  // namespace moreau::compiler

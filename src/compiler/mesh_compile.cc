// Mesh assets -> MeshInfo (vertices in the inertial frame, volume, principal inertia).
#include "compiler/compile_internal.h"

namespace moreau::compiler {

MeshInfo load_mesh(const mjcf::MeshSpec& ms, const mjcf::Spec& spec) {
  mjcf::fail(ms.src, "mesh assets are not supported yet");
}

}  // namespace moreau::compiler

// Fluid forces (src/dynamics/fluid.cc): adds the medium's forces (opt.density, opt.viscosity,
// opt.wind; geom_fluid for the ellipsoid model) into d.qfrc_passive. Needs the velocity stage up to
// com_vel (cvel, xipos, ximat, subtree_com). No allocation.
#pragma once

#include "moreau/moreau.h"

namespace moreau {
void fluid_forces(const Model& m, Data& d);
}  // namespace moreau

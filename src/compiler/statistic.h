// The model statistics of <statistic> (stat.meansize, extent, center) computed from the model in
// qpos0, as MuJoCo 2.2.2's compiler computes them.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau {

// Sets m.stat.center, extent and meansize from `d`, which holds the kinematics at qpos0
// (xpos, xipos, xanchor, site_xpos, geom_xpos). meaninertia and meanmass are set_const's.
void set_statistic(Model& m, const Data& d);

}  // namespace moreau

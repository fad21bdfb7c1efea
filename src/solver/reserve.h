// Work space of the constraint solvers beyond the rows' (constraint/storage.h sizes those).
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Sizes the selected solver's own work space for d's row capacity: Data::work.ncp when opt.solver
// is a hard-contact solver (src/solver/ncp), nothing for Newton, CG and PGS. make_data calls it; a
// hard-contact solve after opt.solver or the row capacity changed sizes it once itself.
void solver_reserve(const Model& m, Data& d);

}  // namespace moreau::internal

#include "solver/reserve.h"

#include "solver/ncp/ncp.h"

namespace moreau::internal {

void solver_reserve(const Model& m, Data& d) {
  if (is_hard_contact_solver(m.opt.solver)) ncp::ensure_storage(m, d);
}

}  // namespace moreau::internal

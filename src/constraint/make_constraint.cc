// make_constraint: all constraint rows in the order of the computation chapter (equality, friction
// loss, limit, contact), then their solver parameters.
#include <algorithm>

#include "constraint/storage.h"
#include "engine/checks.h"

namespace moreau {

void make_constraint(const Model& m, Data& d) {
  internal::check_data(m, d, "make_constraint");
  d.ne = d.nf = d.nefc = 0;
  for (int c = 0; c < d.ncon; ++c) d.contact[c].efc_address = -1;
  if ((m.opt.disableflags & kDsblConstraint) || m.nv == 0) return;
  // storage never sized by allocate_constraint_storage (e.g. a Data sized by another rule), or
  // sized for other options (the work space depends on the jacobian option): size it once here;
  // later calls do not allocate
  const size_t cap = d.efc_type.size();
  const int icap = static_cast<int>(cap);
  const long long nnz = constraint::nnz_capacity(d);
  if (cap == 0 || d.efc_J_rownnz.size() != cap || d.efc_KBIP.size() != 4 * cap || nnz == 0 ||
      d.work.efc.size() < static_cast<size_t>(constraint::work_size(m, icap, nnz)) ||
      d.work.efc_int.size() < static_cast<size_t>(constraint::iwork_size(m, icap, nnz)))
    allocate_constraint_storage(m, d);
  constraint::equality_rows(m, d);
  d.ne = d.nefc;
  constraint::friction_rows(m, d);
  d.nf = d.nefc - d.ne;
  constraint::limit_rows(m, d);
  constraint::contact_rows(m, d);
  // solver parameters of the soft model (impedance, R, the reference acceleration's K and B); the
  // hard-contact solvers define their own problem (src/solver/ncp) and read none of them, so for
  // them the rows carry zeros and each contact's regularized friction is its friction
  if (is_hard_contact_solver(m.opt.solver)) {
    std::fill_n(d.efc_KBIP.begin(), 4 * d.nefc, 0.0);
    std::fill_n(d.efc_R.begin(), d.nefc, 0.0);
    std::fill_n(d.efc_D.begin(), d.nefc, 0.0);
    for (int c = 0; c < d.ncon; ++c) d.contact[c].mu = d.contact[c].friction[0];
  } else {
    constraint::make_impedance(m, d);
  }
  d.maxuse_efc = std::max(d.maxuse_efc, d.nefc);
}

}  // namespace moreau

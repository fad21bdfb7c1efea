// Sizes of Data::work.deriv and Data::work.fd (layouts in work.h).
#include "derivative/work.h"
#include "moreau/derivative.h"

namespace moreau {

long long deriv_work_size(const Model& m) {
  return 18LL * m.nbody + 12LL * m.nv + 36LL * internal::count_free_joints(m);
}

long long fd_work_size(const Model& m) {
  return 4LL * m.nq + 9LL * m.nv + 4LL * m.na + m.nu + 3LL * m.nsensordata + 3LL * m.nM;
}

}  // namespace moreau

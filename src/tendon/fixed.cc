// Fixed tendons (computation chapter, "Tendons"): the length is a linear combination of scalar joint
// positions, L = sum_k coef_k q_k, so the moment-arm row has coef_k at the joints' dofs.
#include "tendon/tendon.h"

namespace moreau::tendon_detail {

double fixed_tendon(const Model& m, const Data& d, int t, double* J, Span* span) {
  double length = 0;
  const int adr = m.tendon_adr[t];
  for (int w = adr; w < adr + m.tendon_num[t]; ++w) {
    const int j = m.wrap_objid[w];
    const double coef = m.wrap_prm[w];
    length += coef * d.qpos[m.jnt_qposadr[j]];
    const int dof = m.jnt_dofadr[j];
    J[dof] += coef;
    span->add(dof);
  }
  return length;
}

}  // namespace moreau::tendon_detail

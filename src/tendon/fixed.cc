// Fixed tendons (computation chapter, "Tendons"): the length is a linear combination of scalar joint
// positions, L = sum_k coef_k q_k, so the moment-arm row has coef_k at the joints' dofs.
#include "tendon/tendon.h"

namespace moreau::tendon_detail {

double fixed_tendon(const Model& m, const Data& d, int t, double* J, Span* span) {
  // Local pointers: the stores into J could otherwise be taken to move the arrays read here.
  const int* objid = m.wrap_objid.data();
  const double* prm = m.wrap_prm.data();
  const int* qposadr = m.jnt_qposadr.data();
  const int* dofadr = m.jnt_dofadr.data();
  const double* qpos = d.qpos.data();
  double length = 0;
  Span s = *span;
  const int adr = m.tendon_adr[t], end = adr + m.tendon_num[t];
  for (int w = adr; w < end; ++w) {
    const int j = objid[w];
    const double coef = prm[w];
    length += coef * qpos[qposadr[j]];
    const int dof = dofadr[j];
    J[dof] += coef;
    s.add(dof);
  }
  *span = s;
  return length;
}

}  // namespace moreau::tendon_detail

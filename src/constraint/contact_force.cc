// The force of one contact in its own frame (normal, tangent1, tangent2, spin, roll1, roll2), from
// the solver's efc_force. Elliptic and frictionless rows are frame components already; a pyramidal
// contact of dimension n has edge pairs J_n +- mu_j J_j (computation chapter, "Friction cones"), so
// the normal force is the sum of all edge forces and component j is mu_j (f_j+ - f_j-).
#include <algorithm>

#include "engine/checks.h"
#include "moreau/moreau.h"

namespace moreau {

void contact_force(const Model& m, const Data& d, int id, double result[6]) {
  internal::check_data(m, d, "contact_force");
  internal::check_id("contact_force", "contact", id, d.ncon);
  internal::check_ptr(result, "contact_force", "result");
  std::fill(result, result + 6, 0.0);
  const Contact& con = d.contact[id];
  const int adr = con.efc_address;
  if (adr < 0) return;
  if (d.efc_type[adr] == kCnstrContactPyramidal) {
    for (int k = 0; k < 2 * (con.dim - 1); ++k) result[0] += d.efc_force[adr + k];
    for (int j = 1; j < con.dim; ++j)
      result[j] = con.friction[j - 1] * (d.efc_force[adr + 2 * (j - 1)] - d.efc_force[adr + 2 * (j - 1) + 1]);
  } else {
    std::copy_n(&d.efc_force[adr], con.dim, result);
  }
}

}  // namespace moreau

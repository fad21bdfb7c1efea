// Jacobians of points on bodies (simulation chapter, "Jacobians"; computation chapter, com frames).
//
// The dofs that move body b are b's own dofs and those of its ancestors: the chain that starts at
// the last dof of b (or of its nearest ancestor that has dofs) and follows dof_parentid. Column i of
// the rotational Jacobian is the rotation part w_i of cdof_i; column i of the translational Jacobian
// at point p is the velocity of p, v_i + w_i x (p - o), o = subtree_com[body_rootid[b]].
#include <algorithm>
#include <cstring>

#include "engine/checks.h"
#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;


namespace {
// The Jacobians of `point` on `body`, after the caller's checks.
void jac_unchecked(const Model& m, const Data& d, double* jacp, double* jacr, const double point[3],
                   int body) {
  const int nv = m.nv;
  if (jacp) std::fill_n(jacp, 3 * nv, 0.0);
  if (jacr) std::fill_n(jacr, 3 * nv, 0.0);
  double r[3];
  sub3(r, point, &d.subtree_com[3 * m.body_rootid[body]]);
  for (int i = internal::last_dof(m, body); i >= 0; i = m.dof_parentid[i]) {
    const double* cdof = &d.cdof[6 * i];
    if (jacr) {
      jacr[i] = cdof[0];
      jacr[nv + i] = cdof[1];
      jacr[2 * nv + i] = cdof[2];
    }
    if (jacp) {
      double t[3];
      cross3(t, cdof, r);
      jacp[i] = cdof[3] + t[0];
      jacp[nv + i] = cdof[4] + t[1];
      jacp[2 * nv + i] = cdof[5] + t[2];
    }
  }
}
}  // namespace

void jac(const Model& m, const Data& d, double* jacp, double* jacr, const double point[3], int body) {
  internal::check_data(m, d, "jac");
  internal::check_id("jac", "body", body, m.nbody);
  internal::check_ptr(point, "jac", "point");
  jac_unchecked(m, d, jacp, jacr, point, body);
}

void jac_body(const Model& m, const Data& d, double* jacp, double* jacr, int body) {
  internal::check_data(m, d, "jac_body");
  internal::check_id("jac_body", "body", body, m.nbody);
  jac_unchecked(m, d, jacp, jacr, &d.xpos[3 * body], body);
}
void jac_body_com(const Model& m, const Data& d, double* jacp, double* jacr, int body) {
  internal::check_data(m, d, "jac_body_com");
  internal::check_id("jac_body_com", "body", body, m.nbody);
  jac_unchecked(m, d, jacp, jacr, &d.xipos[3 * body], body);
}
void jac_geom(const Model& m, const Data& d, double* jacp, double* jacr, int geom) {
  internal::check_data(m, d, "jac_geom");
  internal::check_id("jac_geom", "geom", geom, m.ngeom);
  jac_unchecked(m, d, jacp, jacr, &d.geom_xpos[3 * geom], m.geom_bodyid[geom]);
}
void jac_site(const Model& m, const Data& d, double* jacp, double* jacr, int site) {
  internal::check_data(m, d, "jac_site");
  internal::check_id("jac_site", "site", site, m.nsite);
  jac_unchecked(m, d, jacp, jacr, &d.site_xpos[3 * site], m.site_bodyid[site]);
}

namespace internal {

// J' [f; t] = sum over chain dofs of <cdof_i, F>, F the spatial force of (f, t) about the origin:
// jacp_i . f + jacr_i . t = (v_i + w_i x r) . f + w_i . t = v_i . f + w_i . (r x f + t).
void apply_ft(const Model& m, const Data& d, const double* force, const double* torque,
              const double* point, int body, double* qfrc) {
  double F[6];
  force_at_origin(F, force, torque, point, &d.subtree_com[3 * m.body_rootid[body]]);
  for (int i = last_dof(m, body); i >= 0; i = m.dof_parentid[i]) qfrc[i] += dot6(&d.cdof[6 * i], F);
}

void xfrc_accumulate(const Model& m, const Data& d, double* qfrc) {
  for (int b = 1; b < m.nbody; ++b) {
    const double* x = &d.xfrc_applied[6 * b];
    if (x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] == 0 && x[4] == 0 && x[5] == 0) continue;
    internal::apply_ft(m, d, x, x + 3, &d.xipos[3 * b], b, qfrc);
  }
}

}  // namespace internal
}  // namespace moreau

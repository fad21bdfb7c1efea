// Spatial tendons (computation chapter, "Tendons"; MJCF <spatial>): the shortest path through a
// sequence of sites, wrapping around spheres and cylinders placed between two sites. A pulley
// starts a new branch; the lengths of the branches after it are divided by its divisor.
//
// The moment arms follow from the envelope theorem: moving the tangent points along the obstacle's
// surface does not change the length to first order, so dL/dq only has the straight segments'
// terms, u' (J(p_end) - J(p_start)), with each tangent point moving with the obstacle's body.
#include <cmath>

#include "kinematics/jacobian.h"
#include "math/spatial.h"
#include "math/vec.h"
#include "moreau/moreau.h"
#include "tendon/tendon.h"
#include "tendon/wrap.h"

namespace moreau::tendon_detail {

using namespace math;

void add_segment_jacobian(const Model& m, const Data& d, const double p0[3], int b0,
                          const double p1[3], int b1, double scale, double* J, Span* span) {
  if (b0 == b1) return;  // both ends move together: the segment length is constant
  double u[3];
  sub3(u, p1, p0);
  const double len = norm3(u);
  if (len < kMinVal) return;
  scl3(u, u, scale / len);
  // J += u' (J_b1(p1) - J_b0(p0)). A dof that moves both ends (a common ancestor of the two chains)
  // moves the segment rigidly and adds nothing, so only the dofs of one chain and not the other are
  // visited: each chain is walked from its last dof towards the root (dof_parentid < dof) until the
  // walks meet. Per dof, u' J(p) = cdof . [(p - c) x u; u], c the com of the chain's root subtree.
  double F0[6], F1[6];
  const double zero[3] = {0, 0, 0};
  force_at_origin(F1, u, zero, p1, &d.subtree_com[3 * m.body_rootid[b1]]);
  force_at_origin(F0, u, zero, p0, &d.subtree_com[3 * m.body_rootid[b0]]);
  int i0 = internal::last_dof(m, b0), i1 = internal::last_dof(m, b1);
  while (i0 != i1) {
    if (i1 > i0) {
      J[i1] += dot6(&d.cdof[6 * i1], F1);
      span->add(i1);
      i1 = m.dof_parentid[i1];
    } else {
      J[i0] -= dot6(&d.cdof[6 * i0], F0);
      span->add(i0);
      i0 = m.dof_parentid[i0];
    }
  }
}

namespace {
inline void record(Data& d, int adr, const double* x, int obj) {
  d.wrap_obj[adr] = obj;
  if (x) copy3(&d.wrap_xpos[3 * adr], x);
  else zero3(&d.wrap_xpos[3 * adr]);
}
}  // namespace

double spatial_tendon(const Model& m, Data& d, int t, double* J, Span* span, int wrapcount, int* wrapnum) {
  const int adr = m.tendon_adr[t], end = adr + m.tendon_num[t];
  double length = 0, divisor = 1;
  int n = 0;
  bool site_recorded = false;  // the site at w was recorded as the end of the previous segment
  for (int w = adr; w < end;) {
    if (m.wrap_type[w] == kWrapPulley) {
      divisor = m.wrap_prm[w];
      record(d, wrapcount + n++, nullptr, -2);
      site_recorded = false;
      ++w;
      continue;
    }
    // w is a site: the start of a segment (or the end of a branch).
    const int s0 = m.wrap_objid[w];
    const double* x0 = &d.site_xpos[3 * s0];
    const int b0 = m.site_bodyid[s0];
    if (!site_recorded) record(d, wrapcount + n++, x0, -1);
    if (w + 1 >= end || m.wrap_type[w + 1] == kWrapPulley) {
      site_recorded = false;
      ++w;
      continue;
    }
    const double inv = 1.0 / divisor;
    if (m.wrap_type[w + 1] == kWrapSite) {
      const int s1 = m.wrap_objid[w + 1];
      const double* x1 = &d.site_xpos[3 * s1];
      double dx[3];
      sub3(dx, x1, x0);
      length += norm3(dx) * inv;
      add_segment_jacobian(m, d, x0, b0, x1, m.site_bodyid[s1], inv, J, span);
      record(d, wrapcount + n++, x1, -1);
      site_recorded = true;
      ++w;
      continue;
    }
    // Site, wrapping geom (sphere or cylinder), site.
    const int g = m.wrap_objid[w + 1];
    const int sidesite = static_cast<int>(m.wrap_prm[w + 1]);
    const int s1 = m.wrap_objid[w + 2];
    const double* x1 = &d.site_xpos[3 * s1];
    const int b1 = m.site_bodyid[s1];
    double t0[3], t1[3];
    const double wlen =
        wrap(x0, x1, &d.geom_xpos[3 * g], &d.geom_xmat[9 * g], m.geom_size[3 * g],
             m.geom_type[g] == kGeomCylinder, sidesite >= 0 ? &d.site_xpos[3 * sidesite] : nullptr, t0, t1);
    double dx[3];
    if (wlen < 0) {
      sub3(dx, x1, x0);
      length += norm3(dx) * inv;
      add_segment_jacobian(m, d, x0, b0, x1, b1, inv, J, span);
    } else {
      const int bg = m.geom_bodyid[g];
      sub3(dx, t0, x0);
      double l = norm3(dx);
      sub3(dx, x1, t1);
      l += wlen + norm3(dx);
      length += l * inv;
      add_segment_jacobian(m, d, x0, b0, t0, bg, inv, J, span);
      add_segment_jacobian(m, d, t1, bg, x1, b1, inv, J, span);
      record(d, wrapcount + n++, t0, g);
      record(d, wrapcount + n++, t1, g);
    }
    record(d, wrapcount + n++, x1, -1);
    site_recorded = true;
    w += 2;
  }
  *wrapnum = n;
  return length;
}

}  // namespace moreau::tendon_detail

// Plane against a mesh (its convex hull): several contacts, at hull vertices within the margin.
//
// As 2.2.2 (measured on 2.2.2 as a black box; docs/notes/convex_mpr.md): the first contact is the
// hull vertex deepest below the plane (hill climbing on the hull graph from vertex 0); up to two
// more are taken from that vertex's neighbours in the graph, in their order, when within the margin
// and farther than 0.3 rbound from the FIRST contact's position (the midpoint between the deepest
// vertex and the plane; not the vertex itself, and not the other contacts taken). Each contact lies
// midway between its vertex and the plane, with the plane's normal.
#include <cmath>

#include "collision/hull.h"
#include "collision/narrowphase.h"

namespace moreau::col {

int plane_mesh(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const double* ppos = &d.geom_xpos[3 * g1];
  const double* pmat = &d.geom_xmat[9 * g1];
  const double n[3] = {pmat[2], pmat[5], pmat[8]};
  const double* mpos = &d.geom_xpos[3 * g2];
  const double* mmat = &d.geom_xmat[9 * g2];
  const int id = m.geom_dataid[g2];
  const float* vert = &m.mesh_vert[3 * static_cast<size_t>(m.mesh_vertadr[id])];
  const int adr = m.mesh_graphadr[id];
  const int nhull = adr >= 0 ? m.mesh_graph[adr] : m.mesh_vertnum[id];
  const int* edgeadr = adr >= 0 ? &m.mesh_graph[adr + 2] : nullptr;
  const int* globalid = adr >= 0 ? &m.mesh_graph[adr + 2 + nhull] : nullptr;
  const int* edges = adr >= 0 ? &m.mesh_graph[adr + 2 + 2 * nhull] : nullptr;
  auto world = [&](int g, double* w) {
    const float* v = vert + 3 * g;
    const double vl[3] = {v[0], v[1], v[2]};
    math::mulmatvec3(w, mmat, vl);
    math::add3(w, w, mpos);
  };
  // distance to the plane of mesh vertex g: n.(R v + p - p0) = (R'n).v + n.(p - p0)
  double nl[3], t[3];
  math::mulmatTvec3(nl, mmat, n);
  math::sub3(t, mpos, ppos);
  const double offset = math::dot3(n, t);
  auto vdist = [&](int g) {
    const float* v = vert + 3 * g;
    return nl[0] * v[0] + nl[1] * v[1] + nl[2] * v[2] + offset;
  };
  // deepest vertex: hill climbing down the hull graph from vertex 0 (as the support function; here
  // from the start table's vertex, with the same answer: hull.h), or the first minimum over all
  // vertices without a graph
  int best = 0;
  const Hull h = mesh_hull(m, d, id);
  if (h.vert) {
    // caps (hull.h) where the offset's rounding is negligible beside their tolerance
    const double l[3] = {-nl[0], -nl[1], -nl[2]};
    const bool caps = std::fabs(offset) <= 10 * m.geom_rbound[g2];
    best = hull_support(
        h, caps ? l : nullptr,
        [&](int i) {  // -vdist, exactly
          const double* v = h.vert + 3 * i;
          return -(nl[0] * v[0] + nl[1] * v[1] + nl[2] * v[2] + offset);
        },
        [&](int i) {
          const double* v = h.vert + 3 * i;
          return std::fabs(nl[0] * v[0]) + std::fabs(nl[1] * v[1]) + std::fabs(nl[2] * v[2]) + std::fabs(offset);
        },
        h.start[hull_cell(l)]);
  } else if (globalid) {
    double bd = vdist(globalid[0]);
    for (bool moved = true; moved;) {
      moved = false;
      for (const int* e = edges + edgeadr[best]; *e >= 0; ++e) {
        const double dd = vdist(globalid[*e]);
        if (dd < bd) {
          bd = dd;
          best = *e;
          moved = true;
        }
      }
    }
  } else {
    double bd = 1e300;
    for (int i = 0; i < nhull; ++i) {
      const double dd = vdist(i);
      if (dd < bd) {
        bd = dd;
        best = i;
      }
    }
  }
  int cnt = 0;
  auto add = [&](int g) {
    double w[3], pos[3], r[3];
    world(g, w);
    math::sub3(r, w, ppos);
    const double dd = math::dot3(n, r);
    math::copy3(pos, w);
    math::addscl3(pos, n, -0.5 * dd);
    set_point(out[cnt], dd, pos, n);
    ++cnt;
  };
  if (vdist(globalid ? globalid[best] : best) > margin) return 0;
  add(globalid ? globalid[best] : best);
  if (!edges) return cnt;
  const double tol = 0.3 * m.geom_rbound[g2];
  for (int e = edgeadr[best]; edges[e] >= 0 && cnt < 3; ++e) {
    const int g = globalid[edges[e]];
    if (vdist(g) > margin) continue;
    double w[3], dv[3];
    world(g, w);
    math::sub3(dv, w, out[0].pos);  // from the first contact's position, as 2.2.2
    if (math::norm3(dv) > tol) add(g);
  }
  return cnt;
}

}  // namespace moreau::col

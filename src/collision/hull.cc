// Start tables and double-precision vertices of the mesh hulls (hull.h).
#include "collision/hull.h"

#include <algorithm>

namespace moreau::col {

Hull mesh_hull(const Model& m, const Data& d, int id) {
  Hull h;
  const int adr = m.mesh_graphadr[id];
  if (adr < 0) return h;
  const int* graph = &m.mesh_graph[adr];
  h.nhull = graph[0];
  h.edgeadr = graph + 2;
  h.globalid = graph + 2 + h.nhull;
  h.edges = graph + 2 + 2 * h.nhull;
  if (d.work.col_hull_adr.size() == static_cast<size_t>(m.nmesh) && d.work.col_hull_adr[id] >= 0) {
    h.vert = &d.work.col_hull[3 * static_cast<size_t>(d.work.col_hull_adr[id])];
    h.start = &d.work.col_hull_start[static_cast<size_t>(kHullCells) * id];
  }
  return h;
}

void hull_build(const Model& m, Data& d) {
  d.work.col_hull_adr.assign(m.nmesh, -1);
  d.work.col_hull.clear();
  d.work.col_hull_start.assign(static_cast<size_t>(kHullCells) * m.nmesh, 0);
  for (int id = 0; id < m.nmesh; ++id) {
    const int adr = m.mesh_graphadr[id];
    if (adr < 0) continue;
    const int nhull = m.mesh_graph[adr];
    const int* globalid = &m.mesh_graph[adr + 2 + nhull];
    const float* vert = &m.mesh_vert[3 * static_cast<size_t>(m.mesh_vertadr[id])];
    d.work.col_hull_adr[id] = static_cast<int>(d.work.col_hull.size() / 3);
    for (int i = 0; i < nhull; ++i)
      for (int k = 0; k < 3; ++k) d.work.col_hull.push_back(vert[3 * globalid[i] + k]);
  }
  // start vertex of each cell: the hull vertex of largest c.v for the cell's centre direction c
  for (int id = 0; id < m.nmesh; ++id) {
    if (d.work.col_hull_adr[id] < 0) continue;
    const int nhull = m.mesh_graph[m.mesh_graphadr[id]];
    const double* hv = &d.work.col_hull[3 * static_cast<size_t>(d.work.col_hull_adr[id])];
    int* start = &d.work.col_hull_start[static_cast<size_t>(kHullCells) * id];
    for (int face = 0; face < 6; ++face)
      for (int iu = 0; iu < kHullGrid; ++iu)
        for (int iv = 0; iv < kHullGrid; ++iv) {
          const int ax = face / 2;
          double c[3];
          c[ax] = face % 2 ? -1 : 1;
          c[(ax + 1) % 3] = -1 + (2 * iu + 1.0) / kHullGrid;
          c[(ax + 2) % 3] = -1 + (2 * iv + 1.0) / kHullGrid;
          int best = 0;
          double bd = -HUGE_VAL;
          for (int i = 0; i < nhull; ++i) {
            const double dd = c[0] * hv[3 * i] + c[1] * hv[3 * i + 1] + c[2] * hv[3 * i + 2];
            if (dd > bd) {
              bd = dd;
              best = i;
            }
          }
          start[(face * kHullGrid + iu) * kHullGrid + iv] = best;
        }
  }
}

}  // namespace moreau::col

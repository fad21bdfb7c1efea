// Start tables and double-precision vertices of the mesh hulls (hull.h).
#include "collision/hull.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace moreau::col {
namespace {

// The cap of hull vertex v (hull.h): c = the negated mean of the unit edge directions w_i to its
// neighbours; beta = the least of theta_i - 90 deg - gamma_i over the neighbours, where theta_i is
// the angle between c and w_i and gamma_i the angle by which l must stay inside the plane normal to
// w_i so that l.(u_i - v) < -2 kHullTieTol |v|_1 |l| (twice the climb's tie tolerance, whose scale
// sum_k |v_k l_k| is at most |v|_1 |l|), less 1e-6 rad for the rounding of the test. No cap (cos = 2) for
// vertices of fewer than kHullCapDegree neighbours or where beta <= 0.
void hull_cap(const double* hv, const int* edgeadr, const int* edges, int v, double* cap) {
  cap[0] = cap[1] = cap[2] = 0;
  cap[3] = 2;
  const double* p = hv + 3 * v;
  const int* list = edges + edgeadr[v];
  int deg = 0;
  while (list[deg] >= 0) ++deg;
  if (deg < kHullCapDegree) return;
  double c[3] = {0, 0, 0};
  for (int i = 0; i < deg; ++i) {
    const double* u = hv + 3 * list[i];
    const double w[3] = {u[0] - p[0], u[1] - p[1], u[2] - p[2]};
    const double n = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (!(n > 0)) return;
    for (int k = 0; k < 3; ++k) c[k] -= w[k] / n;
  }
  const double cn = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  if (!(cn > 0)) return;
  for (double& x : c) x /= cn;
  const double p1 = std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2]);
  double beta = HUGE_VAL;
  for (int i = 0; i < deg; ++i) {
    const double* u = hv + 3 * list[i];
    const double w[3] = {u[0] - p[0], u[1] - p[1], u[2] - p[2]};
    const double n = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double theta = std::acos(std::clamp((c[0] * w[0] + c[1] * w[1] + c[2] * w[2]) / n, -1.0, 1.0));
    const double gamma = std::asin(std::min(1.0, 2 * kHullTieTol * p1 / n));
    beta = std::min(beta, theta - 0.5 * std::numbers::pi - gamma);
  }
  beta -= 1e-6;
  if (!(beta > 0)) return;
  for (int k = 0; k < 3; ++k) cap[k] = c[k];
  cap[3] = std::cos(beta);
}

}  // namespace

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
    h.vert = &d.work.col_hull[d.work.col_hull_adr[id]];
    h.cap = h.vert + 3 * h.nhull;
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
    d.work.col_hull_adr[id] = static_cast<int>(d.work.col_hull.size());
    for (int i = 0; i < nhull; ++i)
      for (int k = 0; k < 3; ++k) d.work.col_hull.push_back(vert[3 * globalid[i] + k]);
    const size_t capadr = d.work.col_hull.size();
    d.work.col_hull.resize(capadr + 4 * static_cast<size_t>(nhull));
    const double* hv = &d.work.col_hull[d.work.col_hull_adr[id]];
    for (int i = 0; i < nhull; ++i)
      hull_cap(hv, &m.mesh_graph[adr + 2], &m.mesh_graph[adr + 2 + 2 * nhull], i, &d.work.col_hull[capadr + 4 * i]);
  }
  // start vertex of each cell: the hull vertex of largest c.v for the cell's centre direction c
  for (int id = 0; id < m.nmesh; ++id) {
    if (d.work.col_hull_adr[id] < 0) continue;
    const int nhull = m.mesh_graph[m.mesh_graphadr[id]];
    const double* hv = &d.work.col_hull[d.work.col_hull_adr[id]];
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

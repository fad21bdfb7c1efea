// Support-vertex search on a mesh's convex hull (the hull graph of Model::mesh_graph), shared by MPR's
// support function (convex.cc) and the plane-mesh contacts (collide_mesh.cc).
//
// 2.2.2 finds the hull vertex of largest l.v by hill climbing on the hull graph from hull vertex 0:
// it moves to the best strictly better neighbour until none improves. The climb here returns the
// same vertex from a start near the answer: the support vertex of the nearest of kHullCells fixed
// directions (a table per mesh, built by collision_reserve), or the previous answer of the same MPR
// run. On a convex hull a vertex that no neighbour improves is the global maximum, which the climb
// from vertex 0 reaches too, unless a neighbour ties with it: then the path decides, and the climb
// is redone from vertex 0. A near tie counts as a tie (within kHullTieTol relative): it covers the
// rounding of the dot products and the hull's own departures from convexity (single-precision
// vertices, qhull's merged facets), where the climb from vertex 0 can stop on a vertex that is
// 1 ulp below the maximum.
//
// A vertex of many neighbours (a cone's apex, the centre of a fan-triangulated face) would cost a
// scan of all of them each time the climb stands on it. Such a vertex carries a cap: a cone of
// directions c.l >= |l| cos(beta) inside its normal cone, far enough inside that every neighbour is
// below it by more than the tie tolerance; for a direction in the cap the vertex is the answer
// without a scan.
#pragma once

#include <cmath>

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::col {

// Cells of the start table: the cube's six faces split into kHullGrid x kHullGrid cells each.
inline constexpr int kHullGrid = 4;
inline constexpr int kHullCells = 6 * kHullGrid * kHullGrid;
inline constexpr double kHullTieTol = 1e-6;
// Vertices with at least this many neighbours get a cap.
inline constexpr int kHullCapDegree = 16;

// A mesh's hull for the climb: vertices in double precision in hull order (3 per vertex, exact
// copies of the single-precision ones), the graph's adjacency and the start table.
struct Hull {
  const double* vert = nullptr;  // 3 * nhull; null without tables (then vertex 0 starts every climb)
  const int* edgeadr = nullptr;  // nhull: first neighbour of each vertex in edges
  const int* edges = nullptr;    // neighbours (hull ids), each list ending with -1
  const int* globalid = nullptr; // nhull: mesh vertex id of each hull vertex
  const int* start = nullptr;    // kHullCells: a start vertex per direction cell
  const double* cap = nullptr;   // 4 * nhull: per vertex c (unit) and cos(beta); cos(beta) = 2: none
  int nhull = 0;
};

// The hull of mesh `id` with d's tables (vert and start null where d has none); nhull = 0 when the
// mesh has no hull graph.
Hull mesh_hull(const Model& m, const Data& d, int id);

// Builds the tables of every mesh with a hull graph into d (collision_reserve calls it).
void hull_build(const Model& m, Data& d);

// The start-table cell of direction l (any cell for a zero or non-finite l).
inline int hull_cell(const double* l) {
  const double a0 = std::fabs(l[0]), a1 = std::fabs(l[1]), a2 = std::fabs(l[2]);
  const int ax = a0 >= a1 ? (a0 >= a2 ? 0 : 2) : (a1 >= a2 ? 1 : 2);
  const double a = ax == 0 ? a0 : (ax == 1 ? a1 : a2);
  if (!(a > 0)) return 0;
  const double s = 0.5 * kHullGrid / a;
  auto bin = [&](double x) {
    const double f = (x + a) * s;
    return f > 0 ? (f < kHullGrid ? static_cast<int>(f) : kHullGrid - 1) : 0;
  };
  const int face = 2 * ax + (l[ax] < 0 ? 1 : 0);
  return (face * kHullGrid + bin(l[(ax + 1) % 3])) * kHullGrid + bin(l[(ax + 2) % 3]);
}

// Climb from hull vertex `cur` on value(i) (i: a hull vertex id), maximizing; returns the vertex
// reached, its value in *best and its best neighbour's value in *next (-HUGE_VAL where a cap
// decided). l: the direction value(i) grows along (value(i) = l.v plus a constant), for the caps;
// null: no caps.
template <typename F>
int hull_climb(const Hull& h, const double* l, F value, int cur, double* best, double* next) {
  double b = value(cur);
  const bool caps = l && h.cap;
  const double ll = caps ? l[0] * l[0] + l[1] * l[1] + l[2] * l[2] : 0;
  for (;;) {
    if (caps) {
      const double* c = h.cap + 4 * cur;
      if (c[3] <= 1) {
        const double dc = c[0] * l[0] + c[1] * l[1] + c[2] * l[2];
        if (dc > 0 && dc * dc >= c[3] * c[3] * ll) {
          *best = b;
          *next = -HUGE_VAL;
          return cur;
        }
      }
    }
    int to = cur;
    double tb = b, mx = -HUGE_VAL;
    for (const int* e = h.edges + h.edgeadr[cur]; *e >= 0; ++e) {
      const double dd = value(*e);
      if (dd > tb) {
        tb = dd;
        to = *e;
      }
      if (dd > mx) mx = dd;
    }
    if (to == cur) {
      *best = b;
      *next = mx;
      return cur;
    }
    cur = to;
    b = tb;
  }
}

// The hull vertex 2.2.2's climb from vertex 0 reaches, climbing from `start`: value and l as above,
// scale(i) the sum of the magnitudes of the terms summed in value(i) (for the tie tolerance).
template <typename F, typename S>
int hull_support(const Hull& h, const double* l, F value, S scale, int start) {
  double best, next;
  const int v = hull_climb(h, l, value, start, &best, &next);
  if (start == 0 || next < best - kHullTieTol * scale(v)) return v;
  return hull_climb(h, nullptr, value, 0, &best, &next);
}

}  // namespace moreau::col

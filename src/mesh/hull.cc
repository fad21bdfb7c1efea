// Convex hull graph of a mesh (qhull, reentrant C API) for the collision narrow phase: the hull
// vertices with their neighbours (hill-climbing support, mesh-plane contacts) and hull faces.
#include <libqhull_r/qhull_ra.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "mesh/mesh.h"

namespace moreau::mesh {

namespace {
// Owns one qhull computation: qhT is plain state, freed on every path.
struct Qhull {
  qhT qh;
  Qhull() { qh_zero(&qh, nullptr); }
  ~Qhull() {
    qh_freeqhull(&qh, !qh_ALL);
    int curlong = 0, totlong = 0;
    qh_memfreeshort(&qh, &curlong, &totlong);
  }
};
}  // namespace

namespace {
std::vector<int> graph_of(std::vector<coordT>& pts) {
  const int nvert = static_cast<int>(pts.size() / 3);
  if (nvert < 4) throw std::runtime_error("convex hull needs at least 4 vertices");
  Qhull q;
  qhT* qh = &q.qh;
  char cmd[] = "qhull Qt";
  // qhull reports errors through errfile; a temporary sink keeps them off stderr (the message is
  // summarized in the exception).
  FILE* sink = std::tmpfile();
  const int exitcode = qh_new_qhull(qh, 3, nvert, pts.data(), False, cmd, nullptr, sink);
  if (sink) std::fclose(sink);
  if (exitcode) throw std::runtime_error("qhull could not compute the convex hull (degenerate mesh?), code " +
                                         std::to_string(exitcode));
  // vertices: local id in qhull's list order
  std::vector<int> globalid, local(nvert, -1);
  vertexT* vertex;
  FORALLvertices {
    const int g = qh_pointid(qh, vertex->point);
    local[g] = static_cast<int>(globalid.size());
    globalid.push_back(g);
  }
  // faces: qhull's facet order; a facet with toporient has its first two vertices swapped so that
  // every triangle is counter-clockwise seen from outside
  std::vector<int> faces;  // oriented
  facetT* facet;
  FORALLfacets {
    int v[3], k = 0;
    vertexT *vv, **vvp;
    FOREACHsetelement_(vertexT, facet->vertices, vv) {
      if (k < 3) v[k] = qh_pointid(qh, vv->point);
      ++k;
    }
    if (k != 3) throw std::runtime_error("qhull returned a non-triangular facet");
    if (facet->toporient) std::swap(v[0], v[1]);
    faces.insert(faces.end(), v, v + 3);
  }
  const int nv = static_cast<int>(globalid.size()), nf = static_cast<int>(faces.size() / 3);
  // neighbours of each hull vertex: the other vertices of the facets around it, in qhull's order
  // of the vertex's facet neighbours and of each facet's vertices, each once
  std::vector<std::vector<int>> nbr(nv);
  std::vector<int> seen(nv, -1);  // seen[j] == i: j is already a neighbour of i
  qh_vertexneighbors(qh);
  FORALLvertices {
    const int i = local[qh_pointid(qh, vertex->point)];
    auto& l = nbr[i];
    facetT *neighbor, **neighborp;
    FOREACHneighbor_(vertex) {
      vertexT *vv, **vvp;
      FOREACHsetelement_(vertexT, neighbor->vertices, vv) {
        if (vv == vertex) continue;
        const int lb = local[qh_pointid(qh, vv->point)];
        if (seen[lb] == i) continue;
        seen[lb] = i;
        l.push_back(lb);
      }
    }
  }
  std::vector<int> g;
  g.reserve(2 + 2 * nv + nv + 3 * nf + 3 * nf);
  g.push_back(nv);
  g.push_back(nf);
  const size_t edgeadr = g.size();
  g.resize(g.size() + nv);
  g.insert(g.end(), globalid.begin(), globalid.end());
  const int edgestart = static_cast<int>(g.size());
  for (int i = 0; i < nv; ++i) {
    g[edgeadr + i] = static_cast<int>(g.size()) - edgestart;
    g.insert(g.end(), nbr[i].begin(), nbr[i].end());
    g.push_back(-1);
  }
  g.insert(g.end(), faces.begin(), faces.end());
  return g;
}
}  // namespace

std::vector<int> hull_graph(const float* vert, int nvert) {
  std::vector<coordT> pts(vert, vert + 3 * static_cast<size_t>(std::max(nvert, 0)));
  return graph_of(pts);
}

std::vector<int> convex_hull(const std::vector<double>& vert) {
  std::vector<coordT> pts(vert.begin(), vert.end());
  const std::vector<int> g = graph_of(pts);
  const int nv = g[0], nf = g[1];
  const auto faces = g.begin() + 2 + 3 * nv + 3 * nf;
  return std::vector<int>(faces, faces + 3 * nf);
}

}  // namespace moreau::mesh

// The mesh support search (src/collision/hull.h) returns the hull vertex of MuJoCo 2.2.2's rule,
// the end of a hill climb on the hull graph from hull vertex 0, whatever vertex it starts from (the
// start table's, the previous answer, any other): checked on the bunny and the cone of the mesh pile
// (327 and 501 hull vertices, the cone's apex and base centre with hundreds of neighbours), a box
// and a prism mesh (flat faces: exact ties) and random point clouds, for random directions and for
// the directions that make ties (perpendicular to hull edges, along the axes, the faces' normals).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "collision/convex.h"
#include "collision/hull.h"
#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

// 2.2.2's rule, written out: from hull vertex 0, move to the best strictly better neighbour until
// none improves; l.v with v in single precision, summed left to right.
int cold_climb(const Model& m, int id, const double* l) {
  const int adr = m.mesh_graphadr[id];
  const int nhull = m.mesh_graph[adr];
  const int* edgeadr = &m.mesh_graph[adr + 2];
  const int* globalid = &m.mesh_graph[adr + 2 + nhull];
  const int* edges = &m.mesh_graph[adr + 2 + 2 * nhull];
  const float* vert = &m.mesh_vert[3 * static_cast<size_t>(m.mesh_vertadr[id])];
  auto dot = [&](int i) {
    const float* v = vert + 3 * globalid[i];
    return v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
  };
  int cur = 0;
  double best = dot(0);
  for (bool moved = true; moved;) {
    moved = false;
    for (const int* e = edges + edgeadr[cur]; *e >= 0; ++e) {
      const double dd = dot(*e);
      if (dd > best) {
        best = dd;
        cur = *e;
        moved = true;
      }
    }
  }
  return globalid[cur];
}

// Directions for mesh `id`: random, along the axes and diagonals, perpendicular to random hull
// edges (the two ends tie), and those turned by a few ulps.
std::vector<std::array<double, 3>> directions(const Model& m, int id, std::mt19937& rng, int n) {
  std::vector<std::array<double, 3>> out;
  std::normal_distribution<double> g(0, 1);
  for (int i = 0; i < n; ++i) out.push_back({g(rng), g(rng), g(rng)});
  for (int a = -1; a <= 1; ++a)
    for (int b = -1; b <= 1; ++b)
      for (int c = -1; c <= 1; ++c)
        if (a || b || c) out.push_back({double(a), double(b), double(c)});
  const int adr = m.mesh_graphadr[id];
  const int nhull = m.mesh_graph[adr];
  const int* edgeadr = &m.mesh_graph[adr + 2];
  const int* globalid = &m.mesh_graph[adr + 2 + nhull];
  const int* edges = &m.mesh_graph[adr + 2 + 2 * nhull];
  const float* vert = &m.mesh_vert[3 * static_cast<size_t>(m.mesh_vertadr[id])];
  std::uniform_int_distribution<int> pick(0, nhull - 1);
  for (int i = 0; i < n; ++i) {
    const int a = pick(rng);
    const int b = edges[edgeadr[a]];
    if (b < 0) continue;
    const float* p = vert + 3 * globalid[a];
    const float* q = vert + 3 * globalid[b];
    const double e[3] = {double(q[0]) - p[0], double(q[1]) - p[1], double(q[2]) - p[2]};
    const double r[3] = {g(rng), g(rng), g(rng)};
    std::array<double, 3> l = {e[1] * r[2] - e[2] * r[1], e[2] * r[0] - e[0] * r[2], e[0] * r[1] - e[1] * r[0]};
    out.push_back(l);
    for (int k = 0; k < 3; ++k) l[k] = std::nextafter(l[k], l[k] > 0 ? 1e300 : -1e300);
    out.push_back(l);
  }
  // hull faces' normals, exact and turned by a few ulps, and the axes turned by less than an ulp
  // of the coordinates: coplanar vertices then tie or differ by an ulp in the computed l.v, where
  // a climb can stop on a vertex 1 ulp below the maximum
  const int nface = m.mesh_graph[adr + 1];
  const int* faces = &m.mesh_graph[adr + 2 + 3 * nhull + 3 * nface];
  std::uniform_int_distribution<int> pickf(0, nface - 1);
  std::uniform_real_distribution<double> tiny(-1, 1);
  for (int i = 0; i < n && nface > 0; ++i) {
    const int f = pickf(rng);
    const float* a = vert + 3 * faces[3 * f];
    const float* b = vert + 3 * faces[3 * f + 1];
    const float* c = vert + 3 * faces[3 * f + 2];
    const double e1[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
    const double e2[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
    std::array<double, 3> l = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                               e1[0] * e2[1] - e1[1] * e2[0]};
    out.push_back(l);
    for (int k = 0; k < 3; ++k) l[k] *= 1 + 1e-15 * tiny(rng);
    out.push_back(l);
  }
  for (int i = 0; i < n; ++i) {
    std::array<double, 3> l = {1e-17 * tiny(rng), 1e-17 * tiny(rng), 1e-17 * tiny(rng)};
    l[i % 3] = i % 2 ? 1 : -1;
    out.push_back(l);
  }
  return out;
}

// Every mesh geom of m: convex_support (identity pose, so that the support point is the vertex
// itself) from no previous answer and from random previous answers against cold_climb.
void check_model(const Model& m, unsigned seed, int n) {
  Data d = make_data(m);
  collision(m, d);  // builds the hull tables
  std::mt19937 rng(seed);
  int meshes = 0;
  for (int g = 0; g < m.ngeom; ++g) {
    if (m.geom_type[g] != kGeomMesh) continue;
    const int id = m.geom_dataid[g];
    if (m.mesh_graphadr[id] < 0) continue;
    ++meshes;
    for (int k = 0; k < 9; ++k) d.geom_xmat[9 * g + k] = k % 4 == 0 ? 1 : 0;
    for (int k = 0; k < 3; ++k) d.geom_xpos[3 * g + k] = 0;
    col::ConvexObject o = col::convex_object(m, d, g, 0);
    ASSERT_NE(o.hull.vert, nullptr);
    const int nhull = m.mesh_graph[m.mesh_graphadr[id]];
    std::uniform_int_distribution<int> pick(-1, nhull - 1);
    int mismatches = 0;
    for (const auto& l : directions(m, id, rng, n)) {
      const int want = cold_climb(m, id, l.data());
      const float* v = &m.mesh_vert[3 * (static_cast<size_t>(m.mesh_vertadr[id]) + want)];
      for (int trial = 0; trial < 3; ++trial) {
        o.warm = trial == 0 ? -1 : pick(rng);
        double out[3];
        col::convex_support(o, l.data(), out);
        if (out[0] != v[0] || out[1] != v[1] || out[2] != v[2]) ++mismatches;
      }
    }
    EXPECT_EQ(mismatches, 0) << "mesh " << id << " (" << nhull << " hull vertices)";
  }
  EXPECT_GT(meshes, 0);
}

TEST(CollisionHull, PileMeshesGiveTheColdClimbsVertex) {
  const Model m = load_model(std::string(MOREAU_SOURCE_DIR) + "/bench/models/mesh_pile.xml");
  check_model(m, 1, 20000);
}

TEST(CollisionHull, FlatFacedAndRandomMeshesGiveTheColdClimbsVertex) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  std::string assets =
      "<mesh name=\"box\" vertex=\"-0.1 -0.2 -0.05  0.1 -0.2 -0.05  -0.1 0.2 -0.05  0.1 0.2 -0.05 "
      "-0.1 -0.2 0.05  0.1 -0.2 0.05  -0.1 0.2 0.05  0.1 0.2 0.05\"/>"
      "<mesh name=\"prism\" vertex=\"0 0 0  0.3 0 0  0 0.2 0  0 0 0.1  0.3 0 0.1  0 0.2 0.1\"/>";
  // the box and the prism turned in their files: the compiler turns them back to their principal
  // axes, leaving their faces coplanar only to single-precision rounding
  const double q[4] = {std::cos(0.35), std::sin(0.35) / std::sqrt(14.0), 2 * std::sin(0.35) / std::sqrt(14.0),
                       3 * std::sin(0.35) / std::sqrt(14.0)};
  auto turned = [&](const std::vector<double>& p) {
    std::string v;
    char buf[64];
    for (size_t i = 0; i < p.size(); i += 3) {
      // v' = v + 2 w (u x v) + 2 u x (u x v), u = q's vector part, w = q's scalar
      const double* x = &p[i];
      const double t[3] = {q[2] * x[2] - q[3] * x[1], q[3] * x[0] - q[1] * x[2], q[1] * x[1] - q[2] * x[0]};
      const double r[3] = {q[2] * t[2] - q[3] * t[1], q[3] * t[0] - q[1] * t[2], q[1] * t[1] - q[2] * t[0]};
      for (int k = 0; k < 3; ++k) {
        std::snprintf(buf, sizeof buf, "%.9g ", x[k] + 2 * q[0] * t[k] + 2 * r[k]);
        v += buf;
      }
    }
    return v;
  };
  assets += "<mesh name=\"tbox\" vertex=\"" +
            turned({-0.1, -0.2, -0.05, 0.1, -0.2, -0.05, -0.1, 0.2, -0.05, 0.1, 0.2, -0.05, -0.1, -0.2, 0.05, 0.1,
                    -0.2, 0.05, -0.1, 0.2, 0.05, 0.1, 0.2, 0.05}) +
            "\"/><mesh name=\"tprism\" vertex=\"" +
            turned({0, 0, 0, 0.3, 0, 0, 0, 0.2, 0, 0, 0, 0.1, 0.3, 0, 0.1, 0, 0.2, 0.1}) + "\"/>";
  std::string bodies =
      "<body pos=\"2 0 0\"><freejoint/><geom type=\"mesh\" mesh=\"tbox\"/></body>"
      "<body pos=\"3 0 0\"><freejoint/><geom type=\"mesh\" mesh=\"tprism\"/></body>";
  for (int i = 0; i < 6; ++i) {
    std::string v;
    for (int k = 0; k < 3 * 20; ++k) v += std::to_string(u(rng)) + " ";
    assets += "<mesh name=\"r" + std::to_string(i) + "\" vertex=\"" + v + "\"/>";
    bodies += "<body pos=\"" + std::to_string(i) + " 3 0\"><freejoint/><geom type=\"mesh\" mesh=\"r" +
              std::to_string(i) + "\"/></body>";
  }
  const std::string xml = "<mujoco><asset>" + assets +
                          "</asset><worldbody>"
                          "<body><freejoint/><geom type=\"mesh\" mesh=\"box\"/></body>"
                          "<body pos=\"1 0 0\"><freejoint/><geom type=\"mesh\" mesh=\"prism\"/></body>" +
                          bodies + "</worldbody></mujoco>";
  check_model(load_model_from_string(xml), 3, 5000);
}

}  // namespace
}  // namespace moreau

// The broad phase (src/collision/broadphase.cc) against a brute-force oracle: every body pair whose
// boxes (the bounding spheres of its collidable geoms, grown by their margins) overlap, or where a
// floor plane comes within its margin (plus the hard-contact band) of the other body's box, with
// compatible contype/conaffinity and not filtered, in increasing order. And the property the narrow
// phase relies on: every geom pair that passes its bounding test (driver.cc) belongs to a candidate
// body pair. Scenes with few bodies take the all-pairs path, scenes with many the sweep and prune;
// both run with a soft and a hard-contact solver (the band).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "collision/broadphase.h"
#include "collision/filter.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

// n free bodies of one or two spheres (some with contype 2 / conaffinity 2, one pair excluded),
// a chain of two hinged children under body 1 (parent filter) and a floor plane.
std::string scene(int n) {
  std::string xml = "<mujoco><worldbody><geom type='plane' size='5 5 .1'/>";
  for (int i = 0; i < n; ++i) {
    const std::string id = std::to_string(i);
    xml += "<body name='b" + id + "'><freejoint/><geom size='.1' margin='" + (i % 3 == 0 ? "0.05" : "0") + "'" +
           (i % 5 == 0 ? " contype='2' conaffinity='2'" : "") + "/>";
    if (i % 2) xml += "<geom size='.05' pos='.12 0 0'/>";
    if (i == 1) xml += "<body><joint type='hinge'/><geom size='.1' pos='0 0 .15'/><body><joint type='hinge'/><geom size='.1' pos='0 0 .3'/></body></body>";
    xml += "</body>";
  }
  xml += "</worldbody><contact><exclude body1='b2' body2='b3'/></contact></mujoco>";
  return xml;
}

// The world body holds the scene's only plane (a horizontal floor at z = 0, geom 0); the other
// bodies hold spheres.
std::vector<int> oracle(const Model& m, const Data& d) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double band = contact_band(m.opt.solver);
  std::vector<double> box(6 * m.nbody);
  std::vector<int> ct(m.nbody, 0), ca(m.nbody, 0);
  for (int b = 0; b < m.nbody; ++b) {
    double* bx = &box[6 * b];
    for (int k = 0; k < 3; ++k) bx[k] = kInf, bx[3 + k] = -kInf;
    for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g) {
      if (!m.geom_contype[g] && !m.geom_conaffinity[g]) continue;
      ct[b] |= m.geom_contype[g];
      ca[b] |= m.geom_conaffinity[g];
      if (m.geom_type[g] == kGeomPlane) continue;
      const double r = m.geom_rbound[g] + m.geom_margin[g];
      for (int k = 0; k < 3; ++k) {
        bx[k] = std::min(bx[k], d.geom_xpos[3 * g + k] - r);
        bx[3 + k] = std::max(bx[3 + k], d.geom_xpos[3 * g + k] + r);
      }
    }
  }
  std::vector<int> out;
  for (int b1 = 0; b1 < m.nbody; ++b1)
    for (int b2 = b1 + 1; b2 < m.nbody; ++b2) {
      if (!(ct[b1] | ca[b1]) || !(ct[b2] | ca[b2])) continue;
      bool overlap;
      if (b1 == 0) {  // the floor: the lowest point of the box within the floor's margin + band
        overlap = box[6 * b2 + 2] <= m.geom_margin[0] + band;
      } else {
        overlap = true;
        for (int k = 0; k < 3; ++k)
          overlap = overlap && box[6 * b1 + k] <= box[6 * b2 + 3 + k] && box[6 * b2 + k] <= box[6 * b1 + 3 + k];
      }
      if (!overlap || !col::compatible(ct[b1], ca[b1], ct[b2], ca[b2]) || col::body_pair_filtered(m, b1, b2))
        continue;
      out.push_back((b1 << 16) + b2);
    }
  return out;
}

// The narrow phase's bounding test of geoms g1 < g2 (driver.cc: spheres, or the plane's signed
// distance; margin the larger geom margin plus the band), for the spheres and the floor here.
bool geoms_may_touch(const Model& m, const Data& d, int g1, int g2) {
  const double margin = std::max(m.geom_margin[g1], m.geom_margin[g2]) + contact_band(m.opt.solver);
  const double* p1 = &d.geom_xpos[3 * g1];
  const double* p2 = &d.geom_xpos[3 * g2];
  if (m.geom_type[g1] == kGeomPlane) return p2[2] - p1[2] <= m.geom_rbound[g2] + margin;
  const double dx = p2[0] - p1[0], dy = p2[1] - p1[1], dz = p2[2] - p1[2];
  const double lim = m.geom_rbound[g1] + m.geom_rbound[g2] + margin;
  return dx * dx + dy * dy + dz * dz <= lim * lim;
}

void check(int n, double spread, unsigned seed, int solver) {
  Model m = load_model_from_string(scene(n));
  m.opt.solver = solver;
  Data d = make_data(m);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-spread, spread);
  int total = 0, states = 0, floor_touches = 0, floor_kept = 0;
  for (int s = 0; s < 20; ++s) {
    for (int j = 0; j < m.njnt; ++j) {
      const int q = m.jnt_qposadr[j];
      if (m.jnt_type[j] == kJointFree) {
        d.qpos[q] = u(rng), d.qpos[q + 1] = u(rng), d.qpos[q + 2] = 0.1 + std::fabs(u(rng));
      } else {
        d.qpos[q] = u(rng);
      }
    }
    fwd_position(m, d);
    int np = 0;
    const int* pairs = col::broadphase(m, d, &np);
    const std::vector<int> got(pairs, pairs + np), want = oracle(m, d);
    EXPECT_EQ(got, want) << n << " bodies, state " << s;
    total += np;
    states += np > 0;
    for (int g1 = 0; g1 < m.ngeom; ++g1)
      for (int g2 = g1 + 1; g2 < m.ngeom; ++g2) {
        const int b1 = m.geom_bodyid[g1], b2 = m.geom_bodyid[g2];
        if (b1 == b2 || col::body_pair_filtered(m, b1, b2) ||
            !col::compatible(m.geom_contype[g1], m.geom_conaffinity[g1], m.geom_contype[g2], m.geom_conaffinity[g2]) ||
            !geoms_may_touch(m, d, g1, g2))
          continue;
        floor_touches += b1 == 0;
        EXPECT_TRUE(std::binary_search(got.begin(), got.end(), (b1 << 16) + b2))
            << "geoms " << g1 << ", " << g2 << " may touch; state " << s;
      }
    for (int k = 0; k < np; ++k) floor_kept += (got[k] >> 16) == 0;
  }
  const int floor_dropped = 20 * (m.nbody - 1) - floor_kept;  // body pairs with the floor left out
  EXPECT_GT(states, 10) << "the scenes must have candidate pairs";
  EXPECT_GT(floor_touches, 0) << "some bodies must reach the floor";
  EXPECT_GT(floor_dropped, 0) << "some bodies must be too high for the floor";
  std::printf("%d free bodies (spread %.2f): %d candidate pairs over 20 states, %d floor pairs left out\n", n,
              spread, total, floor_dropped);
}

TEST(CollisionBroadphase, FewBodiesEveryPairMatchesOracle) {
  check(12, 0.6, 1, kSolverNewton);
  check(12, 0.6, 3, kSolverRaisim);
}

TEST(CollisionBroadphase, ManyBodiesSweepMatchesOracle) {
  check(80, 2.0, 2, kSolverNewton);
  check(80, 2.0, 4, kSolverRaisim);
}

}  // namespace
}  // namespace moreau

// The broad phase (src/collision/broadphase.cc) against a brute-force oracle: every body pair whose
// boxes (the bounding spheres of its collidable geoms, grown by their margins; a plane makes the box
// unbounded) overlap, with compatible contype/conaffinity and not filtered, in increasing order.
// Scenes with few bodies take the all-pairs path, scenes with many the sweep and prune.
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

std::vector<int> oracle(const Model& m, const Data& d) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> box(6 * m.nbody);
  std::vector<int> ct(m.nbody, 0), ca(m.nbody, 0);
  for (int b = 0; b < m.nbody; ++b) {
    double* bx = &box[6 * b];
    for (int k = 0; k < 3; ++k) bx[k] = kInf, bx[3 + k] = -kInf;
    for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g) {
      if (!m.geom_contype[g] && !m.geom_conaffinity[g]) continue;
      ct[b] |= m.geom_contype[g];
      ca[b] |= m.geom_conaffinity[g];
      const double r = m.geom_rbound[g] > 0 ? m.geom_rbound[g] + m.geom_margin[g] : kInf;
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
      bool overlap = true;
      for (int k = 0; k < 3; ++k)
        overlap = overlap && box[6 * b1 + k] <= box[6 * b2 + 3 + k] && box[6 * b2 + k] <= box[6 * b1 + 3 + k];
      if (!overlap || !col::compatible(ct[b1], ca[b1], ct[b2], ca[b2]) || col::body_pair_filtered(m, b1, b2))
        continue;
      out.push_back((b1 << 16) + b2);
    }
  return out;
}

void check(int n, double spread, unsigned seed) {
  const Model m = load_model_from_string(scene(n));
  Data d = make_data(m);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-spread, spread);
  int total = 0, states = 0;
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
  }
  EXPECT_GT(states, 10) << "the scenes must have candidate pairs";
  std::printf("%d free bodies (spread %.2f): %d candidate pairs over 20 states\n", n, spread, total);
}

TEST(CollisionBroadphase, FewBodiesEveryPairMatchesOracle) { check(12, 0.6, 1); }

TEST(CollisionBroadphase, ManyBodiesSweepMatchesOracle) { check(80, 2.0, 2); }

}  // namespace
}  // namespace moreau

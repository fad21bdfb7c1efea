// Height field against primitives: hfield_convex returns early when the geom's bounding sphere lies
// above the field's highest prism top (d.work.col_hfield_top). The early return only skips geoms
// whose prisms would all be skipped: collision() gives the same contacts, bit for bit and in the
// same order, as with the early return disabled (tops set to +inf).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

TEST(CollisionHFieldCull, SameContactsAsWithoutTheTop) {
  std::string xml =
      "<mujoco><asset><hfield name=\"h\" nrow=\"5\" ncol=\"6\" size=\"1 .8 .3 .05\" elevation=\""
      "0 .2 .5 .1 0 .3  .4 0 .8 .2 .6 0  1 .3 0 .5 .1 .2  0 .7 .2 0 .9 .4  .3 0 .6 .2 0 .1\"/></asset>"
      "<worldbody><geom type=\"hfield\" hfield=\"h\" pos=\"0 0 -.1\" euler=\"5 -3 10\"/>";
  const char* types[] = {"sphere", "capsule", "ellipsoid", "cylinder", "box"};
  for (int b = 0; b < 10; ++b) {
    char buf[300];
    snprintf(buf, sizeof buf, "<body><freejoint/><geom type=\"%s\" size=\".06 .05 .04\" margin=\"%.2f\"/></body>",
             types[b % 5], b % 3 ? 0.0 : 0.03);
    xml += buf;
  }
  xml += "</worldbody></mujoco>";
  const Model m = load_model_from_string(xml);
  Data with = make_data(m), without = make_data(m);
  ASSERT_EQ(with.work.col_hfield_top.size(), 1u);
  EXPECT_EQ(with.work.col_hfield_top[0], 1.0f * 0.3);  // the highest elevation times size_z
  without.work.col_hfield_top.assign(1, std::numeric_limits<double>::infinity());
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  int ncon = 0, nfar = 0;
  for (int s = 0; s < 300; ++s) {
    for (int j = 0; j < m.njnt; ++j) {
      double* q = &with.qpos[m.jnt_qposadr[j]];
      q[0] = 0.9 * u(rng);
      q[1] = 0.7 * u(rng);
      q[2] = 0.15 + 0.25 * u(rng);  // around the field's top (0.2 above its frame, tilted)
      double quat[4] = {u(rng), u(rng), u(rng), u(rng)};
      const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
      for (int k = 0; k < 4; ++k) q[3 + k] = quat[k] / n;
      nfar += q[2] > 0.3;
    }
    without.qpos = with.qpos;
    forward(m, with);
    forward(m, without);
    ASSERT_EQ(with.ncon, without.ncon) << "state " << s;
    for (int i = 0; i < with.ncon; ++i) {
      const Contact& x = with.contact[i];
      const Contact& y = without.contact[i];
      EXPECT_EQ(x.geom1, y.geom1) << "state " << s << " contact " << i;
      EXPECT_EQ(x.geom2, y.geom2) << "state " << s << " contact " << i;
      EXPECT_EQ(x.dist, y.dist) << "state " << s << " contact " << i;
      EXPECT_EQ(0, std::memcmp(x.pos, y.pos, sizeof x.pos)) << "state " << s << " contact " << i;
      EXPECT_EQ(0, std::memcmp(x.frame, y.frame, sizeof x.frame)) << "state " << s << " contact " << i;
    }
    ncon += with.ncon;
  }
  EXPECT_GT(ncon, 200);  // states in contact with the field
  EXPECT_GT(nfar, 100);  // and geoms well above its top, where the early return applies
}

}  // namespace
}  // namespace moreau

// Collision driver on small hand-built models: filters (same body, weld, parent, filterparent flag,
// contype/conaffinity, exclude, bounding sphere), explicit pairs, mixing rules, override, flags,
// ordering, capacity overflow.
#include <gtest/gtest.h>

#include "unit/collision_helpers.h"

namespace moreau {
namespace {

using coltest::Scene;

// Two overlapping spheres in bodies 1 and 2.
Scene two_spheres() {
  Scene s;
  s.add(kGeomSphere, {0.5}, {0, 0, 0});
  s.add(kGeomSphere, {0.5}, {0.8, 0, 0});
  return s;
}

TEST(CollisionDriver, BasicContact) {
  Scene s = two_spheres();
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_EQ(s.d.contact[0].geom1, 0);
  EXPECT_EQ(s.d.contact[0].geom2, 1);
  EXPECT_EQ(s.d.contact[0].dim, 3);
  EXPECT_EQ(s.d.contact[0].exclude, 0);
}

TEST(CollisionDriver, SameBodyNeverCollides) {
  Scene s;
  s.add(kGeomSphere, {0.5}, {0, 0, 0});
  s.add(kGeomSphere, {0.5}, {0.8, 0, 0}, {1, 0, 0, 0}, 1);
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionDriver, WeldedBodiesNeverCollide) {
  Scene s = two_spheres();
  s.m.body_weldid[2] = 1;  // body 2 welded to body 1
  s.m.body_parentid[2] = 1;
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionDriver, ParentChildFilterAndFlag) {
  Scene s = two_spheres();
  s.m.body_parentid[2] = 1;  // body 2 is a jointed child of body 1
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
  s.m.opt.disableflags |= kDsblFilterparent;
  s.run();
  EXPECT_EQ(s.d.ncon, 1);
}

TEST(CollisionDriver, ChildOfWorldCollidesWithWorld) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0}, {1, 0, 0, 0}, 0);  // world geom
  s.add(kGeomSphere, {0.5}, {0, 0, 0.4});                      // body 1, parent world
  s.run();
  EXPECT_EQ(s.d.ncon, 1);
}

TEST(CollisionDriver, StaticBodiesDoNotCollideWithWorld) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0}, {1, 0, 0, 0}, 0);
  s.add(kGeomSphere, {0.5}, {0, 0, 0.4});
  s.m.body_weldid[1] = 0;  // body 1 has no joint: welded to the world
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionDriver, ContypeConaffinity) {
  Scene s = two_spheres();
  s.m.geom_contype = {1, 2};
  s.m.geom_conaffinity = {1, 2};
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
  s.m.geom_conaffinity = {2, 0};  // contype2 & conaffinity1
  s.run();
  EXPECT_EQ(s.d.ncon, 1);
  s.m.geom_contype = {0, 0};
  s.m.geom_conaffinity = {0, 0};
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionDriver, Exclude) {
  Scene s = two_spheres();
  s.m.nexclude = 1;
  s.m.exclude_signature = {((1 + 1) << 16) + 2 + 1};
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionDriver, BoundingSphereWithMargin) {
  Scene s;
  s.add(kGeomSphere, {0.5}, {0, 0, 0});
  s.add(kGeomSphere, {0.5}, {1.05, 0, 0});
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
  s.m.geom_margin = {0.1, 0};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, 0.05, 1e-12);
}

TEST(CollisionDriver, DisableContactAndCollisionModes) {
  Scene s = two_spheres();
  s.m.opt.disableflags = kDsblContact;
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
  s.m.opt.disableflags = 0;
  s.m.opt.collision = kCollidePair;  // no explicit pairs: nothing
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
  s.m.opt.collision = kCollideDynamic;
  s.run();
  EXPECT_EQ(s.d.ncon, 1);
}

TEST(CollisionDriver, ExplicitPairBypassesFiltersAndOverrides) {
  Scene s = two_spheres();
  s.m.geom_contype = {0, 0};  // dynamic collisions off
  s.m.geom_conaffinity = {0, 0};
  s.m.npair = 1;
  s.m.pair_geom1 = {1};
  s.m.pair_geom2 = {0};
  s.m.pair_dim = {6};
  s.m.pair_friction = {0.1, 0.2, 0.3, 0.4, 0.5};
  s.m.pair_solref = {0.05, 2};
  s.m.pair_solimp = {0.8, 0.9, 0.01, 0.4, 3};
  s.m.pair_margin = {0.2};
  s.m.pair_gap = {0.05};
  s.m.pair_signature = {((1 + 1) << 16) + 2 + 1};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_EQ(c.dim, 6);
  EXPECT_EQ(c.friction[4], 0.5);
  EXPECT_EQ(c.solref[0], 0.05);
  EXPECT_EQ(c.solimp[4], 3);
  EXPECT_NEAR(c.includemargin, 0.15, 1e-15);
  // same types: the geoms keep the pair's order
  EXPECT_EQ(c.geom1, 1);
  EXPECT_EQ(c.geom2, 0);
  // in "dynamic" mode explicit pairs are ignored
  s.m.opt.collision = kCollideDynamic;
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionDriver, ExplicitPairNotDuplicatedByDynamic) {
  Scene s = two_spheres();
  s.m.npair = 1;
  s.m.pair_geom1 = {0};
  s.m.pair_geom2 = {1};
  s.m.pair_dim = {1};
  s.m.pair_friction = {1, 1, 0, 0, 0};
  s.m.pair_solref = {0.02, 1};
  s.m.pair_solimp = {0.9, 0.95, 0.001, 0.5, 2};
  s.m.pair_margin = {0};
  s.m.pair_gap = {0};
  s.m.pair_signature = {((1 + 1) << 16) + 2 + 1};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_EQ(s.d.contact[0].dim, 1);
}

TEST(CollisionDriver, MixingEqualPriority) {
  Scene s = two_spheres();
  s.m.geom_condim = {1, 4};
  s.m.geom_friction = {0.5, 0.01, 0.001, 0.7, 0.002, 0.0001};
  s.m.geom_solmix = {1, 3};
  s.m.geom_solref = {0.02, 1, 0.06, 2};
  s.m.geom_solimp = {0.9, 0.95, 0.001, 0.5, 2, 0.5, 0.55, 0.005, 0.1, 6};
  s.m.geom_margin = {0.01, 0.03};
  s.m.geom_gap = {0.02, 0.005};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_EQ(c.dim, 4);
  const double f[5] = {0.7, 0.7, 0.01, 0.001, 0.001};
  for (int k = 0; k < 5; ++k) EXPECT_DOUBLE_EQ(c.friction[k], f[k]);
  // weight of geom 1: solmix1/(solmix1+solmix2) = 0.25
  EXPECT_DOUBLE_EQ(c.solref[0], 0.25 * 0.02 + 0.75 * 0.06);
  EXPECT_DOUBLE_EQ(c.solref[1], 0.25 * 1 + 0.75 * 2);
  EXPECT_DOUBLE_EQ(c.solimp[0], 0.25 * 0.9 + 0.75 * 0.5);
  EXPECT_DOUBLE_EQ(c.solimp[4], 0.25 * 2 + 0.75 * 6);
  EXPECT_DOUBLE_EQ(c.includemargin, 0.03 - 0.02);
}

TEST(CollisionDriver, MixingPriority) {
  Scene s = two_spheres();
  s.m.geom_priority = {0, 2};
  s.m.geom_condim = {6, 1};
  s.m.geom_friction = {0.9, 0.01, 0.001, 0.3, 0.002, 0.0001};
  s.m.geom_solref = {0.02, 1, 0.06, 2};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_EQ(c.dim, 1);  // from the higher-priority geom
  EXPECT_DOUBLE_EQ(c.friction[0], 0.3);
  EXPECT_DOUBLE_EQ(c.solref[0], 0.06);
}

TEST(CollisionDriver, MixingSolmixZero) {
  Scene s = two_spheres();
  s.m.geom_solmix = {0, 0};
  s.m.geom_solref = {0.02, 1, 0.06, 2};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_DOUBLE_EQ(s.d.contact[0].solref[0], 0.04);  // both zero: equal weights
}

TEST(CollisionDriver, Override) {
  Scene s = two_spheres();
  s.m.opt.enableflags = kEnblOverride;
  s.m.opt.o_margin = 0.3;
  s.m.opt.o_solref[0] = 0.1;
  s.m.opt.o_solimp[0] = 0.7;
  s.m.geom_margin = {0.01, 0.01};
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_DOUBLE_EQ(s.d.contact[0].includemargin, 0.3);
  EXPECT_DOUBLE_EQ(s.d.contact[0].solref[0], 0.1);
  EXPECT_DOUBLE_EQ(s.d.contact[0].solimp[0], 0.7);
}

TEST(CollisionDriver, TypeOrderAndNormalDirection) {
  Scene s;
  s.add(kGeomBox, {0.2, 0.2, 0.2}, {0, 0, 0});
  s.add(kGeomSphere, {0.2}, {0.3, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_EQ(s.d.contact[0].geom1, 1);  // the sphere (lower type) comes first
  EXPECT_NEAR(s.d.contact[0].frame[0], -1, 1e-12);  // from the sphere to the box
}

TEST(CollisionDriver, OrderByBodyPair) {
  Scene s;
  s.add(kGeomSphere, {0.5}, {0, 0, 0});    // body 1
  s.add(kGeomSphere, {0.5}, {0.8, 0, 0});  // body 2
  s.add(kGeomSphere, {0.5}, {0.4, 0.5, 0});  // body 3
  s.run();
  ASSERT_EQ(s.d.ncon, 3);
  EXPECT_EQ(s.d.contact[0].geom1 + s.d.contact[0].geom2, 0 + 1);
  EXPECT_EQ(s.d.contact[1].geom1 + s.d.contact[1].geom2, 0 + 2);
  EXPECT_EQ(s.d.contact[2].geom1 + s.d.contact[2].geom2, 1 + 2);
}

TEST(CollisionDriver, CapacityOverflowWarnsAndStops) {
  Scene s;
  for (int i = 0; i < 6; ++i) s.add(kGeomSphere, {0.5}, {0.1 * i, 0, 0});  // 15 overlapping pairs
  s.m.nconmax = 4;
  s.d.contact.resize(4);
  s.run();
  EXPECT_EQ(s.d.ncon, 4);
  EXPECT_GE(s.d.warning[kWarnContactFull].number, 1);
}

TEST(CollisionDriver, ManyBodiesBroadPhaseMatchesAllPairs) {
  // A grid of spheres: the broad phase must find exactly the overlapping pairs.
  Scene s;
  int n = 0;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      s.add(kGeomSphere, {0.3}, {0.5 * i + 0.05 * j, 0.55 * j, 0.01 * i * j});
      ++n;
    }
  s.m.nconmax = 1000;
  s.run();
  int expected = 0;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      double v[3];
      math::sub3(v, &s.d.geom_xpos[3 * a], &s.d.geom_xpos[3 * b]);
      if (math::norm3(v) <= 0.6) ++expected;
    }
  EXPECT_EQ(s.d.ncon, expected);
}

}  // namespace
}  // namespace moreau

// Multi-point convex collision (flag multiccd), hand-built flat-on-flat cases with known geometry.
//
// With multiccd, after the first MPR contact four more MPR runs see the two geoms turned by 1e-3
// rad in opposite senses about the contact's tangent axes (convex.cc). On faces resting flat on
// each other the turned geoms touch first near the rims of the overlap, so the extra contacts
// spread over the contact patch. Tolerances: every contact carries the first contact's distance,
// which MPR finds to mpr_tolerance (1e-6) on flat faces; a contact of a turned pair lies inside
// the overlap and within (depth/2 + 1e-3 * patch size) of the mid-plane, and its normal is tilted
// by at most the relative turn, 2e-3 rad (asserted with slack: 3e-3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

const char* kCube = "<mesh name=\"cube\" vertex=\"-.5 -.5 -.5  .5 -.5 -.5  -.5 .5 -.5  .5 .5 -.5  "
                    "-.5 -.5 .5  .5 -.5 .5  -.5 .5 .5  .5 .5 .5\"/>";

std::string scene(bool multiccd, const std::string& lower, const std::string& upper, double z) {
  return std::string("<mujoco><option gravity=\"0 0 0\"><flag multiccd=\"") + (multiccd ? "enable" : "disable") +
         "\"/></option><asset>" + kCube + "</asset><worldbody><body><freejoint/>" + lower +
         "</body><body pos=\"0.1 0.05 " + std::to_string(z) + "\"><freejoint/>" + upper + "</body></worldbody></mujoco>";
}

// Contacts of the cube pair: upper cube at (0.1, 0.05, 0.99) on the lower one at the origin, both
// axis-aligned: faces overlap on x in [-0.4, 0.5], y in [-0.45, 0.5], 0.01 deep around z = 0.495.
struct Result {
  Model m;
  Data d;
};
Result run(bool multiccd, const std::string& lower, const std::string& upper, double z = 0.99) {
  Result r{load_model_from_string(scene(multiccd, lower, upper, z)), {}};
  r.d = make_data(r.m);
  forward(r.m, r.d);
  return r;
}

void expect_on_patch(const Data& d) {
  for (int i = 0; i < d.ncon; ++i) {
    const Contact& c = d.contact[i];
    EXPECT_NEAR(c.dist, -0.01, 1e-6) << i;
    EXPECT_GE(c.pos[0], -0.4 - 1e-3) << i;
    EXPECT_LE(c.pos[0], 0.5 + 1e-3) << i;
    EXPECT_GE(c.pos[1], -0.45 - 1e-3) << i;
    EXPECT_LE(c.pos[1], 0.5 + 1e-3) << i;
    EXPECT_NEAR(c.pos[2], 0.495, 0.005 + 1e-3) << i;
    EXPECT_NEAR(std::fabs(c.frame[2]), 1, 3e-3 * 3e-3) << i;  // 1 - cos(3e-3)
  }
}

double spread(const Data& d) {
  double s = 0;
  for (int i = 0; i < d.ncon; ++i)
    for (int j = 0; j < i; ++j) s = std::max(s, std::hypot(d.contact[i].pos[0] - d.contact[j].pos[0],
                                                           d.contact[i].pos[1] - d.contact[j].pos[1]));
  return s;
}

TEST(CollisionMulticcd, MeshCubeOnMeshCube) {
  const std::string g = "<geom type=\"mesh\" mesh=\"cube\"/>";
  const Result one = run(false, g, g);
  ASSERT_EQ(one.d.ncon, 1);  // without the flag: one MPR contact
  expect_on_patch(one.d);
  const Result multi = run(true, g, g);
  ASSERT_EQ(multi.d.ncon, 5);  // four turned runs, each finding another rim of the patch (as 2.2.2)
  expect_on_patch(multi.d);
  EXPECT_GT(spread(multi.d), 0.45);  // at least half the patch's width apart
  // each rim of the overlap rectangle (x = -0.4, 0.5; y = -0.45, 0.5) has a contact within 0.01
  // (the turned faces touch first along a rim; MPR stops inside the turned overlap)
  auto near_rim = [&](int axis, double at) {
    for (int i = 1; i < multi.d.ncon; ++i)
      if (std::fabs(multi.d.contact[i].pos[axis] - at) < 0.01) return true;
    return false;
  };
  EXPECT_TRUE(near_rim(0, -0.4));
  EXPECT_TRUE(near_rim(0, 0.5));
  EXPECT_TRUE(near_rim(1, -0.45));
  EXPECT_TRUE(near_rim(1, 0.5));
  // the first contact is the plain MPR contact
  for (int k = 0; k < 3; ++k) EXPECT_EQ(multi.d.contact[0].pos[k], one.d.contact[0].pos[k]);
}

TEST(CollisionMulticcd, BoxOnMeshCube) {
  const Result multi = run(true, "<geom type=\"mesh\" mesh=\"cube\"/>", "<geom type=\"box\" size=\".5 .5 .5\"/>");
  EXPECT_GE(multi.d.ncon, 3);
  expect_on_patch(multi.d);
  EXPECT_GT(spread(multi.d), 0.45);
}

// A cylinder standing on a box: the extra contacts lie on the rim of the base (radius 0.4), one
// per turn, in the order -t1, +t1, -t2, +t2 of the first contact's frame (tangent1 = y, tangent2
// = x for the normal -z): x = -r, +r, then y = +r, -r, as 2.2.2 gives (cylinder_box.xml).
TEST(CollisionMulticcd, CylinderOnBoxRim) {
  const Model m = load_model_from_string(
      "<mujoco><option gravity=\"0 0 0\"><flag multiccd=\"enable\"/></option><worldbody>"
      "<geom type=\"box\" size=\"1 1 .3\" pos=\"0 0 -.3\"/><body pos=\"0 0 .02\"><freejoint/>"
      "<geom type=\"cylinder\" size=\".4 .03\"/></body></worldbody></mujoco>");
  Data d = make_data(m);
  forward(m, d);
  ASSERT_EQ(d.ncon, 5);
  EXPECT_NEAR(d.contact[0].pos[0], 0, 1e-12);
  EXPECT_NEAR(d.contact[0].pos[1], 0, 1e-12);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(d.contact[i].dist, -0.01, 1e-9) << i;
  for (int i = 1; i < 5; ++i) {
    const double r = std::hypot(d.contact[i].pos[0], d.contact[i].pos[1]);
    EXPECT_GT(r, 0.38) << i;  // near the rim (MPR stops inside the turned overlap)
    EXPECT_LE(r, 0.4 + 1e-9) << i;
  }
  EXPECT_LT(d.contact[1].pos[0], -0.38);
  EXPECT_GT(d.contact[2].pos[0], 0.38);
  EXPECT_GT(d.contact[3].pos[1], 0.38);
  EXPECT_LT(d.contact[4].pos[1], -0.38);
}

// A sphere's contact is one point whatever the flag: no extra MPR runs for spheres and ellipsoids.
TEST(CollisionMulticcd, SphereAndEllipsoidSingle) {
  const std::pair<const char*, double> cases[] = {{"<geom type=\"sphere\" size=\".3\"/>", 0.79},
                                                  {"<geom type=\"ellipsoid\" size=\".3 .2 .1\"/>", 0.59}};
  for (const auto& [g, z] : cases) {
    const Result r = run(true, "<geom type=\"mesh\" mesh=\"cube\"/>", g, z);
    EXPECT_EQ(r.d.ncon, 1) << g;
  }
}

}  // namespace
}  // namespace moreau

// Analytic narrow-phase cases per primitive pair: known depth, normal and point for penetration,
// touching, separated within margin, separated beyond margin, and degenerate placements.
#include <gtest/gtest.h>

#include <cmath>

#include "collision/narrowphase.h"
#include "unit/collision_helpers.h"

namespace moreau {
namespace {

using coltest::rot;
using coltest::Scene;
constexpr double kTol = 1e-12;

void expect_vec(const double* a, std::initializer_list<double> b, double tol = kTol) {
  int i = 0;
  for (double v : b) EXPECT_NEAR(a[i++], v, tol) << "component " << i - 1;
}
// The frame is orthonormal and right-handed.
void expect_frame_ok(const Contact& c) {
  using namespace math;
  EXPECT_NEAR(norm3(c.frame), 1, 1e-12);
  EXPECT_NEAR(norm3(c.frame + 3), 1, 1e-12);
  EXPECT_NEAR(dot3(c.frame, c.frame + 3), 0, 1e-12);
  double z[3];
  cross3(z, c.frame, c.frame + 3);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(z[k], c.frame[6 + k], 1e-12);
}

// ------------------------------------------------------------------------------ plane
TEST(CollisionPlane, SpherePenetrating) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomSphere, {0.5}, {1, 2, 0.3});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_NEAR(c.dist, -0.2, kTol);
  expect_vec(c.pos, {1, 2, -0.1});  // midway between the sphere bottom (-0.2) and the plane (0)
  expect_vec(c.frame, {0, 0, 1});
  expect_vec(c.frame + 3, {0, 1, 0});
  expect_vec(c.frame + 6, {-1, 0, 0});
  EXPECT_EQ(c.geom1, 0);
  EXPECT_EQ(c.geom2, 1);
  expect_frame_ok(c);
}

TEST(CollisionPlane, SphereTouchingMarginAndBeyond) {
  for (double z : {0.5, 0.55, 0.65}) {
    Scene s;
    s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
    s.add(kGeomSphere, {0.5}, {0, 0, z});
    s.m.geom_margin = {0.1, 0};  // pair margin = max = 0.1
    s.run();
    if (z < 0.62) {
      ASSERT_EQ(s.d.ncon, 1) << z;
      EXPECT_NEAR(s.d.contact[0].dist, z - 0.5, kTol);
      EXPECT_NEAR(s.d.contact[0].includemargin, 0.1, kTol);
    } else {
      EXPECT_EQ(s.d.ncon, 0) << z;
    }
  }
}

TEST(CollisionPlane, TiltedPlaneSphere) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0}, rot(90, 1, 0, 0));  // normal = -y
  s.add(kGeomSphere, {0.5}, {0, -0.4, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.1, kTol);
  expect_vec(s.d.contact[0].frame, {0, -1, 0});
  expect_vec(s.d.contact[0].frame + 3, {0, 0, 1});  // normal close to y: tangent seeded with z
  expect_frame_ok(s.d.contact[0]);
}

TEST(CollisionPlane, CapsuleLyingGivesTwoContacts) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomCapsule, {0.1, 0.3}, {0, 0, 0.05}, rot(90, 0, 1, 0));  // axis along x
  s.run();
  ASSERT_EQ(s.d.ncon, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.05, kTol);
    EXPECT_NEAR(std::fabs(s.d.contact[i].pos[0]), 0.3, kTol);
    expect_vec(s.d.contact[i].frame + 3, {1, 0, 0});  // tangent along the capsule axis
    expect_frame_ok(s.d.contact[i]);
  }
}

TEST(CollisionPlane, CapsuleUprightOneContact) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomCapsule, {0.1, 0.3}, {0, 0, 0.35});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.05, kTol);
  expect_frame_ok(s.d.contact[0]);
}

TEST(CollisionPlane, BoxFaceDownFourCorners) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, 0.08});
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.02, kTol);
    EXPECT_NEAR(s.d.contact[i].pos[2], -0.01, kTol);
    EXPECT_NEAR(std::fabs(s.d.contact[i].pos[0]), 0.3, kTol);
    EXPECT_NEAR(std::fabs(s.d.contact[i].pos[1]), 0.2, kTol);
  }
}

TEST(CollisionPlane, BoxDeepAtMostFourDeepestCorners) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, -1}, rot(30, 1, 1, 0));  // all 8 corners below
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  for (int i = 0; i < 4; ++i) EXPECT_LT(s.d.contact[i].dist, -1.0 + 1e-12);  // below the centre
}

TEST(CollisionPlane, BoxOnEdge) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  // rotated 45 deg about x: lowest edge along x at depth 0.1*sqrt(2) - 0.14
  s.add(kGeomBox, {0.3, 0.1, 0.1}, {0, 0, 0.14}, rot(45, 1, 0, 0));
  s.run();
  ASSERT_EQ(s.d.ncon, 2);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(s.d.contact[i].dist, 0.14 - 0.1 * std::sqrt(2.0), 1e-12);
}

TEST(CollisionPlane, EllipsoidSupportPoint) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomEllipsoid, {0.3, 0.2, 0.1}, {0.5, 0, 0.05});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.05, kTol);
  expect_vec(s.d.contact[0].pos, {0.5, 0, -0.025});
}

TEST(CollisionPlane, CylinderUprightThreeContacts) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomCylinder, {0.2, 0.3}, {0, 0, 0.25});
  s.run();
  ASSERT_EQ(s.d.ncon, 3);  // three rim points of the bottom disk, 120 degrees apart
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.05, kTol);
    EXPECT_NEAR(std::hypot(s.d.contact[i].pos[0], s.d.contact[i].pos[1]), 0.2, kTol);
  }
}

TEST(CollisionPlane, CylinderLyingTwoContacts) {
  Scene s;
  s.add(kGeomPlane, {0, 0, 1}, {0, 0, 0});
  s.add(kGeomCylinder, {0.2, 0.3}, {0, 0, 0.15}, rot(90, 1, 0, 0));
  s.run();
  ASSERT_EQ(s.d.ncon, 2);  // one rim point on each disk
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(s.d.contact[i].dist, -0.05, kTol);
  EXPECT_NEAR(std::fabs(s.d.contact[0].pos[1]), 0.3, kTol);
}

// ------------------------------------------------------------------------------ sphere
TEST(CollisionSphere, SphereSpherePenetrating) {
  Scene s;
  s.add(kGeomSphere, {0.5}, {0, 0, 0});
  s.add(kGeomSphere, {0.3}, {0.6, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_NEAR(c.dist, -0.2, kTol);
  expect_vec(c.frame, {1, 0, 0});
  expect_vec(c.pos, {0.4, 0, 0});  // between 0.5 (surface of 1) and 0.3 (surface of 2)
  expect_frame_ok(c);
}

TEST(CollisionSphere, SphereSphereMargin) {
  for (double x : {0.85, 0.95}) {
    Scene s;
    s.add(kGeomSphere, {0.5}, {0, 0, 0});
    s.add(kGeomSphere, {0.3}, {x, 0, 0});
    s.m.geom_margin = {0.1, 0.05};
    s.m.geom_gap = {0.02, 0.03};
    s.run();
    if (x < 0.9) {
      ASSERT_EQ(s.d.ncon, 1);
      EXPECT_NEAR(s.d.contact[0].dist, 0.05, kTol);
      EXPECT_NEAR(s.d.contact[0].includemargin, 0.1 - 0.03, kTol);
    } else {
      EXPECT_EQ(s.d.ncon, 0);
    }
  }
}

TEST(CollisionSphere, CoincidentCentres) {
  Scene s;
  s.add(kGeomSphere, {0.5}, {0, 0, 0});
  s.add(kGeomSphere, {0.3}, {0, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.8, kTol);
  expect_frame_ok(s.d.contact[0]);
}

TEST(CollisionSphere, SphereCapsuleSideAndEnd) {
  Scene s;
  s.add(kGeomSphere, {0.2}, {0.25, 0, 0.1});
  s.add(kGeomCapsule, {0.1, 0.5}, {0, 0, 0});  // axis z
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.05, kTol);
  expect_vec(s.d.contact[0].frame, {-1, 0, 0});
  Scene e;
  e.add(kGeomSphere, {0.2}, {0, 0, 0.75});
  e.add(kGeomCapsule, {0.1, 0.5}, {0, 0, 0});
  e.run();
  ASSERT_EQ(e.d.ncon, 1);
  EXPECT_NEAR(e.d.contact[0].dist, -0.05, kTol);
  expect_vec(e.d.contact[0].frame, {0, 0, -1});
}

TEST(CollisionSphere, SphereBoxFaceEdgeCornerInside) {
  {  // face
    Scene s;
    s.add(kGeomSphere, {0.2}, {0, 0, 0.25});
    s.add(kGeomBox, {0.3, 0.3, 0.1}, {0, 0, 0});
    s.run();
    ASSERT_EQ(s.d.ncon, 1);
    EXPECT_NEAR(s.d.contact[0].dist, -0.05, kTol);
    expect_vec(s.d.contact[0].frame, {0, 0, -1});
    expect_vec(s.d.contact[0].pos, {0, 0, 0.075});
  }
  {  // corner, separated within margin
    Scene s;
    s.add(kGeomSphere, {0.1}, {0.4, 0.4, 0.2});
    s.add(kGeomBox, {0.3, 0.3, 0.1}, {0, 0, 0});
    s.m.geom_margin = {0.2, 0};
    s.run();
    ASSERT_EQ(s.d.ncon, 1);
    EXPECT_NEAR(s.d.contact[0].dist, std::sqrt(0.03) - 0.1, kTol);
  }
  {  // centre inside: normal out of the nearest face; 2.2.2 reports dist = -radius
    Scene s;
    s.add(kGeomSphere, {0.2}, {0, 0.25, 0});
    s.add(kGeomBox, {0.3, 0.3, 0.1}, {0, 0, 0});
    s.run();
    ASSERT_EQ(s.d.ncon, 1);
    expect_vec(s.d.contact[0].frame, {0, -1, 0});
    EXPECT_NEAR(s.d.contact[0].dist, -0.2, kTol);
  }
}

TEST(CollisionSphere, SphereCylinderAnalytic) {
  // The analytic function (2.2.2 uses its general convex path for this pair; see the default table).
  Scene s;
  s.add(kGeomSphere, {0.2}, {0.35, 0, 0});
  s.add(kGeomCylinder, {0.2, 0.3}, {0, 0, 0});
  CollisionTable t = default_collision_table();
  t.fn[kGeomSphere][kGeomCylinder] = col::sphere_cylinder;
  s.d.contact.resize(10);
  collision(s.m, s.d, t);
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.05, kTol);
  expect_vec(s.d.contact[0].frame, {-1, 0, 0});
}

// ------------------------------------------------------------------------------ ellipsoid
// Sphere against an ellipsoid (MPR, then 2.2.2's normal correction, convex.cc). MPR stops at its
// tolerance (mpr_tolerance 1e-6) and the ellipsoid normal iterations stop at a change of 1e-6, so
// depth and normal are checked to 1e-5, well above that and far below any wrong rule's error.
constexpr double kMprTol = 1e-5;

TEST(CollisionEllipsoid, SphereOnPrincipalAxis) {
  // Semi-axes 0.3, 0.2, 0.1; sphere r = 0.1 centred on each axis 0.35 / 0.25 / 0.15 out: depth 0.05,
  // normal along the axis (from the sphere, geom 1, towards the ellipsoid), point midway.
  const double s[3] = {0.3, 0.2, 0.1};
  for (int axis = 0; axis < 3; ++axis) {
    for (double sgn : {1.0, -1.0}) {
      Scene t;
      std::vector<double> c = {0, 0, 0};
      c[axis] = sgn * (s[axis] + 0.05);
      t.add(kGeomSphere, {0.1}, c);
      t.add(kGeomEllipsoid, {s[0], s[1], s[2]}, {0, 0, 0});
      t.run();
      ASSERT_EQ(t.d.ncon, 1) << axis;
      const Contact& k = t.d.contact[0];
      // (on an axis MPR's portal is symmetric: measured error below 1e-12; 1e-9 allows for rounding)
      EXPECT_NEAR(k.dist, -0.05, 1e-9) << axis;
      double n[3] = {0, 0, 0}, p[3] = {0, 0, 0};
      n[axis] = -sgn;
      p[axis] = sgn * (s[axis] - 0.025);
      expect_vec(k.frame, {n[0], n[1], n[2]}, 1e-9);
      expect_vec(k.pos, {p[0], p[1], p[2]}, 1e-9);
      expect_frame_ok(k);
    }
  }
}

// Unit outward normal of the ellipsoid with semi-axes s at the surface point nearest to local point
// p (not the centre), independently of convex.cc: x = s^2 p / (s^2 + l) with the multiplier l found
// by bisection on sum p_k^2 s_k^2 / (s_k^2 + l)^2 = 1 (decreasing for l > -min s_k^2).
void nearest_point_normal(const double* s, const double* p, double* n) {
  double lo = -std::min({s[0] * s[0], s[1] * s[1], s[2] * s[2]}), hi = 10;
  for (int it = 0; it < 200; ++it) {
    const double l = 0.5 * (lo + hi);
    double f = -1;
    for (int k = 0; k < 3; ++k) f += p[k] * p[k] * s[k] * s[k] / ((s[k] * s[k] + l) * (s[k] * s[k] + l));
    (f > 0 ? lo : hi) = l;
  }
  for (int k = 0; k < 3; ++k) n[k] = p[k] / (s[k] * s[k] + lo);
  math::normalize3(n);
}

TEST(CollisionEllipsoid, SphereOffAxisAlongGradient) {
  // A sphere near the surface point x0 of a rotated ellipsoid, off the axes, penetrating by 0.02 and
  // separated by 0.01 within the margin (2.2.2's two branches: contact point inside, outside). MPR's
  // point is not on the normal line through x0 (its depth is along the centres' line), so the normal
  // is checked against its definition: from the sphere (geom 1) towards the ellipsoid,
  // normalize(u - n_e), u the sphere's radial direction at the contact point and n_e the ellipsoid's
  // gradient direction at the surface point nearest to it (within 1e-5 of 2.2.2's early stops).
  const double s[3] = {0.3, 0.2, 0.1}, a = 0.6, b = 0.4, r = 0.15;
  const double x0[3] = {s[0] * std::cos(a) * std::cos(b), s[1] * std::sin(a) * std::cos(b), s[2] * std::sin(b)};
  double n0[3] = {x0[0] / (s[0] * s[0]), x0[1] / (s[1] * s[1]), x0[2] / (s[2] * s[2])};
  math::normalize3(n0);
  const std::vector<double> q = rot(30, 1, 2, 3);
  double R[9], qq[4] = {q[0], q[1], q[2], q[3]};
  math::normalize4(qq);
  math::quat2mat(R, qq);
  const double origin[3] = {0.1, -0.2, 0.3};
  for (double delta : {0.02, -0.01}) {
    double cl[3], c[3];
    for (int k = 0; k < 3; ++k) cl[k] = x0[k] + (r - delta) * n0[k];
    math::mulmatvec3(c, R, cl);
    for (int k = 0; k < 3; ++k) c[k] += origin[k];
    Scene t;
    t.add(kGeomSphere, {r}, {c[0], c[1], c[2]});
    t.add(kGeomEllipsoid, {s[0], s[1], s[2]}, {origin[0], origin[1], origin[2]}, q);
    if (delta < 0) t.m.geom_margin = {0.05, 0.05};
    t.run();
    ASSERT_EQ(t.d.ncon, 1) << delta;
    const Contact& k = t.d.contact[0];
    EXPECT_EQ(k.dist < 0, delta > 0) << delta;
    double v[3], pl[3], ne_l[3], ne[3], u[3], expect[3];
    for (int j = 0; j < 3; ++j) v[j] = k.pos[j] - origin[j];
    for (int j = 0; j < 3; ++j) pl[j] = R[j] * v[0] + R[3 + j] * v[1] + R[6 + j] * v[2];  // R' v
    double F = 0;
    for (int j = 0; j < 3; ++j) F += pl[j] * pl[j] / (s[j] * s[j]);
    EXPECT_EQ(F < 1, delta > 0) << "contact point inside the ellipsoid exactly when penetrating";
    nearest_point_normal(s, pl, ne_l);
    math::mulmatvec3(ne, R, ne_l);
    for (int j = 0; j < 3; ++j) u[j] = k.pos[j] - c[j];
    math::normalize3(u);
    for (int j = 0; j < 3; ++j) expect[j] = u[j] - ne[j];
    math::normalize3(expect);
    expect_vec(k.frame, {expect[0], expect[1], expect[2]}, kMprTol);
    expect_frame_ok(k);
  }
}

// ------------------------------------------------------------------------------ capsule
TEST(CollisionCapsule, CrossedCapsules) {
  Scene s;
  s.add(kGeomCapsule, {0.1, 0.5}, {0, 0, 0}, rot(90, 0, 1, 0));  // along x
  s.add(kGeomCapsule, {0.1, 0.5}, {0, 0, 0.15}, rot(90, 1, 0, 0));  // along y, above
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.05, kTol);
  expect_vec(s.d.contact[0].frame, {0, 0, 1});
  expect_vec(s.d.contact[0].pos, {0, 0, 0.075});
}

TEST(CollisionCapsule, ParallelCapsulesFinite) {
  Scene s;
  s.add(kGeomCapsule, {0.1, 0.5}, {0, 0, 0});
  s.add(kGeomCapsule, {0.1, 0.5}, {0.15, 0, 0.2});
  s.run();
  // Exactly parallel: the ends of the overlap [-0.3, 0.5] (the +end of geom1, the -end of geom2),
  // each 0.15 apart across radii 0.1 + 0.1.
  ASSERT_EQ(s.d.ncon, 2);
  for (int i = 0; i < s.d.ncon; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.05, kTol);
    expect_vec(s.d.contact[i].frame, {1, 0, 0});
  }
  expect_vec(s.d.contact[0].pos, {0.075, 0, 0.5});
  expect_vec(s.d.contact[1].pos, {0.075, 0, -0.3});
}

TEST(CollisionCapsule, CapsuleBoxLyingOnFace) {
  Scene s;
  s.add(kGeomCapsule, {0.1, 0.2}, {0, 0, 0.18}, rot(90, 0, 1, 0));
  s.add(kGeomBox, {0.5, 0.5, 0.1}, {0, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.02, kTol);
    expect_vec(s.d.contact[i].frame, {0, 0, -1});
  }
  // the two segment ends, midway between the capsule surface (z 0.08) and the face (z 0.1)
  expect_vec(s.d.contact[0].pos, {-0.2, 0, 0.09});
  expect_vec(s.d.contact[1].pos, {0.2, 0, 0.09});
}

TEST(CollisionCapsule, CapsuleBoxEndOnFace) {
  // Upright capsule standing on a face, 0.01 deep: one contact under the end.
  Scene s;
  s.add(kGeomCapsule, {0.05, 0.1}, {0.05, 0.02, 0.24});
  s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.01, kTol);
  expect_vec(s.d.contact[0].pos, {0.05, 0.02, 0.095});
  expect_vec(s.d.contact[0].frame, {0, 0, -1});
}

TEST(CollisionCapsule, CapsuleBoxOverhangingFace) {
  // Segment x in [0.25, 0.65] over a face ending at x = 0.5: the closest point (the -end) and the
  // far end of the part of the segment over the face (x = 0.5), both 0.02 deep, face normal.
  Scene s;
  s.add(kGeomCapsule, {0.1, 0.2}, {0.45, 0, 0.18}, rot(90, 0, 1, 0));
  s.add(kGeomBox, {0.5, 0.5, 0.1}, {0, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.02, kTol);
    expect_vec(s.d.contact[i].frame, {0, 0, -1});
  }
  expect_vec(s.d.contact[0].pos, {0.25, 0, 0.09});
  expect_vec(s.d.contact[1].pos, {0.5, 0, 0.09});
}

TEST(CollisionCapsule, CapsuleBoxAcrossTopEdgeOfWall) {
  // A capsule rising at 10 degrees across the top of a thin wall (half width 0.02 in x), 0.04 from
  // the wall's lower top edge (x = -0.02, z = 0.1): the first sphere is the segment point nearest
  // that edge (depth 0.01, normal along the edge's perpendicular); 2.2.2's second sphere is the
  // width of the top face further along the segment, 2 h_x / cos(10 deg) (measured rule, see
  // collide_capsule_box.cc), over the top face at the known height (values checked against 2.2.2 with a
  // probe program).
  const double th = 10 * M_PI / 180, d = 0.04, r = 0.05, hx = 0.02;
  const double c[3] = {-hx - d * std::sin(th), 0, 0.1 + d * std::cos(th)};
  Scene s;
  s.add(kGeomCapsule, {r, 0.3}, {c[0], c[1], c[2]}, rot(80, 0, 1, 0));  // axis (cos 10, 0, sin 10)
  s.add(kGeomBox, {hx, 0.3, 0.1}, {0, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 2);
  const Contact& a = s.d.contact[0];
  EXPECT_NEAR(a.dist, d - r, kTol);
  expect_vec(a.frame, {std::sin(th), 0, -std::cos(th)});
  const double ra = r + 0.5 * (d - r);  // from the sphere centre to the midway point
  expect_vec(a.pos, {c[0] + ra * std::sin(th), 0, c[2] - ra * std::cos(th)});
  const double t2 = 2 * hx / std::cos(th);
  const double p2[3] = {c[0] + t2 * std::cos(th), 0, c[2] + t2 * std::sin(th)};
  const Contact& b = s.d.contact[1];
  EXPECT_NEAR(b.dist, p2[2] - 0.1 - r, kTol);  // -0.0035: still in contact
  expect_vec(b.frame, {0, 0, -1});
  expect_vec(b.pos, {p2[0], 0, 0.5 * (p2[2] - r + 0.1)});
}

TEST(CollisionCapsule, CapsuleBoxUprightBesideSideFace) {
  // An upright capsule (exactly parallel to the box's z axis) 0.04 from a side face and spanning
  // its height: the distance is the same all along the face, and 2.2.2 puts the contacts at the
  // face's bottom and top edges for the -x face; for the +x face, with the capsule axis +z, only the
  // bottom one (measured on the four side faces with u = +z and -z). Depth 0.01, face normal
  // (values checked against 2.2.2 with a probe program).
  for (int side : {-1, 1}) {
    Scene s;
    s.add(kGeomCapsule, {0.05, 0.2}, {side * 0.34, 0.05, 0});
    s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, 0});
    s.run();
    ASSERT_EQ(s.d.ncon, side < 0 ? 2 : 1) << side;
    for (int i = 0; i < s.d.ncon; ++i) {
      EXPECT_NEAR(s.d.contact[i].dist, -0.01, kTol);
      expect_vec(s.d.contact[i].frame, {-side * 1.0, 0, 0});
      expect_vec(s.d.contact[i].pos, {side * 0.295, 0.05, i == 0 ? -0.1 : 0.1});
    }
  }
}

TEST(CollisionCapsule, CapsuleBoxUprightBesideEdge) {
  // An upright capsule beside the vertical edge (x, y) = (0.3, 0.2), offset (0.03, 0.04) (distance
  // 0.05, radius 0.06: depth 0.01), its segment within the edge's height: both segment ends, the
  // upper one first (the segment centre is above the box centre), normal towards the edge (values
  // checked against 2.2.2 with a probe program).
  Scene s;
  s.add(kGeomCapsule, {0.06, 0.05}, {0.33, 0.24, 0.02});
  s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, 0});
  s.run();
  ASSERT_EQ(s.d.ncon, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.01, kTol);
    expect_vec(s.d.contact[i].frame, {-0.6, -0.8, 0});
    expect_vec(s.d.contact[i].pos, {0.33 - 0.6 * 0.055, 0.24 - 0.8 * 0.055, i == 0 ? 0.07 : -0.03});
  }
}

TEST(CollisionCapsule, CapsuleBoxTiltedBesideSideFace) {
  // A capsule tilted 30 degrees about x (exactly parallel to the x faces, to no axis) 0.04 beside
  // an x face of a cube of half size 0.3, spanning it: the distance ties along the part over the
  // face; 2.2.2 puts the first contact where the segment crosses the bottom edge's level (z = -0.3)
  // and, for the -x face only, the second where it crosses the top (values checked against 2.2.2
  // with a probe program). Depth 0.01, face normal.
  for (int side : {-1, 1}) {
    Scene s;
    s.add(kGeomCapsule, {0.05, 0.5}, {side * 0.34, 0, 0}, rot(30, 1, 0, 0));  // axis (0, -1/2, 0.866)
    s.add(kGeomBox, {0.3, 0.3, 0.3}, {0, 0, 0});
    s.run();
    ASSERT_EQ(s.d.ncon, side < 0 ? 2 : 1) << side;
    for (int i = 0; i < s.d.ncon; ++i) {
      EXPECT_NEAR(s.d.contact[i].dist, -0.01, kTol);
      expect_vec(s.d.contact[i].frame, {-side * 1.0, 0, 0});
      const double z = i == 0 ? -0.3 : 0.3;
      expect_vec(s.d.contact[i].pos, {side * 0.295, -z / std::sqrt(3.0), z});
    }
  }
}

TEST(CollisionCapsule, CapsuleBoxCrossingWithFarEnds) {
  // A capsule (radius 0.1) crossing a cube of half size 0.3, from (-0.42, 0, 0.1) in through the -x
  // face to (0.2, 0, -0.45) out through the bottom face: the nearest candidate of 2.2.2's first
  // sphere is the -end, 0.12 from the box (the box edges are farther), and the second sphere sits
  // where the segment leaves the box, on the bottom face, reported at depth -r. The two spheres are
  // tested against the margin separately: at margin 0 only the second is a contact, at margin 0.05
  // both (values checked against 2.2.2 with a probe program).
  const double ex = -0.42 + 0.62 * 0.4 / 0.55;  // exit point's x, at z = -0.3
  for (double margin : {0.0, 0.05}) {
    Scene s;
    s.add(kGeomCapsule, {0.1, 0.5 * std::hypot(0.62, 0.55)}, {-0.11, 0, -0.175},
          rot(std::atan2(0.62, -0.55) * 180 / M_PI, 0, 1, 0));
    s.add(kGeomBox, {0.3, 0.3, 0.3}, {0, 0, 0});
    s.m.geom_margin = {margin, 0};
    s.run();
    ASSERT_EQ(s.d.ncon, margin > 0 ? 2 : 1) << margin;
    if (margin > 0) {
      EXPECT_NEAR(s.d.contact[0].dist, 0.02, kTol);
      expect_vec(s.d.contact[0].frame, {1, 0, 0});
      expect_vec(s.d.contact[0].pos, {-0.31, 0, 0.1});
    }
    const Contact& b = s.d.contact[s.d.ncon - 1];
    EXPECT_NEAR(b.dist, -0.1, kTol);
    expect_vec(b.frame, {0, 0, 1});
    expect_vec(b.pos, {ex, 0, -0.25});
  }
}

// ------------------------------------------------------------------------------ box
TEST(CollisionBox, FaceFaceStacked) {
  Scene s;
  s.add(kGeomBox, {0.5, 0.5, 0.1}, {0, 0, 0});
  s.add(kGeomBox, {0.2, 0.2, 0.1}, {0, 0, 0.18});
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  for (int i = 0; i < 4; ++i) {
    // depth 0.02; 2.2.2 reports half of it for box-box face contacts
    EXPECT_NEAR(s.d.contact[i].dist, -0.01, kTol);
    expect_vec(s.d.contact[i].frame, {0, 0, 1});
    EXPECT_NEAR(s.d.contact[i].pos[2], 0.09, kTol);
  }
}

// A cube overhanging the corner of a larger box's top face: the overlap rectangle's corners, in
// 2.2.2's order (edge crossings, the reference corner inside the cube, the cube's corner), at half
// the 0.02 depth (2.2.2's face-contact convention), midway between the faces.
TEST(CollisionBox, FaceDownClippedCorners) {
  Scene s;
  s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, 0});
  s.add(kGeomBox, {0.1, 0.1, 0.1}, {0.25, 0.15, 0.18});
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  const double xy[4][2] = {{0.3, 0.05}, {0.15, 0.2}, {0.3, 0.2}, {0.15, 0.05}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.01, kTol);
    expect_vec(s.d.contact[i].pos, {xy[i][0], xy[i][1], 0.09});
    expect_vec(s.d.contact[i].frame, {0, 0, 1});
    expect_frame_ok(s.d.contact[i]);
  }
}

// Touching (distance 0) and separated within the margin. Separated parallel faces make an exact
// tie between the face axis and the coinciding edge axes, which 2.2.2 gives to the edge: the
// full gap is reported, not half of it (probe: cube over a box at z = 0.17..0.23).
TEST(CollisionBox, TouchingAndSeparatedWithinMargin) {
  for (double gap : {0.0, 0.02}) {
    Scene s;
    s.add(kGeomBox, {0.3, 0.2, 0.1}, {0, 0, 0});
    s.add(kGeomBox, {0.1, 0.1, 0.1}, {0.25, 0.15, 0.2 + gap});
    s.m.geom_margin = {0.05, 0.05};
    s.run();
    ASSERT_EQ(s.d.ncon, 4) << "gap " << gap;
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(s.d.contact[i].dist, gap, kTol);
      EXPECT_NEAR(s.d.contact[i].pos[2], 0.1 + gap / 2, kTol);
    }
  }
}

// Cube of half size 0.12 turned 45 degrees about the normal on a cube of 0.1: the octagon where the
// squares overlap (x or y = +-0.1, the other +-(0.12 sqrt2 - 0.1)), then the turned cube's v0 -- its
// corner (0, -0.12 sqrt2) outside the other face, which 2.2.2 reports for exactly parallel faces.
TEST(CollisionBox, Rotated45Octagon) {
  Scene s;
  s.add(kGeomBox, {0.1, 0.1, 0.1}, {0, 0, 0});
  s.add(kGeomBox, {0.12, 0.12, 0.1}, {0, 0, 0.18}, rot(45, 0, 0, 1));
  s.run();
  ASSERT_EQ(s.d.ncon, 9);
  const double a = 0.12 * std::sqrt(2.0) - 0.1;
  const double xy[9][2] = {{0.1, -a}, {a, -0.1}, {-0.1, -a}, {-a, -0.1}, {0.1, a},
                           {a, 0.1},  {-0.1, a}, {-a, 0.1},  {0, -0.12 * std::sqrt(2.0)}};
  for (int i = 0; i < 9; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.01, 1e-12);
    expect_vec(s.d.contact[i].pos, {xy[i][0], xy[i][1], 0.09}, 1e-12);
    expect_vec(s.d.contact[i].frame, {0, 0, 1}, 1e-12);
  }
}

// Two cubes standing on edges that cross at right angles (A's top edge along x, B's bottom edge
// along y), 0.02 into each other: one contact at the crossing, the full depth (edge contacts are
// not halved), normal along z.
TEST(CollisionBox, EdgeEdgeCrossing) {
  const double h = 0.1, e = h * std::sqrt(2.0);  // edge height above the centre
  Scene s;
  s.add(kGeomBox, {h, h, h}, {0, 0, 0}, rot(45, 1, 0, 0));
  s.add(kGeomBox, {h, h, h}, {0.01, 0.02, 2 * e - 0.02}, rot(45, 0, 1, 0));
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_NEAR(c.dist, -0.02, 1e-12);
  expect_vec(c.pos, {0.01, 0, e - 0.01}, 1e-12);  // B's x, A's y
  expect_vec(c.frame, {0, 0, 1}, 1e-12);
}

// The same crossed edges apart by `gap` (margin 0.05): one contact at the crossing, the full gap,
// midway; the edge ends and the other corners are farther than the margin along z. 2.2.2 gives
// the same single point (probe: gap 0.01 and 0.03).
TEST(CollisionBox, EdgeEdgeSeparatedWithinMargin) {
  const double h = 0.1, e = h * std::sqrt(2.0);
  for (double gap : {0.01, 0.03}) {
    Scene s;
    s.add(kGeomBox, {h, h, h}, {0, 0, 0}, rot(45, 1, 0, 0));
    s.add(kGeomBox, {h, h, h}, {0.01, 0.02, 2 * e + gap}, rot(45, 0, 1, 0));
    s.m.geom_margin = {0.05, 0.05};
    s.run();
    ASSERT_EQ(s.d.ncon, 1) << "gap " << gap;
    EXPECT_NEAR(s.d.contact[0].dist, gap, 1e-12);
    expect_vec(s.d.contact[0].pos, {0.01, 0, e + gap / 2}, 1e-12);
    expect_vec(s.d.contact[0].frame, {0, 0, 1}, 1e-12);
  }
}

// R9 of collide_box.cc: a penetrating edge contact (a random state of the box-box probe, model 55
// trial 71 of seed 1) where a later reference corner gives 2.2.2's extra deep point on neither box
// (the fourth). Expected values: 2.2.2's mjCOLLISIONFUNC[box][box] at this state (printed to 17
// digits); 1e-9 allows for our quaternion-to-matrix rounding, far below the points' spacing.
TEST(CollisionBox, EdgeEdgeLaterCornerPoint) {
  Scene s;
  s.add(kGeomBox, {0.1976, 0.2223, 0.1541}, {0.0034330955042955877, -9.1767913924157291e-05, -0.002984306108522735},
        {0.83455402377329435, -0.3581207640035981, -0.41523044789518282, 0.053411374575543437});
  s.add(kGeomBox, {0.2829, 0.3497, 0.3083}, {0.25135531568644037, -0.023070675703697696, 0.2847693150235458},
        {0.51091844771020356, 0.050376299377657266, 0.55458466739288059, -0.65487435050025966});
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  const double expect[4][4] = {
      {-0.22278609151747661, -0.053191834158585104, 0.0779937343983505, 0.13981661412726543},
      {-0.19050273082744176, 0.22133858305506265, 0.12445742321895414, -0.13540687428415718},
      {-0.19673339604035942, -0.082600470523571251, -0.04635706830916677, 0.26216008071539743},
      {-0.56196683879198905, 0.087810686770690136, 0.019722115820084436, 0.061720361404659252}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, expect[i][0], 1e-9) << "contact " << i;
    expect_vec(s.d.contact[i].pos, {expect[i][1], expect[i][2], expect[i][3]}, 1e-9);
    expect_vec(s.d.contact[i].frame, {0.5629498984130028, 0.44642972853453133, 0.69554863910252562}, 1e-9);
  }
}

// R8 of collide_box.cc: edge contacts of boxes apart along n (margin 0.1) whose clipping finds no
// crossing, random states of the box-box probe that exercise its (b'') and (c'') pairs
// (expected values: 2.2.2's mjCOLLISIONFUNC[box][box], printed to 17 digits; 1e-9 as above):
//  - a later reference corner paired with R9's scaled point clamped to the incident face (seed 1,
//    model 83, trial 43: the one point lies on neither box);
//  - a first corner inside the incident face within the margin that 2.2.2 does not report, the
//    corner chain having started at a corner within one extent: only (c')'s pair of the incident
//    vertex below the reference plane (seed 1, model 146, trial 58);
//  - the chain's clamped pair, then (c)'s incident vertex inside the reference face (seed 4, model
//    55, trial 57).
TEST(CollisionBox, SeparatedEdgeCornerChain) {
  struct Case {
    double sa[3], sb[3], qpos[14];
    int ncon;
    double expect[2][4], normal[3];
  };
  const Case cases[] = {
      {{0.3057, 0.3600, 0.2433},
       {0.3514, 0.3110, 0.3328},
       {-0.2344851099437128, 0.43206243340278677, -0.38479863080381294, 0.58717964171745041, 0.27035120574612148,
        0.13848499002606773, -0.75030140706363135, -0.1894307484135061, -0.42877343230261217,
        0.036252854128704826, 0.57676493581923405, 0.17230628400360351, 0.47864331392443704, 0.63918176705670926},
       1,
       {{0.099080890693217044, 0.022678905175492703, -0.054177503308154795, -0.27871744579721713}},
       {-0.22704169335346133, -0.52977584605881867, 0.81718395873380689}},
      {{0.0865, 0.1721, 0.0890},
       {0.3961, 0.1072, 0.0939},
       {-0.088427348166691067, -0.30632589123647297, 0.24246541512251535, 0.039127126128831909,
        -0.44013964104523123, 0.73321491719299969, -0.51685786207344864, -0.00038094426554576179,
        -0.0017469000065449209, -0.00065968170043230131, 0.34604955815012411, -0.42199733498505709,
        -0.60081400101607929, -0.58411513313101582},
       1,
       {{-0.27054253868077388, -0.19262187797449976, -0.1139259336821995, 0.26080189014853694}},
       {0.1726258121903021, 0.98438080085910795, -0.03456541429839699}},
      {{0.3653, 0.2271, 0.1461},
       {0.1629, 0.1138, 0.3130},
       {0.15685358472965, 0.1405969664283418, -0.37373859363813577, -0.3812254129683651, -0.82595129934845013,
        -0.20804961836994124, 0.35942591991650841, -0.21153895717754573, -0.28605402570074967,
        -0.40045133036542946, 0.99767713103912481, 0, 0, 0.068120057263194922},
       2,
       {{0.082068177760089428, -0.032801018988161346, -0.1665667572321477, -0.07159267450481499},
        {0.057092259234788278, -0.045351841252065039, -0.13106526586189232, -0.087451330365429514}},
       {-0.70997542114051071, -0.70422645603268474, 0}}};
  for (const Case& c : cases) {
    Scene s;
    s.add(kGeomBox, {c.sa[0], c.sa[1], c.sa[2]}, {c.qpos[0], c.qpos[1], c.qpos[2]},
          {c.qpos[3], c.qpos[4], c.qpos[5], c.qpos[6]});
    s.add(kGeomBox, {c.sb[0], c.sb[1], c.sb[2]}, {c.qpos[7], c.qpos[8], c.qpos[9]},
          {c.qpos[10], c.qpos[11], c.qpos[12], c.qpos[13]});
    s.m.geom_margin = {0.1, 0.1};
    s.run();
    ASSERT_EQ(s.d.ncon, c.ncon) << "A size " << c.sa[0];
    for (int i = 0; i < c.ncon; ++i) {
      EXPECT_NEAR(s.d.contact[i].dist, c.expect[i][0], 1e-9) << "A size " << c.sa[0] << " contact " << i;
      expect_vec(s.d.contact[i].pos, {c.expect[i][1], c.expect[i][2], c.expect[i][3]}, 1e-9);
      expect_vec(s.d.contact[i].frame, {c.normal[0], c.normal[1], c.normal[2]}, 1e-9);
    }
  }
}

// Axis-aligned boxes 0.05 apart along x (margin 0.1), their y and z edges parallel: the face axes
// and the edge axes a_y x b_z, a_z x b_y tie, and all four incident corners are equally deep. 2.2.2
// gives the overlap rectangle's corners (full gap, midway) in an order that puts v0 on the side
// -sign((n . b_x) (a_z . b_z)) of B's z axis (R6a of collide_box.cc): B beside A's +x face, the
// same B turned 180 deg about x (b_z = -z), and B beside A's -x face (values from 2.2.2's
// mj_forward on these poses).
TEST(CollisionBox, ParallelEdgesSeparatedOrder) {
  struct Case {
    double x;
    bool flipped;
    double yz[4][2];
  };
  const Case cases[3] = {{0.45, false, {{0.3, -0.1}, {-0.05, 0.3}, {0.3, 0.3}, {-0.05, -0.1}}},
                         {0.45, true, {{0.3, -0.1}, {-0.05, 0.3}, {0.3, 0.3}, {-0.05, -0.1}}},
                         {-0.45, false, {{-0.05, 0.3}, {0.3, -0.1}, {0.3, 0.3}, {-0.05, -0.1}}}};
  for (const Case& c : cases) {
    Scene s;
    s.add(kGeomBox, {0.2, 0.3, 0.3}, {0, 0, 0});
    s.add(kGeomBox, {0.2, 0.2, 0.2}, {c.x, 0.15, 0.1}, c.flipped ? std::vector<double>{0, 1, 0, 0} : std::vector<double>{1, 0, 0, 0});
    s.m.geom_margin = {0.1, 0.1};
    s.run();
    ASSERT_EQ(s.d.ncon, 4) << "x " << c.x << " flipped " << c.flipped;
    const double sx = c.x > 0 ? 1 : -1;
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(s.d.contact[i].dist, 0.05, 1e-12);
      expect_vec(s.d.contact[i].pos, {sx * 0.225, c.yz[i][0], c.yz[i][1]}, 1e-12);
      expect_vec(s.d.contact[i].frame, {sx, 0, 0}, 1e-12);
    }
  }
}

// Equal cubes exactly on top of each other, 1e-4 deep (coincident faces and edges): 2.2.2's
// clipping yields each corner twice or three times; only the last of repeated positions is kept.
TEST(CollisionBox, CoincidentFacesRepeatedCornersRemoved) {
  Scene s;
  s.add(kGeomBox, {1, 1, 1}, {0, 0, 0});
  s.add(kGeomBox, {1, 1, 1}, {0, 0, 1.9998});
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  const double xy[4][2] = {{1, -1}, {-1, 1}, {1, 1}, {-1, -1}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.0001, 1e-12);
    expect_vec(s.d.contact[i].pos, {xy[i][0], xy[i][1], 0.9999}, 1e-12);
  }
}

// Deep penetration: a small cube sunk into a large one reports its four bottom corners, seen from
// the large cube's top face, at half the depth.
TEST(CollisionBox, DeepPenetration) {
  Scene s;
  s.add(kGeomBox, {1, 1, 1}, {0, 0, 0});
  s.add(kGeomBox, {0.2, 0.2, 0.2}, {0.1, 0.2, 0.9});  // bottom at 0.7: 0.3 deep
  s.run();
  ASSERT_EQ(s.d.ncon, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.d.contact[i].dist, -0.15, 1e-12);
    EXPECT_NEAR(s.d.contact[i].pos[2], 0.85, 1e-12);
    expect_vec(s.d.contact[i].frame, {0, 0, 1}, 1e-12);
  }
}

TEST(CollisionBox, SeparatedBeyondMargin) {
  Scene s;
  s.add(kGeomBox, {0.5, 0.5, 0.1}, {0, 0, 0});
  s.add(kGeomBox, {0.2, 0.2, 0.1}, {0, 0, 0.25});
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

// ------------------------------------------------------------------------------ custom function
int always_one(const Model&, const Data&, int, int, double, ContactPoint* out, void* user) {
  ++*static_cast<int*>(user);
  out[0].dist = -1;
  out[0].pos[0] = out[0].pos[1] = out[0].pos[2] = 0;
  for (double& f : out[0].frame) f = 0;
  out[0].frame[2] = 1;
  return 1;
}

TEST(CollisionTableTest, CustomFunctionPerTypePair) {
  Scene s;
  s.add(kGeomSphere, {0.1}, {0, 0, 0});
  s.add(kGeomSphere, {0.1}, {0.15, 0, 0});
  int calls = 0;
  CollisionTable t = default_collision_table();
  t.fn[kGeomSphere][kGeomSphere] = always_one;
  t.user[kGeomSphere][kGeomSphere] = &calls;
  s.d.contact.resize(10);
  collision(s.m, s.d, t);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_EQ(s.d.contact[0].dist, -1);
  // null entry disables the pair
  t.fn[kGeomSphere][kGeomSphere] = nullptr;
  collision(s.m, s.d, t);
  EXPECT_EQ(s.d.ncon, 0);
}

}  // namespace
}  // namespace moreau

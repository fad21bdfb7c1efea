// Unit tests of tendons, no MuJoCo: fixed tendon length and moment arms by hand, a
// spatial tendon through two sites (= their distance), wrapping around a sphere and a cylinder
// against the closed-form geodesic, pulleys, side sites, moment arms against finite differences of
// the length, tendon spring-dampers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "moreau/actuation.h"
#include "moreau/moreau.h"
#include "tendon/wrap.h"

namespace moreau {
namespace {

// Position stages up to tendons and transmission.
void position(const Model& m, Data& d) {
  kinematics(m, d);
  com_pos(m, d);
  tendon(m, d);
  transmission(m, d);
}

// Moment arms (ten_J rows) against central differences of the length in each dof direction.
void expect_jacobian_matches_finite_differences(const Model& m, Data& d, double tol) {
  position(m, d);
  const std::vector<double> J = d.ten_J;
  const std::vector<double> q0 = d.qpos;
  const double h = 1e-6;
  for (int i = 0; i < m.nv; ++i) {
    std::vector<double> dv(m.nv, 0.0);
    dv[i] = 1;
    d.qpos = q0;
    integrate_pos(m, d.qpos.data(), dv.data(), h);
    position(m, d);
    const std::vector<double> lp = d.ten_length;
    d.qpos = q0;
    integrate_pos(m, d.qpos.data(), dv.data(), -h);
    position(m, d);
    for (int t = 0; t < m.ntendon; ++t)
      EXPECT_NEAR(J[t * m.nv + i], (lp[t] - d.ten_length[t]) / (2 * h), tol) << "tendon " << t << " dof " << i;
  }
  d.qpos = q0;
  position(m, d);
}

TEST(Tendon, FixedLengthAndMomentArms) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><body><joint name="j0" axis="0 1 0"/><geom size=".1"/>
      <body pos="1 0 0"><joint name="j1" type="slide"/><geom size=".1"/></body></body></worldbody>
    <tendon><fixed name="t"><joint joint="j0" coef="2"/><joint joint="j1" coef="-0.5"/></fixed></tendon></mujoco>)");
  Data d = make_data(m);
  d.qpos = {0.3, 0.4};
  d.qvel = {1.0, -2.0};
  position(m, d);
  tendon_actuator_velocity(m, d);
  EXPECT_NEAR(d.ten_length[0], 2 * 0.3 - 0.5 * 0.4, 1e-15);
  EXPECT_EQ(d.ten_J[0], 2);
  EXPECT_EQ(d.ten_J[1], -0.5);
  EXPECT_NEAR(d.ten_velocity[0], 2 * 1.0 - 0.5 * -2.0, 1e-15);
  EXPECT_EQ(d.ten_wrapnum[0], 0);
}

TEST(Tendon, SpatialTwoSitesIsTheirDistance) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><site name="a" pos="0 0 1"/>
      <body pos="1 0 1"><joint type="slide" axis="1 0 0"/><geom size=".1"/><site name="b" pos="0 0 .5"/></body>
    </worldbody><tendon><spatial><site site="a"/><site site="b"/></spatial></tendon></mujoco>)");
  Data d = make_data(m);
  d.qpos[0] = 0.5;
  position(m, d);
  const double dx = 1.5, dz = 0.5, L = std::hypot(dx, dz);
  EXPECT_NEAR(d.ten_length[0], L, 1e-14);
  EXPECT_NEAR(d.ten_J[0], dx / L, 1e-14);  // dL/dq = direction . slide axis
  ASSERT_EQ(d.ten_wrapnum[0], 2);
  EXPECT_EQ(d.wrap_obj[0], -1);
  EXPECT_NEAR(d.wrap_xpos[3], 1.5, 1e-14);
  EXPECT_NEAR(d.wrap_xpos[5], 1.5, 1e-14);
}

// Closed-form geodesic around a circle of radius r between points at distance d1, d2 from its
// centre, separated by the angle phi (< pi, path on the short side):
// L = sqrt(d1^2 - r^2) + sqrt(d2^2 - r^2) + r (phi - acos(r/d1) - acos(r/d2)).
double circle_geodesic(double d1, double d2, double phi, double r) {
  return std::sqrt(d1 * d1 - r * r) + std::sqrt(d2 * d2 - r * r) + r * (phi - std::acos(r / d1) - std::acos(r / d2));
}

TEST(Tendon, SphereWrapIsTheGeodesic) {
  const double r = 0.4;
  const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, c[3] = {0, 0, 0};
  // Opposite points through the centre: the path goes half way around, in the plane of a side site.
  const double a[3] = {-2, 0, 0}, b[3] = {1, 0, 0}, side_up[3] = {0, 0, 3}, side_dn[3] = {0, 0, -3};
  double t0[3], t1[3];
  double arc = tendon_detail::wrap(a, b, c, eye, r, false, side_up, t0, t1);
  double L = std::hypot(t0[0] - a[0], t0[2] - a[2]) + arc + std::hypot(t1[0] - b[0], t1[2] - b[2]);
  EXPECT_NEAR(L, circle_geodesic(2, 1, M_PI, r), 1e-12);
  EXPECT_GT(t0[2], 0);  // on the side site's side
  EXPECT_NEAR(t0[0], -r * r / 2, 1e-12);  // tangent point from a: (r^2/d) along a
  EXPECT_NEAR(t0[2], r * std::sqrt(1 - r * r / 4), 1e-12);
  arc = tendon_detail::wrap(a, b, c, eye, r, false, side_dn, t0, t1);
  EXPECT_LT(t0[2], 0);
  // A general plane: points at angle 2 rad apart, rotated out of any coordinate plane.
  const double p0[3] = {1.2 * std::cos(0.3), 1.2 * std::sin(0.3), 0.0};
  const double p1[3] = {0.9 * std::cos(2.3), 0.9 * std::sin(2.3), 0.0};
  const double R[9] = {0.36, 0.48, -0.8, -0.8, 0.6, 0, 0.48, 0.64, 0.6};  // a rotation matrix
  const double centre[3] = {0.1, -0.2, 0.3};
  double w0[3], w1[3];
  for (int k = 0; k < 3; ++k) {
    w0[k] = centre[k] + R[3 * k] * p0[0] + R[3 * k + 1] * p0[1] + R[3 * k + 2] * p0[2];
    w1[k] = centre[k] + R[3 * k] * p1[0] + R[3 * k + 1] * p1[1] + R[3 * k + 2] * p1[2];
  }
  arc = tendon_detail::wrap(w0, w1, centre, R, 0.7, false, nullptr, t0, t1);
  ASSERT_GE(arc, 0);
  L = std::sqrt(std::pow(t0[0] - w0[0], 2) + std::pow(t0[1] - w0[1], 2) + std::pow(t0[2] - w0[2], 2)) + arc +
      std::sqrt(std::pow(t1[0] - w1[0], 2) + std::pow(t1[1] - w1[1], 2) + std::pow(t1[2] - w1[2], 2));
  EXPECT_NEAR(L, circle_geodesic(1.2, 0.9, 2.0, 0.7), 1e-12);
  EXPECT_NEAR(std::sqrt(std::pow(t0[0] - centre[0], 2) + std::pow(t0[1] - centre[1], 2) + std::pow(t0[2] - centre[2], 2)), 0.7, 1e-12);
}

TEST(Tendon, StraightSegmentThatMissesDoesNotWrap) {
  const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, c[3] = {0, 0, 0};
  const double a[3] = {-2, 1, 0}, b[3] = {2, 1, 0};
  double t0[3], t1[3];
  EXPECT_LT(tendon_detail::wrap(a, b, c, eye, 0.5, false, nullptr, t0, t1), 0);
  EXPECT_LT(tendon_detail::wrap(a, b, c, eye, 0.5, true, nullptr, t0, t1), 0);
  // A side site on the other side forces the path around the far side.
  const double side[3] = {0, -2, 0};
  EXPECT_GT(tendon_detail::wrap(a, b, c, eye, 0.5, false, side, t0, t1), 0);
  EXPECT_LT(t0[1], 0);
  // End point inside the obstacle: no wrapping.
  const double in[3] = {0.1, 0, 0};
  EXPECT_LT(tendon_detail::wrap(in, b, c, eye, 0.5, false, nullptr, t0, t1), 0);
}

TEST(Tendon, CylinderWrapIsTheUnrolledHelix) {
  // Cylinder axis z: the cross-section path is the circle geodesic, the height grows linearly with
  // it, so the length is sqrt(L2d^2 + dz^2) (unrolling the cylinder).
  const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, c[3] = {0, 0, 0};
  const double r = 0.3, a[3] = {-1, 0, -0.4}, b[3] = {0, 1.5, 0.6}, side[3] = {1, -1, 0};
  double t0[3], t1[3];
  const double helix = tendon_detail::wrap(a, b, c, eye, r, true, side, t0, t1);
  ASSERT_GT(helix, 0);
  const double L = std::sqrt(std::pow(t0[0] - a[0], 2) + std::pow(t0[1] - a[1], 2) + std::pow(t0[2] - a[2], 2)) +
                   helix +
                   std::sqrt(std::pow(t1[0] - b[0], 2) + std::pow(t1[1] - b[1], 2) + std::pow(t1[2] - b[2], 2));
  // Side site at (1,-1): the path goes the long way (3 pi / 2 between the points' directions).
  const double L2d = circle_geodesic(1, 1.5, 1.5 * M_PI, r);
  EXPECT_NEAR(L, std::hypot(L2d, 1.0), 1e-12);
  EXPECT_NEAR(std::hypot(t0[0], t0[1]), r, 1e-12);
}

TEST(Tendon, PulleyDividesTheBranchAndWrapsRecordPath) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody>
      <site name="a" pos="0 0 2"/><site name="c" pos="1 0 2"/>
      <geom name="s" type="sphere" pos="0.9 0 1" size=".2" contype="0" conaffinity="0"/>
      <body pos="0 0 0"><joint type="slide" axis="0 0 1"/><geom size=".1"/><site name="b" pos="0 0 0"/>
        <site name="d" pos="1 0 0"/></body>
    </worldbody><tendon><spatial name="t">
      <site site="a"/><site site="b"/><pulley divisor="2"/><site site="c"/><geom geom="s"/><site site="d"/>
    </spatial></tendon></mujoco>)");
  Data d = make_data(m);
  d.qpos[0] = 0.25;
  position(m, d);
  // First branch: |a - b| = 1.75; second: around the sphere, halved.
  const double xc[3] = {1, 0, 2}, xd[3] = {1, 0, 0.25}, centre[3] = {0.9, 0, 1};
  const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double t0[3], t1[3];
  const double arc = tendon_detail::wrap(xc, xd, centre, eye, 0.2, false, nullptr, t0, t1);
  const double branch2 = arc >= 0 ? std::hypot(t0[0] - 1, t0[2] - 2) + arc + std::hypot(t1[0] - 1, t1[2] - 0.25) : 1.75;
  EXPECT_NEAR(d.ten_length[0], 1.75 + branch2 / 2, 1e-12);
  // Path: a, b, pulley, c, (two tangent points if wrapped), d.
  ASSERT_GE(arc, 0);
  ASSERT_EQ(d.ten_wrapnum[0], 7);
  EXPECT_EQ(d.wrap_obj[0], -1);
  EXPECT_EQ(d.wrap_obj[2], -2);
  if (arc >= 0) EXPECT_EQ(d.wrap_obj[4], 0);
  expect_jacobian_matches_finite_differences(m, d, 1e-7);
}

TEST(Tendon, MomentArmsMatchFiniteDifferencesOnAWrappingArm) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><site name="o" pos="0 0.1 .3"/>
      <body><joint type="ball"/><geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
        <geom name="cyl" type="cylinder" pos=".5 0 0" size=".08 .1" euler="90 0 0" contype="0" conaffinity="0"/>
        <site name="side" pos=".5 0 .3"/>
        <body pos=".5 0 0"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
          <geom name="ball" type="sphere" pos=".3 0 0" size=".06" contype="0" conaffinity="0"/>
          <site name="m" pos=".15 0 .1"/><site name="e" pos=".5 0 .1"/></body></body>
      <body pos="0 1 0"><freejoint/><geom size=".1"/><site name="f" pos=".1 0 0"/></body>
    </worldbody><tendon>
      <spatial><site site="o"/><geom geom="cyl" sidesite="side"/><site site="m"/><geom geom="ball"/><site site="e"/></spatial>
      <spatial><site site="f"/><site site="e"/></spatial>
    </tendon></mujoco>)");
  Data d = make_data(m);
  const double q[] = {0.9, 0.1, -0.3, 0.2, 0.7, 0, 1, 0.1, 0.95, 0.2, 0.1, 0};
  for (int i = 0; i < m.nq; ++i) d.qpos[i] = q[i];
  normalize_quat(m, d.qpos.data());
  expect_jacobian_matches_finite_differences(m, d, 1e-7);
}

TEST(Tendon, SpringDamperPassiveForce) {
  const Model m = load_model_from_string(R"(
    <mujoco><worldbody><body><joint name="j0" axis="0 1 0"/><geom size=".1"/>
      <body pos="1 0 0"><joint name="j1" type="slide"/><geom size=".1"/></body></body></worldbody>
    <tendon><fixed stiffness="10" damping="3" springlength="0.1">
      <joint joint="j0" coef="2"/><joint joint="j1" coef="-0.5"/></fixed></tendon></mujoco>)");
  Data d = make_data(m);
  d.qpos = {0.3, 0.4};
  d.qvel = {1.0, -2.0};
  position(m, d);
  tendon_actuator_velocity(m, d);
  std::fill(d.qfrc_passive.begin(), d.qfrc_passive.end(), 0.0);
  tendon_passive(m, d);
  const double L = 0.4, v = 3.0, f = -10 * (L - 0.1) - 3 * v;
  EXPECT_NEAR(d.qfrc_passive[0], 2 * f, 1e-13);
  EXPECT_NEAR(d.qfrc_passive[1], -0.5 * f, 1e-13);
  EXPECT_NEAR(tendon_energy(m, d), 0.5 * 10 * 0.3 * 0.3, 1e-14);
}

}  // namespace
}  // namespace moreau

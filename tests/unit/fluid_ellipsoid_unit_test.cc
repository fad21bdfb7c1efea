// The ellipsoid fluid model (computation chapter, "Fluid forces", ellipsoid model) on cases with
// closed-form answers:
//   - a sphere of radius R in a viscous medium (density 0): Stokes' drag f = -6 pi beta R v and
//     torque g = -8 pi beta R^3 w;
//   - a sphere in an inviscid dense medium: the projected area is pi R^2 in every direction
//     (A_max - A_proj = 0, no Kutta lift), the added mass is rho V/2 on every axis (kappa = 2/3) and
//     the virtual moments of inertia vanish, so f = -C_blunt rho pi R^2 |v| v + rho V/2 (v x w)
//     + C_magnus rho V (w x v) and g = -C_angular rho (8 pi/15) R^5 |w| w;
//   - the virtual masses of a prolate spheroid against Lamb's closed forms (Hydrodynamics, 1932,
//     art. 373: alpha_0 = 2 (1 - e^2)/e^3 (atanh(e) - e), beta_0 = 1/e^2 - (1 - e^2)/e^3 atanh(e),
//     m_A = V alpha/(2 - alpha)) and of a thin disc against its limit 8/3 R^3 (per unit density);
//   - a body at rest feels no force (no 0/0 in the projected area or the lift).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "moreau/moreau.h"

namespace moreau {
namespace {

constexpr double kR = 0.1;

Model sphere_model(double density, double viscosity, const std::string& coef = "0.5 0.25 1.5 1.0 1.0") {
  const std::string xml =
      "<mujoco><option gravity='0 0 0' density='" + std::to_string(density) + "' viscosity='" +
      std::to_string(viscosity) +
      "'/><worldbody><body><freejoint/><geom type='sphere' size='0.1' mass='1' fluidshape='ellipsoid' "
      "fluidcoef='" + coef + "'/></body></worldbody></mujoco>";
  return load_model_from_string(xml);
}

Data run(const Model& m, const double v[3], const double w[3]) {
  Data d = make_data(m);
  for (int k = 0; k < 3; ++k) {
    d.qvel[k] = v[k];
    d.qvel[3 + k] = w[k];
  }
  forward(m, d);
  return d;
}

void cross(double* c, const double* a, const double* b) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

TEST(FluidEllipsoidUnit, SphereInViscousFlowFeelsStokesDrag) {
  const double beta = 0.7;
  const Model m = sphere_model(0, beta);
  const double v[3] = {0.3, -1.2, 2.0}, w[3] = {-0.5, 0.25, 1.5};
  const Data d = run(m, v, w);
  // The free joint's rotational dofs are body-frame axes through the body origin; the sphere is
  // centred there with the world orientation, so qfrc_passive is (force, torque) directly.
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(d.qfrc_passive[k], -6 * M_PI * beta * kR * v[k], 1e-14) << k;
    EXPECT_NEAR(d.qfrc_passive[3 + k], -8 * M_PI * beta * kR * kR * kR * w[k], 1e-15) << k;
  }
}

TEST(FluidEllipsoidUnit, SphereInDenseInviscidFlow) {
  const double rho = 1000, c_blunt = 0.5, c_angular = 1.5, c_magnus = 0.8;
  const Model m = sphere_model(rho, 0, "0.5 0.25 1.5 1.0 0.8");
  const double v[3] = {0.3, -1.2, 2.0}, w[3] = {-0.5, 0.25, 1.5};
  const Data d = run(m, v, w);
  const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  const double spin = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const double volume = 4.0 / 3.0 * M_PI * kR * kR * kR;
  double vxw[3];
  cross(vxw, v, w);
  for (int k = 0; k < 3; ++k) {
    const double drag = -c_blunt * rho * M_PI * kR * kR * speed * v[k];
    const double added_mass = rho * volume / 2 * vxw[k];
    const double magnus = -c_magnus * rho * volume * vxw[k];
    const double f = drag + added_mass + magnus;
    const double g = -c_angular * rho * 8 * M_PI / 15 * std::pow(kR, 5) * spin * w[k];
    EXPECT_NEAR(d.qfrc_passive[k], f, 1e-12 * std::abs(drag)) << k;
    EXPECT_NEAR(d.qfrc_passive[3 + k], g, 1e-12 * std::abs(g)) << k;
  }
}

TEST(FluidEllipsoidUnit, VirtualMassOfASphere) {
  const Model m = sphere_model(1, 0);
  const double volume = 4.0 / 3.0 * M_PI * kR * kR * kR;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(m.geom_fluid[6 + k], volume / 2, 1e-15 * volume) << k;
    EXPECT_EQ(m.geom_fluid[9 + k], 0) << k;  // a sphere turning displaces no fluid
  }
}

TEST(FluidEllipsoidUnit, VirtualMassOfAProlateSpheroidAndADisc) {
  const Model m = load_model_from_string(
      "<mujoco><worldbody><body><freejoint/>"
      "<geom type='ellipsoid' size='2 1 1' fluidshape='ellipsoid'/>"
      "<geom type='ellipsoid' size='1e-7 1 1' fluidshape='ellipsoid'/>"
      "</body></worldbody></mujoco>");
  const double a = 2, b = 1, e = std::sqrt(1 - b * b / (a * a));
  const double alpha = 2 * (1 - e * e) / (e * e * e) * (std::atanh(e) - e);
  const double beta = 1 / (e * e) - (1 - e * e) / (e * e * e) * std::atanh(e);
  const double volume = 4.0 / 3.0 * M_PI * a * b * b;
  EXPECT_NEAR(m.geom_fluid[6], volume * alpha / (2 - alpha), 1e-13 * volume);
  EXPECT_NEAR(m.geom_fluid[7], volume * beta / (2 - beta), 1e-13 * volume);
  EXPECT_NEAR(m.geom_fluid[8], volume * beta / (2 - beta), 1e-13 * volume);
  EXPECT_EQ(m.geom_fluid[9], 0);  // about the axis of symmetry
  // Thin disc of radius 1 moving along its normal: m_A -> 8/3 R^3 (the relative correction is of
  // the order of the thickness ratio, 1e-7).
  EXPECT_NEAR(m.geom_fluid[kNFLUID + 6], 8.0 / 3.0, 1e-6);
}

TEST(FluidEllipsoidUnit, NoForceAtRest) {
  const Model m = load_model_from_string(
      "<mujoco><option density='1.2' viscosity='0.1' gravity='0 0 0'/><worldbody><body><freejoint/>"
      "<geom type='box' size='.1 .2 .01' euler='10 20 30' fluidshape='ellipsoid'/>"
      "</body></worldbody></mujoco>");
  Data d = make_data(m);
  forward(m, d);
  for (int k = 0; k < m.nv; ++k) EXPECT_EQ(d.qfrc_passive[k], 0) << k;
}

}  // namespace
}  // namespace moreau

// Fluid forces (computation chapter, "Fluid forces", inertia model) on hand-computable cases: a free
// body whose diagonal inertia makes its equivalent inertia box a cube of half-size r
// (I = 2/3 m r^2 on every axis, so r_x = sqrt(3/(2m) (I_y + I_z - I_x)) = r and r_eq = r).
//   viscous medium (density 0): Stokes drag f = -6 pi beta r v and torque g = -8 pi beta r^3 w;
//   dense inviscid medium: f_i = -2 rho r^2 |v_i| v_i, g_i = -rho/2 r (2 r^4) |w_i| w_i;
//   wind: the force depends on v - wind only.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "moreau/moreau.h"

namespace moreau {
namespace {

constexpr double kR = 0.1, kMass = 2.0;

Model cube_model(double density, double viscosity, const std::string& wind = "0 0 0") {
  const double I = 2.0 / 3.0 * kMass * kR * kR;
  const std::string xml =
      "<mujoco><option gravity='0 0 0' density='" + std::to_string(density) + "' viscosity='" +
      std::to_string(viscosity) + "' wind='" + wind +
      "'/><worldbody><body><freejoint/><inertial pos='0 0 0' mass='" + std::to_string(kMass) +
      "' diaginertia='" + std::to_string(I) + " " + std::to_string(I) + " " + std::to_string(I) +
      "'/><geom type='sphere' size='0.1' contype='0' conaffinity='0'/></body></worldbody></mujoco>";
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

TEST(FluidUnit, StokesDragAndTorqueOfASphereEquivalentBody) {
  const double beta = 0.7;
  Model m = cube_model(0, beta);
  // std::to_string keeps 6 decimals: use the inertia the model actually holds for r.
  const double* I = &m.body_inertia[3];
  const double r = std::sqrt(1.5 * I[0] / m.body_mass[1]);
  ASSERT_NEAR(r, kR, 1e-5);
  const double v[3] = {0.3, -1.2, 2.0}, w[3] = {-0.5, 0.25, 1.5};
  Data d = run(m, v, w);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(d.qfrc_passive[k], -6 * M_PI * beta * r * v[k], 1e-12) << k;
    EXPECT_NEAR(d.qfrc_passive[3 + k], -8 * M_PI * beta * r * r * r * w[k], 1e-12) << k;
  }
}

TEST(FluidUnit, QuadraticDragInADenseMedium) {
  const double rho = 1000;
  Model m = cube_model(rho, 0);
  const double r = std::sqrt(1.5 * m.body_inertia[3] / m.body_mass[1]);
  const double v[3] = {0.3, -1.2, 2.0}, w[3] = {-0.5, 0.25, 1.5};
  Data d = run(m, v, w);
  for (int k = 0; k < 3; ++k) {
    const double f = -2 * rho * r * r * std::abs(v[k]) * v[k];
    const double g = -0.5 * rho * r * (2 * r * r * r * r) * std::abs(w[k]) * w[k];
    EXPECT_NEAR(d.qfrc_passive[k], f, 1e-9 * std::abs(f) + 1e-12) << k;
    EXPECT_NEAR(d.qfrc_passive[3 + k], g, 1e-9 * std::abs(g) + 1e-12) << k;
  }
}

TEST(FluidUnit, WindMovesTheMedium) {
  // A body at rest in wind (1, 0, -2) feels the force of a body moving with (-1, 0, 2) in still air.
  Model windy = cube_model(1.2, 0.3, "1 0 -2");
  Model still = cube_model(1.2, 0.3);
  const double zero[3] = {0, 0, 0}, v[3] = {-1, 0, 2};
  Data a = run(windy, zero, zero);
  Data b = run(still, v, zero);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(a.qfrc_passive[k], b.qfrc_passive[k], 1e-14) << k;
  EXPECT_GT(a.qfrc_passive[0], 0);  // pushed along the wind
}

TEST(FluidUnit, DisabledWithPassiveForces) {
  Model m = cube_model(1000, 1);
  m.opt.disableflags |= kDsblPassive;
  const double v[3] = {1, 1, 1}, w[3] = {1, 1, 1};
  Data d = run(m, v, w);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(d.qfrc_passive[k], 0);
}

}  // namespace
}  // namespace moreau

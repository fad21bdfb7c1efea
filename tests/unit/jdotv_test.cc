// The Jdot*v term of connect and weld constraints (enable flag jdotv; computation chapter,
// "Constraint dynamics": a_u = J M^-1 (tau - c) + Jdot v): the term equals the time derivative of
// J(q(t)) v along the zero-acceleration path q(t) = q + t v, and it removes the drift that its
// absence causes on a rotating connect/weld scene.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "constraint/storage.h"
#include "moreau/moreau.h"

namespace {

using moreau::Data;
using moreau::Model;

// Bodies in two trees: a hinge-ball chain and free bodies; connect and weld between trees and
// within one tree; a weld with torquescale.
const char* kChains = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      <body name="b" pos="0.4 0 0" quat="0.9 0.1 0.3 0.2">
        <joint type="ball"/>
        <geom type="box" size="0.1 0.05 0.02" contype="0" conaffinity="0"/>
        <body name="c" pos="0.2 0.1 0">
          <joint type="slide" axis="1 1 0"/>
          <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
    <body name="f1" pos="0.6 0.1 1.1">
      <freejoint/>
      <geom type="box" size="0.05 0.08 0.1" contype="0" conaffinity="0"/>
    </body>
    <body name="f2" pos="0.3 -0.4 0.8" quat="0.8 0.2 -0.3 0.4">
      <freejoint/>
      <geom type="ellipsoid" size="0.05 0.08 0.1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="b" body2="f1" anchor="0.1 0.05 0.02"/>
    <weld body1="f2" body2="c" torquescale="0.3"/>
    <weld body1="a" body2="f2" relpose="0.1 0.2 0.3 0.9 0.1 0.2 0.3"/>
    <connect body1="f1" body2="c" anchor="-0.1 0 0"/>
  </equality>
</mujoco>)";

// J(q) v for the equality rows at configuration q (flag off).
std::vector<double> jv(const Model& m, Data& d, const std::vector<double>& q, const std::vector<double>& v) {
  moreau::reset_data(m, d);
  std::copy(q.begin(), q.end(), d.qpos.begin());
  std::copy(v.begin(), v.end(), d.qvel.begin());
  moreau::forward(m, d);
  return std::vector<double>(d.efc_vel.begin(), d.efc_vel.begin() + d.ne);
}

TEST(Jdotv, EqualsTimeDerivativeOfJv) {
  Model m = moreau::load_model_from_string(kChains);
  Data d = moreau::make_data(m);
  std::mt19937 rng(3);
  std::normal_distribution<double> n01(0, 1);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> q = m.qpos0, v(m.nv), dq(m.nv);
    for (auto& x : dq) x = 0.3 * n01(rng);
    moreau::integrate_pos(m, q.data(), dq.data(), 1);
    for (auto& x : v) x = 2 * n01(rng);
    // analytic, at q
    moreau::reset_data(m, d);
    std::copy(q.begin(), q.end(), d.qpos.begin());
    std::copy(v.begin(), v.end(), d.qvel.begin());
    moreau::forward(m, d);
    ASSERT_EQ(d.ne, 3 + 6 + 6 + 3);
    std::vector<double> analytic(d.ne);
    for (int i = 0; i < d.ne;) {
      const int k = moreau::constraint::equality_jdotv(m, d, d.efc_id[i], analytic.data() + i);
      ASSERT_GT(k, 0);
      i += k;
    }
    // centred differences along q(t) = integrate_pos(q, v, t): zero generalized acceleration
    const double h = 1e-6;
    std::vector<double> qp = q, qm = q;
    moreau::integrate_pos(m, qp.data(), v.data(), h);
    moreau::integrate_pos(m, qm.data(), v.data(), -h);
    const std::vector<double> jp = jv(m, d, qp, v), jm = jv(m, d, qm, v);
    double scale = 1;
    for (double a : analytic) scale = std::max(scale, std::abs(a));
    for (int i = 0; i < static_cast<int>(analytic.size()); ++i) {
      // centred-difference error: O(h^2) truncation plus rounding ~ 1e-16 |Jv| / h ~ 1e-9
      EXPECT_NEAR(analytic[i], (jp[i] - jm[i]) / (2 * h), 1e-6 * scale) << "trial " << trial << " row " << i;
    }
  }
}

// A rotating arm with a free ball connected at its tip and a free box welded to it, spinning at
// 5 rad/s without gravity: the ball needs a centripetal acceleration of w^2 r = 25 m/s^2. Without
// Jdot v the solver does not see it and the soft constraint stretches until its spring supplies
// the force (about w^2 r / k, k ~ 1/timeconst^2 = 2500: a centimetre); with it the anchors stay
// together.
const char* kSpinning = R"(
<mujoco>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="arm">
      <joint name="spin" type="hinge" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 1 0 0" size="0.05" mass="1" contype="0" conaffinity="0"/>
    </body>
    <body name="ball" pos="1 0 0">
      <freejoint/>
      <geom type="sphere" size="0.1" mass="1"/>
    </body>
    <body name="box" pos="1 0 0.5">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.05" mass="1"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="arm" body2="ball" anchor="1 0 0"/>
    <weld body1="arm" body2="box"/>
  </equality>
</mujoco>)";

double max_violation(bool jdotv, double seconds) {
  Model m = moreau::load_model_from_string(kSpinning);
  if (jdotv) m.opt.enableflags |= moreau::kEnblJdotv;
  Data d = moreau::make_data(m);
  const double w = 5;
  // rigid rotation about z: every point moves with w x r, free bodies spin at w (local z = world z)
  const double qvel[13] = {w, 0, w * 1, 0, 0, 0, w, 0, w * 1, 0, 0, 0, w};
  std::copy(qvel, qvel + 13, d.qvel.begin());
  double worst = 0;
  const int steps = static_cast<int>(seconds / m.opt.timestep);
  for (int i = 0; i < steps; ++i) {
    moreau::step(m, d);
    for (int r = 0; r < d.ne; ++r) worst = std::max(worst, std::abs(d.efc_pos[r]));
  }
  return worst;
}

TEST(Jdotv, RemovesDriftOfRotatingConnectAndWeld) {
  const double without = max_violation(false, 10), with = max_violation(true, 10);
  std::cout << "largest violation over 10 s: " << 1e3 * with << " mm with Jdot v, " << 1e3 * without
            << " mm without\n";
  EXPECT_GT(without, 5e-3);      // the centripetal offset: millimetres
  EXPECT_LT(with, 0.1 * without);  // measured 0.24 mm against 8.7 mm
}

TEST(Jdotv, OffByDefaultAndParsedFromMjcf) {
  Model m = moreau::load_model_from_string(kSpinning);
  EXPECT_EQ(m.opt.enableflags & moreau::kEnblJdotv, 0);
  std::string xml = kSpinning;
  xml.replace(xml.find("<option "), 8, "<option><flag jdotv=\"enable\"/></option><option ");
  Model on = moreau::load_model_from_string(xml);
  EXPECT_NE(on.opt.enableflags & moreau::kEnblJdotv, 0);
}

TEST(Jdotv, ForwardAndInverseAgree) {
  // The term enters aref, which forward and inverse dynamics share: fwdinv stays at solver accuracy.
  Model m = moreau::load_model_from_string(kChains);
  m.opt.enableflags |= moreau::kEnblJdotv | moreau::kEnblFwdinv;
  m.opt.tolerance = 1e-12;
  Data d = moreau::make_data(m);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = 0.5 * std::sin(i + 1.0);
  moreau::forward(m, d);
  double scale = 1;
  for (int i = 0; i < m.nv; ++i) scale = std::max(scale, std::abs(d.qfrc_constraint[i]));
  EXPECT_LT(d.solver_fwdinv[0], 1e-6 * scale);
}

}  // namespace

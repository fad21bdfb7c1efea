// inverse_derivatives with constraint rows (contacts, joint and tendon limits, equality) and with
// invdiscrete under Euler with joint damping, against inverse_fd (centred, eps 1e-6).
//
// Error = max |analytic - fd| / max(max |fd|, 1) over the three nv x nv blocks together. Centred
// differences at 1e-6 have truncation ~1e-12 and round-off ~1e-16 |f| / eps ~ 1e-10 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "derivative_test_util.h"
#include "moreau/analytic_derivative.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::Vec;

// A box and a condim-6 sphere resting on the plane (0.3 mm deep: inside the impedance's width 1 mm,
// away from the jumps of its second derivative at the width and at its midpoint, where centred
// differences err by O(eps)), a damped two-hinge arm with a joint limit and a
// fixed-tendon limit past their range, a damped slide pair coupled to the arm by a joint equality
// (quadratic polynomial) and a connect, a free box welded to the world.
const char* kInverseModel = R"(
<mujoco>
  <compiler autolimits="true" angle="radian"/>
  <option timestep="0.01"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.0997">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
    <body pos="0.5 0 0.0497">
      <freejoint/>
      <geom type="sphere" size="0.05" condim="6" mass="0.5"/>
    </body>
    <body name="arm" pos="-1 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" range="-0.5 0.5" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body pos="0.3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0" range="-0.5 0.5" damping="0.2"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
    <body name="link" pos="-1 0.5 1">
      <joint name="s1" type="slide" axis="1 0 0" damping="0.1"/>
      <joint name="s2" type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.05"/>
    </body>
    <body name="w" pos="1 1 1" euler="0.1 0.2 0.3">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/>
    </body>
  </worldbody>
  <equality>
    <joint joint1="s1" joint2="h2" polycoef="0 0.5 0.1 0 0"/>
    <connect body1="link" body2="arm" anchor="0.02 0 0"/>
    <weld body1="w" relpose="1 1 1 1 0 0 0"/>
  </equality>
  <tendon>
    <fixed name="t" range="-0.2 0.2"><joint joint="h1" coef="1"/><joint joint="h2" coef="1"/></fixed>
  </tendon>
</mujoco>)";

struct Blocks {
  Vec q, v, a;
};

// rel_error over the three blocks together.
double rel_error(const Blocks& an, const Blocks& fd) {
  auto joined = [](const Blocks& b) {
    Vec all = b.q;
    all.insert(all.end(), b.v.begin(), b.v.end());
    all.insert(all.end(), b.a.begin(), b.a.end());
    return all;
  };
  return testing::rel_error(joined(an), joined(fd));
}

// The state: h1 past its range (0.55 > 0.5), the tendon h1 + h2 = 0.95 past 0.2, velocities
// N(0, 0.3), qacc = forward's plus N(0, 0.2) (the rows' states then come from the inverse's own
// residuals).
void set_state(const Model& m, Data& d) {
  std::mt19937 rng(7);
  std::normal_distribution<double> n01(0, 1);
  std::copy(m.qpos0.begin(), m.qpos0.end(), d.qpos.begin());
  d.qpos[m.jnt_qposadr[2]] = 0.55;
  d.qpos[m.jnt_qposadr[3]] = 0.4;
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = 0.3 * n01(rng);
  forward(m, d);
  for (int i = 0; i < m.nv; ++i) d.qacc[i] += 0.2 * n01(rng);
}

// inverse_derivatives against inverse_fd: pyramidal and elliptic cones, with the constraint rows
// (every type) and without, continuous and invdiscrete (Euler with joint damping: the inverse runs
// on qacc_c = M^-1 (M + hB) qacc_d). Checks that the rows are present and that the derivatives do
// not change d's state.
TEST(InverseDerivative, ConstrainedAndDiscreteMatchInverseFd) {
  Model m = load_model_from_string(kInverseModel);
  const int nv = m.nv;
  for (int cone : {kConePyramidal, kConeElliptic})
    for (bool constrained : {true, false})
      for (bool discrete : {false, true}) {
        m.opt.cone = cone;
        if (constrained) m.opt.disableflags &= ~kDsblConstraint;
        else m.opt.disableflags |= kDsblConstraint;
        if (discrete) m.opt.enableflags |= kEnblInvdiscrete;
        else m.opt.enableflags &= ~kEnblInvdiscrete;
        Data d = make_data(m);
        set_state(m, d);
        const Vec q0 = d.qpos, v0 = d.qvel, a0 = d.qacc;
        Blocks an{Vec(nv * nv), Vec(nv * nv), Vec(nv * nv)}, fd = an;
        inverse_derivatives(m, d, an.q.data(), an.v.data(), an.a.data());
        EXPECT_EQ(d.qpos, q0);
        EXPECT_EQ(d.qvel, v0);
        EXPECT_EQ(d.qacc, a0);
        int ncontact = 0, nlimit = 0, neq = 0;
        for (int r = 0; r < d.nefc; ++r) {
          const int t = d.efc_type[r];
          ncontact += t == kCnstrContactPyramidal || t == kCnstrContactElliptic;
          nlimit += t == kCnstrLimitJoint || t == kCnstrLimitTendon;
          neq += t == kCnstrEquality;
        }
        if (constrained) {
          EXPECT_GT(ncontact, 0);
          EXPECT_EQ(nlimit, 2);
          EXPECT_EQ(neq, 1 + 3 + 6);
        }
        inverse_fd(m, d, 1e-6, true, false, fd.q.data(), fd.v.data(), fd.a.data(), nullptr, nullptr, nullptr,
                   nullptr);
        const double e = rel_error(an, fd);
        std::printf("cone %d constrained %d invdiscrete %d (nefc %d): error %.2e\n", cone, constrained, discrete,
                    d.nefc, e);
        EXPECT_LE(e, constrained ? 1e-5 : 1e-6);
      }
}

// invdiscrete with Euler and damping is not the continuous formula: d qfrc_inverse / d qacc is
// M + hB there (no constraints), which the continuous M misses by hB on the damped dofs.
TEST(InverseDerivative, EulerInvdiscreteAddsDamping) {
  Model m = load_model_from_string(kInverseModel);
  m.opt.disableflags |= kDsblConstraint;
  const int nv = m.nv;
  Data d = make_data(m);
  set_state(m, d);
  Vec Fa(nv * nv), Fc(nv * nv);
  inverse_derivatives(m, d, nullptr, nullptr, Fc.data());
  m.opt.enableflags |= kEnblInvdiscrete;
  inverse_derivatives(m, d, nullptr, nullptr, Fa.data());
  for (int i = 0; i < nv; ++i)
    for (int k = 0; k < nv; ++k) {
      const double hb = i == k ? m.opt.timestep * m.dof_damping[i] : 0.0;
      EXPECT_NEAR(Fa[i * nv + k], Fc[i * nv + k] + hb, 1e-12 * (1 + std::abs(Fc[i * nv + k]))) << i << " " << k;
    }
}

}  // namespace
}  // namespace moreau

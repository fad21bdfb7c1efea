// Analytic derivatives through spatial tendons, muscles and actuator transmissions
// (src/derivative/tendon_deriv.cc) against centred finite differences.
//
// Error measure: max |analytic - fd| / max(max |fd|, 1) over a whole matrix. Differences are
// centred at h = 1e-5 and h/2 and extrapolated (Richardson: truncation O(h^4), round-off ~1e-11
// relative), except where stated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "derivative/tendon_deriv.h"
#include "derivative_test_util.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::fd_qpos;
using testing::fd_vec;
using testing::perturb_qpos;
using testing::rel_error;
using testing::Vec;
constexpr double kH = 1e-5;
const std::string kArm26 = "/usr/share/mujoco/model/tendon_arm/arm26.xml";

// Every wrap kind: a sphere with and without a side site outside it and with one inside it (the
// touch point), a cylinder with and without a side site, a pulley (divisor 2), a ball joint and a
// body on two slides and a ball joint (a free joint would take the implicit integrators' midpoint
// path); tendon springs and dampers; actuators on the spatial tendons (motor, affine
// position/velocity, two muscles, a filter; the second muscle and the filter with actearly, set in
// the Model: 2.2.2's MJCF has no such attribute).
const char* kWrapScene = R"(
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <site name="w0" pos="0.03 0.01 0.3"/>
    <site name="w1" pos="-0.2 0.05 0.25"/>
    <body name="b1">
      <joint name="j1" type="hinge" axis="0 1 0" damping="0.1"/>
      <joint name="j1b" type="hinge" axis="1 0 0"/>
      <geom name="sph" type="sphere" size="0.1" mass="1"/>
      <site name="side_out" pos="0.25 0.02 0"/>
      <site name="side_in" pos="-0.03 0.04 0.01"/>
      <site name="c0" pos="0.08 0.02 -0.15"/>
      <site name="m1" pos="0.1 0.1 -0.1"/>
      <body name="b2" pos="0 0 -0.3">
        <joint name="j2" type="ball" damping="0.05"/>
        <geom name="cyl" type="cylinder" size="0.05 0.1" euler="90 0 0" mass="0.5"/>
        <geom type="capsule" fromto="0 0 -0.05 0 0 -0.3" size="0.03"/>
        <site name="c1" pos="-0.08 -0.03 -0.1"/>
        <site name="cside" pos="0.1 0 -0.1"/>
        <site name="a2" pos="0.05 0.02 -0.2"/>
        <site name="a3" pos="-0.04 -0.03 -0.25"/>
      </body>
    </body>
    <body name="fb" pos="0.5 0 0">
      <joint type="slide" axis="1 0 0"/>
      <joint type="slide" axis="0 0 1"/>
      <joint type="ball"/>
      <geom type="box" size=".05 .05 .05"/>
      <site name="f1" pos="0 0.02 0.05"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="sphere" stiffness="20" damping="0.3">
      <site site="w0"/><geom geom="sph"/><site site="a2"/>
    </spatial>
    <spatial name="sphere_side">
      <site site="w0"/><geom geom="sph" sidesite="side_out"/><site site="a3"/>
    </spatial>
    <spatial name="sphere_inside" stiffness="5">
      <site site="w1"/><geom geom="sph" sidesite="side_in"/><site site="a3"/>
    </spatial>
    <spatial name="cylinder" damping="0.2">
      <site site="c0"/><geom geom="cyl"/><site site="c1"/>
    </spatial>
    <spatial name="cylinder_side">
      <site site="c0"/><geom geom="cyl" sidesite="cside"/><site site="c1"/>
    </spatial>
    <spatial name="pulley" stiffness="8" damping="0.1" springlength="0.5">
      <site site="w1"/><site site="m1"/><pulley divisor="2"/><site site="m1"/><site site="f1"/>
      <pulley divisor="2"/><site site="m1"/><site site="a2"/>
    </spatial>
  </tendon>
  <actuator>
    <motor tendon="sphere" gear="2"/>
    <general name="cylinder" tendon="cylinder" gainprm="3 0.5 0.2" biasprm="0.1 -2 -0.3" biastype="affine"
             gaintype="affine"/>
    <muscle name="muscle" tendon="sphere_side" ctrllimited="true" ctrlrange="0 1" lengthrange="0.7 1.1"/>
    <muscle name="muscle_early" tendon="cylinder_side" ctrllimited="true" ctrlrange="0 1" lengthrange="0.2 0.4"/>
    <general name="filter_early" tendon="pulley" dyntype="filter" dynprm="0.05" gainprm="4"/>
  </actuator>
  <sensor>
    <tendonpos tendon="sphere"/> <tendonvel tendon="sphere"/> <tendonvel tendon="sphere_inside"/>
    <tendonvel tendon="cylinder_side"/> <tendonvel tendon="pulley"/>
    <actuatorpos actuator="cylinder"/> <actuatorvel actuator="cylinder"/> <actuatorfrc actuator="cylinder"/>
    <actuatorfrc actuator="muscle"/> <actuatorfrc actuator="muscle_early"/> <actuatorfrc actuator="filter_early"/>
  </sensor>
</mujoco>)";

Model wrap_scene() {
  Model m = load_model_from_string(kWrapScene);
  m.actuator_actearly.assign(m.nu, 0);
  m.actuator_actearly[3] = m.actuator_actearly[4] = 1;
  return m;
}

// A random state with activations inside [0.1, 0.9] (not [0, 1]): the muscles' activation dynamics
// clamp at 0 and 1, and the differences along act must stay off the clamps.
void random_state(const Model& m, Data& d, unsigned seed, double spread) {
  testing::random_state(m, d, seed, {.qpos = spread, .act_lo = 0.1, .act_width = 0.8});
}

// Whether every wrapped segment of the model wraps the same way at all the differences' points as at
// the state (else the differences straddle a branch switch): the wrap_obj pattern of the path.
std::vector<int> wrap_pattern(const Data& d) { return std::vector<int>(d.wrap_obj.begin(), d.wrap_obj.end()); }

// d ten_J / d qpos of every tendon against centred differences of ten_J; d ten_length / dq = ten_J.
// wrapped[t] counts the compared states at which tendon t wrapped around a geom.
void check_tendons(const Model& m, unsigned seeds, double spread, double* worst, std::vector<int>* wrapped) {
  wrapped->assign(m.ntendon, 0);
  Data d = make_data(m);
  const int nv = m.nv, nt = m.ntendon;
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    random_state(m, d, seed, spread);
    forward(m, d);
    const std::vector<int> pattern = wrap_pattern(d);
    bool same = true;
    const Vec fd = fd_qpos(m, d, nt * (nv + 1), kH, [&](double* r) {
      forward(m, d);
      same = same && wrap_pattern(d) == pattern;
      for (int t = 0; t < nt; ++t) {
        r[t * (nv + 1)] = d.ten_length[t];
        for (int i = 0; i < nv; ++i) r[t * (nv + 1) + 1 + i] = d.ten_J[static_cast<size_t>(t) * nv + i];
      }
    });
    forward(m, d);
    if (!same) continue;  // a branch switch within the differences' steps
    for (int t = 0; t < nt; ++t)
      for (int w = d.ten_wrapadr[t]; w < d.ten_wrapadr[t] + d.ten_wrapnum[t]; ++w)
        if (d.wrap_obj[w] >= 0) {
          ++(*wrapped)[t];
          break;
        }
    Vec DJ(static_cast<size_t>(nv) * nv);
    for (int t = 0; t < nt; ++t) {
      internal::tendon_jacobian_deriv(m, d, t, DJ.data());
      Vec an, num, len_an, len_fd;
      for (int i = 0; i < nv; ++i) {
        len_an.push_back(d.ten_J[static_cast<size_t>(t) * nv + i]);
        len_fd.push_back(fd[static_cast<size_t>(t * (nv + 1)) * nv + i]);
        for (int k = 0; k < nv; ++k) {
          an.push_back(DJ[static_cast<size_t>(k) * nv + i]);
          num.push_back(fd[static_cast<size_t>(t * (nv + 1) + 1 + i) * nv + k]);
        }
      }
      const double e = rel_error(an, num), el = rel_error(len_an, len_fd);
      *worst = std::max(*worst, e);
      EXPECT_LE(el, 1e-8) << "tendon " << t << " seed " << seed;
      EXPECT_LE(e, 1e-6) << "tendon " << t << " seed " << seed;
    }
  }
}

TEST(TendonActuatorDerivative, TendonJacobianMatchesCentredDifferences) {
  double worst = 0;
  std::vector<int> wrapped;
  check_tendons(load_model(kArm26), 4, 0.5, &worst, &wrapped);
  std::printf("arm26: d ten_J/dq worst %.2e; states wrapped per tendon:", worst);
  for (int w : wrapped) std::printf(" %d", w);
  std::printf("\n");
  worst = 0;
  const Model m = wrap_scene();
  check_tendons(m, 6, 0.3, &worst, &wrapped);
  std::printf("wrap scene: d ten_J/dq worst %.2e; states wrapped per tendon:", worst);
  for (int w : wrapped) std::printf(" %d", w);
  std::printf("\n");
  // every wrapping tendon (all but the pulley) wrapped at some compared state
  for (int t = 0; t < 5; ++t) EXPECT_GT(wrapped[t], 0) << "tendon " << t;
}

// Muscle gain, bias and their length/velocity derivatives, and the activation dynamics, at points
// on every piece of the curves (FL's four quadratics and zero outside, FV's two, FP's quadratic
// and line; activating, deactivating, with and without tausmooth).
TEST(TendonActuatorDerivative, MuscleCurvesMatchCentredDifferences) {
  const double lr[2] = {0.2, 0.4};
  const double prm[9] = {0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  double worst = 0;
  auto cmp = [&](double an, double fd) {
    const double e = std::abs(an - fd) / std::max(1.0, std::abs(fd));
    worst = std::max(worst, e);
    EXPECT_LE(e, 1e-7) << an << " vs " << fd;
  };
  const double acc0 = 3.0, L0 = (lr[1] - lr[0]) / (prm[1] - prm[0]);
  for (double Ln : {0.45, 0.6, 0.9, 1.1, 1.4, 1.58, 1.7})
    for (double Vn : {-1.2, -0.5, 0.1, 0.25}) {
      const double len = lr[0] + (Ln - prm[0]) * L0, vel = Vn * L0 * prm[6];
      const internal::MuscleDeriv md = internal::muscle_deriv(len, vel, lr, acc0, prm, prm);
      const double h = 1e-6;
      auto at = [&](double l, double v) { return internal::muscle_deriv(l, v, lr, acc0, prm, prm); };
      cmp(md.gain, muscle_gain(len, vel, lr, acc0, prm));
      cmp(md.bias, muscle_bias(len, lr, acc0, prm));
      cmp(md.gl, (at(len + h, vel).gain - at(len - h, vel).gain) / (2 * h));
      cmp(md.gv, (at(len, vel + h).gain - at(len, vel - h).gain) / (2 * h));
      cmp(md.bl, (at(len + h, vel).bias - at(len - h, vel).bias) / (2 * h));
      cmp(md.glv, (at(len + h, vel).gv - at(len - h, vel).gv) / (2 * h));
      cmp(md.gvv, (at(len, vel + h).gv - at(len, vel - h).gv) / (2 * h));
    }
  for (double smooth : {0.0, 0.3}) {
    const double dprm[3] = {0.01, 0.04, smooth};
    for (double ctrl : {0.2, 0.5, 0.9, 1.2})
      for (double act : {0.1, 0.45, 0.6, 0.95}) {
        double da, du;
        internal::muscle_dynamics_deriv(ctrl, act, dprm, &da, &du);
        const double h = 1e-7;
        cmp(da, (muscle_dynamics(ctrl, act + h, dprm) - muscle_dynamics(ctrl, act - h, dprm)) / (2 * h));
        cmp(du, (muscle_dynamics(ctrl + h, act, dprm) - muscle_dynamics(ctrl - h, act, dprm)) / (2 * h));
      }
  }
  std::printf("muscle curves: worst %.2e\n", worst);
}

// Every transmission kind but the body's (adhesion: its moment follows the contacts): slider-crank,
// site without and with a reference site (MJCF 2.2.2 has no refsite: it is set in the Model), ball
// joint (joint and jointinparent), free joint (jointinparent), on a hinge, a ball, a slide, a hinge
// and a free body; affine gains and biases, so that the length's derivative enters.
const char* kTransmissionScene = R"(
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="crank" pos="0 0 0.5">
      <joint name="crank" type="hinge" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="0.5"/>
      <site name="pin" pos="0.2 0 0"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="arm_ball" type="ball" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02" mass="0.3"/>
        <site name="tip" pos="0.02 0.01 -0.3" quat="0.9 0.1 0.3 0.2"/>
      </body>
    </body>
    <body name="slider" pos="0.6 0 0.5">
      <joint name="slide" type="slide" axis="1 0 0"/>
      <joint name="tilt" type="hinge" axis="0 1 0"/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/>
      <site name="sl" zaxis="-1 0 0.2"/>
    </body>
    <body name="free" pos="-0.5 0 0.5">
      <freejoint name="free"/>
      <geom type="box" size="0.05 0.08 0.1" mass="1"/>
      <site name="fs" pos="0.05 0 0.1"/>
    </body>
  </worldbody>
  <actuator>
    <general name="sc" site="pin" slidersite="sl" cranklength="0.5" gaintype="affine" gainprm="2 0.5 0.1"
             biastype="affine" biasprm="0 -1 -0.2"/>
    <general name="site" site="tip" gear="1 0.5 0.2 0.1 -0.3 0.2" gainprm="3"/>
    <general name="siteref" site="fs" gear="1 -0.5 0.3 0.2 0.4 -0.1" gaintype="affine" gainprm="1 2 0.3"
             biastype="affine" biasprm="0 -3 -0.1"/>
    <general name="ball" joint="arm_ball" gear="0.3 0.5 -0.2 0 0 0" gaintype="affine" gainprm="1 2 0.5"
             biastype="affine" biasprm="0 -2 -0.3"/>
    <general name="ballp" jointinparent="arm_ball" gear="0.2 -0.4 0.6 0 0 0" gaintype="affine" gainprm="1 1 0.2"
             biastype="affine" biasprm="0 -1 0"/>
    <general name="freep" jointinparent="free" gear="0.5 0 0.2 0.1 0.3 -0.2" gainprm="2"/>
  </actuator>
  <sensor>
    <actuatorpos actuator="sc"/> <actuatorvel actuator="sc"/> <actuatorpos actuator="site"/>
    <actuatorvel actuator="site"/> <actuatorpos actuator="siteref"/> <actuatorvel actuator="siteref"/>
    <actuatorpos actuator="ball"/> <actuatorvel actuator="ballp"/> <actuatorvel actuator="freep"/>
    <actuatorfrc actuator="sc"/> <actuatorfrc actuator="siteref"/> <actuatorfrc actuator="ball"/>
  </sensor>
</mujoco>)";

Model transmission_scene() {
  Model m = load_model_from_string(kTransmissionScene);
  m.actuator_trnid[2 * name2id(m, kObjActuator, "siteref") + 1] = name2id(m, kObjSite, "pin");
  return m;
}

// d actuator_length / dq and d actuator_moment / dq (transmission_deriv) against centred
// differences of the transmission stage.
TEST(TendonActuatorDerivative, TransmissionsMatchCentredDifferences) {
  const Model m = transmission_scene();
  Data d = make_data(m);
  const int nv = m.nv, nu = m.nu;
  double worst = 0;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    random_state(m, d, seed, 0.4);
    forward(m, d);
    const Vec fd = fd_qpos(m, d, nu * (nv + 1), kH, [&](double* r) {
      forward(m, d);
      for (int u = 0; u < nu; ++u) {
        r[u * (nv + 1)] = d.actuator_length[u];
        for (int i = 0; i < nv; ++i) r[u * (nv + 1) + 1 + i] = d.actuator_moment[static_cast<size_t>(u) * nv + i];
      }
    });
    forward(m, d);
    Vec dlen(nv), dmom(static_cast<size_t>(nv) * nv);
    for (int u = 0; u < nu; ++u) {
      ASSERT_TRUE(internal::transmission_deriv_supported(m, u));
      std::fill(dmom.begin(), dmom.end(), 0.0);
      internal::transmission_deriv(m, d, u, dlen.data(), dmom.data());
      Vec an, num, la, lf;
      for (int i = 0; i < nv; ++i) {
        la.push_back(dlen[i]);
        lf.push_back(fd[static_cast<size_t>(u * (nv + 1)) * nv + i]);
        for (int k = 0; k < nv; ++k) {
          an.push_back(dmom[static_cast<size_t>(k) * nv + i]);
          num.push_back(fd[static_cast<size_t>(u * (nv + 1) + 1 + i) * nv + k]);
        }
      }
      const double el = rel_error(la, lf), em = rel_error(an, num);
      worst = std::max({worst, el, em});
      EXPECT_LE(el, 1e-8) << "actuator " << u << " seed " << seed;
      EXPECT_LE(em, 1e-8) << "actuator " << u << " seed " << seed;
    }
  }
  std::printf("transmissions: worst %.2e\n", worst);
}

// The state for the model tests: arm26's joints inside their range (0..120 degrees: the limits
// inactive), the wrap scene around qpos0.
Data model_state(const Model& m, unsigned seed) {
  Data d = make_data(m);
  random_state(m, d, seed, 0.3);
  std::mt19937 rng(seed + 100);
  std::uniform_real_distribution<double> u01(0, 1);
  for (int j = 0; j < m.njnt; ++j)
    if (m.jnt_limited[j] && m.jnt_type[j] == kJointHinge) {
      const double lo = m.jnt_range[2 * j], hi = m.jnt_range[2 * j + 1];
      d.qpos[m.jnt_qposadr[j]] = lo + (0.15 + 0.7 * u01(rng)) * (hi - lo);
    }
  forward(m, d);
  return d;
}

// forward_derivatives (d qacc and d act_dot over qpos, qvel, act, ctrl) against centred differences
// of forward, no column falling back.
void check_forward(const Model& m, unsigned seed, double* worst) {
  Data d = model_state(m, seed);
  ASSERT_EQ(d.nefc, 0);
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  for (const std::string& f : derivative_fallbacks(m, d)) ADD_FAILURE() << f;
  const int nv = m.nv, na = m.na, nu = m.nu, nout = nv + na;
  Vec aq(nv * nv), av(nv * nv), aact(nv * na), au(nv * nu), gact(na * na), gu(na * nu);
  forward_derivatives(m, d, aq.data(), av.data(), aact.data(), au.data(), nullptr, gact.data(), gu.data());
  auto out = [&](double* r) {
    forward(m, d);
    for (int i = 0; i < nv; ++i) r[i] = d.qacc[i];
    for (int i = 0; i < na; ++i) r[nv + i] = d.act_dot[i];
  };
  // rows: qacc then act_dot; the analytic matrices into the same layout
  auto rows = [&](const Vec& top, const Vec& bottom, int n) {
    Vec r(top);
    r.insert(r.end(), bottom.begin(), bottom.end());
    (void)n;
    return r;
  };
  const Vec fq = fd_qpos(m, d, nout, kH, out);
  Vec gq(static_cast<size_t>(na) * nv, 0.0);  // act_dot does not depend on qpos here
  const double eq = rel_error(rows(aq, gq, nv), fq);
  auto fd_entries = [&](double* x, int nx) { return fd_vec(x, nx, nout, kH, out); };
  Vec gv(static_cast<size_t>(na) * nv, 0.0);
  const double ev = rel_error(rows(av, gv, nv), fd_entries(d.qvel.data(), nv));
  const double ea = na ? rel_error(rows(aact, gact, na), fd_entries(d.act.data(), na)) : 0;
  const double eu = nu ? rel_error(rows(au, gu, nu), fd_entries(d.ctrl.data(), nu)) : 0;
  std::printf("  seed %u: qpos %.2e, qvel %.2e, act %.2e, ctrl %.2e\n", seed, eq, ev, ea, eu);
  for (double e : {eq, ev, ea, eu}) {
    *worst = std::max(*worst, e);
    EXPECT_LE(e, 1e-6) << "seed " << seed;
  }
}

TEST(TendonActuatorDerivative, ForwardMatchesCentredDifferences) {
  double worst = 0;
  const Model arm = load_model(kArm26);
  for (unsigned seed = 1; seed <= 3; ++seed) check_forward(arm, seed, &worst);
  std::printf("arm26 forward_derivatives: worst %.2e\n", worst);
  worst = 0;
  const Model wrap = wrap_scene();
  for (unsigned seed = 1; seed <= 3; ++seed) check_forward(wrap, seed, &worst);
  std::printf("wrap scene forward_derivatives: worst %.2e\n", worst);
  worst = 0;
  const Model trn = transmission_scene();
  for (unsigned seed = 1; seed <= 3; ++seed) check_forward(trn, seed, &worst);
  std::printf("transmission scene forward_derivatives: worst %.2e\n", worst);
}

// transition_derivatives (A, B; C, D of the scenes' tendonvel and actuatorpos/vel/frc sensors)
// against transition_fd (centred, eps 1e-6) for Euler, implicit and implicitfast, no column or
// sensor row falling back.
TEST(TendonActuatorDerivative, TransitionMatchesTransitionFd) {
  const char* names[] = {"arm26", "wrap scene", "transmission scene"};
  for (int which = 0; which < 3; ++which) {
    Model m = which == 0 ? load_model(kArm26) : which == 1 ? wrap_scene() : transmission_scene();
    for (int integ : {kIntEuler, kIntImplicit, kIntImplicitFast}) {
      m.opt.integrator = integ;
      double worst_a = 0, worst_b = 0, worst_c = 0;
      for (unsigned seed = 1; seed <= 2; ++seed) {
        Data d = model_state(m, seed);
        for (const std::string& f : derivative_fallbacks(m, d)) ADD_FAILURE() << f;
        const int ndx = 2 * m.nv + m.na, nu = m.nu;
        const int ns = m.nsensordata;
        Vec A(ndx * ndx), B(ndx * nu), Af(ndx * ndx), Bf(ndx * nu), C(ns * ndx), D(ns * nu), Cf(C.size()),
            Df(D.size());
        transition_derivatives(m, d, A.data(), B.data(), C.data(), D.data());
        transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), Cf.data(), Df.data());
        worst_a = std::max(worst_a, rel_error(A, Af));
        worst_b = std::max(worst_b, rel_error(B, Bf));
        worst_c = std::max({worst_c, rel_error(C, Cf), rel_error(D, Df)});
      }
      std::printf("%s integrator %d: A %.2e, B %.2e, C and D (tendonvel, actuator sensors) %.2e\n",
                  names[which], integ, worst_a, worst_b, worst_c);
      EXPECT_LE(worst_a, 1e-6);
      EXPECT_LE(worst_b, 1e-6);
      EXPECT_LE(worst_c, 1e-6);
    }
  }
}

// Constraint rows of spatial tendons: a limit (set 1 cm inside the tendon's length at the state, so
// that its row is active), friction loss on a wrapped tendon, and an equality coupling two
// spatial tendons through a quadratic polynomial. d qacc / d qpos of forward_derivatives against
// centred differences of forward (eps 1e-6, not extrapolated: the rows' active set must hold at
// every evaluation; checked), Newton converged to 1e-12; bound 1e-5.
const char* kRowScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-12" iterations="200"/>
  <worldbody>
    <site name="w0" pos="0.03 0.01 0.3"/>
    <body name="b1">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <joint name="j1b" type="hinge" axis="1 0 0"/>
      <geom name="sph" type="sphere" size="0.1" mass="1"/>
      <site name="c0" pos="0.08 0.02 -0.15"/>
      <site name="m1" pos="0.1 0.1 -0.1"/>
      <body name="b2" pos="0 0 -0.3">
        <joint name="j2" type="ball"/>
        <geom name="cyl" type="cylinder" size="0.05 0.1" euler="90 0 0" mass="0.5"/>
        <geom type="capsule" fromto="0 0 -0.05 0 0 -0.3" size="0.03"/>
        <site name="c1" pos="-0.08 -0.03 -0.1"/>
        <site name="a2" pos="0.05 0.02 -0.2"/>
        <site name="a3" pos="-0.04 -0.03 -0.25"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="limit" limited="true" range="0 10">
      <site site="w0"/><geom geom="sph"/><site site="a2"/>
    </spatial>
    <spatial name="friction" frictionloss="0.3">
      <site site="c0"/><geom geom="cyl"/><site site="c1"/>
    </spatial>
    <spatial name="e1"><site site="w0"/><site site="m1"/></spatial>
    <spatial name="e2"><site site="m1"/><site site="a3"/></spatial>
  </tendon>
  <equality>
    <tendon tendon1="e1" tendon2="e2" polycoef="0 0.8 0.5 0 0"/>
  </equality>
  <sensor>
    <tendonlimitpos tendon="limit"/> <tendonlimitvel tendon="limit"/>
  </sensor>
</mujoco>)";

TEST(TendonActuatorDerivative, ConstraintRowsMatchCentredDifferences) {
  double worst = 0;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    Model m = load_model_from_string(kRowScene);
    Data d = make_data(m);
    random_state(m, d, seed, 0.3);
    forward(m, d);
    m.tendon_range[1] = d.ten_length[0] - 0.01;
    forward(m, d);
    int types = 0;
    for (int r = 0; r < d.nefc; ++r)
      types |= d.efc_type[r] == kCnstrLimitTendon ? 1 : d.efc_type[r] == kCnstrFrictionTendon ? 2
                                                       : d.efc_type[r] == kCnstrEquality    ? 4 : 0;
    ASSERT_EQ(types, 7) << "seed " << seed;
    for (const std::string& f : derivative_fallbacks(m, d)) ADD_FAILURE() << f;
    forward(m, d);
    const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
    const int nv = m.nv, nefc = d.nefc;
    Vec aq(static_cast<size_t>(nv) * nv), fd(aq.size()), dq(nv), p(nv), n(nv);
    forward_derivatives(m, d, aq.data(), nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    const Vec q0(d.qpos.begin(), d.qpos.end());
    bool same = true;
    for (int k = 0; k < nv; ++k) {
      for (int sg = 1; sg >= -1; sg -= 2) {
        std::copy(q0.begin(), q0.end(), d.qpos.begin());
        perturb_qpos(m, d.qpos.data(), dq, k, sg * 1e-6);
        forward(m, d);
        same = same && d.nefc == nefc && std::equal(state.begin(), state.end(), d.efc_state.begin());
        std::copy_n(d.qacc.begin(), nv, (sg > 0 ? p : n).begin());
      }
      for (int i = 0; i < nv; ++i) fd[static_cast<size_t>(i) * nv + k] = (p[i] - n[i]) / 2e-6;
    }
    std::copy(q0.begin(), q0.end(), d.qpos.begin());
    EXPECT_TRUE(same) << "seed " << seed << ": the active set changed within the differences";
    // the limit's tendonlimitpos and tendonlimitvel sensors: C against transition_fd's
    const int ndx = 2 * nv + m.na;
    Vec C(static_cast<size_t>(m.nsensordata) * ndx), Cf(C.size());
    transition_derivatives(m, d, nullptr, nullptr, C.data(), nullptr);
    transition_fd(m, d, 1e-6, true, nullptr, nullptr, Cf.data(), nullptr);
    const double e = rel_error(aq, fd), ec = rel_error(C, Cf);
    worst = std::max({worst, e, ec});
    std::printf("  seed %u (nefc %d): d qacc/d qpos %.2e, sensors %.2e\n", seed, nefc, e, ec);
    EXPECT_LE(e, 1e-5) << "seed " << seed;
    EXPECT_LE(ec, 1e-5) << "seed " << seed;
  }
  std::printf("spatial tendon rows: worst %.2e\n", worst);
}

// Adhesion (body transmission): a pad on a slide and two hinges, its box's four corners in the
// plane's margin band (margin 0.01, gap 0.01: contacts that make no constraint rows but count for
// the transmission), the pad tilted; an adhesion actuator and an actuatorvel sensor. transmission
// derivatives against differences of the transmission stage, forward_derivatives against differences
// of forward, A, B, C, D against transition_fd.
const char* kAdhesionScene = R"(
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="pad" pos="0 0 0.026">
      <joint name="lift" type="slide" axis="0 0 1"/>
      <joint name="roll" type="hinge" axis="1 0 0"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom type="box" size="0.1 0.08 0.02" margin="0.01" gap="0.01" mass="1"/>
    </body>
  </worldbody>
  <actuator>
    <adhesion name="glue" body="pad" ctrlrange="0 1" gain="5"/>
  </actuator>
  <sensor>
    <actuatorvel actuator="glue"/> <actuatorfrc actuator="glue"/>
  </sensor>
</mujoco>)";

TEST(TendonActuatorDerivative, AdhesionMatchesCentredDifferences) {
  Model m = load_model_from_string(kAdhesionScene);
  m.opt.integrator = kIntImplicitFast;
  Data d = make_data(m);
  const int nv = m.nv;
  double worst = 0;
  for (unsigned seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    d.qpos[0] = 0.001 * u(rng), d.qpos[1] = 0.02 * u(rng), d.qpos[2] = 0.02 * u(rng);
    for (int i = 0; i < nv; ++i) d.qvel[i] = u(rng);
    d.ctrl[0] = 0.6;
    forward(m, d);
    ASSERT_EQ(d.ncon, 4) << "seed " << seed;
    ASSERT_EQ(d.nefc, 0) << "seed " << seed;
    for (const std::string& f : derivative_fallbacks(m, d)) ADD_FAILURE() << f;
    // the moment's derivative
    const Vec fd = fd_qpos(m, d, nv, kH, [&](double* r) {
      forward(m, d);
      for (int i = 0; i < nv; ++i) r[i] = d.actuator_moment[i];
    });
    forward(m, d);
    Vec dlen(nv), dmom(static_cast<size_t>(nv) * nv), an;
    internal::transmission_deriv(m, d, 0, dlen.data(), dmom.data());
    for (int i = 0; i < nv; ++i)
      for (int k = 0; k < nv; ++k) an.push_back(dmom[static_cast<size_t>(k) * nv + i]);
    // relative to the derivative's own scale (about 0.02 here: the corners' lever arms nearly cancel)
    double big = 0, diff = 0;
    for (size_t i = 0; i < fd.size(); ++i)
      big = std::max(big, std::abs(fd[i])), diff = std::max(diff, std::abs(an[i] - fd[i]));
    ASSERT_GT(big, 0.005) << "the moment turns with the pad";  // not a vacuous comparison
    const double em = diff / big;
    // A, B, C, D against transition_fd
    const int ndx = 2 * nv, ns = m.nsensordata;
    Vec A(ndx * ndx), B(ndx), C(ns * ndx), D(ns), Af(A.size()), Bf(B.size()), Cf(C.size()), Df(D.size());
    transition_derivatives(m, d, A.data(), B.data(), C.data(), D.data());
    transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), Cf.data(), Df.data());
    const double ea = rel_error(A, Af), eb = rel_error(B, Bf), ec = std::max(rel_error(C, Cf), rel_error(D, Df));
    std::printf("  seed %u: d moment %.2e (max %.2f), A %.2e, B %.2e, C/D %.2e\n", seed, em, big, ea, eb, ec);
    worst = std::max({worst, em, ea, eb, ec});
    EXPECT_LE(em, 1e-8) << "seed " << seed;
    EXPECT_LE(ea, 1e-6) << "seed " << seed;
    EXPECT_LE(eb, 1e-6) << "seed " << seed;
    EXPECT_LE(ec, 1e-6) << "seed " << seed;
  }
  std::printf("adhesion: worst %.2e\n", worst);
}

}  // namespace
}  // namespace moreau

// Analytic derivatives (moreau/analytic_derivative.h) against centred finite differences.
//
// Error measure: max |analytic - fd| / max(max |fd|, max |f|, 1) over a whole matrix, f the
// differentiated function at the state (relative to the derivative where it is of the order of the
// function; relative to the function where the derivative vanishes: a lone free body's RNE does not
// depend on its position, and the differences are then round-off). The differences are centred
// and extrapolated (richardson below), so that their own error stays far below the bound 1e-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../model_list.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using Vec = std::vector<double>;
constexpr double kEps = 1e-4;

// Centred differences at h = kEps and h/2, extrapolated (Richardson): truncation O(h^4) ~ 1e-16,
// round-off ~ 1e-16 |f| / h ~ 1e-12 |f| (ill-conditioned mass matrices, such as the composite
// cloth's, amplify it by their condition number: 1e-6 differences there have 1e-5 round-off).
double richardson(double p, double n, double p2, double n2) {
  const double d1 = (p - n) / (2 * kEps), d2 = (p2 - n2) / kEps;
  return (4 * d2 - d1) / 3;
}

double rel_error(const Vec& a, const Vec& b, double fscale) {
  double num = 0, den = fscale;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / std::max(den, 1.0);
}

// A random state near qpos0: a tangent step of 0.3 rad per dof, velocities N(0, 1), activations in
// [0, 1], controls inside the middle 80% of their range.
void random_state(const Model& m, Data& d, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n01(0, 1);
  std::uniform_real_distribution<double> u01(0, 1);
  std::copy(m.qpos0.begin(), m.qpos0.end(), d.qpos.begin());
  Vec dq(m.nv);
  for (auto& x : dq) x = 0.3 * n01(rng);
  integrate_pos(m, d.qpos.data(), dq.data(), 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = n01(rng);
  for (int i = 0; i < m.na; ++i) d.act[i] = u01(rng);
  for (int u = 0; u < m.nu; ++u) {
    if (m.actuator_ctrllimited[u]) {
      const double lo = m.actuator_ctrlrange[2 * u], hi = m.actuator_ctrlrange[2 * u + 1];
      d.ctrl[u] = lo + (0.1 + 0.8 * u01(rng)) * (hi - lo);
    } else {
      d.ctrl[u] = n01(rng);
    }
  }
}

// Centred differences (Richardson) of g (an nout vector of the state) along each tangent direction
// of qpos, into a row-major nout x nv matrix.
// max |g| at the current state.
template <class G>
double fscale(int nout, G g) {
  Vec v(nout);
  g(v.data());
  double s = 0;
  for (double x : v) s = std::max(s, std::abs(x));
  return s;
}

template <class G>
Vec fd_qpos(const Model& m, Data& d, int nout, G g) {
  const Vec q0 = d.qpos;
  Vec out(static_cast<size_t>(nout) * m.nv), dq(m.nv), p(nout), n(nout), p2(nout), n2(nout);
  for (int k = 0; k < m.nv; ++k) {
    std::fill(dq.begin(), dq.end(), 0.0);
    dq[k] = 1;
    auto at = [&](double e, double* r) {
      d.qpos = q0;
      integrate_pos(m, d.qpos.data(), dq.data(), e);
      g(r);
    };
    at(kEps, p.data()), at(-kEps, n.data()), at(kEps / 2, p2.data()), at(-kEps / 2, n2.data());
    for (int i = 0; i < nout; ++i) out[static_cast<size_t>(i) * m.nv + k] = richardson(p[i], n[i], p2[i], n2[i]);
  }
  d.qpos = q0;
  return out;
}

// The same along each entry of x (size nx), row-major nout x nx.
template <class G>
Vec fd_vec(double* x, int nx, int nout, G g) {
  Vec out(static_cast<size_t>(nout) * nx), p(nout), n(nout), p2(nout), n2(nout);
  for (int k = 0; k < nx; ++k) {
    const double x0 = x[k];
    auto at = [&](double e, double* r) {
      x[k] = x0 + e;
      g(r);
    };
    at(kEps, p.data()), at(-kEps, n.data()), at(kEps / 2, p2.data()), at(-kEps / 2, n2.data());
    x[k] = x0;
    for (int i = 0; i < nout; ++i) out[static_cast<size_t>(i) * nx + k] = richardson(p[i], n[i], p2[i], n2[i]);
  }
  return out;
}

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const std::string& e : test_models::entries()) out.push_back(test_models::resolve(e));
  return out;
}

// d RNE(q, v, a)/dq: every model of the corpus, two random states each.
TEST(AnalyticDerivative, RnePositionMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  double worst = 0;
  std::string worst_model;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0 || !internal::rne_pos_supported(m)) continue;
    Data d = make_data(m);
    for (unsigned seed = 1; seed <= 2; ++seed) {
      random_state(m, d, seed);
      std::mt19937 rng(seed + 100);
      std::normal_distribution<double> n01(0, 1);
      for (int i = 0; i < m.nv; ++i) d.qacc[i] = n01(rng);
      const Vec qacc = d.qacc;
      auto g = [&](double* out) {
        fwd_position(m, d);
        com_vel(m, d);
        std::copy(qacc.begin(), qacc.end(), d.qacc.begin());
        rne(m, d, true, out);
      };
      const Vec fd = fd_qpos(m, d, m.nv, g);
      fwd_position(m, d);
      Vec an(static_cast<size_t>(m.nv) * m.nv);
      internal::rne_pos_deriv(m, d, d.qvel.data(), qacc.data(), true, an.data());
      const double e = rel_error(an, fd, fscale(m.nv, g));
      EXPECT_LE(e, 1e-6) << path << " seed " << seed;
      if (e > worst) worst = e, worst_model = path;
    }
    ++ran;
  }
  std::printf("rne position derivative: %d models, worst relative error %.2e (%s)\n", ran, worst,
              worst_model.c_str());
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// d qacc / d (qpos, qvel, act, ctrl, qfrc_applied) of forward dynamics without constraints, every
// model of the corpus (columns the analytic path does not cover are finite differences themselves,
// with a warning; the test then checks the assembly).
TEST(AnalyticDerivative, ForwardSmoothMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  double worst = 0;
  std::string worst_model;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0) continue;
    m.opt.disableflags |= kDsblConstraint;
    Data d = make_data(m);
    random_state(m, d, 7);
    const int nv = m.nv, na = m.na, nu = m.nu;
    Vec Aq(nv * nv), Av(nv * nv), Aact(nv * na), Au(nv * nu), Af(nv * nv);
    forward_derivatives(m, d, Aq.data(), Av.data(), Aact.data(), Au.data(), Af.data());
    auto g = [&](double* out) {
      forward(m, d);
      std::copy_n(d.qacc.begin(), nv, out);
    };
    const Vec fq = fd_qpos(m, d, nv, g);
    const Vec fv = fd_vec(d.qvel.data(), nv, nv, g);
    const Vec fa = fd_vec(d.act.data(), na, nv, g);
    const Vec fu = fd_vec(d.ctrl.data(), nu, nv, g);
    const Vec ff = fd_vec(d.qfrc_applied.data(), nv, nv, g);
    const double fs = fscale(nv, g);
    const double e[5] = {rel_error(Aq, fq, fs), rel_error(Av, fv, fs), rel_error(Aact, fa, fs),
                         rel_error(Au, fu, fs), rel_error(Af, ff, fs)};
    const char* names[5] = {"qpos", "qvel", "act", "ctrl", "qfrc_applied"};
    for (int i = 0; i < 5; ++i) {
      EXPECT_LE(e[i], 1e-6) << path << " d qacc / d " << names[i];
      if (e[i] > worst) worst = e[i], worst_model = path + " " + names[i];
    }
    ++ran;
  }
  std::printf("forward derivatives: %d models, worst relative error %.2e (%s)\n", ran, worst, worst_model.c_str());
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// d qfrc_inverse / d (qpos, qvel, qacc) without constraints.
TEST(AnalyticDerivative, InverseMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0) continue;
    m.opt.disableflags |= kDsblConstraint;
    Data d = make_data(m);
    random_state(m, d, 11);
    const int nv = m.nv;
    std::mt19937 rng(5);
    std::normal_distribution<double> n01(0, 1);
    for (int i = 0; i < nv; ++i) d.qacc[i] = n01(rng);
    Vec Fq(nv * nv), Fv(nv * nv), Fa(nv * nv);
    inverse_derivatives(m, d, Fq.data(), Fv.data(), Fa.data());
    auto g = [&](double* out) {
      inverse(m, d);
      std::copy_n(d.qfrc_inverse.begin(), nv, out);
    };
    const Vec fq = fd_qpos(m, d, nv, g);
    const Vec fv = fd_vec(d.qvel.data(), nv, nv, g);
    const Vec fa = fd_vec(d.qacc.data(), nv, nv, g);
    const double fs = fscale(nv, g);
    EXPECT_LE(rel_error(Fq, fq, fs), 1e-6) << path << " qpos";
    EXPECT_LE(rel_error(Fv, fv, fs), 1e-6) << path << " qvel";
    EXPECT_LE(rel_error(Fa, fa, fs), 1e-6) << path << " qacc";
    ++ran;
  }
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// Transition Jacobians by extrapolated centred differences of full steps (the reference of the
// tests below): x' in the tangent space of the nominal next state.
void fd_transition(const Model& m, Data& d, Vec& A, Vec& B) {
  const int nv = m.nv, na = m.na, nu = m.nu, ndx = 2 * nv + na;
  const Vec q0 = d.qpos, v0 = d.qvel, a0 = d.act, u0 = d.ctrl, w0 = d.qacc_warmstart;
  const double t0 = d.time;
  auto reset = [&] {
    d.qpos = q0, d.qvel = v0, d.act = a0, d.ctrl = u0, d.qacc_warmstart = w0, d.time = t0;
  };
  reset();
  step(m, d);
  const Vec qn = d.qpos;
  auto out = [&](double* o) {
    step(m, d);
    differentiate_pos(m, o, 1, qn.data(), d.qpos.data());
    std::copy_n(d.qvel.begin(), nv, o + nv);
    std::copy_n(d.act.begin(), na, o + 2 * nv);
  };
  A.assign(static_cast<size_t>(ndx) * ndx, 0.0);
  B.assign(static_cast<size_t>(ndx) * nu, 0.0);
  Vec dq(nv), o[4];
  for (auto& x : o) x.resize(ndx);
  const double h[4] = {kEps, -kEps, kEps / 2, -kEps / 2};
  for (int k = 0; k < ndx + nu; ++k) {
    for (int e = 0; e < 4; ++e) {
      reset();
      if (k < nv) {
        std::fill(dq.begin(), dq.end(), 0.0);
        dq[k] = 1;
        integrate_pos(m, d.qpos.data(), dq.data(), h[e]);
      } else if (k < 2 * nv) {
        d.qvel[k - nv] += h[e];
      } else if (k < ndx) {
        d.act[k - 2 * nv] += h[e];
      } else {
        d.ctrl[k - ndx] += h[e];
      }
      out(o[e].data());
    }
    for (int i = 0; i < ndx; ++i) {
      const double v = richardson(o[0][i], o[1][i], o[2][i], o[3][i]);
      if (k < ndx)
        A[static_cast<size_t>(i) * ndx + k] = v;
      else
        B[static_cast<size_t>(i) * nu + (k - ndx)] = v;
    }
  }
  reset();
}

// transition_derivatives against fd_transition with constraints disabled, Euler, implicit and
// implicitfast, every model of the corpus (columns that fall back to finite differences check the
// assembly only); bound 1e-6 relative to max(|A|, 1).
TEST(AnalyticDerivative, TransitionSmoothMatchesCentredDifferences) {
  int ran = 0, skipped = 0;
  double worst = 0;
  std::string worst_model;
  for (const std::string& path : corpus()) {
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    Model m = load_model(path);
    if (m.nv == 0 || m.nv > 200) continue;  // the reference costs 8 nv steps
    m.opt.disableflags |= kDsblConstraint;
    m.opt.enableflags |= kEnblInvdiscrete;  // no midpoint integration of free bodies
    for (int integ : {kIntEuler, kIntImplicit, kIntImplicitFast}) {
      m.opt.integrator = integ;
      Data d = make_data(m);
      random_state(m, d, 3);
      const int ndx = 2 * m.nv + m.na, nu = m.nu;
      Vec A(ndx * ndx), B(ndx * nu), Af, Bf;
      transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
      fd_transition(m, d, Af, Bf);
      const double e[2] = {rel_error(A, Af, 0), nu ? rel_error(B, Bf, 0) : 0};
      for (int i = 0; i < 2; ++i) {
        EXPECT_LE(e[i], 1e-6) << path << (i ? " B" : " A") << ", integrator " << integ;
        if (e[i] > worst) worst = e[i], worst_model = path + (i ? " B" : " A") + " integrator " + std::to_string(integ);
      }
    }
    ++ran;
  }
  std::printf("transition derivatives: %d models x 3 integrators, worst relative error %.2e (%s)\n", ran, worst,
              worst_model.c_str());
  EXPECT_GT(ran, 0);
  MOREAU_SKIPPED_SHARED(skipped, ran + skipped);
}

// With constraints: a state reached by simulating from the keyframe-free initial state (contacts,
// limits), the solver converged tightly (Newton, tolerance 1e-12), transition_derivatives against
// centred differences of full steps (eps 1e-6, so that the perturbed states keep the active set:
// checked, the test fails if a perturbation changes efc_state). Velocity, activation and control
// columns are the implicit-function-theorem derivative; position columns fall back to finite
// differences (the warning says so). Bound 1e-5 relative to max(|A|, 1).
void check_constrained(const std::string& path, int nsteps, int integrator, bool noslip = true) {
  Model m = load_model(path);
  if (!noslip) m.opt.noslip_iterations = 0;
  // noslip to convergence: the derivative given is that of the converged noslip solution
  if (m.opt.noslip_iterations > 0) m.opt.noslip_iterations = 2000, m.opt.noslip_tolerance = 0;
  m.opt.integrator = integrator;
  m.opt.enableflags |= kEnblInvdiscrete;  // no midpoint integration of free bodies
  m.opt.tolerance = 1e-12;
  m.opt.iterations = 200;
  Data d = make_data(m);
  std::mt19937 rng(9);
  std::normal_distribution<double> n01(0, 1);
  for (int u = 0; u < m.nu; ++u) d.ctrl[u] = m.actuator_ctrllimited[u] ? 0.3 * m.actuator_ctrlrange[2 * u + 1] : 0.1;
  for (int i = 0; i < nsteps; ++i) step(m, d);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] += 0.1 * n01(rng);
  // hinge joints past their upper limit by 0.01 (a limit row in every limited model)
  for (int j = 0; j < m.njnt; ++j)
    if (m.jnt_limited[j] && m.jnt_type[j] == kJointHinge) d.qpos[m.jnt_qposadr[j]] = m.jnt_range[2 * j + 1] + 0.01;
  forward(m, d);
  ASSERT_GT(d.nefc, 0) << path;
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const int nefc = d.nefc;
  const int ndx = 2 * m.nv + m.na, nu = m.nu;
  Vec A(ndx * ndx), B(ndx * nu), Af(ndx * ndx), Bf(ndx * nu);
  transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), nullptr, nullptr);
  // the active set of the nominal state is that of the last perturbed evaluation's neighbours too
  forward(m, d);
  ASSERT_EQ(d.nefc, nefc);
  EXPECT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << path;
  // velocity, activation and control columns (analytic)
  Vec Av, Afv;
  for (int i = 0; i < ndx; ++i)
    for (int k = m.nv; k < ndx; ++k) {
      Av.push_back(A[static_cast<size_t>(i) * ndx + k]);
      Afv.push_back(Af[static_cast<size_t>(i) * ndx + k]);
    }
  const double ev = rel_error(Av, Afv, 0), ea = rel_error(A, Af, 0), eb = nu ? rel_error(B, Bf, 0) : 0;
  std::printf("%s integrator %d (nefc %d): A qvel/act columns %.2e, A %.2e, B %.2e\n", path.c_str(), integrator, nefc, ev, ea, eb);
  EXPECT_LE(ev, 1e-5) << path;
  EXPECT_LE(ea, 1e-5) << path;
  EXPECT_LE(eb, 1e-5) << path;
}

TEST(AnalyticDerivative, TransitionConstrainedMatchesTransitionFd) {
  for (int integ : {kIntEuler, kIntImplicitFast, kIntImplicit})
    check_constrained(std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml", 300, integ);
  int skipped = 0;
  const char* rels[] = {"dm_control/quadruped.xml", "dm_control/dog.xml",
                        "mujoco/mjx/mujoco/mjx/test_data/actuator/arm26.xml"};
  for (const char* rel : rels) {
    const std::string path = test_models::shared_model(rel);
    if (test_models::missing_shared(path)) { ++skipped; continue; }
    for (int integ : {kIntEuler, kIntImplicitFast, kIntImplicit}) check_constrained(path, 300, integ);
    // the dog also without its noslip post-pass: the main solver's implicit-function-theorem
    // columns alone on its 500+ contact rows
    if (std::string(rel) == "dm_control/dog.xml") check_constrained(path, 300, kIntEuler, false);
  }
  MOREAU_SKIPPED_SHARED(skipped, 3);
}

// The dog at the benchmark's state (keyframe 0, 200 steps with its own 4 noslip sweeps: feet on the
// floor, every contact pair analytic), then noslip run to convergence (3000 sweeps, tolerance 0)
// and the main solver tight: every column of A and B analytic, through the noslip derivative,
// against transition_fd (centred, eps 1e-6), the active set of both passes checked unchanged.
TEST(AnalyticDerivative, DogNoslipAllColumnsAnalytic) {
  const std::string path = test_models::shared_model("dm_control/dog.xml");
  if (test_models::missing_shared(path)) {
    MOREAU_SKIPPED_SHARED(1, 1);
    return;
  }
  Model m = load_model(path);
  Data d = make_data(m);
  if (m.nkey > 0) reset_data_keyframe(m, d, 0);
  for (int i = 0; i < 200; ++i) step(m, d);
  ASSERT_GT(m.opt.noslip_iterations, 0);
  m.opt.noslip_iterations = 3000, m.opt.noslip_tolerance = 0;
  m.opt.tolerance = 1e-12, m.opt.iterations = 200;
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  forward(m, d);
  ASSERT_GT(d.ncon, 0);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + d.nefc);
  const int nefc = d.nefc, ndx = 2 * m.nv + m.na, nu = m.nu;
  Vec A(ndx * ndx), B(ndx * nu), Af(ndx * ndx), Bf(ndx * nu);
  transition_derivatives(m, d, A.data(), B.data(), nullptr, nullptr);
  transition_fd(m, d, 1e-6, true, Af.data(), Bf.data(), nullptr, nullptr);
  forward(m, d);
  ASSERT_EQ(d.nefc, nefc);
  EXPECT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin()));
  const double ea = rel_error(A, Af, 0), eb = rel_error(B, Bf, 0);
  std::printf("dog, noslip converged (nefc %d, %d contacts): A %.2e, B %.2e\n", nefc, d.ncon, ea, eb);
  EXPECT_LE(ea, 1e-5);
  EXPECT_LE(eb, 1e-5);
}

// Constraint position derivatives (analytic): a box, a capsule and a sphere pressed into a plane
// (pyramidal cones, condim 3 from the bodies' geoms; a frictionless sphere, condim 1), a hinge chain past its limit with dof
// friction, tilted and spinning so that the contact frames and points move. Every column of
// d qacc/d qpos against centred differences of forward at eps 1e-7 (small enough that no contact
// changes its state: checked), bound 1e-5 relative to max(|fd|, |qacc|, 1).
const char* kContactScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <geom type="plane" size="5 5 .1" condim="1"/>
    <body pos="0 0 .07" euler="4 3 10">
      <freejoint/>
      <geom type="box" size=".1 .15 .1" mass="2"/>
    </body>
    <body pos="1 0 .08" euler="87 3 20">
      <freejoint/>
      <geom type="capsule" size=".1 .2" mass="1"/>
    </body>
    <body pos="2 0 .098">
      <freejoint/>
      <geom type="sphere" size=".1" mass="1"/>
    </body>
    <body pos="3 0 .097">
      <freejoint/>
      <geom type="sphere" size=".1" mass="1" condim="1"/>
    </body>
    <body pos="0 2 1">
      <joint name="h1" type="hinge" axis="0 1 0" range="-30 30" limited="true" frictionloss=".2" damping=".1"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <body pos=".5 0 0">
        <joint type="hinge" axis="0 1 0" range="-20 20" limited="true" stiffness="3"/>
        <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="h1" ctrllimited="true" ctrlrange="-1 1"/>
  </actuator>
</mujoco>)";

// d qacc / d qpos by centred differences (eps 1e-7 along each tangent direction) with the active
// set held: a perturbation that changes a row's state fails the test. Returns the relative error of
// Aq against them, the worst column and the scale max(1, max |qacc|).
struct QposColumns {
  double error = 0, scale = 1;
  int worst_col = 0;
};
void qpos_columns_by_fd(const Model& m, Data& d, const std::vector<int>& state, const Vec& Aq, QposColumns* out) {
  const int nv = m.nv, nefc = static_cast<int>(state.size());
  const Vec q0 = d.qpos, qacc0(d.qacc.begin(), d.qacc.begin() + nv);
  double fs = 1;
  for (double x : qacc0) fs = std::max(fs, std::abs(x));
  const double eps = 1e-7;
  Vec dq(nv), p(nv), n(nv), fq(nv * nv);
  for (int k = 0; k < nv; ++k) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      std::fill(dq.begin(), dq.end(), 0.0);
      dq[k] = 1;
      d.qpos = q0;
      integrate_pos(m, d.qpos.data(), dq.data(), sgn * eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << "column " << k;
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    for (int i = 0; i < nv; ++i) fq[i * nv + k] = (p[i] - n[i]) / (2 * eps);
  }
  d.qpos = q0;
  out->error = rel_error(Aq, fq, fs);
  out->scale = fs;
  double wc = 0;
  for (int k = 0; k < nv; ++k)
    for (int i = 0; i < nv; ++i)
      if (std::abs(Aq[i * nv + k] - fq[i * nv + k]) > wc) wc = std::abs(Aq[i * nv + k] - fq[i * nv + k]), out->worst_col = k;
}

TEST(AnalyticDerivative, ConstraintPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kContactScene);
  Data d = make_data(m);
  std::mt19937 rng(4);
  std::normal_distribution<double> n01(0, 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = 0.3 * n01(rng);
  d.qpos[m.nq - 2] = 0.6;   // past the first limit (30 deg = 0.52)
  d.qpos[m.nq - 1] = -0.4;  // past the second (20 deg = 0.35)
  d.ctrl[0] = 0.5;
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  // 4 box corners, 2 capsule ends and a sphere (4 pyramid rows each), a frictionless sphere, two
  // limits, the dof friction row
  ASSERT_EQ(d.ncon, 8);
  ASSERT_EQ(nefc, 7 * 4 + 1 + 2 + 1);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv), Av(nv * nv);
  forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, nullptr, nullptr);
  QposColumns fd;
  qpos_columns_by_fd(m, d, state, Aq, &fd);
  if (HasFatalFailure()) return;
  const double e = fd.error, fs = fd.scale;
  const int worst_col = fd.worst_col;
  std::printf("contact scene (nefc %d): d qacc/d qpos relative error %.2e (worst column %d), max |fd| %.3g\n", nefc,
              e, worst_col, fs);
  EXPECT_LE(e, 1e-5);
}

// The noslip post-pass: a box sliding fast on a plane (its friction pairs end on the cone: one
// edge of each pair at zero), a sphere and a tilted capsule (one end down) creeping (every pair
// inside), a hinge with friction loss turning slowly (the row inside its bound) and one turning
// fast (at its bound), a motor on the first. noslip runs to convergence (tolerance 0, 20000
// sweeps: the derivative given is that of the converged solution). The penetrations avoid the
// kinks of the impedance (its width and midpoint). d qacc/d (qpos, qvel, ctrl,
// qfrc_applied) against centred differences (eps 1e-7) with the active set of both passes held
// (efc_state after noslip marks the pyramid edges at zero and the friction rows at their bound).
const char* kNoslipScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-14" iterations="300" noslip_iterations="20000" noslip_tolerance="0"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .0993" euler="0 0 10">
      <freejoint/>
      <geom type="box" size=".1 .15 .1" mass="2"/>
    </body>
    <body pos="1 0 .0985">
      <freejoint/>
      <geom type="sphere" size=".1" mass="1" friction=".7"/>
    </body>
    <body pos="2 0 .1485" euler="0 60 10">
      <freejoint/>
      <geom type="capsule" size=".05 .2" mass="1"/>
    </body>
    <body pos="0 2 1">
      <joint name="h1" type="hinge" axis="0 1 0" frictionloss="100"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <body pos=".5 0 0">
        <joint name="h2" type="hinge" axis="0 1 0" frictionloss=".05"/>
        <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="h1"/>
  </actuator>
</mujoco>)";

TEST(AnalyticDerivative, NoslipMatchesCentredDifferences) {
  Model m = load_model_from_string(kNoslipScene);
  Data d = make_data(m);
  const int nv = m.nv, nu = m.nu;
  d.qvel[0] = 1.0, d.qvel[1] = 0.3, d.qvel[5] = 0.5;  // sliding box
  d.qvel[6] = 0.01, d.qvel[7] = -0.005;              // creeping sphere
  d.qvel[12] = -0.01, d.qvel[16] = 0.02;             // creeping capsule
  d.qvel[18] = 0.05, d.qvel[19] = 5.0;               // slow h1, fast h2
  d.ctrl[0] = 0.2;
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  forward(m, d);
  const int nefc = d.nefc;
  ASSERT_EQ(d.ncon, 6);
  ASSERT_EQ(nefc, 6 * 4 + 2);
  // the active set: edges at zero on the sliding box, none on the sphere, h1 inside and h2 at its
  // bound
  // (rows: the two friction-loss rows, then the contacts, the sliding box's first)
  ASSERT_EQ(d.efc_type[0], kCnstrFrictionDof);
  ASSERT_EQ(d.efc_type[2], kCnstrContactPyramidal);
  int zero_edges = 0;
  for (int r = 2; r < 18; ++r) zero_edges += d.efc_force[r] == 0;
  EXPECT_GT(zero_edges, 0);
  for (int r = 18; r < 22; ++r) EXPECT_GT(d.efc_force[r], 0);
  EXPECT_LT(std::abs(d.efc_force[0]), 100);
  EXPECT_EQ(std::abs(d.efc_force[1]), 0.05);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv), Av(nv * nv), Au(nv * nu), Af(nv * nv);
  forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, Au.data(), Af.data());
  const Vec q0 = d.qpos, v0 = d.qvel, u0 = d.ctrl, f0 = d.qfrc_applied;
  double fs = 1;
  for (int i = 0; i < nv; ++i) fs = std::max(fs, std::abs(d.qacc[i]));
  const double eps = 1e-7;
  // centred column along a perturbation of the state, the active set checked
  auto column = [&](auto perturb, double* out) {
    Vec p(nv), n(nv);
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      d.qpos = q0, d.qvel = v0, d.ctrl = u0, d.qfrc_applied = f0;
      perturb(sgn * eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin()));
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    for (int i = 0; i < nv; ++i) out[i] = (p[i] - n[i]) / (2 * eps);
  };
  Vec fq(nv * nv), fv(nv * nv), fu(nv * nu), ff(nv * nv), col(nv), dq(nv);
  auto put = [&](Vec& M, int ncol, int k) {
    for (int i = 0; i < nv; ++i) M[i * ncol + k] = col[i];
  };
  for (int k = 0; k < nv; ++k) {
    column([&](double e) {
      std::fill(dq.begin(), dq.end(), 0.0);
      dq[k] = 1;
      integrate_pos(m, d.qpos.data(), dq.data(), e);
    }, col.data());
    if (HasFatalFailure()) return;
    put(fq, nv, k);
    column([&](double e) { d.qvel[k] += e; }, col.data());
    if (HasFatalFailure()) return;
    put(fv, nv, k);
    column([&](double e) { d.qfrc_applied[k] += e; }, col.data());
    if (HasFatalFailure()) return;
    put(ff, nv, k);
  }
  for (int k = 0; k < nu; ++k) {
    column([&](double e) { d.ctrl[k] += e; }, col.data());
    if (HasFatalFailure()) return;
    put(fu, nu, k);
  }
  d.qpos = q0, d.qvel = v0, d.ctrl = u0, d.qfrc_applied = f0;
  const double e[4] = {rel_error(Aq, fq, fs), rel_error(Av, fv, fs), rel_error(Au, fu, fs), rel_error(Af, ff, fs)};
  std::printf("noslip scene (nefc %d, %d edges at zero): d qacc/d qpos %.2e, qvel %.2e, ctrl %.2e, qfrc_applied %.2e\n",
              nefc, zero_edges, e[0], e[1], e[2], e[3]);
  for (double x : e) EXPECT_LE(x, 1e-5);
}

// Sphere and capsule pairs between moving bodies: crossing capsules (both segment parameters
// free), a sphere on a capsule's side (one free), a capsule's end on another capsule (end fixed,
// other free), two spheres, and two sibling capsules hinged to one free body (a dof common to both
// bodies). Same check as above.
const char* kRoundScene = R"(
<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="300"/>
  <worldbody>
    <body pos="0 0 .5" euler="0 90 5"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="0.02 0.03 .69" euler="90 3 -4"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="2 0 .5" euler="0 90 0"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="2.05 0.02 .695"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="4 0 .5"><freejoint/><geom type="sphere" size=".1"/></body>
    <body pos="4.1 0.03 .665"><freejoint/><geom type="sphere" size=".12"/></body>
    <body pos="6 0 .5" euler="0 80 0"><freejoint/><geom type="capsule" size=".1 .3"/></body>
    <body pos="6.43 0.02 .45" euler="0 3 10"><freejoint/><geom type="capsule" size=".05 .2"/></body>
    <body pos="8 0 .5">
      <freejoint/>
      <geom type="sphere" size=".05" contype="0" conaffinity="0"/>
      <body pos=".2 0 0">
        <joint type="hinge" axis="0 0 1"/>
        <geom type="capsule" fromto="-.2 0 0 .2 0 0" size=".05"/>
      </body>
      <body pos=".2 0 .095">
        <joint type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 -.2 0 0 .2 0" size=".05"/>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST(AnalyticDerivative, RoundPairPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kRoundScene);
  Data d = make_data(m);
  std::mt19937 rng(6);
  std::normal_distribution<double> n01(0, 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = 0.3 * n01(rng);
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  ASSERT_EQ(d.ncon, 5);
  ASSERT_EQ(nefc, 20);
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  QposColumns fd;
  qpos_columns_by_fd(m, d, state, Aq, &fd);
  if (HasFatalFailure()) return;
  const double e = fd.error, fs = fd.scale;
  const int worst_col = fd.worst_col;
  std::printf("round pairs (nefc %d): d qacc/d qpos relative error %.2e (worst column %d), max |fd| %.3g\n", nefc, e,
              worst_col, fs);
  EXPECT_LE(e, 1e-5);
}

// Elliptic cones (the cone Hessian in H, in the aref term and in the position term): the contact
// scene with cone="elliptic" and impratio 2, d qacc/d (qvel, qpos) against centred differences
// (eps 1e-7, active set checked), bound 1e-5.
TEST(AnalyticDerivative, EllipticConesMatchCentredDifferences) {
  Model m = load_model_from_string(kContactScene);
  m.opt.cone = kConeElliptic;
  m.opt.impratio = 2;
  Data d = make_data(m);
  std::mt19937 rng(4);
  std::normal_distribution<double> n01(0, 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = 0.3 * n01(rng);
  d.qpos[m.nq - 2] = 0.6;
  d.qpos[m.nq - 1] = -0.4;
  EXPECT_TRUE(derivative_fallbacks(m, d).empty());
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  int cone = 0;
  for (int r = 0; r < nefc; ++r) cone += d.efc_state[r] == kCnstrCone;
  EXPECT_GT(cone, 0);  // some contacts in the cone's middle zone
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Av(nv * nv), Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, nullptr, nullptr);
  double fs = 1;
  for (int i = 0; i < nv; ++i) fs = std::max(fs, std::abs(d.qacc[i]));
  const double eps = 1e-7;
  Vec p(nv), n(nv), fv(nv * nv), fq(nv * nv), dq(nv);
  const Vec q0 = d.qpos;
  for (int k = 0; k < nv; ++k) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      std::fill(dq.begin(), dq.end(), 0.0);
      dq[k] = 1;
      d.qpos = q0;
      integrate_pos(m, d.qpos.data(), dq.data(), sgn * eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << "qpos column " << k;
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    for (int i = 0; i < nv; ++i) fq[i * nv + k] = (p[i] - n[i]) / (2 * eps);
  }
  d.qpos = q0;
  for (int k = 0; k < nv; ++k) {
    const double v0 = d.qvel[k];
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      d.qvel[k] = v0 + sgn * eps;
      forward(m, d);
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << "column " << k;
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    d.qvel[k] = v0;
    for (int i = 0; i < nv; ++i) fv[i * nv + k] = (p[i] - n[i]) / (2 * eps);
  }
  const double e = rel_error(Av, fv, fs), eq = rel_error(Aq, fq, fs);
  std::printf("elliptic cones (nefc %d, %d rows in the cone zone): d qacc/d qvel %.2e, d qacc/d qpos %.2e\n", nefc,
              cone, e, eq);
  EXPECT_LE(e, 1e-5);
  EXPECT_LE(eq, 1e-5);
}

// Joint and fixed-tendon equality rows with nonlinear polynomials (the row's J depends on the
// second joint / tendon), and the quadruped's tendon couplings: d qacc/d qpos against centred
// differences (eps 1e-7, active set checked), bound 1e-5.
const char* kEqualityScene = R"(
<mujoco>
  <option tolerance="1e-13" iterations="300"/>
  <worldbody>
    <body>
      <joint name="a" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body pos=".4 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
        <body pos=".4 0 0">
          <joint name="c" type="hinge" axis="0 0 1"/>
          <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
          <body pos=".3 0 0">
            <joint name="s" type="slide" axis="1 0 0"/>
            <geom type="sphere" size=".05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t1"><joint joint="a" coef="1"/><joint joint="c" coef="-.5"/></fixed>
    <fixed name="t2"><joint joint="s" coef="2"/></fixed>
  </tendon>
  <equality>
    <joint joint1="b" joint2="a" polycoef=".1 .5 .8 -.3 .2"/>
    <tendon tendon1="t1" tendon2="t2" polycoef="0 .4 1.5 .2 0"/>
  </equality>
</mujoco>)";

void check_qpos_columns(const Model& m, Data& d, const std::string& label) {
  EXPECT_TRUE(derivative_fallbacks(m, d).empty()) << label;
  forward(m, d);
  const int nv = m.nv, nefc = d.nefc;
  ASSERT_GT(nefc, 0) << label;
  const std::vector<int> state(d.efc_state.begin(), d.efc_state.begin() + nefc);
  Vec Aq(nv * nv);
  forward_derivatives(m, d, Aq.data(), nullptr, nullptr, nullptr, nullptr);
  double fs = 1;
  for (int i = 0; i < nv; ++i) fs = std::max(fs, std::abs(d.qacc[i]));
  const double eps = 1e-7;
  Vec p(nv), n(nv), fq(nv * nv), dq(nv);
  const Vec q0 = d.qpos;
  for (int k = 0; k < nv; ++k) {
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      std::fill(dq.begin(), dq.end(), 0.0);
      dq[k] = 1;
      d.qpos = q0;
      integrate_pos(m, d.qpos.data(), dq.data(), sgn * eps);
      forward(m, d);
      ASSERT_EQ(d.nefc, nefc) << label;
      ASSERT_TRUE(std::equal(state.begin(), state.end(), d.efc_state.begin())) << label << " column " << k;
      std::copy_n(d.qacc.begin(), nv, sgn > 0 ? p.data() : n.data());
    }
    for (int i = 0; i < nv; ++i) fq[i * nv + k] = (p[i] - n[i]) / (2 * eps);
  }
  d.qpos = q0;
  const double e = rel_error(Aq, fq, fs);
  std::printf("%s (nefc %d): d qacc/d qpos relative error %.2e\n", label.c_str(), nefc, e);
  EXPECT_LE(e, 1e-5) << label;
}

TEST(AnalyticDerivative, EqualityPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kEqualityScene);
  Data d = make_data(m);
  const double q[4] = {0.3, -0.2, 0.4, 0.05};
  for (int i = 0; i < 4; ++i) d.qpos[i] = q[i], d.qvel[i] = 0.5 - 0.3 * i;
  check_qpos_columns(m, d, "joint and tendon equality");
  const std::string quadruped = test_models::shared_model("dm_control/quadruped.xml");
  MOREAU_REQUIRE_MODEL(quadruped);
  Model mq = load_model(quadruped);
  mq.opt.tolerance = 1e-13;
  mq.opt.iterations = 300;
  Data dq = make_data(mq);
  for (int i = 0; i < 300; ++i) step(mq, dq);
  check_qpos_columns(mq, dq, "quadruped");
}

// Connect and weld rows: a connect between a hinge chain's tip and a free body, one between two
// bodies of the chain (shared ancestors), a weld of a free body to the world and one between two
// free bodies (torquescale 0.7 and 1.3); a wide solimp so that the impedance varies with the
// residual norm. d qacc/d qpos against centred differences (eps 1e-7, active set checked), bound
// 1e-5 as the other constraint tests.
const char* kConnectWeldScene = R"(
<mujoco>
  <option tolerance="1e-13" iterations="300"/>
  <default><equality solimp="0.8 0.95 0.5 0.5 2" solref="0.05 1"/></default>
  <worldbody>
    <body name="a">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      <body name="b" pos=".4 0 0">
        <joint type="hinge" axis="0 0 1"/>
        <joint type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      </body>
    </body>
    <body name="f" pos=".75 0 0">
      <freejoint/>
      <geom type="box" size=".05 .04 .03"/>
    </body>
    <body name="w" pos="0 .5 .2" euler="10 20 30">
      <freejoint/>
      <geom type="box" size=".05 .06 .07"/>
    </body>
    <body name="v" pos=".2 .5 .2">
      <freejoint/>
      <geom type="box" size=".04 .03 .05"/>
    </body>
  </worldbody>
  <contact><exclude body1="b" body2="f"/></contact>
  <equality>
    <connect body1="b" body2="f" anchor=".3 0 0"/>
    <connect body1="a" body2="b" anchor=".3 .05 0"/>
    <weld body1="w" torquescale="0.7"/>
    <weld body1="v" body2="w" torquescale="1.3"/>
  </equality>
</mujoco>)";

TEST(AnalyticDerivative, ConnectWeldPositionMatchesCentredDifferences) {
  Model m = load_model_from_string(kConnectWeldScene);
  Data d = make_data(m);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  Vec dq(m.nv);
  for (int i = 0; i < m.nv; ++i) dq[i] = 0.15 * u(rng), d.qvel[i] = u(rng);
  integrate_pos(m, d.qpos.data(), dq.data(), 1.0);
  forward(m, d);
  int eq = 0;
  for (int r = 0; r < d.nefc; ++r) eq += d.efc_type[r] == kCnstrEquality;
  ASSERT_EQ(eq, 3 + 3 + 6 + 6);
  check_qpos_columns(m, d, "connect and weld");
}

}  // namespace
}  // namespace moreau

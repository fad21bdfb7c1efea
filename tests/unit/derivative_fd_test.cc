// Finite-difference derivatives (no MuJoCo: the comparison with mjd_transitionFD is in
// tests/differential/transition_fd_test.cc):
//  - transition_fd skips the stages a perturbation does not change; its columns must be exactly
//    (bitwise) the differences of full steps taken the same way, and the state is restored exactly;
//  - inverse_fd satisfies the identities of inverse dynamics: d qfrc_inverse/d qacc = M,
//    d (qfrc_inverse - qfrc_actuator)/d qvel = -qDeriv (the analytic derivative, where M's sparsity
//    holds all of it), and d qfrc_inverse/d qpos at two accelerations differs by (dM/dq) qacc;
//  - inverse with invdiscrete recovers the applied force from an implicit step's velocity change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

struct State {
  double time;
  std::vector<double> qpos, qvel, act, ctrl, warm;
  explicit State(const Data& d)
      : time(d.time), qpos(d.qpos), qvel(d.qvel), act(d.act), ctrl(d.ctrl), warm(d.qacc_warmstart) {}
  void restore(Data& d) const {
    d.time = time;
    d.qpos = qpos, d.qvel = qvel, d.act = act, d.ctrl = ctrl, d.qacc_warmstart = warm;
  }
  bool operator==(const State& o) const {
    return time == o.time && qpos == o.qpos && qvel == o.qvel && act == o.act && ctrl == o.ctrl && warm == o.warm;
  }
};

// The columns of transition_fd computed with full steps (no skipped stage), forward or centered.
void reference_fd(const Model& m, Data& d, double eps, bool centered, std::vector<double>& A,
                  std::vector<double>& B, std::vector<double>& C, std::vector<double>& D) {
  const int nv = m.nv, na = m.na, nu = m.nu, ns = m.nsensordata, ndx = 2 * nv + na;
  const State s0(d);
  struct Out { std::vector<double> qpos, qvel, act, sens; };
  auto run = [&](auto perturb, double e) {
    s0.restore(d);
    perturb(e);
    step(m, d);
    return Out{d.qpos, d.qvel, d.act, d.sensordata};
  };
  const Out nominal = run([](double) {}, 0);
  std::vector<double> dq(nv);
  auto column = [&](auto perturb, std::vector<double>& X, std::vector<double>& Y, int ncol, int j) {
    const Out p = run(perturb, eps);
    const Out q = centered ? run(perturb, -eps) : nominal;
    const double h = centered ? 2 * eps : eps;
    differentiate_pos(m, dq.data(), h, q.qpos.data(), p.qpos.data());
    for (int i = 0; i < nv; ++i) X[i * ncol + j] = dq[i];
    for (int i = 0; i < nv; ++i) X[(nv + i) * ncol + j] = (p.qvel[i] - q.qvel[i]) / h;
    for (int i = 0; i < na; ++i) X[(2 * nv + i) * ncol + j] = (p.act[i] - q.act[i]) / h;
    for (int i = 0; i < ns; ++i) Y[i * ncol + j] = (p.sens[i] - q.sens[i]) / h;
  };
  for (int j = 0; j < nu; ++j) column([&](double e) { d.ctrl[j] += e; }, B, D, nu, j);
  for (int j = 0; j < na; ++j) column([&](double e) { d.act[j] += e; }, A, C, ndx, 2 * nv + j);
  for (int j = 0; j < nv; ++j) column([&](double e) { d.qvel[j] += e; }, A, C, ndx, nv + j);
  std::vector<double> v(nv);
  for (int j = 0; j < nv; ++j)
    column(
        [&](double e) {
          std::fill(v.begin(), v.end(), 0.0);
          v[j] = 1;
          integrate_pos(m, d.qpos.data(), v.data(), e);
        },
        A, C, ndx, j);
  s0.restore(d);
}

TEST(TransitionFD, SkippedStagesAreExactAndStateIsRestored) {
  // humanoid in contact with the floor (150 steps from qpos0), controls inside their range
  for (int integrator : {kIntEuler, kIntImplicit, kIntImplicitFast, kIntRK4}) {
    for (bool centered : {false, true}) {
      Model m = load_model(kHumanoid);
      m.opt.integrator = integrator;
      Data d = make_data(m);
      if (m.nkey > 0) reset_data_keyframe(m, d, 0);
      for (int i = 0; i < m.nu; ++i) d.ctrl[i] = 0.3 * std::sin(i + 1.0);
      for (int s = 0; s < 150; ++s) step(m, d);
      ASSERT_GT(d.ncon, 0);
      const int ndx = 2 * m.nv + m.na, nu = m.nu, ns = m.nsensordata;
      std::vector<double> A(ndx * ndx), B(ndx * nu), C(ns * ndx), D(ns * nu);
      std::vector<double> A0 = A, B0 = B, C0 = C, D0 = D;
      const State before(d);
      transition_fd(m, d, 1e-6, centered, A.data(), B.data(), C.data(), D.data());
      EXPECT_TRUE(State(d) == before) << "state not restored";
      reference_fd(m, d, 1e-6, centered, A0, B0, C0, D0);
      EXPECT_TRUE(A == A0) << "integrator " << integrator << (centered ? " centered" : " forward");
      EXPECT_TRUE(B == B0) << "integrator " << integrator;
      EXPECT_TRUE(C == C0) << "integrator " << integrator;
      EXPECT_TRUE(D == D0) << "integrator " << integrator;
      double bmax = 0;
      for (double b : B) bmax = std::max(bmax, std::abs(b));
      EXPECT_GT(bmax, 0.1);  // not trivially zero
    }
  }
}

std::vector<double> dense_m(const Model& m, const Data& d) {
  std::vector<double> M(m.nv * m.nv);
  full_m(m, d.qM.data(), M.data());
  return M;
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0, s = 1e-12;
  for (size_t i = 0; i < a.size(); ++i) {
    e = std::max(e, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  return e / s;
}

TEST(InverseFD, Identities) {
  Model m = load_model(kHumanoid);
  m.opt.disableflags |= kDsblConstraint;  // identities of the smooth dynamics
  Data d = make_data(m);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < m.nq; ++i) d.qpos[i] = m.qpos0[i] + 0.2 * u(rng);
  normalize_quat(m, d.qpos.data());
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = u(rng), d.qacc[i] = u(rng);
  for (int i = 0; i < m.nu; ++i) d.ctrl[i] = 0.3 * u(rng);
  const int nv = m.nv;
  std::vector<double> DfDq(nv * nv), DfDv(nv * nv), DfDa(nv * nv), DmDq(m.nM * nv), DfDq0(nv * nv);
  const std::vector<double> qpos = d.qpos, qvel = d.qvel, qacc = d.qacc;
  inverse_fd(m, d, 1e-6, true, true, DfDq.data(), DfDv.data(), DfDa.data(), nullptr, nullptr, nullptr, DmDq.data());
  EXPECT_TRUE(d.qpos == qpos && d.qvel == qvel && d.qacc == qacc) << "state not restored";

  // d qfrc_inverse / d qacc = M: qfrc_inverse is linear in qacc, so only rounding / eps remains
  inverse(m, d);
  EXPECT_LE(rel_diff(DfDa, dense_m(m, d)), 1e-8);

  // d (qfrc_inverse - qfrc_actuator) / d qvel = -d(passive + actuator - bias)/d qvel = -qDeriv
  // (the humanoid has no tendons: nothing of D lies outside the sparsity of M)
  forward(m, d);
  deriv_smooth_vel(m, d);
  std::vector<double> D(nv * nv);
  deriv_to_dense(m, d.qDeriv.data(), D.data());
  for (double& x : D) x = -x;
  EXPECT_LE(rel_diff(DfDv, D), 1e-7);  // central differences: eps^2 truncation, 1e-10 rounding

  // d qfrc_inverse/d q at qacc and at 0 differ by (d M / d q) qacc
  d.qacc.assign(nv, 0.0);
  inverse_fd(m, d, 1e-6, true, true, DfDq0.data(), nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  d.qacc = qacc;
  std::vector<double> dMa(nv * nv, 0.0), col(m.nM), Mj(nv * nv);
  for (int j = 0; j < nv; ++j) {
    for (int k = 0; k < m.nM; ++k) col[k] = DmDq[k * nv + j];
    full_m(m, col.data(), Mj.data());
    for (int i = 0; i < nv; ++i)
      for (int k = 0; k < nv; ++k) dMa[i * nv + j] += Mj[i * nv + k] * qacc[k];
  }
  std::vector<double> diff(nv * nv);
  for (int i = 0; i < nv * nv; ++i) diff[i] = DfDq[i] - DfDq0[i];
  EXPECT_LE(rel_diff(diff, dMa), 1e-6);
}

TEST(InverseDiscrete, ImplicitStepRecoversAppliedForce) {
  // with invdiscrete, inverse takes the implicit step's (v_next - v)/h and returns the applied force
  for (int integrator : {kIntImplicit, kIntImplicitFast}) {
    Model m = load_model(kHumanoid);
    m.opt.integrator = integrator;
    m.opt.disableflags |= kDsblConstraint | kDsblActuation;
    m.opt.enableflags |= kEnblInvdiscrete;
    Data d = make_data(m);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < m.nv; ++i) d.qvel[i] = u(rng), d.qfrc_applied[i] = 10 * u(rng);
    const std::vector<double> qpos = d.qpos, qvel = d.qvel, applied = d.qfrc_applied;
    step(m, d);
    std::vector<double> qacc(m.nv);
    for (int i = 0; i < m.nv; ++i) qacc[i] = (d.qvel[i] - qvel[i]) / m.opt.timestep;
    d.qpos = qpos, d.qvel = qvel, d.qacc = qacc;
    inverse(m, d);
    EXPECT_LE(rel_diff(d.qfrc_inverse, applied), 1e-9) << "integrator " << integrator;
    EXPECT_TRUE(d.qacc == qacc);  // the caller's qacc is restored
  }
}

}  // namespace
}  // namespace moreau

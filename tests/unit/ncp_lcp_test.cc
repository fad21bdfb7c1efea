// The time-stepping LCP: the two-block exercise of the Underactuated chapter worked by
// hand, Lemke's algorithm checked for complementarity directly, and the size limit of the solver.
//
// Hand solution (docs/contact_models.md): h = 1, m = 1, gap g_n = q_B - q_A - 1, impulse f_n >= 0
// with 0 <= f_n  _|_  g_n + h (v_B - v_A)[n+1] >= 0, v_A[n+1] = v_A - f_n, v_B[n+1] = v_B + f_n:
//   step 0 -> 1: g = 1, free approach 3 > 1: f = 1,   v = (2, 1),     q = (0, 1)
//   step 1 -> 2: g = 0, approach 1:          f = 0.5, v = (1.5, 1.5), q = (1.5, 2.5)
//   step 2 -> 3: g = 0, no approach:         f = 0,   v = (1.5, 1.5), q = (3, 4)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "moreau/moreau.h"
#include "solver/ncp/ncp.h"

namespace {

const std::string kDir = std::string(MOREAU_SOURCE_DIR) + "/models/experiments/";

}  // namespace

// Every hard-contact solver gives the hand solution: one frictionless contact, so each solver's
// 1D update is exact (1e-12: round-off of a few operations on numbers of order 1).
TEST(NcpTwoBlocks, MatchesTheHandSolution) {
  const double q[4][2] = {{-2, 0}, {0, 1}, {1.5, 2.5}, {3, 4}};
  const double v[4][2] = {{3, 0}, {2, 1}, {1.5, 1.5}, {1.5, 1.5}};
  const double f[4] = {0, 1, 0.5, 0};
  for (int solver : {moreau::kSolverLCP, moreau::kSolverRaisim, moreau::kSolverRaisimDS,
                     moreau::kSolverNcpPGS, moreau::kSolverCCP}) {
    SCOPED_TRACE(moreau::solver_name(solver));
    moreau::Model m = moreau::load_model(kDir + "two_blocks.xml");
    m.opt.solver = solver;
    moreau::Data d = moreau::make_data(m);
    moreau::reset_data_keyframe(m, d, 0);
    for (int n = 1; n <= 3; ++n) {
      moreau::step(m, d);
      double force = 0;
      for (int c = 0; c < d.ncon; ++c) {
        double fc[6];
        moreau::contact_force(m, d, c, fc);
        force += fc[0];
      }
      EXPECT_NEAR(d.qpos[0], q[n][0], 1e-12) << "step " << n;
      EXPECT_NEAR(d.qpos[1], q[n][1], 1e-12) << "step " << n;
      EXPECT_NEAR(d.qvel[0], v[n][0], 1e-12) << "step " << n;
      EXPECT_NEAR(d.qvel[1], v[n][1], 1e-12) << "step " << n;
      EXPECT_NEAR(force, f[n] / m.opt.timestep, 1e-12) << "step " << n;
    }
  }
}

// The LCP the lcp solver builds for the sliding cube (4 contacts x (normal, 4 edges, slack) = 24
// variables) is solved exactly: z >= 0, w = M z + q >= 0, z_i w_i = 0, checked from M, q, z
// independently of the solver (w recomputed here). Tolerances: 1e-12 relative to the scale of
// q and of M z (Lemke's pivots are exact up to round-off).
TEST(NcpLcp, LemkeSolutionIsComplementary) {
  moreau::Model m = moreau::load_model(kDir + "sliding_cube.xml");
  m.opt.solver = moreau::kSolverLCP;
  moreau::Data d = moreau::make_data(m);
  moreau::reset_data_keyframe(m, d, 1);
  int checked = 0;
  for (int n = 0; n < 20; ++n) {
    moreau::step(m, d);
    const moreau::ncp::LcpView L = moreau::ncp::last_lcp(m, d);
    ASSERT_EQ(L.n, 24);
    double scale = 0;
    for (int i = 0; i < L.n; ++i) scale = std::max(scale, std::fabs(L.q[i]));
    for (int i = 0; i < L.n; ++i) {
      double w = L.q[i];
      for (int j = 0; j < L.n; ++j) w += L.M[i * L.n + j] * L.z[j];
      EXPECT_GE(L.z[i], 0.0);
      EXPECT_GE(w, -1e-12 * scale) << i;
      EXPECT_LE(std::fabs(L.z[i] * w), 1e-12 * scale * scale) << i;
      EXPECT_NEAR(w, L.w[i], 1e-12 * scale);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 20);
}

// Lemke on textbook LCPs: a P-matrix (unique solution, checked against the solution computed by
// hand), and an infeasible one (q = (-1), M = (-1): w = -1 - z < 0 for every z >= 0), reported as
// a secondary ray.
TEST(NcpLcp, LemkeOnSmallProblems) {
  // M = [[2, 1], [1, 2]], q = (-5, -6): both active, 2a + b = 5, a + 2b = 6 -> (4/3, 7/3)
  const double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
  double z[2], work[64];  // lemke_work_size(2) = 32
  ASSERT_GE(moreau::ncp::lemke(2, M, q, z, work, 100), 0);
  EXPECT_NEAR(z[0], 4.0 / 3, 1e-14);
  EXPECT_NEAR(z[1], 7.0 / 3, 1e-14);
  // q = (1, -6): only the second: 2b = 6 -> (0, 3), w0 = 1 + 3 = 4
  const double q2[2] = {1, -6};
  ASSERT_GE(moreau::ncp::lemke(2, M, q2, z, work, 100), 0);
  EXPECT_NEAR(z[0], 0.0, 1e-14);
  EXPECT_NEAR(z[1], 3.0, 1e-14);
  const double Mi[1] = {-1}, qi[1] = {-1};
  EXPECT_EQ(moreau::ncp::lemke(1, Mi, qi, z, work, 100), -1);
}

// Past its stated size the lcp solver refuses with a runtime error naming the limit (a pile of
// boxes: 41 free boxes on a plane make 164 contacts, 984 LCP variables > 240).
TEST(NcpLcp, RefusesProblemsPastItsSize) {
  std::string xml = "<mujoco><option solver=\"lcp\"/><worldbody><geom type=\"plane\" size=\"20 20 .1\"/>";
  for (int i = 0; i < 41; ++i)
    xml += "<body pos=\"" + std::to_string(0.5 * (i % 7)) + " " + std::to_string(0.5 * (i / 7)) +
           " 0.099\"><freejoint/><geom type=\"box\" size=\".1 .1 .1\"/></body>";
  xml += "</worldbody></mujoco>";
  const moreau::Model m = moreau::load_model_from_string(xml);
  moreau::Data d = moreau::make_data(m);
  try {
    moreau::step(m, d);
    FAIL() << "expected a runtime error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("lcp"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("240"), std::string::npos) << e.what();
  }
}

// The problem class on the grasp (models/experiments/grasp.xml: the box held by two pads and
// resting on the floor, up to 12 contacts and 72 LCP variables, hyperstatic and degenerate). Per
// contact the variables are (lambda_N, beta_1..4, sigma); M = [P E; -E' + mu N 0] with
// P = V'GV symmetric positive semi-definite, so z'Mz = z_F'Pz_F + sum sigma mu lambda_N >= 0 for
// z >= 0: M is copositive, the class for which Lemke's algorithm with the lexicographic rule ends
// on a solution whenever q'z >= 0 on SOL(0, M) (Cottle, Pang & Stone, Thm. 3.8.6;
// docs/contact_models.md). Checked on every step of the close and the lift: P symmetric to
// round-off and positive semi-definite (Cholesky of P + 1e-10 max(diag P) I), the slack rows and
// columns as stated, and the solution complementary to lcp's acceptance (kLcpAccept, relative to
// the problem's velocity and impulse scales).
TEST(NcpLcp, GraspLcpIsCopositiveAndLemkeSolvesIt) {
  moreau::Model m = moreau::load_model(kDir + "grasp.xml");
  m.opt.solver = moreau::kSolverLCP;
  moreau::Data d = moreau::make_data(m);
  moreau::reset_data_keyframe(m, d, 0);
  int largest = 0, checked = 0;
  for (int step = 0; step < 400; ++step) {  // closing (0 .. 0.5 s), then the start of the lift
    const double s = std::clamp((d.time - 0.5) / 1.0, 0.0, 1.0);
    d.ctrl[0] = 0.1 * 0.5 * (1 - std::cos(M_PI * s));
    moreau::step(m, d);
    const moreau::ncp::LcpView L = moreau::ncp::last_lcp(m, d);
    if (L.n == 0) continue;
    ASSERT_EQ(L.n % 6, 0);
    const int n = L.n;
    largest = std::max(largest, n / 6);
    auto at = [&](int i, int j) { return L.M[i * n + j]; };
    auto is_slack = [](int i) { return i % 6 == 5; };
    std::vector<int> F;
    double pmax = 0, vscale = 0, iscale = 0;
    for (int i = 0; i < n; ++i)
      if (!is_slack(i)) {
        F.push_back(i);
        pmax = std::max(pmax, at(i, i));
      }
    for (int i : F) {
      vscale = std::max(vscale, std::fabs(L.q[i]));
      iscale = std::max(iscale, std::fabs(L.q[i]) / at(i, i));
    }
    // P symmetric and positive semi-definite
    const int f = static_cast<int>(F.size());
    std::vector<double> P(static_cast<size_t>(f) * f);
    for (int a = 0; a < f; ++a)
      for (int b = 0; b < f; ++b) {
        ASSERT_NEAR(at(F[a], F[b]), at(F[b], F[a]), 1e-12 * pmax);
        P[a * f + b] = at(F[a], F[b]) + (a == b ? 1e-10 * pmax : 0);
      }
    for (int k = 0; k < f; ++k) {  // in-place Cholesky
      for (int j = 0; j < k; ++j) P[k * f + k] -= P[k * f + j] * P[k * f + j];
      ASSERT_GT(P[k * f + k], 0) << "P is not positive semi-definite at step " << step;
      P[k * f + k] = std::sqrt(P[k * f + k]);
      for (int i = k + 1; i < f; ++i) {
        for (int j = 0; j < k; ++j) P[i * f + k] -= P[i * f + j] * P[k * f + j];
        P[i * f + k] /= P[k * f + k];
      }
    }
    // slack rows and columns: sigma couples to its own contact only, skew on the edges, mu >= 0
    // on the normal, zero among slacks
    for (int i = 0; i < n; ++i) {
      if (!is_slack(i)) continue;
      const int c0 = i - 5;
      for (int j = 0; j < n; ++j) {
        const bool own = j >= c0 && j < i;
        if (is_slack(j)) {
          EXPECT_EQ(at(i, j), 0.0);
        } else if (!own) {
          EXPECT_EQ(at(i, j), 0.0);
          EXPECT_EQ(at(j, i), 0.0);
        } else if (j == c0) {
          EXPECT_GE(at(i, j), 0.0);  // mu
          EXPECT_EQ(at(j, i), 0.0);
        } else {
          EXPECT_EQ(at(i, j), -1.0);  // -beta_j
          EXPECT_EQ(at(j, i), 1.0);   // +sigma
        }
      }
    }
    // complementary solution
    for (int i = 0; i < n; ++i) {
      double w = L.q[i];
      for (int j = 0; j < n; ++j) w += at(i, j) * L.z[j];
      const double zs = is_slack(i) ? vscale : iscale, ws = is_slack(i) ? iscale : vscale;
      EXPECT_GE(L.z[i], 0.0);
      EXPECT_LE(std::fabs(std::min(L.z[i] / zs, w / ws)), moreau::ncp::kLcpAccept) << "step " << step << " row " << i;
    }
    ++checked;
  }
  EXPECT_EQ(largest, 12);  // the degenerate set was reached: two pads and the floor
  EXPECT_GT(checked, 100);
}

// A small LCP whose solution set is known and not unique: a ball (m = 1, r = 0.1, no gravity)
// touching a floor and a ceiling plate (both fixed, gap exactly 0, mu = 1) and pulled along x by
// F = 1 N. The LCP (2 contacts, 12 variables) has
//   - the sliding solutions: no impulse, both contacts sliding at the free speed F h / m
//     (sigma = F h / m, w_sigma = 0 up to lcp's feasibility margin): the ball slides between the
//     plates as if they were not there;
//   - the sticking solutions: any squeeze lambda_N >= F h / (2 mu) on both plates (its normal
//     impulses cancel in the ball), each contact's friction F h / 2 against the pull (equal, or
//     the ball would turn): the ball stays at rest.
// Lemke's algorithm alone may return either; lcp returns the solution of least kinetic energy, and
// among those the one of least impulse norm: at rest, squeezed by F / (2 mu) = 0.5 N per plate.
TEST(NcpLcp, PrefersTheStickingSolutionOfANonUniqueLcp) {
  const char* xml = R"(<mujoco>
    <option timestep="0.01" gravity="0 0 0" solver="lcp"/>
    <default><geom friction="1 0 0" margin="0.001"/></default>
    <worldbody>
      <geom name="floor" type="plane" size="1 1 .1" pos="0 0 -0.1"/>
      <geom name="ceiling" type="plane" size="1 1 .1" pos="0 0 0.1" quat="0 1 0 0"/>
      <body name="ball"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    </worldbody></mujoco>)";
  const moreau::Model m = moreau::load_model_from_string(xml);
  moreau::Data d = moreau::make_data(m);
  const double F = 1, h = m.opt.timestep, mu = 1;
  for (int n = 0; n < 50; ++n) {
    d.xfrc_applied[6 * 1 + 0] = F;
    moreau::step(m, d);
    ASSERT_EQ(d.ncon, 2) << "step " << n;
    const moreau::ncp::LcpView L = moreau::ncp::last_lcp(m, d);
    ASSERT_EQ(L.n, 12);
    double vscale = 0, iscale = 0;
    for (int i = 0; i < L.n; ++i)
      if (i % 6 != 5) {
        vscale = std::max(vscale, std::fabs(L.q[i]));
        iscale = std::max(iscale, std::fabs(L.q[i]) / L.M[i * L.n + i]);
      }
    // natural residual of a candidate z, relative to the velocity and impulse scales (lcp's own
    // acceptance measure)
    auto residual = [&](const std::vector<double>& z) {
      double worst = 0;
      for (int i = 0; i < L.n; ++i) {
        double w = L.q[i];
        for (int j = 0; j < L.n; ++j) w += L.M[i * L.n + j] * z[j];
        const bool slack = i % 6 == 5;
        worst = std::max(worst, std::fabs(std::min(z[i] / (slack ? vscale : iscale), w / (slack ? iscale : vscale))));
      }
      return worst;
    };
    // the sliding solution solves this LCP too: no impulse, each contact's sigma the free sliding
    // speed (F h / m and what the ball already moves), the largest -d_j' c_T over its edges
    std::vector<double> sliding(L.n, 0.0);
    for (int c = 0; c < 2; ++c)
      for (int j = 1; j <= 4; ++j) sliding[6 * c + 5] = std::max(sliding[6 * c + 5], -L.q[6 * c + j]);
    EXPECT_NEAR(sliding[5], F * h / 1.0, 1e-9);
    EXPECT_LE(residual(sliding), 1e-12) << "step " << n;
    // lcp's solution solves it and sticks: no sliding speed beyond its regularization's
    // (sigma = eps beta, eps = kLcpStickReg max diag P, max diag P = 1/m + r^2/I = 3.5, beta = F h / 2),
    // the ball at rest
    EXPECT_LE(residual(std::vector<double>(L.z, L.z + L.n)), moreau::ncp::kLcpAccept) << "step " << n;
    EXPECT_LE(L.z[5], 2 * moreau::ncp::kLcpStickReg * F * h) << "step " << n;
    EXPECT_LE(L.z[11], 2 * moreau::ncp::kLcpStickReg * F * h) << "step " << n;
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(d.qvel[k], 0.0, 1e-9) << "step " << n << " dof " << k;
    // the least squeeze that holds it: F / (2 mu) on each plate, friction F / 2 against the pull
    for (int c = 0; c < 2; ++c) {
      double fc[6];
      moreau::contact_force(m, d, c, fc);
      EXPECT_NEAR(fc[0], F / (2 * mu), 1e-6) << "step " << n << " contact " << c;
      EXPECT_NEAR(std::hypot(fc[1], fc[2]), F / 2, 1e-6) << "step " << n << " contact " << c;
    }
  }
  EXPECT_NEAR(d.qpos[0], 0.0, 1e-9);
}

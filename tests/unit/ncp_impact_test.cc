// The spinning ball of the Underactuated chapter: moreau::impact against the closed-form
// post-impact map for restitution e, and velocity stepping against the same map with e = 0.
//
// Map (chapter, "Impulsive collisions", hollow sphere of mass m, radius r, theta_dot = -omega_y):
//   vx+ = 3/5 vx + 2/5 r omega_y,  vz+ = -e vz,  omega_y+ = 3/(5r) vx + 2/5 omega_y.
// It is the sticking solution (mu = 100 in spinning_ball.xml keeps the impulse inside the cone:
// |Lambda_T| = 0.2 N s <= mu Lambda_N = 100 (1 + e) 2 N s).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "moreau/moreau.h"

namespace {

const std::string kBall = std::string(MOREAU_SOURCE_DIR) + "/models/experiments/spinning_ball.xml";
constexpr double kR = 0.1;

void ball_map(double e, const double* v, double* out) {
  out[0] = 0.6 * v[0] + 0.4 * kR * v[4];
  out[1] = -e * v[2];
  out[2] = 0.6 / kR * v[0] + 0.4 * v[4];
}

}  // namespace

// Every hard-contact solver, e = 0 .. 1: the post-impact velocities equal the map to 1e-9
// (ncp-pgs/ccp converge geometrically on this single contact to their 1e-12 tolerance; raisim,
// raisim-ds and lcp solve the sticking case in closed form). The other components stay as they
// were (vy, omega_x, omega_z are zero and untouched by an impulse in the x-z plane).
TEST(NcpImpact, SpinningBallFollowsTheClosedFormMap) {
  for (int solver : {moreau::kSolverRaisim, moreau::kSolverRaisimDS, moreau::kSolverNcpPGS,
                     moreau::kSolverCCP, moreau::kSolverLCP}) {
    moreau::Model m = moreau::load_model(kBall);
    m.opt.solver = solver;
    moreau::Data d = moreau::make_data(m);
    for (double e : {0.0, 0.3, 0.5, 1.0}) {
      SCOPED_TRACE(std::string(moreau::solver_name(solver)) + " e=" + std::to_string(e));
      moreau::reset_data_keyframe(m, d, 0);
      double before[6], map[3];
      for (int k = 0; k < 6; ++k) before[k] = d.qvel[k];
      moreau::impact(m, d, e);
      ball_map(e, before, map);
      EXPECT_NEAR(d.qvel[0], map[0], 1e-9);
      EXPECT_NEAR(d.qvel[2], map[1], 1e-9);
      EXPECT_NEAR(d.qvel[4], map[2], 1e-9);
      EXPECT_NEAR(d.qvel[1], 0.0, 1e-12);
      EXPECT_NEAR(d.qvel[3], 0.0, 1e-12);
      EXPECT_NEAR(d.qvel[5], 0.0, 1e-12);
      EXPECT_NEAR(d.qpos[2], 0.1, 0.0);  // positions untouched
      // the contact point sticks after the impact
      EXPECT_NEAR(d.qvel[0] - kR * d.qvel[4], 0.0, 1e-9);
    }
  }
}

// Velocity stepping is an inelastic impact (e = 0) with gravity: after one step the horizontal and
// spin velocities equal the e = 0 map of the pre-step ones (gravity acts along z only) and vz = 0.
TEST(NcpImpact, TimeSteppingIsTheInelasticMap) {
  for (int solver : {moreau::kSolverRaisimDS, moreau::kSolverNcpPGS, moreau::kSolverLCP}) {
    SCOPED_TRACE(moreau::solver_name(solver));
    moreau::Model m = moreau::load_model(kBall);
    m.opt.solver = solver;
    moreau::Data d = moreau::make_data(m);
    moreau::reset_data_keyframe(m, d, 0);
    double before[6], map[3];
    for (int k = 0; k < 6; ++k) before[k] = d.qvel[k];
    moreau::step(m, d);
    ball_map(0, before, map);
    EXPECT_NEAR(d.qvel[0], map[0], 1e-9);
    EXPECT_NEAR(d.qvel[2], 0.0, 1e-9);
    EXPECT_NEAR(d.qvel[4], map[2], 1e-9);
  }
}

TEST(NcpImpact, RefusesWhatItCannotDo) {
  moreau::Model m = moreau::load_model(kBall);
  moreau::Data d = moreau::make_data(m);
  EXPECT_THROW(moreau::impact(m, d, 1.5), std::invalid_argument);
  m.opt.solver = moreau::kSolverNewton;  // the soft model has no impact map
  EXPECT_THROW(moreau::impact(m, d, 0.5), std::invalid_argument);
}

// The hard-contact solvers in Moreau's pipeline: selection by name in MJCF, refusal of
// combinations they cannot do, consistency of qacc with the Euler update (joint damping included),
// limits and equality rows, and the metrics of contact_metrics against the solver's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "moreau/moreau.h"

namespace {

std::string with_option(const std::string& option) {
  return "<mujoco><option " + option +
         "/><worldbody><geom type=\"plane\" size=\"1 1 .1\"/><body pos=\"0 0 .1\"><freejoint/>"
         "<geom type=\"sphere\" size=\".1\"/></body></worldbody></mujoco>";
}

// A double pendulum with joint damping, a joint limit that it hits, friction loss on its second
// joint and a joint equality keeping that joint at 0.3 times the first: every kind of 1D row, and
// the implicit damping path.
const char* kPendulum = R"(
  <mujoco>
    <option timestep="0.002"/>
    <worldbody>
      <body pos="0 0 1">
        <joint name="j1" type="hinge" axis="0 1 0" damping="0.5" limited="true" range="-20 40" margin="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="1"/>
        <body pos="0.4 0 0">
          <joint name="j2" type="hinge" axis="0 1 0" damping="0.2" frictionloss="0.05"/>
          <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="1"/>
        </body>
      </body>
    </worldbody>
    <equality><joint joint1="j2" joint2="j1" polycoef="0 0.3 0 0 0"/></equality>
  </mujoco>)";

}  // namespace

TEST(NcpPipeline, MjcfAcceptsTheSolverNames) {
  const std::pair<const char*, int> names[] = {{"raisim", moreau::kSolverRaisim},
                                               {"raisim-ds", moreau::kSolverRaisimDS},
                                               {"ncp-pgs", moreau::kSolverNcpPGS},
                                               {"ccp", moreau::kSolverCCP},
                                               {"lcp", moreau::kSolverLCP}};
  for (const auto& [name, id] : names) {
    const moreau::Model m = moreau::load_model_from_string(with_option(std::string("solver=\"") + name + "\""));
    EXPECT_EQ(m.opt.solver, id) << name;
    EXPECT_TRUE(moreau::is_hard_contact_solver(m.opt.solver));
    EXPECT_STREQ(moreau::solver_name(id), name);
  }
  EXPECT_FALSE(moreau::is_hard_contact_solver(moreau::kSolverNewton));
}

TEST(NcpPipeline, RefusesCombinationsThatMakeNoSense) {
  // RK4 with a velocity-stepping solver: at load (file, line, element) ...
  try {
    moreau::load_model_from_string(with_option("solver=\"raisim-ds\" integrator=\"RK4\""), "rk4.xml");
    FAIL() << "expected LoadError";
  } catch (const moreau::LoadError& e) {
    EXPECT_EQ(e.element(), "option");
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("Euler"), std::string::npos) << e.what();
  }
  // ... and at run time when the options are changed after loading
  moreau::Model m = moreau::load_model_from_string(with_option("solver=\"ncp-pgs\""));
  m.opt.integrator = moreau::kIntRK4;
  moreau::Data d = moreau::make_data(m);
  EXPECT_THROW(moreau::step(m, d), std::runtime_error);
  // inverse dynamics is the soft model's
  m.opt.integrator = moreau::kIntEuler;
  moreau::forward(m, d);
  EXPECT_THROW(moreau::inverse(m, d), std::runtime_error);
  // torsional / rolling friction (condim 4, 6) is outside lcp's friction pyramid
  moreau::Model m6 = moreau::load_model_from_string(
      "<mujoco><option solver=\"lcp\"/><worldbody><geom type=\"plane\" size=\"1 1 .1\"/>"
      "<body pos=\"0 0 .1\"><freejoint/><geom type=\"sphere\" size=\".1\" condim=\"6\"/></body></worldbody></mujoco>");
  moreau::Data d6 = moreau::make_data(m6);
  try {
    for (int n = 0; n < 10; ++n) moreau::step(m6, d6);  // falls into contact
    FAIL() << "expected a runtime error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("condim 6"), std::string::npos) << e.what();
  }
}

// Euler's update reproduces the solver's v+ exactly (qvel_next = qvel + h qacc, with the implicit
// damping solved by the integrator on the same M + hB: 1e-12 relative); the joint limit, whose row
// exists 0.1 rad ahead (margin), is never passed: the time-stepping constraint dist + h v >= 0
// stops the joint on the limit (1e-9 rad: the solvers' tolerance); the joint equality holds to the
// Baumgarte decay (|q2 - 0.3 q1| < 1e-3 after the first 0.1 s; it starts satisfied, and the error
// is what one step's coupling leaves before the next corrects it).
TEST(NcpPipeline, DampingLimitsAndEqualitiesAreConsistent) {
  for (int solver : {moreau::kSolverRaisimDS, moreau::kSolverNcpPGS, moreau::kSolverCCP, moreau::kSolverLCP,
                     moreau::kSolverRaisim}) {
    SCOPED_TRACE(moreau::solver_name(solver));
    moreau::Model m = moreau::load_model_from_string(kPendulum);
    m.opt.solver = solver;
    m.opt.iterations = 500;
    m.opt.tolerance = 1e-12;
    moreau::Data d = moreau::make_data(m);
    const double lo = -20 * M_PI / 180, hi = 40 * M_PI / 180;
    bool limited = false;
    double max_eps = 0;
    int converged = 0;
    for (int n = 0; n < 1000; ++n) {
      const double before[2] = {d.qvel[0], d.qvel[1]};
      moreau::step(m, d);  // d.qacc: the step's (v+ - v)/h
      for (int k = 0; k < 2; ++k) {
        const double expect = before[k] + m.opt.timestep * d.qacc[k];
        ASSERT_NEAR(d.qvel[k], expect, 1e-12 * (1 + std::fabs(expect)));
      }
      EXPECT_GT(d.qpos[0], lo - 1e-9);
      EXPECT_LT(d.qpos[0], hi + 1e-9);
      if (d.qpos[0] < lo + 1e-3 || d.qpos[0] > hi - 1e-3) limited = true;
      if (d.time > 0.1) EXPECT_LT(std::fabs(d.qpos[1] - 0.3 * d.qpos[0]), 1e-3);
      if (d.ncp.iterations < m.opt.iterations) {
        max_eps = std::max(max_eps, d.ncp.eps_abs);
        ++converged;
      }
    }
    // every step converges (500 sweeps, relative change 1e-12) and then satisfies the complementarity
    // conditions of all its rows, friction loss included: eps_abs < 1e-7 (observed 7e-9; lcp exact,
    // observed 4e-13)
    EXPECT_EQ(converged, 1000);
    EXPECT_LT(max_eps, solver == moreau::kSolverLCP ? 1e-10 : 1e-7);
    EXPECT_TRUE(limited) << "the pendulum is meant to reach a limit";
  }
}

// contact_metrics (any solver) measures a hard solver's result as the solver itself does
// (same rows, velocities from the point Jacobians instead of g + J v: agreement to round-off,
// 1e-9 relative to the forces' scale), and measures the soft model with the same yardstick.
TEST(NcpPipeline, ContactMetricsAgreeWithTheSolver) {
  moreau::Model m = moreau::load_model(std::string(MOREAU_SOURCE_DIR) + "/models/experiments/sliding_cube.xml");
  m.opt.solver = moreau::kSolverRaisim;  // large errors: a meaningful comparison
  moreau::Data d = moreau::make_data(m);
  moreau::reset_data_keyframe(m, d, 0);
  for (int n = 0; n < 30; ++n) moreau::step(m, d);
  const moreau::NcpStat own = d.ncp;
  ASSERT_GT(own.eps_abs, 1e-3);
  moreau::contact_metrics(m, d, d.qvel.data());
  EXPECT_NEAR(d.ncp.primal, own.primal, 1e-9 * 10);
  EXPECT_NEAR(d.ncp.dual, own.dual, 1e-9);
  EXPECT_NEAR(d.ncp.complementarity, own.complementarity, 1e-9 * 10);
  EXPECT_EQ(d.ncp.nblock, own.nblock);
}

// A sphere 0.5e-9 m above the plane (within kHardContactBand): the hard-contact solvers see the
// contact, stop the falling sphere exactly at contact in one step (its free fall would take it
// 3.9e-5 m into the plane: no penetration, so no Baumgarte recovery after it) and leave a rising
// sphere free (the row exists, its force is zero); Newton's soft model sees no contact there. The
// sphere stays at its radius within 1e-10 m over 50 steps: the iterative solvers stop at a relative
// change of opt.tolerance (ncp-pgs leaves ~2e-12 m), far below the 3.9e-5 m of a missed contact.
TEST(NcpPipeline, ContactsWithinTheBandHaveRowsThatOnlyStopPenetration) {
  const double r = 0.1, z0 = r + 0.5e-9;
  for (int solver : {moreau::kSolverRaisim, moreau::kSolverRaisimDS, moreau::kSolverNcpPGS, moreau::kSolverCCP,
                     moreau::kSolverLCP, moreau::kSolverNewton}) {
    SCOPED_TRACE(moreau::solver_name(solver));
    moreau::Model m = moreau::load_model_from_string(with_option("timestep=\"0.002\""));
    m.opt.solver = solver;
    moreau::Data d = moreau::make_data(m);
    const bool hard = moreau::is_hard_contact_solver(solver);
    // falling from rest
    d.qpos[2] = z0;
    moreau::step(m, d);
    EXPECT_EQ(d.ncon, hard ? 1 : 0);
    if (hard) {
      EXPECT_NEAR(d.qpos[2], r, 1e-10);
      for (int i = 0; i < 50; ++i) {
        moreau::step(m, d);
        ASSERT_EQ(d.ncon, 1) << "step " << i;
        EXPECT_NEAR(d.qpos[2], r, 1e-10);
      }
    } else {
      EXPECT_LT(d.qpos[2], r - 1e-5);  // no contact before the step: it falls into the plane
    }
    // rising: the row is there, its force is zero
    moreau::reset_data(m, d);
    d.qpos[2] = z0;
    d.qvel[2] = 1;
    moreau::forward(m, d);
    EXPECT_EQ(d.ncon, hard ? 1 : 0);
    if (hard) {
      ASSERT_EQ(d.nefc, 3);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(d.efc_force[k], 0);
    }
  }
}

// The warm start gives each row of a multi-row equality the previous impulse of that row: a free
// box hung from the world by a connect constraint (three rows, the same object) at rest takes one
// sweep per step once it hangs still, and starts each step from the impulses it ended the last.
TEST(NcpPipeline, WarmStartMatchesEachRowOfAnEquality) {
  const char* xml = R"(
    <mujoco>
      <option timestep="0.002" solver="raisim"/>
      <worldbody>
        <body name="box" pos="0 0 1">
          <freejoint/>
          <geom type="box" size="0.1 0.1 0.1" mass="1"/>
        </body>
      </worldbody>
      <equality><connect body1="box" anchor="0 0 0.1"/></equality>
    </mujoco>)";
  for (int solver : {moreau::kSolverRaisim, moreau::kSolverRaisimDS}) {
    SCOPED_TRACE(moreau::solver_name(solver));
    moreau::Model m = moreau::load_model_from_string(xml);
    m.opt.solver = solver;
    moreau::Data d = moreau::make_data(m);
    for (int i = 0; i < 200; ++i) moreau::step(m, d);
    ASSERT_EQ(d.nefc, 3);
    double prev[3];
    std::copy_n(d.efc_force.begin(), 3, prev);
    moreau::step(m, d);
    EXPECT_EQ(d.solver_iter, 1);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(d.efc_force[k], prev[k], 1e-9 * 9.81) << k;
    EXPECT_NEAR(std::hypot(prev[0], prev[1], prev[2]), 9.81, 1e-6);  // the connect carries m g
  }
}

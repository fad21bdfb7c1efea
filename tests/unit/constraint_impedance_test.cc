// Unit tests of the solver parameters: impedance d(r) against the formula at chosen
// points, solref in both forms, refsafe, R = (1-d)/d diagApprox, elliptic R and mu.
#include <gtest/gtest.h>

#include <cmath>

#include "constraint/storage.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

TEST(ConstraintImpedance, SigmoidAtChosenPoints) {
  // dmin 0.9, dmax 0.95, width 0.001, midpoint 0.5, power 2 (MuJoCo's default solimp)
  const double solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double dd;
  // x = 0: dmin; x >= width: dmax
  EXPECT_DOUBLE_EQ(constraint::impedance(solimp, 0, 0, &dd), 0.9);
  EXPECT_DOUBLE_EQ(constraint::impedance(solimp, -0.002, 0, &dd), 0.95);
  EXPECT_DOUBLE_EQ(dd, 0);
  // x = 0.25 (below midpoint): y = x^2 / mid = 0.125
  EXPECT_NEAR(constraint::impedance(solimp, -0.00025, 0, &dd), 0.9 + 0.125 * 0.05, 1e-15);
  // derivative: dy/dx = 2x/mid = 1 -> d' = sgn * 1 * 0.05 / 0.001 = -50 (pos below margin)
  EXPECT_NEAR(dd, -50, 1e-9);
  // x = 0.75 (above midpoint): y = 1 - (1-x)^2/(1-mid) = 1 - 0.125 = 0.875
  EXPECT_NEAR(constraint::impedance(solimp, 0.00075, 0, &dd), 0.9 + 0.875 * 0.05, 1e-15);
  EXPECT_NEAR(dd, 2 * 0.25 / 0.5 * 0.05 / 0.001, 1e-9);
  // the violation is measured from the margin
  EXPECT_NEAR(constraint::impedance(solimp, 0.01 - 0.00025, 0.01, &dd), 0.9 + 0.125 * 0.05, 1e-15);
  // power 1: linear
  const double lin[5] = {0.2, 0.6, 1.0, 0.3, 1};
  EXPECT_NEAR(constraint::impedance(lin, 0.4, 0, &dd), 0.2 + 0.4 * 0.4, 1e-15);
  // power 3, midpoint 0.3, x = 0.2: y = x^3 / mid^2
  const double cub[5] = {0.1, 0.9, 2.0, 0.3, 3};
  EXPECT_NEAR(constraint::impedance(cub, 0.4, 0, &dd), 0.1 + 0.8 * (0.008 / 0.09), 1e-14);
  // x = 0.8: y = 1 - (0.2)^3 / 0.7^2
  EXPECT_NEAR(constraint::impedance(cub, 1.6, 0, &dd), 0.1 + 0.8 * (1 - 0.008 / 0.49), 1e-14);
  // flat: dmin == dmax
  const double flat[5] = {0.5, 0.5, 0.01, 0.5, 2};
  EXPECT_DOUBLE_EQ(constraint::impedance(flat, 0.3, 0, &dd), 0.5);
}

// One slide joint with a limit: a 1-row model built by hand.
Model slider(double mass) {
  Model m;
  m.nq = m.nv = 1;
  m.nbody = 2;
  m.njnt = 1;
  m.nM = 1;
  m.body_parentid = {0, 0};
  m.body_rootid = {0, 1};
  m.body_weldid = {0, 1};
  m.body_dofnum = {0, 1};
  m.body_dofadr = {-1, 0};
  m.body_jntnum = {0, 1};
  m.body_jntadr = {-1, 0};
  m.body_invweight0 = {0, 0, 1 / mass, 0};
  m.jnt_type = {kJointSlide};
  m.jnt_qposadr = {0};
  m.jnt_dofadr = {0};
  m.jnt_bodyid = {1};
  m.jnt_limited = {1};
  m.jnt_range = {-1, 1};
  m.jnt_margin = {0};
  m.jnt_solref = {0.02, 1};
  m.jnt_solimp = {0.9, 0.95, 0.001, 0.5, 2};
  m.dof_bodyid = {1};
  m.dof_jntid = {0};
  m.dof_parentid = {-1};
  m.dof_Madr = {0};
  m.dof_simplenum = {0};
  m.dof_frictionloss = {0};
  m.dof_solref = {0.02, 1};
  m.dof_solimp = {0.9, 0.95, 0.001, 0.5, 2};
  m.dof_invweight0 = {1 / mass};
  m.qpos0 = {0};
  m.stat.meaninertia = mass;
  return m;
}

Data slider_data(const Model& m, double mass, double q, double v, double force) {
  Data d;
  d.qpos = {q};
  d.qvel = {v};
  d.qM = {mass};
  d.qLD = {mass};
  d.qLDiagInv = {1 / mass};
  d.qLDiagSqrtInv = {1 / std::sqrt(mass)};
  d.qfrc_smooth = {force};
  d.qacc_smooth = {force / mass};
  d.qacc_warmstart = {0};
  d.qacc = {0};
  d.qfrc_constraint = {0};
  d.xpos.resize(3 * m.nbody);  // the arrays the entries' Data/Model check compares
  d.geom_xpos.resize(3 * m.ngeom);
  d.site_xpos.resize(3 * m.nsite);
  allocate_constraint_storage(m, d);
  return d;
}

TEST(ConstraintImpedance, LimitSolvedByHand) {
  const double mass = 2, q = -1.0005, v = -0.1, force = -3;
  for (int solver : {kSolverNewton, kSolverCG, kSolverPGS}) {
    Model m = slider(mass);
    m.opt.solver = solver;
    Data d = slider_data(m, mass, q, v, force);
    make_constraint(m, d);
    reference_constraint(m, d);
    ASSERT_EQ(d.nefc, 1);  // lower side only
    EXPECT_EQ(d.efc_type[0], kCnstrLimitJoint);
    EXPECT_DOUBLE_EQ(d.efc_J[0], 1);
    EXPECT_DOUBLE_EQ(d.efc_pos[0], q + 1);
    // by hand: r = -0.0005 -> x = 0.5 = midpoint -> y = 0.5 -> d = 0.925
    const double imp = 0.925, dmax = 0.95, tc = 0.02, dr = 1;
    const double K = 1 / (dmax * dmax * tc * tc * dr * dr), B = 2 / (dmax * tc);
    const double R = (1 - imp) / imp * (1 / mass);
    EXPECT_NEAR(d.efc_KBIP[2], imp, 1e-12);
    EXPECT_NEAR(d.efc_R[0], R, 1e-12);
    const double aref = -B * v - K * imp * (q + 1);
    EXPECT_NEAR(d.efc_aref[0], aref, 1e-9);
    // one active row: (A + R) f = aref - a0 with A = 1/mass, a0 = force/mass
    m.opt.tolerance = 1e-14;
    m.opt.iterations = 1000;
    solve_constraint(m, d);
    const double f = (aref - force / mass) / (1 / mass + R);
    ASSERT_GT(f, 0);
    EXPECT_NEAR(d.efc_force[0], f, 1e-8 * std::fabs(f)) << "solver " << solver;
    EXPECT_NEAR(d.qacc[0], (force + f) / mass, 1e-8 * std::fabs(f)) << "solver " << solver;
    EXPECT_NEAR(d.qfrc_constraint[0], f, 1e-8 * std::fabs(f));
    // fwdinv: forward and inverse agree at the converged solution
    m.opt.enableflags |= kEnblFwdinv;
    solve_constraint(m, d);
    EXPECT_LT(d.solver_fwdinv[0], 1e-8 * std::fabs(f));
    EXPECT_LT(d.solver_fwdinv[1], 1e-8 * std::fabs(f));
    EXPECT_NEAR(d.efc_force[0], f, 1e-8 * std::fabs(f));  // forward results kept
    // the analytic inverse recovers the force from qacc
    inverse_constraint(m, d);
    EXPECT_NEAR(d.efc_force[0], f, 1e-8 * std::fabs(f));
  }
}

TEST(ConstraintImpedance, SolrefNegativeAndRefsafe) {
  const double mass = 1;
  Model m = slider(mass);
  m.jnt_solref = {-1000, -10};  // direct stiffness and damping
  m.jnt_solimp = {0.5, 0.5, 0.001, 0.5, 2};
  Data d = slider_data(m, mass, -1.01, 0.5, 0);
  make_constraint(m, d);
  reference_constraint(m, d);
  ASSERT_EQ(d.nefc, 1);
  EXPECT_NEAR(d.efc_KBIP[0], 1000 / 0.25, 1e-9);
  EXPECT_NEAR(d.efc_KBIP[1], 10 / 0.5, 1e-12);
  EXPECT_NEAR(d.efc_aref[0], -20 * 0.5 - 4000 * 0.5 * (-0.01), 1e-9);
  // timeconst below 2*timestep is raised to 2*timestep unless refsafe is disabled
  m.jnt_solref = {0.001, 1};
  make_constraint(m, d);
  EXPECT_NEAR(d.efc_KBIP[1], 2 / (0.5 * 2 * m.opt.timestep), 1e-9);
  m.opt.disableflags |= kDsblRefsafe;
  make_constraint(m, d);
  EXPECT_NEAR(d.efc_KBIP[1], 2 / (0.5 * 0.001), 1e-9);
  // disable flags
  m.opt.disableflags = kDsblLimit;
  make_constraint(m, d);
  EXPECT_EQ(d.nefc, 0);
  m.opt.disableflags = kDsblConstraint;
  make_constraint(m, d);
  EXPECT_EQ(d.nefc, 0);
}

TEST(ConstraintImpedance, OverflowWarnsAndNeverWritesPastTheEnd) {
  Model m = slider(1);
  m.njmax = 1;
  m.jnt_range = {-1, -2};  // both sides violated: 2 rows, room for 1
  Data d = slider_data(m, 1, -1.5, 0, 0);
  make_constraint(m, d);
  EXPECT_EQ(d.nefc, 1);
  EXPECT_EQ(d.warning[kWarnCnstrFull].number, 1);
}

}  // namespace
}  // namespace moreau

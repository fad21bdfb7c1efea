// The dual-side extras against MuJoCo 2.2.2, on models with resting and sliding contacts, friction
// loss and limits, for both cones: the noslip post-pass (opt.noslip_iterations > 0) and efc_AR
// (project_constraint; 2.2.2 fills it in forward when its dual solvers run).
//
// States: MuJoCo simulates from keyframe 0 (or qpos0) with constant controls; at a few steps its
// constraint inputs are copied into Moreau (constraint_bridge.h, as the ConstraintDiff suite does),
// both run the main solver and the noslip pass. The main solver runs to a tight tolerance on both
// sides so that noslip starts from the same forces (to ~1e-12); then
//   fixed:     noslip_iterations = 6 with a negative tolerance: the same number of Gauss-Seidel sweeps
//              on both sides, so any difference in the update rules (which rows, which cost, the
//              pair and ellipse updates, the order) shows;
//   stopping:  noslip_iterations = 100 with the default tolerance 1e-6: the stopping rule.
// Compared: efc_force, qacc, qfrc_constraint (max_rel_err 1e-6: the sweeps start from forces equal
// to ~1e-12 and amplify differences by at most the sweeps' contraction), efc_state (exactly), the
// number of noslip iterations, and qacc_warmstart (the main solver's qacc, as 2.2.2 keeps it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "differential/constraint_bridge.h"
#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

// A slider with friction loss and a hinge with friction loss on a box that rests on the floor,
// pushed by a motor, and a free sphere with condim 6: friction-loss rows and contacts of every
// dimension, stuck and sliding.
const char* kFrictionModel = R"(
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .1">
      <joint name="x" type="slide" axis="1 0 0" frictionloss="0.5"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="r" type="hinge" axis="0 1 0" frictionloss="0.2"/>
      <geom type="box" size=".1 .1 .1" mass="1"/>
    </body>
    <body pos="1 0 .1">
      <freejoint/>
      <geom type="sphere" size=".1" condim="6" friction="1 .01 .01"/>
    </body>
    <body pos="1.5 0 .1">
      <freejoint/>
      <geom type="box" size=".1 .1 .1" condim="4"/>
    </body>
  </worldbody>
  <actuator><motor joint="x" gear="1"/></actuator>
</mujoco>)";

struct Case {
  std::string name, path;
  double ctrl;       // constant control of every actuator
  int steps[2];      // states: after these many MuJoCo steps
};

std::string friction_model_path() {
  const std::string path = ::testing::TempDir() + "moreau_noslip_friction.xml";
  std::ofstream(path) << kFrictionModel;
  return path;
}

std::vector<Case> cases() {
  return {
      {"friction_stuck", friction_model_path(), 0.1, {60, 150}},
      {"friction_sliding", friction_model_path(), 3.0, {60, 150}},
      {"humanoid", "/usr/share/mujoco/model/humanoid/humanoid.xml", 0, {100, 250}},
      {"quadruped", test_models::shared_model("dm_control/quadruped.xml"), 0,
       {100, 300}},
      {"22_humanoids", "/usr/share/mujoco/model/humanoid/22_humanoids.xml", 0, {150, 150}},
  };
}

class Noslip : public ::testing::TestWithParam<Case> {};

TEST_P(Noslip, MatchesMuJoCo) {
  const Case& c = GetParam();
  MOREAU_REQUIRE_MODEL(c.path);
  std::string err;
  MjModelPtr mj = load_mujoco(c.path, &err);
  ASSERT_TRUE(mj) << err;
  mjModel* M = mj.get();
  MjDataPtr md(mj_makeData(M));
  const mjOption saved = M->opt;
  double worst = 0;
  int compared = 0;
  for (int cone : {mjCONE_PYRAMIDAL, mjCONE_ELLIPTIC}) {
    for (int state = 0; state < 2; ++state) {
      if (state == 1 && c.steps[1] == c.steps[0]) continue;
      M->opt = saved;
      M->opt.cone = cone;
      M->opt.noslip_iterations = 0;
      mj_resetData(M, md.get());
      if (M->nkey > 0) mj_resetDataKeyframe(M, md.get(), 0);
      for (int s = 0; s < c.steps[state]; ++s) {
        for (int i = 0; i < M->nu; ++i) md->ctrl[i] = c.ctrl;
        mj_step(M, md.get());
      }
      const std::vector<double> warm(md->qacc_warmstart, md->qacc_warmstart + M->nv);
      for (int mode = 0; mode < 2; ++mode) {
        M->opt.solver = mjSOL_NEWTON;
        M->opt.tolerance = 1e-15;
        M->opt.iterations = 200;
        M->opt.noslip_iterations = mode == 0 ? 6 : 100;
        // fixed sweeps: a negative tolerance (an improvement of 0 or a round-off -1e-20 would
        // stop at tolerance 0, at different sweeps on the two sides)
        M->opt.noslip_tolerance = mode == 0 ? -1 : 1e-6;
        // MuJoCo: its main solver's iteration count first (without noslip), then with noslip
        const int noslip_iter_wanted = M->opt.noslip_iterations;
        M->opt.noslip_iterations = 0;
        std::copy(warm.begin(), warm.end(), md->qacc_warmstart);
        mj_forward(M, md.get());
        const int main_iter = md->solver_iter;
        M->opt.noslip_iterations = noslip_iter_wanted;
        std::copy(warm.begin(), warm.end(), md->qacc_warmstart);
        mj_forward(M, md.get());
        const int mj_noslip_iter = md->solver_iter - main_iter;

        const Model m = model_from_mujoco(M);
        Data d = make_data(m);
        copy_constraint_inputs(M, md.get(), m, d);
        std::copy(warm.begin(), warm.end(), d.qacc_warmstart.begin());
        make_constraint(m, d);
        reference_constraint(m, d);
        ASSERT_EQ(d.nefc, md->nefc);
        solve_constraint(m, d);
        Data d0 = d;  // our main solver alone, for the iteration count
        {
          Model m0 = m;
          m0.opt.noslip_iterations = 0;
          copy_constraint_inputs(M, md.get(), m0, d0);
          std::copy(warm.begin(), warm.end(), d0.qacc_warmstart.begin());
          make_constraint(m0, d0);
          reference_constraint(m0, d0);
          solve_constraint(m0, d0);
        }
        const int our_noslip_iter = d.solver_iter - d0.solver_iter;
        if (std::getenv("NOSLIP_DEBUG"))
          for (int k = 0; k < std::max(d.solver_iter, md->solver_iter); ++k)
            std::printf("  stat %d: ours %.6e / mujoco %.6e\n", k, d.solver[k].improvement,
                        md->solver[k].improvement);
        const std::string at = c.name + (cone ? " elliptic" : " pyramidal") + " step " +
                               std::to_string(c.steps[state]) + (mode ? " (tolerance)" : " (6 sweeps)");
        SCOPED_TRACE(at);
        const int nv = m.nv, nefc = d.nefc;
        const double e_force = nefc ? max_rel_err(d.efc_force.data(), md->efc_force, nefc) : 0.0;
        const double e_qacc = max_rel_err(d.qacc.data(), md->qacc, nv);
        const double e_qfrc = max_rel_err(d.qfrc_constraint.data(), md->qfrc_constraint, nv);
        EXPECT_LE(e_force, 1e-6) << "efc_force";
        EXPECT_LE(e_qacc, 1e-6) << "qacc";
        EXPECT_LE(e_qfrc, 1e-6) << "qfrc_constraint";
        // the warm start of the next step is the main solver's qacc, not noslip's (as 2.2.2)
        EXPECT_LE(max_rel_err(d.qacc_warmstart.data(), md->qacc_warmstart, nv), 1e-6)
            << "qacc_warmstart";
        int state_diff = 0;
        for (int i = 0; i < nefc; ++i) state_diff += d.efc_state[i] != md->efc_state[i];
        EXPECT_EQ(state_diff, 0) << "efc_state";
        EXPECT_EQ(our_noslip_iter, mj_noslip_iter) << "noslip iterations";
        // the pass must have done something for the comparison to mean anything
        double moved = 0;
        for (int i = 0; i < nefc; ++i)
          moved = std::max(moved, std::fabs(d.efc_force[i] - d0.efc_force[i]));
        EXPECT_GT(moved, 1e-6) << "noslip changed no force: the comparison would be vacuous";
        std::printf("[noslip] %s: nefc %d, iterations %d/%d, force change %.2e, err force %.1e "
                    "qacc %.1e\n", at.c_str(), nefc, our_noslip_iter, mj_noslip_iter, moved, e_force,
                    e_qacc);
        worst = std::max({worst, e_force, e_qacc, e_qfrc});
        ++compared;
      }
    }
  }
  M->opt = saved;
  std::printf("[noslip] %s: %d comparisons, worst error %.2e\n", c.name.c_str(), compared, worst);
}

// efc_AR = J M^-1 J' + R from project_constraint against the efc_AR that MuJoCo 2.2.2's forward
// computes with the PGS solver, for both jacobians (dense: nefc x nefc; sparse: compressed rows,
// compared as dense matrices) and both cones, at the states of the noslip test. 1e-9 relative:
// both are sums of a few products of the same factor of M.
TEST_P(Noslip, EfcARMatchesMuJoCo) {
  const Case& c = GetParam();
  MOREAU_REQUIRE_MODEL(c.path);
  std::string err;
  MjModelPtr mj = load_mujoco(c.path, &err);
  ASSERT_TRUE(mj) << err;
  mjModel* M = mj.get();
  MjDataPtr md(mj_makeData(M));
  const mjOption saved = M->opt;
  double worst = 0;
  for (int cone : {mjCONE_PYRAMIDAL, mjCONE_ELLIPTIC})
    for (int jacobian : {mjJAC_DENSE, mjJAC_SPARSE}) {
      if (jacobian == mjJAC_DENSE && M->nv > 100) continue;  // dense 600 x 600 costs seconds
      M->opt = saved;
      M->opt.cone = cone;
      mj_resetData(M, md.get());
      if (M->nkey > 0) mj_resetDataKeyframe(M, md.get(), 0);
      for (int s = 0; s < c.steps[0]; ++s) {
        for (int i = 0; i < M->nu; ++i) md->ctrl[i] = c.ctrl;
        mj_step(M, md.get());
      }
      M->opt.solver = mjSOL_PGS;  // 2.2.2 fills efc_AR for its dual solver
      M->opt.jacobian = jacobian;
      mj_forward(M, md.get());
      const Model m = model_from_mujoco(M);
      Data d = make_data(m);
      copy_constraint_inputs(M, md.get(), m, d);
      make_constraint(m, d);
      ASSERT_EQ(d.nefc, md->nefc);
      project_constraint(m, d);
      const int n = d.nefc;
      std::vector<double> ours(static_cast<size_t>(n) * n, 0.0), theirs(ours.size(), 0.0);
      if (jacobian == mjJAC_SPARSE) {
        ASSERT_EQ(d.efc_AR_rownnz.size(), static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
          for (int k = 0; k < d.efc_AR_rownnz[i]; ++k) {
            const int a = d.efc_AR_rowadr[i] + k;
            ours[static_cast<size_t>(i) * n + d.efc_AR_colind[a]] = d.efc_AR[a];
          }
          for (int k = 0; k < md->efc_AR_rownnz[i]; ++k) {
            const int a = md->efc_AR_rowadr[i] + k;
            theirs[static_cast<size_t>(i) * n + md->efc_AR_colind[a]] = md->efc_AR[a];
          }
        }
      } else {
        ASSERT_EQ(d.efc_AR.size(), ours.size());
        ours = d.efc_AR;
        std::copy_n(md->efc_AR, ours.size(), theirs.begin());
      }
      const double e = max_rel_err(ours.data(), theirs.data(), n * n);
      int nonzero = 0;
      for (double x : theirs) nonzero += x != 0;
      std::printf("[efc_AR] %s %s %s: nefc %d, non-zeros %d, error %.1e\n", c.name.c_str(),
                  cone ? "elliptic" : "pyramidal", jacobian ? "sparse" : "dense", n, nonzero, e);
      EXPECT_GT(nonzero, 0);
      EXPECT_LE(e, 1e-9) << (cone ? "elliptic" : "pyramidal") << (jacobian ? " sparse" : " dense");
      worst = std::max(worst, e);
    }
  M->opt = saved;
  std::printf("[efc_AR] %s: worst error %.2e\n", c.name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Models, Noslip, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace moreau::testing

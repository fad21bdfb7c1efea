// Differential tests of the constraint stage against MuJoCo 2.2.2, one case per model of
// tests/models_mujoco222.txt (the core_constraint test models are in that list).
//
// What is copied from MuJoCo (inputs computed by other stages, see constraint_bridge.h): qpos,
// qvel, body/geom/site poses, subtree_com, cdof, qM and its factor, ten_J/ten_length, the contacts
// of mj_forward, qfrc_smooth/qacc_smooth/qacc_warmstart. The Model comes from the test bridge
// (MuJoCo's derived constants, *_invweight0 included). Then make_constraint,
// reference_constraint, solve_constraint run on our side.
//
// Compared (relative error in the infinity norm of each array, max_rel_err):
//   rows:    nefc, ne, nf, efc_type, efc_id exactly; efc_J, efc_pos, efc_margin, efc_frictionloss,
//            efc_diagApprox, efc_R, efc_D, efc_aref, efc_b to kRowTol.
//   results: qacc, qfrc_constraint, efc_force to kSolveTol, for the model's own options (when
//            MuJoCo converged) and for each solver x cone x jacobian with a tight tolerance on
//            both sides (tolerance 1e-15, iterations: Newton 200, CG 3000, PGS 3000). Where CG or
//            PGS stall short of that on an ill-conditioned problem (on both sides, along different
//            paths), the referee is our exact Newton solution: ours must be at least as close to
//            it as MuJoCo's iterate (printed as "stalled"). Rows with efc_R at the mjMINVAL floor
//            (massless bodies) make the problem ill-conditioned: bound 1e-4 there (printed).
//   The noslip post-pass (opt.noslip_iterations) is switched off on the MuJoCo side (Models/Noslip compares it).
//   The warm start is the same random qacc_warmstart on both sides.
//   inverse: with MuJoCo's forward qacc, our inverse_constraint gives efc_force and qfrc_constraint;
//            qfrc_inverse = M qacc + qfrc_bias - qfrc_passive - qfrc_constraint is compared with
//            mj_inverse's (error relative to the largest of those terms: they cancel when nothing
//            is applied); efc_force relative to its own size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "differential/constraint_bridge.h"
#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

constexpr double kRowTol = 1e-9;
constexpr double kSolveTol = 1e-6;
constexpr int kStates = 3;

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return std::to_string(info.index) + "_" + s;
}

struct Config {
  int solver, cone, jacobian;  // -1: the model's own
  const char* name;
};

class ConstraintDiff : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    path_ = resolve_model_path(GetParam());
    MOREAU_REQUIRE_MODEL(path_);
    std::string err;
    mj_ = load_mujoco(path_, &err);
    if (!mj_) GTEST_SKIP() << "MuJoCo 2.2.2 does not load " << path_ << ": " << err;
    md_ = MjDataPtr(mj_makeData(mj_.get()));
  }
  void random_state(std::mt19937_64& rng, int s) {
    mj_resetData(mj_.get(), md_.get());
    if (s > 0) {  // state 0: qpos0 (resting contacts of the model as written)
      random_qpos(mj_.get(), rng, md_->qpos, 0.3);
      random_qvel(mj_.get(), rng, md_->qvel, 0.5);
    }
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < mj_->nv; ++i) md_->qacc_warmstart[i] = u(rng);
    for (int i = 0; i < mj_->nu; ++i) md_->ctrl[i] = u(rng);
  }
  // Compare the rows and the solution of one configuration; returns false on a failure.
  void run(const Config& cfg, bool compare_solution, bool tight, double* worst_rows,
           double* worst_sol, int* nefc_total, int* stalled) {
    mjModel* M = mj_.get();
    const mjOption saved = M->opt;
    if (cfg.solver >= 0) M->opt.solver = cfg.solver;
    if (cfg.cone >= 0) M->opt.cone = cfg.cone;
    if (cfg.jacobian >= 0) M->opt.jacobian = cfg.jacobian;
    M->opt.noslip_iterations = 0;  // the noslip post-pass is compared by Models/Noslip
    if (tight) {
      M->opt.tolerance = 1e-15;
      M->opt.iterations = M->opt.solver == mjSOL_NEWTON ? 200 : 3000;
    }
    const Model m = model_from_mujoco(M);
    Data d = make_data(m);
    std::mt19937_64 rng(12345);
    for (int s = 0; s < kStates; ++s) {
      random_state(rng, s);
      // mj_forward overwrites qacc_warmstart with its qacc: keep the warm start it started from
      const std::vector<double> warm(md_->qacc_warmstart, md_->qacc_warmstart + M->nv);
      mj_forward(M, md_.get());
      copy_constraint_inputs(M, md_.get(), m, d);
      std::copy(warm.begin(), warm.end(), d.qacc_warmstart.begin());
      make_constraint(m, d);
      reference_constraint(m, d);
      const int nv = m.nv;
      SCOPED_TRACE(std::string(cfg.name) + " state " + std::to_string(s));
      ASSERT_EQ(d.nefc, md_->nefc);
      ASSERT_EQ(d.ne, md_->ne);
      ASSERT_EQ(d.nf, md_->nf);
      const int nefc = d.nefc;
      *nefc_total += nefc;
      for (int i = 0; i < nefc; ++i) {
        ASSERT_EQ(d.efc_type[i], md_->efc_type[i]) << "row " << i;
        ASSERT_EQ(d.efc_id[i], md_->efc_id[i]) << "row " << i;
      }
      if (nefc > 0) {
        const std::vector<double> J = mj_dense_efc_J(M, md_.get());
        std::vector<double> ourJ(static_cast<size_t>(nefc) * nv);
        efc_J_dense(m, d, ourJ.data());
        struct A { const char* n; const double* ours; const double* theirs; int len; };
        const A arrays[] = {
            {"efc_J", ourJ.data(), J.data(), nefc * nv},
            {"efc_pos", d.efc_pos.data(), md_->efc_pos, nefc},
            {"efc_margin", d.efc_margin.data(), md_->efc_margin, nefc},
            {"efc_frictionloss", d.efc_frictionloss.data(), md_->efc_frictionloss, nefc},
            {"efc_diagApprox", d.efc_diagApprox.data(), md_->efc_diagApprox, nefc},
            {"efc_R", d.efc_R.data(), md_->efc_R, nefc},
            {"efc_D", d.efc_D.data(), md_->efc_D, nefc},
            {"efc_vel", d.efc_vel.data(), md_->efc_vel, nefc},
            {"efc_aref", d.efc_aref.data(), md_->efc_aref, nefc},
            {"efc_KBIP", d.efc_KBIP.data(), md_->efc_KBIP, 4 * nefc},
        };
        if (std::getenv("CON_DEBUG")) {
          for (int i = 0; i < nefc; ++i)
            std::printf("row %d type %d id %d pos %g/%g diag %.6g/%.6g R %.6g/%.6g K %g/%g B %g/%g I %g/%g P %g/%g\n", i,
                        d.efc_type[i], d.efc_id[i], d.efc_pos[i], md_->efc_pos[i],
                        d.efc_diagApprox[i], md_->efc_diagApprox[i], d.efc_R[i], md_->efc_R[i],
                        d.efc_KBIP[4 * i], md_->efc_KBIP[4 * i], d.efc_KBIP[4 * i + 1],
                        md_->efc_KBIP[4 * i + 1], d.efc_KBIP[4 * i + 2], md_->efc_KBIP[4 * i + 2],
                        d.efc_KBIP[4 * i + 3], md_->efc_KBIP[4 * i + 3]);
        }
        for (const A& a : arrays) {
          const double e = max_rel_err(a.ours, a.theirs, a.len);
          EXPECT_LE(e, kRowTol) << a.n;
          *worst_rows = std::max(*worst_rows, e);
        }
      }
      if (!compare_solution) continue;
      const auto t0 = std::chrono::steady_clock::now();
      solve_constraint(m, d);
      const double t_ours = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (std::getenv("CON_DEBUG")) {
        std::printf("ours solve %.3f s, iter %d\n", t_ours, d.solver_iter);
        for (int it = 0; it < d.solver_iter; ++it)
          std::printf("ours it %d impr %.3e grad %.3e slope %.3e nact %d nchange %d neval %d\n", it,
                      d.solver[it].improvement, d.solver[it].gradient, d.solver[it].lineslope,
                      d.solver[it].nactive, d.solver[it].nchange, d.solver[it].neval);
        for (int it = 0; it < md_->solver_iter; ++it)
          std::printf("mj   it %d impr %.3e grad %.3e slope %.3e nact %d nchange %d neval %d\n", it,
                      md_->solver[it].improvement, md_->solver[it].gradient, md_->solver[it].lineslope,
                      md_->solver[it].nactive, md_->solver[it].nchange, md_->solver[it].neval);
      }
      if (nefc > 0) {
        const double e_b = max_rel_err(d.efc_b.data(), md_->efc_b, nefc);
        EXPECT_LE(e_b, kRowTol) << "efc_b";
      }
      // with the model's own options MuJoCo may stop at opt.iterations before converging (e.g.
      // CG on composite models); both sides then hold the same unconverged iterate only up to
      // round-off in the path, so the 1e-6 bound applies to converged solves only
      if (!tight && md_->solver_iter >= M->opt.iterations) {
        std::printf("[constraint] %s: MuJoCo hit the iteration limit (%d), solution not compared\n",
                    cfg.name, md_->solver_iter);
        continue;
      }
      const double e1 = max_rel_err(d.qacc.data(), md_->qacc, nv);
      const double e2 = max_rel_err(d.qfrc_constraint.data(), md_->qfrc_constraint, nv);
      const double e3 = nefc ? max_rel_err(d.efc_force.data(), md_->efc_force, nefc) : 0.0;
      const double e = std::max({e1, e2, e3});
      if (e > kSolveTol && M->opt.solver != mjSOL_NEWTON) {
        // CG and PGS can stall before the tight tolerance on ill-conditioned problems, on both
        // sides, along different paths. Referee: our Newton solution of the same problem (exact,
        // checked against MuJoCo's Newton above). Pass if we are at least as close to it as
        // MuJoCo's iterate is (up to kSolveTol); count these cases.
        Model mn = m;
        mn.opt.solver = kSolverNewton;
        Data dn = d;
        std::copy(warm.begin(), warm.end(), dn.qacc_warmstart.begin());
        solve_constraint(mn, dn);
        const double ours_ref = max_rel_err(d.qacc.data(), dn.qacc.data(), nv);
        const double mj_ref = max_rel_err(md_->qacc, dn.qacc.data(), nv);
        // with the model's own (loose) tolerance neither side is converged to kSolveTol
        const double floor = tight ? kSolveTol : 10 * kSolveTol;
        EXPECT_LE(ours_ref, std::max(floor, 1.5 * mj_ref))
            << "qacc: ours vs exact " << ours_ref << ", MuJoCo vs exact " << mj_ref
            << " (iter ours " << d.solver_iter << ", mujoco " << md_->solver_iter << ")";
        std::printf("[constraint] %s state %d: stalled iterative solve, |ours-mujoco| %.2e, "
                    "|ours-exact| %.2e, |mujoco-exact| %.2e (iter ours %d, mujoco %d)\n",
                    cfg.name, s, e, ours_ref, mj_ref, d.solver_iter, md_->solver_iter);
        ++*stalled;
        continue;
      }
      // rows whose regularizer sits at the mjMINVAL floor (bodies without mass: diagApprox 0)
      // make the problem ill-conditioned to ~1e15; forces then agree only to round-off times that
      double minR = 1;
      for (int i = 0; i < nefc; ++i) minR = std::min(minR, d.efc_R[i]);
      const double tol = minR < 1e-12 ? 1e-4 : kSolveTol;
      if (minR < 1e-12)
        std::printf("[constraint] %s state %d: ill-conditioned (min efc_R %.1e), bound %.0e, err %.2e\n",
                    cfg.name, s, minR, tol, e);
      EXPECT_LE(e1, tol) << "qacc (iter ours " << d.solver_iter << ", mujoco "
                               << md_->solver_iter << ")";
      EXPECT_LE(e2, tol) << "qfrc_constraint";
      EXPECT_LE(e3, tol) << "efc_force";
      *worst_sol = std::max({*worst_sol, e1, e2, e3});
    }
    M->opt = saved;
  }
  std::string path_;
  MjModelPtr mj_;
  MjDataPtr md_;
};

TEST_P(ConstraintDiff, DefaultOptions) {
  double wr = 0, ws = 0;
  int n = 0, stalled = 0;
  run({-1, -1, -1, "default"}, true, false, &wr, &ws, &n, &stalled);
  std::printf("[constraint] %s default: rows %d, rows err %.2e, solution err %.2e\n",
              GetParam().c_str(), n, wr, ws);
}

TEST_P(ConstraintDiff, SolverConeJacobian) {
  const Config cfgs[] = {
      {mjSOL_NEWTON, mjCONE_PYRAMIDAL, mjJAC_DENSE, "newton/pyramidal/dense"},
      {mjSOL_NEWTON, mjCONE_PYRAMIDAL, mjJAC_SPARSE, "newton/pyramidal/sparse"},
      {mjSOL_NEWTON, mjCONE_ELLIPTIC, mjJAC_DENSE, "newton/elliptic/dense"},
      {mjSOL_NEWTON, mjCONE_ELLIPTIC, mjJAC_SPARSE, "newton/elliptic/sparse"},
      {mjSOL_CG, mjCONE_PYRAMIDAL, mjJAC_DENSE, "cg/pyramidal/dense"},
      {mjSOL_CG, mjCONE_PYRAMIDAL, mjJAC_SPARSE, "cg/pyramidal/sparse"},
      {mjSOL_CG, mjCONE_ELLIPTIC, mjJAC_DENSE, "cg/elliptic/dense"},
      {mjSOL_CG, mjCONE_ELLIPTIC, mjJAC_SPARSE, "cg/elliptic/sparse"},
      {mjSOL_PGS, mjCONE_PYRAMIDAL, mjJAC_DENSE, "pgs/pyramidal/dense"},
      {mjSOL_PGS, mjCONE_PYRAMIDAL, mjJAC_SPARSE, "pgs/pyramidal/sparse"},
      {mjSOL_PGS, mjCONE_ELLIPTIC, mjJAC_DENSE, "pgs/elliptic/dense"},
      {mjSOL_PGS, mjCONE_ELLIPTIC, mjJAC_SPARSE, "pgs/elliptic/sparse"},
  };
  const char* only = std::getenv("CON_CFG");  // run only the configurations whose name has this
  for (const Config& c : cfgs) {
    if (only && !std::strstr(c.name, only)) continue;
    double wr = 0, ws = 0;
    int n = 0, stalled = 0;
    run(c, true, true, &wr, &ws, &n, &stalled);
    std::printf("[constraint] %s %s: rows %d, rows err %.2e, solution err %.2e, stalled %d\n",
                GetParam().c_str(), c.name, n, wr, ws, stalled);
  }
}

TEST_P(ConstraintDiff, Inverse) {
  mjModel* M = mj_.get();
  const Model m = model_from_mujoco(M);
  Data d = make_data(m);
  std::mt19937_64 rng(777);
  double worst = 0;
  for (int s = 0; s < kStates; ++s) {
    random_state(rng, s);
    mj_forward(M, md_.get());
    mj_inverse(M, md_.get());
    copy_constraint_inputs(M, md_.get(), m, d);
    std::copy_n(md_->qacc, m.nv, d.qacc.begin());
    make_constraint(m, d);
    reference_constraint(m, d);
    ASSERT_EQ(d.nefc, md_->nefc);
    inverse_constraint(m, d);
    std::vector<double> Mqacc(m.nv);
    mul_m(m, d, Mqacc.data(), d.qacc.data());
    for (int k = 0; k < m.nv; ++k)
      d.qfrc_inverse[k] = Mqacc[k] + d.qfrc_bias[k] - d.qfrc_passive[k] - d.qfrc_constraint[k];
    // qfrc_inverse is a difference of large terms (M qacc + bias - passive - constraint) that
    // nearly cancel when no force is applied: measure its error against the size of the terms
    double scale = 0, diff = 0;
    for (int k = 0; k < m.nv; ++k) {
      scale = std::max({scale, std::fabs(md_->qfrc_inverse[k]), std::fabs(Mqacc[k]),
                        std::fabs(d.qfrc_bias[k]), std::fabs(d.qfrc_constraint[k])});
      diff = std::max(diff, std::fabs(d.qfrc_inverse[k] - md_->qfrc_inverse[k]));
    }
    const double e1 = scale > 0 ? diff / scale : diff;
    const double e2 = d.nefc ? max_rel_err(d.efc_force.data(), md_->efc_force, d.nefc) : 0.0;
    EXPECT_LE(e1, kSolveTol) << "qfrc_inverse state " << s;
    EXPECT_LE(e2, kSolveTol) << "efc_force (inverse) state " << s;
    worst = std::max({worst, e1, e2});
  }
  std::printf("[constraint] %s inverse: err %.2e\n", GetParam().c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Models, ConstraintDiff, ::testing::ValuesIn(model_list()), test_name);

}  // namespace
}  // namespace moreau::testing

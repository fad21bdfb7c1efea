// Constraint-stage timing, Moreau against MuJoCo 2.2.2 in the same run, on the same state and the
// same inputs: mj_forward computes kinematics, inertia, contacts and qacc_smooth once; the inputs
// the constraint stage reads are copied into Moreau's Data (Model from Moreau's own loader). Timed:
//   MuJoCo: mj_makeConstraint + mj_projectConstraint + mj_referenceConstraint + mj_fwdConstraint
//   Moreau: make_constraint + reference_constraint + solve_constraint
// qacc_warmstart is reset to qacc_smooth before every call on both sides (a full solve each time).
// Cases: solver x cone on models with contacts, limits and equality constraints.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

struct ConCase {
  std::string name, path;
  int solver, cone;
};

std::vector<ConCase> con_cases() {
  const std::string sys = "/usr/share/mujoco/model/";
  std::vector<ConCase> out;
  const std::pair<std::string, std::string> models[] = {
      {"humanoid", sys + "humanoid/humanoid.xml"},
      {"humanoid100", sys + "humanoid100/humanoid100.xml"},
  };
  const std::pair<const char*, int> solvers[] = {{"newton", mjSOL_NEWTON}, {"cg", mjSOL_CG}, {"pgs", mjSOL_PGS}};
  const std::pair<const char*, int> cones[] = {{"pyramidal", mjCONE_PYRAMIDAL}, {"elliptic", mjCONE_ELLIPTIC}};
  for (const auto& [mn, path] : models)
    for (const auto& [sn, s] : solvers)
      for (const auto& [cn, c] : cones) out.push_back({mn + "/" + sn + "/" + cn, path, s, c});
  return out;
}

// Let the model settle for 0.5 s in MuJoCo so that it has resting contacts.
void settle(const mjModel* m, mjData* d) {
  mj_resetData(m, d);
  if (m->nkey > 0) mj_resetDataKeyframe(m, d, 0);
  for (int i = 0; i < static_cast<int>(0.5 / m->opt.timestep); ++i) mj_step(m, d);
  mj_forward(m, d);
}

template <class T>
void put(std::vector<double>& dst, const T* src, size_t n) {
  dst.assign(src, src + n);
}

void copy_inputs(const mjModel* mj, const mjData* md, moreau::Data& d) {
  const int nv = mj->nv;
  put(d.qpos, md->qpos, mj->nq);
  put(d.qvel, md->qvel, nv);
  put(d.xpos, md->xpos, 3 * mj->nbody);
  put(d.xquat, md->xquat, 4 * mj->nbody);
  put(d.xmat, md->xmat, 9 * mj->nbody);
  put(d.subtree_com, md->subtree_com, 3 * mj->nbody);
  put(d.cdof, md->cdof, 6 * nv);
  put(d.qM, md->qM, mj->nM);
  put(d.qLD, md->qLD, mj->nM);
  put(d.qLDiagInv, md->qLDiagInv, nv);
  put(d.qLDiagSqrtInv, md->qLDiagSqrtInv, nv);
  put(d.qfrc_smooth, md->qfrc_smooth, nv);
  put(d.qacc_smooth, md->qacc_smooth, nv);
  put(d.ten_length, md->ten_length, mj->ntendon);
  d.ten_J.assign(static_cast<size_t>(mj->ntendon) * nv, 0.0);  // dense (models here: dense ten_J)
  if (!(mj->opt.jacobian == mjJAC_SPARSE || (mj->opt.jacobian == mjJAC_AUTO && nv >= 60)))
    std::copy_n(md->ten_J, static_cast<size_t>(mj->ntendon) * nv, d.ten_J.begin());
  if (d.contact.size() < static_cast<size_t>(md->ncon)) d.contact.resize(md->ncon);
  d.ncon = md->ncon;
  for (int i = 0; i < md->ncon; ++i) {
    const mjContact& c = md->contact[i];
    moreau::Contact& o = d.contact[i];
    o.dist = c.dist;
    std::copy_n(c.pos, 3, o.pos);
    std::copy_n(c.frame, 9, o.frame);
    o.includemargin = c.includemargin;
    std::copy_n(c.friction, 5, o.friction);
    std::copy_n(c.solref, mjNREF, o.solref);
    std::copy_n(c.solimp, mjNIMP, o.solimp);
    o.dim = c.dim;
    o.geom1 = c.geom1;
    o.geom2 = c.geom2;
    o.exclude = c.exclude;
  }
}

void BM_ConstraintMuJoCo(benchmark::State& state, ConCase c) {
  char err[1000];
  mjModel* m = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
  if (!m) { state.SkipWithError(err); return; }
  m->opt.solver = c.solver;
  m->opt.cone = c.cone;
  mjData* d = mj_makeData(m);
  settle(m, d);
  for (auto _ : state) {
    mju_copy(d->qacc_warmstart, d->qacc_smooth, m->nv);
    mj_makeConstraint(m, d);
    mj_projectConstraint(m, d);
    mj_referenceConstraint(m, d);
    mj_fwdConstraint(m, d);
    benchmark::DoNotOptimize(d->qacc[0]);
  }
  state.counters["nefc"] = d->nefc;
  state.counters["iter"] = d->solver_iter;
  mj_deleteData(d);
  mj_deleteModel(m);
}

void BM_ConstraintMoreau(benchmark::State& state, ConCase c) {
  char err[1000];
  mjModel* mj = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
  if (!mj) { state.SkipWithError(err); return; }
  mj->opt.solver = c.solver;
  mj->opt.cone = c.cone;
  mjData* md = mj_makeData(mj);
  settle(mj, md);
  moreau::Model m = moreau::load_model(c.path);
  m.opt.solver = c.solver;
  m.opt.cone = c.cone;
  moreau::Data d = moreau::make_data(m);
  copy_inputs(mj, md, d);
  allocate_constraint_storage(m, d);
  for (auto _ : state) {
    std::copy(d.qacc_smooth.begin(), d.qacc_smooth.end(), d.qacc_warmstart.begin());
    moreau::make_constraint(m, d);
    moreau::reference_constraint(m, d);
    moreau::solve_constraint(m, d);
    benchmark::DoNotOptimize(d.qacc[0]);
  }
  state.counters["nefc"] = d.nefc;
  state.counters["iter"] = d.solver_iter;
  double err_qacc = 0, scale = 0;
  for (int i = 0; i < m.nv; ++i) {
    err_qacc = std::max(err_qacc, std::fabs(d.qacc[i] - md->qacc[i]));
    scale = std::max(scale, std::fabs(md->qacc[i]));
  }
  state.counters["qacc_relerr_vs_mujoco"] = scale > 0 ? err_qacc / scale : err_qacc;
  mj_deleteData(md);
  mj_deleteModel(mj);
}

const bool registered = [] {
  for (const ConCase& c : con_cases()) {
    benchmark::RegisterBenchmark(("constraint/mujoco/" + c.name).c_str(), BM_ConstraintMuJoCo, c);
    benchmark::RegisterBenchmark(("constraint/moreau/" + c.name).c_str(), BM_ConstraintMoreau, c);
  }
  return true;
}();

}  // namespace

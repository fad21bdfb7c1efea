// Narrow-phase pair functions, Moreau vs MuJoCo 2.2.2 in the same run: box-box and capsule-box on
// the same 256 random poses in contact (sizes 0.08-0.4, centres within +-0.45, margin 0 or up to
// 0.1, as the differential test draws them). Each iteration calls the pair function for one state.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cstring>
#include <random>
#include <vector>

#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace {

struct PairStates {
  mjModel* mm = nullptr;
  std::vector<mjData*> md;
  moreau::Model m;
  std::vector<moreau::Data> d;
  std::vector<double> margin;
  int ncon = 0;
};

// 256 states with at least one MuJoCo contact for geom types (t1, box).
PairStates* make_states(int t1) {
  static PairStates cache[8];
  PairStates& s = cache[t1];
  if (s.mm) return &s;
  const char* xml = "<mujoco><worldbody><body><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
                    "<body><freejoint/><geom type='box' size='.1 .1 .1'/></body></worldbody></mujoco>";
  char err[1000];
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  mj_makeEmptyFileVFS(&vfs, "pair.xml", static_cast<int>(strlen(xml)));
  std::memcpy(vfs.filedata[0], xml, strlen(xml));
  s.mm = mj_loadXML("pair.xml", &vfs, err, sizeof err);
  mj_deleteVFS(&vfs);
  s.mm->geom_type[0] = t1;
  s.m.ngeom = 2;
  s.m.geom_type = {t1, moreau::kGeomBox};
  s.m.geom_size.resize(6);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> usz(0.08, 0.4), upos(-0.45, 0.45), un(-1, 1), u01(0, 1);
  // one size set per benchmark (the function reads sizes from the model)
  for (int k = 0; k < 6; ++k) s.mm->geom_size[k] = s.m.geom_size[k] = usz(rng);
  if (t1 == mjGEOM_CAPSULE) s.mm->geom_size[2] = s.m.geom_size[2] = 0;
  mjContact con[mjMAXCONPAIR];
  while (s.md.size() < 256) {
    mjData* d = mj_makeData(s.mm);
    for (int b = 0; b < 2; ++b) {
      double q[4] = {un(rng), un(rng), un(rng), un(rng)};
      mju_normalize4(q);
      for (int k = 0; k < 3; ++k) d->geom_xpos[3 * b + k] = upos(rng);
      mju_quat2Mat(d->geom_xmat + 9 * b, q);
    }
    const double margin = u01(rng) < 0.5 ? 0 : 0.1 * u01(rng);
    const int n = mjCOLLISIONFUNC[t1][mjGEOM_BOX](s.mm, d, con, 0, 1, margin);
    if (n == 0) { mj_deleteData(d); continue; }
    s.ncon += n;
    moreau::Data md;
    md.geom_xpos.assign(d->geom_xpos, d->geom_xpos + 6);
    md.geom_xmat.assign(d->geom_xmat, d->geom_xmat + 18);
    s.md.push_back(d);
    s.d.push_back(std::move(md));
    s.margin.push_back(margin);
  }
  return &s;
}

void BM_MujocoPair(benchmark::State& state) {
  const int t1 = static_cast<int>(state.range(0));
  PairStates* s = make_states(t1);
  mjContact con[mjMAXCONPAIR];
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % s->md.size();
    benchmark::DoNotOptimize(mjCOLLISIONFUNC[t1][mjGEOM_BOX](s->mm, s->md[k], con, 0, 1, s->margin[k]));
  }
  state.SetLabel(std::string(t1 == mjGEOM_BOX ? "box-box" : "capsule-box") + ", mean ncon " +
                 std::to_string(static_cast<double>(s->ncon) / s->md.size()).substr(0, 4));
}

void BM_MoreauPair(benchmark::State& state) {
  const int t1 = static_cast<int>(state.range(0));
  PairStates* s = make_states(t1);
  const moreau::CollisionTable& table = moreau::default_collision_table();
  moreau::ContactPoint out[moreau::kMaxContactsPerPair];
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % s->d.size();
    benchmark::DoNotOptimize(table.fn[t1][moreau::kGeomBox](s->m, s->d[k], 0, 1, s->margin[k], out, nullptr));
  }
  state.SetLabel(t1 == mjGEOM_BOX ? "box-box" : "capsule-box");
}

BENCHMARK(BM_MujocoPair)->Arg(mjGEOM_CAPSULE)->Arg(mjGEOM_BOX);
BENCHMARK(BM_MoreauPair)->Arg(mjGEOM_CAPSULE)->Arg(mjGEOM_BOX);

}  // namespace

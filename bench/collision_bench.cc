// Collision detection, Moreau vs MuJoCo 2.2.2, same model, same states, same run.
//
// States: a random-control rollout in MuJoCo (every 10th of 200 steps after a 300-step settle);
// each state is kept in its own mjData (after mj_forward) and in its own Moreau Data (MuJoCo's geom
// poses copied in), so both sides time only collision detection: mj_collision vs moreau::collision.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

// The collision-field converter of the differential tests (one definition, shared).
#include "../tests/differential/collision_support.cc"

namespace {

struct States {
  mjModel* mm = nullptr;
  std::vector<mjData*> md;
  moreau::Model m;
  std::vector<moreau::Data> d;
  int ncon = 0;
};

States* load_states(const std::string& path) {
  static std::vector<std::unique_ptr<States>> cache;
  static std::vector<std::string> names;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == path) return cache[i].get();
  auto s = std::make_unique<States>();
  char err[1000] = "";
  s->mm = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
  if (!s->mm) return nullptr;
  s->mm->opt.enableflags &= ~mjENBL_MULTICCD;  // not implemented in Moreau
  s->m = moreau::coltest::collision_model_from_mj(s->mm);
  mjData* run = mj_makeData(s->mm);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int step = 0; step < 500; ++step) {
    for (int i = 0; i < s->mm->nu; ++i) run->ctrl[i] = u(rng);
    mj_step(s->mm, run);
    if (step >= 300 && step % 10 == 0) {
      mjData* c = mj_copyData(nullptr, s->mm, run);
      mj_forward(s->mm, c);
      s->md.push_back(c);
      moreau::Data d = moreau::coltest::collision_data(s->m, s->mm);
      moreau::coltest::copy_poses(s->mm, c, d);
      s->d.push_back(std::move(d));
      s->ncon += c->ncon;
    }
  }
  mj_deleteData(run);
  names.push_back(path);
  cache.push_back(std::move(s));
  return cache.back().get();
}

// The source folder of this file (bench/), for the scenes kept beside it.
// bench/ of the source tree (not __FILE__: a compiler cache may make that relative to the build).
std::string bench_dir() { return std::string(MOREAU_SOURCE_DIR) + "/bench"; }
const std::string kModels[] = {
    "/usr/share/mujoco/model/humanoid100/humanoid100.xml", "/usr/share/mujoco/model/humanoid/22_humanoids.xml",
    // 1000 boxes in one body under a humanoid: where the mid phase matters (src/collision/midphase.h)
    std::string(MOREAU_SHARED_DIR) + "/models/mujoco/test/engine/testdata/collision_driver/midphase.xml",
    // 36 mesh bodies (bunnies, cones) on a plane and boxes: mesh-mesh, mesh-box, mesh-plane
    bench_dir() + "/models/mesh_pile.xml"};
std::string short_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

void BM_MujocoCollision(benchmark::State& state) {
  States* s = load_states(kModels[state.range(0)]);
  if (!s) { state.SkipWithError("model did not load"); return; }
  size_t i = 0;
  for (auto _ : state) {
    mjData* d = s->md[i++ % s->md.size()];
    mj_collision(s->mm, d);
    benchmark::DoNotOptimize(d->ncon);
  }
  state.SetLabel(short_name(kModels[state.range(0)]) + ", mean ncon " +
                 std::to_string(s->ncon / static_cast<int>(s->md.size())));
}

void BM_MoreauCollision(benchmark::State& state) {
  States* s = load_states(kModels[state.range(0)]);
  if (!s) { state.SkipWithError("model did not load"); return; }
  size_t i = 0;
  for (auto _ : state) {
    moreau::Data& d = s->d[i++ % s->d.size()];
    moreau::collision(s->m, d);
    benchmark::DoNotOptimize(d.ncon);
  }
  state.SetLabel(short_name(kModels[state.range(0)]));
}

// The same without the mid phase (trees removed from Data): what the mid phase saves.
void BM_MoreauCollisionNoMidphase(benchmark::State& state) {
  States* s = load_states(kModels[state.range(0)]);
  if (!s) { state.SkipWithError("model did not load"); return; }
  std::vector<moreau::Data> d = s->d;
  for (auto& x : d) x.work.col_bvh_adr.assign(s->m.nbody, -1);
  size_t i = 0;
  for (auto _ : state) {
    moreau::Data& di = d[i++ % d.size()];
    moreau::collision(s->m, di);
    benchmark::DoNotOptimize(di.ncon);
  }
  state.SetLabel(short_name(kModels[state.range(0)]));
}

BENCHMARK(BM_MujocoCollision)->DenseRange(0, 3);
BENCHMARK(BM_MoreauCollision)->DenseRange(0, 3);
BENCHMARK(BM_MoreauCollisionNoMidphase)->Arg(2)->Arg(3);

}  // namespace

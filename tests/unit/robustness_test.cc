// Issue 7 properties that users running Moreau for days rely on: step allocates nothing on the heap
// after make_data, results are bitwise deterministic across runs, Data copies and threads, and a
// diverging simulation is detected, reported with the offending index, reset, and continued.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "moreau/derivative.h"
#include "moreau/moreau.h"

// ---------------------------------------------------------------------------------------------
// Heap allocation counter: every operator new of this test binary goes through here; the count is
// only recorded while g_counting is set on the calling thread.
namespace {
thread_local bool g_counting = false;
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

std::string shared_model(const std::string& rel) { return std::string(MOREAU_SHARED_DIR) + "/models/" + rel; }
const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

// Models for the allocation test: every bundled model plus a spread of the shared ones (contacts,
// tendons, actuators with state, sensors, equality constraints, a height field (quadruped), a mesh
// and a body with a mid-phase tree).
std::vector<std::string> allocation_models() {
  return {kHumanoid,
          std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml",
          shared_model("dm_control/cheetah.xml"),
          shared_model("dm_control/quadruped.xml"),
          shared_model("dm_control/humanoid.xml"),
          shared_model("dm_control/manipulator.xml"),
          shared_model("dm_control/swimmer.xml"),
          shared_model("dm_control/stacker.xml"),
          shared_model("mujoco/test/engine/testdata/collision_convex/conemesh_box.xml"),  // mesh (MPR)
          shared_model("mujoco/test/engine/testdata/collision_driver/midphase.xml"),      // mid-phase trees
          "/usr/share/mujoco/model/tendon_arm/arm26.xml",
          "/usr/share/mujoco/model/humanoid/22_humanoids.xml"};
}

void start(const moreau::Model& m, moreau::Data& d) {
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  else moreau::reset_data(m, d);
  // Deterministic non-trivial inputs so that actuators, tendons and contacts all work.
  for (int i = 0; i < m.nu; ++i) d.ctrl[i] = 0.3 * std::sin(1.7 * i + 0.2);
}

}  // namespace

TEST(Robustness, StepAllocatesNothingAfterTheFirstStep) {
  for (const std::string& path : allocation_models()) {
    SCOPED_TRACE(path);
    moreau::Model m = moreau::load_model(path);
    for (int integrator : {moreau::kIntEuler, moreau::kIntRK4, moreau::kIntImplicit, moreau::kIntImplicitFast}) {
      m.opt.integrator = integrator;
      moreau::Data d = moreau::make_data(m);
      start(m, d);
      moreau::step(m, d);  // the first step may not allocate either, but only later ones are promised
      g_allocations = 0;
      g_counting = true;
      // the implicit integrators add no storage that grows with the state: 20 steps cover them
      const int steps = integrator == moreau::kIntEuler || integrator == moreau::kIntRK4 ? 200 : 20;
      for (int i = 0; i < steps; ++i) moreau::step(m, d);
      moreau::forward(m, d);
      moreau::inverse(m, d);
      g_counting = false;
      EXPECT_EQ(g_allocations.load(), 0) << "integrator " << integrator;
    }
  }
}

// The hard-contact solvers (issue 6) keep the promise: each on the sliding cube, raisim-ds and lcp
// on the dm_control quadruped standing on its feet (its free ball's condim-6 collisions disabled:
// torsional and rolling friction are outside the hard-contact model), with joint damping, limits
// and tendon equalities.
TEST(Robustness, HardContactStepAllocatesNothing) {
  struct Case {
    std::string path;
    int solver;
  };
  const std::string cube = std::string(MOREAU_SOURCE_DIR) + "/models/experiments/sliding_cube.xml";
  std::vector<Case> cases;
  for (int s = moreau::kSolverRaisim; s <= moreau::kSolverLCP; ++s) cases.push_back({cube, s});
  cases.push_back({shared_model("dm_control/quadruped.xml"), moreau::kSolverRaisimDS});
  cases.push_back({shared_model("dm_control/quadruped.xml"), moreau::kSolverLCP});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path + " " + moreau::solver_name(c.solver));
    moreau::Model m = moreau::load_model(c.path);
    m.opt.solver = c.solver;
    const int ball = moreau::name2id(m, moreau::kObjGeom, "ball");
    if (ball >= 0) m.geom_contype[ball] = m.geom_conaffinity[ball] = 0;
    moreau::Data d = moreau::make_data(m);
    start(m, d);
    moreau::step(m, d);
    g_allocations = 0;
    g_counting = true;
    for (int i = 0; i < 200; ++i) moreau::step(m, d);
    moreau::forward(m, d);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0);
    EXPECT_GT(d.ncon, 0);
  }
}

// The finite-difference derivatives (issue 5) work in Data::fd_work, sized by make_data: no
// allocation, not even on the first call.
TEST(Robustness, DerivativesAllocateNothing) {
  for (const std::string& path : {kHumanoid, std::string("/usr/share/mujoco/model/tendon_arm/arm26.xml")}) {
    SCOPED_TRACE(path);
    moreau::Model m = moreau::load_model(path);
    m.opt.integrator = moreau::kIntImplicit;
    moreau::Data d = moreau::make_data(m);
    start(m, d);
    const int ndx = 2 * m.nv + m.na, nv = m.nv;
    std::vector<double> A(ndx * ndx), B(ndx * m.nu), C(m.nsensordata * ndx), D(m.nsensordata * m.nu);
    std::vector<double> F(nv * nv), S(m.nsensordata * nv), M(m.nM * nv);
    g_allocations = 0;
    g_counting = true;
    moreau::transition_fd(m, d, 1e-6, false, A.data(), B.data(), C.data(), D.data());
    moreau::transition_fd(m, d, 1e-6, true, A.data(), B.data(), C.data(), D.data());
    moreau::inverse_fd(m, d, 1e-6, true, true, F.data(), F.data(), F.data(), S.data(), S.data(), S.data(), M.data());
    moreau::deriv_smooth_vel(m, d);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0);
  }
}

TEST(Robustness, BitwiseDeterministicAcrossRunsCopiesAndThreads) {
  // 22 humanoids falling on a floor: many contacts and constraint rows.
  const moreau::Model m = moreau::load_model("/usr/share/mujoco/model/humanoid/22_humanoids.xml");
  constexpr int kSteps = 300;
  auto run = [&](moreau::Data& d) {
    for (int i = 0; i < kSteps; ++i) moreau::step(m, d);
  };
  moreau::Data a = moreau::make_data(m);
  start(m, a);
  moreau::Data copy = a;  // a Data copy taken before stepping behaves as the original
  moreau::Data b = moreau::make_data(m);
  start(m, b);
  run(a);
  run(b);
  run(copy);
  EXPECT_GT(a.ncon, 0) << "the scene is meant to have contacts";

  std::vector<moreau::Data> per_thread;
  for (int t = 0; t < 4; ++t) {
    per_thread.push_back(moreau::make_data(m));
    start(m, per_thread.back());
  }
  std::vector<std::thread> threads;
  for (auto& d : per_thread) threads.emplace_back([&] { run(d); });
  for (auto& t : threads) t.join();

  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  for (const moreau::Data* d : {&b, &copy, &per_thread[0], &per_thread[1], &per_thread[2], &per_thread[3]}) {
    EXPECT_TRUE(same(a.qpos, d->qpos));
    EXPECT_TRUE(same(a.qvel, d->qvel));
    EXPECT_TRUE(same(a.qacc, d->qacc));
    EXPECT_EQ(a.ncon, d->ncon);
    EXPECT_EQ(a.nefc, d->nefc);
    EXPECT_EQ(a.time, d->time);
  }
}

TEST(Robustness, DivergenceIsDetectedReportedAndReset) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  moreau::Data d = moreau::make_data(m);
  start(m, d);
  // Drive it to divergence on purpose: an absurd velocity on dof 7 (a hinge) blows up the state.
  d.qvel[7] = 1e300;
  d.time = 5;
  moreau::step(m, d);
  for (int i = 0; i < 10; ++i) moreau::step(m, d);
  const int warned = d.warning[moreau::kWarnBadQvel].number + d.warning[moreau::kWarnBadQacc].number +
                     d.warning[moreau::kWarnBadQpos].number;
  EXPECT_GE(warned, 1);
  if (d.warning[moreau::kWarnBadQvel].number > 0) EXPECT_EQ(d.warning[moreau::kWarnBadQvel].lastinfo, 7);
  // After the reset the simulation goes on from a finite state.
  for (double x : d.qpos) EXPECT_TRUE(std::isfinite(x));
  for (double x : d.qvel) EXPECT_TRUE(std::isfinite(x));
  EXPECT_LT(d.time, 1.0) << "the reset restarts time";
}

TEST(Robustness, NanControlIsReportedNotPropagated) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  moreau::Data d = moreau::make_data(m);
  start(m, d);
  d.ctrl[2] = std::nan("");
  moreau::step(m, d);
  EXPECT_EQ(d.warning[moreau::kWarnBadCtrl].number, 1);
  EXPECT_EQ(d.warning[moreau::kWarnBadCtrl].lastinfo, 2);
  for (double x : d.qacc) EXPECT_TRUE(std::isfinite(x));
  for (double x : d.qpos) EXPECT_TRUE(std::isfinite(x));
}

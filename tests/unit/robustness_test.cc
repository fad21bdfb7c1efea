// Properties that users running Moreau for days rely on: step allocates nothing on the heap
// after the first step (on every shared model), results are bitwise deterministic across runs, Data
// copies and threads, parallel rollouts share one Model safely (scripts/test.sh also runs them under
// ThreadSanitizer), a diverging simulation or a bad input number is detected, reported with the
// offending index, reset, and continued, and an exhausted contact/row arena warns and stops at its end
// (scripts/test.sh runs this file under AddressSanitizer too).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "model_list.h"
#include "moreau/analytic_derivative.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

// ---------------------------------------------------------------------------------------------
// Heap allocation counter: every operator new of this test binary goes through here; the count is
// only recorded while g_counting is set on the calling thread.
namespace {
thread_local bool g_counting = false;
std::atomic<long> g_allocations{0};
std::atomic<long> g_bytes{0};  // bytes requested while counting
}  // namespace

// The ThreadSanitizer build of this file (moreau_thread_tests) leaves operator new to TSan's runtime,
// which defines it too (it runs only the parallel-rollout test, which counts nothing).
#ifndef MOREAU_KEEP_OPERATOR_NEW
void* operator new(std::size_t n) {
  if (g_counting) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(static_cast<long>(n), std::memory_order_relaxed);
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's buffer), so that every new pairs with this delete.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (g_counting) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(static_cast<long>(n), std::memory_order_relaxed);
  }
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif  // MOREAU_KEEP_OPERATOR_NEW

namespace {

namespace fs = std::filesystem;

using moreau::test_models::missing_shared;
using moreau::test_models::shared_model;
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
          "/usr/share/mujoco/model/humanoid/22_humanoids.xml",
          // the ellipsoid fluid model (its velocity derivatives in the implicit integrators)
          shared_model("mujoco/test/engine/testdata/derivative/tumbling_thin_object_ellipsoid.xml")};
}

// Every model of tests/models_mujoco222.txt, every other .xml under ../shared/models that Moreau
// loads (2.2.2 refuses them: newer attributes or elements; the set grows as features land, so it is
// scanned, not listed),
// and the bundled models. MOREAU_MODEL_STRIDE (tests/model_list.h) thins both lists in the sanitizer run.
// Without the shared folder, its entries of the list are left out and counted in *skipped.
struct LoadedModel {
  std::string path;
  moreau::Model model;
};
std::vector<LoadedModel> every_shared_model(int* skipped) {
  std::vector<LoadedModel> out;
  std::set<std::string> listed;
  *skipped = 0;
  for (const std::string& e : moreau::test_models::entries()) {
    const std::string path = moreau::test_models::resolve(e);
    if (missing_shared(path)) {
      ++*skipped;
      continue;
    }
    listed.insert(fs::weakly_canonical(path).string());
    out.push_back({path, moreau::load_model(path)});  // 2.2.2 loads them: Moreau must too
  }
  std::vector<std::string> others;
  if (moreau::test_models::shared_available())
    for (const auto& f : fs::recursive_directory_iterator(moreau::test_models::shared_dir() + "/models"))
      if (f.is_regular_file() && f.path().extension() == ".xml") others.push_back(f.path().string());
  std::sort(others.begin(), others.end());
  const auto [stride, offset] = moreau::test_models::stride_from_env();
  int index = 0;
  for (const std::string& path : others) {
    if (listed.count(fs::weakly_canonical(path).string())) continue;
    try {
      moreau::Model m = moreau::load_model(path);
      if (index++ % stride == offset) out.push_back({path, std::move(m)});
    } catch (const moreau::LoadError&) {  // refused with a clear error: nothing to step
    }
  }
  for (const char* f : {"humanoid.xml", "double_pendulum.xml"}) {
    const std::string path = std::string(MOREAU_SOURCE_DIR) + "/models/" + f;
    out.push_back({path, moreau::load_model(path)});
  }
  return out;
}

// Bitwise equality of two arrays (memcmp, which must not see the null data() of an empty vector).
bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
}

void start(const moreau::Model& m, moreau::Data& d) {
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  else moreau::reset_data(m, d);
  // Deterministic non-trivial inputs so that actuators, tendons and contacts all work.
  for (int i = 0; i < m.nu; ++i) d.ctrl[i] = 0.3 * std::sin(1.7 * i + 0.2);
}

// The heap promise of the README: after make_data and one step, step/forward/inverse never allocate.
// Euler: 200 steps let falling bodies land, so contacts and constraint rows appear after the first
// step. RK4 runs 50: it differs only by its three extra forward passes over the same contacts.
// Models with more than 1000 dofs (composite/particle.xml: 1000 particles colliding from the first
// step, 30 ms per step with its dense efc_J) run a tenth of that, which keeps this test near 15 s.
void expect_no_allocation_after_first_step(int integrator) {
  int skipped = 0;
  const std::vector<LoadedModel> models = every_shared_model(&skipped);
  ASSERT_GE(models.size(), 3u);
  for (const LoadedModel& lm : models) {
    SCOPED_TRACE(lm.path);
    moreau::Model m = lm.model;
    m.opt.integrator = integrator;
    const int steps = (integrator == moreau::kIntRK4 ? 50 : 200) / (m.nv > 1000 ? 10 : 1);
    moreau::Data d = moreau::make_data(m);
    start(m, d);
    moreau::step(m, d);  // the first step may not allocate either, but only later ones are promised
    g_allocations = 0;
    g_counting = true;
    for (int i = 0; i < steps; ++i) moreau::step(m, d);
    moreau::forward(m, d);
    moreau::inverse(m, d);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0);
  }
  std::printf("[ alloc    ] %zu models, integrator %d\n", models.size(), integrator);
  MOREAU_SKIPPED_SHARED(skipped, models.size() + skipped);
}

}  // namespace

TEST(Robustness, EulerStepAllocatesNothingAfterTheFirstStepOnEveryModel) {
  expect_no_allocation_after_first_step(moreau::kIntEuler);
}

TEST(Robustness, RK4StepAllocatesNothingAfterTheFirstStepOnEveryModel) {
  expect_no_allocation_after_first_step(moreau::kIntRK4);
}

TEST(Robustness, ImplicitStepAllocatesNothingAfterTheFirstStep) {
  int skipped = 0;
  for (const std::string& path : allocation_models()) {
    SCOPED_TRACE(path);
    if (missing_shared(path)) {
      ++skipped;
      continue;
    }
    moreau::Model m = moreau::load_model(path);
    for (int integrator : {moreau::kIntImplicit, moreau::kIntImplicitFast, moreau::kIntImplicitCon}) {
      m.opt.integrator = integrator;
      moreau::Data d = moreau::make_data(m);
      start(m, d);
      moreau::step(m, d);  // the first step may not allocate either, but only later ones are promised
      g_allocations = 0;
      g_counting = true;
      // the implicit integrators add no storage that grows with the state: 20 steps cover them
      const int steps = 20;
      for (int i = 0; i < steps; ++i) moreau::step(m, d);
      moreau::forward(m, d);
      moreau::inverse(m, d);
      g_counting = false;
      EXPECT_EQ(g_allocations.load(), 0) << "integrator " << integrator;
    }
  }
  MOREAU_SKIPPED_SHARED(skipped, allocation_models().size());
}

// The analytic derivatives keep it from their second call on (moreau/analytic_derivative.h):
// transition_derivatives (A, B, and C, D with the analytic and the fallback sensor rows; Euler,
// implicit, implicitfast; with the finite-difference fallback columns where the model has them)
// and forward_derivatives, at the state reached
// after 200 steps (contacts, limits), then after each of 5 more rounds of 10 steps.
TEST(Robustness, AnalyticDerivativesAllocateNothingAfterTheFirstCall) {
  const std::vector<std::string> paths = {kHumanoid, shared_model("dm_control/quadruped.xml"),
                                          shared_model("dm_control/cheetah.xml"),
                                          "/usr/share/mujoco/model/tendon_arm/arm26.xml"};
  int skipped = 0;
  for (const std::string& path : paths) {
    if (missing_shared(path)) {
      ++skipped;
      continue;
    }
    moreau::Model m = moreau::load_model(path);
    for (int integrator : {moreau::kIntEuler, moreau::kIntImplicit, moreau::kIntImplicitFast}) {
      SCOPED_TRACE(path + " integrator " + std::to_string(integrator));
      m.opt.integrator = integrator;
      moreau::Data d = moreau::make_data(m);
      start(m, d);
      for (int i = 0; i < 200; ++i) moreau::step(m, d);
      const int nv = m.nv, ndx = 2 * nv + m.na;
      std::vector<double> A(static_cast<size_t>(ndx) * ndx), B(static_cast<size_t>(ndx) * m.nu),
          Aq(static_cast<size_t>(nv) * nv), Av(Aq.size()), C(static_cast<size_t>(m.nsensordata) * ndx),
          D(static_cast<size_t>(m.nsensordata) * m.nu);
      moreau::transition_derivatives(m, d, A.data(), B.data(), C.data(), D.data());
      moreau::forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, nullptr, nullptr);
      g_allocations = 0;
      g_counting = true;
      for (int round = 0; round < 6; ++round) {
        moreau::transition_derivatives(m, d, A.data(), B.data(), C.data(), D.data());
        moreau::forward_derivatives(m, d, Aq.data(), Av.data(), nullptr, nullptr, nullptr);
        for (int i = 0; i < 10; ++i) moreau::step(m, d);
      }
      g_counting = false;
      EXPECT_EQ(g_allocations.load(), 0);
    }
  }
  MOREAU_SKIPPED_SHARED(skipped, paths.size());
}

// The hard-contact solvers keep the promise: each on the sliding cube, raisim-ds and lcp
// on the dm_control quadruped standing on its feet (its free ball's condim-6 collisions disabled:
// outside lcp's friction pyramid), with joint damping, limits and tendon equalities, and the
// Gauss-Seidel solvers on ANYmal's condim-6 feet (torsional and rolling friction).
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
  for (int s : {moreau::kSolverRaisim, moreau::kSolverRaisimDS, moreau::kSolverNcpPGS, moreau::kSolverCCP})
    cases.push_back({shared_model("menagerie/anymal_c_collision.xml"), s});
  int skipped = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path + " " + moreau::solver_name(c.solver));
    if (missing_shared(c.path)) {
      ++skipped;
      continue;
    }
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
  MOREAU_SKIPPED_SHARED(skipped, cases.size());
}

// The finite-difference derivatives work in Data::work.fd, sized by make_data: no
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

// data_bytes counts every array a Data owns: a copy of a Data allocates each array at its size, and
// exactly the bytes data_bytes reports beyond sizeof(Data). make_data sizes every array exactly
// (no spare capacity), so the copy and the original report the same bytes.
TEST(Robustness, DataBytesCountsEveryArray) {
  for (const std::string& path : {kHumanoid, std::string("/usr/share/mujoco/model/tendon_arm/arm26.xml"),
                                  std::string("/usr/share/mujoco/model/humanoid/22_humanoids.xml")}) {
    for (const int solver : {moreau::kSolverNewton, moreau::kSolverRaisim}) {
      SCOPED_TRACE(path + " solver " + std::to_string(solver));
      moreau::Model m = moreau::load_model(path);
      m.opt.solver = solver;
      const moreau::Data d = moreau::make_data(m);
      g_bytes = 0;
      g_counting = true;
      const moreau::Data copy = d;
      g_counting = false;
      EXPECT_EQ(moreau::data_bytes(m, copy), sizeof(moreau::Data) + static_cast<size_t>(g_bytes.load()));
      EXPECT_EQ(moreau::data_bytes(m, d), moreau::data_bytes(m, copy));
      if (solver == moreau::kSolverRaisim) EXPECT_GT(copy.work.ncp.size(), 0u);
    }
  }
}

TEST(Robustness, BitwiseDeterministicAcrossRunsCopiesAndThreads) {
  // 22 humanoids falling on a floor: many contacts and constraint rows (about 130 contacts and 600
  // rows from the 50th step on).
  const moreau::Model m = moreau::load_model("/usr/share/mujoco/model/humanoid/22_humanoids.xml");
  constexpr int kSteps = 100;
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

  for (const moreau::Data* d : {&b, &copy, &per_thread[0], &per_thread[1], &per_thread[2], &per_thread[3]}) {
    EXPECT_TRUE(same_bits(a.qpos, d->qpos));
    EXPECT_TRUE(same_bits(a.qvel, d->qvel));
    EXPECT_TRUE(same_bits(a.qacc, d->qacc));
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

// ---------------------------------------------------------------------------------------------
// Parallel rollouts: one const Model shared by threads, one Data each. scripts/test.sh runs this test
// under ThreadSanitizer (target moreau_thread_tests), which fails on any data race; here it also
// checks that every thread's trajectory equals the serial one bitwise.
TEST(Robustness, ParallelRolloutsShareOneModel) {
  struct Case {
    std::string path;
    int steps;
  };
  // Contacts and the Newton solver, muscles and spatial tendons, sensors, equality constraints.
  const std::vector<Case> cases = {{kHumanoid, 60},
                                   {"/usr/share/mujoco/model/tendon_arm/arm26.xml", 100},
                                   {shared_model("dm_control/cheetah.xml"), 60},
                                   {shared_model("dm_control/manipulator.xml"), 60}};
  constexpr int kThreads = 4;
  int skipped = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    if (missing_shared(c.path)) {
      ++skipped;
      continue;
    }
    const moreau::Model m = moreau::load_model(c.path);
    // Thread t drives the actuators with its own controls, so the rollouts differ from each other.
    auto rollout = [&](int t, moreau::Data& d) {
      start(m, d);
      for (int i = 0; i < m.nu; ++i) d.ctrl[i] = 0.2 * std::sin(1.3 * i + 0.7 * t);
      for (int s = 0; s < c.steps; ++s) moreau::step(m, d);
      moreau::forward(m, d);
      moreau::inverse(m, d);
    };
    std::vector<moreau::Data> serial, parallel;
    for (int t = 0; t < kThreads; ++t) {
      serial.push_back(moreau::make_data(m));
      rollout(t, serial.back());
      parallel.push_back(moreau::make_data(m));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { rollout(t, parallel[t]); });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      const moreau::Data &a = serial[t], &b = parallel[t];
      EXPECT_TRUE(same_bits(a.qpos, b.qpos)) << t;
      EXPECT_TRUE(same_bits(a.qvel, b.qvel)) << t;
      EXPECT_TRUE(same_bits(a.qfrc_inverse, b.qfrc_inverse)) << t;
      EXPECT_TRUE(same_bits(a.sensordata, b.sensordata)) << t;
      EXPECT_TRUE(same_bits(a.efc_force, b.efc_force)) << t;
      EXPECT_EQ(a.ncon, b.ncon) << t;
    }
    if (m.nu > 0) EXPECT_NE(serial[0].qpos, serial[1].qpos) << "threads are meant to run different rollouts";
  }
  MOREAU_SKIPPED_SHARED(skipped, cases.size());
}

// The rollout pool (moreau/rollout.h) keeps the heap promise across batches: after its first batch,
// a batch makes no Data, starts no thread and its step loops allocate nothing. With one thread the
// calling thread runs every rollout, so the counter sees all of them; with two it sees the calling
// thread's share and the hand-over to the worker.
TEST(Robustness, RolloutPoolAllocatesNothingAfterItsFirstBatch) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  const int B = 6, T = 50;
  const int ns = moreau::state_size(m, moreau::kStateFullPhysics);
  moreau::Data d = moreau::make_data(m);
  std::vector<double> x0(static_cast<size_t>(B) * ns), ctrl(static_cast<size_t>(B) * T * m.nu);
  for (int b = 0; b < B; ++b) {
    d.qvel[0] = 0.1 * b;
    moreau::get_state(m, d, moreau::kStateFullPhysics, x0.data() + b * ns);
  }
  for (size_t k = 0; k < ctrl.size(); ++k) ctrl[k] = 0.3 * std::sin(0.1 * k);
  std::vector<double> state(static_cast<size_t>(B) * T * ns), sensordata(static_cast<size_t>(B) * T * m.nsensordata);
  std::vector<int> warning(static_cast<size_t>(B) * moreau::kNWarning);
  moreau::RolloutArgs a;
  a.nbatch = B;
  a.nstep = T;
  a.initial_state = x0;
  a.ctrl = ctrl;
  a.state = state;
  a.sensordata = sensordata;
  a.warning = warning;
  for (int nthread : {1, 2}) {
    moreau::Rollout pool(m, nthread);
    pool.run(a);
    g_allocations = 0;
    g_counting = true;
    pool.run(a);
    pool.run(a);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0) << "nthread " << nthread;
  }
}

// ---------------------------------------------------------------------------------------------
// Bad numbers in the state from the API: step reports the first offending index and resets, so nothing
// non-finite ever reaches the integrated state. (NaN ctrl: NanControlIsReportedNotPropagated.)
TEST(Robustness, BadQposQvelFromTheApiAreReportedAndReset) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    bool pos;
    int index;
    double value;
    moreau::Warning warning;
  };
  for (const Case& c : {Case{true, 9, std::nan(""), moreau::kWarnBadQpos}, Case{true, 0, -inf, moreau::kWarnBadQpos},
                        Case{true, 20, 2e10, moreau::kWarnBadQpos}, Case{false, 6, std::nan(""), moreau::kWarnBadQvel},
                        Case{false, 24, inf, moreau::kWarnBadQvel}, Case{false, 3, -3e10, moreau::kWarnBadQvel}}) {
    SCOPED_TRACE(std::string(c.pos ? "qpos[" : "qvel[") + std::to_string(c.index) + "] = " + std::to_string(c.value));
    moreau::Data d = moreau::make_data(m);
    start(m, d);
    for (int i = 0; i < 5; ++i) moreau::step(m, d);
    (c.pos ? d.qpos : d.qvel)[c.index] = c.value;
    moreau::step(m, d);
    EXPECT_EQ(d.warning[c.warning].number, 1);
    EXPECT_EQ(d.warning[c.warning].lastinfo, c.index);
    // reset to qpos0 at rest (simulation chapter), then one step from there
    EXPECT_DOUBLE_EQ(d.time, m.opt.timestep);
    for (int i = 0; i < m.nq; ++i) EXPECT_TRUE(std::isfinite(d.qpos[i])) << i;
    for (int i = 0; i < m.nv; ++i) EXPECT_TRUE(std::isfinite(d.qvel[i])) << i;
    EXPECT_NEAR(d.qpos[2], m.qpos0[2], 1e-3) << "the root height starts again from qpos0";
  }
}

// Other inputs that only reach the state through qacc (applied forces, activations): the qacc check
// reports them and resets; the integrated state stays finite.
TEST(Robustness, BadAppliedForceOrActivationIsReportedThroughQacc) {
  const moreau::Model arm = moreau::load_model("/usr/share/mujoco/model/tendon_arm/arm26.xml");
  ASSERT_GT(arm.na, 0);
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which == 0 ? "qfrc_applied" : which == 1 ? "xfrc_applied" : "act");
    moreau::Data d = moreau::make_data(arm);
    start(arm, d);
    moreau::step(arm, d);
    if (which == 0) d.qfrc_applied[1] = std::nan("");
    if (which == 1) d.xfrc_applied[6 * 2 + 4] = std::numeric_limits<double>::infinity();
    if (which == 2) d.act[0] = std::nan("");
    moreau::step(arm, d);
    EXPECT_EQ(d.warning[moreau::kWarnBadQacc].number, 1);
    for (double x : d.qpos) EXPECT_TRUE(std::isfinite(x));
    for (double x : d.qvel) EXPECT_TRUE(std::isfinite(x));
    for (double x : d.act) EXPECT_TRUE(std::isfinite(x));
  }
}

// The JSONL contract: a bad number in any state key is an error for that line (named key and index),
// the next line is still processed from the reset state, and the exit code is 1.
TEST(Robustness, BadNumbersInJsonlAreRejectedPerLine) {
  const std::string model = std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml";
  const std::string in = ::testing::TempDir() + "robust_bad_numbers_" + std::to_string(::getpid()) + ".jsonl";
  {
    std::ofstream f(in);
    f << "{\"qpos\": [1e400, 0]}\n"           // overflows to Inf
      << "{\"qvel\": [0, NaN]}\n"              // not JSON
      << "{\"qvel\": [0, \"nan\"]}\n"          // not a number
      << "{\"qpos\": [0.1, 0.2], \"ctrl\": [1e999, 0]}\n"
      << "{\"qfrc_applied\": [-1e309, 0]}\n"
      << "{\"qpos\": [0.1, 0.2]}\n";
  }
  const std::string cmd = std::string(MOREAU_CLI) + " forward " + model + " < " + in + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::vector<std::string> lines;
  char buf[1 << 14];
  while (std::fgets(buf, sizeof buf, p)) lines.emplace_back(buf);
  const int status = pclose(p);
  std::remove(in.c_str());
  ASSERT_EQ(lines.size(), 6u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_NE(lines[i].find("\"error\""), std::string::npos) << lines[i];
    EXPECT_NE(lines[i].find("\"line\":" + std::to_string(i + 1)), std::string::npos) << lines[i];
  }
  EXPECT_NE(lines[2].find("'qvel'[1] is not a number"), std::string::npos) << lines[2];
  EXPECT_NE(lines[5].find("\"qacc\""), std::string::npos) << lines[5];
  EXPECT_EQ(lines[5].find("nan"), std::string::npos) << lines[5];
  EXPECT_EQ(WEXITSTATUS(status), 1);
}

// ---------------------------------------------------------------------------------------------
// The contact and constraint-row arena is sized from the model (size/nconmax, size/njmax, else
// Model::memory, else the default rule in src/constraint/storage.cc). Exhausting it must warn
// (kWarnContactFull / kWarnCnstrFull), keep ncon and nefc within capacity, and never write past the
// end: scripts/test.sh runs this under AddressSanitizer (make_data sizes each array from empty, so a
// write past its end lands in ASan's redzone).
namespace {

// 12 boxes in three layers of 2 x 2 on a plane: dozens of contacts (box-plane and box-box, up to 4
// per resting face), condim 3 and 4 mixed.
std::string box_pile(const std::string& size_attrs, const std::string& cone) {
  std::string xml = "<mujoco><size " + size_attrs + "/><option cone=\"" + cone +
                    "\"/><worldbody><geom type=\"plane\" size=\"5 5 .1\"/>";
  for (int i = 0; i < 12; ++i) {
    char body[256];
    std::snprintf(body, sizeof body,
                  "<body pos=\"%g %g %g\"><freejoint/><geom type=\"box\" size=\".1 .1 .1\" condim=\"%d\"/></body>",
                  0.19 * (i % 2), 0.19 * ((i / 2) % 2), 0.1 + 0.21 * (i / 4), i % 2 ? 3 : 4);
    xml += body;
  }
  return xml + "</worldbody></mujoco>";
}

struct ArenaRun {
  int max_ncon = 0, max_nefc = 0;
  int contact_full = 0, cnstr_full = 0;
  size_t contact_capacity = 0, row_capacity = 0;
  bool finite = true;
};

ArenaRun run_pile(const moreau::Model& m, int steps) {
  moreau::Data d = moreau::make_data(m);
  ArenaRun r;
  r.contact_capacity = d.contact.size();
  r.row_capacity = d.efc_type.size();
  for (int s = 0; s < steps; ++s) {
    moreau::step(m, d);
    r.max_ncon = std::max(r.max_ncon, d.ncon);
    r.max_nefc = std::max(r.max_nefc, d.nefc);
    for (double x : d.qpos) r.finite = r.finite && std::isfinite(x);
  }
  r.contact_full = d.warning[moreau::kWarnContactFull].number;
  r.cnstr_full = d.warning[moreau::kWarnCnstrFull].number;
  EXPECT_EQ(d.warning[moreau::kWarnBadQacc].number + d.warning[moreau::kWarnBadQvel].number, 0);
  return r;
}

}  // namespace

TEST(Robustness, RoomyArenaHoldsThePile) {
  // Control: in a roomy arena the pile has more contacts and rows than the tiny arenas below hold,
  // and no warning.
  for (const char* cone : {"pyramidal", "elliptic"}) {
    const ArenaRun r = run_pile(moreau::load_model_from_string(box_pile("nconmax=\"200\"", cone)), 150);
    EXPECT_GT(r.max_ncon, 20) << cone;
    EXPECT_GT(r.max_nefc, 60) << cone;
    EXPECT_EQ(r.contact_full, 0) << cone;
    EXPECT_EQ(r.cnstr_full, 0) << cone;
    EXPECT_TRUE(r.finite);
  }
}

TEST(Robustness, ExhaustedContactArenaWarnsAndStopsAtItsEnd) {
  for (const char* cone : {"pyramidal", "elliptic"}) {
    SCOPED_TRACE(cone);
    const moreau::Model m = moreau::load_model_from_string(box_pile("nconmax=\"10\"", cone));
    const ArenaRun r = run_pile(m, 150);
    EXPECT_EQ(r.contact_capacity, 10u);
    EXPECT_EQ(r.max_ncon, 10) << "fills the arena and stops there";
    EXPECT_GT(r.contact_full, 0);
    EXPECT_LE(r.max_nefc, static_cast<int>(r.row_capacity));
    EXPECT_TRUE(r.finite);
  }
}

TEST(Robustness, ExhaustedRowArenaWarnsAndStopsAtItsEnd) {
  for (const char* cone : {"pyramidal", "elliptic"}) {
    SCOPED_TRACE(cone);
    // Room for 7 rows: not a whole number of 4- or 6-row contacts, so a contact that does not fit is
    // dropped without writing a partial block past the end.
    const moreau::Model m = moreau::load_model_from_string(box_pile("njmax=\"7\"", cone));
    const ArenaRun r = run_pile(m, 150);
    EXPECT_EQ(r.row_capacity, 7u);
    EXPECT_LE(r.max_nefc, 7);
    EXPECT_GT(r.max_nefc, 0);
    EXPECT_GT(r.cnstr_full, 0);
    EXPECT_TRUE(r.finite);
  }
}

TEST(Robustness, ArenaFromModelMemoryWarnsWhenFull) {
  // Model::memory (bytes for the contacts, each with 6 rows of nv + 16 doubles: src/constraint/storage.cc)
  // when nconmax is not given.
  moreau::Model m = moreau::load_model_from_string(box_pile("", "pyramidal"));
  m.memory = 6 * (static_cast<long long>(sizeof(moreau::Contact)) + 6 * 8 * (m.nv + 16));
  const ArenaRun r = run_pile(m, 150);
  EXPECT_EQ(r.contact_capacity, 6u);
  EXPECT_EQ(r.max_ncon, 6);
  EXPECT_GT(r.contact_full, 0);
  EXPECT_TRUE(r.finite);
}

// ---------------------------------------------------------------------------------------------
// Every input the fuzzer (tests/fuzz/mjcf_fuzz.cc) found a crash, leak or sanitizer finding with is
// kept in tests/fuzz/regressions and replayed here exactly as the fuzz target runs it: it loads or
// raises LoadError, and a model that loads takes a few steps. In the sanitizer build of
// scripts/test.sh a regression aborts this test.
TEST(Robustness, FuzzRegressionsLoadOrFailCleanly) {
  std::vector<std::string> files;
  for (const auto& f : fs::directory_iterator(std::string(MOREAU_SOURCE_DIR) + "/tests/fuzz/regressions"))
    if (f.path().extension() == ".xml") files.push_back(f.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    std::ifstream in(path, std::ios::binary);
    const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      const moreau::Model m = moreau::load_model_from_string(xml, path);
      moreau::Data d = moreau::make_data(m);
      if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
      for (int i = 0; i < 3; ++i) moreau::step(m, d);
      for (double x : d.qpos) EXPECT_TRUE(std::isfinite(x));
    } catch (const moreau::LoadError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "the error names the file: " << e.what();
    }
  }
}

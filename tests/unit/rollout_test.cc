// moreau::Rollout / moreau::rollout (include/moreau/rollout.h): a batch equals, bit for bit, the
// serial loop of reset_data + set_state + step on a fresh Data per rollout, for every thread count,
// on one shared model and on per-rollout models; bad arguments give std::invalid_argument naming
// the argument and the expected size; diverging initial states are reset and reported.
#include "moreau/rollout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";
const std::string kSlidingCube = std::string(MOREAU_SOURCE_DIR) + "/models/experiments/sliding_cube.xml";
const std::string kArm26 = "/usr/share/mujoco/model/tendon_arm/arm26.xml";

// Inputs of a batch: initial states around the model's start (keyframe 0 or qpos0) with random
// velocities and joint offsets, random controls within the control range, small applied forces.
struct Batch {
  int B = 0, T = 0;
  unsigned spec = moreau::kStateFullPhysics;
  std::vector<double> x0, ctrl, qfrc;
};

Batch make_batch(const moreau::Model& m, int B, int T, unsigned spec, unsigned seed, bool with_qfrc = true) {
  Batch b;
  b.B = B;
  b.T = T;
  b.spec = spec;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  moreau::Data d = moreau::make_data(m);
  const int ns = moreau::state_size(m, spec);
  b.x0.resize(static_cast<size_t>(B) * ns);
  for (int r = 0; r < B; ++r) {
    if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
    else moreau::reset_data(m, d);
    d.time = 0.01 * r;
    for (int j = 0; j < m.njnt; ++j) {  // hinge and slide joints: small offsets
      if (m.jnt_type[j] == moreau::kJointHinge || m.jnt_type[j] == moreau::kJointSlide)
        d.qpos[m.jnt_qposadr[j]] += 0.05 * u(rng);
    }
    for (int i = 0; i < m.nv; ++i) d.qvel[i] += 0.2 * u(rng);
    for (int i = 0; i < m.na; ++i) d.act[i] = 0.5 + 0.5 * u(rng);
    moreau::get_state(m, d, spec, b.x0.data() + static_cast<size_t>(r) * ns);
  }
  b.ctrl.resize(static_cast<size_t>(B) * T * m.nu);
  for (size_t k = 0; k < b.ctrl.size(); ++k) {
    const int i = static_cast<int>(k % std::max(m.nu, 1));
    double lo = -1, hi = 1;
    if (m.actuator_ctrllimited[i]) lo = m.actuator_ctrlrange[2 * i], hi = m.actuator_ctrlrange[2 * i + 1];
    b.ctrl[k] = lo + (hi - lo) * 0.5 * (1 + u(rng));
  }
  if (with_qfrc) {
    b.qfrc.resize(static_cast<size_t>(B) * T * m.nv);
    for (double& f : b.qfrc) f = 0.5 * u(rng);
  }
  return b;
}

struct Result {
  std::vector<double> state, sensordata;
  std::vector<int> warning;
};

moreau::RolloutArgs args_of(const moreau::Model& m, const Batch& b, Result& r) {
  const size_t ns = moreau::state_size(m, b.spec), rows = static_cast<size_t>(b.B) * b.T;
  r.state.assign(rows * ns, -1.0);
  r.sensordata.assign(rows * m.nsensordata, -1.0);
  r.warning.assign(static_cast<size_t>(b.B) * moreau::kNWarning, -1);
  moreau::RolloutArgs a;
  a.nbatch = b.B;
  a.nstep = b.T;
  a.spec = b.spec;
  a.initial_state = b.x0;
  a.ctrl = b.ctrl;
  a.qfrc_applied = b.qfrc;
  a.state = r.state;
  a.sensordata = r.sensordata;
  a.warning = r.warning;
  return a;
}

// The serial loop the rollout promises to equal: a fresh Data per rollout.
Result serial(const std::vector<const moreau::Model*>& models, const Batch& b) {
  const moreau::Model& m0 = *models[0];
  const size_t ns = moreau::state_size(m0, b.spec), nu = m0.nu, nv = m0.nv, nsens = m0.nsensordata;
  Result r;
  r.state.resize(static_cast<size_t>(b.B) * b.T * ns);
  r.sensordata.resize(static_cast<size_t>(b.B) * b.T * nsens);
  r.warning.resize(static_cast<size_t>(b.B) * moreau::kNWarning);
  for (int i = 0; i < b.B; ++i) {
    const moreau::Model& m = *models[models.size() == 1 ? 0 : i];
    moreau::Data d = moreau::make_data(m);
    moreau::set_state(m, d, b.spec, b.x0.data() + i * ns);
    for (int t = 0; t < b.T; ++t) {
      const size_t row = static_cast<size_t>(i) * b.T + t;
      if (!b.ctrl.empty()) std::copy_n(b.ctrl.data() + row * nu, nu, d.ctrl.data());
      if (!b.qfrc.empty()) std::copy_n(b.qfrc.data() + row * nv, nv, d.qfrc_applied.data());
      moreau::step(m, d);
      moreau::get_state(m, d, b.spec, r.state.data() + row * ns);
      std::copy_n(d.sensordata.data(), nsens, r.sensordata.data() + row * nsens);
    }
    for (int w = 0; w < moreau::kNWarning; ++w) r.warning[i * moreau::kNWarning + w] = d.warning[w].number;
  }
  return r;
}

// Bitwise equality; on failure, the first differing index.
::testing::AssertionResult same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0)
      return ::testing::AssertionFailure() << "index " << i << ": " << a[i] << " vs " << b[i];
  return ::testing::AssertionSuccess();
}

void expect_equal(const Result& want, const Result& got) {
  EXPECT_TRUE(same_bits(want.state, got.state));
  EXPECT_TRUE(same_bits(want.sensordata, got.sensordata));
  EXPECT_EQ(want.warning, got.warning);
}

// Threads 1..4 with one pool per count, each run twice (the second run reuses the Datas, on
// rollouts that the first run gave to other workers), against the serial loop.
// reuse_data: the workers skip reset_data where the flag allows it (RolloutArgs::reuse_data).
void expect_serial_equality(const moreau::Model& m, const Batch& b, bool reuse_data = false) {
  const Result want = serial({&m}, b);
  for (int nthread = 1; nthread <= 4; ++nthread) {
    SCOPED_TRACE("nthread " + std::to_string(nthread));
    moreau::Rollout pool(m, nthread);
    for (int run = 0; run < 2; ++run) {
      Result got;
      moreau::RolloutArgs a = args_of(m, b, got);
      a.reuse_data = reuse_data;
      pool.run(a);
      expect_equal(want, got);
    }
  }
}

TEST(Rollout, HumanoidContactsEqualSerialLoopForThreads1To4) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  const Batch b = make_batch(m, 10, 150, moreau::kStateFullPhysics, 1);
  expect_serial_equality(m, b);
  // the batch is not trivial: the humanoid touches the floor and the rollouts differ
  moreau::Data d = moreau::make_data(m);
  moreau::set_state(m, d, b.spec, b.x0.data());
  for (int t = 0; t < b.T; ++t) moreau::step(m, d);
  EXPECT_GT(d.ncon, 0);
  const Result r = serial({&m}, b);
  const size_t ns = moreau::state_size(m, b.spec);
  EXPECT_NE(std::vector<double>(r.state.begin(), r.state.begin() + ns),
            std::vector<double>(r.state.begin() + b.T * ns, r.state.begin() + (b.T + 1) * ns));
}

TEST(Rollout, MuscleTendonModelEqualsSerialLoopForThreads1To4) {
  const moreau::Model m = moreau::load_model(kArm26);
  ASSERT_GT(m.na, 0);
  ASSERT_GT(m.ntendon, 0);
  // the integration state: warm start, controls and applied forces travel in the initial state too
  const Batch b = make_batch(m, 7, 200, moreau::kStateIntegration, 2);
  expect_serial_equality(m, b);
}

TEST(Rollout, HardContactSolverSceneEqualsSerialLoopForThreads1To4) {
  moreau::Model m = moreau::load_model(kSlidingCube);
  m.opt.solver = moreau::kSolverRaisim;
  const Batch b = make_batch(m, 9, 300, moreau::kStatePhysics, 3);
  expect_serial_equality(m, b);
  // the cube slides on the floor from about 1 m/s, and mu = 0.5 stops it within 0.3 s
  const Result r = serial({&m}, b);
  const size_t ns = moreau::state_size(m, b.spec);
  const double vx0 = b.x0[m.nq], vx = r.state[(b.T - 1) * ns + m.nq];
  EXPECT_GT(vx0, 0.8);
  EXPECT_LT(std::abs(vx), 1e-6);
}

TEST(Rollout, ReusedDatasFromIntegrationStatesEqualSerialLoop) {
  // without reset_data between rollouts a worker's Data still holds the previous rollout's contacts,
  // constraint rows and derived quantities; from an integration state step reads none of them
  const moreau::Model humanoid = moreau::load_model(kHumanoid);
  expect_serial_equality(humanoid, make_batch(humanoid, 10, 120, moreau::kStateIntegration, 4), true);
  const moreau::Model arm = moreau::load_model(kArm26);
  expect_serial_equality(arm, make_batch(arm, 7, 150, moreau::kStateIntegration, 5), true);
  // a hard-contact solver warm-starts from the Data: the flag is ignored and each rollout starts
  // from a reset Data
  moreau::Model cube = moreau::load_model(kSlidingCube);
  cube.opt.solver = moreau::kSolverRaisim;
  expect_serial_equality(cube, make_batch(cube, 9, 200, moreau::kStateIntegration, 6), true);
}

TEST(Rollout, PerRolloutModelsGiveTheirOwnSerialLoops) {
  // friction, mass and contact model differ; rollout i runs on models[i % 4]
  const moreau::Model base = moreau::load_model(kSlidingCube);
  std::vector<moreau::Model> variants(4, base);
  const double friction[4] = {0.2, 0.5, 0.8, 0.5};
  const double mass[4] = {1.0, 2.0, 0.5, 1.0};
  const int solver[4] = {moreau::kSolverRaisimDS, moreau::kSolverRaisim, moreau::kSolverNewton,
                         moreau::kSolverNcpPGS};
  for (int k = 0; k < 4; ++k) {
    moreau::Model& v = variants[k];
    for (int g = 0; g < v.ngeom; ++g) v.geom_friction[3 * g] = friction[k];
    v.body_mass[1] *= mass[k];
    for (int i = 0; i < 3; ++i) v.body_inertia[3 + i] *= mass[k];
    v.opt.solver = solver[k];
    moreau::set_const(v);
  }
  const int B = 11;
  std::vector<const moreau::Model*> models;
  for (int i = 0; i < B; ++i) models.push_back(&variants[i % 4]);
  models[5] = &base;  // the pool's own model among them
  Batch b = make_batch(base, B, 250, moreau::kStateFullPhysics, 4, false);
  const size_t ns = moreau::state_size(base, b.spec);
  for (int i = 1; i < 5; ++i) std::copy_n(b.x0.data(), ns, b.x0.data() + i * ns);  // 0..4: one start
  const Result want = serial(models, b);
  for (int nthread = 1; nthread <= 4; ++nthread) {
    SCOPED_TRACE("nthread " + std::to_string(nthread));
    moreau::Rollout pool(base, nthread);
    for (int run = 0; run < 2; ++run) {
      Result got;
      pool.run(models, args_of(base, b, got));
      expect_equal(want, got);
    }
    Result once;
    moreau::rollout(models, args_of(base, b, once), nthread);
    expect_equal(want, once);
  }
  // the models really differ: from one start, the x velocity after the last step differs between
  // the four variants, and rollout 4 (variants[0] again) repeats rollout 0
  auto final_vx = [&](int i) { return want.state[(static_cast<size_t>(i) * b.T + b.T - 1) * ns + 1 + base.nq]; };
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) EXPECT_NE(final_vx(i), final_vx(j)) << i << " " << j;
  EXPECT_EQ(final_vx(4), final_vx(0));
  EXPECT_GT(final_vx(0), 0.0);  // still sliding: friction 0.2 stops 1 m/s after 0.5 s
}

TEST(Rollout, ConstantControlsInTheSpecAndNoOptionalOutputs) {
  // ctrl inside the spec and no ctrl array: the initial ctrl holds for every step
  const moreau::Model m = moreau::load_model(kHumanoid);
  const unsigned spec = moreau::kStateFullPhysics | moreau::kStateCtrl;
  Batch b = make_batch(m, 5, 40, spec, 5, false);
  const size_t ns = moreau::state_size(m, spec);
  for (int r = 0; r < b.B; ++r)
    for (int i = 0; i < m.nu; ++i) b.x0[r * ns + ns - m.nu + i] = 0.3 * std::sin(r + i);
  b.ctrl.clear();
  const Result want = serial({&m}, b);
  std::vector<double> state(want.state.size());
  moreau::RolloutArgs a;
  a.nbatch = b.B;
  a.nstep = b.T;
  a.spec = spec;
  a.initial_state = b.x0;
  a.state = state;
  moreau::rollout(m, a, 3);
  EXPECT_TRUE(same_bits(want.state, state));
  for (int i = 0; i < m.nu; ++i) EXPECT_EQ(state[(b.T - 1) * ns + ns - m.nu + i], b.x0[ns - m.nu + i]);
  // xfrc_applied per step: a constant upward push lifts the torso higher than without
  std::vector<double> xfrc(static_cast<size_t>(b.B) * b.T * 6 * m.nbody, 0.0);
  for (size_t row = 0; row < static_cast<size_t>(b.B) * b.T; ++row) xfrc[row * 6 * m.nbody + 6 * 1 + 2] = 300;
  std::vector<double> pushed(state.size());
  a.xfrc_applied = xfrc;
  a.state = pushed;
  moreau::rollout(m, a, 2);
  EXPECT_GT(pushed[(b.T - 1) * ns + 1 + 2], state[(b.T - 1) * ns + 1 + 2]);  // torso z (qpos[2])
}

TEST(Rollout, NanInitialStateIsResetAndReported) {
  // step's divergence check resets the Data (qpos0, time 0, zero inputs) and counts the warning;
  // the rollout then continues from the reset state, so its rows equal those of a rollout started
  // there whose first step has zero controls and applied forces
  const moreau::Model m = moreau::load_model(kHumanoid);
  Batch b = make_batch(m, 4, 30, moreau::kStateFullPhysics, 6);
  const size_t ns = moreau::state_size(m, b.spec);
  b.x0[2 * ns + 1 + 3] = std::numeric_limits<double>::quiet_NaN();  // rollout 2, qpos[3]
  Result got;
  moreau::rollout(m, args_of(m, b, got), 2);
  expect_equal(serial({&m}, b), got);
  EXPECT_EQ(got.warning[2 * moreau::kNWarning + moreau::kWarnBadQpos], 1);
  for (int r : {0, 1, 3}) EXPECT_EQ(got.warning[r * moreau::kNWarning + moreau::kWarnBadQpos], 0);
  for (size_t k = 2 * b.T * ns; k < 3 * b.T * ns; ++k) ASSERT_TRUE(std::isfinite(got.state[k])) << k;

  Batch reset = b;  // rollout 2 from the reset state, zero inputs in its first step
  moreau::Data d = moreau::make_data(m);
  moreau::get_state(m, d, b.spec, reset.x0.data() + 2 * ns);
  std::fill_n(reset.ctrl.data() + 2 * b.T * m.nu, m.nu, 0.0);
  std::fill_n(reset.qfrc.data() + 2 * b.T * m.nv, m.nv, 0.0);
  const Result from_reset = serial({&m}, reset);
  EXPECT_TRUE(same_bits(std::vector<double>(from_reset.state.begin() + 2 * b.T * ns, from_reset.state.begin() + 3 * b.T * ns),
                        std::vector<double>(got.state.begin() + 2 * b.T * ns, got.state.begin() + 3 * b.T * ns)));
}

// The message of the std::invalid_argument that f throws (empty if none).
template <class F>
std::string invalid_argument_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Rollout, BadArgumentsNameTheArgumentAndTheExpectedSize) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  const Batch b = make_batch(m, 3, 5, moreau::kStateFullPhysics, 7);
  const int ns = moreau::state_size(m, b.spec);
  ASSERT_EQ(ns, 1 + m.nq + m.nv + m.na);
  moreau::Rollout pool(m, 2);
  Result r;
  const moreau::RolloutArgs good = args_of(m, b, r);
  auto message = [&](auto change) {
    moreau::RolloutArgs a = good;
    change(a);
    return invalid_argument_of([&] { pool.run(a); });
  };
  const std::vector<double> short_x0(b.x0.begin(), b.x0.end() - 1);
  EXPECT_EQ(message([&](moreau::RolloutArgs& a) { a.initial_state = short_x0; }),
            "rollout: initial_state has " + std::to_string(3 * ns - 1) + " values, expected B x nstate = 3 x " +
                std::to_string(ns) + " = " + std::to_string(3 * ns));
  // the spec decides nstate: the same array with the physics state (no time) does not fit
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.spec = moreau::kStatePhysics; }).find("initial_state"),
            std::string::npos);
  const std::vector<double> short_ctrl(b.ctrl.begin(), b.ctrl.end() - 2);
  EXPECT_EQ(message([&](moreau::RolloutArgs& a) { a.ctrl = short_ctrl; }),
            "rollout: ctrl has " + std::to_string(short_ctrl.size()) + " values, expected none or B x T x nu = 3 x 5 x " +
                std::to_string(m.nu) + " = " + std::to_string(15 * m.nu));
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.qfrc_applied = short_ctrl; }).find("qfrc_applied has"),
            std::string::npos);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.xfrc_applied = short_ctrl; }).find("B x T x 6*nbody"),
            std::string::npos);
  std::vector<double> small(7);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.state = small; }).find("state has 7 values, expected none or B x T x nstate"),
            std::string::npos);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.sensordata = small; }).find("sensordata has 7"), std::string::npos);
  std::vector<int> few(2);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.warning = few; }).find("warning has 2"), std::string::npos);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.nbatch = -1; }).find("nbatch is -1"), std::string::npos);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.nstep = -2; }).find("nstep is -2"), std::string::npos);
  EXPECT_NE(message([&](moreau::RolloutArgs& a) { a.spec = 1u << 20; }), "");
  EXPECT_NE(invalid_argument_of([&] { moreau::Rollout bad(m, 0); }).find("nthread is 0"), std::string::npos);
  EXPECT_NE(invalid_argument_of([&] { moreau::rollout(m, good, 0); }).find("nthread is 0"), std::string::npos);

  // per-rollout models: one per rollout, and the same sizes
  const moreau::Model cube = moreau::load_model(kSlidingCube);
  const std::vector<const moreau::Model*> two = {&m, &m};
  EXPECT_EQ(invalid_argument_of([&] { pool.run(two, good); }),
            "rollout: 2 models for 3 rollouts, expected one per rollout");
  const std::vector<const moreau::Model*> mixed = {&m, &cube, &m};
  EXPECT_EQ(invalid_argument_of([&] { pool.run(mixed, good); }),
            "rollout: models[1] has nq = 7, expected " + std::to_string(m.nq) +
                " (the batch's models must have the same sizes)");
  const std::vector<const moreau::Model*> with_null = {&m, nullptr, &m};
  EXPECT_EQ(invalid_argument_of([&] { pool.run(with_null, good); }), "rollout: models[1] is null");

  // nothing was written by the refused calls, and the pool still works
  EXPECT_EQ(r.state, std::vector<double>(r.state.size(), -1.0));
  pool.run(good);
  expect_equal(serial({&m}, b), r);
}

TEST(Rollout, EmptyBatchOrZeroStepsIsAnEmptyResult) {
  const moreau::Model m = moreau::load_model(kHumanoid);
  moreau::Rollout pool(m, 3);
  moreau::RolloutArgs empty;  // B = 0, T = 0, no arrays
  EXPECT_NO_THROW(pool.run(empty));
  EXPECT_NO_THROW(moreau::rollout(m, empty, 2));
  EXPECT_NO_THROW(moreau::rollout(std::span<const moreau::Model* const>{}, empty, 2));
  empty.nstep = 100;  // B = 0 with T > 0: still nothing
  EXPECT_NO_THROW(pool.run(empty));
  // T = 0: initial states are checked, the warning counts are zero, nothing else is written
  const Batch b = make_batch(m, 3, 0, moreau::kStateFullPhysics, 8);
  Result r;
  moreau::RolloutArgs a = args_of(m, b, r);
  EXPECT_TRUE(r.state.empty());
  pool.run(a);
  EXPECT_EQ(r.warning, std::vector<int>(3 * moreau::kNWarning, 0));
  std::vector<double> wrong(b.x0.begin(), b.x0.end() - 1);
  a.initial_state = wrong;
  EXPECT_NE(invalid_argument_of([&] { pool.run(a); }).find("initial_state"), std::string::npos);
}

TEST(Rollout, AnExceptionInOneRolloutReachesTheCallerAndThePoolGoesOn) {
  // a hard-contact solver refuses RK4: the step of models[2] throws on a worker thread
  moreau::Model m = moreau::load_model(kSlidingCube);
  moreau::Model rk4 = m;
  rk4.opt.integrator = moreau::kIntRK4;
  const Batch b = make_batch(m, 6, 20, moreau::kStatePhysics, 9, false);
  moreau::Rollout pool(m, 3);
  Result r;
  const std::vector<const moreau::Model*> models = {&m, &m, &rk4, &m, &m, &m};
  try {
    pool.run(models, args_of(m, b, r));
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("needs the Euler integrator"), std::string::npos) << e.what();
  }
  Result again;
  pool.run(args_of(m, b, again));
  expect_equal(serial({&m}, b), again);
}

}  // namespace

namespace {

TEST(Rollout, StepContinuesPersistentDatasInPlace) {
  // Rollout::step: each Data continues from its own state (no reset): three calls of 10 steps equal
  // 30 steps of a loop on copies, bitwise, for 1..3 threads; warning counts are those of the call
  const moreau::Model m = moreau::load_model(kHumanoid);
  const Batch b = make_batch(m, 5, 10, moreau::kStateFullPhysics, 10);
  const size_t ns = moreau::state_size(m, b.spec);
  for (int nthread = 1; nthread <= 3; ++nthread) {
    SCOPED_TRACE("nthread " + std::to_string(nthread));
    std::vector<moreau::Data> envs, loop;
    for (int i = 0; i < b.B; ++i) {
      envs.push_back(moreau::make_data(m));
      moreau::set_state(m, envs.back(), b.spec, b.x0.data() + i * ns);
      loop.push_back(moreau::make_data(m));
      moreau::set_state(m, loop.back(), b.spec, b.x0.data() + i * ns);
    }
    std::vector<moreau::Data*> ptrs;
    for (auto& d : envs) ptrs.push_back(&d);
    moreau::Rollout pool(m, nthread);
    for (int call = 0; call < 3; ++call) {
      Result r;
      moreau::RolloutArgs a = args_of(m, b, r);
      a.initial_state = {};
      pool.step(ptrs, a);
      for (int i = 0; i < b.B; ++i) {
        for (int t = 0; t < b.T; ++t) {
          const size_t row = static_cast<size_t>(i) * b.T + t;
          std::copy_n(b.ctrl.data() + row * m.nu, m.nu, loop[i].ctrl.data());
          std::copy_n(b.qfrc.data() + row * m.nv, m.nv, loop[i].qfrc_applied.data());
          moreau::step(m, loop[i]);
          const std::vector<double> want = moreau::get_state(m, loop[i], b.spec);
          ASSERT_TRUE(same_bits(want, std::vector<double>(r.state.begin() + row * ns, r.state.begin() + (row + 1) * ns)))
              << "call " << call << " env " << i << " step " << t;
        }
        EXPECT_TRUE(same_bits(loop[i].qpos, envs[i].qpos));
        EXPECT_TRUE(same_bits(loop[i].qacc_warmstart, envs[i].qacc_warmstart));
      }
      EXPECT_EQ(r.warning, std::vector<int>(b.B * moreau::kNWarning, 0));
    }
  }
  // no initial states in this mode, one Data per rollout
  moreau::Rollout pool(m, 2);
  std::vector<moreau::Data> envs(2);
  for (auto& d : envs) d = moreau::make_data(m);
  std::vector<moreau::Data*> two = {&envs[0], &envs[1]};
  Result r;
  const Batch small = make_batch(m, 2, 3, moreau::kStateFullPhysics, 11);  // outlives the spans of a
  moreau::RolloutArgs a = args_of(m, small, r);
  EXPECT_NE(invalid_argument_of([&] { pool.step(two, a); }).find("expected none (Rollout::step"), std::string::npos);
  a.initial_state = {};
  const std::vector<moreau::Data*> one = {&envs[0]};
  EXPECT_NE(invalid_argument_of([&] { pool.step(one, a); }).find("1 Datas for nbatch = 2"), std::string::npos);
  EXPECT_NO_THROW(pool.step(two, a));
}

}  // namespace

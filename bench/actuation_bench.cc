// Tendon/actuation/sensor stages, Moreau against MuJoCo 2.2.2 in the same run, on the
// same model file and the same state:
//   "transmission_actuation": tendon + transmission + actuation_force
//                              vs mj_tendon + mj_transmission + mj_fwdActuation
//   "sensors":                 sensor_pos + sensor_vel + (rne_post_constraint if needed) + sensor_acc
//                              vs mj_sensorPos + mj_sensorVel + mj_sensorAcc
//   "forward":                 moreau::forward vs mj_forward (the whole pipeline at the state)
//   "forward_nocontact":       the same with the contact disable flag on both: the dog's feet are
//                              meshes, whose narrow phase Moreau does not have yet, so with contacts
//                              the two engines solve different problems
// Both engines first run a full forward pass at the state (kinematics etc. are then held fixed).
// State: hinges qpos0 + U(-0.3, 0.3), quaternions perturbed, qvel U(-0.45, 0.45), ctrl U(0, 1).
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace {

struct ActCase {
  std::string name;
  std::string path;
};

std::vector<ActCase> act_cases() {
  const std::string sys = "/usr/share/mujoco/model/";
  const std::string dm = std::string(MOREAU_SHARED_DIR) + "/models/dm_control/";
  return {
      {"arm26_muscles_wraps", sys + "tendon_arm/arm26.xml"},
      {"quadruped_tendons_rangefinders", dm + "quadruped.xml"},
      {"humanoid_sensors", dm + "humanoid.xml"},
      {"dog_tendons_sensors", dm + "dog.xml"},
  };
}

struct ActPair {
  mjModel* mj = nullptr;
  mjData* md = nullptr;
  moreau::Model m;
  moreau::Data d;
  std::string error;
  explicit ActPair(const ActCase& c, int disable = 0) {
    char err[1000] = "";
    mj = mj_loadXML(c.path.c_str(), nullptr, err, sizeof(err));
    if (!mj) { error = err; return; }
    md = mj_makeData(mj);
    try {
      m = moreau::load_model(c.path);
    } catch (const std::exception& e) {
      error = e.what();
      return;
    }
    mj->opt.disableflags |= disable;
    m.opt.disableflags |= disable;
    d = moreau::make_data(m);
    if (m.nq != mj->nq || m.nv != mj->nv || m.nu != mj->nu || m.na != mj->na) {
      error = "models differ in size";
      return;
    }
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> u(-0.3, 0.3);
    std::vector<double> qpos(mj->qpos0, mj->qpos0 + mj->nq);
    for (int j = 0; j < mj->njnt; ++j) {
      double* q = qpos.data() + mj->jnt_qposadr[j];
      if (mj->jnt_type[j] == mjJNT_FREE || mj->jnt_type[j] == mjJNT_BALL) {
        double* quat = mj->jnt_type[j] == mjJNT_FREE ? q + 3 : q;
        for (int k = 0; k < 4; ++k) quat[k] += u(rng);
        const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        for (int k = 0; k < 4; ++k) quat[k] /= n;
      } else {
        q[0] += u(rng);
      }
    }
    std::copy(qpos.begin(), qpos.end(), md->qpos);
    std::copy(qpos.begin(), qpos.end(), d.qpos.begin());
    for (int i = 0; i < mj->nv; ++i) md->qvel[i] = d.qvel[i] = 1.5 * u(rng);
    for (int i = 0; i < mj->nu; ++i) md->ctrl[i] = d.ctrl[i] = u(rng) + 0.5;
    mj_forward(mj, md);
    moreau::forward(m, d);
    moreau::tendon(m, d);
    moreau::transmission(m, d);
    moreau::tendon_actuator_velocity(m, d);
  }
  ~ActPair() {
    if (md) mj_deleteData(md);
    if (mj) mj_deleteModel(mj);
  }
};

void moreau_transmission_actuation(benchmark::State& state, ActCase c) {
  ActPair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  for (auto _ : state) {
    moreau::tendon(p.m, p.d);
    moreau::transmission(p.m, p.d);
    moreau::actuation_force(p.m, p.d);
    benchmark::DoNotOptimize(p.d.qfrc_actuator.data());
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_transmission_actuation(benchmark::State& state, ActCase c) {
  ActPair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  for (auto _ : state) {
    mj_tendon(p.mj, p.md);
    mj_transmission(p.mj, p.md);
    mj_fwdActuation(p.mj, p.md);
    benchmark::DoNotOptimize(p.md->qfrc_actuator);
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void moreau_sensors(benchmark::State& state, ActCase c) {
  ActPair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  const bool rne_post = moreau::sensor_acc_needs_rne_post(p.m);
  for (auto _ : state) {
    moreau::sensor_pos(p.m, p.d);
    moreau::sensor_vel(p.m, p.d);
    if (rne_post) moreau::rne_post_constraint(p.m, p.d);
    moreau::sensor_acc(p.m, p.d);
    benchmark::DoNotOptimize(p.d.sensordata.data());
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void mujoco_sensors(benchmark::State& state, ActCase c) {
  ActPair p(c);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  for (auto _ : state) {
    mj_sensorPos(p.mj, p.md);
    mj_sensorVel(p.mj, p.md);
    mj_sensorAcc(p.mj, p.md);
    benchmark::DoNotOptimize(p.md->sensordata);
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

void moreau_forward(benchmark::State& state, ActCase c, int disable) {
  ActPair p(c, disable);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  for (auto _ : state) {
    moreau::forward(p.m, p.d);
    benchmark::DoNotOptimize(p.d.qacc.data());
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["ncon"] = p.d.ncon;
}

void mujoco_forward(benchmark::State& state, ActCase c, int disable) {
  ActPair p(c, disable);
  if (!p.error.empty()) { state.SkipWithError(p.error.c_str()); return; }
  for (auto _ : state) {
    mj_forward(p.mj, p.md);
    benchmark::DoNotOptimize(p.md->qacc);
  }
  state.counters["calls/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["ncon"] = p.md->ncon;
}

const bool kRegisteredActuation = [] {
  for (const ActCase& c : act_cases()) {
    benchmark::RegisterBenchmark(("moreau/transmission_actuation/" + c.name).c_str(), moreau_transmission_actuation, c);
    benchmark::RegisterBenchmark(("mujoco/transmission_actuation/" + c.name).c_str(), mujoco_transmission_actuation, c);
    benchmark::RegisterBenchmark(("moreau/sensors/" + c.name).c_str(), moreau_sensors, c);
    benchmark::RegisterBenchmark(("mujoco/sensors/" + c.name).c_str(), mujoco_sensors, c);
    benchmark::RegisterBenchmark(("moreau/forward/" + c.name).c_str(), moreau_forward, c, 0);
    benchmark::RegisterBenchmark(("mujoco/forward/" + c.name).c_str(), mujoco_forward, c, 0);
    benchmark::RegisterBenchmark(("moreau/forward_nocontact/" + c.name).c_str(), moreau_forward, c,
                                 static_cast<int>(moreau::kDsblContact));
    benchmark::RegisterBenchmark(("mujoco/forward_nocontact/" + c.name).c_str(), mujoco_forward, c,
                                 static_cast<int>(mjDSBL_CONTACT));
  }
  return true;
}();

}  // namespace

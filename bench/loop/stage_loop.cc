// Instruction-count profiles of the tendon, transmission and actuation stages (and of `forward`),
// Moreau against MuJoCo 2.2.2, at the state bench/actuation_bench.cc uses: hinges qpos0 +
// U(-0.3, 0.3), quaternions perturbed, qvel U(-0.45, 0.45), ctrl U(0.2, 0.8), seed 2024.
//
//   moreau_stage_loop ENGINE STAGE MODEL CALLS
// ENGINE: moreau or mujoco. STAGE: transmission_actuation (tendon + transmission + actuation force,
// as the benchmark row) or forward. The calls run inside profiled_calls, so that
// `valgrind --tool=callgrind --toggle-collect='*profiled_calls*'` counts only those.
// Prints a checksum of the bits of qfrc_actuator, actuator_force, ten_length, ten_J, actuator_length
// and actuator_moment (equal checksums: the same results).
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <vector>

#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace {

enum Stage { kTransmissionActuation, kForward };

__attribute__((noinline)) void profiled_calls(const moreau::Model& m, moreau::Data& d, Stage s, long n) {
  for (long i = 0; i < n; ++i) {
    if (s == kForward) {
      moreau::forward(m, d);
    } else {
      moreau::tendon(m, d);
      moreau::transmission(m, d);
      moreau::actuation_force(m, d);
    }
  }
}
__attribute__((noinline)) void profiled_calls(const mjModel* m, mjData* d, Stage s, long n) {
  for (long i = 0; i < n; ++i) {
    if (s == kForward) {
      mj_forward(m, d);
    } else {
      mj_tendon(m, d);
      mj_transmission(m, d);
      mj_fwdActuation(m, d);
    }
  }
}

// FNV-1a over the bytes of x[0..n).
uint64_t checksum(const double* x, int n, uint64_t h = 1469598103934665603ULL) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(x);
  for (size_t i = 0; i < sizeof(double) * n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

// The benchmark's state, drawn with MuJoCo's model sizes (equal in both engines).
struct State {
  std::vector<double> qpos, qvel, ctrl;
};
State make_state(const mjModel* mj) {
  State s;
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  s.qpos.assign(mj->qpos0, mj->qpos0 + mj->nq);
  for (int j = 0; j < mj->njnt; ++j) {
    double* q = s.qpos.data() + mj->jnt_qposadr[j];
    if (mj->jnt_type[j] == mjJNT_FREE || mj->jnt_type[j] == mjJNT_BALL) {
      double* quat = mj->jnt_type[j] == mjJNT_FREE ? q + 3 : q;
      for (int k = 0; k < 4; ++k) quat[k] += u(rng);
      const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
      for (int k = 0; k < 4; ++k) quat[k] /= n;
    } else {
      q[0] += u(rng);
    }
  }
  for (int i = 0; i < mj->nv; ++i) s.qvel.push_back(1.5 * u(rng));
  for (int i = 0; i < mj->nu; ++i) s.ctrl.push_back(u(rng) + 0.5);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || (std::strcmp(argv[1], "moreau") != 0 && std::strcmp(argv[1], "mujoco") != 0) ||
      (std::strcmp(argv[2], "transmission_actuation") != 0 && std::strcmp(argv[2], "forward") != 0)) {
    std::fprintf(stderr, "usage: moreau_stage_loop moreau|mujoco transmission_actuation|forward MODEL CALLS\n");
    return 2;
  }
  const Stage stage = std::strcmp(argv[2], "forward") == 0 ? kForward : kTransmissionActuation;
  const long calls = std::atol(argv[4]);
  char err[1000];
  mjModel* mj = mj_loadXML(argv[3], nullptr, err, sizeof(err));
  if (!mj) {
    std::fprintf(stderr, "%s\n", err);
    return 1;
  }
  const State s = make_state(mj);
  if (std::strcmp(argv[1], "mujoco") == 0) {
    mjData* md = mj_makeData(mj);
    std::copy(s.qpos.begin(), s.qpos.end(), md->qpos);
    std::copy(s.qvel.begin(), s.qvel.end(), md->qvel);
    std::copy(s.ctrl.begin(), s.ctrl.end(), md->ctrl);
    mj_forward(mj, md);
    profiled_calls(mj, md, stage, calls);
    uint64_t h = checksum(md->qfrc_actuator, mj->nv);
    h = checksum(md->actuator_force, mj->nu, h);
    h = checksum(md->ten_length, mj->ntendon, h);
    h = checksum(md->ten_J, mj->ntendon * mj->nv, h);
    h = checksum(md->actuator_length, mj->nu, h);
    h = checksum(md->actuator_moment, mj->nu * mj->nv, h);
    std::printf("mujoco %s checksum %016llx\n", argv[2], static_cast<unsigned long long>(h));
    mj_deleteData(md);
    mj_deleteModel(mj);
    return 0;
  }
  try {
    moreau::Model m = moreau::load_model(argv[3]);
    moreau::Data d = moreau::make_data(m);
    if (m.nq != mj->nq || m.nv != mj->nv || m.nu != mj->nu) {
      std::fprintf(stderr, "models differ in size\n");
      return 1;
    }
    std::copy(s.qpos.begin(), s.qpos.end(), d.qpos.begin());
    std::copy(s.qvel.begin(), s.qvel.end(), d.qvel.begin());
    std::copy(s.ctrl.begin(), s.ctrl.end(), d.ctrl.begin());
    moreau::forward(m, d);
    profiled_calls(m, d, stage, calls);
    uint64_t h = checksum(d.qfrc_actuator.data(), m.nv);
    h = checksum(d.actuator_force.data(), m.nu, h);
    h = checksum(d.ten_length.data(), m.ntendon, h);
    h = checksum(d.ten_J.data(), m.ntendon * m.nv, h);
    h = checksum(d.actuator_length.data(), m.nu, h);
    h = checksum(d.actuator_moment.data(), m.nu * m.nv, h);
    std::printf("moreau %s checksum %016llx\n", argv[2], static_cast<unsigned long long>(h));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  mj_deleteModel(mj);
  return 0;
}

// The largest stable timestep of each integrator on stiff-contact scenes (docs/notes/derivatives.md).
//
//   moreau_stable_timestep [--seconds T] [--scene NAME]...
//
// Scenes: four 1 kg boxes (three on a plane, one stacked) and the bundled humanoid lying on the
// floor (after 3 s of falling from its standing keyframe) and standing (its keyframe, falling),
// all with solref 0.005 and refsafe disabled (so that the time constant stays 0.005 at every
// timestep); and the humanoid lying with the model's own contact parameters (solref 0.02, refsafe
// on: the time constant is max(0.02, 2h)).
//
// A run at timestep h is stable when, over T seconds (default 2) from the scene's start state with
// zero controls:
//   - no step diverges (no bad qpos/qvel/qacc warning, every velocity finite and below 1e3);
//   - the penetration of every contact stays below 1 cm;
//   - the mechanical energy (kinetic + gravitational) never exceeds its start value by more than
//     the energy of lifting the whole scene 1 cm (total mass x |g| x 0.01 m).
// The largest stable h: timesteps 1e-4 x 2^(k/4) (k = 0, 1, ..., up to 0.1) are run in increasing
// order up to the first unstable one; the boundary between it and the last stable one is refined by
// 6 bisections in log h. The table gives the largest stable h found and the criterion that failed
// first at the next larger h.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

using namespace moreau;

const char* kBoxes = R"(<mujoco model="stiff boxes">
  <option timestep="0.002"><flag refsafe="disable"/></option>
  <default><geom solref="0.005 1"/></default>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="-0.5 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
    <body pos="0.5 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
    <body pos="0 0 0.3"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
  </worldbody>
</mujoco>)";

struct Scene {
  std::string name;
  Model m;
  std::vector<double> qpos, qvel;  // start state
};

void stiffen(Model& m) {
  for (int g = 0; g < m.ngeom; ++g) m.geom_solref[kNREF * g] = 0.005, m.geom_solref[kNREF * g + 1] = 1;
  m.opt.disableflags |= kDsblRefsafe;
}

// The humanoid lying: 3 s of falling from its standing keyframe (Euler, h = 0.5 ms).
Data fallen(const Model& model) {
  Model mf = model;
  mf.opt.integrator = kIntEuler;
  mf.opt.timestep = 5e-4;
  Data d = make_data(mf);
  reset_data_keyframe(mf, d, 0);
  for (int i = 0; i < 6000; ++i) step(mf, d);
  return d;
}

std::vector<Scene> scenes(const std::string& humanoid) {
  std::vector<Scene> s;
  {
    Model m = load_model_from_string(kBoxes);
    s.push_back({"4 boxes resting (3 on the plane, 1 stacked)", m, {}, {}});
  }
  {
    Model m = load_model(humanoid);
    stiffen(m);
    const Data lying = fallen(m);
    s.push_back({"humanoid lying", m, std::vector<double>(lying.qpos.begin(), lying.qpos.end()),
                 std::vector<double>(lying.qvel.begin(), lying.qvel.end())});
    Data standing = make_data(m);
    reset_data_keyframe(m, standing, 0);
    s.push_back({"humanoid standing (falls)", m,
                 std::vector<double>(standing.qpos.begin(), standing.qpos.end()), {}});
  }
  {
    const Model m = load_model(humanoid);
    const Data lying = fallen(m);
    s.push_back({"humanoid lying, the model's solref 0.02, refsafe on", m,
                 std::vector<double>(lying.qpos.begin(), lying.qpos.end()),
                 std::vector<double>(lying.qvel.begin(), lying.qvel.end())});
  }
  return s;
}

// "" when stable, else the criterion that failed first.
std::string run(const Scene& sc, int integrator, double h, double seconds) {
  Model m = sc.m;
  m.opt.integrator = integrator;
  m.opt.timestep = h;
  m.opt.enableflags |= kEnblEnergy;
  Data d = make_data(m);
  reset_data(m, d);
  if (!sc.qpos.empty()) std::copy(sc.qpos.begin(), sc.qpos.end(), d.qpos.begin());
  if (!sc.qvel.empty()) std::copy(sc.qvel.begin(), sc.qvel.end(), d.qvel.begin());
  forward(m, d);
  const double e0 = d.energy[0] + d.energy[1];
  const double g = std::sqrt(m.opt.gravity[0] * m.opt.gravity[0] + m.opt.gravity[1] * m.opt.gravity[1] +
                             m.opt.gravity[2] * m.opt.gravity[2]);
  const double etol = total_mass(m) * g * 0.01;
  const long n = std::lround(seconds / h);
  for (long i = 0; i < n; ++i) {
    step(m, d);
    if (d.warning[kWarnBadQacc].number || d.warning[kWarnBadQvel].number || d.warning[kWarnBadQpos].number)
      return "diverged";
    for (int k = 0; k < m.nv; ++k)
      if (!(std::abs(d.qvel[k]) < 1e3)) return "diverged";
    // energy and contacts of the state after the step are computed by the next step's forward
    if (d.energy[0] + d.energy[1] > e0 + etol) return "energy";
    for (int c = 0; c < d.ncon; ++c)
      if (d.contact[c].dist < -0.01) return "penetration";
  }
  return "";
}

struct Result {
  double h = 0;       // largest stable timestep found (0: none)
  std::string fail;   // criterion failing at the next larger one ("" if none failed)
};

Result largest_stable(const Scene& sc, int integrator, double seconds) {
  Result r;
  double lo = 0, hi = 0;
  for (int k = 0;; ++k) {
    const double h = 1e-4 * std::pow(2.0, k / 4.0);
    if (h > 0.1 + 1e-12) return {lo, ""};
    const std::string f = run(sc, integrator, h, seconds);
    if (!f.empty()) {
      hi = h, r.fail = f;
      break;
    }
    lo = h;
  }
  if (lo == 0) return {0, r.fail};
  for (int i = 0; i < 6; ++i) {
    const double mid = std::sqrt(lo * hi);
    const std::string f = run(sc, integrator, mid, seconds);
    if (f.empty()) lo = mid;
    else hi = mid, r.fail = f;
  }
  r.h = lo;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2;
  std::vector<std::string> only;
  std::string humanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--scene") && i + 1 < argc) only.push_back(argv[++i]);
    else {
      std::fprintf(stderr, "usage: moreau_stable_timestep [--seconds T] [--scene SUBSTRING]...\n");
      return 2;
    }
  }
  if (!(seconds > 0)) {
    std::fprintf(stderr, "moreau_stable_timestep: --seconds must be a positive number\n");
    return 2;
  }
  try {
    const std::vector<Scene> all = scenes(humanoid);
    const int integ[] = {kIntEuler, kIntImplicit, kIntImplicitFast, kIntImplicitCon};
    std::printf("| scene | Euler | implicit | implicitfast | implicitcon |\n|---|---|---|---|---|\n");
    for (const Scene& sc : all) {
      bool pick = only.empty();
      for (const std::string& o : only) pick = pick || sc.name.find(o) != std::string::npos;
      if (!pick) continue;
      std::printf("| %s |", sc.name.c_str());
      for (const int i : integ) {
        const Result r = largest_stable(sc, i, seconds);
        if (r.h == 0) std::printf(" < 1e-4 (%s) |", r.fail.c_str());
        else if (r.fail.empty()) std::printf(" >= %.3g |", r.h);
        else std::printf(" %.3g (%s) |", r.h, r.fail.c_str());
        std::fflush(stdout);
      }
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

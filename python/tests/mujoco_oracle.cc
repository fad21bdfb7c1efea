// Test-only module: MuJoCo 2.2.2 on a model file and a state, for the Python differential tests.
// It links MuJoCo (an oracle, never part of the package) and exposes three calls that return plain
// NumPy arrays: forward, inverse and a rollout of step.
#include <mujoco/mujoco.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

namespace py = pybind11;

namespace {

struct Oracle {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  explicit Oracle(const std::string& path) {
    char err[1000] = "";
    m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
    if (!m) throw std::runtime_error("MuJoCo 2.2.2 cannot load " + path + ": " + err);
    d = mj_makeData(m);
  }
  ~Oracle() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;
};

template <class T>
py::array_t<double> copy(const T* p, std::vector<py::ssize_t> shape) {
  py::array_t<double> a(shape);
  for (py::ssize_t i = 0; i < a.size(); ++i) a.mutable_data()[i] = static_cast<double>(p[i]);
  return a;
}

void set(double* dst, py::handle src, int n) {
  if (src.is_none()) return;
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(src);
  if (a.size() != n) throw std::runtime_error("oracle: wrong size");
  std::copy_n(a.data(), n, dst);
}

// Load the state (None keeps the reset value).
void load_state(Oracle& o, py::dict s) {
  mj_resetData(o.m, o.d);
  auto get = [&](const char* k) -> py::object { if (s.contains(k)) return s[k]; return py::none(); };
  set(o.d->qpos, get("qpos"), o.m->nq);
  set(o.d->qvel, get("qvel"), o.m->nv);
  set(o.d->act, get("act"), o.m->na);
  set(o.d->ctrl, get("ctrl"), o.m->nu);
  set(o.d->qfrc_applied, get("qfrc_applied"), o.m->nv);
  set(o.d->qacc, get("qacc"), o.m->nv);
}

py::dict results(Oracle& o) {
  const mjModel* m = o.m;
  const mjData* d = o.d;
  py::dict r;
  r["qacc"] = copy(d->qacc, {m->nv});
  r["qfrc_bias"] = copy(d->qfrc_bias, {m->nv});
  r["qfrc_constraint"] = copy(d->qfrc_constraint, {m->nv});
  r["qfrc_inverse"] = copy(d->qfrc_inverse, {m->nv});
  r["xpos"] = copy(d->xpos, {m->nbody, 3});
  r["xquat"] = copy(d->xquat, {m->nbody, 4});
  r["sensordata"] = copy(d->sensordata, {m->nsensordata});
  r["actuator_force"] = copy(d->actuator_force, {m->nu});
  r["ncon"] = d->ncon;
  r["nefc"] = d->nefc;
  std::vector<double> dist(d->ncon);
  for (int i = 0; i < d->ncon; ++i) dist[i] = d->contact[i].dist;
  r["contact_dist"] = copy(dist.data(), {d->ncon});
  r["efc_force"] = copy(d->efc_force, {d->nefc});
  return r;
}

}  // namespace

PYBIND11_MODULE(_mujoco_oracle, mod) {
  mod.doc() = "MuJoCo 2.2.2 as a test oracle (test-only; never part of the moreau package).";
  mod.def("forward", [](const std::string& path, py::dict state) {
    Oracle o(path);
    load_state(o, state);
    mj_forward(o.m, o.d);
    return results(o);
  });
  mod.def("inverse", [](const std::string& path, py::dict state) {
    Oracle o(path);
    load_state(o, state);
    mj_inverse(o.m, o.d);
    return results(o);
  });
  // nstep steps from keyframe 0 (or qpos0), zero controls: final qpos, qvel.
  mod.def("rollout", [](const std::string& path, int nstep) {
    Oracle o(path);
    mj_resetData(o.m, o.d);
    if (o.m->nkey > 0) mj_resetDataKeyframe(o.m, o.d, 0);
    for (int i = 0; i < nstep; ++i) mj_step(o.m, o.d);
    py::dict r;
    r["qpos"] = copy(o.d->qpos, {o.m->nq});
    r["qvel"] = copy(o.d->qvel, {o.m->nv});
    r["time"] = o.d->time;
    return r;
  });
}

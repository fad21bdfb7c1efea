// Batch rollouts from Python (include/moreau/rollout.h): moreau.rollout(...) and the persistent
// moreau.Rollout pool. Inputs are checked and copied into C-contiguous float64 arrays while the GIL
// is held; the rollouts run with the GIL released and write into new NumPy arrays.
#include <thread>

#include "bind.h"

namespace moreau::python {
namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::string dims_text(const std::vector<std::string>& names, const std::vector<py::ssize_t>& sizes) {
  std::string n = "(", s = "(";
  for (size_t i = 0; i < names.size(); ++i) {
    n += (i ? ", " : "") + names[i];
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return n + (names.size() == 1 ? ",)" : ")") + " = " + s + (sizes.size() == 1 ? ",)" : ")");
}

std::string shape_of(const py::array& a) {
  std::vector<py::ssize_t> s(a.shape(), a.shape() + a.ndim());
  return shape_text(s);
}

Array as_float64(const char* name, py::handle obj) {
  Array a = Array::ensure(obj);  // null (error cleared) when obj does not convert
  if (!a) throw py::type_error(std::string("rollout: ") + name + " must be an array of numbers");
  return a;
}

// The inputs of one batch, owned (so that the spans stay valid without the GIL).
struct Batch {
  std::vector<std::shared_ptr<Model>> keep;  // per-rollout models (empty: the pool's)
  std::vector<const Model*> models;
  Array x0, ctrl, qfrc, xfrc;
  RolloutArgs args;
};

// A per-step input: (B, T, n), or (T, n) for every rollout; None -> empty.
Array per_step(const char* name, py::handle obj, py::ssize_t B, py::ssize_t T, py::ssize_t n, const char* nname) {
  if (obj.is_none()) return Array();
  Array a = as_float64(name, obj);
  const std::vector<std::string> names3 = {"B", "T", nname}, names2 = {"T", nname};
  if (a.ndim() == 3 && a.shape(0) == B && a.shape(1) == T && a.shape(2) == n) return a;
  if (a.ndim() == 2 && a.shape(0) == T && a.shape(1) == n) {  // the same sequence for every rollout
    Array full({B, T, n});
    const size_t block = static_cast<size_t>(T) * n;
    for (py::ssize_t b = 0; b < B; ++b) std::copy_n(a.data(), block, full.mutable_data() + b * block);
    return full;
  }
  throw py::value_error(std::string("rollout: ") + name + " has shape " + shape_of(a) + ", expected " +
                        dims_text(names3, {B, T, n}) + " or " + dims_text(names2, {T, n}));
}

// Checks and copies the arguments of a batch of `m` (the pool's or the first per-rollout model).
Batch prepare(const Model& m, py::handle models, py::handle initial_state, py::handle control,
              std::optional<long long> nstep, long long spec_in, py::handle qfrc_applied, py::handle xfrc_applied) {
  Batch batch;
  if (spec_in < 0 || spec_in >= (1ll << kNState))
    throw py::value_error("rollout: state_spec " + std::to_string(spec_in) + " has bits beyond moreau.State");
  const unsigned spec = static_cast<unsigned>(spec_in);
  const py::ssize_t nstate = state_size(m, spec);

  batch.x0 = as_float64("initial_state", initial_state);
  if (batch.x0.ndim() == 1) batch.x0 = batch.x0.reshape({py::ssize_t{1}, batch.x0.shape(0)});
  if (batch.x0.ndim() != 2 || batch.x0.shape(1) != nstate)
    throw py::value_error("rollout: initial_state has shape " + shape_of(batch.x0) + ", expected (B, nstate) = (B, " +
                          std::to_string(nstate) + ") for state_spec " + std::to_string(spec) +
                          " (moreau.state_size(m, state_spec))");
  const py::ssize_t B = batch.x0.shape(0);

  if (!models.is_none()) {
    for (py::handle h : models) {
      if (!py::isinstance<Model>(h)) throw py::type_error("rollout: every element of the models must be a moreau.Model");
      batch.keep.push_back(h.cast<std::shared_ptr<Model>>());
      batch.models.push_back(batch.keep.back().get());
    }
    if (static_cast<py::ssize_t>(batch.models.size()) != B)
      throw py::value_error("rollout: " + std::to_string(batch.models.size()) + " models for " + std::to_string(B) +
                            " initial states, expected one model per rollout");
  }

  py::ssize_t T;
  if (nstep) {
    if (*nstep < 0) throw py::value_error("rollout: nstep is " + std::to_string(*nstep) + ", expected >= 0");
    T = static_cast<py::ssize_t>(*nstep);
  } else if (!control.is_none()) {
    const Array c = as_float64("control", control);
    if (c.ndim() < 2)
      throw py::value_error("rollout: control has shape " + shape_of(c) + ", expected (B, T, nu) or (T, nu)");
    T = c.shape(c.ndim() - 2);
  } else {
    throw py::value_error("rollout: nstep is required when control is None");
  }
  batch.ctrl = per_step("control", control, B, T, m.nu, "nu");
  batch.qfrc = per_step("qfrc_applied", qfrc_applied, B, T, m.nv, "nv");
  batch.xfrc = per_step("xfrc_applied", xfrc_applied, B, T, 6 * m.nbody, "6*nbody");

  RolloutArgs& a = batch.args;
  a.nbatch = static_cast<int>(B);
  a.nstep = static_cast<int>(T);
  a.spec = spec;
  a.initial_state = {batch.x0.data(), static_cast<size_t>(batch.x0.size())};
  if (batch.ctrl) a.ctrl = {batch.ctrl.data(), static_cast<size_t>(batch.ctrl.size())};
  if (batch.qfrc) a.qfrc_applied = {batch.qfrc.data(), static_cast<size_t>(batch.qfrc.size())};
  if (batch.xfrc) a.xfrc_applied = {batch.xfrc.data(), static_cast<size_t>(batch.xfrc.size())};
  return batch;
}

// Runs `batch` on `pool` (GIL released) and returns (state, sensordata[, warnings]).
py::tuple execute(const Model& m, Rollout& pool, Batch& batch, bool want_sensordata, bool want_warnings,
                  bool want_final) {
  RolloutArgs& a = batch.args;
  const py::ssize_t B = a.nbatch, T = a.nstep, ns = state_size(m, a.spec);
  py::array_t<double> state({B, T, ns});
  a.state = {state.mutable_data(), static_cast<size_t>(state.size())};
  py::object sens = py::none();
  if (want_sensordata) {
    py::array_t<double> s({B, T, static_cast<py::ssize_t>(m.nsensordata)});
    a.sensordata = {s.mutable_data(), static_cast<size_t>(s.size())};
    sens = s;
  }
  py::array_t<int> warn({B, static_cast<py::ssize_t>(kNWarning)});
  a.warning = {warn.mutable_data(), static_cast<size_t>(warn.size())};
  py::array_t<double> final_sens;
  if (want_final) {
    final_sens = py::array_t<double>({B, static_cast<py::ssize_t>(m.nsensordata)});
    a.final_sensordata = {final_sens.mutable_data(), static_cast<size_t>(final_sens.size())};
  }
  check_rollout_args(m, a);
  {
    py::gil_scoped_release nogil;
    if (batch.models.empty()) pool.run(a);
    else pool.run(batch.models, a);
  }
  py::list out;
  out.append(state);
  out.append(sens);
  if (want_warnings) out.append(warn);
  if (want_final) out.append(final_sens);
  return py::tuple(out);
}

int default_threads(std::optional<int> nthread, long long B) {
  if (nthread) {
    if (*nthread < 1) throw py::value_error("rollout: nthread is " + std::to_string(*nthread) + ", expected >= 1");
    return *nthread;
  }
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<long long>(1, std::min<long long>(hw, B)));
}

// The persistent pool as Python sees it: the pool and the Model it keeps alive.
struct PyRollout {
  std::shared_ptr<Model> model;
  std::unique_ptr<Rollout> pool;

  Rollout& get() {
    if (!pool) throw std::runtime_error("Rollout: the pool is closed");
    return *pool;
  }
  void close() {
    if (!pool) return;
    py::gil_scoped_release nogil;  // a run of another Python thread may still hold the pool
    pool.reset();
  }
};

constexpr const char* kRunDoc = R"doc(Run a batch of rollouts; returns (state, sensordata), NumPy arrays shaped (B, T, nstate) and
(B, T, nsensordata) (sensordata None unless sensordata=True), followed by warnings (B, number of
moreau.Warning values) int32 counts when warnings=True, then by the final state's sensors
(B, nsensordata) when final_sensordata=True (position and velocity stages rerun on the final state,
as mj_step1; nstep=0 gives the initial states' sensors).

initial_state: (B, nstate) or (nstate,) in the layout of moreau.get_state(m, d, state_spec).
control: optional (B, T, nu) or (T, nu) (the same for every rollout), set as ctrl before each step.
nstep: T; default the control's T. qfrc_applied: (B, T, nv) or (T, nv); xfrc_applied: (B, T, 6*nbody)
or (T, 6*nbody). models: optional sequence of B Models of the same sizes (rollout b on models[b]).

Each rollout starts from reset_data, then set_state(state_spec, initial_state[b]); components outside
the spec keep their reset values, inputs inside it and not given per step stay constant. State row t
is the state after step t+1, sensordata row t what that step computed. A NaN/Inf in a state is reset
by the engine's divergence check and counted in warnings (rows: what the steps produced). The result
is bitwise the serial loop's, for any thread count. The GIL is released while the rollouts run.)doc";

// The environments of VecEnv: n whole simulation states of one Model, continued in place by a
// moreau.Rollout pool. Where they live depends on the solver. The soft solvers keep nothing between
// steps beyond the integration state (qacc_warmstart included), so each env is one row of
// kStateIntegration and a step runs on the pool's own Data (set_state, step, get_state): one hot
// Data per thread instead of n cold ones, which is most of the cost of small models. The
// hard-contact solvers warm-start from the previous step's contact impulses kept in the Data, so
// for them each env keeps a Data of its own. Either way env i's trajectory is bitwise a loop of step
// on one Data; the state moves between the two forms when the solver changes.
struct EnvBatch {
  std::shared_ptr<Model> model;
  int n = 0;
  int nint = 0;                 // state_size(kStateIntegration)
  std::vector<double> states;   // n x nint, the truth unless in_datas
  std::vector<Data> datas;      // made on first need
  bool in_datas = false;
  Data scratch;                 // conversions between state specs

  static bool solver_keeps_state(const Model& m) { return m.opt.solver >= kSolverRaisim; }

  void check(long long i) const {
    if (i < 0 || i >= n)
      throw py::index_error("EnvBatch: index " + std::to_string(i) + " out of range [0, " + std::to_string(n) + ")");
  }
  double* row(long long i) { return states.data() + static_cast<size_t>(i) * nint; }

  void to_datas() {
    if (in_datas) return;
    // Datas made now start as a loop's Data that never ran a hard-contact solver; Datas kept from
    // an earlier hard-contact phase keep that phase's warm start, as a loop's Data would
    if (datas.empty()) {
      datas.reserve(n);
      for (int i = 0; i < n; ++i) datas.push_back(make_data(*model));
    }
    for (int i = 0; i < n; ++i) set_state(*model, datas[i], kStateIntegration, row(i));
    in_datas = true;
  }
  void to_states() {
    if (!in_datas) return;
    for (int i = 0; i < n; ++i) get_state(*model, datas[i], kStateIntegration, row(i));
    in_datas = false;
  }

  // The reset Data with env i's state, in `scratch` (states form) or env i's own Data.
  const Data& view(long long i) {
    check(i);
    if (in_datas) return datas[i];
    reset_data(*model, scratch);
    set_state(*model, scratch, kStateIntegration, row(i));
    return scratch;
  }
};

}  // namespace

void bind_rollout(py::module_& mod) {
  py::class_<PyRollout>(mod, "Rollout", R"doc(A persistent pool of nthread worker threads, each with its own Data made once, for repeated
batches of rollouts of one Model (moreau/rollout.h): run() starts no thread and makes no Data.
Use as a context manager or call close(); the pool keeps its Model alive.)doc")
      .def(py::init([](std::shared_ptr<Model> m, std::optional<int> nthread) {
             auto r = std::make_unique<PyRollout>();
             const int n = default_threads(nthread, std::numeric_limits<int>::max());
             r->model = m;
             r->pool = std::make_unique<Rollout>(*m, n);
             return r;
           }),
           py::arg("m"), py::arg("nthread") = py::none(),
           "A pool for model m with nthread threads (default: the number of cores).")
      .def(
          "run",
          [](PyRollout& self, py::handle initial_state, py::handle control, std::optional<long long> nstep,
             long long state_spec, bool sensordata, py::handle qfrc_applied, py::handle xfrc_applied,
             py::handle models, bool warnings, bool final_sensordata) {
            Rollout& pool = self.get();
            Batch batch = prepare(*self.model, models, initial_state, control, nstep, state_spec, qfrc_applied,
                                  xfrc_applied);
            return execute(*self.model, pool, batch, sensordata, warnings, final_sensordata);
          },
          py::arg("initial_state"), py::arg("control") = py::none(), py::arg("nstep") = py::none(),
          py::arg("state_spec") = static_cast<long long>(kStateFullPhysics), py::arg("sensordata") = false,
          py::arg("qfrc_applied") = py::none(), py::arg("xfrc_applied") = py::none(), py::arg("models") = py::none(),
          py::arg("warnings") = false, py::arg("final_sensordata") = false, kRunDoc)
      .def("close", &PyRollout::close, "Stop the worker threads and free the Datas (idempotent).")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyRollout& self, py::args) { self.close(); })
      .def_property_readonly("nthread", [](PyRollout& self) { return self.get().nthread(); })
      .def_property_readonly("model", [](PyRollout& self) { return self.model; })
      .def_property_readonly("closed", [](PyRollout& self) { return !self.pool; });
  // __call__ is run
  mod.attr("Rollout").attr("__call__") = mod.attr("Rollout").attr("run");

  mod.def(
      "rollout",
      [](py::handle model_or_models, py::handle initial_state, py::handle control, std::optional<long long> nstep,
         std::optional<int> nthread, long long state_spec, bool sensordata, py::handle qfrc_applied,
         py::handle xfrc_applied, bool warnings, bool final_sensordata) {
        std::shared_ptr<Model> m;
        py::handle models = py::none();
        if (py::isinstance<Model>(model_or_models)) {
          m = model_or_models.cast<std::shared_ptr<Model>>();
        } else {
          models = model_or_models;
          py::sequence seq = py::reinterpret_borrow<py::sequence>(model_or_models);
          if (!py::isinstance<py::sequence>(model_or_models) || py::len(seq) == 0 || !py::isinstance<Model>(seq[0]))
            throw py::type_error("rollout: the first argument must be a moreau.Model or a non-empty sequence of them");
          m = seq[0].cast<std::shared_ptr<Model>>();
        }
        Batch batch = prepare(*m, models, initial_state, control, nstep, state_spec, qfrc_applied, xfrc_applied);
        const int n = default_threads(nthread, batch.args.nbatch);
        std::unique_ptr<Rollout> pool;
        {
          py::gil_scoped_release nogil;
          pool = std::make_unique<Rollout>(*m, n);
        }
        py::tuple result = execute(*m, *pool, batch, sensordata, warnings, final_sensordata);
        {
          py::gil_scoped_release nogil;
          pool.reset();
        }
        return result;
      },
      py::arg("model_or_models"), py::arg("initial_state"), py::arg("control") = py::none(),
      py::arg("nstep") = py::none(), py::arg("nthread") = py::none(),
      py::arg("state_spec") = static_cast<long long>(kStateFullPhysics), py::arg("sensordata") = false,
      py::arg("qfrc_applied") = py::none(), py::arg("xfrc_applied") = py::none(), py::arg("warnings") = false,
      py::arg("final_sensordata") = false,
      (std::string("Batch rollouts of one Model (or one per rollout: a sequence of B Models of the same sizes) on\n"
                   "nthread threads (default: min(B, cores)); a pool made for this call. For repeated calls use\n"
                   "moreau.Rollout. ") +
       kRunDoc)
          .c_str());
  py::class_<EnvBatch>(mod, "EnvBatch", R"doc(n whole simulation states of one Model, continued together by a moreau.Rollout pool: integration
states run on the pool's Datas for the soft solvers, a Data per env for the hard-contact solvers
(their warm start lives in the Data). Env i's trajectory is bitwise a loop of step on one Data.
The state of moreau.VecEnv's environments.)doc")
      .def(py::init([](std::shared_ptr<Model> m, int n) {
             if (n < 0) throw py::value_error("EnvBatch: n is " + std::to_string(n) + ", expected >= 0");
             auto e = std::make_unique<EnvBatch>();
             e->model = m;
             e->n = n;
             e->nint = state_size(*m, kStateIntegration);
             e->scratch = make_data(*m);
             const std::vector<double> reset = get_state(*m, e->scratch, kStateIntegration);
             e->states.resize(static_cast<size_t>(n) * e->nint);
             for (int i = 0; i < n; ++i) std::copy(reset.begin(), reset.end(), e->row(i));
             return e;
           }),
           py::arg("m"), py::arg("n"))
      .def("__len__", [](const EnvBatch& e) { return e.n; })
      .def(
          "set_state",
          [](EnvBatch& e, long long i, py::handle state, long long spec) {
            e.check(i);
            if (spec < 0 || spec >= (1ll << kNState)) throw py::value_error("EnvBatch.set_state: bad spec");
            const unsigned sp = static_cast<unsigned>(spec);
            const int n = state_size(*e.model, sp);
            std::vector<double> buf(n);
            assign("EnvBatch.set_state: state", buf.data(), {n}, state);
            Data& d = e.in_datas ? e.datas[i] : e.scratch;
            reset_data(*e.model, d);
            set_state(*e.model, d, sp, buf.data());
            if (!e.in_datas) get_state(*e.model, d, kStateIntegration, e.row(i));
          },
          py::arg("i"), py::arg("state"), py::arg("spec"),
          "Reset Data i (reset_data), then set the components of spec from state.")
      .def(
          "get_state",
          [](EnvBatch& e, long long i, long long spec) {
            const unsigned sp = static_cast<unsigned>(spec);
            py::array_t<double> out(state_size(*e.model, sp));
            get_state(*e.model, e.view(i), sp, out.mutable_data());
            return out;
          },
          py::arg("i"), py::arg("spec"), "The components of spec of Data i.")
      .def(
          "step",
          [](EnvBatch& e, PyRollout& pool, py::handle control, long long nstep, long long spec, bool final_sensordata,
             py::handle index) {
            Rollout& r = pool.get();
            if (pool.model.get() != e.model.get()) throw py::value_error("EnvBatch.step: the pool is for another Model");
            std::vector<int> idx;
            if (index.is_none()) {
              idx.resize(e.n);
              for (int i = 0; i < e.n; ++i) idx[i] = i;
            } else {
              for (py::handle h : index) {
                const long long i = h.cast<long long>();
                e.check(i);
                idx.push_back(static_cast<int>(i));
              }
            }
            const py::ssize_t B = static_cast<py::ssize_t>(idx.size());
            if (nstep < 0) throw py::value_error("EnvBatch.step: nstep is " + std::to_string(nstep) + ", expected >= 0");
            if (spec < 0 || spec >= (1ll << kNState)) throw py::value_error("EnvBatch.step: bad spec");
            const py::ssize_t T = static_cast<py::ssize_t>(nstep);
            const Model& m = *e.model;
            Array ctrl = per_step("control", control, B, T, m.nu, "nu");
            const unsigned sp = static_cast<unsigned>(spec);
            const py::ssize_t ns = state_size(m, sp);
            py::array_t<double> state({B, T, ns});
            py::object final = py::none();
            RolloutArgs a;
            a.nbatch = static_cast<int>(B);
            a.nstep = static_cast<int>(T);
            if (ctrl) a.ctrl = {ctrl.data(), static_cast<size_t>(ctrl.size())};
            double* final_out = nullptr;
            if (final_sensordata) {
              py::array_t<double> f({B, static_cast<py::ssize_t>(m.nsensordata)});
              final_out = f.mutable_data();
              a.final_sensordata = {final_out, static_cast<size_t>(f.size())};
              final = f;
            }
            if (EnvBatch::solver_keeps_state(m)) {
              e.to_datas();
              std::vector<Data*> ptrs;
              for (int i : idx) ptrs.push_back(&e.datas[i]);
              a.spec = sp;
              a.state = {state.mutable_data(), static_cast<size_t>(state.size())};
              py::gil_scoped_release nogil;
              r.step(ptrs, a);
            } else {
              e.to_states();
              // the envs' integration states in, every step's integration state out
              const size_t ni = e.nint;
              std::vector<double> x0(static_cast<size_t>(B) * ni), rows(static_cast<size_t>(B) * T * ni);
              for (py::ssize_t b = 0; b < B; ++b) std::copy_n(e.row(idx[b]), ni, x0.data() + b * ni);
              // where the components of spec sit in an integration state, which holds every
              // component in bit order
              std::vector<std::pair<size_t, size_t>> pick;
              size_t from = 0;
              for (unsigned k = 0; k < kNState; ++k) {
                const unsigned bit = 1u << k;
                const size_t count = state_size(m, bit);
                if ((sp & bit) && count) pick.emplace_back(from, count);
                from += count;
              }
              a.spec = kStateIntegration;
              a.reuse_data = true;
              a.initial_state = x0;
              a.state = rows;
              if (T == 0) {
                // no step: the final stages alone, which renormalize quaternions in qpos; the
                // env keeps the state they leave, as its own Data would
                for (py::ssize_t b = 0; b < B && final_out; ++b) {
                  Data& d = e.scratch;
                  reset_data(m, d);
                  set_state(m, d, kStateIntegration, e.row(idx[b]));
                  step1(m, d);  // the final pass's stages (scratch has no control callback)
                  std::copy_n(d.sensordata.data(), m.nsensordata, final_out + b * m.nsensordata);
                  get_state(m, d, kStateIntegration, e.row(idx[b]));
                }
                return py::make_tuple(state, final);
              }
              {
                py::gil_scoped_release nogil;
                r.run(a);
                double* out = state.mutable_data();
                for (py::ssize_t b = 0; b < B; ++b) {
                  if (T > 0) std::copy_n(rows.data() + (b * T + T - 1) * ni, ni, e.row(idx[b]));
                  for (py::ssize_t t = 0; t < T; ++t) {
                    const double* x = rows.data() + (b * T + t) * ni;
                    double* o = out + (b * T + t) * ns;
                    for (const auto& [from, count] : pick) o = std::copy_n(x + from, count, o);
                  }
                }
              }
            }
            return py::make_tuple(state, final);
          },
          py::arg("pool"), py::arg("control"), py::arg("nstep"), py::arg("spec"), py::arg("final_sensordata") = false,
          py::arg("index") = py::none(),
          "Advance the Datas (or those of index) nstep steps in place on the pool's threads; control (B, T, nu)\n"
          "or None. Returns (state rows (B, T, nstate of spec), final sensors (B, nsensordata) or None).");

}

}  // namespace moreau::python

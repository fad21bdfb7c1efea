// Batch rollouts on a thread pool (include/moreau/rollout.h).
//
// The pool: nthread - 1 threads wait on a condition variable for a new batch (a generation
// counter); run() publishes the batch, wakes them and works as worker 0 itself, then waits until
// every worker has left the batch. Rollouts are taken from an atomic counter one at a time, so the
// assignment of rollouts to workers varies from run to run; the results do not, because every
// rollout starts from reset_data + set_state on the worker's Data and reset_data clears everything
// a step reads (including the hard-contact solvers' warm start).
#include "moreau/rollout.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {

namespace {

// "B x T x nu = 4 x 10 x 3 = 120"
std::string shape_text(const char* dims, std::initializer_list<long long> sizes) {
  std::string s = dims;
  long long total = 1;
  std::string nums;
  for (long long n : sizes) {
    nums += (nums.empty() ? "" : " x ") + std::to_string(n);
    total *= n;
  }
  return s + " = " + nums + " = " + std::to_string(total);
}

long long product(std::initializer_list<long long> sizes) {
  long long total = 1;
  for (long long n : sizes) total *= n;
  return total;
}

// A required array: exactly the product of `sizes` values.
void check_size(const char* name, size_t have, const char* dims, std::initializer_list<long long> sizes) {
  if (static_cast<long long>(have) != product(sizes))
    throw std::invalid_argument(std::string("rollout: ") + name + " has " + std::to_string(have) +
                                " values, expected " + shape_text(dims, sizes));
}

// An optional array: empty, or exactly the product of `sizes` values.
void check_optional(const char* name, size_t have, const char* dims, std::initializer_list<long long> sizes) {
  if (have != 0 && static_cast<long long>(have) != product(sizes))
    throw std::invalid_argument(std::string("rollout: ") + name + " has " + std::to_string(have) +
                                " values, expected none or " + shape_text(dims, sizes));
}

// Per-rollout models must lay out states, inputs and sensors as the pool's model does.
void check_same_sizes(const Model& ref, const Model& m, size_t index) {
  const struct {
    const char* name;
    int a, b;
  } sizes[] = {{"nq", ref.nq, m.nq},         {"nv", ref.nv, m.nv},
               {"na", ref.na, m.na},         {"nu", ref.nu, m.nu},
               {"nbody", ref.nbody, m.nbody}, {"nmocap", ref.nmocap, m.nmocap},
               {"neq", ref.neq, m.neq},      {"nuserdata", ref.nuserdata, m.nuserdata},
               {"nsensordata", ref.nsensordata, m.nsensordata}};
  for (const auto& s : sizes)
    if (s.a != s.b)
      throw std::invalid_argument("rollout: models[" + std::to_string(index) + "] has " + s.name + " = " +
                                  std::to_string(s.b) + ", expected " + std::to_string(s.a) +
                                  " (the batch's models must have the same sizes)");
}

void check_args(const Model& m, const RolloutArgs& a, bool in_place);

}  // namespace

void check_rollout_args(const Model& m, const RolloutArgs& a) { check_args(m, a, false); }

namespace {
// in_place: Rollout::step's batches, which take no initial states.
void check_args(const Model& m, const RolloutArgs& a, bool in_place) {
  if (a.nbatch < 0)
    throw std::invalid_argument("rollout: nbatch is " + std::to_string(a.nbatch) + ", expected >= 0");
  if (a.nstep < 0)
    throw std::invalid_argument("rollout: nstep is " + std::to_string(a.nstep) + ", expected >= 0");
  const long long B = a.nbatch, T = a.nstep;
  const long long nstate = state_size(m, a.spec);  // throws for unknown spec bits
  if (in_place) {
    if (!a.initial_state.empty())
      throw std::invalid_argument("rollout: initial_state has " + std::to_string(a.initial_state.size()) +
                                  " values, expected none (Rollout::step continues the Datas' own states)");
  } else {
    check_size("initial_state", a.initial_state.size(), "B x nstate", {B, nstate});
  }
  check_optional("ctrl", a.ctrl.size(), "B x T x nu", {B, T, m.nu});
  check_optional("qfrc_applied", a.qfrc_applied.size(), "B x T x nv", {B, T, m.nv});
  check_optional("xfrc_applied", a.xfrc_applied.size(), "B x T x 6*nbody", {B, T, 6LL * m.nbody});
  check_optional("state", a.state.size(), "B x T x nstate", {B, T, nstate});
  check_optional("sensordata", a.sensordata.size(), "B x T x nsensordata", {B, T, m.nsensordata});
  check_optional("warning", a.warning.size(), "B x kNWarning", {B, kNWarning});
  check_optional("final_sensordata", a.final_sensordata.size(), "B x nsensordata", {B, m.nsensordata});
}
}  // namespace

struct Rollout::Impl {
  const Model* model;
  int nthread;
  std::vector<Data> data;                 // per worker, made from *model
  std::vector<Data> other;                // per worker, made from other_model[w]
  std::vector<const Model*> other_model;  // per worker; reset at each batch
  std::vector<std::thread> threads;       // workers 1..nthread-1

  std::mutex run_mutex;  // one batch at a time

  // Batch hand-over, guarded by mu.
  std::mutex mu;
  std::condition_variable start_cv, done_cv;
  unsigned long generation = 0;
  bool stop = false;
  int active = 0;  // workers 1.. still in the current batch

  // The current batch (written by run() before the generation changes).
  const RolloutArgs* args = nullptr;
  std::span<const Model* const> models;
  std::span<Data* const> in_place;  // Rollout::step: the Datas to continue (empty: run)
  int nstate = 0;
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // the first exception of the batch, guarded by mu

  void worker_loop(int w) {
    unsigned long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu);
        start_cv.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
      }
      work(w);
      {
        std::lock_guard<std::mutex> lock(mu);
        if (--active == 0) done_cv.notify_one();
      }
    }
  }

  // Take rollouts until none is left (or one failed).
  void work(int w) {
    const int B = args->nbatch;
    while (!failed.load(std::memory_order_relaxed)) {
      const int b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= B) return;
      try {
        run_one(w, b);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  }

  // The Data worker w uses for a rollout of m.
  Data& data_for(int w, const Model& m) {
    if (&m == model) return data[w];
    if (other_model[w] != &m) {
      other[w] = make_data(m);
      other_model[w] = &m;
    }
    return other[w];
  }

  void run_one(int w, int b) {
    const RolloutArgs& a = *args;
    const Model& m = models.empty() ? *model : *models[b];
    const bool continuing = !in_place.empty();
    Data& d = continuing ? *in_place[b] : data_for(w, m);
    const size_t T = a.nstep, nu = m.nu, nv = m.nv, nx = 6 * static_cast<size_t>(m.nbody);
    const size_t ns = nstate, nsens = m.nsensordata;
    const bool whole = (a.spec & kStateIntegration) == kStateIntegration && m.opt.solver < kSolverRaisim;
    const bool reset = !continuing && !(a.reuse_data && whole);
    std::array<int, kNWarning> warnings_before{};
    if (!reset)
      for (int i = 0; i < kNWarning; ++i) warnings_before[i] = d.warning[i].number;
    if (reset) reset_data(m, d);
    if (!continuing) {
      d.control_callback = nullptr;
      set_state(m, d, a.spec, a.initial_state.data() + b * ns);
    }
    for (size_t t = 0; t < T; ++t) {
      const size_t row = b * T + t;
      if (!a.ctrl.empty()) std::copy_n(a.ctrl.data() + row * nu, nu, d.ctrl.data());
      if (!a.qfrc_applied.empty()) std::copy_n(a.qfrc_applied.data() + row * nv, nv, d.qfrc_applied.data());
      if (!a.xfrc_applied.empty()) std::copy_n(a.xfrc_applied.data() + row * nx, nx, d.xfrc_applied.data());
      moreau::step(m, d);
      if (!a.state.empty()) get_state(m, d, a.spec, a.state.data() + row * ns);
      if (!a.sensordata.empty()) std::copy_n(d.sensordata.data(), nsens, a.sensordata.data() + row * nsens);
    }
    if (!a.final_sensordata.empty()) {  // the position and velocity stages of step1, on the final state
      check_pos(m, d);
      check_vel(m, d);
      fwd_position(m, d);
      sensor_pos(m, d);
      fwd_velocity(m, d);
      sensor_vel(m, d);
      std::copy_n(d.sensordata.data(), nsens, a.final_sensordata.data() + b * nsens);
      // the position stage renormalizes quaternions in qpos: the last row is the state it left
      if (!a.state.empty() && T > 0) get_state(m, d, a.spec, a.state.data() + (b * T + T - 1) * ns);
    }
    if (!a.warning.empty())
      for (int i = 0; i < kNWarning; ++i)
        a.warning[static_cast<size_t>(b) * kNWarning + i] = d.warning[i].number - warnings_before[i];
  }

  void run_batch(std::span<const Model* const> batch_models, const RolloutArgs& a, bool step_datas = false,
                 std::span<Data* const> datas = {}) {
    check_args(*model, a, step_datas);
    if (step_datas) {
      if (datas.size() != static_cast<size_t>(a.nbatch))
        throw std::invalid_argument("rollout: " + std::to_string(datas.size()) + " Datas for nbatch = " +
                                    std::to_string(a.nbatch) + ", expected one per rollout");
      for (size_t i = 0; i < datas.size(); ++i) {
        if (!datas[i]) throw std::invalid_argument("rollout: datas[" + std::to_string(i) + "] is null");
        if (datas[i]->qpos.size() != static_cast<size_t>(model->nq) ||
            datas[i]->qvel.size() != static_cast<size_t>(model->nv) ||
            datas[i]->sensordata.size() != static_cast<size_t>(model->nsensordata) ||
            datas[i]->xpos.size() != 3 * static_cast<size_t>(model->nbody))
          throw std::invalid_argument("rollout: datas[" + std::to_string(i) + "] was not made for the pool's model");
      }
    }
    if (!batch_models.empty()) {
      if (batch_models.size() != static_cast<size_t>(a.nbatch))
        throw std::invalid_argument("rollout: " + std::to_string(batch_models.size()) + " models for " +
                                    std::to_string(a.nbatch) + " rollouts, expected one per rollout");
      for (size_t i = 0; i < batch_models.size(); ++i) {
        if (!batch_models[i]) throw std::invalid_argument("rollout: models[" + std::to_string(i) + "] is null");
        check_same_sizes(*model, *batch_models[i], i);
      }
    }
    if (a.nbatch == 0) return;
    std::lock_guard<std::mutex> run_lock(run_mutex);
    args = &a;
    models = batch_models;
    in_place = datas;
    nstate = state_size(*model, a.spec);
    next = 0;
    failed = false;
    error = nullptr;
    std::fill(other_model.begin(), other_model.end(), nullptr);
    // wake the other workers only when there is work for more than one
    const bool parallel = nthread > 1 && a.nbatch > 1;
    if (parallel) {
      std::lock_guard<std::mutex> lock(mu);
      active = nthread - 1;
      ++generation;
    }
    if (parallel) start_cv.notify_all();
    work(0);
    if (parallel) {
      std::unique_lock<std::mutex> lock(mu);
      done_cv.wait(lock, [&] { return active == 0; });
    }
    args = nullptr;
    models = {};
    in_place = {};
    if (error) std::rethrow_exception(error);
  }
};

Rollout::Rollout(const Model& m, int nthread) : impl_(std::make_unique<Impl>()) {
  if (nthread < 1) throw std::invalid_argument("Rollout: nthread is " + std::to_string(nthread) + ", expected >= 1");
  impl_->model = &m;
  impl_->nthread = nthread;
  impl_->data.reserve(nthread);
  for (int w = 0; w < nthread; ++w) impl_->data.push_back(make_data(m));
  impl_->other.resize(nthread);
  impl_->other_model.assign(nthread, nullptr);
  impl_->threads.reserve(nthread - 1);
  for (int w = 1; w < nthread; ++w) impl_->threads.emplace_back([this, w] { impl_->worker_loop(w); });
}

Rollout::~Rollout() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stop = true;
  }
  impl_->start_cv.notify_all();
  for (auto& t : impl_->threads) t.join();
}

void Rollout::run(const RolloutArgs& args) { impl_->run_batch({}, args); }

void Rollout::step(std::span<Data* const> datas, const RolloutArgs& args) {
  impl_->run_batch({}, args, true, datas);
}

void Rollout::run(std::span<const Model* const> models, const RolloutArgs& args) {
  if (models.empty() && args.nbatch > 0)
    throw std::invalid_argument("rollout: no models for " + std::to_string(args.nbatch) +
                                " rollouts, expected one per rollout");
  impl_->run_batch(models, args);
}

int Rollout::nthread() const { return impl_->nthread; }
const Model& Rollout::model() const { return *impl_->model; }

void rollout(const Model& m, const RolloutArgs& args, int nthread) {
  if (nthread < 1) throw std::invalid_argument("rollout: nthread is " + std::to_string(nthread) + ", expected >= 1");
  check_rollout_args(m, args);
  if (args.nbatch == 0) return;
  Rollout pool(m, std::max(1, std::min(nthread, args.nbatch)));
  pool.run(args);
}

void rollout(std::span<const Model* const> models, const RolloutArgs& args, int nthread) {
  if (models.size() != static_cast<size_t>(std::max(args.nbatch, 0)))
    throw std::invalid_argument("rollout: " + std::to_string(models.size()) + " models for " +
                                std::to_string(args.nbatch) + " rollouts, expected one per rollout");
  if (args.nbatch < 0)
    throw std::invalid_argument("rollout: nbatch is " + std::to_string(args.nbatch) + ", expected >= 0");
  if (nthread < 1) throw std::invalid_argument("rollout: nthread is " + std::to_string(nthread) + ", expected >= 1");
  if (models.empty()) return;  // B = 0: no model to check the other arrays against, nothing to do
  if (!models[0]) throw std::invalid_argument("rollout: models[0] is null");
  check_rollout_args(*models[0], args);
  Rollout pool(*models[0], std::max(1, std::min(nthread, args.nbatch)));
  pool.run(models, args);
}

}  // namespace moreau

// `moreau rollout --batch` (batch_rollout.h): parse every line, run the valid ones on the rollout
// pool in chunks (so that the stored trajectories stay within a fixed memory budget), print the
// selected rows in input order.
#include "batch_rollout.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <vector>

#include "jsonl.h"
#include "moreau/moreau.h"

namespace moreau::cli {
namespace {

// The components a start state has: the single rollout's start is a keyframe (time, qpos, qvel,
// act, ctrl, mocap) or the reset state, so these reproduce it exactly from reset_data.
constexpr unsigned kBatchSpec = kStateFullPhysics | kStateCtrl | kStateMocapPos | kStateMocapQuat;
// Stored state rows per chunk: at most this many doubles (512 MB).
constexpr size_t kChunkDoubles = size_t{1} << 26;

struct Line {
  long lineno = 0;
  int index = 0;                   // among the non-blank lines
  std::string error;               // non-empty: a bad line
  std::vector<double> x0;          // kBatchSpec state
  std::vector<double> ctrl_steps;  // T x nu, or empty (the constant ctrl of x0)
};

std::vector<double> numbers(const Json& a, const std::string& what, int n) {
  if (!a.is_array())
    throw std::invalid_argument("'" + what + "' must be an array of " + std::to_string(n) + " numbers");
  if (static_cast<int>(a.size()) != n)
    throw std::invalid_argument("'" + what + "' has " + std::to_string(a.size()) + " numbers, the model expects " +
                                std::to_string(n));
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) {
    if (!a[i].is_number())
      throw std::invalid_argument("'" + what + "'[" + std::to_string(i) + "] is not a number (" + a[i].dump() + ")");
    v[i] = a[i].get<double>();
    if (!std::isfinite(v[i]))
      throw std::invalid_argument("'" + what + "'[" + std::to_string(i) + "] is not finite");
  }
  return v;
}

// Fill line.x0 (from the start state `base`) and line.ctrl_steps from one JSON object.
void parse(const Model& m, const std::vector<double>& base, const Json& j, Line& line) {
  if (!j.is_object()) throw std::invalid_argument("each input line must be a JSON object");
  line.x0 = base;
  // offsets in the kBatchSpec layout: time, qpos, qvel, act, ctrl, mocap
  const int qpos = 1, qvel = qpos + m.nq, act = qvel + m.nv, ctrl = act + m.na;
  for (const auto& item : j.items()) {
    // named references, not structured bindings: clang 14 (the sanitizer build) cannot capture those
    const std::string& key = item.key();
    const Json& value = item.value();
    auto put = [&](int offset, int n) {
      const std::vector<double> v = numbers(value, key, n);
      std::copy(v.begin(), v.end(), line.x0.begin() + offset);
    };
    if (key == "time") {
      if (!value.is_number()) throw std::invalid_argument("'time' must be a number");
      line.x0[0] = value.get<double>();
    } else if (key == "qpos") {
      put(qpos, m.nq);
    } else if (key == "qvel") {
      put(qvel, m.nv);
    } else if (key == "act") {
      put(act, m.na);
    } else if (key == "ctrl") {
      if (value.is_array() && !value.empty() && value[0].is_array()) {
        for (size_t t = 0; t < value.size(); ++t) {
          const std::vector<double> v = numbers(value[t], "ctrl[" + std::to_string(t) + "]", m.nu);
          line.ctrl_steps.insert(line.ctrl_steps.end(), v.begin(), v.end());
        }
      } else {
        put(ctrl, m.nu);
      }
    } else {
      throw std::invalid_argument("unknown key '" + key + "' (expected time, qpos, qvel, act, ctrl)");
    }
  }
}

Json state_json(const Model& m, const double* x, int index) {
  auto slice = [&](int offset, int n) { return std::vector<double>(x + offset, x + offset + n); };
  return Json{{"rollout", index},
              {"time", x[0]},
              {"qpos", slice(1, m.nq)},
              {"qvel", slice(1 + m.nq, m.nv)},
              {"act", slice(1 + m.nq + m.nv, m.na)}};
}

}  // namespace

int batch_rollout(const std::string& model_path, const OptionOverrides& o, const BatchOptions& opt) {
  auto fail = [](const std::string& message) {
    std::cout << Json{{"error", message}}.dump() << std::endl;
    return 1;
  };
  Model m;
  try {
    m = load_model(model_path);
    apply_overrides(o, m);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (opt.threads < 1) return fail("--threads " + std::to_string(opt.threads) + ": expected >= 1");
  if (opt.key >= m.nkey)
    return fail("keyframe " + std::to_string(opt.key) + " does not exist (the model has " + std::to_string(m.nkey) + ")");

  // the single rollout's start
  Data d = make_data(m);
  const int key = opt.key >= 0 ? opt.key : (m.nkey > 0 ? 0 : -1);
  if (key >= 0) reset_data_keyframe(m, d, key);
  const std::vector<double> base = get_state(m, d, kBatchSpec);

  std::ifstream file;
  if (opt.file != "-") {
    file.open(opt.file);
    if (!file) return fail("cannot open the batch file '" + opt.file + "'");
  }
  std::istream& in = opt.file == "-" ? std::cin : file;

  std::vector<Line> lines;
  std::string text;
  long lineno = 0;
  int index = 0;
  while (std::getline(in, text)) {
    ++lineno;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    Line line;
    line.lineno = lineno;
    line.index = index++;
    try {
      parse(m, base, Json::parse(text), line);
    } catch (const std::exception& e) {
      line.error = e.what();
    }
    lines.push_back(std::move(line));
  }

  // T: --steps, else the per-step ctrl lists' length
  long T = opt.steps;
  for (Line& l : lines) {
    if (!l.error.empty() || l.ctrl_steps.empty()) continue;
    const long rows = static_cast<long>(l.ctrl_steps.size()) / std::max(m.nu, 1);
    if (T < 0) T = rows;
    if (rows != T)
      l.error = "'ctrl' has " + std::to_string(rows) + " steps, expected " + std::to_string(T) +
                (opt.steps >= 0 ? " (--steps)" : " (the first per-step ctrl's length)");
  }
  if (T < 0) {
    if (std::any_of(lines.begin(), lines.end(), [](const Line& l) { return l.error.empty(); }))
      return fail("--steps is required unless ctrl is given per step");
    T = 0;  // only bad lines (or none): their errors are printed below
  }
  if (T > std::numeric_limits<int>::max()) return fail("--steps " + std::to_string(T) + " is too large");

  const int ns = state_size(m, kBatchSpec), nu = m.nu;
  std::vector<const Line*> good;
  for (const Line& l : lines)
    if (l.error.empty()) good.push_back(&l);
  const bool per_step = std::any_of(good.begin(), good.end(), [](const Line* l) { return !l->ctrl_steps.empty(); });
  const size_t per_rollout = std::max<size_t>(1, static_cast<size_t>(T) * ns);
  const size_t chunk = std::max<size_t>(opt.threads, kChunkDoubles / per_rollout);

  int status = 0;
  Rollout pool(m, opt.threads);
  size_t next_line = 0;  // lines[next_line..] not printed yet
  auto print_errors_before = [&](long lineno_limit) {
    for (; next_line < lines.size() && lines[next_line].lineno < lineno_limit; ++next_line)
      if (!lines[next_line].error.empty()) {
        std::cout << Json{{"error", lines[next_line].error}, {"line", lines[next_line].lineno}}.dump() << '\n';
        status = 1;
      }
  };
  try {
    for (size_t first = 0; first < good.size(); first += chunk) {
      const int B = static_cast<int>(std::min(chunk, good.size() - first));
      std::vector<double> x0(static_cast<size_t>(B) * ns), ctrl, state(static_cast<size_t>(B) * T * ns);
      std::vector<int> warning(static_cast<size_t>(B) * kNWarning);
      if (per_step) ctrl.resize(static_cast<size_t>(B) * T * nu);
      for (int b = 0; b < B; ++b) {
        const Line& l = *good[first + b];
        std::copy(l.x0.begin(), l.x0.end(), x0.begin() + static_cast<size_t>(b) * ns);
        if (!per_step) continue;
        double* c = ctrl.data() + static_cast<size_t>(b) * T * nu;
        if (!l.ctrl_steps.empty()) std::copy(l.ctrl_steps.begin(), l.ctrl_steps.end(), c);
        else
          for (long t = 0; t < T; ++t) std::copy_n(l.x0.begin() + (1 + m.nq + m.nv + m.na), nu, c + t * nu);
      }
      RolloutArgs a;
      a.nbatch = B;
      a.nstep = static_cast<int>(T);
      a.spec = kBatchSpec;
      a.initial_state = x0;
      a.ctrl = ctrl;
      a.state = state;
      a.warning = warning;
      pool.run(a);
      for (int b = 0; b < B; ++b) {
        const Line& l = *good[first + b];
        print_errors_before(l.lineno);
        ++next_line;
        const int* w = warning.data() + static_cast<size_t>(b) * kNWarning;
        if (std::any_of(w, w + kNWarning, [](int n) { return n > 0; }))
          std::cerr << Json{{"rollout", l.index}, {"warnings", warning_counts(w)}}.dump() << std::endl;
        for (long i = 1; i <= T; ++i)
          if ((opt.every > 0 && i % opt.every == 0) || i == T)
            std::cout << state_json(m, state.data() + (static_cast<size_t>(b) * T + i - 1) * ns, l.index).dump() << '\n';
      }
    }
    print_errors_before(std::numeric_limits<long>::max());
  } catch (const std::exception& e) {
    std::cout.flush();
    return fail(e.what());
  }
  std::cout.flush();
  return status;
}

}  // namespace moreau::cli

// `moreau`: the command-line tool. Its contract (subcommands, JSON keys) is relied upon by scripts
// and tests; keep it stable. stdout carries pure JSON lines; warnings go to stderr.
//
//   moreau info MODEL
//   moreau forward MODEL [options] [--full] < states.jsonl
//   moreau inverse MODEL [options] < states.jsonl
//   moreau rollout MODEL --steps N [--every K] [--key I] [--metrics] [options]
//   moreau rollout MODEL --batch FILE [--threads N] [--steps N] [--every K] [--key I] [options]
//                                                   (batch_rollout.h)
//   moreau experiment NAME [--model MODEL] [--steps N] [--key I] [options]   (CSV; experiments.h)
//   moreau bench MODEL [--steps N] [options]
//   moreau simulate [MODEL] [--steps N] [options]     (human-readable summary; default model bundled)
//   moreau view MODEL [--host H] [--port P] [--unthrottled] [--open]      (runs python3 -m moreau.viewer)
//   moreau record MODEL [--steps N] -o replay.html [--every K] [--key I]  (runs python3 -m moreau.viewer)
//
// Exit codes: 0 success, 1 model or input error, 2 bad command line (every parse error included:
// CLI11's own codes are mapped to 2).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include <filesystem>

#include "batch_rollout.h"
#include "cli_options.h"
#include "experiments.h"
#include "jsonl.h"
#include "moreau/moreau.h"

namespace {

using moreau::cli::Json;
using moreau::cli::kExitBadCommand;
using moreau::cli::kExitBadInput;
using moreau::cli::UsageError;

constexpr const char* kExitCodes =
    "Exit codes: 0 success, 1 model or input error, 2 bad command line.";

void print_error(const std::string& message) {
  std::cout << Json{{"error", message}}.dump() << std::endl;
}

void add_physics_options(CLI::App* cmd, moreau::cli::OptionOverrides& o) {
  cmd->add_option("--disable", o.disable, "comma-separated MJCF flags to disable (e.g. contact,gravity)")->type_name("FLAGS");
  cmd->add_option("--enable", o.enable, "comma-separated MJCF flags to enable (e.g. energy)")->type_name("FLAGS");
  cmd->add_option("--solver", o.solver, "PGS, CG, Newton, raisim, raisim-ds, ncp-pgs, ccp, lcp")->type_name("NAME");
  cmd->add_option("--cone", o.cone, "pyramidal or elliptic")->type_name("NAME");
  cmd->add_option("--integrator", o.integrator, "Euler, RK4, implicit, implicitfast, implicitcon")->type_name("NAME");
  cmd->add_option("--jacobian", o.jacobian, "dense, sparse or auto")->type_name("NAME");
  cmd->add_option("--iterations", o.iterations, "maximum solver iterations (a non-negative integer)")->type_name("N");
  cmd->add_option("--tolerance", o.tolerance, "solver tolerance (a non-negative number)")->type_name("X");
  cmd->add_option("--timestep", o.timestep, "simulation timestep in s (a positive number)")->type_name("SECONDS");
  cmd->add_option("--impratio", o.impratio, "ratio of frictional to normal constraint impedance (a positive number)")
      ->type_name("X");
  cmd->add_option("--noslip-iterations", o.noslip_iterations, "noslip post-processor iterations (a non-negative integer)")
      ->type_name("N");
}

// Load the model and apply command-line overrides; on failure print {"error"} and return false.
bool load(const std::string& path, const moreau::cli::OptionOverrides& o, moreau::Model& m) {
  try {
    m = moreau::load_model(path);
    moreau::cli::apply_overrides(o, m);
    return true;
  } catch (const std::exception& e) {
    print_error(e.what());
    return false;
  }
}

// rollout and simulate report warnings as JSON lines themselves: the library's default handler
// (plain text to stderr) is silenced for them.
void silence_warning_handler() {
  moreau::set_warning_handler([](const char*) {});
}

void report_warnings(const moreau::Data& d, long step, std::array<int, moreau::kNWarning>& seen) {
  for (int i = 0; i < moreau::kNWarning; ++i) {
    if (d.warning[i].number != seen[i]) {
      Json w = moreau::cli::warnings(d);
      std::cerr << Json{{"step", step}, {"time", d.time}, {"warnings", w}}.dump() << std::endl;
      for (int k = 0; k < moreau::kNWarning; ++k) seen[k] = d.warning[k].number;
      return;
    }
  }
}

// forward / inverse: one output line per input line. A bad line gets {"error", "line"} and the
// exit code becomes 1, but later lines are still processed.
int run_lines(const std::string& path, const moreau::cli::OptionOverrides& o, bool inverse, bool full) {
  moreau::Model m;
  if (!load(path, o, m)) return kExitBadInput;
  moreau::Data d = moreau::make_data(m);
  int status = 0;
  std::string text;
  long lineno = 0;
  while (std::getline(std::cin, text)) {
    ++lineno;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      moreau::reset_data(m, d);
      const Json line = Json::parse(text);
      moreau::cli::read_state(m, d, line, inverse);
      if (inverse) {
        moreau::inverse(m, d);
        std::cout << moreau::cli::inverse_output(m, d).dump() << '\n';
      } else {
        moreau::forward(m, d);
        std::cout << moreau::cli::forward_output(m, d, full).dump() << '\n';
      }
    } catch (const std::exception& e) {
      std::cout << Json{{"error", e.what()}, {"line", lineno}}.dump() << '\n';
      status = kExitBadInput;
    }
  }
  std::cout.flush();
  return status;
}

Json state_line(const moreau::Data& d) {
  return Json{{"time", d.time}, {"qpos", d.qpos}, {"qvel", d.qvel}, {"act", d.act}};
}

bool start_state(const moreau::Model& m, moreau::Data& d, int key) {
  if (key >= m.nkey) {
    print_error("keyframe " + std::to_string(key) + " does not exist (the model has " +
                std::to_string(m.nkey) + ")");
    return false;
  }
  if (key < 0) key = m.nkey > 0 ? 0 : -1;
  if (key >= 0) moreau::reset_data_keyframe(m, d, key);
  else moreau::reset_data(m, d);
  return true;
}

int rollout(const std::string& path, const moreau::cli::OptionOverrides& o, long steps, long every, int key,
            bool metrics) {
  moreau::Model m;
  if (!load(path, o, m)) return kExitBadInput;
  moreau::Data d = moreau::make_data(m);
  if (!start_state(m, d, key)) return kExitBadInput;
  std::array<int, moreau::kNWarning> seen{};
  try {
    for (long i = 1; i <= steps; ++i) {
      moreau::step(m, d);
      report_warnings(d, i, seen);
      if ((every > 0 && i % every == 0) || i == steps) {
        Json line = state_line(d);
        if (metrics) moreau::cli::add_step_metrics(m, d, line);
        std::cout << line.dump() << '\n';
      }
    }
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitBadInput;
  }
  std::cout.flush();
  return 0;
}

int bench(const std::string& path, const moreau::cli::OptionOverrides& o, long steps, int key) {
  moreau::Model m;
  if (!load(path, o, m)) return kExitBadInput;
  moreau::Data d = moreau::make_data(m);
  if (!start_state(m, d, key)) return kExitBadInput;
  try {
    for (int i = 0; i < 100; ++i) moreau::step(m, d);  // warm caches and the solver's warm start
    if (!start_state(m, d, key)) return kExitBadInput;
    d.timer = {};
    d.timing = true;  // per-stage timers (a clock read per stage: off outside bench)
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < steps; ++i) moreau::step(m, d);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    static constexpr const char* kTimerNames[moreau::kNTimer] = {
        "step",         "forward",         "inverse",          "position",      "velocity",
        "actuation",    "acceleration",    "constraint",       "pos_kinematics", "pos_inertia",
        "pos_collision", "pos_make",       "pos_project"};
    Json stages = Json::object();
    for (int i = 0; i < moreau::kNTimer; ++i)
      if (d.timer[i].number > 0)
        stages[kTimerNames[i]] = Json{{"us_per_call", 1e6 * d.timer[i].duration / d.timer[i].number},
                                      {"calls", d.timer[i].number}};
    std::cout << Json{{"model", path},
                      {"steps", steps},
                      {"wall_s", wall},
                      {"steps_per_second", steps / wall},
                      {"us_per_step", 1e6 * wall / steps},
                      {"stages", stages}}
                     .dump()
              << std::endl;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitBadInput;
  }
  return 0;
}

// `moreau experiment NAME`: CSV on stdout; an error prints {"error"} and exits 1.
int experiment(const std::string& name, std::string path, const moreau::cli::OptionOverrides& o, long steps,
               int key) {
  try {
    if (path.empty()) path = moreau::cli::experiment_model(name);
    moreau::cli::run_experiment(name, path, o, steps, key);
  } catch (const std::exception& e) {
    std::cout.flush();
    print_error(e.what());
    return kExitBadInput;
  }
  std::cout.flush();
  return 0;
}

// Human-readable run of a model: what the README's first command shows.
int simulate(const std::string& path, const moreau::cli::OptionOverrides& o, long steps) {
  moreau::Model m;
  try {
    m = moreau::load_model(path);
    moreau::cli::apply_overrides(o, m);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  m.opt.enableflags |= moreau::kEnblEnergy;
  moreau::Data d = moreau::make_data(m);
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  std::printf("model      %s (%s)\n", m.modelname.c_str(), path.c_str());
  std::printf("sizes      nq=%d nv=%d nu=%d nbody=%d njnt=%d ngeom=%d nsensordata=%d\n", m.nq, m.nv, m.nu,
              m.nbody, m.njnt, m.ngeom, m.nsensordata);
  std::array<int, moreau::kNWarning> seen{};
  try {
    moreau::forward(m, d);
    const double e0 = d.energy[0] + d.energy[1];
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 1; i <= steps; ++i) {
      moreau::step(m, d);
      report_warnings(d, i, seen);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    moreau::forward(m, d);
    double com[3] = {d.subtree_com[3], d.subtree_com[4], d.subtree_com[5]};
    if (m.nbody < 2) com[0] = com[1] = com[2] = 0;
    std::printf("simulated  %ld steps of %g s = %.3f s in %.3f s wall (%.0f steps/s, %.1fx real time)\n", steps,
                m.opt.timestep, d.time, wall, steps / wall, d.time / wall);
    std::printf("energy     start %.6g J, end %.6g J (potential %.6g, kinetic %.6g)\n", e0,
                d.energy[0] + d.energy[1], d.energy[0], d.energy[1]);
    std::printf("body 1     centre of mass of its subtree at (%.4f, %.4f, %.4f)\n", com[0], com[1], com[2]);
    std::printf("contacts   %d at the end\n", d.ncon);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  return 0;
}

// The browser viewer is Python (moreau.viewer): `view` and `record` replace this process with
// /usr/bin/python3 -m moreau.viewer. In a build tree the package is in python/ next to this
// executable, which goes first on PYTHONPATH; elsewhere the interpreter finds the installed one.
int exec_viewer(const std::vector<std::string>& args) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto pkg = exe.parent_path() / "python";
    if (std::filesystem::exists(pkg / "moreau" / "viewer" / "__main__.py", ec)) {
      std::string path = pkg.string();
      if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
      setenv("PYTHONPATH", path.c_str(), 1);
    }
  }
  std::vector<std::string> full = {"/usr/bin/python3", "-m", "moreau.viewer"};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  print_error(std::string("cannot run /usr/bin/python3 -m moreau.viewer: ") + std::strerror(errno));
  return kExitBadInput;
}


// The subcommands, for the message of a mistyped one.
std::string subcommand_list(const CLI::App& app) {
  std::string list;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    list += (list.empty() ? "" : ", ") + sub->get_name();
  return list;
}

// A command-line error: the message and a pointer to --help on stderr, exit code 2.
int usage_error(const std::string& message) {
  std::cerr << "moreau: " << message << "\nRun 'moreau --help' for usage." << std::endl;
  return kExitBadCommand;
}

int run(int argc, char** argv) {
  CLI::App app{"Moreau: articulated-body dynamics with contact, MJCF models"};
  app.require_subcommand(1);
  app.footer(kExitCodes);
  moreau::cli::OptionOverrides o;
  std::string model;
  bool full = false, metrics = false;
  std::string steps_arg, every_arg, key_arg;

  auto* info = app.add_subcommand("info", "print the model's sizes as one JSON line");
  info->add_option("MODEL", model, "MJCF file")->required();

  auto* fwd = app.add_subcommand("forward", "forward dynamics of each state line read from stdin");
  fwd->add_option("MODEL", model, "MJCF file")->required();
  fwd->add_flag("--full", full, "also print the dense inertia matrix qM and efc_force");
  add_physics_options(fwd, o);

  auto* inv = app.add_subcommand("inverse", "inverse dynamics of each state line (with qacc) from stdin");
  inv->add_option("MODEL", model, "MJCF file")->required();
  add_physics_options(inv, o);

  auto* roll = app.add_subcommand("rollout", "simulate with zero controls and print the state");
  roll->add_option("MODEL", model, "MJCF file")->required();
  std::string batch_file, threads_arg;
  roll->add_option("--steps", steps_arg,
                   "number of steps (a non-negative integer; with --batch, default: the per-step ctrl's length)")
      ->type_name("N");
  roll->add_option("--batch", batch_file,
                   "JSON lines of initial states (time, qpos, qvel, act, ctrl), one rollout each; - for stdin")
      ->type_name("FILE");
  roll->add_option("--threads", threads_arg, "threads for --batch (default 1)")->type_name("N");
  roll->add_option("--every", every_arg, "print every K steps (default: only the last)")->type_name("K");
  roll->add_option("--key", key_arg, "start from keyframe I (default: 0 if the model has one)")->type_name("I");
  roll->add_flag("--metrics", metrics,
                 "add iterations, eps_abs, errors, contacts (world-frame forces) and energy to each line");
  add_physics_options(roll, o);

  std::string exp_name, exp_model;
  auto* exper = app.add_subcommand("experiment", "run a contact-model experiment, CSV on stdout");
  exper->add_option("NAME", exp_name, "sliding-cube, dragged-cube, two-blocks, spinning-ball, impact, grasp, slope")->required();
  exper->add_option("--model", exp_model, "MJCF file (default: the experiment's model in models/experiments)");
  exper->add_option("--steps", steps_arg, "number of steps (default: the experiment's)")->type_name("N");
  exper->add_option("--key", key_arg, "keyframe to start from (sliding-cube: 0 for 1 m/s, 1 for 3 m/s)")->type_name("I");
  add_physics_options(exper, o);

  auto* ben = app.add_subcommand("bench", "steps per second and time per pipeline stage");
  ben->add_option("MODEL", model, "MJCF file")->required();
  ben->add_option("--steps", steps_arg, "number of timed steps (a positive integer; default 10000)")->type_name("N");
  ben->add_option("--key", key_arg, "start from keyframe I")->type_name("I");
  add_physics_options(ben, o);

  auto* sim = app.add_subcommand("simulate", "simulate a model and print a short summary");
  sim->add_option("MODEL", model, "MJCF file (default: the bundled humanoid)");
  sim->add_option("--steps", steps_arg, "number of steps (a non-negative integer; default 2000)")->type_name("N");
  add_physics_options(sim, o);

  std::string view_host = "127.0.0.1";
  int view_port = 8000;
  bool view_unthrottled = false, view_open = false;
  auto* view = app.add_subcommand("view", "serve MODEL in the browser viewer (runs /usr/bin/python3 -m moreau.viewer "
                                          "MODEL ...; needs the Python package)");
  view->add_option("MODEL", model, "MJCF file")->required();
  view->add_option("--host", view_host, "address to listen on (default 127.0.0.1: this machine only)");
  view->add_option("--port", view_port, "port (default 8000)")->check(CLI::Range(0, 65535));
  view->add_flag("--unthrottled", view_unthrottled, "simulate as fast as possible instead of real time");
  view->add_flag("--open", view_open, "open the page in the default browser");

  std::string rec_out;
  auto* rec = app.add_subcommand("record", "write a self-contained HTML replay (runs /usr/bin/python3 -m moreau.viewer "
                                           "MODEL --record OUT ...; needs the Python package)");
  rec->add_option("MODEL", model, "MJCF file")->required();
  rec->add_option("--steps", steps_arg, "number of steps (a positive integer; default 1000)")->type_name("N");
  rec->add_option("-o,--output", rec_out, "HTML file to write")->required();
  rec->add_option("--every", every_arg, "record every K-th step (a positive integer; default 1)")->type_name("K");
  rec->add_option("--key", key_arg, "start from keyframe I")->type_name("I");

  for (CLI::App* sub : {info, fwd, inv, roll, exper, ben, sim, view, rec}) sub->footer(kExitCodes);

  // A first argument that is neither an option nor a subcommand: name it and list them.
  const auto named = [&](const std::string& name) {
    return !app.get_subcommands([&](const CLI::App* sub) { return sub->check_name(name); }).empty();
  };
  if (argc > 1 && argv[1][0] != '-' && !named(argv[1]))
    return usage_error(std::string("unknown subcommand '") + argv[1] + "'; the subcommands are: " +
                       subcommand_list(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty())
      return usage_error("a subcommand is required: " + subcommand_list(app));
    return usage_error(e.what());
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--steps: 1 required TEXT missing"
    const std::string what = e.what();
    const size_t colon = what.find(':');
    if (what.find("missing") != std::string::npos && colon != std::string::npos)
      return usage_error(what.substr(0, colon) + " needs a value");
    return usage_error(what);
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  // Values, checked before anything is loaded: a bad one is a command-line error.
  moreau::cli::validate_overrides(o);
  const bool has_steps = !steps_arg.empty();
  const long min_steps = ben->parsed() ? 1 : 0;
  const long steps = has_steps ? moreau::cli::parse_integer("--steps", steps_arg, min_steps) : 0;
  const long every = every_arg.empty() ? 0 : moreau::cli::parse_integer("--every", every_arg, 0);
  const int key = key_arg.empty() ? -1 : static_cast<int>(moreau::cli::parse_integer("--key", key_arg, 0));

  if (view->parsed()) {
    std::vector<std::string> a = {model, "--host", view_host, "--port", std::to_string(view_port)};
    if (view_unthrottled) a.push_back("--unthrottled");
    if (view_open) a.push_back("--open");
    return exec_viewer(a);
  }
  if (rec->parsed()) {
    if ((has_steps && steps < 1) || (!every_arg.empty() && every < 1))
      return usage_error("record: --steps and --every must be positive");
    std::vector<std::string> a = {model, "--record", rec_out, "--steps", std::to_string(has_steps ? steps : 1000),
                                  "--every", std::to_string(every_arg.empty() ? 1 : every)};
    if (key >= 0) {
      a.push_back("--key");
      a.push_back(std::to_string(key));
    }
    return exec_viewer(a);
  }

  if (info->parsed()) {
    try {
      std::cout << moreau::cli::model_info(moreau::load_model(model)).dump() << std::endl;
      return 0;
    } catch (const std::exception& e) {
      print_error(e.what());
      return kExitBadInput;
    }
  }
  if (fwd->parsed()) return run_lines(model, o, false, full);
  if (inv->parsed()) return run_lines(model, o, true, false);
  if (roll->parsed()) {
    if (!batch_file.empty()) {
      if (metrics) return usage_error("--metrics is not available with --batch");
      moreau::cli::BatchOptions batch;
      batch.file = batch_file;
      batch.threads = threads_arg.empty() ? 1 : static_cast<int>(moreau::cli::parse_integer("--threads", threads_arg, 1));
      batch.steps = has_steps ? steps : -1;
      batch.every = every;
      batch.key = key;
      silence_warning_handler();
      return moreau::cli::batch_rollout(model, o, batch);
    }
    if (!has_steps) return usage_error("--steps is required (or --batch FILE)");
    if (!threads_arg.empty()) return usage_error("--threads needs --batch");
    silence_warning_handler();
    return rollout(model, o, steps, every, key, metrics);
  }
  if (exper->parsed()) {
    if (!moreau::cli::is_experiment(exp_name)) {
      std::string names;
      for (const char* n : {"sliding-cube", "dragged-cube", "two-blocks", "spinning-ball", "impact"})
        names += std::string(names.empty() ? "" : ", ") + n;
      throw UsageError("unknown experiment '" + exp_name + "'; the experiments are: " + names);
    }
    return experiment(exp_name, exp_model, o, steps, key);
  }
  if (ben->parsed()) return bench(model, o, has_steps ? steps : 10000, key);
  if (sim->parsed()) {
    if (model.empty()) {
      try {
        model = moreau::cli::bundled_model("humanoid.xml");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return kExitBadInput;
      }
    }
    silence_warning_handler();
    return simulate(model, o, has_steps ? steps : 2000);
  }
  return usage_error("a subcommand is required: " + subcommand_list(app));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
}

// `moreau`: the command-line tool. Its contract (subcommands, JSON keys) is relied upon by scripts
// and tests; keep it stable. stdout carries pure JSON lines; warnings go to stderr.
//
//   moreau info MODEL
//   moreau forward MODEL [options] [--full] < states.jsonl
//   moreau inverse MODEL [options] < states.jsonl
//   moreau rollout MODEL --steps N [--every K] [--key I] [--metrics] [options]
//   moreau experiment NAME [--model MODEL] [--steps N] [--key I] [options]   (CSV; experiments.h)
//   moreau bench MODEL [--steps N] [options]
//   moreau simulate [MODEL] [--steps N] [options]     (human-readable summary; default model bundled)
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "cli_options.h"
#include "experiments.h"
#include "jsonl.h"
#include "moreau/moreau.h"

#ifndef MOREAU_DEFAULT_MODEL
#define MOREAU_DEFAULT_MODEL "models/humanoid.xml"
#endif

namespace {

using moreau::cli::Json;

// Exit codes: 0 success, 1 bad model or bad input, 2 bad command line (CLI11's own).
constexpr int kExitBadInput = 1;

void print_error(const std::string& message) {
  std::cout << Json{{"error", message}}.dump() << std::endl;
}

void add_physics_options(CLI::App* cmd, moreau::cli::OptionOverrides& o) {
  cmd->add_option("--disable", o.disable, "comma-separated MJCF flags to disable (e.g. contact,gravity)");
  cmd->add_option("--enable", o.enable, "comma-separated MJCF flags to enable (e.g. energy)");
  cmd->add_option("--solver", o.solver, "PGS, CG, Newton, raisim, raisim-ds, ncp-pgs, ccp, lcp");
  cmd->add_option("--cone", o.cone, "pyramidal or elliptic");
  cmd->add_option("--integrator", o.integrator, "Euler, RK4, implicit, implicitfast");
  cmd->add_option("--jacobian", o.jacobian, "dense, sparse or auto");
  cmd->add_option("--iterations", o.iterations, "maximum solver iterations");
  cmd->add_option("--tolerance", o.tolerance, "solver tolerance");
  cmd->add_option("--timestep", o.timestep, "simulation timestep (s)");
  cmd->add_option("--impratio", o.impratio, "ratio of frictional to normal constraint impedance (elliptic cones)");
  cmd->add_option("--noslip-iterations", o.noslip_iterations, "noslip post-processor iterations (0: off)")
      ->check(CLI::NonNegativeNumber);
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
        if (metrics) moreau::cli::add_step_metrics(m, d, line);  // issue 6
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Moreau: articulated-body dynamics with contact, MJCF models"};
  app.require_subcommand(1);
  moreau::cli::OptionOverrides o;
  std::string model;
  bool full = false, metrics = false;
  long steps = 0, every = 0;
  int key = -1;

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
  roll->add_option("--steps", steps, "number of steps")->required()->check(CLI::NonNegativeNumber);
  roll->add_option("--every", every, "print every K steps (default: only the last)")->check(CLI::NonNegativeNumber);
  roll->add_option("--key", key, "start from keyframe I (default: 0 if the model has one)");
  roll->add_flag("--metrics", metrics,
                 "add iterations, eps_abs, errors, contacts (world-frame forces) and energy to each line");
  add_physics_options(roll, o);

  std::string exp_name, exp_model;
  long exp_steps = 0;
  auto* exper = app.add_subcommand("experiment", "run a contact-model experiment, CSV on stdout");
  exper->add_option("NAME", exp_name, "sliding-cube, dragged-cube, two-blocks, spinning-ball, impact, grasp, slope")->required();
  exper->add_option("--model", exp_model, "MJCF file (default: the experiment's model in models/experiments)");
  exper->add_option("--steps", exp_steps, "number of steps (default: the experiment's)")->check(CLI::NonNegativeNumber);
  exper->add_option("--key", key, "keyframe to start from (sliding-cube: 0 for 1 m/s, 1 for 3 m/s)");
  add_physics_options(exper, o);

  long bench_steps = 10000;
  auto* ben = app.add_subcommand("bench", "steps per second and time per pipeline stage");
  ben->add_option("MODEL", model, "MJCF file")->required();
  ben->add_option("--steps", bench_steps, "number of timed steps")->check(CLI::PositiveNumber);
  ben->add_option("--key", key, "start from keyframe I");
  add_physics_options(ben, o);

  long sim_steps = 2000;
  std::string sim_model = MOREAU_DEFAULT_MODEL;
  auto* sim = app.add_subcommand("simulate", "simulate a model and print a short summary");
  sim->add_option("MODEL", sim_model, "MJCF file (default: the bundled humanoid)");
  sim->add_option("--steps", sim_steps, "number of steps")->check(CLI::NonNegativeNumber);
  add_physics_options(sim, o);

  CLI11_PARSE(app, argc, argv);

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
  if (roll->parsed()) return rollout(model, o, steps, every, key, metrics);
  if (exper->parsed()) return experiment(exp_name, exp_model, o, exp_steps, key);
  if (ben->parsed()) return bench(model, o, bench_steps, key);
  if (sim->parsed()) return simulate(sim_model, o, sim_steps);
  return 2;
}

// The contact-model experiments (experiments.h): protocols and analytic references.
#include "experiments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "moreau/moreau.h"


namespace moreau::cli {

namespace {

const char* const kExperiments[][2] = {{"sliding-cube", "sliding_cube.xml"},
                                      {"dragged-cube", "dragged_cube.xml"},
                                      {"two-blocks", "two_blocks.xml"},
                                      {"spinning-ball", "spinning_ball.xml"},
                                      {"impact", "spinning_ball.xml"}};

int find_id(const Model& m, ObjType type, const char* name) {
  const int id = name2id(m, type, name);
  if (id < 0) throw std::invalid_argument(std::string("the experiment needs an object named '") + name + "' in the model");
  return id;
}

// Statistics of the step just taken: d.ncp for the hard-contact solvers, else the same errors
// measured on the soft model's result (contact_metrics).
void step_stats(const Model& m, Data& d, double* eps_abs, int* iterations) {
  if (is_hard_contact_solver(m.opt.solver)) {
    *iterations = d.ncp.iterations;
  } else {
    contact_metrics(m, d, d.qvel.data());
    *iterations = d.solver_iter;
  }
  *eps_abs = d.ncp.eps_abs;
}

int active_contacts(const Data& d) {
  int n = 0;
  for (int i = 0; i < d.ncon; ++i) n += d.contact[i].efc_address >= 0;
  return n;
}

// Energy of the current state (its position stage recomputed): [potential, kinetic].
void state_energy(const Model& m, Data& d) {
  fwd_position(m, d);
  energy_pos(m, d);
  energy_vel(m, d);
}

// World force on body `body` from contact i (contact_force is the force on geom2 by geom1).
void contact_world_force(const Model& m, const Data& d, int i, int body, double* f) {
  const Contact& con = d.contact[i];
  double local[6];
  contact_force(m, d, i, local);
  const double sign = m.geom_bodyid[con.geom2] == body ? 1.0 : -1.0;
  for (int a = 0; a < 3; ++a)
    f[a] = sign * (con.frame[a] * local[0] + con.frame[3 + a] * local[1] + con.frame[6 + a] * local[2]);
}

void start(const Model& m, Data& d, int key) {
  if (m.nkey > 0) reset_data_keyframe(m, d, std::max(0, key));
  else reset_data(m, d);
}

void sliding_cube(const Model& m, Data& d, long steps, int key) {
  const int cube = find_id(m, kObjBody, "cube");
  const int gcube = find_id(m, kObjGeom, "cube"), gfloor = find_id(m, kObjGeom, "floor");
  const double mu = std::max(m.geom_friction[3 * gcube], m.geom_friction[3 * gfloor]);
  const double mass = m.body_mass[cube];
  const double g = std::sqrt(m.opt.gravity[0] * m.opt.gravity[0] + m.opt.gravity[1] * m.opt.gravity[1] +
                             m.opt.gravity[2] * m.opt.gravity[2]);
  start(m, d, key);
  const double v0 = std::sqrt(d.qvel[0] * d.qvel[0] + d.qvel[1] * d.qvel[1] + d.qvel[2] * d.qvel[2]);
  if (steps <= 0) steps = static_cast<long>(std::ceil((v0 / (mu * g) + 0.1) / m.opt.timestep));
  std::printf("time,vx,vy,vz,z,kinetic,kinetic_analytic,eps_abs,iterations,ncon\n");
  auto analytic = [&](double t) {
    const double v = std::max(0.0, v0 - mu * g * t);
    return 0.5 * mass * v * v;
  };
  state_energy(m, d);
  std::printf("%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,0,0,0\n", d.time, d.qvel[0], d.qvel[1], d.qvel[2],
              d.qpos[2], d.energy[1], analytic(d.time));
  for (long i = 0; i < steps; ++i) {
    step(m, d);
    double eps;
    int iter;
    step_stats(m, d, &eps, &iter);
    const int ncon = active_contacts(d);
    state_energy(m, d);
    std::printf("%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6g,%d,%d\n", d.time, d.qvel[0], d.qvel[1], d.qvel[2],
                d.qpos[2], d.energy[1], analytic(d.time), eps, iter, ncon);
  }
}

void dragged_cube(const Model& m, Data& d, long steps) {
  constexpr double kRate = 4;  // N/s
  const int cube = find_id(m, kObjBody, "cube");
  const int gcube = find_id(m, kObjGeom, "cube"), gfloor = find_id(m, kObjGeom, "floor");
  const double mu = std::max(m.geom_friction[3 * gcube], m.geom_friction[3 * gfloor]);
  const double mass = m.body_mass[cube];
  const double g = std::fabs(m.opt.gravity[2]);
  const double ts = mu * mass * g / kRate;  // the force reaches mu m g: sliding starts
  if (steps <= 0) steps = static_cast<long>(std::ceil(2.0 / m.opt.timestep));
  start(m, d, -1);
  std::printf("time,force,vx,vx_analytic,fy_pp,fy_pm,fy_mp,fy_mm,fx_total,fz_total,eps_abs,iterations,ncon\n");
  for (long i = 0; i < steps; ++i) {
    const double force = kRate * d.time;
    d.xfrc_applied[6 * cube] = force;
    step(m, d);
    double eps;
    int iter;
    step_stats(m, d, &eps, &iter);
    // force along y at each corner, labelled by the corner's side of the cube's centre (x, y)
    double fy[4] = {0, 0, 0, 0}, fx = 0, fz = 0;
    for (int c = 0; c < d.ncon; ++c) {
      if (d.contact[c].efc_address < 0) continue;
      double f[3];
      contact_world_force(m, d, c, cube, f);
      const double dx = d.contact[c].pos[0] - d.xpos[3 * cube], dy = d.contact[c].pos[1] - d.xpos[3 * cube + 1];
      fy[(dx < 0 ? 2 : 0) + (dy < 0 ? 1 : 0)] += f[1];
      fx += f[0];
      fz += f[2];
    }
    const double t = d.time;
    const double va = t <= ts ? 0 : kRate / (2 * mass) * (t * t - ts * ts) - mu * g * (t - ts);
    std::printf("%.6f,%.10g,%.10g,%.10g,%.6g,%.6g,%.6g,%.6g,%.10g,%.10g,%.6g,%d,%d\n", t, force, d.qvel[0], va,
                fy[0], fy[1], fy[2], fy[3], fx, fz, eps, iter, active_contacts(d));
  }
}

void two_blocks(const Model& m, long steps) {
  Data d = make_data(m);
  const int A = m.jnt_qposadr[find_id(m, kObjJoint, "A")], B = m.jnt_qposadr[find_id(m, kObjJoint, "B")];
  if (steps <= 0) steps = 3;
  start(m, d, -1);
  std::printf("step,time,qA,qB,vA,vB,force,gap\n");
  std::printf("0,%g,%.12g,%.12g,%.12g,%.12g,0,%.12g\n", d.time, d.qpos[A], d.qpos[B], d.qvel[A], d.qvel[B],
              d.qpos[B] - d.qpos[A] - 1);
  for (long i = 1; i <= steps; ++i) {
    step(m, d);
    double force = 0;
    for (int c = 0; c < d.ncon; ++c) {
      double local[6];
      contact_force(m, d, c, local);
      force += local[0];
    }
    std::printf("%ld,%g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g\n", i, d.time, d.qpos[A], d.qpos[B], d.qvel[A], d.qvel[B],
                force, d.qpos[B] - d.qpos[A] - 1);
  }
}

// The chapter's post-impact map (spinning_ball.xml), with theta_dot = -omega_y.
void ball_map(double r, double e, const double* v, double* out) {
  out[0] = 0.6 * v[0] + 0.4 * r * v[4];
  out[1] = -e * v[2];
  out[2] = 0.6 / r * v[0] + 0.4 * v[4];
}

void spinning_ball(const Model& m, Data& d, long steps) {
  const double r = m.geom_size[3 * find_id(m, kObjGeom, "ball")];
  if (steps <= 0) steps = 100;
  start(m, d, -1);
  double map[3];
  ball_map(r, 0, d.qvel.data(), map);
  std::printf("time,vx,vz,wy,slip,z,ncon,eps_abs,iterations,vx_map,wy_map\n");
  std::printf("%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,0,0,0,%.10g,%.10g\n", d.time, d.qvel[0], d.qvel[2], d.qvel[4],
              d.qvel[0] - r * d.qvel[4], d.qpos[2], map[0], map[2]);
  for (long i = 0; i < steps; ++i) {
    step(m, d);
    double eps;
    int iter;
    step_stats(m, d, &eps, &iter);
    std::printf("%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,%d,%.6g,%d,%.10g,%.10g\n", d.time, d.qvel[0], d.qvel[2],
                d.qvel[4], d.qvel[0] - r * d.qvel[4], d.qpos[2], active_contacts(d), eps, iter, map[0], map[2]);
  }
}

void impact_table(const Model& m, Data& d) {
  const double r = m.geom_size[3 * find_id(m, kObjGeom, "ball")];
  std::printf("e,vx_before,vz_before,wy_before,vx,vz,wy,vx_map,vz_map,wy_map,eps_abs,iterations\n");
  for (double e : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    start(m, d, -1);
    double before[6], map[3];
    std::copy_n(d.qvel.data(), 6, before);
    impact(m, d, e);
    ball_map(r, e, before, map);
    std::printf("%g,%.10g,%.10g,%.10g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.6g,%d\n", e, before[0], before[2],
                before[4], d.qvel[0], d.qvel[2], d.qvel[4], map[0], map[1], map[2], d.ncp.eps_abs, d.ncp.iterations);
  }
}

}  // namespace

bool is_experiment(const std::string& name) {
  for (const auto& e : kExperiments)
    if (name == e[0]) return true;
  return false;
}

std::string experiment_model(const std::string& name) {
  for (const auto& e : kExperiments)
    if (name == e[0]) return bundled_model(std::string("experiments/") + e[1]);
  return "";
}

void run_experiment(const std::string& name, const std::string& path, const OptionOverrides& o, long steps,
                    int key) {
  if (!is_experiment(name)) {
    std::string msg = "unknown experiment '" + name + "' (one of:";
    for (const auto& e : kExperiments) msg += std::string(" ") + e[0];
    throw std::invalid_argument(msg + ")");
  }
  Model m = load_model(path);
  apply_overrides(o, m);
  if (name == "two-blocks") return two_blocks(m, steps);
  Data d = make_data(m);
  if (name == "sliding-cube") sliding_cube(m, d, steps, key);
  else if (name == "dragged-cube") dragged_cube(m, d, steps);
  else if (name == "spinning-ball") spinning_ball(m, d, steps);
  else impact_table(m, d);
}

}  // namespace moreau::cli

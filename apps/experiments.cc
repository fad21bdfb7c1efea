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
                                      {"impact", "spinning_ball.xml"},
                                      {"grasp", "grasp.xml"},
                                      {"slope", "slope.xml"}};

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


// Grasp (grasp.xml): the fingers close on the box (0 .. 0.5 s) and the palm lifts it by 0.1 m
// (0.5 .. 1.5 s, a cosine ramp) with the squeeze of keyframe 0 (0.9 of the friction limit, so the
// lift's acceleration does not make it slip); then the squeeze set points move to those of the
// chosen keyframe over 0.5 s and the box is held until 12 s. slip = (z_box - z_finger) minus its
// value when the lift starts: how far the box has slid down between the fingers. friction_use is
// the friction the box needs over what the pads' normal forces can give (|net tangential force on
// the box from the pads| / (mu sum of their normal forces)); contact_use the largest
// |tangential| / (mu normal) over the pad contacts (1: a contact on the cone's boundary).
void grasp(const Model& m, Data& d, long steps, int key) {
  constexpr double kClose = 0.5, kLift = 1.0, kRelax = 0.5, kHold = 10.0, kHeight = 0.1;
  const int box = find_id(m, kObjBody, "box"), finger = find_id(m, kObjBody, "left");
  const int lift = find_id(m, kObjActuator, "lift");
  const int fingers[2] = {find_id(m, kObjActuator, "left"), find_id(m, kObjActuator, "right")};
  const int lift_dof = m.jnt_dofadr[find_id(m, kObjJoint, "lift")], box_dof = m.jnt_dofadr[m.body_jntadr[box]];
  const int gfloor = find_id(m, kObjGeom, "floor");
  if (m.nkey < 1) throw std::invalid_argument("the grasp experiment needs keyframes with the squeeze set points");
  if (key >= m.nkey) throw std::invalid_argument("keyframe " + std::to_string(key) + " does not exist");
  key = std::max(0, key);
  double grip[2], hold[2];
  for (int f = 0; f < 2; ++f) {
    grip[f] = m.key_ctrl[fingers[f]];  // keyframe 0
    hold[f] = m.key_ctrl[static_cast<size_t>(key) * m.nu + fingers[f]];
  }
  if (steps <= 0) steps = std::lround((kClose + kLift + kRelax + kHold) / m.opt.timestep);
  start(m, d, 0);
  double rel0 = 0;
  std::printf("time,phase,slip,slip_velocity,z_box,z_finger,friction_use,contact_use,normal_force,ncon,eps_abs,"
              "iterations\n");
  for (long i = 0; i < steps; ++i) {
    const double t = d.time;
    const double s = std::clamp((t - kClose) / kLift, 0.0, 1.0);
    const double r = std::clamp((t - kClose - kLift) / kRelax, 0.0, 1.0);
    d.ctrl[lift] = kHeight * 0.5 * (1 - std::cos(M_PI * s));
    for (int f = 0; f < 2; ++f) d.ctrl[fingers[f]] = grip[f] + r * (hold[f] - grip[f]);
    step(m, d);
    double eps;
    int iter;
    step_stats(m, d, &eps, &iter);
    // forces on the box from the pads (contacts with the floor excluded)
    double fz = 0, fn = 0, worst = 0;
    for (int c = 0; c < d.ncon; ++c) {
      const Contact& con = d.contact[c];
      if (con.efc_address < 0 || con.geom1 == gfloor || con.geom2 == gfloor) continue;
      if (m.geom_bodyid[con.geom1] != box && m.geom_bodyid[con.geom2] != box) continue;
      double local[6], f[3];
      contact_force(m, d, c, local);
      contact_world_force(m, d, c, box, f);
      fz += f[2];
      fn += local[0];
      if (local[0] > 0) worst = std::max(worst, std::hypot(local[1], local[2]) / (con.friction[0] * local[0]));
    }
    const double mu = m.geom_friction[3 * find_id(m, kObjGeom, "box")];
    const double rel = d.xpos[3 * box + 2] - d.xpos[3 * finger + 2];
    if (d.time <= kClose + 0.5 * m.opt.timestep) rel0 = rel;
    const double vrel = d.qvel[box_dof + 2] - d.qvel[lift_dof];
    const char* phase = d.time <= kClose + 1e-9 ? "close" : (d.time <= kClose + kLift + 1e-9 ? "lift" : "hold");
    std::printf("%.4f,%s,%.10g,%.6g,%.10g,%.10g,%.6g,%.6g,%.6g,%d,%.3g,%d\n", d.time, phase, rel - rel0, vrel,
                d.xpos[3 * box + 2], d.xpos[3 * finger + 2], fn > 0 ? std::fabs(fz) / (mu * fn) : 0, worst, fn,
                active_contacts(d), eps, iter);
  }
}

// Slope (slope.xml): the box rests on a plane tilted about y; slip is its displacement down the
// slope from the start. friction_use is the friction the box needs over what the normal force can
// give (|tangential part of the plane's force on the box| / (mu normal part)), contact_use the
// largest |tangential| / (mu normal) over the contacts.
void slope(const Model& m, Data& d, long steps) {
  const int box = find_id(m, kObjBody, "box"), floor = find_id(m, kObjGeom, "floor");
  const double mu = std::max(m.geom_friction[3 * floor], m.geom_friction[3 * find_id(m, kObjGeom, "box")]);
  if (steps <= 0) steps = std::lround(10.0 / m.opt.timestep);
  start(m, d, -1);
  forward(m, d);  // the poses of the initial state
  // the plane's normal, and its downhill direction: the plane's x axis (it is tilted about y)
  const double normal[3] = {d.geom_xmat[9 * floor + 2], d.geom_xmat[9 * floor + 5], d.geom_xmat[9 * floor + 8]};
  double down[3] = {d.geom_xmat[9 * floor], d.geom_xmat[9 * floor + 3], d.geom_xmat[9 * floor + 6]};
  if (down[2] > 0)
    for (double& x : down) x = -x;
  double p0[3];
  std::copy_n(&d.xpos[3 * box], 3, p0);
  const int dof = m.jnt_dofadr[m.body_jntadr[box]];
  std::printf("time,slip,slip_velocity,friction_use,contact_use,normal_force,ncon,eps_abs,iterations\n");
  for (long i = 0; i < steps; ++i) {
    step(m, d);
    double eps;
    int iter;
    step_stats(m, d, &eps, &iter);
    double f[3] = {0, 0, 0}, worst = 0;
    for (int c = 0; c < d.ncon; ++c) {
      if (d.contact[c].efc_address < 0) continue;
      double local[6], fc[3];
      contact_force(m, d, c, local);
      contact_world_force(m, d, c, box, fc);
      for (int k = 0; k < 3; ++k) f[k] += fc[k];
      if (local[0] > 0) worst = std::max(worst, std::hypot(local[1], local[2]) / (d.contact[c].friction[0] * local[0]));
    }
    const double fn = f[0] * normal[0] + f[1] * normal[1] + f[2] * normal[2];
    const double ft = std::hypot(f[0] - fn * normal[0], f[1] - fn * normal[1], f[2] - fn * normal[2]);
    double slip = 0, v = 0;
    for (int k = 0; k < 3; ++k) {
      slip += (d.xpos[3 * box + k] - p0[k]) * down[k];
      v += d.qvel[dof + k] * down[k];
    }
    std::printf("%.4f,%.10g,%.6g,%.6g,%.6g,%.6g,%d,%.3g,%d\n", d.time, slip, v, fn > 0 ? ft / (mu * fn) : 0, worst, fn,
                active_contacts(d), eps, iter);
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
  else if (name == "grasp") grasp(m, d, steps, key);
  else if (name == "slope") slope(m, d, steps);
  else impact_table(m, d);
}

}  // namespace moreau::cli

// The integrators (computation chapter, "Numerical integration"), called by step with the model's
// integrator, and their work space.
#pragma once

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

void euler(const Model& m, Data& d);
void runge_kutta4(const Model& m, Data& d);
void implicit(const Model& m, Data& d);  // implicit and implicitfast (implicit.cc)
// implicitcon: implicitfast with the constraint forces' velocity derivative (implicit_constraint.cc).
void implicit_constraint(const Model& m, Data& d);
// Continuous acceleration of a discrete one of the implicit integrators: res = qacc_d - h M^-1 D qacc_d
// (inverse dynamics with invdiscrete). Needs the position and velocity stages.
void implicit_discrete_to_continuous(const Model& m, Data& d, const double* qacc_d, double* res);
// Advance the state by one timestep h given act_dot, qacc and (optionally) qvel for the positions:
// act += h*act_dot; qvel += h*qacc; qpos <- integrate_pos(qpos, qvel_or_new_qvel, h); time += h.
void advance(const Model& m, Data& d, const double* act_dot, const double* qacc, const double* qvel);

// Data::work.integrator, doubles:
//   temporaries   6*nv + 2*na + nq: the integrated derivative (euler, implicit, rk4) and inverse
//                 dynamics' discrete acceleration (invdiscrete); they live across stage calls;
//   RK4           its initial state (nq + nv + na), stage velocities (4*nv), accelerations (4*nv)
//                 and activation rates (4*na).
inline long long integrator_temp_size(const Model& m) { return 6LL * m.nv + 2LL * m.na + m.nq; }
inline long long integrator_work_size(const Model& m) {
  return integrator_temp_size(m) + m.nq + 9LL * m.nv + 5LL * m.na;
}
inline double* integrator_temp(Data& d) { return d.work.integrator.data(); }

// RK4's views of Data::work.integrator.
struct Rk4Work {
  double* qpos0;  // nq
  double* qvel0;  // nv
  double* act0;   // na
  double* vel;    // 4*nv: stage velocities
  double* acc;    // 4*nv: stage accelerations
  double* actdot; // 4*na: stage activation rates
};
inline Rk4Work rk4_work(const Model& m, Data& d) {
  double* p = d.work.integrator.data() + integrator_temp_size(m);
  Rk4Work w;
  w.qpos0 = p; p += m.nq;
  w.qvel0 = p; p += m.nv;
  w.act0 = p; p += m.na;
  w.vel = p; p += 4LL * m.nv;
  w.acc = p; p += 4LL * m.nv;
  w.actdot = p;
  return w;
}

}  // namespace moreau::internal

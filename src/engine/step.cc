// Time stepping (computation chapter, "Simulation pipeline", top level): check the state, run
// forward dynamics, check the acceleration, integrate with the model's integrator.
// step1/step2 split step so that controls can be set from position/velocity results. RK4 needs the
// whole dynamics, control included, at every stage, which the split cannot give: with RK4, step2
// integrates with Euler, as the simulation chapter's mj_step2 does. Euler, implicit and
// implicitfast integrate with the model's integrator (as MuJoCo 2.2.2's mj_step2 does for Euler and
// implicit).
#include <stdexcept>
#include <string>

#include "engine/checks.h"
#include "engine/internal.h"
#include "engine/messages.h"
#include "integrator/integrator.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {
void require_known_integrator(const Model& m, const char* who) {
  const int i = m.opt.integrator;
  if (i != kIntEuler && i != kIntRK4 && i != kIntImplicit && i != kIntImplicitFast && i != kIntImplicitCon)
    internal::raise<std::invalid_argument>(std::string(who) + ": unknown integrator " + std::to_string(i));
}

void integrate(const Model& m, Data& d) {
  switch (m.opt.integrator) {
    case kIntRK4:
      internal::runge_kutta4(m, d);
      break;
    case kIntImplicit:
    case kIntImplicitFast:
      internal::implicit(m, d);
      break;
    case kIntImplicitCon:
      internal::implicit_constraint(m, d);
      break;
    default:
      internal::euler(m, d);
      break;
  }
}
}  // namespace

void step(const Model& m, Data& d) {
  const internal::CheckedCall checked(m, d, "step");
  require_known_integrator(m, "step");
  internal::StageTimer timer(d, kTimerStep);
  check_pos(m, d);
  check_vel(m, d);
  forward(m, d);
  check_acc(m, d);
  integrate(m, d);
}

void step1(const Model& m, Data& d) {
  const internal::CheckedCall checked(m, d, "step1");
  require_known_integrator(m, "step1");
  internal::StageTimer timer(d, kTimerStep);
  check_pos(m, d);
  check_vel(m, d);
  fwd_position(m, d);
  sensor_pos(m, d);
  if (m.opt.enableflags & kEnblEnergy) energy_pos(m, d);
  fwd_velocity(m, d);
  sensor_vel(m, d);
  if (m.opt.enableflags & kEnblEnergy) energy_vel(m, d);
  // as the chapter's mj_step1: the callback, if any, is called here too
  if (d.control_callback) d.control_callback(m, d);
}

void step2(const Model& m, Data& d) {
  const internal::CheckedCall checked(m, d, "step2");
  require_known_integrator(m, "step2");
  internal::StageTimer timer(d, kTimerStep);
  fwd_actuation(m, d);
  fwd_acceleration(m, d);
  fwd_constraint(m, d);
  internal::acceleration_sensors(m, d);
  check_acc(m, d);
  if (m.opt.integrator == kIntRK4) internal::euler(m, d);  // the split cannot run RK4's stages
  else integrate(m, d);
}

namespace internal {
void step_skip(const Model& m, Data& d, int skipstage, bool skip_sensor) {
  require_known_integrator(m, "step");
  if (skipstage == kStageNone) {
    check_pos(m, d);
    check_vel(m, d);
  }
  internal::forward_skip(m, d, skipstage, skip_sensor);
  check_acc(m, d);
  integrate(m, d);
}
}  // namespace internal

}  // namespace moreau

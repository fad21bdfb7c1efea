// Time stepping (computation chapter, "Simulation pipeline", top level): check the state, run
// forward dynamics, check the acceleration, integrate with the model's integrator.
// step1/step2 split step so that controls can be set from position/velocity results; as documented
// for the computation chapter's mj_step1/mj_step2, this split does not support RK4 (step2 then
// integrates with Euler).
#include <stdexcept>
#include <string>

#include "engine/internal.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {
void require_supported_integrator(const Model& m) {
  if (m.opt.integrator == kIntImplicit || m.opt.integrator == kIntImplicitFast)
    throw std::runtime_error("step: integrator '" +
                             std::string(m.opt.integrator == kIntImplicit ? "implicit" : "implicitfast") +
                             "' is not supported yet (issue 5); use Euler or RK4");
  if (m.opt.integrator != kIntEuler && m.opt.integrator != kIntRK4)
    throw std::runtime_error("step: unknown integrator " + std::to_string(m.opt.integrator));
}
}  // namespace

void step(const Model& m, Data& d) {
  require_supported_integrator(m);
  internal::StageTimer timer(d, kTimerStep);
  check_pos(m, d);
  check_vel(m, d);
  forward(m, d);
  check_acc(m, d);
  if (m.opt.integrator == kIntRK4)
    internal::runge_kutta4(m, d);
  else
    internal::euler(m, d);
}

void step1(const Model& m, Data& d) {
  require_supported_integrator(m);
  internal::StageTimer timer(d, kTimerStep);
  check_pos(m, d);
  check_vel(m, d);
  fwd_position(m, d);
  if (m.opt.enableflags & kEnblEnergy) energy_pos(m, d);
  fwd_velocity(m, d);
  if (m.opt.enableflags & kEnblEnergy) energy_vel(m, d);
}

void step2(const Model& m, Data& d) {
  require_supported_integrator(m);
  internal::StageTimer timer(d, kTimerStep);
  fwd_actuation(m, d);
  fwd_acceleration(m, d);
  fwd_constraint(m, d);
  check_acc(m, d);
  internal::euler(m, d);
}

}  // namespace moreau

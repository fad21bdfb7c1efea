// State get/set by component (simulation chapter, "State and control"; computation chapter, "The
// State"). Components are selected by a bit mask; a state vector is the concatenation of the
// selected components in the order of the bits, every value stored as a double.
//
//   std::vector<double> s(moreau::state_size(m, moreau::kStateIntegration));
//   moreau::get_state(m, d, moreau::kStateIntegration, s.data());
//   ...
//   moreau::set_state(m, d2, moreau::kStateIntegration, s.data());   // d2: a Data of the same model
//   moreau::step(m, d2);   // the same step, bit for bit, as d would take from that state
//
// Bit values and order are MuJoCo's mjtState (3.x; Moreau has no plugin state).
#pragma once

#include <vector>

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau {

enum StateBit : unsigned {
  kStateTime = 1u << 0,          // time (1)
  kStateQpos = 1u << 1,          // qpos (nq)
  kStateQvel = 1u << 2,          // qvel (nv)
  kStateAct = 1u << 3,           // act (na)
  kStateWarmstart = 1u << 4,     // qacc_warmstart (nv)
  kStateCtrl = 1u << 5,          // ctrl (nu)
  kStateQfrcApplied = 1u << 6,   // qfrc_applied (nv)
  kStateXfrcApplied = 1u << 7,   // xfrc_applied (6*nbody)
  kStateEqActive = 1u << 8,      // eq_active (neq; 0 or 1)
  kStateMocapPos = 1u << 9,      // mocap_pos (3*nmocap)
  kStateMocapQuat = 1u << 10,    // mocap_quat (4*nmocap)
  kStateUserdata = 1u << 11,     // userdata (nuserdata)
  kNState = 12,

  // The physics state: what integration advances in time.
  kStatePhysics = kStateQpos | kStateQvel | kStateAct,
  // The physics state and the time (time-dependent controllers).
  kStateFullPhysics = kStateTime | kStatePhysics,
  // Inputs set by the user and never changed by the simulator.
  kStateUser = kStateCtrl | kStateQfrcApplied | kStateXfrcApplied | kStateEqActive | kStateMocapPos |
               kStateMocapQuat | kStateUserdata,
  // Everything forward dynamics reads: from it, step reproduces a trajectory bit for bit.
  kStateIntegration = kStateFullPhysics | kStateUser | kStateWarmstart,
};

// Number of doubles in a state vector of the components in `mask`. Throws std::invalid_argument for
// bits beyond kNState.
int state_size(const Model& m, unsigned mask);
// Copy the components of `mask` from d into state (state_size(m, mask) doubles).
void get_state(const Model& m, const Data& d, unsigned mask, double* state);
// Copy the components of `mask` from state into d; eq_active entries are set to (value != 0). The
// derived quantities of d are not recomputed: call forward (or step) next.
void set_state(const Model& m, Data& d, unsigned mask, const double* state);

// Conveniences: a new vector, and set_state from a vector whose size is checked.
std::vector<double> get_state(const Model& m, const Data& d, unsigned mask);
void set_state(const Model& m, Data& d, unsigned mask, const std::vector<double>& state);

}  // namespace moreau

// State get/set by component (include/moreau/state.h). One table says, for each component bit, its
// length and where it lives in Data; get, set and size walk the bits in order.
#include "moreau/state.h"

#include "engine/checks.h"
#include "engine/messages.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace moreau {
namespace {

constexpr unsigned kAllStateBits = (1u << kNState) - 1;

void check_mask(unsigned mask) {
  if (mask & ~kAllStateBits)
    internal::raise<std::invalid_argument>("state mask " + std::to_string(mask) + " has bits beyond the " +
                                           std::to_string(kNState) + " state components");
}

// Length of component `bit` (one of the StateBit singletons).
int component_size(const Model& m, unsigned bit) {
  switch (bit) {
    case kStateTime: return 1;
    case kStateQpos: return m.nq;
    case kStateQvel: return m.nv;
    case kStateAct: return m.na;
    case kStateWarmstart: return m.nv;
    case kStateCtrl: return m.nu;
    case kStateQfrcApplied: return m.nv;
    case kStateXfrcApplied: return 6 * m.nbody;
    case kStateEqActive: return m.neq;
    case kStateMocapPos: return 3 * m.nmocap;
    case kStateMocapQuat: return 4 * m.nmocap;
    case kStateUserdata: return m.nuserdata;
    default: return 0;
  }
}

// The double array of component `bit` in d (every component but time and eq_active).
template <class D>
auto component_array(D& d, unsigned bit) -> decltype(d.qpos.data()) {
  switch (bit) {
    case kStateQpos: return d.qpos.data();
    case kStateQvel: return d.qvel.data();
    case kStateAct: return d.act.data();
    case kStateWarmstart: return d.qacc_warmstart.data();
    case kStateCtrl: return d.ctrl.data();
    case kStateQfrcApplied: return d.qfrc_applied.data();
    case kStateXfrcApplied: return d.xfrc_applied.data();
    case kStateMocapPos: return d.mocap_pos.data();
    case kStateMocapQuat: return d.mocap_quat.data();
    case kStateUserdata: return d.userdata.data();
    default: return nullptr;
  }
}

}  // namespace

int state_size(const Model& m, unsigned mask) {
  check_mask(mask);
  int size = 0;
  for (unsigned i = 0; i < kNState; ++i)
    if (mask & (1u << i)) size += component_size(m, 1u << i);
  return size;
}

void get_state(const Model& m, const Data& d, unsigned mask, double* state) {
  internal::check_data(m, d, "get_state");
  internal::check_ptr(state, state_size(m, mask), "get_state", "state");
  check_mask(mask);
  for (unsigned i = 0; i < kNState; ++i) {
    const unsigned bit = 1u << i;
    if (!(mask & bit)) continue;
    const int n = component_size(m, bit);
    if (bit == kStateTime) {
      state[0] = d.time;
    } else if (bit == kStateEqActive) {
      for (int k = 0; k < n; ++k) state[k] = d.eq_active[k] ? 1.0 : 0.0;
    } else {
      std::copy_n(component_array(d, bit), n, state);
    }
    state += n;
  }
}

void set_state(const Model& m, Data& d, unsigned mask, const double* state) {
  internal::check_data(m, d, "set_state");
  internal::check_ptr(state, state_size(m, mask), "set_state", "state");
  check_mask(mask);
  for (unsigned i = 0; i < kNState; ++i) {
    const unsigned bit = 1u << i;
    if (!(mask & bit)) continue;
    const int n = component_size(m, bit);
    if (bit == kStateTime) {
      d.time = state[0];
    } else if (bit == kStateEqActive) {
      for (int k = 0; k < n; ++k) d.eq_active[k] = state[k] != 0;
    } else {
      std::copy_n(state, n, component_array(d, bit));
    }
    state += n;
  }
}

std::vector<double> get_state(const Model& m, const Data& d, unsigned mask) {
  std::vector<double> state(state_size(m, mask));
  get_state(m, d, mask, state.data());
  return state;
}

void set_state(const Model& m, Data& d, unsigned mask, const std::vector<double>& state) {
  const int n = state_size(m, mask);
  if (static_cast<int>(state.size()) != n)
    internal::raise<std::invalid_argument>("set_state: the vector has " + std::to_string(state.size()) +
                                           " values, the mask selects " + std::to_string(n));
  set_state(m, d, mask, state.data());
}

}  // namespace moreau

// Argument checks of the public entry points. Ids out of range throw std::out_of_range, missing
// outputs, wrong sizes and a Data made for another Model throw std::invalid_argument; every message
// names the function, the value and what was expected ("jac_body_com: body id -1 out of range
// [0, 17)"). The checks are O(1) integer compares; the throwing paths are out of line.
#pragma once

#include <cstddef>

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

[[noreturn]] void throw_id_out_of_range(const char* fn, const char* what, long long id, long long n);
[[noreturn]] void throw_null_argument(const char* fn, const char* what);
[[noreturn]] void throw_invalid(const char* fn, const char* message);
[[noreturn]] void throw_data_mismatch(const Model& m, const Data& d, const char* fn);

// id in [0, n), else std::out_of_range "fn: what id ID out of range [0, n)".
inline void check_id(const char* fn, const char* what, long long id, long long n) {
  if (id < 0 || id >= n) [[unlikely]] throw_id_out_of_range(fn, what, id, n);
}

// A required pointer argument, else std::invalid_argument "fn: what must not be null".
inline void check_ptr(const void* p, const char* fn, const char* what) {
  if (!p) [[unlikely]] throw_null_argument(fn, what);
}
// The same for an array of n entries: null is accepted when n is 0 (the data() of an empty vector).
inline void check_ptr(const void* p, long long n, const char* fn, const char* what) {
  if (!p && n > 0) [[unlikely]] throw_null_argument(fn, what);
}

// Whether d's arrays have the sizes make_data(m) gives them (state, inputs and the main results).
inline bool data_matches(const Model& m, const Data& d) {
  using sz = std::size_t;
  return d.qpos.size() == sz(m.nq) && d.qvel.size() == sz(m.nv) && d.act.size() == sz(m.na) &&
         d.ctrl.size() == sz(m.nu) && d.xpos.size() == 3 * sz(m.nbody) &&
         d.geom_xpos.size() == 3 * sz(m.ngeom) && d.site_xpos.size() == 3 * sz(m.nsite) &&
         d.qM.size() == sz(m.nM) && d.mocap_pos.size() == 3 * sz(m.nmocap) &&
         d.eq_active.size() == sz(m.neq) && d.ten_length.size() == sz(m.ntendon) &&
         d.sensordata.size() == sz(m.nsensordata) && d.cam_xpos.size() == 3 * sz(m.ncam) &&
         d.light_xpos.size() == 3 * sz(m.nlight) && d.wrap_obj.size() == 2 * sz(m.nwrap) &&
         d.userdata.size() == sz(m.nuserdata);
}

// d was made for m (make_data), else std::invalid_argument naming fn and the first array that
// differs. Skipped inside a CheckedCall for the same m and d (already checked).
inline void check_data(const Model& m, const Data& d, const char* fn) {
  if (d.checked.model == &m) return;
  if (!data_matches(m, d)) [[unlikely]] throw_data_mismatch(m, d, fn);
}

// A public entry point's check of d against m, held for the duration of the call: the stages it
// calls (each a public function that checks its own arguments when a user calls it) then skip
// check_data. The previous mark is restored on exit, also when an exception leaves the call.
class CheckedCall {
 public:
  CheckedCall(const Model& m, Data& d, const char* fn) : d_(d), prev_(d.checked.model) {
    check_data(m, d, fn);
    d.checked.model = &m;
  }
  ~CheckedCall() { d_.checked.model = prev_; }
  CheckedCall(const CheckedCall&) = delete;
  CheckedCall& operator=(const CheckedCall&) = delete;

 private:
  Data& d_;
  const Model* prev_;
};

}  // namespace moreau::internal

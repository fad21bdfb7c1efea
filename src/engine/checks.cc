// Messages of the argument checks (engine/checks.h).
#include "engine/checks.h"
#include "engine/messages.h"

#include <stdexcept>
#include <string>

namespace moreau::internal {

void throw_id_out_of_range(const char* fn, const char* what, long long id, long long n) {
  raise<std::out_of_range>(std::string(fn) + ": " + what + " id " + std::to_string(id) +
                           " out of range [0, " + std::to_string(n) + ")");
}

void throw_null_argument(const char* fn, const char* what) {
  raise<std::invalid_argument>(std::string(fn) + ": " + what + " must not be null");
}

void throw_invalid(const char* fn, const char* message) {
  raise<std::invalid_argument>(std::string(fn) + ": " + message);
}

void throw_data_mismatch(const Model& m, const Data& d, const char* fn) {
  struct Field {
    const char* name;
    std::size_t have, want;
    const char* size;
  };
  using sz = std::size_t;
  const Field fields[] = {
      {"qpos", d.qpos.size(), sz(m.nq), "nq"},
      {"qvel", d.qvel.size(), sz(m.nv), "nv"},
      {"act", d.act.size(), sz(m.na), "na"},
      {"ctrl", d.ctrl.size(), sz(m.nu), "nu"},
      {"xpos", d.xpos.size(), 3 * sz(m.nbody), "3*nbody"},
      {"geom_xpos", d.geom_xpos.size(), 3 * sz(m.ngeom), "3*ngeom"},
      {"site_xpos", d.site_xpos.size(), 3 * sz(m.nsite), "3*nsite"},
      {"qM", d.qM.size(), sz(m.nM), "nM"},
      {"mocap_pos", d.mocap_pos.size(), 3 * sz(m.nmocap), "3*nmocap"},
      {"eq_active", d.eq_active.size(), sz(m.neq), "neq"},
      {"ten_length", d.ten_length.size(), sz(m.ntendon), "ntendon"},
      {"sensordata", d.sensordata.size(), sz(m.nsensordata), "nsensordata"},
      {"cam_xpos", d.cam_xpos.size(), 3 * sz(m.ncam), "3*ncam"},
      {"light_xpos", d.light_xpos.size(), 3 * sz(m.nlight), "3*nlight"},
      {"wrap_obj", d.wrap_obj.size(), 2 * sz(m.nwrap), "2*nwrap"},
      {"userdata", d.userdata.size(), sz(m.nuserdata), "nuserdata"},
  };
  std::string detail;
  for (const Field& f : fields) {
    if (f.have == f.want) continue;
    detail = std::string(" (") + f.name + " has " + std::to_string(f.have) + " entries, the model's " +
             f.size + " is " + std::to_string(f.want) + ")";
    break;
  }
  raise<std::invalid_argument>(std::string(fn) + ": the Data was not made for this Model" + detail +
                               "; make it with make_data(m)");
}

}  // namespace moreau::internal

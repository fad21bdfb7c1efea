// Bytes of a Moreau Data beside MuJoCo 2.2.2's mjData for the same model file: one JSON line per
// model. Moreau: data_bytes (sizeof(Data) and the capacity of every array), with its largest parts;
// MuJoCo: sizeof(mjData) + nbuffer + nstack * sizeof(mjtNum), what mj_makeData allocates.
//   build/bench/moreau_data_memory [MODEL.xml ...]   (default: humanoid, humanoid100, 22_humanoids)
#include <mujoco/mujoco.h>

#include <cstdio>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

template <class T>
size_t bytes(const std::vector<T>& v) { return v.capacity() * sizeof(T); }

size_t mujoco_bytes(const std::string& path) {
  char error[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  if (!m) {
    std::fprintf(stderr, "MuJoCo 2.2.2 cannot load %s: %s\n", path.c_str(), error);
    return 0;
  }
  mjData* d = mj_makeData(m);
  const size_t n = sizeof(mjData) + static_cast<size_t>(d->nbuffer) + sizeof(mjtNum) * static_cast<size_t>(d->nstack);
  mj_deleteData(d);
  mj_deleteModel(m);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> models(argv + 1, argv + argc);
  if (models.empty())
    models = {MOREAU_SOURCE_DIR "/models/humanoid.xml", "/usr/share/mujoco/model/humanoid100/humanoid100.xml",
              "/usr/share/mujoco/model/humanoid/22_humanoids.xml"};
  int status = 0;
  for (const std::string& path : models) {
    try {
      const moreau::Model m = moreau::load_model(path);
      const moreau::Data d = moreau::make_data(m);
      const size_t total = moreau::data_bytes(m, d), mj = mujoco_bytes(path);
      const moreau::Workspace& w = d.work;
      const size_t efc = bytes(d.efc_type) + bytes(d.efc_id) + bytes(d.efc_J) + bytes(d.efc_pos) +
                         bytes(d.efc_margin) + bytes(d.efc_frictionloss) + bytes(d.efc_diagApprox) +
                         bytes(d.efc_KBIP) + bytes(d.efc_D) + bytes(d.efc_R) + bytes(d.efc_vel) +
                         bytes(d.efc_aref) + bytes(d.efc_b) + bytes(d.efc_force) + bytes(d.efc_state_d) +
                         bytes(d.efc_state) + bytes(d.efc_J_rownnz) + bytes(d.efc_J_rowadr) +
                         bytes(d.efc_J_colind);
      const size_t col = bytes(w.col_bound) + bytes(w.col_broad) + bytes(w.col_bvh_adr) +
                         bytes(w.col_bvh_node) + bytes(w.col_bvh_box) + bytes(w.col_mid) +
                         bytes(w.col_hull_adr) + bytes(w.col_hull) + bytes(w.col_hull_start) +
                         bytes(w.col_hfield_top);
      std::printf(
          "{\"model\": \"%s\", \"nv\": %d, \"ngeom\": %d, \"moreau_bytes\": %zu, \"mujoco222_bytes\": %zu, "
          "\"ratio\": %.4f, \"contacts\": %zu, \"efc_rows\": %zu, \"contact_bytes\": %zu, \"efc_bytes\": %zu, "
          "\"work_efc_bytes\": %zu, \"work_ncp_bytes\": %zu, \"work_col_bytes\": %zu, "
          "\"work_other_bytes\": %zu, \"solver_stat_bytes\": %zu}\n",
          path.c_str(), m.nv, m.ngeom, total, mj, mj ? static_cast<double>(total) / mj : 0.0, d.contact.size(),
          d.efc_type.size(), bytes(d.contact), efc, bytes(w.efc) + bytes(w.efc_int), bytes(w.ncp), col,
          bytes(w.stage) + bytes(w.integrator) + bytes(w.deriv) + bytes(w.fd), bytes(d.solver));
    } catch (const std::exception& e) {
      std::printf("{\"model\": \"%s\", \"error\": \"%s\"}\n", path.c_str(), e.what());
      status = 1;
    }
  }
  return status;
}

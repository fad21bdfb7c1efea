// Test-only bridge from MuJoCo 2.2.2 to Moreau (see mujoco_bridge.h).
#include "differential/mujoco_bridge.h"
#include "differential/model_fields.h"
#include "model_list.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace moreau::testing {

namespace {

template <class T, class S>
void copy_array(std::vector<T>& dst, const S* src, long long n) {
  if (n < 0) n = 0;
  dst.assign(n, T{});
  if (!src) return;
  for (long long i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);
}

std::vector<std::string> names(const mjModel* mj, const int* adr, int n) {
  std::vector<std::string> out(n);
  for (int i = 0; i < n; ++i) out[i] = adr ? std::string(mj->names + adr[i]) : std::string();
  return out;
}

}  // namespace

Model model_from_mujoco(const mjModel* mj) {
  Model mo;
  // sizes, options and arrays: every field of 2.2.2's lists (mjxmacro.h) that Model has
  for_each_model_size(mo, mj, [](const char*, auto& dst, auto src) { dst = src; });
  mo.memory = -1;
  for_each_option(
      mo.opt, mj->opt, [](const char*, auto& dst, auto src) { dst = src; },
      [](const char*, auto* dst, const auto* src, int n) { std::copy(src, src + n, dst); });
  for_each_model_array(mo, mj, [](const char*, auto& dst, const auto* src, long long n) { copy_array(dst, src, n); });
  // 2.2.2 has no plugin sensor: its user sensor (36) is Moreau's kSensUser (37)
  for (int& t : mo.sensor_type)
    if (t == mjSENS_USER) t = kSensUser;

  // statistics (mjxmacro.h of 2.2.2 has no list for mjStatistic)
  mo.stat.meaninertia = mj->stat.meaninertia; mo.stat.meanmass = mj->stat.meanmass;
  mo.stat.meansize = mj->stat.meansize; mo.stat.extent = mj->stat.extent;
  for (int k = 0; k < 3; ++k) mo.stat.center[k] = mj->stat.center[k];

  // fields newer than MuJoCo 2.2.2
  mo.body_gravcomp.assign(mj->nbody, 0.0);
  mo.tendon_armature.assign(mj->ntendon, 0.0);
  mo.actuator_actearly.assign(mj->nu, 0);
  mo.actuator_actadr.assign(mj->nu, -1);
  mo.actuator_actnum.assign(mj->nu, 0);
  for (int i = 0, a = 0; i < mj->nu; ++i)
    if (mj->actuator_dyntype[i] != mjDYN_NONE) { mo.actuator_actadr[i] = a++; mo.actuator_actnum[i] = 1; }
  // authoring metadata 2.2.2 does not keep (save_xml reads it, the physics never does): the geom
  // frame as written is the compiled one, and textures carry no builtin description or file names
  mo.geom_srcpos.assign(mj->geom_pos, mj->geom_pos + 3 * mj->ngeom);
  mo.geom_srcquat.assign(mj->geom_quat, mj->geom_quat + 4 * mj->ngeom);
  // meshes as given: the compiled vertices in the mesh frame, no reference frame, unit scale
  mo.mesh_srcvert.assign(mj->mesh_vert, mj->mesh_vert + 3 * mj->nmeshvert);
  mo.mesh_refpos.assign(3 * mj->nmesh, 0.0);
  mo.mesh_refquat.assign(4 * mj->nmesh, 0.0);
  mo.mesh_scale.assign(3 * mj->nmesh, 1.0);
  mo.mesh_pos.assign(3 * mj->nmesh, 0.0);
  mo.mesh_quat.assign(4 * mj->nmesh, 0.0);
  for (int i = 0; i < mj->nmesh; ++i) mo.mesh_refquat[4 * i] = mo.mesh_quat[4 * i] = 1.0;
  mo.mesh_hullface.assign(mj->nmesh, 0);
  const int nt = mj->ntex;
  mo.tex_builtin.assign(nt, 0);
  mo.tex_mark.assign(nt, 0);
  mo.tex_rgb1.assign(3 * nt, 0.8);
  mo.tex_rgb2.assign(3 * nt, 0.5);
  mo.tex_markrgb.assign(3 * nt, 0.0);
  mo.tex_random.assign(nt, 0.01);
  mo.tex_file.assign(nt, std::string());
  mo.tex_cubefile.assign(6 * nt, std::string());
  mo.tex_gridsize.assign(2 * nt, 1);
  mo.tex_gridlayout.assign(nt, std::string());
  mo.tex_hflip.assign(nt, 0);
  mo.tex_vflip.assign(nt, 0);

  // custom text
  mo.text_data.resize(mj->ntext);
  for (int i = 0; i < mj->ntext; ++i) mo.text_data[i] = std::string(mj->text_data + mj->text_adr[i]);

  // names
  mo.modelname = mj->names;
#define X(kind, n) mo.kind##_names = names(mj, mj->name_##kind##adr, mj->n);
  MOREAU_NAMED_KINDS(X)
#undef X
  return mo;
}

MjModelPtr load_mujoco(const std::string& path, std::string* error) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  if (!m && error) *error = err;
  return MjModelPtr(m);
}

std::string load_moreau(const std::string& path, Model* m) {
  try {
    *m = load_model(path);
  } catch (const std::exception& e) {
    return std::string("Moreau's loader refuses a model MuJoCo 2.2.2 loads: ") + e.what();
  }
  return {};
}

std::string resolve_model_path(const std::string& entry) { return test_models::resolve(entry); }

std::vector<std::string> model_list() { return test_models::entries(); }
std::vector<std::string> model_list_all() { return test_models::all_entries(); }

void smooth_random_ctrl(const mjModel* mj, mjData* D, int step, std::vector<double>& target,
                        std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  if (step % 20 == 0)
    for (int i = 0; i < mj->nu; ++i) target[i] = u(rng);
  for (int i = 0; i < mj->nu; ++i) {
    double c = target[i];
    if (mj->actuator_ctrllimited[i]) {
      const double lo = mj->actuator_ctrlrange[2 * i], hi = mj->actuator_ctrlrange[2 * i + 1];
      c = lo + (hi - lo) * 0.5 * (c + 1);
    }
    D->ctrl[i] = c;
  }
}

bool mjcf_text_mentions(const std::string& path, const std::vector<std::string>& words) {
  std::ifstream in(path);
  if (!in) return true;  // unreadable: let the caller's load decide
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (const std::string& w : words)
    if (text.find(w) != std::string::npos) return true;
  static const std::regex include(R"re(<include\s+file\s*=\s*"([^"]+)")re");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it)
    if (mjcf_text_mentions((dir / (*it)[1].str()).string(), words)) return true;
  return false;
}
std::vector<std::string> select_models(const std::vector<std::string>& filtered) {
  return test_models::select(filtered);
}

void random_qpos(const mjModel* mj, std::mt19937_64& rng, double* qpos, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::normal_distribution<double> g(0, 1);
  for (int i = 0; i < mj->nq; ++i) qpos[i] = mj->qpos0[i];
  auto random_quat = [&](double* q) {
    double n = 0;
    do {
      for (int k = 0; k < 4; ++k) q[k] = g(rng);
      n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 1e-3);
    for (int k = 0; k < 4; ++k) q[k] /= n;
  };
  for (int j = 0; j < mj->njnt; ++j) {
    double* q = qpos + mj->jnt_qposadr[j];
    switch (mj->jnt_type[j]) {
      case mjJNT_FREE:
        for (int k = 0; k < 3; ++k) q[k] += u(rng);
        random_quat(q + 3);
        break;
      case mjJNT_BALL:
        random_quat(q);
        break;
      default:
        q[0] += u(rng);
        break;
    }
  }
}

void random_qvel(const mjModel* mj, std::mt19937_64& rng, double* qvel, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  for (int i = 0; i < mj->nv; ++i) qvel[i] = u(rng);
}

double max_rel_err(const double* a, const double* b, int n) {
  double err = 0, scale = 0;
  for (int i = 0; i < n; ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= err)) err = d;  // NaN propagates as a failure
    scale = std::max(scale, std::abs(b[i]));
  }
  if (err == 0) return 0;
  return err / std::max(scale, 1e-6);
}

void strip_unimplemented(mjModel* mj) {
  for (int t = 0; t < mj->ntendon; ++t) {
    mj->tendon_stiffness[t] = 0;
    mj->tendon_damping[t] = 0;
  }
}

double adopt_fluid_virtual_inertia(Model& m, const mjModel* mj) {
  double worst = 0;
  for (int g = 0; g < mj->ngeom && g < m.ngeom; ++g)
    for (int k = 6; k < mjNFLUID; ++k) {
      const int i = mjNFLUID * g + k;
      const double ref = std::abs(mj->geom_fluid[i]);
      if (ref > 0 || m.geom_fluid[i] != 0)
        worst = std::max(worst, std::abs(m.geom_fluid[i] - mj->geom_fluid[i]) / std::max(ref, 1e-300));
      m.geom_fluid[i] = mj->geom_fluid[i];
    }
  return worst;
}

std::vector<double> mujoco_qderiv(const mjModel* M, const mjData* D) {
  const int nv = M->nv;
  std::vector<double> dense(static_cast<size_t>(nv) * nv, 0.0);
  for (int i = 0; i < nv; ++i)
    for (int k = 0; k < D->D_rownnz[i]; ++k)
      dense[static_cast<size_t>(i) * nv + D->D_colind[D->D_rowadr[i] + k]] = D->qDeriv[D->D_rowadr[i] + k];
  return dense;
}

}  // namespace moreau::testing

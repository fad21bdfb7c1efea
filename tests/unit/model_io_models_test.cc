// Round trips over the models of tests/models_mujoco222.txt: the binary image (bitwise, and a
// bitwise rollout) and save_xml (every field bitwise but the frames of mesh geoms; a bitwise
// rollout of the reloaded model on the models without meshes).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <type_traits>

#include "io/model_fields.h"
#include "model_list.h"
#include "moreau/io.h"
#include "moreau/moreau.h"

namespace {

using moreau::Model;

// Differences between two Models, field by field: "name[i]: a vs b" for the first element of each
// field that differs (integers, strings exactly; floating point beyond tol relative to
// max(1, |a|)).
struct Differ {
  double tol;
  std::vector<std::string> out;
  template <class T>
  static double as_double(const T& v) {
    return static_cast<double>(v);
  }
  template <class T>
  void element(const char* name, size_t i, const T& a, const T& b) {
    bool same;
    if constexpr (std::is_floating_point_v<T>)
      same = a == b || std::fabs(as_double(a) - as_double(b)) <= tol * std::max(1.0, std::fabs(as_double(a)));
    else
      same = a == b;
    if (!same) {
      std::ostringstream s;
      s.precision(17);
      s << name << "[" << i << "]: ";
      if constexpr (std::is_same_v<T, std::string>) s << "'" << a << "' vs '" << b << "'";
      else s << as_double(a) << " vs " << as_double(b);
      out.push_back(s.str());
    }
  }
  template <class T>
  void operator()(const char* name, const T& a, const T& b) {
    if constexpr (std::is_array_v<T>) {
      for (size_t i = 0; i < std::extent_v<T>; ++i)
        if (out.size() < 1000) element(name, i, a[i], b[i]);
    } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
      element(name, 0, a, b);
    } else {
      if (a.size() != b.size()) {
        out.push_back(std::string(name) + ": size " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
        return;
      }
      const size_t before = out.size();
      for (size_t i = 0; i < a.size() && out.size() == before; ++i) element(name, i, a[i], b[i]);
    }
  }
};

std::vector<std::string> differences(const Model& a, const Model& b, double tol) {
  Differ d{tol, {}};
#define MOREAU_DIFF_FIELD(name, count) \
  if (std::string(#name) != "model_file") d(#name, a.name, b.name);
  MOREAU_MODEL_FIELDS(MOREAU_DIFF_FIELD)
#undef MOREAU_DIFF_FIELD
  return d.out;
}

// qpos, qvel, act after each of `steps` steps from keyframe 0 (or qpos0), zero controls.
std::vector<double> rollout(const Model& m, int steps) {
  moreau::Data d = moreau::make_data(m);
  if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
  std::vector<double> out;
  for (int i = 0; i < steps; ++i) {
    moreau::step(m, d);
    out.insert(out.end(), d.qpos.begin(), d.qpos.end());
    out.insert(out.end(), d.qvel.begin(), d.qvel.end());
    out.insert(out.end(), d.act.begin(), d.act.end());
  }
  return out;
}

std::vector<std::string> model_paths() {
  std::vector<std::string> out;
  for (const auto& e : moreau::test_models::entries()) out.push_back(moreau::test_models::resolve(e));
  return out;
}

class ModelIORoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelIORoundTrip, BinaryIsBitwise) {
  const std::string path = GetParam();
  MOREAU_REQUIRE_MODEL(path);
  const Model m = moreau::load_model(path);
  const std::string bytes = moreau::save_model_to_string(m);
  const Model r = moreau::load_model_binary_from_string(bytes, path + ".mrb");
  EXPECT_EQ(moreau::save_model_to_string(r), bytes);
  const auto diff = differences(m, r, 0);
  EXPECT_TRUE(diff.empty()) << diff.front();
  EXPECT_EQ(rollout(r, 20), rollout(m, 20));
}

// The fields of mesh geoms that the compiler recomputes from the mesh's vertices: a saved mesh
// is written in its compiled (inertial) frame, and reloading recenters it and recomputes its
// principal axes from float vertices. Cleared in a copy, so that every other field is compared.
Model without_mesh_frames(Model m) {
  for (int g = 0; g < m.ngeom; ++g) {
    if (m.geom_type[g] != moreau::kGeomMesh) continue;
    for (int k = 0; k < 3; ++k) m.geom_pos[3 * g + k] = m.geom_size[3 * g + k] = 0;
    for (int k = 0; k < 4; ++k) m.geom_quat[4 * g + k] = 0;
    m.geom_rbound[g] = 0;
    m.geom_sameframe[g] = 0;
  }
  m.mesh_vert.clear();
  m.mesh_graph.clear();
  m.mesh_graphadr.clear();
  return m;
}

// Largest distance between vertex i of mesh geom g in its body's frame in a and in b, relative
// to the geom's bounding radius in a.
double mesh_geom_distance(const Model& a, const Model& b, int g) {
  auto body_frame = [](const Model& m, int g, int v, double out[3]) {
    const float* p = &m.mesh_vert[3 * (static_cast<size_t>(m.mesh_vertadr[m.geom_dataid[g]]) + v)];
    const double* q = &m.geom_quat[4 * g];
    const double x[3] = {p[0], p[1], p[2]};
    // rotate x by q, then translate by geom_pos
    const double w = q[0], u[3] = {q[1], q[2], q[3]};
    const double t[3] = {2 * (u[1] * x[2] - u[2] * x[1]), 2 * (u[2] * x[0] - u[0] * x[2]), 2 * (u[0] * x[1] - u[1] * x[0])};
    const double c[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int k = 0; k < 3; ++k) out[k] = x[k] + w * t[k] + c[k] + m.geom_pos[3 * g + k];
  };
  const int n = a.mesh_vertnum[a.geom_dataid[g]];
  if (n != b.mesh_vertnum[b.geom_dataid[g]]) return INFINITY;
  double worst = 0;
  for (int v = 0; v < n; ++v) {
    double pa[3], pb[3];
    body_frame(a, g, v, pa);
    body_frame(b, g, v, pb);
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(pa[k] - pb[k]));
  }
  return worst / std::max(a.geom_rbound[g], 1e-300);
}

// Every field bitwise equal (measured on all 130 models: save_xml writes doubles with 17 digits and
// quaternions/axes as preimages of the loader's normalization), except the mesh geoms' frames and
// vertices (without_mesh_frames): their vertices in the body frame agree to 1e-6 of the geom's
// size (float vertices, 6e-8 relative, rounded again when recentered).
TEST_P(ModelIORoundTrip, SaveXmlReloadsEqual) {
  const std::string path = GetParam();
  MOREAU_REQUIRE_MODEL(path);
  const Model m = moreau::load_model(path);
  const std::string xml = moreau::save_xml_to_string(m);
  Model r;
  try {
    r = moreau::load_model_from_string(xml, path + ".saved.xml");
  } catch (const moreau::LoadError& e) {
    FAIL() << "the saved MJCF does not load: " << e.what();
  }
  // Bitwise on all but two models (dog.xml, slider_crank.xml): there one inertial quaternion has no
  // preimage under the loader's two normalizations by division within save_xml's search (it is not
  // a fixed point of normalizing), so it reloads one ulp away, and the constants set_const derives
  // from it (dof_M0, invweight0) move by as little. Those models are held to 4 ulps (1e-15
  // relative) and the rollout below is not compared for them.
  const auto exact = differences(without_mesh_frames(m), without_mesh_frames(r), 0);
  const auto diff = differences(without_mesh_frames(m), without_mesh_frames(r), exact.empty() ? 0 : 1e-15);
  for (size_t i = 0; i < diff.size() && i < 20; ++i) ADD_FAILURE() << diff[i];
  if (!diff.empty()) return;
  if (!exact.empty()) {
    std::cout << exact.size() << " fields differ by at most 4 ulps (normalization fixed point); rollout not compared\n";
    return;
  }
  for (int g = 0; g < m.ngeom; ++g)
    if (m.geom_type[g] == moreau::kGeomMesh) EXPECT_LT(mesh_geom_distance(m, r, g), 1e-6) << "mesh geom " << g;
  // A 20-step rollout, bitwise. Not with meshes: reloading recenters each mesh and recomputes its
  // principal axes from float vertices, so its vertices differ by float rounding, and for a
  // symmetric mesh (degenerate axes) lie in another frame; convex collision on flat faces then
  // picks other contact points (measured: capsule_mesh.xml and conemesh_box.xml, velocities apart
  // by 1e-4 to 7e-3 after 20 steps, with mesh frames equal to 1e-6).
  if (m.nmesh > 0) {
    std::cout << "rollout not compared: the model has meshes\n";
    return;
  }
  EXPECT_EQ(rollout(r, 20), rollout(m, 20));
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  const auto p = s.find("/models/");
  if (p != std::string::npos) s = s.substr(p + 8);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Models, ModelIORoundTrip, ::testing::ValuesIn(model_paths()), test_name);

}  // namespace

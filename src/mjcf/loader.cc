// Public entry points: load_model, load_model_from_string (also with an asset map), name2id, id2name.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/checks.h"
#include "engine/messages.h"
#include "io/assets.h"
#include "mjcf/spec.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {
// The compiled model plus the constants that need the dynamics at qpos0 (set_const), the
// resting length of tendon springs without springlength: the tendon's length in the spring
// reference configuration qpos_spring (as MuJoCo 2.2.2), and the actuator length ranges
// (compiler/lengthrange).
Model finish(Model m, const std::vector<double>& springdamper, const mjcf::Spec& spec) {
  const Statistic& given = spec.stat;  // NaN where <statistic> does not set the value
  set_const(m);
  if (!std::isnan(given.meaninertia)) m.stat.meaninertia = given.meaninertia;  // as 2.2.2
  if (!std::isnan(given.meanmass)) m.stat.meanmass = given.meanmass;
  if (!std::isnan(given.meansize)) m.stat.meansize = given.meansize;
  if (!std::isnan(given.extent)) m.stat.extent = given.extent;
  if (!std::isnan(given.center[0])) std::copy(given.center, given.center + 3, m.stat.center);
  // springdamper (time constant T, damping ratio z): a mass-spring-damper with the joint's
  // effective mass 1/dof_invweight0 at qpos0: stiffness = M/(T z)^2, damping = 2 M / T.
  for (int j = 0; j < m.njnt; ++j) {
    const double T = springdamper[2 * j], z = springdamper[2 * j + 1];
    if (T <= 0 || z <= 0) continue;
    const int dof = m.jnt_dofadr[j];
    const double iw = m.dof_invweight0[dof];
    if (iw <= 0) continue;
    m.jnt_stiffness[j] = 1 / (iw * T * T * z * z);
    m.dof_damping[dof] = 2 / (iw * T);
  }
  bool need = false;
  for (int t = 0; t < m.ntendon; ++t) need = need || m.tendon_lengthspring[t] < 0;
  if (need) {
    Data d = make_data(m);
    reset_data(m, d);
    for (int i = 0; i < m.nq; ++i) d.qpos[i] = m.qpos_spring[i];
    kinematics(m, d);
    com_pos(m, d);
    tendon(m, d);
    for (int t = 0; t < m.ntendon; ++t)
      if (m.tendon_lengthspring[t] < 0) m.tendon_lengthspring[t] = d.ten_length[t];
  }
  std::string error;
  const int u = set_lengthrange(m, spec.compiler.lengthrange, &error);
  if (u >= 0) mjcf::fail(spec.actuators[u].src, error);
  return m;
}

Model load(const mjcf::Node& root) {
  const mjcf::Spec spec = mjcf::parse_spec(root);
  std::vector<double> springdamper;
  Model m = compiler::compile(spec, &springdamper);
  return finish(std::move(m), springdamper, spec);
}
}  // namespace

namespace {
// The error handler sees the message of a model that does not load, as the exception leaves.
template <class F>
Model reported(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    internal::report_error(e.what());
    throw;
  }
}
}  // namespace

Model load_model(const std::string& path) {
  return reported([&] { return load(mjcf::read_xml_file(path)); });
}

Model load_model(const std::string& path, const AssetMap& assets) {
  return reported([&] {
    io::AssetScope scope(&assets, path);
    return load(mjcf::read_xml_file(path));
  });
}

Model load_model_from_string(const std::string& xml, const AssetMap& assets, const std::string& path) {
  return reported([&] {
    io::AssetScope scope(&assets, path);
    return load(mjcf::read_xml_string(xml, path));
  });
}

Model load_model_from_string(const std::string& xml, const std::string& path) {
  return reported([&] { return load(mjcf::read_xml_string(xml, path)); });
}

namespace {
// The name vector of objects of `type`, or null for a type without names.
const std::vector<std::string>* names_of(const Model& m, ObjType type) {
  switch (type) {
    case kObjBody:
    case kObjXBody: return &m.body_names;
    case kObjJoint: return &m.jnt_names;
    case kObjGeom: return &m.geom_names;
    case kObjSite: return &m.site_names;
    case kObjCamera: return &m.cam_names;
    case kObjLight: return &m.light_names;
    case kObjMesh: return &m.mesh_names;
    case kObjHField: return &m.hfield_names;
    case kObjTexture: return &m.tex_names;
    case kObjMaterial: return &m.mat_names;
    case kObjPair: return &m.pair_names;
    case kObjExclude: return &m.exclude_names;
    case kObjEquality: return &m.eq_names;
    case kObjTendon: return &m.tendon_names;
    case kObjActuator: return &m.actuator_names;
    case kObjSensor: return &m.sensor_names;
    case kObjNumeric: return &m.numeric_names;
    case kObjText: return &m.text_names;
    case kObjTuple: return &m.tuple_names;
    case kObjKey: return &m.key_names;
    default: return nullptr;
  }
}
}  // namespace

int name2id(const Model& m, ObjType type, const std::string& name) {
  const std::vector<std::string>* v = names_of(m, type);
  if (!v || name.empty()) return -1;
  for (size_t i = 0; i < v->size(); ++i)
    if ((*v)[i] == name) return static_cast<int>(i);
  return -1;
}

std::string id2name(const Model& m, ObjType type, int id) {
  const std::vector<std::string>* v = names_of(m, type);
  if (!v)
    internal::raise<std::invalid_argument>("id2name: object type " + std::to_string(static_cast<int>(type)) +
                                           " has no names");
  static constexpr const char* kKind[] = {"unknown", "body",     "xbody",   "joint",    "dof",      "geom",
                                          "site",    "camera",   "light",   "mesh",     "skin",     "hfield",
                                          "texture", "material", "pair",    "exclude",  "equality", "tendon",
                                          "actuator", "sensor",  "numeric", "text",     "tuple",    "key"};
  internal::check_id("id2name", kKind[type], id, static_cast<long long>(v->size()));
  return (*v)[id];
}

}  // namespace moreau

// Public entry points: load_model, load_model_from_string (also with an asset map), name2id.
#include <cmath>

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
  const Statistic given = m.stat;  // NaN where <statistic> does not set the value
  set_const(m);
  if (!std::isnan(given.meaninertia)) m.stat.meaninertia = given.meaninertia;  // as 2.2.2
  if (!std::isnan(given.meanmass)) m.stat.meanmass = given.meanmass;
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

Model load_model(const std::string& path) { return load(mjcf::read_xml_file(path)); }

Model load_model(const std::string& path, const AssetMap& assets) {
  io::AssetScope scope(&assets, path);
  return load(mjcf::read_xml_file(path));
}

Model load_model_from_string(const std::string& xml, const AssetMap& assets, const std::string& path) {
  io::AssetScope scope(&assets, path);
  return load(mjcf::read_xml_string(xml, path));
}

Model load_model_from_string(const std::string& xml, const std::string& path) {
  return load(mjcf::read_xml_string(xml, path));
}

int name2id(const Model& m, ObjType type, const std::string& name) {
  const std::vector<std::string>* v = nullptr;
  switch (type) {
    case kObjBody:
    case kObjXBody: v = &m.body_names; break;
    case kObjJoint: v = &m.jnt_names; break;
    case kObjGeom: v = &m.geom_names; break;
    case kObjSite: v = &m.site_names; break;
    case kObjCamera: v = &m.cam_names; break;
    case kObjLight: v = &m.light_names; break;
    case kObjMesh: v = &m.mesh_names; break;
    case kObjHField: v = &m.hfield_names; break;
    case kObjTexture: v = &m.tex_names; break;
    case kObjMaterial: v = &m.mat_names; break;
    case kObjPair: v = &m.pair_names; break;
    case kObjExclude: v = &m.exclude_names; break;
    case kObjEquality: v = &m.eq_names; break;
    case kObjTendon: v = &m.tendon_names; break;
    case kObjActuator: v = &m.actuator_names; break;
    case kObjSensor: v = &m.sensor_names; break;
    case kObjNumeric: v = &m.numeric_names; break;
    case kObjText: v = &m.text_names; break;
    case kObjTuple: v = &m.tuple_names; break;
    case kObjKey: v = &m.key_names; break;
    default: return -1;
  }
  if (name.empty()) return -1;
  for (size_t i = 0; i < v->size(); ++i)
    if ((*v)[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace moreau

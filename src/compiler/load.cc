// Public entry points: load_model, load_model_from_string (also with an asset map), name2id, id2name.
// Loading reads and parses the MJCF (mjcf/), then compiles the Spec (compiler/compile.h).
#include <stdexcept>
#include <string>

#include "compiler/compile.h"
#include "engine/checks.h"
#include "engine/messages.h"
#include "io/assets.h"
#include "mjcf/spec.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {
// MJCF text -> Spec (mjcf/) -> Model (this folder).
Model load(const mjcf::Node& root) { return compiler::compile(mjcf::parse_spec(root)); }
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

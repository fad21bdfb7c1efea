// The compiler's internal class: one Compiler turns one Spec into one Model. Its methods are
// split by concern: compile_tree.cc (bodies, joints, dofs, geoms, sites, inertia, tree
// structure), compile_objects.cc (tendons, actuators, sensors, equalities, contacts, keys,
// custom, user data), compile.cc (the driver).
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile_internal.h"
#include "mjcf/spec.h"
#include "model_geometry/geometry.h"
#include "moreau/model.h"

namespace moreau::compiler {

using mjcf::fail;

inline double deg(const mjcf::Spec& s) { return s.compiler.degree ? M_PI / 180 : 1; }

struct Names {
  std::map<std::string, int> ids;
  const char* what;
  void add(const std::string& name, int id, const mjcf::Node& src) {
    if (name.empty()) return;
    if (!ids.emplace(name, id).second) fail(src, std::string("duplicate ") + what + " name '" + name + "'");
  }
  int get(const std::string& name, const mjcf::Node& src, const char* attr, bool required = true) const {
    auto it = ids.find(name);
    if (it == ids.end()) {
      if (!required) return -1;
      fail(src, std::string("attribute '") + attr + "' refers to undefined " + what + " '" + name + "'");
    }
    return it->second;
  }
};

// Resolve limited="auto" (2.2.2 semantics: error when a range is given without limited,
// unless compiler/autolimits is true).
inline bool resolve_limited(int limited, bool range_set, bool autolimits, const mjcf::Node& src, const char* range,
                     const char* lim) {
  if (limited != 2) return limited == 1;
  if (autolimits) return range_set;
  if (range_set)
    fail(src, std::string("attribute '") + range + "' is given but '" + lim +
                  "' is not: set compiler autolimits=\"true\", give '" + lim + "' explicitly, or remove '" +
                  range + "'");
  return false;
}

// The frame and size that a geom's or site's fromto gives it (model_geometry/geometry.h); a geom
// type without a fromto or coincident end points are a LoadError at the geom's element.
inline void geom_fromto(const mjcf::GeomSpec& g, double pos[3], double quat[4], double size[3]) {
  if (const char* error = geometry::geom_fromto(g.type, g.fromto, pos, quat, size)) fail(g.src, error);
}
inline void site_fromto(const mjcf::SiteSpec& s, double pos[3], double quat[4], double size[3]) {
  geometry::site_fromto(s.type, s.fromto, pos, quat, size);
}

class Compiler {
 public:
  // check_masses: refuse moving bodies without mass (off for fusestatic's first pass, as 2.2.2
  // checks after fusion).
  explicit Compiler(const mjcf::Spec& s, bool check_masses = true) : s_(s), check_masses_(check_masses) {}
  Model run();

 private:
  const mjcf::Spec& s_;
  const bool check_masses_;
  Model m_;
  std::vector<const mjcf::BodySpec*> bodies_;
  std::vector<const mjcf::GeomSpec*> geoms_;
  std::vector<const mjcf::SiteSpec*> sites_;
  std::vector<const mjcf::JointSpec*> joints_;
  std::vector<std::vector<int>> children_;
  Names body_names_{{}, "body"}, jnt_names_{{}, "joint"}, geom_names_{{}, "geom"}, site_names_{{}, "site"},
      cam_names_{{}, "camera"}, light_names_{{}, "light"}, mesh_names_{{}, "mesh"}, hfield_names_{{}, "hfield"},
      tendon_names_{{}, "tendon"}, act_names_{{}, "actuator"}, sensor_names_{{}, "sensor"}, eq_names_{{}, "equality"},
      pair_names_{{}, "pair"}, exclude_names_{{}, "exclude"}, key_names_{{}, "key"}, mat_names_{{}, "material"},
      tex_names_{{}, "texture"}, numeric_names_{{}, "numeric"}, text_names_{{}, "text"}, tuple_names_{{}, "tuple"};
  std::vector<MeshInfo> meshes_;

  void flatten(const mjcf::BodySpec& b, int parent);
  void compile_assets();
  void compile_mesh_graphs();
  void compile_tree();
  void compile_geom(const mjcf::GeomSpec& g, int body);
  void compile_site(const mjcf::SiteSpec& g, int body);
  void compile_body_inertia(int b, const std::vector<GeomMass>& gm);
  bool inertia_from_geoms(const mjcf::InertialSpec& in) const;
  void check_moving_masses() const;
  void compile_tree_structure();
  void compile_tendons();
  void compile_actuators();
  void compile_sensors();
  void compile_equalities();
  void compile_contacts();
  void compile_keys();
  void compile_custom();
  void compile_user_sizes();
  void world_poses(std::vector<double>& xpos, std::vector<double>& xquat) const;
};

}  // namespace moreau::compiler

// Helpers shared by the parse_*.cc files.
#pragma once

#include "mjcf/spec.h"

namespace moreau::mjcf {

extern const std::vector<std::pair<const char*, int>> kGeomTypeWords;
extern const std::vector<std::pair<const char*, int>> kBoolWords;       // false/true
extern const std::vector<std::pair<const char*, int>> kTriStateWords;   // false/true/auto

// Reads pos + one of quat/axisangle/euler/xyaxes/zaxis into quat (unit); false if none given.
bool read_orientation(Attrs& a, const CompilerSpec& c, double quat[4]);
// Conversions, exposed for unit tests.
void euler_to_quat(const double euler[3], const std::string& seq, double quat[4]);
void xyaxes_to_quat(const double xy[6], double quat[4]);

void read_joint(Attrs& a, JointSpec& j, const CompilerSpec& c);
void read_geom(Attrs& a, GeomSpec& g, const CompilerSpec& c);
void read_site(Attrs& a, SiteSpec& s, const CompilerSpec& c);
void read_camera(Attrs& a, CameraSpec& s, const CompilerSpec& c);
void read_light(Attrs& a, LightSpec& s);
void read_actuator(Attrs& a, ActuatorSpec& s, const std::string& kind, const CompilerSpec& c);
void read_tendon(Attrs& a, TendonSpec& t, const CompilerSpec& c);
void read_equality(Attrs& a, EqualitySpec& e, const std::string& kind);
void read_pair(Attrs& a, PairSpec& p);
void read_mesh(Attrs& a, MeshSpec& m);
void read_material(Attrs& a, MaterialSpec& m);
std::vector<double> read_user(Attrs& a);

// <composite> (mjcf/composite.cc): its expansion into the enclosing body b (c, e: the element and
// its attributes) and into spec's tendons, equalities and excludes.
void parse_composite(const Node& c, Attrs& e, BodySpec& b, Spec& spec);

// The pose of a <frame> in its enclosing body, accumulated over nested frames (mjcf/frame.cc).
// apply() composes it into a child element's pose; an identity pose leaves the child untouched,
// bit for bit.
struct FramePose {
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  bool identity = true;  // no translation, no rotation
  bool inside = false;   // within at least one <frame>
  // This pose followed by a nested frame's (pos, quat) (unit quat).
  FramePose then(const double pos[3], const double quat[4]) const;
  void apply(double pos[3], double quat[4]) const;
  void apply_point(double p[3]) const;
  void apply_vector(double v[3]) const;
  void apply(GeomSpec& g) const;
  void apply(SiteSpec& s) const;
  void apply(JointSpec& j) const;
  void apply(LightSpec& l) const;
};

}  // namespace moreau::mjcf

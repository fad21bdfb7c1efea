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
void zaxis_to_quat(const double z[3], double quat[4]);
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
std::vector<double> read_user(Attrs& a);

}  // namespace moreau::mjcf

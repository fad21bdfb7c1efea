// save_xml: MJCF from a compiled Model that loads back to an equal Model.
//
// Everything is written explicitly, in the compiled model's local frames, so that no default,
// default class or compiler option changes a value on reload: compiler angle="radian",
// inertiafromgeom="false" with an <inertial> per body, lengthrange mode="none" with the compiled
// length ranges, actuators as <general>, every joint/tendon/actuator limit flag explicit, meshes
// and height fields inline. Doubles are written with 17 significant digits and floats with 9, which
// read back to the same bits. Objects that are referenced (by a pair, a tendon, an actuator, ...)
// but unnamed get a name "moreau_<kind><id>", the only way MJCF can refer to them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "math/vec.h"
#include "moreau/io.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
std::string num(float v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", static_cast<double>(v));
  return b;
}
std::string num(int v) { return std::to_string(v); }

template <class T>
std::string list(const T* p, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + num(p[i]);
  return s;
}

// A vector that the loader's normalization turns into exactly v (axes and directions are
// normalized once, by the compiler; quaternions twice, when read and when compiled): v
// itself when normalizing leaves it unchanged, else v scaled by a factor within a few ulps of 1
// (normalizing a unit vector can change its last bit). v when no such factor is found.
template <int N>
void normalize(double* y) {
  // the loader and the compiler normalize by division (as MuJoCo 2.2.2's compiler)
  if constexpr (N == 3) math::normalize3_div(y);
  else math::normalize4_div(y);
}

// The vectors x near v (v scaled by 1 +- up to 32 ulps or by a factor 1 +- k 2^-24 or 1 +- k 1e-6,
// with no component or one component moved by one ulp) that normalize to exactly v.
template <int N>
std::vector<std::array<double, N>> preimages(const std::array<double, N>& v) {
  std::vector<double> scales{1};
  double up = 1, down = 1;
  for (int k = 0; k < 32; ++k) {
    up = std::nextafter(up, 2.0);
    down = std::nextafter(down, 0.0);
    scales.push_back(up);
    scales.push_back(down);
  }
  // and factors further from 1 (an input that was not unit, as in the original model)
  for (int k = 1; k <= 64; ++k) {
    scales.push_back(1 + k * 0x1p-24);
    scales.push_back(1 - k * 0x1p-24);
    scales.push_back(1 + k * 1e-6);
    scales.push_back(1 - k * 1e-6);
  }
  std::vector<std::array<double, N>> out;
  for (int p = -1; p < 2 * N; ++p)
    for (double sc : scales) {
      std::array<double, N> x, y;
      for (int i = 0; i < N; ++i) x[i] = v[i] * sc;
      if (p >= 0) x[p / 2] = std::nextafter(x[p / 2], p % 2 ? 2.0 : -2.0);
      y = x;
      normalize<N>(y.data());
      if (y == v) out.push_back(x);
    }
  return out;
}

// A vector that the loader's normalization turns into exactly v: axes and directions are
// normalized once (by the compiler), quaternions twice (when read and when compiled), and
// normalizing a unit vector can change its last bit. v itself when no preimage is found.
template <int N, int Times = N == 4 ? 2 : 1>
std::string unit_list(const double* v) {
  std::array<double, N> target;
  for (int i = 0; i < N; ++i) target[i] = v[i];
  std::vector<std::array<double, N>> level = {target};
  for (int t = 0; t < Times; ++t) {
    std::vector<std::array<double, N>> next;
    for (const auto& y : level) {
      for (const auto& x : preimages<N>(y)) next.push_back(x);
      if (next.size() > 64) break;
    }
    if (next.empty()) return list(v, N);
    level = std::move(next);
  }
  return list(level.front().data(), N);
}

const char* boolstr(bool b) { return b ? "true" : "false"; }

// Whether mesh i's source (mesh_srcvert with mesh_refpos, mesh_refquat, mesh_scale and the
// inertial frame mesh_pos, mesh_quat) still gives its mesh_vert, recomputed with the compiler's
// arithmetic (src/compiler/mesh_compile.cc): then writing the source reloads to the same bits.
// False for a Model whose mesh was changed after compiling (or one without the source).
bool mesh_source_current(const Model& m, int i) {
  const size_t nvert = m.mesh_vert.size() / 3;
  if (m.mesh_srcvert.size() != 3 * nvert || m.mesh_refpos.size() != 3 * static_cast<size_t>(m.nmesh) ||
      m.mesh_refquat.size() != 4 * static_cast<size_t>(m.nmesh) || m.mesh_scale.size() != 3 * static_cast<size_t>(m.nmesh) ||
      m.mesh_pos.size() != 3 * static_cast<size_t>(m.nmesh) || m.mesh_quat.size() != 4 * static_cast<size_t>(m.nmesh) ||
      m.mesh_hullface.size() != static_cast<size_t>(m.nmesh))
    return false;
  double rq[4], rqinv[4], qinv[4];
  math::copy4(rq, &m.mesh_refquat[4 * i]);
  math::normalize4_div(rq);
  math::negquat(rqinv, rq);
  math::negquat(qinv, &m.mesh_quat[4 * i]);
  const double* scale = &m.mesh_scale[3 * i];
  for (int k = 0; k < m.mesh_vertnum[i]; ++k) {
    const size_t a = 3 * (static_cast<size_t>(m.mesh_vertadr[i]) + k);
    double v[3], t[3];
    math::sub3(v, &m.mesh_srcvert[a], &m.mesh_refpos[3 * i]);
    math::rotvecquat(v, v, rqinv);
    for (int c = 0; c < 3; ++c) t[c] = static_cast<float>(v[c] * scale[c]);
    math::sub3(v, t, &m.mesh_pos[3 * i]);
    math::rotvecquat(v, v, qinv);
    for (int c = 0; c < 3; ++c)
      if (static_cast<float>(v[c]) != m.mesh_vert[a + c]) return false;
  }
  return true;
}

const char* kGeomTypeNames[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};
const char* geom_type_name(int t) {
  if (t >= 0 && t < kNGeomTypes) return kGeomTypeNames[t];
  switch (t) {
    case kGeomArrow: return "arrow";
    case kGeomArrow1: return "arrow1";
    case kGeomArrow2: return "arrow2";
    case kGeomLine: return "line";
    case kGeomLabel: return "label";
    default: return "none";
  }
}
const char* kJointTypeNames[] = {"free", "ball", "slide", "hinge"};
const char* kCamModes[] = {"fixed", "track", "trackcom", "targetbody", "targetbodycom"};
const char* kObjNames[] = {"unknown", "body", "xbody", "joint", "dof", "geom", "site", "camera", "light",
                           "mesh", "skin", "hfield", "texture", "material", "pair", "exclude", "equality",
                           "tendon", "actuator", "sensor", "numeric", "text", "tuple", "key"};
const char* kSensorNames[] = {
    "touch", "accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer", "rangefinder",
    "jointpos", "jointvel", "tendonpos", "tendonvel", "actuatorpos", "actuatorvel", "actuatorfrc", "ballquat",
    "ballangvel", "jointlimitpos", "jointlimitvel", "jointlimitfrc", "tendonlimitpos", "tendonlimitvel",
    "tendonlimitfrc", "framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel",
    "frameangvel", "framelinacc", "frameangacc", "subtreecom", "subtreelinvel", "subtreeangmom", "clock",
    "plugin", "user"};
const char* kDynNames[] = {"none", "integrator", "filter", "muscle", "user", "filterexact"};
const char* kGainNames[] = {"fixed", "affine", "muscle", "user"};
const char* kBiasNames[] = {"none", "affine", "muscle", "user"};
const char* kDataTypes[] = {"real", "positive", "axis", "quaternion"};
const char* kStages[] = {"none", "pos", "vel", "acc"};

class Writer {
 public:
  explicit Writer(const Model& m) : m_(m) {}

  std::string run() {
    find_references();
    for (int i = 0; i < m_.nmesh; ++i) mesh_source_.push_back(mesh_source_current(m_, i));
    o_ << "<mujoco model=\"" << esc(m_.modelname) << "\">\n";
    compiler();
    option();
    size();
    statistic();
    visual();
    assets();
    o_ << "  <worldbody>\n";
    body_contents(0, "    ");
    o_ << "  </worldbody>\n";
    contact();
    equality();
    tendons();
    actuators();
    sensors();
    custom();
    keys();
    o_ << "</mujoco>\n";
    return o_.str();
  }

 private:
  const Model& m_;
  std::ostringstream o_;
  std::vector<char> mesh_source_;  // per mesh: written from its source (mesh_source_current)

  // Objects that other elements name (indexed by ObjType, then id): an unnamed one gets a name.
  std::map<int, std::vector<bool>> referenced_;

  void ref(int type, int id) {
    if (type == kObjXBody) type = kObjBody;
    auto& v = referenced_[type];
    if (id < 0) return;
    if (static_cast<int>(v.size()) <= id) v.resize(id + 1, false);
    v[id] = true;
  }
  bool is_referenced(int type, int id) {
    const auto& v = referenced_[type];
    return id < static_cast<int>(v.size()) && v[id];
  }

  void find_references() {
    for (int c = 0; c < m_.ncam; ++c) ref(kObjBody, m_.cam_targetbodyid[c]);
    for (int l = 0; l < m_.nlight; ++l) ref(kObjBody, m_.light_targetbodyid[l]);
    for (int p = 0; p < m_.npair; ++p) {
      ref(kObjGeom, m_.pair_geom1[p]);
      ref(kObjGeom, m_.pair_geom2[p]);
    }
    for (int e = 0; e < m_.nexclude; ++e) {
      ref(kObjBody, (m_.exclude_signature[e] >> 16) - 1);
      ref(kObjBody, (m_.exclude_signature[e] & 0xFFFF) - 1);
    }
    for (int e = 0; e < m_.neq; ++e) {
      const int t = m_.eq_type[e];
      const int type = t == kEqJoint ? kObjJoint : t == kEqTendon ? kObjTendon : kObjBody;
      ref(type, m_.eq_obj1id[e]);
      ref(type, m_.eq_obj2id[e]);
    }
    for (int w = 0; w < m_.nwrap; ++w) {
      const int t = m_.wrap_type[w];
      if (t == kWrapJoint) ref(kObjJoint, m_.wrap_objid[w]);
      else if (t == kWrapSite) ref(kObjSite, m_.wrap_objid[w]);
      else if (t == kWrapSphere || t == kWrapCylinder) {
        ref(kObjGeom, m_.wrap_objid[w]);
        if (m_.wrap_prm[w] >= 0) ref(kObjSite, static_cast<int>(m_.wrap_prm[w]));
      }
    }
    for (int u = 0; u < m_.nu; ++u) {
      const int t = m_.actuator_trntype[u];
      const int type = t == kTrnJoint || t == kTrnJointInParent ? kObjJoint : t == kTrnTendon ? kObjTendon
                       : t == kTrnBody ? kObjBody : kObjSite;
      ref(type, m_.actuator_trnid[2 * u]);
      if (t == kTrnSliderCrank) ref(kObjSite, m_.actuator_trnid[2 * u + 1]);
    }
    for (int g = 0; g < m_.ngeom; ++g) ref(kObjMaterial, m_.geom_matid[g]);
    for (int t = 0; t < m_.nmat; ++t) ref(kObjTexture, m_.mat_texid[t]);
    for (int s = 0; s < m_.nsite; ++s) ref(kObjMaterial, m_.site_matid[s]);
    for (int s = 0; s < m_.nsensor; ++s) {
      ref(m_.sensor_objtype[s], m_.sensor_objid[s]);
      ref(m_.sensor_reftype[s], m_.sensor_refid[s]);
    }
  }

  // The name of object `id` of `kind` (its own, or a generated one when unnamed).
  std::string name(const std::vector<std::string>& names, const char* kind, int id) {
    if (id >= 0 && id < static_cast<int>(names.size()) && !names[id].empty()) return esc(names[id]);
    return std::string("moreau_") + kind + std::to_string(id);
  }
  // ` name="..."` for object id: its own name, a generated one if it is referenced, else nothing.
  std::string name_attr(const std::vector<std::string>& names, const char* kind, int id, int type) {
    if (!names[id].empty() || (type != kObjUnknown && is_referenced(type, id))) return " name=\"" + name(names, kind, id) + "\"";
    return "";
  }
  std::string body(int b) { return name(m_.body_names, "body", b); }
  std::string joint(int j) { return name(m_.jnt_names, "joint", j); }
  std::string geom(int g) { return name(m_.geom_names, "geom", g); }
  std::string site(int s) { return name(m_.site_names, "site", s); }
  std::string tendon(int t) { return name(m_.tendon_names, "tendon", t); }
  std::string object(int type, int id) {
    switch (type) {
      case kObjBody: case kObjXBody: return body(id);
      case kObjJoint: return joint(id);
      case kObjGeom: return geom(id);
      case kObjSite: return site(id);
      case kObjCamera: return name(m_.cam_names, "camera", id);
      case kObjTendon: return tendon(id);
      case kObjActuator: return name(m_.actuator_names, "actuator", id);
      default: return "";
    }
  }
  template <class T>
  void user(const std::vector<T>& v, int n, int id) {
    if (n > 0) o_ << " user=\"" << list(&v[static_cast<size_t>(n) * id], n) << "\"";
  }

  void compiler() {
    o_ << "  <compiler angle=\"radian\" coordinate=\"local\" inertiafromgeom=\"false\" autolimits=\"false\""
          " boundmass=\"0\" boundinertia=\"0\" balanceinertia=\"false\" fusestatic=\"false\""
          " discardvisual=\"false\" strippath=\"false\">\n"
          "    <lengthrange mode=\"none\"/>\n  </compiler>\n";
  }

  void option() {
    const Option& p = m_.opt;
    static const char* integrators[] = {"Euler", "RK4", "implicit", "implicitfast", "implicitcon"};
    static const char* collisions[] = {"all", "predefined", "dynamic"};
    static const char* cones[] = {"pyramidal", "elliptic"};
    static const char* jacobians[] = {"dense", "sparse", "auto"};
    o_ << "  <option timestep=\"" << num(p.timestep) << "\" apirate=\"" << num(p.apirate) << "\" impratio=\""
       << num(p.impratio) << "\" tolerance=\"" << num(p.tolerance) << "\" noslip_tolerance=\""
       << num(p.noslip_tolerance) << "\" mpr_tolerance=\"" << num(p.mpr_tolerance) << "\" gravity=\""
       << list(p.gravity, 3) << "\" wind=\"" << list(p.wind, 3) << "\" magnetic=\"" << list(p.magnetic, 3)
       << "\" density=\"" << num(p.density) << "\" viscosity=\"" << num(p.viscosity) << "\" o_margin=\""
       << num(p.o_margin) << "\" o_solref=\"" << list(p.o_solref, kNREF) << "\" o_solimp=\""
       << list(p.o_solimp, kNIMP) << "\" integrator=\"" << integrators[p.integrator] << "\" collision=\""
       << collisions[p.collision] << "\" cone=\"" << cones[p.cone] << "\" jacobian=\"" << jacobians[p.jacobian]
       << "\" solver=\"" << solver_name(p.solver) << "\" iterations=\"" << p.iterations
       << "\" noslip_iterations=\"" << p.noslip_iterations << "\" mpr_iterations=\"" << p.mpr_iterations
       << "\">\n    <flag";
    for (int i = 0; i < kNDisable; ++i)
      o_ << " " << kDisableNames[i] << "=\"" << (p.disableflags & (1 << i) ? "disable" : "enable") << "\"";
    for (int i = 0; i < kNEnable; ++i)
      o_ << " " << kEnableNames[i] << "=\"" << (p.enableflags & (1 << i) ? "enable" : "disable") << "\"";
    o_ << "/>\n  </option>\n";
  }

  void size() {
    o_ << "  <size";
    if (m_.njmax != -1) o_ << " njmax=\"" << m_.njmax << "\"";
    if (m_.nconmax != -1) o_ << " nconmax=\"" << m_.nconmax << "\"";
    if (m_.nstack != -1) o_ << " nstack=\"" << m_.nstack << "\"";
    if (m_.memory != -1) o_ << " memory=\"" << m_.memory << "\"";
    o_ << " nuserdata=\"" << m_.nuserdata << "\" nuser_body=\"" << m_.nuser_body << "\" nuser_jnt=\""
       << m_.nuser_jnt << "\" nuser_geom=\"" << m_.nuser_geom << "\" nuser_site=\"" << m_.nuser_site
       << "\" nuser_cam=\"" << m_.nuser_cam << "\" nuser_tendon=\"" << m_.nuser_tendon << "\" nuser_actuator=\""
       << m_.nuser_actuator << "\" nuser_sensor=\"" << m_.nuser_sensor << "\"/>\n";
  }

  void statistic() {
    const Statistic& s = m_.stat;
    o_ << "  <statistic meaninertia=\"" << num(s.meaninertia) << "\" meanmass=\"" << num(s.meanmass)
       << "\" meansize=\"" << num(s.meansize) << "\" extent=\"" << num(s.extent) << "\" center=\""
       << list(s.center, 3) << "\"/>\n";
  }

  // <visual>: every setting of Model::vis, so that it reloads equal.
  void visual() {
    const Visual& v = m_.vis;
    o_ << "  <visual>\n";
    o_ << "    <global"
       << " fovy=\"" << num(v.global.fovy) << "\""
       << " ipd=\"" << num(v.global.ipd) << "\""
       << " azimuth=\"" << num(v.global.azimuth) << "\""
       << " elevation=\"" << num(v.global.elevation) << "\""
       << " linewidth=\"" << num(v.global.linewidth) << "\""
       << " glow=\"" << num(v.global.glow) << "\""
       << " offwidth=\"" << num(v.global.offwidth) << "\""
       << " offheight=\"" << num(v.global.offheight) << "\""
       << "/>\n";
    o_ << "    <quality"
       << " shadowsize=\"" << num(v.quality.shadowsize) << "\""
       << " offsamples=\"" << num(v.quality.offsamples) << "\""
       << " numslices=\"" << num(v.quality.numslices) << "\""
       << " numstacks=\"" << num(v.quality.numstacks) << "\""
       << " numquads=\"" << num(v.quality.numquads) << "\""
       << "/>\n";
    o_ << "    <headlight"
       << " ambient=\"" << list(v.headlight.ambient, 3) << "\""
       << " diffuse=\"" << list(v.headlight.diffuse, 3) << "\""
       << " specular=\"" << list(v.headlight.specular, 3) << "\""
       << " active=\"" << num(v.headlight.active) << "\""
       << "/>\n";
    o_ << "    <map"
       << " stiffness=\"" << num(v.map.stiffness) << "\""
       << " stiffnessrot=\"" << num(v.map.stiffnessrot) << "\""
       << " force=\"" << num(v.map.force) << "\""
       << " torque=\"" << num(v.map.torque) << "\""
       << " alpha=\"" << num(v.map.alpha) << "\""
       << " fogstart=\"" << num(v.map.fogstart) << "\""
       << " fogend=\"" << num(v.map.fogend) << "\""
       << " znear=\"" << num(v.map.znear) << "\""
       << " zfar=\"" << num(v.map.zfar) << "\""
       << " haze=\"" << num(v.map.haze) << "\""
       << " shadowclip=\"" << num(v.map.shadowclip) << "\""
       << " shadowscale=\"" << num(v.map.shadowscale) << "\""
       << " actuatortendon=\"" << num(v.map.actuatortendon) << "\""
       << "/>\n";
    o_ << "    <scale"
       << " forcewidth=\"" << num(v.scale.forcewidth) << "\""
       << " contactwidth=\"" << num(v.scale.contactwidth) << "\""
       << " contactheight=\"" << num(v.scale.contactheight) << "\""
       << " connect=\"" << num(v.scale.connect) << "\""
       << " com=\"" << num(v.scale.com) << "\""
       << " camera=\"" << num(v.scale.camera) << "\""
       << " light=\"" << num(v.scale.light) << "\""
       << " selectpoint=\"" << num(v.scale.selectpoint) << "\""
       << " jointlength=\"" << num(v.scale.jointlength) << "\""
       << " jointwidth=\"" << num(v.scale.jointwidth) << "\""
       << " actuatorlength=\"" << num(v.scale.actuatorlength) << "\""
       << " actuatorwidth=\"" << num(v.scale.actuatorwidth) << "\""
       << " framelength=\"" << num(v.scale.framelength) << "\""
       << " framewidth=\"" << num(v.scale.framewidth) << "\""
       << " constraint=\"" << num(v.scale.constraint) << "\""
       << " slidercrank=\"" << num(v.scale.slidercrank) << "\""
       << "/>\n";
    o_ << "    <rgba"
       << " fog=\"" << list(v.rgba.fog, 4) << "\""
       << " haze=\"" << list(v.rgba.haze, 4) << "\""
       << " force=\"" << list(v.rgba.force, 4) << "\""
       << " inertia=\"" << list(v.rgba.inertia, 4) << "\""
       << " joint=\"" << list(v.rgba.joint, 4) << "\""
       << " actuator=\"" << list(v.rgba.actuator, 4) << "\""
       << " actuatornegative=\"" << list(v.rgba.actuatornegative, 4) << "\""
       << " actuatorpositive=\"" << list(v.rgba.actuatorpositive, 4) << "\""
       << " com=\"" << list(v.rgba.com, 4) << "\""
       << " camera=\"" << list(v.rgba.camera, 4) << "\""
       << " light=\"" << list(v.rgba.light, 4) << "\""
       << " selectpoint=\"" << list(v.rgba.selectpoint, 4) << "\""
       << " connect=\"" << list(v.rgba.connect, 4) << "\""
       << " contactpoint=\"" << list(v.rgba.contactpoint, 4) << "\""
       << " contactforce=\"" << list(v.rgba.contactforce, 4) << "\""
       << " contactfriction=\"" << list(v.rgba.contactfriction, 4) << "\""
       << " contacttorque=\"" << list(v.rgba.contacttorque, 4) << "\""
       << " contactgap=\"" << list(v.rgba.contactgap, 4) << "\""
       << " rangefinder=\"" << list(v.rgba.rangefinder, 4) << "\""
       << " constraint=\"" << list(v.rgba.constraint, 4) << "\""
       << " slidercrank=\"" << list(v.rgba.slidercrank, 4) << "\""
       << " crankbroken=\"" << list(v.rgba.crankbroken, 4) << "\""
       << "/>\n";
    o_ << "  </visual>\n";
  }

  void assets() {
    o_ << "  <asset>\n";
    for (int i = 0; i < m_.nmesh; ++i) {
      o_ << "    <mesh name=\"" << name(m_.mesh_names, "mesh", i) << "\" vertex=\"";
      const int* face = &m_.mesh_face[3 * static_cast<size_t>(m_.mesh_faceadr[i])];
      if (mesh_source_[i]) {
        // the vertices as read with their reference frame and scale: the compiler recomputes
        // the same inertial frame, vertices and hull from them; faces as given (a mirroring
        // scale turned them), none when they are the hull's
        o_ << list(&m_.mesh_srcvert[3 * static_cast<size_t>(m_.mesh_vertadr[i])], 3 * m_.mesh_vertnum[i])
           << "\" refpos=\"" << list(&m_.mesh_refpos[3 * i], 3) << "\" refquat=\"" << list(&m_.mesh_refquat[4 * i], 4)
           << "\" scale=\"" << list(&m_.mesh_scale[3 * i], 3) << "\"";
        const double* sc = &m_.mesh_scale[3 * i];
        if (!m_.mesh_hullface[i] && m_.mesh_facenum[i] > 0) {
          std::vector<int> given(face, face + 3 * m_.mesh_facenum[i]);
          if (sc[0] * sc[1] * sc[2] < 0)
            for (size_t f = 0; f < given.size(); f += 3) std::swap(given[f + 1], given[f + 2]);
          o_ << " face=\"" << list(given.data(), static_cast<int>(given.size())) << "\"";
        }
      } else {
        // changed after compiling: the compiled (inertial-frame) vertices, which the compiler
        // recentres on reload (equal to float rounding)
        o_ << list(&m_.mesh_vert[3 * static_cast<size_t>(m_.mesh_vertadr[i])], 3 * m_.mesh_vertnum[i]) << "\"";
        if (m_.mesh_facenum[i] > 0) o_ << " face=\"" << list(face, 3 * m_.mesh_facenum[i]) << "\"";
      }
      o_ << "/>\n";
    }
    for (int h = 0; h < m_.nhfield; ++h) {
      const int nr = m_.hfield_nrow[h], nc = m_.hfield_ncol[h];
      o_ << "    <hfield name=\"" << name(m_.hfield_names, "hfield", h) << "\" nrow=\"" << nr << "\" ncol=\"" << nc
         << "\" size=\"" << list(&m_.hfield_size[4 * h], 4) << "\" elevation=\"";
      // elevation lists rows top-down; row 0 of hfield_data is the bottom one
      for (int r = nr - 1; r >= 0; --r)
        o_ << list(&m_.hfield_data[m_.hfield_adr[h] + static_cast<size_t>(r) * nc], nc) << (r ? " " : "");
      o_ << "\"/>\n";
    }
    static const char* types[] = {"2d", "cube", "skybox"};
    static const char* builtins[] = {"none", "gradient", "checker", "flat"};
    static const char* marks[] = {"none", "edge", "cross", "random"};
    for (int t = 0; t < m_.ntex; ++t) {
      const int b = m_.tex_builtin[t];
      o_ << "    <texture" << name_attr(m_.tex_names, "texture", t, kObjTexture) << " type=\"" << types[m_.tex_type[t]]
         << "\" builtin=\"" << builtins[b] << "\" mark=\"" << marks[m_.tex_mark[t]] << "\" rgb1=\""
         << list(&m_.tex_rgb1[3 * t], 3) << "\" rgb2=\"" << list(&m_.tex_rgb2[3 * t], 3) << "\" markrgb=\""
         << list(&m_.tex_markrgb[3 * t], 3) << "\" random=\"" << num(m_.tex_random[t]) << "\"";
      // builtin sizes: cube and skybox store 6 square faces (height = 6 width)
      if (b != kBuiltinNone)
        o_ << " width=\"" << m_.tex_width[t] << "\" height=\""
           << (m_.tex_type[t] == kTex2D ? m_.tex_height[t] : m_.tex_width[t]) << "\"";
      // image files: names relative to the model's folder (texturedir included), as the saved
      // file sits beside it, with the grid and flips that place the pixels
      if (!m_.tex_file[t].empty()) o_ << " file=\"" << esc(m_.tex_file[t]) << "\"";
      static const char* faces[6] = {"fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"};
      for (int f = 0; f < 6; ++f)
        if (!m_.tex_cubefile[6 * t + f].empty()) o_ << " " << faces[f] << "=\"" << esc(m_.tex_cubefile[6 * t + f]) << "\"";
      if (b == kBuiltinNone)
        o_ << " gridsize=\"" << m_.tex_gridsize[2 * t] << " " << m_.tex_gridsize[2 * t + 1] << "\" gridlayout=\""
           << esc(m_.tex_gridlayout[t]) << "\" hflip=\"" << boolstr(m_.tex_hflip[t]) << "\" vflip=\""
           << boolstr(m_.tex_vflip[t]) << "\"";
      o_ << "/>\n";
    }
    for (int t = 0; t < m_.nskin; ++t) o_ << "    <skin/>\n";
    for (int t = 0; t < m_.nmat; ++t) {
      o_ << "    <material" << name_attr(m_.mat_names, "material", t, kObjMaterial);
      if (m_.mat_texid[t] >= 0) o_ << " texture=\"" << name(m_.tex_names, "texture", m_.mat_texid[t]) << "\"";
      o_ << " texrepeat=\"" << list(&m_.mat_texrepeat[2 * t], 2) << "\" texuniform=\""
         << boolstr(m_.mat_texuniform[t]) << "\" emission=\"" << num(m_.mat_emission[t]) << "\" specular=\""
         << num(m_.mat_specular[t]) << "\" shininess=\"" << num(m_.mat_shininess[t]) << "\" reflectance=\""
         << num(m_.mat_reflectance[t]) << "\" rgba=\"" << list(&m_.mat_rgba[4 * t], 4) << "\"/>\n";
    }
    o_ << "  </asset>\n";
  }

  void inertial(int b) {
    o_ << "<inertial pos=\"" << list(&m_.body_ipos[3 * b], 3) << "\" quat=\"" << unit_list<4>(&m_.body_iquat[4 * b])
       << "\" mass=\"" << num(m_.body_mass[b]) << "\" diaginertia=\"" << list(&m_.body_inertia[3 * b], 3) << "\"/>";
  }

  void body_contents(int b, const std::string& in) {
    if (b > 0) {
      o_ << in;
      inertial(b);
      o_ << "\n";
    }
    for (int j = m_.body_jntadr[b]; j >= 0 && j < m_.body_jntadr[b] + m_.body_jntnum[b]; ++j) joint_xml(j, in);
    for (int g = m_.body_geomadr[b]; g >= 0 && g < m_.body_geomadr[b] + m_.body_geomnum[b]; ++g) geom_xml(g, in);
    for (int s = 0; s < m_.nsite; ++s)
      if (m_.site_bodyid[s] == b) site_xml(s, in);
    for (int c = 0; c < m_.ncam; ++c)
      if (m_.cam_bodyid[c] == b) camera_xml(c, in);
    for (int l = 0; l < m_.nlight; ++l)
      if (m_.light_bodyid[l] == b) light_xml(l, in);
    for (int c = b + 1; c < m_.nbody; ++c) {
      if (m_.body_parentid[c] != b) continue;
      o_ << in << "<body" << name_attr(m_.body_names, "body", c, kObjBody) << " pos=\"" << list(&m_.body_pos[3 * c], 3) << "\" quat=\""
         << unit_list<4>(&m_.body_quat[4 * c]) << "\"";
      if (m_.body_mocapid[c] >= 0) o_ << " mocap=\"true\"";
      if (m_.body_gravcomp[c] != 0) o_ << " gravcomp=\"" << num(m_.body_gravcomp[c]) << "\"";
      user(m_.body_user, m_.nuser_body, c);
      o_ << ">\n";
      body_contents(c, in + "  ");
      o_ << in << "</body>\n";
    }
  }

  void joint_xml(int j, const std::string& in) {
    const int t = m_.jnt_type[j], d = m_.jnt_dofadr[j], q = m_.jnt_qposadr[j];
    o_ << in << "<joint" << name_attr(m_.jnt_names, "joint", j, kObjJoint) << " type=\"" << kJointTypeNames[t]
       << "\" group=\"" << m_.jnt_group[j] << "\" pos=\"" << list(&m_.jnt_pos[3 * j], 3) << "\" axis=\""
       << unit_list<3>(&m_.jnt_axis[3 * j]) << "\" limited=\"" << boolstr(m_.jnt_limited[j]) << "\" range=\""
       << list(&m_.jnt_range[2 * j], 2) << "\" solreflimit=\"" << list(&m_.jnt_solref[kNREF * j], kNREF)
       << "\" solimplimit=\"" << list(&m_.jnt_solimp[kNIMP * j], kNIMP) << "\" solreffriction=\""
       << list(&m_.dof_solref[kNREF * d], kNREF) << "\" solimpfriction=\"" << list(&m_.dof_solimp[kNIMP * d], kNIMP)
       << "\" stiffness=\"" << num(m_.jnt_stiffness[j]) << "\" margin=\"" << num(m_.jnt_margin[j])
       << "\" armature=\"" << num(m_.dof_armature[d]) << "\" damping=\"" << num(m_.dof_damping[d])
       << "\" frictionloss=\"" << num(m_.dof_frictionloss[d]) << "\"";
    if (t == kJointHinge || t == kJointSlide)
      o_ << " ref=\"" << num(m_.qpos0[q]) << "\" springref=\"" << num(m_.qpos_spring[q]) << "\"";
    user(m_.jnt_user, m_.nuser_jnt, j);
    o_ << "/>\n";
  }

  // pos and quat of geom g. A mesh geom written from its mesh's source takes its own frame
  // (geom_srcpos, geom_srcquat) when that still composes with the mesh's inertial frame to
  // geom_pos and geom_quat, as the compiler composes them; else the compiled frame taken back
  // through the mesh's frame (equal to rounding).
  std::string geom_pose(int g) {
    const int mesh = m_.geom_type[g] == kGeomMesh ? m_.geom_dataid[g] : -1;
    if (mesh < 0 || !mesh_source_[mesh])
      return "pos=\"" + list(&m_.geom_pos[3 * g], 3) + "\" quat=\"" + unit_list<4>(&m_.geom_quat[4 * g]) + "\"";
    const double* mp = &m_.mesh_pos[3 * mesh];
    const double* mq = &m_.mesh_quat[4 * mesh];
    if (m_.geom_srcpos.size() == 3 * static_cast<size_t>(m_.ngeom) &&
        m_.geom_srcquat.size() == 4 * static_cast<size_t>(m_.ngeom)) {
      double pos[3], quat[4];
      math::mulpose(pos, quat, &m_.geom_srcpos[3 * g], &m_.geom_srcquat[4 * g], mp, mq);
      math::normalize4_div(quat);
      if (std::equal(pos, pos + 3, &m_.geom_pos[3 * g]) && std::equal(quat, quat + 4, &m_.geom_quat[4 * g]))
        return "pos=\"" + list(&m_.geom_srcpos[3 * g], 3) + "\" quat=\"" +
               unit_list<4, 1>(&m_.geom_srcquat[4 * g]) + "\"";
    }
    double inv_pos[3], inv_quat[4], pos[3], quat[4];
    math::negquat(inv_quat, mq);
    math::rotvecquat(inv_pos, mp, inv_quat);
    math::scl3(inv_pos, inv_pos, -1);
    math::mulpose(pos, quat, &m_.geom_pos[3 * g], &m_.geom_quat[4 * g], inv_pos, inv_quat);
    return "pos=\"" + list(pos, 3) + "\" quat=\"" + list(quat, 4) + "\"";
  }

  void geom_xml(int g, const std::string& in) {
    const int t = m_.geom_type[g];
    o_ << in << "<geom" << name_attr(m_.geom_names, "geom", g, kObjGeom) << " type=\"" << geom_type_name(t) << "\"";
    if (t == kGeomMesh) o_ << " mesh=\"" << name(m_.mesh_names, "mesh", m_.geom_dataid[g]) << "\"";
    else if (t == kGeomHField) o_ << " hfield=\"" << name(m_.hfield_names, "hfield", m_.geom_dataid[g]) << "\"";
    else o_ << " size=\"" << list(&m_.geom_size[3 * g], 3) << "\"";
    if (m_.geom_matid[g] >= 0) o_ << " material=\"" << name(m_.mat_names, "material", m_.geom_matid[g]) << "\"";
    o_ << " contype=\"" << m_.geom_contype[g] << "\" conaffinity=\"" << m_.geom_conaffinity[g] << "\" condim=\""
       << m_.geom_condim[g] << "\" group=\"" << m_.geom_group[g] << "\" priority=\"" << m_.geom_priority[g]
       << "\" solmix=\"" << num(m_.geom_solmix[g]) << "\" solref=\"" << list(&m_.geom_solref[kNREF * g], kNREF)
       << "\" solimp=\"" << list(&m_.geom_solimp[kNIMP * g], kNIMP) << "\" margin=\"" << num(m_.geom_margin[g])
       << "\" gap=\"" << num(m_.geom_gap[g]) << "\" friction=\"" << list(&m_.geom_friction[3 * g], 3)
       << "\" " << geom_pose(g) << " rgba=\"" << list(&m_.geom_rgba[4 * g], 4) << "\"";
    const double* f = &m_.geom_fluid[static_cast<size_t>(kNFLUID) * g];
    if (f[0] != 0) o_ << " fluidshape=\"ellipsoid\" fluidcoef=\"" << list(f + 1, 5) << "\"";
    user(m_.geom_user, m_.nuser_geom, g);
    o_ << "/>\n";
  }

  void site_xml(int s, const std::string& in) {
    o_ << in << "<site" << name_attr(m_.site_names, "site", s, kObjSite) << " type=\""
       << geom_type_name(m_.site_type[s]) << "\" group=\"" << m_.site_group[s] << "\" size=\""
       << list(&m_.site_size[3 * s], 3) << "\" pos=\"" << list(&m_.site_pos[3 * s], 3) << "\" quat=\""
       << unit_list<4>(&m_.site_quat[4 * s]) << "\" rgba=\"" << list(&m_.site_rgba[4 * s], 4) << "\"";
    if (m_.site_matid[s] >= 0) o_ << " material=\"" << name(m_.mat_names, "material", m_.site_matid[s]) << "\"";
    user(m_.site_user, m_.nuser_site, s);
    o_ << "/>\n";
  }

  void camera_xml(int c, const std::string& in) {
    o_ << in << "<camera" << name_attr(m_.cam_names, "camera", c, kObjCamera) << " mode=\"" << kCamModes[m_.cam_mode[c]]
       << "\"";
    if (m_.cam_targetbodyid[c] >= 0) o_ << " target=\"" << body(m_.cam_targetbodyid[c]) << "\"";
    o_ << " pos=\"" << list(&m_.cam_pos[3 * c], 3) << "\" quat=\"" << unit_list<4>(&m_.cam_quat[4 * c]) << "\" fovy=\""
       << num(m_.cam_fovy[c]) << "\" ipd=\"" << num(m_.cam_ipd[c]) << "\"/>\n";
  }

  void light_xml(int l, const std::string& in) {
    o_ << in << "<light" << name_attr(m_.light_names, "light", l, kObjUnknown) << " mode=\""
       << kCamModes[m_.light_mode[l]] << "\"";
    if (m_.light_targetbodyid[l] >= 0) o_ << " target=\"" << body(m_.light_targetbodyid[l]) << "\"";
    o_ << " directional=\"" << boolstr(m_.light_directional[l]) << "\" castshadow=\""
       << boolstr(m_.light_castshadow[l]) << "\" active=\"" << boolstr(m_.light_active[l]) << "\" pos=\""
       << list(&m_.light_pos[3 * l], 3) << "\" dir=\"" << unit_list<3>(&m_.light_dir[3 * l]) << "\"/>\n";
  }

  void contact() {
    o_ << "  <contact>\n";
    for (int p = 0; p < m_.npair; ++p)
      o_ << "    <pair" << name_attr(m_.pair_names, "pair", p, kObjUnknown) << " geom1=\"" << geom(m_.pair_geom1[p])
         << "\" geom2=\"" << geom(m_.pair_geom2[p]) << "\" condim=\"" << m_.pair_dim[p] << "\" friction=\""
         << list(&m_.pair_friction[5 * p], 5) << "\" solref=\"" << list(&m_.pair_solref[kNREF * p], kNREF)
         << "\" solimp=\"" << list(&m_.pair_solimp[kNIMP * p], kNIMP) << "\" margin=\"" << num(m_.pair_margin[p])
         << "\" gap=\"" << num(m_.pair_gap[p]) << "\"/>\n";
    for (int e = 0; e < m_.nexclude; ++e) {
      const int s = m_.exclude_signature[e];
      o_ << "    <exclude" << name_attr(m_.exclude_names, "exclude", e, kObjUnknown) << " body1=\"" << body((s >> 16) - 1)
         << "\" body2=\"" << body((s & 0xFFFF) - 1) << "\"/>\n";
    }
    o_ << "  </contact>\n";
  }

  void equality() {
    o_ << "  <equality>\n";
    static const char* kinds[] = {"connect", "weld", "joint", "tendon", "distance"};
    for (int e = 0; e < m_.neq; ++e) {
      const int t = m_.eq_type[e];
      const double* d = &m_.eq_data[static_cast<size_t>(kNEQDATA) * e];
      o_ << "    <" << kinds[t] << name_attr(m_.eq_names, "equality", e, kObjUnknown) << " active=\""
         << boolstr(m_.eq_active[e]) << "\" solref=\"" << list(&m_.eq_solref[kNREF * e], kNREF) << "\" solimp=\""
         << list(&m_.eq_solimp[kNIMP * e], kNIMP) << "\"";
      const int o1 = m_.eq_obj1id[e], o2 = m_.eq_obj2id[e];
      if (t == kEqConnect || t == kEqWeld) {
        o_ << " body1=\"" << body(o1) << "\" body2=\"" << body(o2) << "\" anchor=\"" << list(d, 3) << "\"";
        if (t == kEqWeld) o_ << " relpose=\"" << list(d + 3, 7) << "\" torquescale=\"" << num(d[10]) << "\"";
      } else {
        const bool jnt = t == kEqJoint;
        o_ << (jnt ? " joint1=\"" : " tendon1=\"") << (jnt ? joint(o1) : tendon(o1)) << "\"";
        if (o2 >= 0) o_ << (jnt ? " joint2=\"" : " tendon2=\"") << (jnt ? joint(o2) : tendon(o2)) << "\"";
        o_ << " polycoef=\"" << list(d, 5) << "\"";
      }
      o_ << "/>\n";
    }
    o_ << "  </equality>\n";
  }

  void tendons() {
    o_ << "  <tendon>\n";
    for (int t = 0; t < m_.ntendon; ++t) {
      const int a = m_.tendon_adr[t], n = m_.tendon_num[t];
      const bool fixed = n > 0 && m_.wrap_type[a] == kWrapJoint;
      o_ << "    <" << (fixed ? "fixed" : "spatial") << name_attr(m_.tendon_names, "tendon", t, kObjTendon)
         << " group=\"" << m_.tendon_group[t] << "\" limited=\"" << boolstr(m_.tendon_limited[t]) << "\" range=\""
         << list(&m_.tendon_range[2 * t], 2) << "\" solreflimit=\"" << list(&m_.tendon_solref_lim[kNREF * t], kNREF)
         << "\" solimplimit=\"" << list(&m_.tendon_solimp_lim[kNIMP * t], kNIMP) << "\" solreffriction=\""
         << list(&m_.tendon_solref_fri[kNREF * t], kNREF) << "\" solimpfriction=\""
         << list(&m_.tendon_solimp_fri[kNIMP * t], kNIMP) << "\" frictionloss=\"" << num(m_.tendon_frictionloss[t])
         << "\" margin=\"" << num(m_.tendon_margin[t]) << "\" stiffness=\"" << num(m_.tendon_stiffness[t])
         << "\" damping=\"" << num(m_.tendon_damping[t]) << "\" springlength=\""
         << num(m_.tendon_lengthspring[t]) << "\" width=\"" << num(m_.tendon_width[t]) << "\"";
      if (m_.tendon_armature[t] != 0) o_ << " armature=\"" << num(m_.tendon_armature[t]) << "\"";
      user(m_.tendon_user, m_.nuser_tendon, t);
      o_ << ">\n";
      for (int w = a; w < a + n; ++w) {
        const int id = m_.wrap_objid[w];
        const double prm = m_.wrap_prm[w];
        switch (m_.wrap_type[w]) {
          case kWrapJoint: o_ << "      <joint joint=\"" << joint(id) << "\" coef=\"" << num(prm) << "\"/>\n"; break;
          case kWrapPulley: o_ << "      <pulley divisor=\"" << num(prm) << "\"/>\n"; break;
          case kWrapSite: o_ << "      <site site=\"" << site(id) << "\"/>\n"; break;
          default:
            o_ << "      <geom geom=\"" << geom(id) << "\"";
            if (prm >= 0) o_ << " sidesite=\"" << site(static_cast<int>(prm)) << "\"";
            o_ << "/>\n";
        }
      }
      o_ << "    </" << (fixed ? "fixed" : "spatial") << ">\n";
    }
    o_ << "  </tendon>\n";
  }

  void actuators() {
    o_ << "  <actuator>\n";
    for (int u = 0; u < m_.nu; ++u) {
      const int tt = m_.actuator_trntype[u];
      const bool adhesion = tt == kTrnBody;
      o_ << "    <" << (adhesion ? "adhesion" : "general") << name_attr(m_.actuator_names, "actuator", u, kObjActuator)
         << " group=\"" << m_.actuator_group[u] << "\" ctrllimited=\"" << boolstr(m_.actuator_ctrllimited[u])
         << "\" forcelimited=\"" << boolstr(m_.actuator_forcelimited[u]) << "\" ctrlrange=\""
         << list(&m_.actuator_ctrlrange[2 * u], 2) << "\" forcerange=\"" << list(&m_.actuator_forcerange[2 * u], 2)
         << "\" lengthrange=\"" << list(&m_.actuator_lengthrange[2 * u], 2) << "\" gear=\""
         << list(&m_.actuator_gear[6 * u], 6) << "\" cranklength=\"" << num(m_.actuator_cranklength[u]) << "\"";
      const int id = m_.actuator_trnid[2 * u], id2 = m_.actuator_trnid[2 * u + 1];
      switch (tt) {
        case kTrnJoint: o_ << " joint=\"" << joint(id) << "\""; break;
        case kTrnJointInParent: o_ << " jointinparent=\"" << joint(id) << "\""; break;
        case kTrnTendon: o_ << " tendon=\"" << tendon(id) << "\""; break;
        case kTrnSite: o_ << " site=\"" << site(id) << "\""; break;
        case kTrnSliderCrank: o_ << " cranksite=\"" << site(id) << "\" slidersite=\"" << site(id2) << "\""; break;
        case kTrnBody: o_ << " body=\"" << body(id) << "\""; break;
        default: break;
      }
      if (adhesion) {
        o_ << " gain=\"" << num(m_.actuator_gainprm[static_cast<size_t>(kNGAIN) * u]) << "\"";
      } else {
        o_ << " actlimited=\"" << boolstr(m_.actuator_actlimited[u]) << "\" actrange=\""
           << list(&m_.actuator_actrange[2 * u], 2) << "\" dyntype=\"" << kDynNames[m_.actuator_dyntype[u]]
           << "\" gaintype=\"" << kGainNames[m_.actuator_gaintype[u]] << "\" biastype=\""
           << kBiasNames[m_.actuator_biastype[u]] << "\" dynprm=\""
           << list(&m_.actuator_dynprm[static_cast<size_t>(kNDYN) * u], kNDYN) << "\" gainprm=\""
           << list(&m_.actuator_gainprm[static_cast<size_t>(kNGAIN) * u], kNGAIN) << "\" biasprm=\""
           << list(&m_.actuator_biasprm[static_cast<size_t>(kNBIAS) * u], kNBIAS) << "\"";
      }
      user(m_.actuator_user, m_.nuser_actuator, u);
      o_ << "/>\n";
    }
    o_ << "  </actuator>\n";
  }

  void sensors() {
    o_ << "  <sensor>\n";
    for (int s = 0; s < m_.nsensor; ++s) {
      const int t = m_.sensor_type[s], ot = m_.sensor_objtype[s], oid = m_.sensor_objid[s];
      o_ << "    <" << kSensorNames[t] << name_attr(m_.sensor_names, "sensor", s, kObjUnknown) << " noise=\""
         << num(m_.sensor_noise[s]) << "\" cutoff=\"" << num(m_.sensor_cutoff[s]) << "\"";
      if (t >= kSensFramePos && t <= kSensFrameAngAcc) {
        o_ << " objtype=\"" << kObjNames[ot] << "\" objname=\"" << object(ot, oid) << "\"";
        if (m_.sensor_refid[s] >= 0)
          o_ << " reftype=\"" << kObjNames[m_.sensor_reftype[s]] << "\" refname=\""
             << object(m_.sensor_reftype[s], m_.sensor_refid[s]) << "\"";
      } else if (t == kSensUser) {
        o_ << " objtype=\"" << kObjNames[ot] << "\"";
        if (oid >= 0) o_ << " objname=\"" << object(ot, oid) << "\"";
        o_ << " datatype=\"" << kDataTypes[m_.sensor_datatype[s]] << "\" needstage=\""
           << kStages[m_.sensor_needstage[s]] << "\" dim=\"" << m_.sensor_dim[s] << "\"";
      } else if (t != kSensClock) {
        o_ << " " << kObjNames[ot == kObjXBody ? kObjBody : ot] << "=\"" << object(ot, oid) << "\"";
      }
      user(m_.sensor_user, m_.nuser_sensor, s);
      o_ << "/>\n";
    }
    o_ << "  </sensor>\n";
  }

  void custom() {
    o_ << "  <custom>\n";
    for (int i = 0; i < m_.nnumeric; ++i)
      o_ << "    <numeric name=\"" << name(m_.numeric_names, "numeric", i) << "\" size=\"" << m_.numeric_size[i]
         << "\" data=\"" << list(&m_.numeric_data[m_.numeric_adr[i]], m_.numeric_size[i]) << "\"/>\n";
    for (int i = 0; i < m_.ntext; ++i)
      o_ << "    <text name=\"" << name(m_.text_names, "text", i) << "\" data=\"" << esc(m_.text_data[i]) << "\"/>\n";
    for (int i = 0; i < m_.ntuple; ++i) o_ << "    <tuple name=\"" << name(m_.tuple_names, "tuple", i) << "\"/>\n";
    o_ << "  </custom>\n";
  }

  void keys() {
    o_ << "  <keyframe>\n";
    for (int k = 0; k < m_.nkey; ++k) {
      o_ << "    <key" << name_attr(m_.key_names, "key", k, kObjUnknown) << " time=\"" << num(m_.key_time[k]) << "\"";
      if (m_.nq) o_ << " qpos=\"" << list(&m_.key_qpos[static_cast<size_t>(m_.nq) * k], m_.nq) << "\"";
      if (m_.nv) o_ << " qvel=\"" << list(&m_.key_qvel[static_cast<size_t>(m_.nv) * k], m_.nv) << "\"";
      if (m_.na) o_ << " act=\"" << list(&m_.key_act[static_cast<size_t>(m_.na) * k], m_.na) << "\"";
      if (m_.nmocap) {
        o_ << " mpos=\"" << list(&m_.key_mpos[3 * static_cast<size_t>(m_.nmocap) * k], 3 * m_.nmocap) << "\"";
        o_ << " mquat=\"" << list(&m_.key_mquat[4 * static_cast<size_t>(m_.nmocap) * k], 4 * m_.nmocap) << "\"";
      }
      if (m_.nu) o_ << " ctrl=\"" << list(&m_.key_ctrl[static_cast<size_t>(m_.nu) * k], m_.nu) << "\"";
      o_ << "/>\n";
    }
    o_ << "  </keyframe>\n";
  }
};

}  // namespace

std::string save_xml_to_string(const Model& m) { return Writer(m).run(); }

void save_xml(const Model& m, const std::string& path) {
  const std::string xml = save_xml_to_string(m);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("save_xml: cannot open '" + path + "' for writing");
  f << xml;
  if (!f) throw std::runtime_error("save_xml: cannot write '" + path + "'");
}

}  // namespace moreau

// Node tree -> Spec: sections, default classes (nested, childclass, "main"), the body tree.
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>

#include "math/vec.h"
#include "moreau/moreau.h"
#include "mjcf/parse_common.h"

namespace moreau::mjcf {
namespace {

// The element without its children. A spec keeps its element only to locate error messages; a
// body's children are the rest of its subtree, and copying them into every body would make
// loading a chain of N bodies take O(N^2) time and memory.
Node element_only(const Node& n) {
  Node e;
  e.name = n.name;
  e.file = n.file;
  e.line = n.line;
  e.attrs = n.attrs;
  e.text = n.text;
  return e;
}

struct SensorInfo {
  const char* name;
  int type, dim, stage, datatype;
  const char* objattr;  // attribute naming the object ("" for frame/clock/user)
  int objtype;
};
const SensorInfo kSensors[] = {
    {"touch", kSensTouch, 1, kStageAcc, kDataPositive, "site", kObjSite},
    {"accelerometer", kSensAccelerometer, 3, kStageAcc, kDataReal, "site", kObjSite},
    {"velocimeter", kSensVelocimeter, 3, kStageVel, kDataReal, "site", kObjSite},
    {"gyro", kSensGyro, 3, kStageVel, kDataReal, "site", kObjSite},
    {"force", kSensForce, 3, kStageAcc, kDataReal, "site", kObjSite},
    {"torque", kSensTorque, 3, kStageAcc, kDataReal, "site", kObjSite},
    {"magnetometer", kSensMagnetometer, 3, kStagePos, kDataReal, "site", kObjSite},
    {"rangefinder", kSensRangefinder, 1, kStagePos, kDataPositive, "site", kObjSite},
    {"jointpos", kSensJointPos, 1, kStagePos, kDataReal, "joint", kObjJoint},
    {"jointvel", kSensJointVel, 1, kStageVel, kDataReal, "joint", kObjJoint},
    {"tendonpos", kSensTendonPos, 1, kStagePos, kDataReal, "tendon", kObjTendon},
    {"tendonvel", kSensTendonVel, 1, kStageVel, kDataReal, "tendon", kObjTendon},
    {"actuatorpos", kSensActuatorPos, 1, kStagePos, kDataReal, "actuator", kObjActuator},
    {"actuatorvel", kSensActuatorVel, 1, kStageVel, kDataReal, "actuator", kObjActuator},
    {"actuatorfrc", kSensActuatorFrc, 1, kStageAcc, kDataReal, "actuator", kObjActuator},
    {"ballquat", kSensBallQuat, 4, kStagePos, kDataQuaternion, "joint", kObjJoint},
    {"ballangvel", kSensBallAngVel, 3, kStageVel, kDataReal, "joint", kObjJoint},
    {"jointlimitpos", kSensJointLimitPos, 1, kStagePos, kDataReal, "joint", kObjJoint},
    {"jointlimitvel", kSensJointLimitVel, 1, kStageVel, kDataReal, "joint", kObjJoint},
    {"jointlimitfrc", kSensJointLimitFrc, 1, kStageAcc, kDataReal, "joint", kObjJoint},
    {"tendonlimitpos", kSensTendonLimitPos, 1, kStagePos, kDataReal, "tendon", kObjTendon},
    {"tendonlimitvel", kSensTendonLimitVel, 1, kStageVel, kDataReal, "tendon", kObjTendon},
    {"tendonlimitfrc", kSensTendonLimitFrc, 1, kStageAcc, kDataReal, "tendon", kObjTendon},
    {"framepos", kSensFramePos, 3, kStagePos, kDataReal, "", 0},
    {"framequat", kSensFrameQuat, 4, kStagePos, kDataQuaternion, "", 0},
    {"framexaxis", kSensFrameXAxis, 3, kStagePos, kDataAxis, "", 0},
    {"frameyaxis", kSensFrameYAxis, 3, kStagePos, kDataAxis, "", 0},
    {"framezaxis", kSensFrameZAxis, 3, kStagePos, kDataAxis, "", 0},
    {"framelinvel", kSensFrameLinVel, 3, kStageVel, kDataReal, "", 0},
    {"frameangvel", kSensFrameAngVel, 3, kStageVel, kDataReal, "", 0},
    {"framelinacc", kSensFrameLinAcc, 3, kStageAcc, kDataReal, "", 0},
    {"frameangacc", kSensFrameAngAcc, 3, kStageAcc, kDataReal, "", 0},
    {"subtreecom", kSensSubtreeCom, 3, kStagePos, kDataReal, "body", kObjBody},
    {"subtreelinvel", kSensSubtreeLinVel, 3, kStageVel, kDataReal, "body", kObjBody},
    {"subtreeangmom", kSensSubtreeAngMom, 3, kStageVel, kDataReal, "body", kObjBody},
    {"clock", kSensClock, 1, kStagePos, kDataReal, "", 0},
    {"user", kSensUser, 0, kStageAcc, kDataReal, "", 0},
};

const std::vector<std::pair<const char*, int>> kFrameObjWords = {
    {"body", kObjBody}, {"xbody", kObjXBody}, {"geom", kObjGeom}, {"site", kObjSite}, {"camera", kObjCamera}};
const std::vector<std::pair<const char*, int>> kObjWords = {
    {"body", kObjBody},       {"xbody", kObjXBody},     {"joint", kObjJoint},     {"dof", kObjDof},
    {"geom", kObjGeom},       {"site", kObjSite},       {"camera", kObjCamera},   {"light", kObjLight},
    {"mesh", kObjMesh},       {"skin", kObjSkin},       {"hfield", kObjHField},   {"texture", kObjTexture},
    {"material", kObjMaterial}, {"pair", kObjPair},     {"exclude", kObjExclude}, {"equality", kObjEquality},
    {"tendon", kObjTendon},   {"actuator", kObjActuator}, {"sensor", kObjSensor}, {"numeric", kObjNumeric},
    {"text", kObjText},       {"tuple", kObjTuple},     {"key", kObjKey},         {"unknown", kObjUnknown}};

const char* const kActuatorKinds[] = {"general", "motor", "position", "velocity", "intvelocity",
                                      "damper", "cylinder", "muscle", "adhesion"};
bool is_actuator_kind(const std::string& s) {
  for (const char* k : kActuatorKinds)
    if (s == k) return true;
  return false;
}

class Parser {
 public:
  Spec spec;
  std::vector<DefaultClass> classes;
  std::map<std::string, int> class_index;

  void run(const Node& root) {
    spec.file = root.file;
    // Without a <size> element, errors about the model's storage point at <mujoco>.
    spec.size_src.file = root.file;
    spec.size_src.line = root.line;
    spec.size_src.name = root.name;
    {
      Attrs a(root);
      a.str("model", spec.modelname);
      a.finish();
    }
    // The compiler settings affect how every other element is read (angles, euler sequence),
    // so they are read first wherever they appear; likewise the default classes.
    for (const auto& c : root.children)
      if (c.name == "compiler") parse_compiler(c);
    // meshdir and texturedir take precedence over assetdir (MJCF reference, compiler/assetdir)
    if (spec.compiler.meshdir.empty()) spec.compiler.meshdir = spec.compiler.assetdir;
    if (spec.compiler.texturedir.empty()) spec.compiler.texturedir = spec.compiler.assetdir;
    classes.emplace_back();
    classes[0].name = "main";
    class_index["main"] = 0;
    bool main_seen = false;
    for (const auto& c : root.children)
      if (c.name == "default") {
        if (main_seen) {
          // A second top-level <default>: more settings and classes for "main".
          apply_default_children(c, 0);
        } else {
          Attrs a(c);
          std::string cls;
          a.str("class", cls);
          if (!cls.empty() && cls != "main") a.error("the top-level default class must be 'main', got '" + cls + "'");
          a.finish();
          apply_default_children(c, 0);
          main_seen = true;
        }
      }
    for (const auto& c : root.children) {
      const std::string& n = c.name;
      if (n == "compiler" || n == "default") continue;
      if (n == "option") parse_option(c);
      else if (n == "size") parse_size(c);
      else if (n == "visual") parse_visual(c);
      else if (n == "statistic") parse_statistic(c);
      else if (n == "asset") parse_asset(c);
      else if (n == "worldbody") parse_body(c, spec.world, 0, true);
      else if (n == "actuator") parse_actuators(c);
      else if (n == "tendon") parse_tendons(c);
      else if (n == "sensor") parse_sensors(c);
      else if (n == "equality") parse_equality(c);
      else if (n == "contact") parse_contact(c);
      else if (n == "keyframe") parse_keyframe(c);
      else if (n == "custom") parse_custom(c);
      else if (n == "extension") fail(c, "element <extension> (plugins) is not supported by MuJoCo 2.2.2");
      else if (n == "frame") fail(c, "element <frame> is only allowed inside <worldbody>, <body> or <frame>");
      else fail(c, "unknown element <" + n + "> in <mujoco>");
    }
    if (spec.compiler.discardvisual) discard_visual(spec.world);
  }

  // compiler discardvisual="true": geoms that take part in no collision (contype and conaffinity
  // both 0) are dropped, after default classes apply. As in 2.2.2 (found by experiment) the
  // meshes and materials stay, and a reference to a dropped geom is an undefined name.
  static void discard_visual(BodySpec& b) {
    std::vector<GeomSpec> kept;
    for (auto& g : b.geoms)
      if (g.contype != 0 || g.conaffinity != 0) kept.push_back(std::move(g));
    b.geoms = std::move(kept);
    for (auto& c : b.children) discard_visual(c);
  }

  int lookup_class(Attrs& a, int inherited) {
    std::string cls;
    if (!a.str("class", cls)) return inherited;
    auto it = class_index.find(cls);
    if (it == class_index.end()) a.error("unknown default class '" + cls + "'");
    return it->second;
  }

  // ------------------------------------------------------------------ compiler, option, size
  void parse_compiler(const Node& n) {
    Attrs a(n);
    CompilerSpec& c = spec.compiler;
    int v = 0;
    if (a.keyword("angle", {{"degree", 1}, {"radian", 0}}, v)) c.degree = v;
    if (a.str("eulerseq", c.eulerseq)) {
      if (c.eulerseq.size() != 3) a.error("attribute 'eulerseq' expects 3 characters from xyzXYZ, got '" + c.eulerseq + "'");
      for (char ch : c.eulerseq)
        if (std::string("xyzXYZ").find(ch) == std::string::npos)
          a.error("attribute 'eulerseq' expects 3 characters from xyzXYZ, got '" + c.eulerseq + "'");
    }
    if (a.keyword("coordinate", {{"local", 0}, {"global", 1}}, v)) c.global = v;
    a.keyword("inertiafromgeom", kTriStateWords, c.inertiafromgeom);
    a.ints("inertiagrouprange", c.inertiagrouprange, 2);
    a.boolean("autolimits", c.autolimits);
    a.num("boundmass", c.boundmass);
    a.num("boundinertia", c.boundinertia);
    a.num("settotalmass", c.settotalmass);
    a.boolean("balanceinertia", c.balanceinertia);
    a.boolean("discardvisual", c.discardvisual);
    a.boolean("fusestatic", c.fusestatic);
    a.boolean("strippath", c.strippath);
    a.str("meshdir", c.meshdir);
    a.str("texturedir", c.texturedir);
    // assetdir (newer than 2.2.2; MJCF reference): the value of meshdir and texturedir where
    // those are not given (resolved in run(), after every <compiler>)
    a.str("assetdir", c.assetdir);
    a.accept({"fitaabb", "convexhull", "usethread", "exactmeshinertia"});
    a.finish();
    for (const auto& ch : n.children) {
      if (ch.name != "lengthrange") fail(ch, "unknown element <" + ch.name + "> in <compiler>");
      parse_lengthrange(ch);
    }
  }

  // <compiler><lengthrange>: options of the simulation that computes actuator length ranges.
  void parse_lengthrange(const Node& n) {
    Attrs a(n);
    LengthRangeOptions& o = spec.compiler.lengthrange;
    a.keyword("mode", {{"none", 0}, {"muscle", 1}, {"muscleuser", 2}, {"all", 3}}, o.mode);
    a.boolean("useexisting", o.useexisting);
    a.boolean("uselimit", o.uselimit);
    a.num("accel", o.accel);
    a.num("maxforce", o.maxforce);
    a.num("timeconst", o.timeconst);
    a.num("timestep", o.timestep);
    a.num("inttotal", o.inttotal);
    a.num("inteval", o.inteval);
    a.num("tolrange", o.tolrange);
    a.finish();
    for (const auto& ch : n.children) fail(ch, "unknown element <" + ch.name + "> in <lengthrange>");
  }

  void parse_option(const Node& n) {
    Attrs a(n);
    Option& o = spec.opt;
    a.num("timestep", o.timestep);
    a.num("apirate", o.apirate);
    a.num("impratio", o.impratio);
    a.num("tolerance", o.tolerance);
    a.num("noslip_tolerance", o.noslip_tolerance);
    a.num("mpr_tolerance", o.mpr_tolerance);
    a.nums("gravity", o.gravity, 3);
    a.nums("wind", o.wind, 3);
    a.nums("magnetic", o.magnetic, 3);
    a.num("density", o.density);
    a.num("viscosity", o.viscosity);
    a.num("o_margin", o.o_margin);
    a.numvar("o_solref", o.o_solref, 1, kNREF);
    a.numvar("o_solimp", o.o_solimp, 1, kNIMP);
    a.keyword("integrator",
              {{"Euler", kIntEuler}, {"RK4", kIntRK4}, {"implicit", kIntImplicit}, {"implicitfast", kIntImplicitFast},
               {"implicitcon", kIntImplicitCon}},  // implicitcon: Moreau's extension
              o.integrator);
    a.keyword("collision", {{"all", kCollideAll}, {"predefined", kCollidePair}, {"dynamic", kCollideDynamic}},
              o.collision);
    a.keyword("cone", {{"pyramidal", kConePyramidal}, {"elliptic", kConeElliptic}}, o.cone);
    a.keyword("jacobian", {{"dense", kJacDense}, {"sparse", kJacSparse}, {"auto", kJacAuto}}, o.jacobian);
    // raisim .. lcp: Moreau's hard-contact solvers, an extension of MuJoCo's names
    a.keyword("solver", {{"PGS", kSolverPGS}, {"CG", kSolverCG}, {"Newton", kSolverNewton},
                         {"raisim", kSolverRaisim}, {"raisim-ds", kSolverRaisimDS}, {"ncp-pgs", kSolverNcpPGS},
                         {"ccp", kSolverCCP}, {"lcp", kSolverLCP}}, o.solver);
    a.integer("iterations", o.iterations);
    a.integer("noslip_iterations", o.noslip_iterations);
    a.integer("mpr_iterations", o.mpr_iterations);
    a.finish();
    if (o.timestep <= 0) fail(n, "attribute 'timestep' must be positive");
    if (is_hard_contact_solver(o.solver) && o.integrator != kIntEuler)
      fail(n, std::string("solver=\"") + solver_name(o.solver) +
                  "\" is a velocity-stepping (hard-contact) solver: it needs integrator=\"Euler\"");
    for (const auto& c : n.children) {
      if (c.name != "flag") fail(c, "unknown element <" + c.name + "> in <option>");
      Attrs f(c);
      for (int i = 0; i < kNDisable; ++i) {
        int v;
        if (f.keyword(kDisableNames[i], {{"enable", 0}, {"disable", 1}}, v)) {
          if (v) o.disableflags |= (1 << i);
          else o.disableflags &= ~(1 << i);
        }
      }
      // MuJoCo 2.2.2 has the first 5 enable flags; invdiscrete is newer and described by the
      // computation chapter ("Inverse dynamics"), so models may set it
      for (int i = 0; i < kNEnable; ++i) {
        int v;
        if (f.keyword(kEnableNames[i], {{"enable", 1}, {"disable", 0}}, v)) {
          if (v) o.enableflags |= (1 << i);
          else o.enableflags &= ~(1 << i);
        }
      }
      f.finish();
      for (const auto& cc : c.children) fail(cc, "unknown element <" + cc.name + "> in <flag>");
    }
  }

  // size/memory (MuJoCo 3.x): a byte count, optionally with a suffix K, M, G or T (either case;
  // powers of 1024), or -1 for the default.
  static long long parse_memory(const Node& n, const std::string& text) {
    const std::string expected = "attribute 'memory' expects a byte count with an optional suffix K, M, G "
                                 "or T (powers of 1024), or -1, got '" + text + "'";
    if (text == "-1") return -1;
    size_t i = 0;
    unsigned long long value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (value > (1ull << 62) / 10) fail(n, expected + " (too large)");
      value = value * 10 + static_cast<unsigned>(text[i++] - '0');
    }
    if (i == 0) fail(n, expected);
    int shift = 0;
    if (i < text.size()) {
      switch (text[i]) {
        case 'K': case 'k': shift = 10; break;
        case 'M': case 'm': shift = 20; break;
        case 'G': case 'g': shift = 30; break;
        case 'T': case 't': shift = 40; break;
        default: fail(n, expected);
      }
      if (++i != text.size()) fail(n, expected);
    }
    if (value > ((1ull << 62) >> shift)) fail(n, expected + " (too large)");
    return static_cast<long long>(value << shift);
  }

  void parse_size(const Node& n) {
    spec.size_src = n;
    Attrs a(n);
    a.integer("njmax", spec.njmax);
    a.integer("nconmax", spec.nconmax);
    double ns;
    if (a.num("nstack", ns)) {
      // MuJoCo 2.2.2's stack size in numbers (an int). Moreau sizes its work space by its own
      // rules and keeps the value only to save it again.
      if (!(ns == std::floor(ns) && ns >= -1 && ns <= std::numeric_limits<int>::max()))
        a.error("attribute 'nstack' expects -1 or a whole number from 0 to " +
                std::to_string(std::numeric_limits<int>::max()) + ", got '" + *a.find("nstack") + "'");
      spec.nstack = static_cast<long long>(ns);
    }
    if (const std::string* mem = a.find("memory")) spec.memory = parse_memory(n, *mem);
    a.integer("nuserdata", spec.nuserdata);
    a.integer("nkey", spec.nkey);
    a.integer("nuser_body", spec.nuser_body);
    a.integer("nuser_jnt", spec.nuser_jnt);
    a.integer("nuser_geom", spec.nuser_geom);
    a.integer("nuser_site", spec.nuser_site);
    a.integer("nuser_cam", spec.nuser_cam);
    a.integer("nuser_tendon", spec.nuser_tendon);
    a.integer("nuser_actuator", spec.nuser_actuator);
    a.integer("nuser_sensor", spec.nuser_sensor);
    a.finish();
    if (spec.nkey < 0 || spec.nkey > 1000000) fail(n, "attribute 'nkey' must be between 0 and 1000000");
    for (int v : {spec.nuser_body, spec.nuser_jnt, spec.nuser_geom, spec.nuser_site, spec.nuser_cam,
                  spec.nuser_tendon, spec.nuser_actuator, spec.nuser_sensor})
      if (v < -1 || v > 100000) fail(n, "nuser_* attributes must be between -1 and 100000");
    if (spec.nuserdata < 0) fail(n, "attribute 'nuserdata' must be non-negative");
    for (const auto& c : n.children) fail(c, "unknown element <" + c.name + "> in <size>");
  }

  // Rendering settings (Model::vis): kept out of the physics. The element names are checked (2.2.2);
  // the attributes 2.2.2 knows are read, and others (newer versions add some) are accepted.
  void parse_visual(const Node& n) {
    Attrs a(n);
    a.finish();
    Visual& v = spec.vis;
    for (const auto& c : n.children) {
      Attrs e(c);
      auto f = [&](const char* name, float& out) {
        double x;
        if (e.num(name, x)) out = static_cast<float>(x);
      };
      auto fv = [&](const char* name, float* out, int k) {
        double x[4];
        if (e.nums(name, x, k))
          for (int i = 0; i < k; ++i) out[i] = static_cast<float>(x[i]);
      };
      if (c.name == "global") {
        f("fovy", v.global.fovy); f("ipd", v.global.ipd); f("azimuth", v.global.azimuth);
        f("elevation", v.global.elevation); f("linewidth", v.global.linewidth); f("glow", v.global.glow);
        e.integer("offwidth", v.global.offwidth); e.integer("offheight", v.global.offheight);
      } else if (c.name == "quality") {
        e.integer("shadowsize", v.quality.shadowsize); e.integer("offsamples", v.quality.offsamples);
        e.integer("numslices", v.quality.numslices); e.integer("numstacks", v.quality.numstacks);
        e.integer("numquads", v.quality.numquads);
      } else if (c.name == "headlight") {
        fv("ambient", v.headlight.ambient, 3); fv("diffuse", v.headlight.diffuse, 3);
        fv("specular", v.headlight.specular, 3);
        e.integer("active", v.headlight.active);  // an integer in 2.2.2's schema
      } else if (c.name == "map") {
        auto& p = v.map;
        f("stiffness", p.stiffness); f("stiffnessrot", p.stiffnessrot); f("force", p.force);
        f("torque", p.torque); f("alpha", p.alpha); f("fogstart", p.fogstart); f("fogend", p.fogend);
        f("znear", p.znear); f("zfar", p.zfar); f("haze", p.haze); f("shadowclip", p.shadowclip);
        f("shadowscale", p.shadowscale); f("actuatortendon", p.actuatortendon);
      } else if (c.name == "scale") {
        auto& p = v.scale;
        f("forcewidth", p.forcewidth); f("contactwidth", p.contactwidth); f("contactheight", p.contactheight);
        f("connect", p.connect); f("com", p.com); f("camera", p.camera); f("light", p.light);
        f("selectpoint", p.selectpoint); f("jointlength", p.jointlength); f("jointwidth", p.jointwidth);
        f("actuatorlength", p.actuatorlength); f("actuatorwidth", p.actuatorwidth);
        f("framelength", p.framelength); f("framewidth", p.framewidth); f("constraint", p.constraint);
        f("slidercrank", p.slidercrank);
      } else if (c.name == "rgba") {
        auto& p = v.rgba;
        fv("fog", p.fog, 4); fv("haze", p.haze, 4); fv("force", p.force, 4); fv("inertia", p.inertia, 4);
        fv("joint", p.joint, 4); fv("actuator", p.actuator, 4); fv("actuatornegative", p.actuatornegative, 4);
        fv("actuatorpositive", p.actuatorpositive, 4); fv("com", p.com, 4); fv("camera", p.camera, 4);
        fv("light", p.light, 4); fv("selectpoint", p.selectpoint, 4); fv("connect", p.connect, 4);
        fv("contactpoint", p.contactpoint, 4); fv("contactforce", p.contactforce, 4);
        fv("contactfriction", p.contactfriction, 4); fv("contacttorque", p.contacttorque, 4);
        fv("contactgap", p.contactgap, 4); fv("rangefinder", p.rangefinder, 4);
        fv("constraint", p.constraint, 4); fv("slidercrank", p.slidercrank, 4);
        fv("crankbroken", p.crankbroken, 4);
      } else {
        fail(c, "unknown element <" + c.name + "> in <visual>");
      }
      for (const auto& at : c.attrs) e.find(at.first.c_str());  // newer attributes: accepted
      e.finish();
      for (const auto& g : c.children) fail(g, "unknown element <" + g.name + "> in <" + c.name + ">");
    }
  }

  // <texture> in <asset> (2.2.2's attributes; a builtin needs positive width and height).
  TextureSpec read_texture(Attrs& a, const Node& c) {
    TextureSpec t;
    t.src = c;
    a.str("name", t.name);
    static const std::vector<std::pair<const char*, int>> kTypes = {{"2d", kTex2D}, {"cube", kTexCube}, {"skybox", kTexSkybox}};
    static const std::vector<std::pair<const char*, int>> kBuiltins = {
        {"none", kBuiltinNone}, {"gradient", kBuiltinGradient}, {"checker", kBuiltinChecker}, {"flat", kBuiltinFlat}};
    static const std::vector<std::pair<const char*, int>> kMarks = {
        {"none", kMarkNone}, {"edge", kMarkEdge}, {"cross", kMarkCross}, {"random", kMarkRandom}};
    a.keyword("type", kTypes, t.type);
    a.keyword("builtin", kBuiltins, t.builtin);
    a.keyword("mark", kMarks, t.mark);
    a.nums("rgb1", t.rgb1, 3);
    a.nums("rgb2", t.rgb2, 3);
    a.nums("markrgb", t.markrgb, 3);
    a.num("random", t.random);
    a.integer("width", t.width);
    a.integer("height", t.height);
    a.str("file", t.file);
    const char* faces[6] = {"fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"};
    bool any_face = false;
    for (int i = 0; i < 6; ++i) any_face = a.str(faces[i], t.cubefile[i]) || any_face;
    a.ints("gridsize", t.gridsize, 2);
    a.str("gridlayout", t.gridlayout);
    a.boolean("hflip", t.hflip);
    a.boolean("vflip", t.vflip);
    if (t.builtin != kBuiltinNone && (t.width <= 0 || t.height <= 0))
      a.error("builtin texture '" + t.name + "' needs positive 'width' and 'height'");
    if (t.builtin == kBuiltinNone && t.file.empty() && !any_face)
      a.error("texture '" + t.name + "' needs a 'builtin' kind, a 'file' or cube face files ('fileright', ...)");
    return t;
  }

  void parse_statistic(const Node& n) {
    Attrs a(n);
    a.num("meaninertia", spec.stat.meaninertia);
    a.num("meanmass", spec.stat.meanmass);
    a.num("meansize", spec.stat.meansize);
    a.num("extent", spec.stat.extent);
    a.nums("center", spec.stat.center, 3);
    a.finish();
  }

  // ------------------------------------------------------------------ defaults
  void apply_default_children(const Node& n, int ci) {
    for (const auto& c : n.children) {
      if (c.name == "default") continue;
      Attrs a(c);
      DefaultClass& d = classes[ci];
      const CompilerSpec& cs = spec.compiler;
      if (c.name == "joint") read_joint(a, d.joint, cs);
      else if (c.name == "geom") read_geom(a, d.geom, cs);
      else if (c.name == "site") read_site(a, d.site, cs);
      else if (c.name == "camera") read_camera(a, d.camera, cs);
      else if (c.name == "light") read_light(a, d.light);
      else if (c.name == "tendon") read_tendon(a, d.tendon, cs);
      else if (c.name == "equality") {
        read_equality(a, d.equality, "");
      } else if (c.name == "pair") read_pair(a, d.pair);
      else if (c.name == "mesh") read_mesh(a, d.mesh);
      else if (c.name == "material") read_material(a, d.material);
      else if (is_actuator_kind(c.name)) read_actuator(a, d.actuator, c.name, cs);
      else fail(c, "unknown element <" + c.name + "> in <default>");
      a.finish();
      for (const auto& cc : c.children) fail(cc, "unknown element <" + cc.name + "> in <" + c.name + ">");
    }
    for (const auto& c : n.children) {
      if (c.name != "default") continue;
      Attrs a(c);
      std::string name;
      if (!a.str("class", name)) a.error("nested <default> requires attribute 'class'");
      a.finish();
      if (class_index.count(name)) a.error("duplicate default class '" + name + "'");
      DefaultClass d = classes[ci];
      d.name = name;
      d.parent = ci;
      classes.push_back(d);
      const int id = static_cast<int>(classes.size()) - 1;
      class_index[name] = id;
      apply_default_children(c, id);
    }
  }

  // ------------------------------------------------------------------ assets
  void parse_asset(const Node& n) {
    for (const auto& c : n.children) {
      Attrs a(c);
      if (c.name == "mesh") {
        const int ci = lookup_class(a, 0);
        MeshSpec m = classes[ci].mesh;
        m.src = c;
        a.str("name", m.name);
        a.str("file", m.file);
        read_mesh(a, m);
        m.vertex = a.numlist("vertex");
        {
          auto f = a.numlist("face");
          for (double x : f) m.face.push_back(static_cast<int>(x));
        }
        a.accept({"normal", "texcoord"});
        a.nums("refpos", m.refpos, 3);
        a.nums("refquat", m.refquat, 4);
        a.finish();
        for (const auto& ch : c.children) fail(ch, "unknown element <" + ch.name + "> in <mesh>");
        spec.meshes.push_back(m);
      } else if (c.name == "hfield") {
        HFieldSpec h;
        h.src = c;
        a.str("name", h.name);
        a.str("file", h.file);
        a.integer("nrow", h.nrow);
        a.integer("ncol", h.ncol);
        a.nums("size", h.size, 4);
        h.elevation = a.numlist("elevation");  // newer than 2.2.2: rows top-down (mesh_compile.cc)
        a.accept({"content_type"});
        a.finish();
        for (const auto& ch : c.children) fail(ch, "unknown element <" + ch.name + "> in <hfield>");
        spec.hfields.push_back(h);
      } else if (c.name == "texture") {
        spec.textures.push_back(read_texture(a, c));
        a.finish();
        for (const auto& ch : c.children) fail(ch, "unknown element <" + ch.name + "> in <texture>");
      } else if (c.name == "material") {
        const int ci = lookup_class(a, 0);
        MaterialSpec mt = classes[ci].material;
        mt.src = c;
        a.str("name", mt.name);
        read_material(a, mt);
        a.finish();
        for (const auto& ch : c.children) fail(ch, "unknown element <" + ch.name + "> in <material>");
        spec.materials.push_back(mt);
      } else if (c.name == "skin") {
        // Visual-only asset: accepted, kept out of the model; its attributes are checked against
        // 2.2.2's schema (found by experiment).
        std::string name;
        a.str("name", name);
        spec.skins.push_back(name);
        a.accept({"file", "material", "rgba", "inflate", "vertex", "texcoord", "face", "group"});
        for (const auto& bone : c.children) {
          Attrs b(bone);
          if (bone.name != "bone") b.error("unknown element <" + bone.name + "> in <skin>");
          b.accept({"body", "bindpos", "bindquat", "vertid", "vertweight"});
          b.finish();
        }
        a.finish();
      } else {
        fail(c, "unknown element <" + c.name + "> in <asset>");
      }
    }
  }

  // ------------------------------------------------------------------ bodies
  void parse_body(const Node& n, BodySpec& b, int cc, bool world) {
    b.src = element_only(n);
    Attrs a(n);
    if (!world) {
      a.str("name", b.name);
      cc = lookup_childclass(a, cc);
      b.pos_set = a.nums("pos", b.pos, 3);
      read_orientation(a, spec.compiler, b.quat);
      a.boolean("mocap", b.mocap);
      // gravcomp is newer than MuJoCo 2.2.2 but documented in the computation chapter (passive
      // forces): an upward force of gravcomp times the body's weight at its center of mass.
      a.num("gravcomp", b.gravcomp);
      b.user = a.numlist("user");
    }
    a.finish();
    parse_body_children(n, b, cc, world, FramePose{});
  }

  // The children of a body, or of a <frame> in it (frame: the frame's pose in the body; they
  // are placed in the body with that pose composed into theirs).
  void parse_body_children(const Node& n, BodySpec& b, int cc, bool world, const FramePose& frame) {
    for (const auto& c : n.children) {
      if (c.name == "body") {
        b.children.emplace_back();
        parse_body(c, b.children.back(), cc, false);
        frame.apply(b.children.back().pos, b.children.back().quat);
        continue;
      }
      if (c.name == "frame") {
        Attrs e(c);
        parse_frame(c, e, b, cc, world, frame);
        continue;
      }
      parse_body_element(n, c, b, cc, world, frame);
    }
  }

  // One child of a body other than <body> and <frame>. Kept out of line: its element specs
  // (joint, geom, site, camera, light) would otherwise take stack in every level of the body
  // recursion, and a chain of 1000 bodies is 1000 levels deep.
  [[gnu::noinline]] void parse_body_element(const Node& n, const Node& c, BodySpec& b, int cc, bool world,
                                            const FramePose& frame) {
    const CompilerSpec& cs = spec.compiler;
    {
      Attrs e(c);
      if (frame.inside && (c.name == "inertial" || c.name == "composite"))
        e.error("element <" + c.name + "> inside a <frame> is not supported (the MJCF reference does not define "
                "it): place it directly in the body");
      if (world && frame.inside && (c.name == "joint" || c.name == "freejoint"))
        e.error("element <" + c.name + "> is not allowed in a <frame> of <worldbody> (its children belong to the "
                "world body, which cannot move)");
      if (c.name == "inertial" && !world) {
        if (b.inertial.present) e.error("a body can have only one <inertial>");
        InertialSpec& in = b.inertial;
        in.present = true;
        in.src = c;
        e.nums("pos", in.pos, 3);
        read_orientation(e, cs, in.quat);
        if (!e.num("mass", in.mass)) e.error("attribute 'mass' is required");
        const bool diag = e.nums("diaginertia", in.inertia, 3);
        const bool full = e.nums("fullinertia", in.inertia, 6);
        if (diag && full) e.error("attributes 'diaginertia' and 'fullinertia' cannot both be given");
        if (!diag && !full) e.error("attribute 'diaginertia' or 'fullinertia' is required");
        in.full = full;
        if (full && (e.has("quat") || e.has("euler") || e.has("axisangle") || e.has("xyaxes") || e.has("zaxis")))
          e.error("'fullinertia' cannot be combined with an orientation");
      } else if (c.name == "joint" && !world) {
        JointSpec j = classes[lookup_class(e, cc)].joint;
        j.src = c;
        e.str("name", j.name);
        read_joint(e, j, cs);
        if (j.type == kJointFree) {
          // A free joint has no position or axis: 2.2.2 stores 0 and z whatever the attributes say.
          j.pos[0] = j.pos[1] = j.pos[2] = 0;
          j.axis[0] = j.axis[1] = 0;
          j.axis[2] = 1;
        }
        frame.apply(j);
        b.joints.push_back(j);
      } else if (c.name == "freejoint" && !world) {
        JointSpec j;  // defaults do not apply to <freejoint>
        j.src = c;
        j.type = kJointFree;
        e.str("name", j.name);
        e.integer("group", j.group);
        b.joints.push_back(j);
      } else if (c.name == "geom") {
        GeomSpec g = classes[lookup_class(e, cc)].geom;
        g.src = c;
        e.str("name", g.name);
        read_geom(e, g, cs);
        frame.apply(g);
        b.geoms.push_back(g);
      } else if (c.name == "site") {
        SiteSpec s = classes[lookup_class(e, cc)].site;
        s.src = c;
        e.str("name", s.name);
        read_site(e, s, cs);
        frame.apply(s);
        b.sites.push_back(s);
      } else if (c.name == "camera") {
        CameraSpec s = classes[lookup_class(e, cc)].camera;
        s.src = c;
        e.str("name", s.name);
        read_camera(e, s, cs);
        frame.apply(s.pos, s.quat);
        b.cameras.push_back(s);
      } else if (c.name == "light") {
        LightSpec s = classes[lookup_class(e, cc)].light;
        s.src = c;
        e.str("name", s.name);
        read_light(e, s);
        frame.apply(s);
        b.lights.push_back(s);
      } else if (c.name == "composite") {
        if (cs.global) e.error("<composite> requires compiler coordinate=\"local\" (as in MuJoCo 2.2.2)");
        parse_composite(c, e, b, spec);
        return;
      } else {
        e.error("unknown element <" + c.name + "> in <" + n.name + ">");
      }
      e.finish();
      for (const auto& g : c.children) fail(g, "unknown element <" + g.name + "> in <" + c.name + ">");
    }
  }

  // <frame> (newer than MuJoCo 2.2.2; MJCF reference, body/frame): name, childclass and a pose
  // (pos and one orientation, read with the compiler's angle and eulerseq like a body's). Its
  // children go to the enclosing body (mjcf/frame.cc); its childclass applies to its descendants
  // as a body's does.
  void parse_frame(const Node& c, Attrs& e, BodySpec& b, int cc, bool world, const FramePose& outer) {
    // The reference gives a frame's pose "in the parent coordinate system"; what it would mean
    // with coordinate="global" (children in world coordinates) it leaves open: refused.
    if (spec.compiler.global) e.error("<frame> requires compiler coordinate=\"local\"");
    std::string name;
    e.str("name", name);
    cc = lookup_childclass(e, cc);
    double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
    e.nums("pos", pos, 3);
    read_orientation(e, spec.compiler, quat);
    e.finish();
    parse_body_children(c, b, cc, world, outer.then(pos, quat));
  }

  int lookup_childclass(Attrs& a, int cc) {
    std::string cls;
    if (!a.str("childclass", cls)) return cc;
    auto it = class_index.find(cls);
    if (it == class_index.end()) a.error("unknown default class '" + cls + "' in 'childclass'");
    return it->second;
  }

  // ------------------------------------------------------------------ actuators, tendons, sensors
  void parse_actuators(const Node& n) {
    for (const auto& c : n.children) {
      if (!is_actuator_kind(c.name)) fail(c, "unknown element <" + c.name + "> in <actuator>");
      Attrs a(c);
      ActuatorSpec s = classes[lookup_class(a, 0)].actuator;
      s.src = c;
      a.str("name", s.name);
      read_actuator(a, s, c.name, spec.compiler);
      a.finish();
      if (s.trntype == kTrnUndefined) a.error("actuator needs a transmission target (joint, tendon, site, ...)");
      spec.actuators.push_back(s);
      for (const auto& g : c.children) fail(g, "unknown element <" + g.name + "> in <" + c.name + ">");
    }
  }

  void parse_tendons(const Node& n) {
    for (const auto& c : n.children) {
      if (c.name != "fixed" && c.name != "spatial") fail(c, "unknown element <" + c.name + "> in <tendon>");
      Attrs a(c);
      TendonSpec t = classes[lookup_class(a, 0)].tendon;
      t.src = c;
      t.spatial = c.name == "spatial";
      a.str("name", t.name);
      read_tendon(a, t, spec.compiler);
      a.finish();
      for (const auto& w : c.children) {
        Attrs e(w);
        WrapSpec ws;
        ws.src = w;
        if (!t.spatial && w.name == "joint") {
          ws.type = kWrapJoint;
          if (!e.str("joint", ws.name)) e.error("attribute 'joint' is required");
          if (!e.num("coef", ws.prm)) e.error("attribute 'coef' is required");
        } else if (t.spatial && w.name == "site") {
          ws.type = kWrapSite;
          if (!e.str("site", ws.name)) e.error("attribute 'site' is required");
        } else if (t.spatial && w.name == "geom") {
          ws.type = kWrapSphere;  // sphere or cylinder: decided by the geom type at compile
          if (!e.str("geom", ws.name)) e.error("attribute 'geom' is required");
          e.str("sidesite", ws.sidesite);
        } else if (t.spatial && w.name == "pulley") {
          ws.type = kWrapPulley;
          if (!e.num("divisor", ws.prm)) e.error("attribute 'divisor' is required");
        } else {
          e.error("unknown element <" + w.name + "> in <" + c.name + ">");
        }
        e.finish();
        t.path.push_back(ws);
      }
      spec.tendons.push_back(t);
    }
  }

  void parse_sensors(const Node& n) {
    for (const auto& c : n.children) {
      const SensorInfo* info = nullptr;
      for (const auto& s : kSensors)
        if (c.name == s.name) info = &s;
      if (!info) fail(c, "unknown element <" + c.name + "> in <sensor>");
      Attrs a(c);
      SensorSpec s;
      s.src = c;
      s.type = info->type;
      s.dim = info->dim;
      s.needstage = info->stage;
      s.datatype = info->datatype;
      a.str("name", s.name);
      a.num("noise", s.noise);
      a.num("cutoff", s.cutoff);
      s.user = a.numlist("user");
      if (*info->objattr) {
        s.objtype = info->objtype;
        if (!a.str(info->objattr, s.objname)) a.error(std::string("attribute '") + info->objattr + "' is required");
      } else if (info->type >= kSensFramePos && info->type <= kSensFrameAngAcc) {
        if (!a.keyword("objtype", kFrameObjWords, s.objtype)) a.error("attribute 'objtype' is required");
        if (!a.str("objname", s.objname)) a.error("attribute 'objname' is required");
        if (a.keyword("reftype", kFrameObjWords, s.reftype)) {
          if (!a.str("refname", s.refname)) a.error("attribute 'refname' is required with 'reftype'");
        } else if (a.has("refname")) {
          a.error("attribute 'reftype' is required with 'refname'");
        }
      } else if (info->type == kSensUser) {
        if (!a.keyword("objtype", kObjWords, s.objtype)) a.error("attribute 'objtype' is required");
        a.str("objname", s.objname);
        if (!a.keyword("datatype", {{"real", kDataReal}, {"positive", kDataPositive}, {"axis", kDataAxis},
                                    {"quaternion", kDataQuaternion}}, s.datatype))
          a.error("attribute 'datatype' is required");
        if (!a.keyword("needstage", {{"pos", kStagePos}, {"vel", kStageVel}, {"acc", kStageAcc}}, s.needstage))
          a.error("attribute 'needstage' is required");
        if (!a.integer("dim", s.dim)) a.error("attribute 'dim' is required");
        if (s.dim < 1) a.error("attribute 'dim' must be positive");
      }
      a.finish();
      if (s.noise < 0) a.error("attribute 'noise' must be non-negative");
      if (s.cutoff < 0) a.error("attribute 'cutoff' must be non-negative");
      spec.sensors.push_back(s);
      for (const auto& g : c.children) fail(g, "unknown element <" + g.name + "> in <" + c.name + ">");
    }
  }

  void parse_equality(const Node& n) {
    for (const auto& c : n.children) {
      if (c.name == "distance") fail(c, "equality <distance> is not supported by MuJoCo 2.2.2");
      if (c.name != "connect" && c.name != "weld" && c.name != "joint" && c.name != "tendon")
        fail(c, "unknown element <" + c.name + "> in <equality>");
      Attrs a(c);
      EqualitySpec e = classes[lookup_class(a, 0)].equality;
      e.src = c;
      a.str("name", e.name);
      read_equality(a, e, c.name);
      a.finish();
      if (e.name1.empty()) {
        const char* what = c.name == "connect" || c.name == "weld" ? "body1" : c.name == "joint" ? "joint1" : "tendon1";
        a.error(std::string("attribute '") + what + "' is required");
      }
      spec.equalities.push_back(e);
    }
  }

  void parse_contact(const Node& n) {
    for (const auto& c : n.children) {
      Attrs a(c);
      if (c.name == "pair") {
        PairSpec p = classes[lookup_class(a, 0)].pair;
        p.src = c;
        a.str("name", p.name);
        if (!a.str("geom1", p.geom1)) a.error("attribute 'geom1' is required");
        if (!a.str("geom2", p.geom2)) a.error("attribute 'geom2' is required");
        read_pair(a, p);
        a.finish();
        spec.pairs.push_back(p);
      } else if (c.name == "exclude") {
        std::string name, b1, b2;
        a.str("name", name);
        if (!a.str("body1", b1)) a.error("attribute 'body1' is required");
        if (!a.str("body2", b2)) a.error("attribute 'body2' is required");
        a.finish();
        spec.excludes.emplace_back(b1, b2);
        spec.exclude_src.push_back(c);
      } else {
        fail(c, "unknown element <" + c.name + "> in <contact>");
      }
    }
  }

  void parse_keyframe(const Node& n) {
    for (const auto& c : n.children) {
      if (c.name != "key") fail(c, "unknown element <" + c.name + "> in <keyframe>");
      Attrs a(c);
      KeySpec k;
      k.src = c;
      a.str("name", k.name);
      a.num("time", k.time);
      k.qpos = a.numlist("qpos");
      k.qvel = a.numlist("qvel");
      k.act = a.numlist("act");
      k.mpos = a.numlist("mpos");
      k.mquat = a.numlist("mquat");
      k.ctrl = a.numlist("ctrl");
      a.finish();
      spec.keys.push_back(k);
    }
  }

  void parse_custom(const Node& n) {
    for (const auto& c : n.children) {
      Attrs a(c);
      std::string name;
      if (!a.str("name", name)) a.error("attribute 'name' is required");
      if (c.name == "numeric") {
        NumericSpec s;
        s.src = c;
        s.name = name;
        a.integer("size", s.size);
        s.data = a.numlist("data");
        if (s.size < 0 && s.data.empty()) a.error("attribute 'size' or 'data' is required");
        if (s.size >= 0 && static_cast<int>(s.data.size()) > s.size)
          a.error("attribute 'data' has more values than 'size'");
        if (s.size < 0) s.size = static_cast<int>(s.data.size());
        spec.numerics.push_back(s);
      } else if (c.name == "text") {
        std::string data;
        if (!a.str("data", data)) a.error("attribute 'data' is required");
        spec.texts.emplace_back(name, data);
      } else if (c.name == "tuple") {
        for (const auto& e : c.children) {
          Attrs t(e);
          if (e.name != "element") t.error("unknown element <" + e.name + "> in <tuple>");
          t.accept({"objtype", "objname", "prm"});
          t.finish();
        }
        spec.tuples.push_back(name);
      } else {
        fail(c, "unknown element <" + c.name + "> in <custom>");
      }
      a.finish();
    }
  }
};

}  // namespace

Spec parse_spec(const Node& root) {
  Parser p;
  p.run(root);
  return std::move(p.spec);
}

}  // namespace moreau::mjcf

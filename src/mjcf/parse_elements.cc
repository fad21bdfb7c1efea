// Attribute readers for the MJCF elements that default classes can configure. Each reads into a
// struct that already holds the class defaults, so an absent attribute keeps the inherited value.
#include <cmath>

#include "math/vec.h"
#include "mjcf/parse_common.h"
#include "model_geometry/geometry.h"

namespace moreau::mjcf {

using namespace moreau::math;

const std::vector<std::pair<const char*, int>> kGeomTypeWords = {
    {"plane", kGeomPlane},     {"hfield", kGeomHField}, {"sphere", kGeomSphere},
    {"capsule", kGeomCapsule}, {"ellipsoid", kGeomEllipsoid}, {"cylinder", kGeomCylinder},
    {"box", kGeomBox},         {"mesh", kGeomMesh}};
const std::vector<std::pair<const char*, int>> kBoolWords = {{"false", 0}, {"true", 1}};
const std::vector<std::pair<const char*, int>> kTriStateWords = {{"false", 0}, {"true", 1}, {"auto", 2}};

// ------------------------------------------------------------------------------ orientations

void euler_to_quat(const double euler[3], const std::string& seq, double quat[4]) {
  // MJCF: lowercase axes rotate with the frame (intrinsic: post-multiply), uppercase axes stay
  // fixed (extrinsic: pre-multiply).
  unitquat(quat);
  for (int i = 0; i < 3; ++i) {
    const char c = seq[i];
    double axis[3] = {0, 0, 0};
    axis[(c == 'x' || c == 'X') ? 0 : (c == 'y' || c == 'Y') ? 1 : 2] = 1;
    double r[4];
    axisangle2quat(r, axis, euler[i]);
    if (c >= 'a' && c <= 'z') mulquat(quat, quat, r);
    else mulquat(quat, r, quat);
    normalize4_div(quat);  // after each rotation and once more at the end: 2.2.2's frames to the bit
  }
  normalize4_div(quat);
}

void xyaxes_to_quat(const double xy[6], double quat[4]) {
  double x[3] = {xy[0], xy[1], xy[2]}, y[3] = {xy[3], xy[4], xy[5]}, z[3];
  normalize3_div(x);
  addscl3(y, x, -dot3(x, y));
  normalize3_div(y);
  cross3(z, x, y);
  const double R[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
  mat2quat(quat, R);
}

bool read_orientation(Attrs& a, const CompilerSpec& c, double quat[4]) {
  int count = 0;
  for (const char* n : {"quat", "axisangle", "euler", "xyaxes", "zaxis"}) count += a.has(n);
  if (count > 1) a.error("orientation specified more than once (quat, axisangle, euler, xyaxes, zaxis)");
  // degrees to radians as a / 180 * pi (2.2.2's rounding: its frames to the bit)
  auto radians = [&](double a) { return c.degree ? a / 180 * M_PI : a; };
  double v[6];
  if (a.nums("quat", v, 4)) {
    copy4(quat, v);
    if (normalize4_div(quat) < 1e-15) a.error("attribute 'quat' must be a non-zero quaternion");
    return true;
  }
  if (a.nums("axisangle", v, 4)) {
    if (normalize3_div(v) < 1e-15) a.error("attribute 'axisangle' has a zero axis");
    axisangle2quat(quat, v, radians(v[3]));
    return true;
  }
  if (a.nums("euler", v, 3)) {
    for (int i = 0; i < 3; ++i) v[i] = radians(v[i]);
    euler_to_quat(v, c.eulerseq, quat);
    return true;
  }
  if (a.nums("xyaxes", v, 6)) {
    double x[3] = {v[0], v[1], v[2]}, y[3] = {v[3], v[4], v[5]}, z[3];
    cross3(z, x, y);
    if (norm3(x) < 1e-15 || norm3(z) < 1e-15) a.error("attribute 'xyaxes' has parallel or zero axes");
    xyaxes_to_quat(v, quat);
    return true;
  }
  if (a.nums("zaxis", v, 3)) {
    if (norm3(v) < 1e-15) a.error("attribute 'zaxis' is a zero vector");
    geometry::zaxis_to_quat(v, quat);
    return true;
  }
  return false;
}

std::vector<double> read_user(Attrs& a) {
  bool present = false;
  auto v = a.numlist("user", &present);
  return v;
}

static void read_solimp(Attrs& a, const char* name, double* out) { a.numvar(name, out, 1, kNIMP); }
static void read_solref(Attrs& a, const char* name, double* out) { a.numvar(name, out, 1, kNREF); }
static void read_rgba(Attrs& a, float* rgba) {
  double v[4];
  if (a.nums("rgba", v, 4))
    for (int i = 0; i < 4; ++i) rgba[i] = static_cast<float>(v[i]);
}

// ------------------------------------------------------------------------------ joint

void read_joint(Attrs& a, JointSpec& j, const CompilerSpec& c) {
  a.keyword("type", {{"free", kJointFree}, {"ball", kJointBall}, {"slide", kJointSlide}, {"hinge", kJointHinge}},
            j.type);
  a.integer("group", j.group);
  a.nums("pos", j.pos, 3);
  if (a.nums("axis", j.axis, 3) && norm3(j.axis) < 1e-15) a.error("attribute 'axis' is a zero vector");
  if (a.nums("springdamper", j.springdamper, 2) && (j.springdamper[0] < 0 || j.springdamper[1] < 0))
    a.error("attribute 'springdamper' expects non-negative time constant and damping ratio");
  a.keyword("limited", kTriStateWords, j.limited);
  read_solref(a, "solreflimit", j.solreflimit);
  read_solimp(a, "solimplimit", j.solimplimit);
  read_solref(a, "solreffriction", j.solreffriction);
  read_solimp(a, "solimpfriction", j.solimpfriction);
  a.num("stiffness", j.stiffness);
  if (a.nums("range", j.range, 2)) j.range_set = true;
  a.num("margin", j.margin);
  a.num("ref", j.ref);
  a.num("springref", j.springref);
  a.num("armature", j.armature);
  a.num("damping", j.damping);
  a.num("frictionloss", j.frictionloss);
  bool p = false;
  auto u = a.numlist("user", &p);
  if (p) j.user = u;
}

// ------------------------------------------------------------------------------ geom, site

void read_geom(Attrs& a, GeomSpec& g, const CompilerSpec& c) {
  a.keyword("type", kGeomTypeWords, g.type);
  a.integer("contype", g.contype);
  a.integer("conaffinity", g.conaffinity);
  if (a.integer("condim", g.condim) && g.condim != 1 && g.condim != 3 && g.condim != 4 && g.condim != 6)
    a.error("attribute 'condim' must be 1, 3, 4 or 6");
  a.integer("group", g.group);
  a.integer("priority", g.priority);
  {
    double v[3];
    const int k = a.numvar("size", v, 1, 3);
    for (int i = 0; i < k; ++i) g.size[i] = v[i];
    if (k) g.size_n = k;
  }
  a.str("material", g.material);
  a.numvar("friction", g.friction, 1, 3);
  if (a.num("mass", g.mass)) g.mass_set = true;
  a.num("density", g.density);
  a.num("solmix", g.solmix);
  read_solref(a, "solref", g.solref);
  read_solimp(a, "solimp", g.solimp);
  a.num("margin", g.margin);
  a.num("gap", g.gap);
  if (a.nums("fromto", g.fromto, 6)) g.has_fromto = true;
  a.nums("pos", g.pos, 3);
  read_orientation(a, c, g.quat);
  a.str("hfield", g.hfield);
  a.str("mesh", g.mesh);
  double fs;
  if (a.num("fitscale", fs) && fs != 1) a.error("attribute 'fitscale' is not supported yet");
  bool shell = false;
  if (a.boolean("shellinertia", shell) && shell) a.error("attribute 'shellinertia' is not supported yet");
  read_rgba(a, g.rgba);
  a.keyword("fluidshape", {{"none", 0}, {"ellipsoid", 1}}, g.fluidshape);
  a.nums("fluidcoef", g.fluidcoef, 5);
  bool p = false;
  auto u = a.numlist("user", &p);
  if (p) g.user = u;
}

void read_site(Attrs& a, SiteSpec& s, const CompilerSpec& c) {
  a.keyword("type", kGeomTypeWords, s.type);
  a.integer("group", s.group);
  a.nums("pos", s.pos, 3);
  read_orientation(a, c, s.quat);
  a.str("material", s.material);
  read_rgba(a, s.rgba);
  a.numvar("size", s.size, 1, 3);
  if (a.nums("fromto", s.fromto, 6)) s.has_fromto = true;
  bool p = false;
  auto u = a.numlist("user", &p);
  if (p) s.user = u;
}

void read_camera(Attrs& a, CameraSpec& s, const CompilerSpec& c) {
  a.keyword("mode", {{"fixed", 0}, {"track", 1}, {"trackcom", 2}, {"targetbody", 3}, {"targetbodycom", 4}},
            s.mode);
  a.str("target", s.target);
  a.nums("pos", s.pos, 3);
  read_orientation(a, c, s.quat);
  a.num("fovy", s.fovy);
  a.num("ipd", s.ipd);
  bool p = false;
  auto u = a.numlist("user", &p);
  if (p) s.user = u;
}

void read_light(Attrs& a, LightSpec& s) {
  a.keyword("mode", {{"fixed", 0}, {"track", 1}, {"trackcom", 2}, {"targetbody", 3}, {"targetbodycom", 4}},
            s.mode);
  a.str("target", s.target);
  a.boolean("directional", s.directional);
  a.boolean("castshadow", s.castshadow);
  a.boolean("active", s.active);
  a.nums("pos", s.pos, 3);
  a.nums("dir", s.dir, 3);
  a.accept({"attenuation", "cutoff", "exponent", "ambient", "diffuse", "specular"});
}

// ------------------------------------------------------------------------------ actuators

static const std::vector<std::pair<const char*, int>> kDynWords = {
    {"none", kDynNone}, {"integrator", kDynIntegrator}, {"filter", kDynFilter}, {"muscle", kDynMuscle},
    {"user", kDynUser}};
static const std::vector<std::pair<const char*, int>> kGainWords = {
    {"fixed", kGainFixed}, {"affine", kGainAffine}, {"muscle", kGainMuscle}, {"user", kGainUser}};
static const std::vector<std::pair<const char*, int>> kBiasWords = {
    {"none", kBiasNone}, {"affine", kBiasAffine}, {"muscle", kBiasMuscle}, {"user", kBiasUser}};

// Shortcut elements (motor, position, ...) set the gain/bias/dynamics parameters the way
// MuJoCo 2.2.2 documents them; their own attributes start from the inherited values.
void read_actuator(Attrs& a, ActuatorSpec& s, const std::string& kind, const CompilerSpec& c) {
  s.kind = kind;
  a.integer("group", s.group);
  a.keyword("ctrllimited", kTriStateWords, s.ctrllimited);
  a.keyword("forcelimited", kTriStateWords, s.forcelimited);
  if (a.nums("ctrlrange", s.ctrlrange, 2)) s.ctrlrange_set = true;
  if (a.nums("forcerange", s.forcerange, 2)) s.forcerange_set = true;
  a.nums("lengthrange", s.lengthrange, 2);
  a.numvar("gear", s.gear, 1, 6);
  a.num("cranklength", s.cranklength);
  bool p = false;
  auto u = a.numlist("user", &p);
  if (p) s.user = u;
  // transmission target: exactly one of these
  int ntarget = 0;
  auto target = [&](const char* attr, int type) {
    if (a.str(attr, s.target)) {
      s.trntype = type;
      ++ntarget;
    }
  };
  target("joint", kTrnJoint);
  target("jointinparent", kTrnJointInParent);
  target("tendon", kTrnTendon);
  target("site", kTrnSite);
  target("cranksite", kTrnSliderCrank);
  if (kind == "adhesion") {
    ntarget = 0;
    target("body", kTrnBody);
  }
  if (ntarget > 1) a.error("actuator transmission specified more than once");
  a.str("slidersite", s.slidersite);
  if (kind != "adhesion" && kind != "damper" && kind != "intvelocity") {
    if (a.keyword("actlimited", kTriStateWords, s.actlimited)) {}
    if (a.nums("actrange", s.actrange, 2)) s.actrange_set = true;
  }

  if (kind == "general") {
    a.keyword("dyntype", kDynWords, s.dyntype);
    a.keyword("gaintype", kGainWords, s.gaintype);
    a.keyword("biastype", kBiasWords, s.biastype);
    // 'user' types are computed by Data::act_dyn_callback / act_gain_callback / act_bias_callback
    a.numvar("dynprm", s.dynprm, 1, kNDYN);
    a.numvar("gainprm", s.gainprm, 1, kNGAIN);
    a.numvar("biasprm", s.biasprm, 1, kNBIAS);
  } else if (kind == "motor") {
    s.gainprm[0] = 1;
    s.dyntype = kDynNone;
    s.gaintype = kGainFixed;
    s.biastype = kBiasNone;
  } else if (kind == "position") {
    for (double& b : s.biasprm) b = 0;
    a.num("kp", s.gainprm[0]);
    s.biasprm[1] = -s.gainprm[0];
    s.dyntype = kDynNone;
    s.gaintype = kGainFixed;
    s.biastype = kBiasAffine;
  } else if (kind == "velocity") {
    for (double& b : s.biasprm) b = 0;
    a.num("kv", s.gainprm[0]);
    s.biasprm[2] = -s.gainprm[0];
    s.dyntype = kDynNone;
    s.gaintype = kGainFixed;
    s.biastype = kBiasAffine;
  } else if (kind == "intvelocity") {
    for (double& b : s.biasprm) b = 0;
    a.num("kp", s.gainprm[0]);
    s.biasprm[1] = -s.gainprm[0];
    if (a.nums("actrange", s.actrange, 2)) s.actrange_set = true;
    s.actlimited = 1;
    s.dyntype = kDynIntegrator;
    s.gaintype = kGainFixed;
    s.biastype = kBiasAffine;
  } else if (kind == "damper") {
    double kv = (s.gaintype == kGainAffine && s.gainprm[2] != 0) ? -s.gainprm[2] : 1;
    a.num("kv", kv);
    for (double& g : s.gainprm) g = 0;
    s.gainprm[2] = -kv;
    s.ctrllimited = 1;
    s.dyntype = kDynNone;
    s.gaintype = kGainAffine;
    s.biastype = kBiasNone;
  } else if (kind == "cylinder") {
    a.num("timeconst", s.dynprm[0]);
    a.num("area", s.gainprm[0]);
    double d;
    if (a.num("diameter", d)) s.gainprm[0] = M_PI / 4 * d * d;
    a.numvar("bias", s.biasprm, 1, 3);
    s.dyntype = kDynFilter;
    s.gaintype = kGainFixed;
    s.biastype = kBiasAffine;
  } else if (kind == "muscle") {
    // Muscle defaults replace the parameters that still hold the global (general) defaults.
    const double dflt[9] = {0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
    const double global[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    if (s.dynprm[0] == 1) s.dynprm[0] = 0.01;
    if (s.dynprm[1] == 0) s.dynprm[1] = 0.04;
    for (int i = 0; i < 9; ++i)
      if (s.gainprm[i] == global[i]) s.gainprm[i] = dflt[i];
    a.nums("timeconst", s.dynprm, 2);
    a.nums("range", s.gainprm, 2);
    a.num("force", s.gainprm[2]);
    a.num("scale", s.gainprm[3]);
    a.num("lmin", s.gainprm[4]);
    a.num("lmax", s.gainprm[5]);
    a.num("vmax", s.gainprm[6]);
    a.num("fpmax", s.gainprm[7]);
    a.num("fvmax", s.gainprm[8]);
    for (int i = 0; i < 9; ++i) s.biasprm[i] = s.gainprm[i];
    s.dyntype = kDynMuscle;
    s.gaintype = kGainMuscle;
    s.biastype = kBiasMuscle;
  } else if (kind == "adhesion") {
    a.num("gain", s.gainprm[0]);
    s.ctrllimited = 1;
    s.dyntype = kDynNone;
    s.gaintype = kGainFixed;
    s.biastype = kBiasNone;
  }
}

// ------------------------------------------------------------------------------ tendon, equality, pair, mesh

void read_tendon(Attrs& a, TendonSpec& t, const CompilerSpec& c) {
  a.integer("group", t.group);
  a.keyword("limited", kTriStateWords, t.limited);
  if (a.nums("range", t.range, 2)) t.range_set = true;
  read_solref(a, "solreflimit", t.solreflimit);
  read_solimp(a, "solimplimit", t.solimplimit);
  read_solref(a, "solreffriction", t.solreffriction);
  read_solimp(a, "solimpfriction", t.solimpfriction);
  a.num("frictionloss", t.frictionloss);
  a.num("margin", t.margin);
  a.num("stiffness", t.stiffness);
  a.num("damping", t.damping);
  a.num("springlength", t.springlength);
  // Tendon armature is newer than MuJoCo 2.2.2: it adds inertia along the tendon, coupling every
  // dof the tendon spans in M, outside M's tree sparsity. Zero is accepted (it changes nothing).
  double armature = 0;
  if (a.num("armature", armature) && armature != 0)
    a.error("attribute 'armature' (tendon armature, newer than MuJoCo 2.2.2) is not supported; "
            "only 0 is accepted");
  a.num("width", t.width);
  a.str("material", t.material);
  read_rgba(a, t.rgba);
  bool p = false;
  auto u = a.numlist("user", &p);
  if (p) t.user = u;
}

void read_equality(Attrs& a, EqualitySpec& e, const std::string& kind) {
  bool active = e.active;
  if (a.boolean("active", active)) e.active = active;
  read_solref(a, "solref", e.solref);
  read_solimp(a, "solimp", e.solimp);
  if (kind == "connect") {
    e.type = kEqConnect;
    a.str("body1", e.name1);
    a.str("body2", e.name2);
    a.nums("anchor", e.data, 3);
  } else if (kind == "weld") {
    e.type = kEqWeld;
    a.str("body1", e.name1);
    a.str("body2", e.name2);
    a.nums("anchor", e.data, 3);
    a.nums("relpose", e.data + 3, 7);
    if (!a.num("torquescale", e.data[10]) && e.data[10] == 0) e.data[10] = 1;
  } else if (kind == "joint" || kind == "tendon") {
    e.type = kind == "joint" ? kEqJoint : kEqTendon;
    a.str(kind == "joint" ? "joint1" : "tendon1", e.name1);
    a.str(kind == "joint" ? "joint2" : "tendon2", e.name2);
    bool allzero = true;
    for (int i = 0; i < 5; ++i) allzero = allzero && e.data[i] == 0;
    if (!a.nums("polycoef", e.data, 5) && allzero) e.data[1] = 1;
  }
}

void read_pair(Attrs& a, PairSpec& p) {
  if (a.integer("condim", p.condim)) {
    p.condim_set = true;
    if (p.condim != 1 && p.condim != 3 && p.condim != 4 && p.condim != 6)
      a.error("attribute 'condim' must be 1, 3, 4 or 6");
  }
  if (a.numvar("friction", p.friction, 1, 5)) p.friction_set = true;
  if (a.numvar("solref", p.solref, 1, 2)) p.solref_set = true;
  if (a.numvar("solimp", p.solimp, 1, 5)) p.solimp_set = true;
  if (a.num("margin", p.margin)) p.margin_set = true;
  if (a.num("gap", p.gap)) p.gap_set = true;
}

void read_material(Attrs& a, MaterialSpec& m) {
  a.str("texture", m.texture);
  a.nums("texrepeat", m.texrepeat, 2);
  a.boolean("texuniform", m.texuniform);
  a.num("emission", m.emission);
  a.num("specular", m.specular);
  a.num("shininess", m.shininess);
  a.num("reflectance", m.reflectance);
  a.nums("rgba", m.rgba, 4);
}

void read_mesh(Attrs& a, MeshSpec& m) {
  a.nums("scale", m.scale, 3);
  a.boolean("smoothnormal", m.smoothnormal);
}

}  // namespace moreau::mjcf

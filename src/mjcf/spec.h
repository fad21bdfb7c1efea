// Entry of mjcf/: the parsed MJCF tree (Spec), what the XML says, with default classes already
// applied and orientations already converted to quaternions, and parse_spec that makes it from
// the element tree of mjcf/xml_reader.h.
//
// Layering: mjcf/ includes nothing from compiler/. The compiler (compiler/compile.h) sits above
// and turns a Spec into a Model; geometry both need is in model_geometry/, below both.
#pragma once

#include <memory>
#include <limits>
#include <string>
#include <vector>

#include "mjcf/xml_reader.h"
#include "moreau/model.h"

namespace moreau::mjcf {

// <compiler><lengthrange>: how the compiler computes actuator length ranges (names and defaults
// of the MJCF reference).
struct LengthRangeOptions {
  int mode = 1;  // 0 none, 1 muscle, 2 muscleuser, 3 all
  bool useexisting = true;
  bool uselimit = false;
  double accel = 20;      // target acceleration of the pushing force
  double maxforce = 0;    // cap on the force norm; 0: none
  double timeconst = 1;   // velocity damping time constant (at least 0.01)
  double timestep = 0.01; // 0: the model's timestep
  double inttotal = 10;   // simulated time per side
  double inteval = 2;     // evaluation interval at the end
  double tolrange = 0.05; // convergence tolerance, relative to the range
};

struct CompilerSpec {
  bool degree = true;          // angle="degree" (MJCF default)
  std::string eulerseq = "xyz";
  bool global = false;         // coordinate="global"
  int inertiafromgeom = 2;     // 0 false, 1 true, 2 auto
  int inertiagrouprange[2] = {0, 5};
  bool autolimits = false;     // 2.2.2 default
  double boundmass = 0, boundinertia = 0, settotalmass = -1;
  bool balanceinertia = false;
  bool discardvisual = false, fusestatic = false, strippath = false;
  std::string meshdir, texturedir;
  std::string assetdir;  // newer than 2.2.2: meshdir and texturedir where they are not given
  LengthRangeOptions lengthrange;  // <compiler><lengthrange .../>
};

struct JointSpec {
  Node src;  // for error messages
  std::string name;
  int type = kJointHinge;
  double pos[3] = {0, 0, 0}, axis[3] = {0, 0, 1};
  double ref = 0, springref = 0, stiffness = 0, damping = 0, armature = 0, frictionloss = 0;
  double springdamper[2] = {0, 0};  // time constant, damping ratio (both > 0: overrides stiffness, damping)
  int limited = 2;  // 0 false, 1 true, 2 auto
  double range[2] = {0, 0};
  bool range_set = false;
  double margin = 0;
  double solreflimit[2] = {0.02, 1}, solimplimit[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double solreffriction[2] = {0.02, 1}, solimpfriction[5] = {0.9, 0.95, 0.001, 0.5, 2};
  int group = 0;
  std::vector<double> user;
};

struct GeomSpec {
  Node src;
  std::string name;
  int type = kGeomSphere;
  double size[3] = {0, 0, 0};
  int size_n = 0;
  int contype = 1, conaffinity = 1, condim = 3, group = 0, priority = 0;
  double friction[3] = {1, 0.005, 0.0001};
  double solmix = 1, solref[2] = {0.02, 1}, solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double margin = 0, gap = 0;
  double mass = 0;
  bool mass_set = false;
  double density = 1000;
  bool has_fromto = false;
  double fromto[6] = {0, 0, 0, 0, 0, 0};
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  std::string mesh, hfield, material;
  float rgba[4] = {0.5f, 0.5f, 0.5f, 1};
  int fluidshape = 0;  // 0 none, 1 ellipsoid
  double fluidcoef[5] = {0.5, 0.25, 1.5, 1.0, 1.0};
  std::vector<double> user;
};

struct SiteSpec {
  Node src;
  std::string name;
  int type = kGeomSphere;
  double size[3] = {0.005, 0.005, 0.005};
  bool has_fromto = false;
  double fromto[6] = {0, 0, 0, 0, 0, 0};
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  int group = 0;
  std::string material;
  float rgba[4] = {0.5f, 0.5f, 0.5f, 1};
  std::vector<double> user;
};

struct CameraSpec {
  Node src;
  std::string name, target;
  int mode = 0;
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  double fovy = 45, ipd = 0.068;
  std::vector<double> user;
};

struct LightSpec {
  Node src;
  std::string name, target;
  int mode = 0;
  bool directional = false, castshadow = true, active = true;
  double pos[3] = {0, 0, 0}, dir[3] = {0, 0, -1};
};

struct ActuatorSpec {
  Node src;
  std::string name, kind = "general";
  int trntype = kTrnUndefined;
  std::string target, slidersite, refsite;
  int dyntype = kDynNone, gaintype = kGainFixed, biastype = kBiasNone;
  double dynprm[kNDYN] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double gainprm[kNGAIN] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  double biasprm[kNBIAS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  int ctrllimited = 2, forcelimited = 2, actlimited = 2;
  bool ctrlrange_set = false, forcerange_set = false, actrange_set = false;
  double ctrlrange[2] = {0, 0}, forcerange[2] = {0, 0}, actrange[2] = {0, 0};
  double lengthrange[2] = {0, 0};
  double gear[6] = {1, 0, 0, 0, 0, 0};
  double cranklength = 0;
  int group = 0;
  std::vector<double> user;
};

struct WrapSpec {
  Node src;
  int type = kWrapNone;  // joint, site, pulley, sphere/cylinder (geom)
  std::string name, sidesite;
  double prm = 0;
};

struct TendonSpec {
  Node src;
  std::string name;
  bool spatial = false;
  int limited = 2;
  double range[2] = {0, 0};
  bool range_set = false;
  double width = 0.003;
  double solreflimit[2] = {0.02, 1}, solimplimit[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double solreffriction[2] = {0.02, 1}, solimpfriction[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double margin = 0, stiffness = 0, damping = 0, frictionloss = 0, springlength = -1;
  int group = 0;
  std::string material;
  float rgba[4] = {0.5f, 0.5f, 0.5f, 1};
  std::vector<double> user;
  std::vector<WrapSpec> path;
};

struct EqualitySpec {
  Node src;
  std::string name;
  int type = kEqConnect;
  std::string name1, name2;
  bool active = true;
  double solref[2] = {0.02, 1}, solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double data[kNEQDATA] = {0};
};

struct PairSpec {
  Node src;
  std::string name, geom1, geom2;
  int condim = 3;
  bool condim_set = false, friction_set = false, solref_set = false, solimp_set = false,
       margin_set = false, gap_set = false;
  double friction[5] = {1, 1, 0.005, 0.0001, 0.0001};
  double solref[2] = {0.02, 1}, solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};
  double margin = 0, gap = 0;
};

struct MeshSpec {
  Node src;
  std::string name, file;
  double scale[3] = {1, 1, 1};
  double refpos[3] = {0, 0, 0}, refquat[4] = {1, 0, 0, 0};
  std::vector<double> vertex;
  std::vector<int> face;
  bool smoothnormal = false;
};

// <texture>: a builtin's parameters or image files (defaults as 2.2.2).
struct TextureSpec {
  Node src;
  std::string name, file;
  std::string cubefile[6];  // fileright, fileleft, fileup, filedown, filefront, fileback
  int gridsize[2] = {1, 1};
  std::string gridlayout = "............";
  bool hflip = false, vflip = false;
  int type = kTexCube, builtin = kBuiltinNone, mark = kMarkNone;
  double rgb1[3] = {0.8, 0.8, 0.8}, rgb2[3] = {0.5, 0.5, 0.5}, markrgb[3] = {0, 0, 0};
  double random = 0.01;
  int width = 0, height = 0;
};

// <material> (defaults as 2.2.2; a default class may change them).
struct MaterialSpec {
  Node src;
  std::string name, texture;
  double texrepeat[2] = {1, 1};
  bool texuniform = false;
  double emission = 0, specular = 0.5, shininess = 0.5, reflectance = 0;
  double rgba[4] = {1, 1, 1, 1};
};

struct HFieldSpec {
  Node src;
  std::string name, file;
  int nrow = 0, ncol = 0;
  double size[4] = {0, 0, 0, 0};
  std::vector<double> elevation;
};

struct DefaultClass {
  std::string name;
  int parent = -1;
  JointSpec joint;
  GeomSpec geom;
  SiteSpec site;
  CameraSpec camera;
  LightSpec light;
  ActuatorSpec actuator;
  TendonSpec tendon;
  EqualitySpec equality;
  PairSpec pair;
  MeshSpec mesh;
  MaterialSpec material;
};

struct InertialSpec {
  bool present = false;
  Node src;
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  double mass = 0;
  bool full = false;
  double inertia[6] = {0, 0, 0, 0, 0, 0};  // diag (3) or full (xx yy zz xy xz yz)
  // Set by fusestatic: the inertia the compiler computed for the body and its fused static
  // children; used as given, whatever compiler/inertiafromgeom says.
  bool compiled = false;
};

struct BodySpec {
  Node src;
  std::string name;
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  bool pos_set = false;  // coordinate="global": without pos, the body frame is its inertial frame
  bool mocap = false;
  double gravcomp = 0;
  InertialSpec inertial;
  std::vector<JointSpec> joints;
  std::vector<GeomSpec> geoms;
  std::vector<SiteSpec> sites;
  std::vector<CameraSpec> cameras;
  std::vector<LightSpec> lights;
  std::vector<double> user;
  std::vector<BodySpec> children;
};

struct SensorSpec {
  Node src;
  std::string name;
  int type = kSensUser;
  int objtype = kObjUnknown, reftype = kObjUnknown;
  std::string objname, refname;
  double noise = 0, cutoff = 0;
  int dim = 0, needstage = kStageAcc, datatype = kDataReal;
  std::vector<double> user;
};

struct KeySpec {
  Node src;
  std::string name;
  double time = 0;
  std::vector<double> qpos, qvel, act, mpos, mquat, ctrl;
};

struct NumericSpec {
  Node src;
  std::string name;
  int size = -1;
  std::vector<double> data;
};

struct Spec {
  std::string file;
  std::string modelname = "MuJoCo Model";
  CompilerSpec compiler;
  Option opt;
  // NaN unless <statistic> gives them: set_const computes every statistic, and a given value
  // replaces the computed one at load (as 2.2.2; its mj_setConst recomputes them all).
  Statistic stat{.meaninertia = std::numeric_limits<double>::quiet_NaN(),
                 .meanmass = std::numeric_limits<double>::quiet_NaN(),
                 .meansize = std::numeric_limits<double>::quiet_NaN(),
                 .extent = std::numeric_limits<double>::quiet_NaN(),
                 .center = {std::numeric_limits<double>::quiet_NaN(), 0, 0}};
  int nconmax = -1, njmax = -1, nuserdata = 0, nkey = 0;
  long long nstack = -1, memory = -1;
  Node size_src;  // the last <size> element (else <mujoco>), for errors about its attributes
  int nuser_body = -1, nuser_jnt = -1, nuser_geom = -1, nuser_site = -1, nuser_cam = -1,
      nuser_tendon = -1, nuser_actuator = -1, nuser_sensor = -1;
  BodySpec world;
  std::vector<MeshSpec> meshes;
  std::vector<HFieldSpec> hfields;
  std::vector<TextureSpec> textures;
  std::vector<MaterialSpec> materials;
  std::vector<std::string> skins;
  Visual vis;
  std::vector<ActuatorSpec> actuators;
  std::vector<TendonSpec> tendons;
  std::vector<SensorSpec> sensors;
  std::vector<EqualitySpec> equalities;
  std::vector<PairSpec> pairs;
  std::vector<std::pair<std::string, std::string>> excludes;
  std::vector<Node> exclude_src;
  std::vector<KeySpec> keys;
  std::vector<NumericSpec> numerics;
  std::vector<std::pair<std::string, std::string>> texts;
  std::vector<std::string> tuples;
};

// Parse the tree into a Spec (default classes applied). Throws LoadError.
Spec parse_spec(const Node& root);

}  // namespace moreau::mjcf

// Moreau Model: everything constant, compiled once from MJCF.
//
// Flat arrays, one per field, indexed by element id, with the names of the reference documents
// (computation chapter; MuJoCo's mjModel uses the same names). A Model is immutable after compile,
// so one Model can be shared read-only by any number of threads, each with its own Data.
//
// Array layout conventions (row-major, element-major):
//   body_pos[3*b + k], body_quat[4*b + k] (w, x, y, z), geom_size[3*g + k], jnt_range[2*j + k],
//   *_solref[kNREF*i + k], *_solimp[kNIMP*i + k], actuator_gainprm[kNGAIN*u + k], ...
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace moreau {

// ---------------------------------------------------------------------------------------------
// Constants and enumerations. Numeric values equal MuJoCo 2.2.2's, so that model arrays can be
// compared element by element in the differential tests.

inline constexpr int kNREF = 2;      // solref parameters
inline constexpr int kNIMP = 5;      // solimp parameters
inline constexpr int kNEQDATA = 11;  // eq_data parameters
inline constexpr int kNDYN = 10;     // actuator dynprm
inline constexpr int kNGAIN = 10;    // actuator gainprm
inline constexpr int kNBIAS = 10;    // actuator biasprm
inline constexpr int kNFLUID = 12;   // geom fluid parameters
inline constexpr double kMinVal = 1e-15;  // smallest value treated as non-zero (mjMINVAL)

enum JointType : int { kJointFree = 0, kJointBall = 1, kJointSlide = 2, kJointHinge = 3 };
// qpos / qvel widths per joint type.
inline constexpr int kJointNq[4] = {7, 4, 1, 1};
inline constexpr int kJointNv[4] = {6, 3, 1, 1};

enum GeomType : int {
  kGeomPlane = 0,
  kGeomHField = 1,
  kGeomSphere = 2,
  kGeomCapsule = 3,
  kGeomEllipsoid = 4,
  kGeomCylinder = 5,
  kGeomBox = 6,
  kGeomMesh = 7,
  kNGeomTypes = 8,
  kGeomArrow = 100,  // visual-only types, allowed for sites and decor
  kGeomArrow1 = 101,
  kGeomArrow2 = 102,
  kGeomLine = 103,
  kGeomSkin = 104,
  kGeomLabel = 105,
  kGeomNone = 1001,
};

// kIntImplicitCon ("implicitcon") is Moreau's extension beyond MuJoCo 2.2.2: implicitfast with the
// velocity derivative of the constraint forces (src/integrator/implicit_constraint.cc).
enum Integrator : int { kIntEuler = 0, kIntRK4 = 1, kIntImplicit = 2, kIntImplicitFast = 3, kIntImplicitCon = 4 };
enum Cone : int { kConePyramidal = 0, kConeElliptic = 1 };
enum JacobianType : int { kJacDense = 0, kJacSparse = 1, kJacAuto = 2 };
// 0..2 as MuJoCo; the hard-contact solvers of the RaiSim paper / Underactuated chapter follow.
enum Solver : int {
  kSolverPGS = 0,
  kSolverCG = 1,
  kSolverNewton = 2,
  kSolverRaisim = 3,
  kSolverRaisimDS = 4,
  kSolverNcpPGS = 5,
  kSolverCCP = 6,
  kSolverLCP = 7,
};
enum CollisionMode : int { kCollideAll = 0, kCollidePair = 1, kCollideDynamic = 2 };

enum DisableBit : int {
  kDsblConstraint = 1 << 0,
  kDsblEquality = 1 << 1,
  kDsblFrictionloss = 1 << 2,
  kDsblLimit = 1 << 3,
  kDsblContact = 1 << 4,
  kDsblPassive = 1 << 5,
  kDsblGravity = 1 << 6,
  kDsblClampctrl = 1 << 7,
  kDsblWarmstart = 1 << 8,
  kDsblFilterparent = 1 << 9,
  kDsblActuation = 1 << 10,
  kDsblRefsafe = 1 << 11,
  kDsblSensor = 1 << 12,
  kNDisable = 13,
};
enum EnableBit : int {
  kEnblOverride = 1 << 0,
  kEnblEnergy = 1 << 1,
  kEnblFwdinv = 1 << 2,
  kEnblSensornoise = 1 << 3,
  kEnblMulticcd = 1 << 4,
  kEnblInvdiscrete = 1 << 5,  // newer than MuJoCo 2.2.2 (computation chapter)
  kEnblJdotv = 1 << 6,        // Jdot*v of connect and weld rows in forward dynamics (newer than 2.2.2)
  kNEnable = 7,
};
// MJCF flag names, indexed by bit position.
inline constexpr const char* kDisableNames[kNDisable] = {
    "constraint", "equality", "frictionloss", "limit",    "contact",   "passive",  "gravity",
    "clampctrl",  "warmstart", "filterparent", "actuation", "refsafe", "sensor"};
inline constexpr const char* kEnableNames[kNEnable] = {"override", "energy", "fwdinv",
                                                       "sensornoise", "multiccd", "invdiscrete", "jdotv"};

enum EqType : int { kEqConnect = 0, kEqWeld = 1, kEqJoint = 2, kEqTendon = 3, kEqDistance = 4 };
enum WrapType : int {
  kWrapNone = 0,
  kWrapJoint = 1,
  kWrapPulley = 2,
  kWrapSite = 3,
  kWrapSphere = 4,
  kWrapCylinder = 5
};
enum TrnType : int {
  kTrnJoint = 0,
  kTrnJointInParent = 1,
  kTrnSliderCrank = 2,
  kTrnTendon = 3,
  kTrnSite = 4,
  kTrnBody = 5,
  kTrnUndefined = 1000
};
enum DynType : int { kDynNone = 0, kDynIntegrator = 1, kDynFilter = 2, kDynMuscle = 3, kDynUser = 4,
                     kDynFilterExact = 5 };
enum GainType : int { kGainFixed = 0, kGainAffine = 1, kGainMuscle = 2, kGainUser = 3 };
enum BiasType : int { kBiasNone = 0, kBiasAffine = 1, kBiasMuscle = 2, kBiasUser = 3 };

// Object types (sensor objtype/reftype, names lookup). Values as MuJoCo's mjtObj.
enum ObjType : int {
  kObjUnknown = 0,
  kObjBody = 1,
  kObjXBody = 2,
  kObjJoint = 3,
  kObjDof = 4,
  kObjGeom = 5,
  kObjSite = 6,
  kObjCamera = 7,
  kObjLight = 8,
  kObjMesh = 9,
  kObjSkin = 10,
  kObjHField = 11,
  kObjTexture = 12,
  kObjMaterial = 13,
  kObjPair = 14,
  kObjExclude = 15,
  kObjEquality = 16,
  kObjTendon = 17,
  kObjActuator = 18,
  kObjSensor = 19,
  kObjNumeric = 20,
  kObjText = 21,
  kObjTuple = 22,
  kObjKey = 23,
};

// Sensor types. Values as MuJoCo 2.2.2's mjtSensor.
enum SensorType : int {
  kSensTouch = 0,
  kSensAccelerometer,
  kSensVelocimeter,
  kSensGyro,
  kSensForce,
  kSensTorque,
  kSensMagnetometer,
  kSensRangefinder,
  kSensJointPos,
  kSensJointVel,
  kSensTendonPos,
  kSensTendonVel,
  kSensActuatorPos,
  kSensActuatorVel,
  kSensActuatorFrc,
  kSensBallQuat,
  kSensBallAngVel,
  kSensJointLimitPos,
  kSensJointLimitVel,
  kSensJointLimitFrc,
  kSensTendonLimitPos,
  kSensTendonLimitVel,
  kSensTendonLimitFrc,
  kSensFramePos,
  kSensFrameQuat,
  kSensFrameXAxis,
  kSensFrameYAxis,
  kSensFrameZAxis,
  kSensFrameLinVel,
  kSensFrameAngVel,
  kSensFrameLinAcc,
  kSensFrameAngAcc,
  kSensSubtreeCom,
  kSensSubtreeLinVel,
  kSensSubtreeAngMom,
  kSensClock,
  kSensPlugin,
  kSensUser,
};
enum Stage : int { kStageNone = 0, kStagePos = 1, kStageVel = 2, kStageAcc = 3 };
enum SensorDataType : int { kDataReal = 0, kDataPositive = 1, kDataAxis = 2, kDataQuaternion = 3 };

// ---------------------------------------------------------------------------------------------

struct Option {
  double timestep = 0.002;
  double apirate = 100;
  double impratio = 1;
  double tolerance = 1e-8;
  double noslip_tolerance = 1e-6;
  double mpr_tolerance = 1e-6;
  double gravity[3] = {0, 0, -9.81};
  double wind[3] = {0, 0, 0};
  double magnetic[3] = {0, -0.5, 0};
  double density = 0;
  double viscosity = 0;
  double o_margin = 0;
  double o_solref[kNREF] = {0.02, 1};
  double o_solimp[kNIMP] = {0.9, 0.95, 0.001, 0.5, 2};
  int integrator = kIntEuler;
  int collision = kCollideAll;
  int cone = kConePyramidal;
  int jacobian = kJacAuto;
  int solver = kSolverNewton;
  int iterations = 100;
  int noslip_iterations = 0;
  int mpr_iterations = 50;
  int disableflags = 0;
  int enableflags = 0;
};

// Statistics of the model in qpos0 (computed by the compiler as MuJoCo 2.2.2 does, or given by
// <statistic>): meaninertia scales the solver's tolerance; center and extent frame the scene in a
// viewer. The defaults are 2.2.2's, which a model without bodies keeps.
struct Statistic {
  double meaninertia = 1;
  double meanmass = 1;
  double meansize = 0.2;
  double extent = 2;
  double center[3] = {0, 0, 0};
};

// Rendering settings of MJCF <visual>, field for field as MuJoCo 2.2.2's mjVisual, with its
// defaults (read from 2.2.2 by experiment). The physics does not use them; viewers do.
struct Visual {
  struct Global {
    float fovy = 45, ipd = 0.068f, azimuth = 90, elevation = -45, linewidth = 1, glow = 0.3f;
    int offwidth = 640, offheight = 480;
  } global;
  struct Quality {
    int shadowsize = 4096, offsamples = 4, numslices = 28, numstacks = 16, numquads = 4;
  } quality;
  struct Headlight {
    float ambient[3] = {0.1f, 0.1f, 0.1f}, diffuse[3] = {0.4f, 0.4f, 0.4f}, specular[3] = {0.5f, 0.5f, 0.5f};
    int active = 1;
  } headlight;
  struct Map {
    float stiffness = 100, stiffnessrot = 500, force = 0.005f, torque = 0.1f, alpha = 0.3f, fogstart = 3,
          fogend = 10, znear = 0.01f, zfar = 50, haze = 0.3f, shadowclip = 1, shadowscale = 0.6f,
          actuatortendon = 2;
  } map;
  struct Scale {
    float forcewidth = 0.1f, contactwidth = 0.3f, contactheight = 0.1f, connect = 0.2f, com = 0.4f,
          camera = 0.3f, light = 0.3f, selectpoint = 0.2f, jointlength = 1, jointwidth = 0.1f,
          actuatorlength = 0.7f, actuatorwidth = 0.2f, framelength = 1, framewidth = 0.1f,
          constraint = 0.1f, slidercrank = 0.2f;
  } scale;
  struct Rgba {
    float fog[4] = {0, 0, 0, 1}, haze[4] = {1, 1, 1, 1}, force[4] = {1, 0.5f, 0.5f, 1},
          inertia[4] = {0.8f, 0.2f, 0.2f, 0.6f}, joint[4] = {0.2f, 0.6f, 0.8f, 1},
          actuator[4] = {0.2f, 0.25f, 0.2f, 1}, actuatornegative[4] = {0.2f, 0.6f, 0.9f, 1},
          actuatorpositive[4] = {0.9f, 0.4f, 0.2f, 1}, com[4] = {0.9f, 0.9f, 0.9f, 1},
          camera[4] = {0.6f, 0.9f, 0.6f, 1}, light[4] = {0.6f, 0.6f, 0.9f, 1},
          selectpoint[4] = {0.9f, 0.9f, 0.1f, 1}, connect[4] = {0.2f, 0.2f, 0.8f, 1},
          contactpoint[4] = {0.9f, 0.6f, 0.2f, 1}, contactforce[4] = {0.7f, 0.9f, 0.9f, 1},
          contactfriction[4] = {0.9f, 0.8f, 0.4f, 1}, contacttorque[4] = {0.9f, 0.7f, 0.9f, 1},
          contactgap[4] = {0.5f, 0.8f, 0.9f, 1}, rangefinder[4] = {1, 1, 0.1f, 1},
          constraint[4] = {0.9f, 0, 0, 1}, slidercrank[4] = {0.5f, 0.3f, 0.8f, 1},
          crankbroken[4] = {0.9f, 0, 0, 1};
  } rgba;
};

// Texture types (mjtTexture), builtin texture kinds (mjtBuiltin) and marks (mjtMark), as 2.2.2.
enum TextureType : int { kTex2D = 0, kTexCube = 1, kTexSkybox = 2 };
enum TextureBuiltin : int { kBuiltinNone = 0, kBuiltinGradient = 1, kBuiltinChecker = 2, kBuiltinFlat = 3 };
enum TextureMark : int { kMarkNone = 0, kMarkEdge = 1, kMarkCross = 2, kMarkRandom = 3 };

struct Model {
  // ------------------------------------------------------------------ sizes
  int nq = 0, nv = 0, nu = 0, na = 0;
  int nbody = 0, njnt = 0, ngeom = 0, nsite = 0, ncam = 0, nlight = 0;
  int nmesh = 0, nmeshvert = 0, nmeshface = 0, nhfield = 0, nhfielddata = 0;
  int ntex = 0, ntexdata = 0, nmat = 0, nskin = 0;
  int npair = 0, nexclude = 0, neq = 0, ntendon = 0, nwrap = 0, nsensor = 0;
  int nnumeric = 0, nnumericdata = 0, ntext = 0, ntuple = 0;
  int nkey = 0, nmocap = 0;
  int nuser_body = 0, nuser_jnt = 0, nuser_geom = 0, nuser_site = 0, nuser_cam = 0,
      nuser_tendon = 0, nuser_actuator = 0, nuser_sensor = 0;
  int nM = 0;           // non-zeros of the tree-sparse inertia matrix (see dof_Madr)
  int nD = 0;           // non-zeros of the dof-dof sparsity pattern (implicit integrators)
  int nsensordata = 0;
  int nconmax = -1;     // MJCF size/nconmax (-1: derived from memory)
  int njmax = -1;       // MJCF size/njmax (-1: derived from memory)
  long long nstack = -1;   // MJCF size/nstack (-1: default)
  long long memory = -1;   // MJCF size/memory in bytes (-1: default)
  int nuserdata = 0;

  Option opt;
  Visual vis;
  Statistic stat;
  std::string modelname = "MuJoCo Model";
  std::string model_file;  // path the model was loaded from (for messages)

  // ------------------------------------------------------------------ qpos
  std::vector<double> qpos0;        // nq: default configuration
  std::vector<double> qpos_spring;  // nq: reference configuration of joint springs

  // ------------------------------------------------------------------ bodies (nbody; 0 = world)
  std::vector<int> body_parentid, body_rootid, body_weldid, body_mocapid;
  std::vector<int> body_jntnum, body_jntadr, body_dofnum, body_dofadr;
  std::vector<int> body_geomnum, body_geomadr;
  std::vector<uint8_t> body_simple, body_sameframe;
  std::vector<double> body_pos;       // 3: position relative to parent body frame
  std::vector<double> body_quat;      // 4: orientation relative to parent
  std::vector<double> body_ipos;      // 3: com position in body frame
  std::vector<double> body_iquat;     // 4: principal inertia frame in body frame
  std::vector<double> body_mass;      // 1
  std::vector<double> body_subtreemass;
  std::vector<double> body_inertia;   // 3: principal moments
  std::vector<double> body_invweight0;  // 2: mean inverse inertia (translation, rotation) at qpos0
  std::vector<double> body_gravcomp;  // 1: gravity compensation fraction (newer than 2.2.2)
  std::vector<double> body_user;      // nuser_body

  // ------------------------------------------------------------------ joints (njnt)
  std::vector<int> jnt_type, jnt_qposadr, jnt_dofadr, jnt_bodyid, jnt_group;
  std::vector<uint8_t> jnt_limited;
  std::vector<double> jnt_solref, jnt_solimp;  // limit parameters
  std::vector<double> jnt_pos;                 // 3: anchor in body frame
  std::vector<double> jnt_axis;                // 3: unit axis in body frame
  std::vector<double> jnt_stiffness;
  std::vector<double> jnt_range;               // 2
  std::vector<double> jnt_margin;
  std::vector<double> jnt_user;

  // ------------------------------------------------------------------ dofs (nv)
  std::vector<int> dof_bodyid, dof_jntid;
  std::vector<int> dof_parentid;   // parent dof in the kinematic tree, -1 for none
  std::vector<int> dof_Madr;       // address of M(i,i) in qM; the row continues with ancestors
  std::vector<int> dof_simplenum;
  std::vector<double> dof_solref, dof_solimp;  // friction loss parameters
  std::vector<double> dof_frictionloss, dof_armature, dof_damping;
  std::vector<double> dof_invweight0, dof_M0;

  // ------------------------------------------------------------------ geoms (ngeom)
  std::vector<int> geom_type, geom_contype, geom_conaffinity, geom_condim, geom_bodyid;
  std::vector<int> geom_dataid, geom_matid, geom_group, geom_priority;
  std::vector<uint8_t> geom_sameframe;
  std::vector<double> geom_solmix, geom_solref, geom_solimp;
  std::vector<double> geom_size;      // 3
  std::vector<double> geom_rbound;
  std::vector<double> geom_pos;       // 3: relative to body frame
  std::vector<double> geom_quat;      // 4
  // A mesh geom's frame as the MJCF gives it, before the compiler offsets it by its mesh's
  // inertial frame (mesh_pos, mesh_quat) and normalizes the quaternion (save_xml writes it); for
  // the other types geom_pos and geom_quat.
  std::vector<double> geom_srcpos;    // 3
  std::vector<double> geom_srcquat;   // 4
  std::vector<double> geom_friction;  // 3: slide, spin, roll
  std::vector<double> geom_margin, geom_gap;
  std::vector<double> geom_fluid;     // kNFLUID
  std::vector<double> geom_user;
  std::vector<float> geom_rgba;

  // ------------------------------------------------------------------ sites (nsite)
  std::vector<int> site_type, site_bodyid, site_matid, site_group;
  std::vector<uint8_t> site_sameframe;
  std::vector<double> site_size, site_pos, site_quat;
  std::vector<double> site_user;
  std::vector<float> site_rgba;

  // ------------------------------------------------------------------ cameras, lights (kinematics only)
  std::vector<int> cam_mode, cam_bodyid, cam_targetbodyid;
  std::vector<double> cam_pos, cam_quat, cam_poscom0, cam_pos0, cam_mat0, cam_fovy, cam_ipd;
  std::vector<int> light_mode, light_bodyid, light_targetbodyid;
  std::vector<uint8_t> light_directional, light_castshadow, light_active;
  std::vector<double> light_pos, light_dir, light_poscom0, light_pos0, light_dir0;

  // ------------------------------------------------------------------ meshes
  std::vector<int> mesh_vertadr, mesh_vertnum, mesh_faceadr, mesh_facenum;
  std::vector<int> mesh_graphadr;     // convex hull data address, -1 if none
  std::vector<float> mesh_vert;       // 3 per vertex, in the mesh's (inertial) frame
  std::vector<int> mesh_face;         // 3 per face
  std::vector<int> mesh_graph;        // convex hull graph (qhull; layout as 2.2.2: src/mesh/mesh.h hull_graph)
  // The mesh as the MJCF gives it, which save_xml writes so that it reloads to the same bits: the
  // vertices as read (before refpos, refquat, scale), its reference frame and scale, and whether
  // its faces are its convex hull's (none were given); mesh_pos/mesh_quat: the inertial frame
  // that mesh_vert is expressed in, in the coordinates after refpos, refquat and scale.
  std::vector<double> mesh_srcvert;   // 3 per vertex (nmeshvert)
  std::vector<double> mesh_refpos;    // 3
  std::vector<double> mesh_refquat;   // 4, as given (the compiler normalizes it)
  std::vector<double> mesh_scale;     // 3
  std::vector<double> mesh_pos;       // 3
  std::vector<double> mesh_quat;      // 4
  std::vector<int> mesh_hullface;     // 1 if the faces are the convex hull's

  // ------------------------------------------------------------------ height fields
  std::vector<double> hfield_size;    // 4: x, y, z_top, z_bottom
  std::vector<int> hfield_nrow, hfield_ncol, hfield_adr;
  std::vector<float> hfield_data;

  // ------------------------------------------------------------------ textures (ntex), materials (nmat)
  // Textures as 2.2.2 compiles them: RGB pixels, 3 bytes each, row by row from the top, in tex_rgb
  // from tex_adr (a cube or skybox stores its faces one below the other: right, left, up, down,
  // front, back, height = 6 width; a cube repeated from one square image stores that image once,
  // height = width). Builtin textures are generated (also kept as their parameters, which a viewer
  // draws from); image files (PNG, or 2.2.2's custom format: int32 width, int32 height, RGB bytes)
  // are decoded. The description of a file texture is kept as well, so that save_xml can write it.
  std::vector<int> tex_type;          // TextureType
  std::vector<int> tex_height, tex_width;
  std::vector<int> tex_adr;           // first byte in tex_rgb
  std::vector<uint8_t> tex_rgb;       // ntexdata bytes
  std::vector<int> tex_builtin;       // TextureBuiltin
  std::vector<int> tex_mark;          // TextureMark
  std::vector<double> tex_rgb1, tex_rgb2, tex_markrgb;  // 3 each (as given: the pixels follow them)
  std::vector<double> tex_random;     // probability of a random dot (mark="random")
  // image file, relative to the model's folder (texturedir included) unless absolute; "" if none
  std::vector<std::string> tex_file;
  std::vector<std::string> tex_cubefile;  // 6: fileright, fileleft, fileup, filedown, filefront, fileback
  std::vector<int> tex_gridsize;      // 2: rows and columns of faces in a single cube image
  std::vector<std::string> tex_gridlayout;  // the face in each grid cell ('.RLUDFB', row by row)
  std::vector<uint8_t> tex_hflip, tex_vflip;  // images mirrored left-right / top-bottom
  std::vector<int> mat_texid;         // -1: none
  std::vector<uint8_t> mat_texuniform;
  std::vector<float> mat_texrepeat;   // 2
  std::vector<float> mat_emission, mat_specular, mat_shininess, mat_reflectance;
  std::vector<float> mat_rgba;        // 4

  // ------------------------------------------------------------------ explicit contact pairs, excludes
  std::vector<int> pair_dim, pair_geom1, pair_geom2, pair_signature;
  std::vector<double> pair_solref, pair_solimp, pair_margin, pair_gap;
  std::vector<double> pair_friction;  // 5
  std::vector<int> exclude_signature; // ((body1 + 1) << 16) + body2 + 1, body1 < body2 (as 2.2.2; also pair_signature)

  // ------------------------------------------------------------------ equality constraints
  std::vector<int> eq_type, eq_obj1id, eq_obj2id;
  std::vector<uint8_t> eq_active;
  std::vector<double> eq_solref, eq_solimp;
  std::vector<double> eq_data;        // kNEQDATA

  // ------------------------------------------------------------------ tendons
  std::vector<int> tendon_adr, tendon_num, tendon_group;
  std::vector<uint8_t> tendon_limited;
  std::vector<double> tendon_width, tendon_solref_lim, tendon_solimp_lim, tendon_solref_fri,
      tendon_solimp_fri, tendon_range, tendon_margin, tendon_stiffness, tendon_damping,
      tendon_frictionloss, tendon_lengthspring, tendon_length0, tendon_invweight0, tendon_user;
  std::vector<double> tendon_armature;  // newer than 2.2.2
  std::vector<int> wrap_type, wrap_objid;
  std::vector<double> wrap_prm;

  // ------------------------------------------------------------------ actuators (nu)
  std::vector<int> actuator_trntype, actuator_dyntype, actuator_gaintype, actuator_biastype;
  std::vector<int> actuator_trnid;    // 2
  std::vector<int> actuator_actadr, actuator_actnum;  // -1/0 for stateless actuators
  std::vector<int> actuator_group;
  std::vector<uint8_t> actuator_ctrllimited, actuator_forcelimited, actuator_actlimited;
  std::vector<uint8_t> actuator_actearly;
  std::vector<double> actuator_dynprm, actuator_gainprm, actuator_biasprm;
  std::vector<double> actuator_ctrlrange, actuator_forcerange, actuator_actrange;
  std::vector<double> actuator_gear;  // 6
  std::vector<double> actuator_cranklength, actuator_acc0, actuator_length0,
      actuator_lengthrange, actuator_user;

  // ------------------------------------------------------------------ sensors
  std::vector<int> sensor_type, sensor_datatype, sensor_needstage, sensor_objtype, sensor_objid,
      sensor_reftype, sensor_refid, sensor_dim, sensor_adr;
  std::vector<double> sensor_cutoff, sensor_noise, sensor_user;

  // ------------------------------------------------------------------ custom fields
  std::vector<int> numeric_adr, numeric_size;
  std::vector<double> numeric_data;
  std::vector<std::string> text_data;

  // ------------------------------------------------------------------ keyframes (nkey)
  std::vector<double> key_time, key_qpos, key_qvel, key_act, key_mpos, key_mquat, key_ctrl;

  // ------------------------------------------------------------------ names (one vector per kind)
  std::vector<std::string> body_names, jnt_names, geom_names, site_names, cam_names, light_names,
      mesh_names, hfield_names, tex_names, mat_names, pair_names, exclude_names, eq_names,
      tendon_names, actuator_names, sensor_names, numeric_names, text_names, tuple_names,
      key_names;
};

// Id of the named object of the given type, or -1.
int name2id(const Model& m, ObjType type, const std::string& name);
// Name of object `id` of the given type ("" when it has none). Throws std::out_of_range for an id
// out of range, std::invalid_argument for a type without names (kObjDof, kObjSkin, kObjUnknown).
std::string id2name(const Model& m, ObjType type, int id);

}  // namespace moreau

// compiler fusestatic, discardvisual, coordinate="global" and <compiler><lengthrange>: Moreau's
// compiled model against MuJoCo 2.2.2's, every compiled array (differential/model_compare.h, its
// tolerances), on hand-written stress cases and on models of tests/models_mujoco222.txt with the
// flag added. Where 2.2.2 refuses a model, Moreau must refuse it too (a LoadError).
//
// What these cases established about 2.2.2 (the rules are implemented in
// src/compiler/fuse_static.cc, src/compiler/global_coordinates.cc, src/mjcf/parse.cc and
// src/compiler/lengthrange.cc):
// - fusestatic is skipped for the whole model when it has a camera, light, skin, tuple, actuator,
//   tendon, sensor, equality, pair or exclude; none of the listed models fuses for that reason,
//   so the stress cases carry the fusion itself.
// - discardvisual drops geoms with contype = conaffinity = 0 and nothing else (meshes stay); a
//   reference to a dropped geom is an error.
// - coordinate="global" places a body without 'pos' at its inertial frame.
// - lengthrange's uselimit copies the joint or tendon range without the gear; 2.2.2 reads the
//   transmission id of actuator u at actuator_trnid[u] instead of [2u], so the uselimit cases put
//   the limited transmission at actuator 0 (Moreau follows the documented meaning everywhere;
//   tests/mjcf/loader_semantics_test.cc checks it at u > 0).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "differential/known_differences.h"
#include "differential/model_compare.h"
#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

// Inserts `compiler` right after the opening <mujoco ...> tag.
std::string with_compiler(std::string xml, const std::string& compiler) {
  const size_t p = xml.find('>', xml.find("<mujoco"));
  xml.insert(p + 1, compiler);
  return xml;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// MuJoCo 2.2.2 loads `text` as if it were the file `path` (through its virtual file system, so
// meshes and includes still resolve next to `path`).
MjModelPtr mujoco_from_text(const std::string& path, const std::string& text, std::string* error) {
  const std::string base = path.substr(path.find_last_of('/') + 1);
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  mj_makeEmptyFileVFS(vfs.get(), base.c_str(), static_cast<int>(text.size()));
  const int i = mj_findFileVFS(vfs.get(), base.c_str());
  std::memcpy(vfs->filedata[i], text.data(), text.size());
  char err[1000] = "";
  MjModelPtr m(mj_loadXML(path.c_str(), vfs.get(), err, sizeof(err)));
  mj_deleteVFS(vfs.get());
  if (!m && error) *error = err;
  return m;
}

// Both engines load `text` (named `path`); both must refuse it, or both load it and agree.
void compare_text(const std::string& path, const std::string& text) {
  std::string mj_error;
  MjModelPtr mj = mujoco_from_text(path, text, &mj_error);
  std::string our_error;
  Model m;
  try {
    m = load_model_from_string(text, path);
  } catch (const LoadError& e) {
    our_error = e.what();
  }
  if (!mj) {
    EXPECT_NE(our_error, "") << "MuJoCo 2.2.2 refuses it (" << mj_error << "), Moreau loads it";
    std::printf("[flags] %s: both refuse: 2.2.2 \"%s\" / Moreau \"%s\"\n", path.c_str(), mj_error.c_str(),
                our_error.c_str());
    return;
  }
  ASSERT_EQ(our_error, "") << "MuJoCo 2.2.2 loads it, Moreau refuses it";
  const std::string diff = compare_compiled(m, mj.get());
  EXPECT_EQ(diff, "") << path << ":\n" << diff;
}

// ------------------------------------------------------------------------------ stress cases

struct Case {
  const char* name;
  const char* xml;
};

const Case kCases[] = {
    // ---- fusestatic
    {"fuse_nested_and_inertials", R"(<mujoco><compiler fusestatic="true"/>
<worldbody>
 <geom name="floor" type="plane" size="1 1 1"/>
 <body name="a" pos="0 0 1"><joint/><geom name="a1" size=".1"/>
   <body name="first" pos="0 0 -1"><joint/><geom size=".1"/></body>
   <body pos="0.1 0 0" euler="0 0 90"><geom name="s1" type="box" size=".05 .1 .2" pos="0.1 0 0"/><site name="st1" pos="0 1 0"/>
      <body pos="0 0.2 0" euler="90 0 0"><geom name="s2" size=".02" pos="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0.1 0.2 0.3" size="0.01"/><site type="capsule" fromto="0 0 0 0 0.1 0" size="0.01"/>
        <body name="c" pos="0 0 0.5"><joint axis="1 0 0" pos="0 0 1"/><geom name="cg" size=".1"/></body></body>
   </body>
   <geom name="a2" size=".1" pos="0 0 .5"/>
 </body>
 <body name="b" pos="1 0 0"><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 2 3"/><geom size=".1"/>
   <body pos="0 0 1"><geom size=".1"/></body>
 </body>
 <body name="c2" pos="2 0 0"><joint/><geom size=".1"/>
   <body pos="0 0 1" euler="10 20 30"><inertial pos="0 1 0" euler="5 10 15" mass="2" diaginertia="1 2 2"/><geom size=".1"/></body>
 </body>
 <body name="d" pos="3 0 0"><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
   <body pos="0 0 1"><inertial pos="0 1 0" mass="2" diaginertia="1 2 2"/></body>
 </body>
 <body pos="0 5 0" euler="0 90 0"><geom name="w1" size=".3" pos="1 0 0"/><body><geom size="0.2"/></body></body>
</worldbody></mujoco>)"},
    {"fuse_massless_parents_and_children", R"(<mujoco><compiler fusestatic="true"/>
<worldbody>
 <body name="J" pos="0 0 1"><joint/>
   <body pos="0.1 0.2 0.3"><geom size=".1" pos="0 0 .1"/></body>
 </body>
 <body name="J2" pos="0 0 1"><joint/><geom size=".1"/>
   <body pos="0.1 0 0"><geom size=".1"/><body name="C"><joint/><geom size=".1"/></body></body>
   <body name="D"><joint/><geom size=".1"/></body>
 </body>
 <body name="J3" pos="0 0 1"><joint/><geom type="box" size=".3 .2 .1" euler="10 20 30"/>
   <body pos="0.1 0 0"><site pos="0 1 0"/></body>
   <body pos="0.1 0 0"><geom type="box" size=".3 .2 .1" mass="0"/></body>
 </body>
 <body name="J4" pos="0 0 1"><joint/>
   <body pos="0.1 0 0" euler="0 0 20"><geom type="box" size=".3 .2 .1" euler="10 20 30"/></body>
 </body>
 <body name="J5" pos="0 0 1"><joint/><geom size=".1"/>
   <body><body><body pos="1 0 0"><geom size=".2"/></body></body></body>
 </body>
 <body name="mo" mocap="true" pos="0 2 0"><geom size=".1"/></body>
 <body pos="5 0 0" euler="0 0 30"><geom size=".1"/><body name="reparented" pos="1 0 0" euler="10 0 0"><joint/><geom size=".1"/></body></body>
</worldbody>
<keyframe><key mpos="0 3 0"/></keyframe>
</mujoco>)"},
    {"fuse_bounds_and_totalmass", R"(<mujoco><compiler fusestatic="true" boundmass="1" boundinertia="0.5" settotalmass="10"/>
<worldbody>
 <body name="P1" pos="0 0 1"><joint/><geom size=".1" mass="0.1"/>
   <body pos="0.1 0 0"><geom size=".1" mass="0.1"/></body>
 </body>
 <body name="P2" pos="0 0 1"><joint/><geom size=".1" mass="0.1"/>
   <body pos="0.1 0 0"><site/></body>
 </body>
</worldbody></mujoco>)"},
    {"fuse_balance_and_groups", R"(<mujoco><compiler fusestatic="true" balanceinertia="true" inertiagrouprange="0 2"/>
<worldbody>
 <body name="P1" pos="0 0 1"><joint/><geom size=".1" mass="0.1"/>
   <body pos="0.1 0 0"><inertial pos="0 0 0" mass="1" diaginertia="1 1 3"/><geom size="1" group="4"/></body>
 </body>
</worldbody></mujoco>)"},
    {"fuse_inertiafromgeom_true", R"(<mujoco><compiler fusestatic="true" inertiafromgeom="true"/>
<worldbody>
 <body name="P1" pos="0 0 1"><joint/><inertial pos="0 0 0" mass="9" diaginertia="1 1 1"/><geom type="box" size=".1 .2 .3"/>
   <body pos="0.1 0 0" euler="0 30 0"><inertial pos="0 0 0" mass="9" diaginertia="1 1 1"/><geom type="ellipsoid" size=".1 .2 .3"/></body>
 </body>
</worldbody></mujoco>)"},
    {"fuse_mesh", R"(<mujoco><compiler fusestatic="true"/>
<asset><mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" scale="0.3 0.2 0.1"/></asset>
<worldbody>
 <body pos="0 0 1"><freejoint/><geom type="mesh" mesh="tet"/>
   <body pos="0.1 0.2 0" euler="30 0 0"><geom type="mesh" mesh="tet" pos="0.1 0 0"/></body>
 </body>
</worldbody></mujoco>)"},
    {"fuse_blocked_by_camera", R"(<mujoco><compiler fusestatic="true"/>
<worldbody>
 <body pos="0 0 1"><joint/><geom size=".1"/><body pos="0.1 0 0"><geom size=".1"/><camera/></body></body>
</worldbody></mujoco>)"},
    {"fuse_blocked_by_exclude", R"(<mujoco><compiler fusestatic="true"/>
<worldbody>
 <body name="a" pos="0 0 1"><joint/><geom size=".1"/><body pos="0.1 0 0"><geom size=".1"/></body></body>
 <body name="o"><joint/><geom size="1"/></body>
</worldbody><contact><exclude body1="a" body2="o"/></contact></mujoco>)"},
    {"fuse_then_massless_moving_body", R"(<mujoco><compiler fusestatic="true"/>
<worldbody><body><joint/><body><site/></body></body></worldbody></mujoco>)"},
    // ---- discardvisual
    {"discard_meshes_materials_mass", R"(<mujoco><compiler discardvisual="true"/>
<asset>
 <mesh name="m1" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/><mesh name="m2" vertex="0 0 0 2 0 0 0 2 0 0 0 2"/>
 <mesh name="m3" vertex="0 0 0 3 0 0 0 3 0 0 0 3"/>
 <material name="mat1" rgba="1 0 0 1"/><material name="mat2" rgba="0 1 0 1"/>
</asset>
<default><default class="vis"><geom contype="0" conaffinity="0" group="1"/></default></default>
<worldbody>
 <geom name="floor" type="plane" size="1 1 1" contype="0" conaffinity="0"/>
 <body name="a" pos="0 0 1"><joint/><geom name="col" size=".1"/>
   <geom name="vis1" type="mesh" mesh="m1" contype="0" conaffinity="0" material="mat1"/>
   <geom name="vis2" type="mesh" mesh="m2" class="vis"/>
   <geom name="col2" type="mesh" mesh="m2"/>
   <geom name="half1" size=".2" contype="0" conaffinity="1"/>
   <geom name="half2" size=".2" contype="1" conaffinity="0"/>
   <geom name="vis5" type="mesh" mesh="m3" class="vis" mass="5"/>
   <geom name="kept" size=".2" class="vis" contype="2"/>
 </body>
</worldbody></mujoco>)"},
    {"discard_only_geom_of_moving_body", R"(<mujoco><compiler discardvisual="true"/>
<worldbody><body><joint/><geom size=".1" contype="0" conaffinity="0"/></body></worldbody></mujoco>)"},
    {"discard_referenced_geom", R"(<mujoco><compiler discardvisual="true"/>
<worldbody><body><joint/><geom size=".1"/><geom name="v" size=".2" contype="0" conaffinity="0"/></body></worldbody>
<sensor><framepos objtype="geom" objname="v"/></sensor></mujoco>)"},
    // ---- coordinate="global"
    {"global_all_elements", R"(<mujoco><compiler coordinate="global"/>
<worldbody>
 <geom name="w" pos="0 0 -1" euler="10 0 0" size="1"/>
 <light pos="1 0 0" dir="0 1 0"/>
 <body name="a" pos="0 0 1" euler="0 0 90"><joint pos="0 0 1" axis="1 0 0"/><geom name="ga" pos="1 0 1" size=".1"/>
   <inertial pos="0 0 1.5" euler="0 90 0" mass="1" diaginertia="1 2 3"/>
   <site name="sa" pos="0 1 1" euler="90 0 0"/><site type="capsule" fromto="0 0 1 1 1 1" size="0.01"/>
   <camera name="ca" pos="0 0 3" euler="0 0 90"/>
   <light name="la" pos="0 0 4" dir="1 0 0"/>
   <body name="b" pos="1 1 1" euler="90 0 0"><joint type="slide" pos="1 1 2" axis="0 1 0"/>
     <geom name="gb" type="capsule" fromto="1 1 1 2 1 1" size=".1"/>
     <geom name="gb2" type="box" pos="1 2 1" size=".1 .2 .3" euler="0 0 45"/>
     <joint type="ball"/><light pos="0 0 4" dir="1 0 0"/>
   </body>
 </body>
 <body name="f" pos="0 0 3" xyaxes="0 1 0 -1 0 0"><freejoint/><inertial pos="0 0 3" mass="1" fullinertia="2 2.5 3 0.1 0.2 0.3"/></body>
</worldbody>
<equality><connect body1="a" body2="b" anchor="1 0 0"/><weld body1="a" body2="b" relpose="1 0 0 1 0 0 0"/>
  <weld body1="b"/><connect body1="f" anchor="0 0 3"/></equality>
</mujoco>)"},
    {"global_unplaced_bodies", R"(<mujoco><compiler coordinate="global"/>
<worldbody>
 <body><joint/><geom size=".1" pos="1 0 0"/></body>
 <body><joint/><geom type="box" size=".1 .2 .3" pos="1 0 0" euler="0 0 30"/></body>
 <body><joint/><inertial pos="1 2 3" euler="0 0 30" mass="1" diaginertia="1 2 3"/><geom size=".1" pos="1 0 0"/></body>
 <body euler="0 0 30"><joint/><geom size=".1" pos="1 0 0"/><geom size=".1" pos="2 0 0"/></body>
 <body pos="1 1 1"><joint/><body><geom size=".1" pos="1 2 3"/><body pos="0 0 0"><geom size=".1"/></body></body></body>
 <body pos="0 0 1"><joint/><geom type="box" size=".1 .2 .3" pos="1 0 0" euler="0 0 30"/></body>
</worldbody></mujoco>)"},
    {"global_radian_eulerseq_mesh", R"(<mujoco><compiler coordinate="global" angle="radian" eulerseq="ZYX"/>
<asset><mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" scale="0.3 0.2 0.1"/></asset>
<worldbody>
 <body pos="0 0 1" euler="0.1 0.2 0.3"><freejoint/><geom type="mesh" mesh="tet" pos="0.5 0 1" euler="0.3 0.2 0.1"/>
   <body pos="0.5 0 1" zaxis="1 1 0"><joint axis="1 0 0" pos="0.5 0 1"/><geom type="cylinder" size="0.1 0.2" pos="0.6 0 1" axisangle="0 1 0 0.5"/></body>
 </body>
</worldbody></mujoco>)"},
    {"global_unplaced_without_mass", R"(<mujoco><compiler coordinate="global"/>
<worldbody><body><freejoint/><body pos="1 0 0"><geom size="1"/></body></body></worldbody></mujoco>)"},
    {"global_composite", R"(<mujoco><compiler coordinate="global"/>
<worldbody><body pos="0 0 1"><composite type="particle" count="2 1 1" spacing="0.1"><geom size=".01"/></composite></body>
</worldbody></mujoco>)"},
    // ---- all three together
    {"global_discard_fuse", R"(<mujoco><compiler coordinate="global" discardvisual="true" fusestatic="true"/>
<worldbody>
 <body pos="0 0 1" euler="0 0 45"><joint/><geom size=".1" pos="0 0 1"/><geom size=".3" contype="0" conaffinity="0"/>
   <body pos="1 0 1" euler="0 45 0"><geom type="box" size=".1 .2 .3" pos="1 0 2"/><geom size="1" contype="0" conaffinity="0"/>
     <body pos="1 1 1"><joint pos="1 1 1"/><geom size=".1" pos="1 1 1"/></body></body>
 </body>
</worldbody></mujoco>)"},
    // ---- planes in moving bodies (refused by 2.2.2)
    {"plane_in_moving_body", R"(<mujoco><worldbody><body><joint/><geom size="1"/>
<body><geom type="plane" size="1 1 1"/></body></body></worldbody></mujoco>)"},
};

class CompilerFlagCases : public ::testing::TestWithParam<int> {};

TEST_P(CompilerFlagCases, MatchesMuJoCo222) {
  const Case& c = kCases[GetParam()];
  const std::string path = std::string(::testing::TempDir()) + "moreau_flags_" + c.name + ".xml";
  std::ofstream(path) << c.xml;
  compare_text(path, c.xml);
}

INSTANTIATE_TEST_SUITE_P(Cases, CompilerFlagCases,
                         ::testing::Range(0, static_cast<int>(sizeof(kCases) / sizeof(kCases[0]))),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(kCases[i.param].name); });

// ------------------------------------------------------------------------------ listed models + flag

struct FlagRun {
  const char* flag;   // the <compiler> attribute
  const char* model;  // entry of tests/models_mujoco222.txt
};

// discardvisual: every listed model on which it changes something (6) or which 2.2.2 then
// refuses (a wrapping geom is discarded: 6 tendon models), found by scanning the whole list.
// coordinate="global": models that 2.2.2 loads in under 0.1 s with the flag (it hangs on
// actuation/activation.xml); composite models, which 2.2.2 refuses in global mode, and two
// models whose muscle length ranges then fail to converge are among them. fusestatic: no listed
// model fuses (all have an element that blocks it), a few check that nothing changes.
const char kDiscard[] = "discardvisual=\"true\"", kFuse[] = "fusestatic=\"true\"", kGlobal[] = "coordinate=\"global\"";
const FlagRun kFlagRuns[] = {
    {kDiscard, "shared/models/dm_control/dog.xml"},
    {kDiscard, "shared/models/dm_control/finger.xml"},
    {kDiscard, "shared/models/dm_control/manipulator.xml"},
    {kDiscard, "shared/models/dm_control/stacker.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/pulley_site.xml"},
    {kDiscard, "system/mug/mug.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/fixed_site_wrap.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/pulley_fixed_site_wrap.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/pulley_site_wrap.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/pulley_wrap.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/site_wrap.xml"},
    {kDiscard, "shared/models/mujoco/mjx/mujoco/mjx/test_data/tendon/wrap_sidesite.xml"},
    {kFuse, "shared/models/dm_control/cartpole.xml"},
    {kFuse, "shared/models/mujoco/test/engine/testdata/derivative/tumbling_thin_object.xml"},
    {kFuse, "system/humanoid/humanoid.xml"},
    {kGlobal, "shared/models/mujoco/test/engine/testdata/derivative/tumbling_thin_object.xml"},
    {kGlobal, "system/composite/rope.xml"},
};

std::vector<FlagRun> flag_runs() {
  std::vector<FlagRun> v(std::begin(kFlagRuns), std::end(kFlagRuns));
  // coordinate="global" on every listed model MuJoCo loads quickly with it (see above)
  static const char* const kGlobalPrefixes[] = {
      "shared/models/mujoco/mjx/mujoco/mjx/test_data/",
      "shared/models/mujoco/test/engine/testdata/collision_",
      "shared/models/mujoco/test/engine/testdata/equality/",
      "shared/models/mujoco/test/engine/testdata/sensor/",
      "shared/models/mujoco/test/engine/testdata/tendon/",
      "system/slider_crank/",
      "system/tendon_arm/",
      "system/humanoid/humanoid.xml",
      "system/humanoid100/humanoid_body.xml"};
  static std::vector<std::string> entries = model_list();
  for (const auto& e : entries)
    for (const char* prefix : kGlobalPrefixes)
      if (e.rfind(prefix, 0) == 0) v.push_back({kGlobal, e.c_str()});
  return v;
}

class CompilerFlagModels : public ::testing::TestWithParam<FlagRun> {};

TEST_P(CompilerFlagModels, MatchesMuJoCo222) {
  const FlagRun& r = GetParam();
  if (const char* why = known_difference("CompilerFlagModels", std::string(r.flag) + " " + r.model))
    GTEST_SKIP() << "known difference: " << why;
  // a model whose plain compilation differs (ModelCompare), e.g. refused for flag multiccd
  if (const char* why = known_difference("ModelCompare", r.model)) GTEST_SKIP() << "known difference: " << why;
  const std::string path = resolve_model_path(r.model);
  MOREAU_REQUIRE_MODEL(path);
  compare_text(path, with_compiler(read_text(path), std::string("<compiler ") + r.flag + "/>"));
}

INSTANTIATE_TEST_SUITE_P(Models, CompilerFlagModels, ::testing::ValuesIn(flag_runs()),
                         [](const ::testing::TestParamInfo<FlagRun>& i) {
                           const std::string f = i.param.flag;
                           std::string s = std::to_string(i.index) + "_" + f.substr(0, f.find('=')) + "_" + i.param.model;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

// ------------------------------------------------------------------------------ <compiler><lengthrange>

const Case kLengthRange[] = {
    // every option away from its default; uselimit copies the range of the joint at actuator 0
    // (without the gear); the other transmissions are unlimited (see the header comment)
    {"all_options", R"(<mujoco><option><flag contact="disable"/></option>
<compiler><lengthrange mode="all" useexisting="false" uselimit="true" accel="5" maxforce="3" timeconst="0.5"
  timestep="0.005" inttotal="4" inteval="1.5" tolrange="0.5"/></compiler>
<worldbody>
 <body><joint name="j1" range="-30 60" limited="true"/><geom type="capsule" size=".1" fromto="0 0 0 0.5 0 0"/><site name="s1" pos="0.3 0 0"/>
  <body pos="0.5 0 0"><joint name="j2" axis="0 1 0" damping="3"/><geom type="capsule" size=".05" fromto="0 0 0 0.4 0 0"/>
   <site name="s2" pos="0.3 0 0.05"/>
   <body pos="0.4 0 0"><joint name="j3" type="slide" axis="1 0 0"/><geom size="0.05"/></body></body></body>
 <site name="s0" pos="-0.2 0.1 0"/>
</worldbody>
<tendon><fixed name="t0"><joint joint="j2" coef="1"/></fixed><fixed name="t1"><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>
 <spatial name="t2"><site site="s0"/><site site="s1"/><site site="s2"/></spatial></tendon>
<actuator>
 <motor joint="j1" gear="2"/>
 <position joint="j2" kp="10"/>
 <general joint="j3" lengthrange="0.1 0.2"/>
 <motor tendon="t1"/>
 <muscle tendon="t2"/>
</actuator></mujoco>)"},
    {"tendon_limit_model_timestep", R"(<mujoco><option timestep="0.004"/>
<compiler><lengthrange mode="muscle" uselimit="true" timestep="0" inttotal="3" inteval="1" tolrange="0.3"/></compiler>
<worldbody>
 <body><joint name="j1"/><geom type="capsule" size=".1" fromto="0 0 0 0.5 0 0"/><site name="s1" pos="0.3 0 0"/></body>
 <site name="s0" pos="-0.2 0.1 0"/>
</worldbody>
<tendon><spatial name="t" limited="true" range="0.2 0.5"><site site="s0"/><site site="s1"/></spatial>
 <spatial name="u"><site site="s0"/><site site="s1"/></spatial></tendon>
<actuator><muscle tendon="t"/><muscle tendon="u"/><muscle tendon="u" lengthrange="0.3 0.4"/></actuator></mujoco>)"},
    {"mode_none", R"(<mujoco><compiler><lengthrange mode="none"/></compiler>
<worldbody><body><joint name="j1" type="slide"/><geom size=".1"/></body></worldbody>
<actuator><muscle joint="j1"/></actuator></mujoco>)"},
    {"not_converged", R"(<mujoco><compiler><lengthrange tolrange="0.1"/></compiler>
<worldbody><body><joint name="j" type="slide"/><geom size=".1"/></body></worldbody>
<actuator><muscle joint="j"/></actuator></mujoco>)"},
    {"converged_at_looser_tolrange", R"(<mujoco><compiler><lengthrange tolrange="0.2"/></compiler>
<worldbody><body><joint name="j" type="slide"/><geom size=".1"/></body></worldbody>
<actuator><muscle joint="j"/></actuator></mujoco>)"},
    {"invalid_range", R"(<mujoco><compiler><lengthrange accel="-1"/></compiler>
<worldbody><body><joint name="j" type="slide" ref="0.3"/><geom size=".1"/></body></worldbody>
<actuator><muscle joint="j"/></actuator></mujoco>)"},
    {"empty_evaluation_window", R"(<mujoco><compiler><lengthrange inttotal="0.02" inteval="0"/></compiler>
<worldbody><body><joint name="j" type="slide" ref="0.3"/><geom size=".1"/></body></worldbody>
<actuator><muscle joint="j"/></actuator></mujoco>)"},
    {"site_transmission", R"(<mujoco><compiler><lengthrange mode="all"/></compiler>
<worldbody><body><freejoint/><geom size=".1"/><site name="s"/></body></worldbody>
<actuator><motor site="s" gear="1 0 0 0 0 0"/></actuator></mujoco>)"},
};

class CompilerLengthRange : public ::testing::TestWithParam<int> {};

// actuator_lengthrange is among the compared arrays only here: 1e-9 relative, as the other
// compiled arrays (the simulations match 2.2.2's to ~1e-12, tests/differential/lengthrange_test.cc).
TEST_P(CompilerLengthRange, MatchesMuJoCo222) {
  const Case& c = kLengthRange[GetParam()];
  const std::string path = std::string(::testing::TempDir()) + "moreau_lengthrange_" + c.name + ".xml";
  std::ofstream(path) << c.xml;
  compare_text(path, c.xml);
  MjModelPtr mj = load_mujoco(path);
  if (!mj) return;
  const Model m = load_model(path);
  ASSERT_EQ(m.nu, mj->nu);
  for (int i = 0; i < 2 * m.nu; ++i)
    EXPECT_NEAR(m.actuator_lengthrange[i], mj->actuator_lengthrange[i],
                1e-9 * std::max(1.0, std::abs(mj->actuator_lengthrange[i])))
        << "actuator " << i / 2 << " end " << i % 2;
}

INSTANTIATE_TEST_SUITE_P(Cases, CompilerLengthRange,
                         ::testing::Range(0, static_cast<int>(sizeof(kLengthRange) / sizeof(kLengthRange[0]))),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(kLengthRange[i.param].name); });

}  // namespace
}  // namespace moreau::testing

// The MJCF coverage list, element by element: small models that set every listed attribute to a
// non-default value, compiled by Moreau and by MuJoCo 2.2.2 and compared array by array
// (differential/model_compare.h), plus the size and statistic fields the comparison leaves out.
// The real models of tests/models_mujoco222.txt (ModelCompare) cover typical use; these cover the
// attributes one by one. Each case is named after the issue's item it covers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "differential/model_compare.h"
#include "differential/mujoco_bridge.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

struct Case {
  const char* name;
  const char* xml;
};

const Case kCases[] = {
    {"compiler_angle_radian_eulerseq", R"(<mujoco><compiler angle="radian" eulerseq="XYZ" autolimits="true"/>
<worldbody>
 <body euler="0.1 0.2 0.3"><joint range="-1 1" ref="0.1" springref="0.2"/><joint type="ball" range="0 0.5"/>
  <geom size="0.1" euler="0.3 0.2 0.1"/><site euler="1 2 3"/><camera euler="0.5 0 0"/>
  <inertial pos="0 0 0" euler="0.2 0.1 0.3" mass="1" diaginertia="0.1 0.2 0.25"/></body>
 <body axisangle="1 1 0 0.7"><joint type="slide" range="-1 1"/><geom type="box" size="0.1 0.2 0.3" axisangle="0 0 1 2"/></body>
</worldbody></mujoco>)"},
    {"compiler_degree_eulerseq_intrinsic", R"(<mujoco><compiler angle="degree" eulerseq="zyx"/>
<worldbody>
 <body euler="10 20 30"><joint limited="true" range="-30 45" ref="5" springref="10"/><geom size="0.1" euler="30 20 10"/>
  <body axisangle="0 1 0 90" pos="0.2 0 0"><joint type="ball" limited="true" range="0 60"/><geom type="capsule" size="0.05 0.1"/></body></body>
</worldbody></mujoco>)"},
    {"compiler_inertiafromgeom_true", R"(<mujoco><compiler inertiafromgeom="true"/>
<worldbody><body><joint/><inertial pos="1 0 0" mass="5" diaginertia="1 1 1"/><geom type="box" size="0.1 0.2 0.3"/>
 <geom type="cylinder" size="0.1 0.2" pos="0.3 0 0"/></body></worldbody></mujoco>)"},
    {"compiler_inertiafromgeom_false", R"(<mujoco><compiler inertiafromgeom="false"/>
<worldbody><body><joint/><inertial pos="0.1 0 0" mass="5" diaginertia="1 2 2.5"/><geom type="box" size="0.1 0.2 0.3"/></body>
 <body><geom size="1"/></body></worldbody></mujoco>)"},
    {"compiler_inertiagrouprange_bounds_totalmass", R"(<mujoco>
<compiler inertiagrouprange="1 3" boundmass="0.2" boundinertia="0.001" balanceinertia="true" settotalmass="12"/>
<worldbody>
 <body><joint/><geom size="0.1" group="0"/><geom size="0.2" group="2" pos="0.1 0 0"/><geom size="0.3" group="4"/></body>
 <body><joint/><geom size="0.01" group="1" mass="0.01"/></body>
 <body><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 5"/><geom size="0.1" group="1"/></body>
</worldbody></mujoco>)"},
    {"compiler_meshdir_texturedir", nullptr},  // built in the test: needs a mesh file
    {"option_every_attribute_and_flag", R"(<mujoco>
<option timestep="0.005" apirate="50" impratio="2" tolerance="1e-9" noslip_tolerance="1e-7" mpr_tolerance="1e-7"
  gravity="0 0.5 -5" wind="1 0 0.5" magnetic="0 1 0" density="1.2" viscosity="1e-5" o_margin="0.01"
  o_solref="0.03 1.1" o_solimp="0.8 0.9 0.01 0.4 3" integrator="RK4" collision="predefined" cone="elliptic"
  jacobian="dense" solver="PGS" iterations="50" noslip_iterations="3" mpr_iterations="20">
 <flag constraint="disable" equality="disable" frictionloss="disable" limit="disable" contact="disable"
   passive="disable" gravity="disable" clampctrl="disable" warmstart="disable" filterparent="disable"
   actuation="disable" refsafe="disable" sensor="disable" override="enable" energy="enable" fwdinv="enable"
   sensornoise="enable" multiccd="enable"/>
</option>
<worldbody><body><joint/><geom size="0.1"/></body></worldbody></mujoco>)"},
    {"option_other_keywords", R"(<mujoco>
<option integrator="implicit" collision="dynamic" cone="pyramidal" jacobian="sparse" solver="CG"/>
<option><flag constraint="enable" override="disable"/></option>
<worldbody><body><joint/><geom size="0.1"/></body></worldbody></mujoco>)"},
    {"size_every_attribute", R"(<mujoco>
<size njmax="77" nconmax="33" nstack="50000" nuserdata="4" nkey="2" nuser_body="2" nuser_jnt="3" nuser_geom="1"
  nuser_site="2" nuser_cam="1" nuser_tendon="2" nuser_actuator="3" nuser_sensor="1"/>
<worldbody>
 <body user="1 2"><joint name="j" user="1 2 3"/><geom size="0.1" user="4"/><site name="s" user="5"/><camera user="6"/></body>
</worldbody>
<tendon><fixed user="1"><joint joint="j" coef="1"/></fixed></tendon>
<actuator><motor joint="j" user="1 2"/></actuator>
<sensor><jointpos joint="j" user="3"/></sensor></mujoco>)"},
    {"default_classes_every_element", R"(<mujoco>
<default>
 <joint damping="0.1"/><geom size="0.1" rgba="1 0 0 1"/>
 <default class="a">
  <joint stiffness="2" armature="0.01" type="slide" axis="1 0 0"/><geom type="box" size="0.1 0.2 0.3" friction="0.5 0.01 0.001"/>
  <site size="0.02" type="box"/><camera fovy="60"/><light diffuse="1 0 0" directional="true"/>
  <mesh scale="2 2 2"/><material rgba="0 1 0 1"/><tendon width="0.01" stiffness="3"/>
  <general gainprm="3" ctrlrange="-1 1" ctrllimited="true"/><equality solref="0.05 1"/><pair friction="2 2 0.1 0.01 0.01"/>
  <default class="b"><joint damping="5"/><position kp="7"/><geom priority="2" condim="4"/></default>
 </default>
</default>
<asset><mesh name="m" class="a" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/><material name="mat" class="a"/></asset>
<worldbody>
 <body name="p" childclass="a"><joint name="j1"/><geom name="g1"/><site name="s1"/><camera/><light/>
  <body name="q" childclass="b"><joint name="j2"/><joint name="j3" class="main" type="hinge"/><geom name="g2" class="b"/>
   <geom type="mesh" mesh="m" class="main"/></body>
  <body name="r" childclass="b"><joint name="j4"/><geom name="g3"/><geom name="g4" class="main"/></body></body>
</worldbody>
<tendon><fixed name="t" class="a"><joint joint="j1" coef="1"/></fixed></tendon>
<actuator><general class="a" joint="j1"/><position class="b" joint="j2"/><motor joint="j4"/></actuator>
<equality><joint class="a" joint1="j1" joint2="j4"/></equality>
<contact><pair class="a" geom1="g1" geom2="g3"/></contact></mujoco>)"},
    {"body_attributes", R"(<mujoco>
<default><default class="c"><geom type="capsule" size="0.05 0.1"/></default></default>
<worldbody>
 <body name="a" pos="1 2 3" quat="1 1 0 0" childclass="c" user="7"><joint/><geom/></body>
 <body pos="0 0 1" axisangle="0 0 1 45"><joint/><geom size="0.1"/></body>
 <body euler="10 20 30"><joint/><geom size="0.1"/></body>
 <body xyaxes="0 1 0 -1 0 1"><joint/><geom size="0.1"/></body>
 <body zaxis="0 1 1"><joint/><geom size="0.1"/></body>
 <body name="m" mocap="true" pos="0 1 0" euler="0 0 30"><geom size="0.1" contype="0" conaffinity="0"/></body>
</worldbody></mujoco>)"},
    {"inertial_attributes", R"(<mujoco><worldbody>
 <body><joint/><inertial pos="0.1 0.2 0.3" quat="1 0 1 0" mass="2" diaginertia="0.1 0.2 0.25"/></body>
 <body><joint/><inertial pos="0.1 0.2 0.3" mass="2" fullinertia="0.3 0.4 0.5 0.01 0.02 0.03"/></body>
 <body><joint/><inertial pos="0 0 0" xyaxes="0 1 0 0 0 1" mass="2" diaginertia="0.1 0.1 0.15"/></body>
</worldbody></mujoco>)"},
    {"joint_every_attribute", R"(<mujoco><compiler autolimits="true"/><worldbody>
 <body><freejoint name="free" group="2"/><geom size="0.1"/>
  <body pos="0.2 0 0"><joint name="h" type="hinge" group="1" pos="0.1 0 0" axis="1 1 0" limited="true" range="-30 40"
    solreflimit="0.05 0.9" solimplimit="0.8 0.9 0.01 0.3 3" solreffriction="0.04 1.1" solimpfriction="0.7 0.8 0.02 0.4 2"
    stiffness="3" margin="0.02" ref="5" springref="10" armature="0.1" damping="0.3" frictionloss="0.2" user="1 2"/>
   <joint name="s" type="slide" axis="0 0 1" range="-0.1 0.2" ref="0.05" springref="-0.05" stiffness="1"/>
   <geom size="0.1"/>
   <body pos="0.2 0 0"><joint name="b" type="ball" range="0 70" stiffness="2" damping="0.1" armature="0.05"/><geom size="0.1"/></body>
   <body pos="0 0.2 0"><joint type="slide" springdamper="0.1 0.7"/><joint limited="false" range="-1 1"/><geom size="0.1"/></body>
  </body></body>
 <body pos="2 0 0"><joint type="free" name="free2"/><geom size="0.1"/></body>
</worldbody></mujoco>)"},
    {"geom_every_attribute", R"(<mujoco>
<asset><mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" scale="0.2 0.2 0.2"/>
 <hfield name="hf" nrow="3" ncol="3" size="1 1 0.2 0.1"/><material name="mat"/></asset>
<worldbody>
 <geom type="plane" size="2 2 0.1" group="2"/><geom type="hfield" hfield="hf" pos="3 0 0"/>
 <body><joint/>
  <geom type="sphere" size="0.1" mass="2" friction="0.7 0.02 0.003" condim="6" contype="2" conaffinity="3" priority="1"
   solmix="0.5" solref="0.03 0.8" solimp="0.8 0.9 0.01 0.3 3" margin="0.01" gap="0.005" group="1" material="mat" rgba="1 0 0 1" user="1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.05" density="500" condim="1"/>
  <geom type="ellipsoid" size="0.1 0.2 0.15" pos="0.1 0 0" euler="10 0 0" condim="4" fluidshape="ellipsoid" fluidcoef="0.4 0.3 1.4 1.1 0.9"/>
  <geom type="cylinder" size="0.05 0.2" pos="0 0.2 0" zaxis="1 0 0"/>
  <geom type="box" size="0.1 0.2 0.05" fromto="0 0 0 0 0 0.4"/>
  <geom type="ellipsoid" size="0.1" fromto="0 0 0 0.2 0.2 0.2"/>
  <geom type="mesh" mesh="tet" pos="0.2 0 0" quat="0 1 0 0"/>
 </body>
</worldbody></mujoco>)"},
    {"site_camera_light", R"(<mujoco>
<asset><material name="mat"/></asset>
<worldbody>
 <light name="l0" mode="fixed" directional="true" castshadow="false" active="false" pos="0 0 3" dir="0 1 -1"
   attenuation="1 0.1 0" cutoff="30" exponent="5" ambient="0.1 0.1 0.1" diffuse="0.5 0.5 0.5" specular="0.2 0.2 0.2"/>
 <body name="a" pos="0 0 1"><joint/><geom size="0.1"/>
  <site name="s1" type="box" size="0.1 0.2 0.3" group="2" pos="0.1 0 0" euler="0 0 30" material="mat" rgba="0 1 0 1" user="1"/>
  <site name="s2" type="capsule" size="0.02" fromto="0 0 0 0.2 0 0.1"/><site type="ellipsoid" size="0.1 0.05 0.02"/>
  <site type="cylinder" size="0.01 0.1" zaxis="0 1 0"/><site type="sphere"/>
  <camera name="c1" mode="track" pos="0 -1 1" xyaxes="1 0 0 0 1 1" fovy="60" ipd="0.05" user="2"/>
  <camera mode="trackcom" pos="0 -2 1"/><camera mode="targetbody" target="b" pos="1 1 1"/>
  <camera mode="targetbodycom" target="b" pos="1 1 1"/>
  <light mode="targetbody" target="b" pos="0 0 2"/><light mode="track" pos="0 0 2" dir="1 0 -1"/>
 </body>
 <body name="b" pos="1 0 0"><freejoint/><geom size="0.1"/></body>
</worldbody></mujoco>)"},
    {"assets_visual_only", R"(<mujoco>
<visual><global fovy="50" offwidth="800"/><quality shadowsize="1024"/><headlight ambient="0.2 0.2 0.2"/>
 <map znear="0.02"/><scale forcewidth="0.05"/><rgba haze="0.1 0.1 0.1 1"/></visual>
<statistic meaninertia="7" meanmass="3" meansize="0.4" extent="9" center="1 2 3"/>
<asset>
 <texture name="grid" type="2d" builtin="checker" width="64" height="64" rgb1="1 1 1" rgb2="0 0 0"/>
 <texture name="sky" type="skybox" builtin="gradient" width="32" height="32" rgb1="0 0 1" rgb2="0 0 0"/>
 <material name="m1" texture="grid" texrepeat="2 2" texuniform="true" emission="0.1" specular="0.3" shininess="0.4"
   reflectance="0.2" rgba="1 1 1 1"/>
 <mesh name="box" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1" scale="0.1 0.1 0.1"
   refpos="0.1 0 0" refquat="1 0 0 1" smoothnormal="true"/>
 <mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3"/>
 <skin name="sk" vertex="0 0 0 1 0 0 0 1 0" face="0 1 2" rgba="1 0 0 1">
  <bone body="a" bindpos="0 0 0" bindquat="1 0 0 0" vertid="0 1 2" vertweight="1 1 1"/></skin>
</asset>
<worldbody><body name="a"><joint/><geom type="mesh" mesh="box" material="m1"/><geom type="mesh" mesh="tet" pos="0.3 0 0"/></body>
</worldbody></mujoco>)"},
    {"tendon_every_attribute", R"(<mujoco><worldbody>
 <site name="s0" pos="0 0 1"/>
 <body><joint name="j1"/><geom name="g" type="cylinder" size="0.1 0.1" pos="0.3 0 0.5" zaxis="0 1 0"/><geom name="sph" size="0.05" pos="0.5 0 0.2"/>
  <site name="s1" pos="0.5 0 0"/><site name="side" pos="0.3 0 0.7"/>
  <body pos="0.6 0 0"><joint name="j2"/><geom size="0.1"/><site name="s2" pos="0.2 0 0"/></body></body>
</worldbody>
<tendon>
 <fixed name="f" group="1" limited="true" range="-1 1" solreflimit="0.03 1" solimplimit="0.8 0.9 0.01 0.3 2"
   solreffriction="0.04 1" solimpfriction="0.85 0.9 0.01 0.3 2" frictionloss="0.1" margin="0.01" stiffness="2"
   damping="0.3" springlength="0.2" user="1"><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed>
 <spatial name="sp" width="0.01" rgba="1 0 0 1" limited="true" range="0.1 3"><site site="s0"/><geom geom="g" sidesite="side"/>
  <site site="s1"/><geom geom="sph"/><site site="s2"/></spatial>
 <spatial name="pul"><site site="s0"/><site site="s1"/><pulley divisor="2"/><site site="s1"/><site site="s2"/></spatial>
</tendon></mujoco>)"},
    {"keyframe_equality_contact_custom", R"(<mujoco><size nkey="3"/>
<worldbody>
 <body name="a" pos="0 0 1"><joint name="ja"/><geom name="ga" size="0.1"/>
  <body name="b" pos="0.3 0 0"><joint name="jb" type="slide"/><geom name="gb" size="0.1"/></body></body>
 <body name="m" mocap="true" pos="1 0 0"/>
</worldbody>
<tendon><fixed name="t1"><joint joint="ja" coef="1"/></fixed><fixed name="t2"><joint joint="jb" coef="2"/></fixed></tendon>
<equality>
 <connect name="c" body1="a" body2="b" anchor="0.1 0 0" solref="0.04 1.2" solimp="0.8 0.9 0.002 0.4 3" active="false"/>
 <weld body1="b" body2="m" anchor="0.05 0 0" solimp="0.7 0.95 0.001 0.5 2"/>
 <weld body1="a" relpose="0 0 1 0.9 0.1 0 0" torquescale="0.5"/>
 <joint joint1="jb" polycoef="0.1 1 0.5 0.2 0.1" solref="0.03 1"/><tendon tendon1="t1" tendon2="t2" polycoef="0 0.5 0 0 0"/>
</equality>
<contact><pair name="p" geom1="ga" geom2="gb" condim="4" friction="0.5 0.4 0.01 0.002 0.003" solref="0.05 0.9"
  solimp="0.8 0.9 0.01 0.3 3" margin="0.02" gap="0.01"/><exclude name="x" body1="a" body2="b"/></contact>
<actuator><motor joint="ja"/><general joint="jb" dyntype="integrator"/><general joint="ja" dyntype="filter" dynprm="0.1"/></actuator>
<keyframe><key name="k0" time="0.5" qpos="0.1 0.2" qvel="1 2" act="0.3 0.4" ctrl="1 2 3" mpos="1 1 1" mquat="0 1 0 0"/>
 <key qpos="0.3 0.4"/></keyframe>
<custom><numeric name="n" size="3" data="1 2"/><text name="tx" data="hello"/>
 <tuple name="tu"><element objtype="body" objname="a" prm="1"/><element objtype="geom" objname="gb" prm="2"/></tuple></custom>
</mujoco>)"},
};

// 2.2.2 keeps the <statistic> values the model gives (meaninertia also scales the solver's
// tolerance) and the <size> capacities; the comparison of compiled arrays leaves them out.
void compare_extras(const Model& m, const mjModel* mj, const std::string& xml) {
  EXPECT_EQ(m.nkey, mj->nkey);
  EXPECT_EQ(m.nuserdata, mj->nuserdata);
  // capacities: as given (Moreau's defaults for absent ones follow its own rule, src/constraint/storage.cc)
  if (xml.find("nconmax=") != std::string::npos) EXPECT_EQ(m.nconmax, mj->nconmax);
  if (xml.find("njmax=") != std::string::npos) EXPECT_EQ(m.njmax, mj->njmax);
  if (xml.find("nstack=") != std::string::npos) EXPECT_EQ(m.nstack, mj->nstack);
  // meaninertia is the mean diagonal of qM at qpos0, which depends on body_iquat: 1e-6 relative,
  // as model_compare_test.cc compares body_iquat (2.2.2's 3x3 eigensolver leaves frames up to ~1e-7
  // off: 4e-9 here on inertial_attributes' fullinertia; and mesh inertia is single precision)
  EXPECT_NEAR(m.stat.meaninertia, mj->stat.meaninertia, 1e-6 * mj->stat.meaninertia);
  if (xml.find("<statistic") != std::string::npos) {
    EXPECT_EQ(m.stat.meanmass, mj->stat.meanmass);
    EXPECT_EQ(m.stat.meansize, mj->stat.meansize);
    EXPECT_EQ(m.stat.extent, mj->stat.extent);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(m.stat.center[k], mj->stat.center[k]);
  }
}

class MjcfCoverage : public ::testing::TestWithParam<int> {};

TEST_P(MjcfCoverage, MatchesMuJoCo222) {
  const Case& c = kCases[GetParam()];
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / (std::string("moreau_coverage_") + c.name);
  fs::create_directories(dir);
  std::string xml = c.xml ? c.xml : "";
  if (!c.xml) {
    // compiler meshdir (mesh files found there) and texturedir (accepted; textures are visual)
    fs::create_directories(dir / "meshes");
    std::ofstream(dir / "meshes" / "tet.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    xml = R"(<mujoco><compiler meshdir="meshes" texturedir="textures"/>
<asset><mesh file="tet.obj" scale="0.3 0.2 0.1"/><mesh name="t2" file="tet.obj"/>
 <texture name="tx" builtin="flat" width="8" height="8" rgb1="1 0 0"/></asset>
<worldbody><body><joint/><geom type="mesh" mesh="tet"/><geom type="mesh" mesh="t2" pos="0.5 0 0"/></body></worldbody></mujoco>)";
  }
  const std::string path = (dir / "model.xml").string();
  std::ofstream(path) << xml;
  std::string error;
  MjModelPtr mj = load_mujoco(path, &error);
  ASSERT_TRUE(mj) << "MuJoCo 2.2.2 refuses the case: " << error;
  Model m;
  try {
    m = load_model(path);
  } catch (const LoadError& e) {
    FAIL() << "Moreau refuses what 2.2.2 loads: " << e.what();
  }
  compare_extras(m, mj.get(), xml);
  const std::string diff = compare_compiled(m, mj.get());
  EXPECT_EQ(diff, "") << c.name << ":\n" << diff;
}

INSTANTIATE_TEST_SUITE_P(Items, MjcfCoverage, ::testing::Range(0, static_cast<int>(sizeof(kCases) / sizeof(kCases[0]))),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(kCases[i.param].name); });

}  // namespace
}  // namespace moreau::testing

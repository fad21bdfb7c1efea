// MJCF semantics without MuJoCo: default classes, orientations, angles, include, inertia of
// primitives against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "math/vec.h"
#include "mjcf/parse_common.h"
#include "moreau/moreau.h"

namespace {

using moreau::Model;

Model load(const std::string& xml) { return moreau::load_model_from_string(xml, "test.xml"); }

void expect_quat(const double* q, double w, double x, double y, double z, double tol = 1e-12) {
  const double s = (q[0] * w + q[1] * x + q[2] * y + q[3] * z) < 0 ? -1 : 1;  // up to sign
  EXPECT_NEAR(q[0], s * w, tol);
  EXPECT_NEAR(q[1], s * x, tol);
  EXPECT_NEAR(q[2], s * y, tol);
  EXPECT_NEAR(q[3], s * z, tol);
}

TEST(LoaderDefaults, NestedClassesAndChildclass) {
  const Model m = load(R"(<mujoco>
    <default>
      <joint damping="1" armature="0.1"/>
      <geom size="0.1" friction="0.5"/>
      <default class="a">
        <joint damping="2"/>
        <default class="b"><joint stiffness="3"/><geom type="box" size="0.1 0.2 0.3"/></default>
      </default>
    </default>
    <worldbody>
      <body name="b1" childclass="b">
        <joint name="j1"/>
        <joint name="j2" class="a"/>
        <joint name="j3" class="main"/>
        <geom name="g1"/>
        <body name="b2"><joint name="j4" damping="7"/><geom name="g2" class="main"/></body>
      </body>
      <geom name="g3"/>
    </worldbody></mujoco>)");
  ASSERT_EQ(m.njnt, 4);
  // j1: class b (childclass) inherits a's damping and main's armature
  EXPECT_EQ(m.dof_damping[0], 2);
  EXPECT_EQ(m.jnt_stiffness[0], 3);
  EXPECT_EQ(m.dof_armature[0], 0.1);
  // j2: class a
  EXPECT_EQ(m.dof_damping[1], 2);
  EXPECT_EQ(m.jnt_stiffness[1], 0);
  // j3: class main
  EXPECT_EQ(m.dof_damping[2], 1);
  // j4: childclass b inherited by the nested body, own attribute wins
  EXPECT_EQ(m.dof_damping[3], 7);
  EXPECT_EQ(m.jnt_stiffness[3], 3);
  const int g1 = moreau::name2id(m, moreau::kObjGeom, "g1");
  const int g2 = moreau::name2id(m, moreau::kObjGeom, "g2");
  const int g3 = moreau::name2id(m, moreau::kObjGeom, "g3");
  EXPECT_EQ(m.geom_type[g1], moreau::kGeomBox);
  EXPECT_EQ(m.geom_size[3 * g1 + 2], 0.3);
  EXPECT_EQ(m.geom_type[g2], moreau::kGeomSphere);
  EXPECT_EQ(m.geom_friction[3 * g2], 0.5);
  EXPECT_EQ(m.geom_type[g3], moreau::kGeomSphere);
}

TEST(LoaderDefaults, ActuatorShortcutsInheritClassParameters) {
  const Model m = load(R"(<mujoco>
    <default><default class="p"><position kp="10"/></default></default>
    <worldbody><body><joint name="j"/><geom size="1"/></body></worldbody>
    <actuator>
      <position joint="j" class="p"/>
      <position joint="j" kp="3"/>
      <velocity joint="j" kv="4"/>
      <motor joint="j" class="p"/>
    </actuator></mujoco>)");
  ASSERT_EQ(m.nu, 4);
  EXPECT_EQ(m.actuator_gainprm[0], 10);
  EXPECT_EQ(m.actuator_biasprm[1], -10);
  EXPECT_EQ(m.actuator_gainprm[moreau::kNGAIN], 3);
  EXPECT_EQ(m.actuator_biasprm[moreau::kNBIAS + 1], -3);
  EXPECT_EQ(m.actuator_biasprm[2 * moreau::kNBIAS + 2], -4);
  EXPECT_EQ(m.actuator_biastype[2], moreau::kBiasAffine);
  EXPECT_EQ(m.actuator_gainprm[3 * moreau::kNGAIN], 1);
  EXPECT_EQ(m.actuator_biastype[3], moreau::kBiasNone);
}

TEST(LoaderOrientation, AllForms) {
  const double h = std::sqrt(0.5);
  const Model m = load(R"(<mujoco><worldbody>
    <body name="q" quat="2 0 0 0"/>
    <body name="aa" axisangle="0 0 1 90"/>
    <body name="eu" euler="90 0 0"/>
    <body name="xy" xyaxes="0 1 0 -1 0 0"/>
    <body name="z" zaxis="1 0 0"/>
    <body name="zneg" zaxis="0 0 -1"/>
  </worldbody></mujoco>)");
  expect_quat(&m.body_quat[4 * 1], 1, 0, 0, 0);
  expect_quat(&m.body_quat[4 * 2], h, 0, 0, h);
  expect_quat(&m.body_quat[4 * 3], h, h, 0, 0);
  expect_quat(&m.body_quat[4 * 4], h, 0, 0, h);   // x -> y: rotation by 90 deg about z
  expect_quat(&m.body_quat[4 * 5], h, 0, h, 0);   // z -> x: rotation by 90 deg about y
  expect_quat(&m.body_quat[4 * 6], 0, 1, 0, 0);   // z -> -z: half turn about x
}

TEST(LoaderOrientation, EulerSequences) {
  // Intrinsic "xyz": q = qx * qy * qz; extrinsic "XYZ": q = qz * qy * qx.
  const double a = M_PI / 2;
  const double qx[4] = {std::cos(a / 2), std::sin(a / 2), 0, 0};
  const double qy[4] = {std::cos(a / 2), 0, std::sin(a / 2), 0};
  double t[4], intr[4], extr[4];
  // intrinsic xyz with angles (90, 90, 0) = qx * qy
  moreau::math::mulquat(intr, qx, qy);
  moreau::math::mulquat(extr, qy, qx);
  const double e[3] = {a, a, 0};
  double q[4];
  moreau::mjcf::euler_to_quat(e, "xyz", q);
  expect_quat(q, intr[0], intr[1], intr[2], intr[3]);
  moreau::mjcf::euler_to_quat(e, "XYZ", q);
  expect_quat(q, extr[0], extr[1], extr[2], extr[3]);
  // "zyx" intrinsic with angles (90, 90, 0): first about z then about the new y
  const double e2[3] = {a, a, 0};
  const double qz[4] = {std::cos(a / 2), 0, 0, std::sin(a / 2)};
  moreau::mjcf::euler_to_quat(e2, "zyx", q);
  moreau::math::mulquat(t, qz, qy);
  expect_quat(q, t[0], t[1], t[2], t[3]);
  // compiler eulerseq applies to the model
  const Model m = load(R"(<mujoco><compiler eulerseq="ZYX"/><worldbody><body euler="90 90 0"/></worldbody></mujoco>)");
  moreau::math::mulquat(t, qy, qz);
  expect_quat(&m.body_quat[4], t[0], t[1], t[2], t[3]);
}

TEST(LoaderOrientation, Fromto) {
  const Model m = load(R"(<mujoco><worldbody>
    <geom type="capsule" fromto="0 0 0 0 0 2" size="0.1"/>
    <geom type="box" fromto="0 0 0 2 0 0" size="0.1"/>
  </worldbody></mujoco>)");
  // capsule: center at the midpoint, half-length 1, z axis from 'to' to 'from'
  EXPECT_NEAR(m.geom_pos[2], 1, 1e-15);
  EXPECT_NEAR(m.geom_size[1], 1, 1e-15);
  expect_quat(&m.geom_quat[0], 0, 1, 0, 0);
  // box: size[1] copies size[0], size[2] is the half-length
  EXPECT_NEAR(m.geom_size[3 + 1], 0.1, 1e-15);
  EXPECT_NEAR(m.geom_size[3 + 2], 1, 1e-15);
  const double h = std::sqrt(0.5);
  expect_quat(&m.geom_quat[4], h, 0, -h, 0);  // z -> -x
}

TEST(LoaderAngles, DegreeAndRadian) {
  const char* body = R"(<worldbody><body><joint name="h" type="hinge" ref="90" springref="45" range="-90 90" limited="true"/>
      <joint name="s" type="slide" ref="0.5" range="-1 1" limited="true"/><geom size="1"/></body></worldbody>)";
  const Model d = load(std::string("<mujoco>") + body + "</mujoco>");
  EXPECT_NEAR(d.qpos0[0], M_PI / 2, 1e-15);
  EXPECT_NEAR(d.qpos_spring[0], M_PI / 4, 1e-15);
  EXPECT_NEAR(d.jnt_range[1], M_PI / 2, 1e-15);
  EXPECT_EQ(d.qpos0[1], 0.5);  // slide joints are lengths: never converted
  EXPECT_EQ(d.jnt_range[3], 1);
  const Model r = load(std::string("<mujoco><compiler angle=\"radian\"/>") + body + "</mujoco>");
  EXPECT_EQ(r.qpos0[0], 90);
  EXPECT_EQ(r.jnt_range[1], 90);
  const Model e = load(R"(<mujoco><compiler angle="radian"/><worldbody><body euler="1.5707963267948966 0 0"/></worldbody></mujoco>)");
  expect_quat(&e.body_quat[4], std::sqrt(0.5), std::sqrt(0.5), 0, 0);
}

TEST(LoaderInclude, IncludedElementsAreInserted) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "moreau_loader_include";
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "main.xml") << "<mujoco model=\"inc\">\n<include file=\"sub/defaults.xml\"/>\n<worldbody>\n"
                                     "<body><joint/><geom size=\"1\"/></body>\n</worldbody>\n</mujoco>\n";
  std::ofstream(dir / "sub/defaults.xml") << "<mujoco><default><joint damping=\"5\"/></default>"
                                             "<include file=\"more.xml\"/></mujoco>\n";
  std::ofstream(dir / "sub/more.xml") << "<mujoco><option timestep=\"0.01\"/></mujoco>\n";
  const Model m = moreau::load_model((dir / "main.xml").string());
  EXPECT_EQ(m.modelname, "inc");
  EXPECT_EQ(m.dof_damping[0], 5);
  EXPECT_EQ(m.opt.timestep, 0.01);
  fs::remove_all(dir);
}

// Inertia of single-geom bodies against closed forms (density 1000 unless a mass is given).
TEST(LoaderInertia, Primitives) {
  const Model m = load(R"(<mujoco><worldbody>
    <body><geom type="sphere" size="0.1"/></body>
    <body><geom type="box" size="0.1 0.2 0.3"/></body>
    <body><geom type="cylinder" size="0.1 0.2"/></body>
    <body><geom type="ellipsoid" size="0.1 0.2 0.3"/></body>
    <body><geom type="capsule" size="0.1 0.3"/></body>
    <body><geom type="box" size="0.1 0.2 0.3" mass="2"/></body>
  </worldbody></mujoco>)");
  const double rho = 1000, pi = M_PI;
  auto check = [&](int b, double mass, double ix, double iy, double iz) {
    EXPECT_NEAR(m.body_mass[b], mass, 1e-12 * mass) << "body " << b;
    EXPECT_NEAR(m.body_inertia[3 * b], ix, 1e-12 * ix) << "body " << b;
    EXPECT_NEAR(m.body_inertia[3 * b + 1], iy, 1e-12 * iy) << "body " << b;
    EXPECT_NEAR(m.body_inertia[3 * b + 2], iz, 1e-12 * iz) << "body " << b;
  };
  double ms = rho * 4.0 / 3 * pi * 1e-3;
  check(1, ms, 0.4 * ms * 0.01, 0.4 * ms * 0.01, 0.4 * ms * 0.01);
  double mb = rho * 8 * 0.1 * 0.2 * 0.3;
  check(2, mb, mb * (0.04 + 0.09) / 3, mb * (0.01 + 0.09) / 3, mb * (0.01 + 0.04) / 3);
  double mc = rho * pi * 0.01 * 0.4;
  check(3, mc, mc * (3 * 0.01 + 0.16) / 12, mc * (3 * 0.01 + 0.16) / 12, mc * 0.01 / 2);
  double me = rho * 4.0 / 3 * pi * 0.1 * 0.2 * 0.3;
  check(4, me, me * (0.04 + 0.09) / 5, me * (0.01 + 0.09) / 5, me * (0.01 + 0.04) / 5);
  // capsule: cylinder (h = 0.6) + two hemispheres shifted by h/2 + 3r/8 from the center
  const double r = 0.1, hh = 0.6;
  const double mcyl = rho * pi * r * r * hh, msph = rho * 4.0 / 3 * pi * r * r * r;
  const double ix = mcyl * (3 * r * r + hh * hh) / 12 + msph * (0.4 * r * r + 0.25 * hh * hh + 0.375 * hh * r);
  check(5, mcyl + msph, ix, ix, mcyl * r * r / 2 + msph * 0.4 * r * r);
  check(6, 2, 2 * (0.04 + 0.09) / 3, 2 * (0.01 + 0.09) / 3, 2 * (0.01 + 0.04) / 3);
}

TEST(LoaderInertia, TwoGeomsParallelAxis) {
  // Two unit-mass spheres at x = +-1: com at 0, moments (2*0.4 r^2, 2*0.4 r^2 + 2, same).
  const Model m = load(R"(<mujoco><worldbody><body>
    <geom type="sphere" size="0.1" mass="1" pos="1 0 0"/>
    <geom type="sphere" size="0.1" mass="1" pos="-1 0 0"/>
  </body></worldbody></mujoco>)");
  const double is = 0.4 * 0.01;
  EXPECT_NEAR(m.body_mass[1], 2, 1e-14);
  EXPECT_NEAR(m.body_ipos[3], 0, 1e-14);
  // descending principal moments
  EXPECT_NEAR(m.body_inertia[3], 2 * is + 2, 1e-12);
  EXPECT_NEAR(m.body_inertia[4], 2 * is + 2, 1e-12);
  EXPECT_NEAR(m.body_inertia[5], 2 * is, 1e-12);
}

TEST(LoaderTree, AddressesAndSparsity) {
  const Model m = load(R"(<mujoco><worldbody>
    <body><freejoint/><geom size="0.1"/>
      <body><joint type="ball"/><geom size="0.1"/>
        <body><joint/><joint type="slide"/><geom size="0.1"/></body>
      </body>
    </body>
  </worldbody></mujoco>)");
  ASSERT_EQ(m.nq, 7 + 4 + 2);
  ASSERT_EQ(m.nv, 6 + 3 + 2);
  EXPECT_EQ(m.dof_parentid[0], -1);
  EXPECT_EQ(m.dof_parentid[6], 5);
  EXPECT_EQ(m.dof_parentid[9], 8);
  EXPECT_EQ(m.dof_parentid[10], 9);
  // tree-sparse M: row i holds i and all its ancestors
  EXPECT_EQ(m.dof_Madr[0], 0);
  EXPECT_EQ(m.dof_Madr[1], 1);
  EXPECT_EQ(m.dof_Madr[6], 1 + 2 + 3 + 4 + 5 + 6);
  EXPECT_EQ(m.nM, 66);  // sum_{i=1..11} i
  EXPECT_EQ(m.body_weldid[3], 3);
  EXPECT_EQ(m.body_rootid[3], 1);
  EXPECT_EQ(m.qpos0[7], 1);  // ball joint identity quaternion
}

}  // namespace

namespace {

TEST(LoaderComposite, ParticleAndRopeExpansion) {
  const moreau::Model p = moreau::load_model_from_string(R"(<mujoco><worldbody>
    <composite type="particle" count="2 3 1" spacing="0.1" offset="0 0 1"><geom size="0.02"/></composite>
  </worldbody></mujoco>)");
  ASSERT_EQ(p.nbody, 1 + 6);
  ASSERT_EQ(p.njnt, 18);                    // three slide joints per particle
  EXPECT_NEAR(p.body_pos[3 * 1 + 0], -0.1, 1e-15);   // offset + spacing * (i - n/2)
  EXPECT_NEAR(p.body_pos[3 * 1 + 1], -0.15, 1e-15);
  EXPECT_NEAR(p.body_pos[3 * 1 + 2], 0.95, 1e-15);
  EXPECT_EQ(p.geom_condim[0], 1);
  const moreau::Model r = moreau::load_model_from_string(R"(<mujoco><worldbody>
    <body name="B1"><freejoint/>
      <composite type="rope" count="4 1 1" spacing="0.04"><geom type="capsule" size="0.01 0.015"/></composite>
    </body></worldbody></mujoco>)");
  ASSERT_EQ(r.nbody, 1 + 4);
  EXPECT_EQ(moreau::name2id(r, moreau::kObjBody, "B2"), 2);
  EXPECT_EQ(r.body_parentid[moreau::name2id(r, moreau::kObjBody, "B3")], moreau::name2id(r, moreau::kObjBody, "B2"));
  EXPECT_EQ(r.body_parentid[moreau::name2id(r, moreau::kObjBody, "B0")], 1);
  EXPECT_GE(moreau::name2id(r, moreau::kObjJoint, "J1_3"), 0);
  try {
    moreau::load_model_from_string("<mujoco>\n<worldbody>\n<body name=\"root\">\n"
                                   "<composite type=\"rope\" count=\"3 1 1\" spacing=\"0.1\"/>\n</body>\n</worldbody>\n</mujoco>",
                                   "rope.xml");
    ADD_FAILURE() << "no error";
  } catch (const moreau::LoadError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(std::string(e.what()).find("must be named B<index>"), std::string::npos) << e.what();
  }
}

}  // namespace

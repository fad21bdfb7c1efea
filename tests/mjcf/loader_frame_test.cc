// <frame> and <compiler assetdir>, two loader features newer than MuJoCo 2.2.2 (MJCF reference:
// body/frame, compiler/assetdir). 2.2.2 cannot load them, so they are tested by equivalence: a
// model written with them compiles to the same Model arrays as the same model written without
// them (poses composed by hand, meshdir instead of assetdir). The hand-written forms load in 2.2.2,
// whose physics the differential suites compare.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mjcf/frame_models.h"
#include "model_list.h"
#include "moreau/moreau.h"

namespace {

namespace fs = std::filesystem;
using moreau::Model;
using namespace moreau::testing;

Model load(const std::string& xml) { return moreau::load_model_from_string(xml, "model.xml"); }

template <class T>
void expect_near_arrays(const std::vector<T>& a, const std::vector<T>& b, double tol, const char* name) {
  ASSERT_EQ(a.size(), b.size()) << name;
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(static_cast<double>(a[i]), static_cast<double>(b[i]), tol) << name << "[" << i << "]";
}

// The arrays a frame can change (poses of everything it can hold), the tree and the inertia the
// compiler derives from them. tol = 0: bit-identical.
void expect_same_model(const Model& a, const Model& b, double tol) {
  ASSERT_EQ(a.nbody, b.nbody);
  ASSERT_EQ(a.njnt, b.njnt);
  ASSERT_EQ(a.ngeom, b.ngeom);
  ASSERT_EQ(a.nsite, b.nsite);
  ASSERT_EQ(a.ncam, b.ncam);
  ASSERT_EQ(a.nlight, b.nlight);
  ASSERT_EQ(a.nq, b.nq);
  EXPECT_EQ(a.body_parentid, b.body_parentid);
  EXPECT_EQ(a.geom_bodyid, b.geom_bodyid);
  EXPECT_EQ(a.geom_type, b.geom_type);
  EXPECT_EQ(a.jnt_type, b.jnt_type);
  EXPECT_EQ(a.jnt_bodyid, b.jnt_bodyid);
  EXPECT_EQ(a.site_bodyid, b.site_bodyid);
  EXPECT_EQ(a.cam_bodyid, b.cam_bodyid);
  EXPECT_EQ(a.light_bodyid, b.light_bodyid);
  expect_near_arrays(a.body_pos, b.body_pos, tol, "body_pos");
  expect_near_arrays(a.body_quat, b.body_quat, tol, "body_quat");
  expect_near_arrays(a.body_ipos, b.body_ipos, tol, "body_ipos");
  expect_near_arrays(a.body_iquat, b.body_iquat, tol, "body_iquat");
  expect_near_arrays(a.body_mass, b.body_mass, tol * 1e3, "body_mass");  // masses ~1e3 (density 1000)
  expect_near_arrays(a.body_inertia, b.body_inertia, tol * 1e3, "body_inertia");
  expect_near_arrays(a.jnt_pos, b.jnt_pos, tol, "jnt_pos");
  expect_near_arrays(a.jnt_axis, b.jnt_axis, tol, "jnt_axis");
  expect_near_arrays(a.geom_pos, b.geom_pos, tol, "geom_pos");
  expect_near_arrays(a.geom_quat, b.geom_quat, tol, "geom_quat");
  expect_near_arrays(a.geom_size, b.geom_size, tol, "geom_size");
  expect_near_arrays(a.site_pos, b.site_pos, tol, "site_pos");
  expect_near_arrays(a.site_quat, b.site_quat, tol, "site_quat");
  expect_near_arrays(a.site_size, b.site_size, tol, "site_size");
  expect_near_arrays(a.cam_pos, b.cam_pos, tol, "cam_pos");
  expect_near_arrays(a.cam_quat, b.cam_quat, tol, "cam_quat");
  expect_near_arrays(a.light_pos, b.light_pos, tol, "light_pos");
  expect_near_arrays(a.light_dir, b.light_dir, tol, "light_dir");
  expect_near_arrays(a.qpos0, b.qpos0, tol, "qpos0");
  expect_near_arrays(a.mesh_vert, b.mesh_vert, 0, "mesh_vert");
  expect_near_arrays(a.hfield_data, b.hfield_data, 0, "hfield_data");
}

// Translations only, with dyadic numbers (frame_models.h): every composed value is exact, so the
// arrays are bit-identical.
TEST(LoaderFrame, TranslationsComposeExactly) {
  const Model framed = load(kFrameTranslations.framed);
  const Model hand = load(kFrameTranslations.hand);
  expect_same_model(framed, hand, 0);
}

// Rotations by quarter and half turns, given as euler, axisangle, quat, xyaxes and zaxis; the
// hand-written form gives each child the composed orientation. Each composed quaternion is one
// extra product and normalization away from the hand-written one: agreement to a few ulp.
TEST(LoaderFrame, RotationsComposeWithEveryOrientationForm) {
  const double tol = 1e-15;
  const Model framed = load(kFrameRotations.framed);
  const Model hand = load(kFrameRotations.hand);
  expect_same_model(framed, hand, tol);
}

// The frame's euler angles follow compiler/angle and compiler/eulerseq, as a body's do: a body
// in a frame with (angles, sequence) has the orientation of a body given those angles itself.
TEST(LoaderFrame, EulerFollowsCompilerAngleAndSequence) {
  for (const char* compiler : {R"(<compiler angle="radian" eulerseq="zyx"/>)", R"(<compiler eulerseq="XYZ"/>)",
                               R"(<compiler angle="degree"/>)"}) {
    const std::string angles = std::string(compiler).find("radian") != std::string::npos ? "0.3 -0.7 1.1" : "17 -40 63";
    const Model framed = load(std::string("<mujoco>") + compiler + "<worldbody><frame euler=\"" + angles +
                              "\"><body><joint/><geom size=\"0.1\"/></body></frame></worldbody></mujoco>");
    const Model hand = load(std::string("<mujoco>") + compiler + "<worldbody><body euler=\"" + angles +
                            "\"><joint/><geom size=\"0.1\"/></body></worldbody></mujoco>");
    expect_same_model(framed, hand, 1e-15);
  }
}

// MuJoCo's own frame test model (shared/models/mujoco/test/engine/testdata/frame.xml): the
// expected poses follow from the composition of rotations about z and x, analytically.
TEST(LoaderFrame, MujocoFrameTestModel) {
  MOREAU_REQUIRE_SHARED();
  const Model m = moreau::load_model(moreau::test_models::shared_model("mujoco/test/engine/testdata/frame.xml"));
  ASSERT_EQ(m.ngeom, 7);  // world: 0, 1, 2 (nested frames); then one per body
  ASSERT_EQ(m.njnt, 1);
  const double d = M_PI / 180;
  // geom 0: frame euler 0 0 30, geom pos .5 0 0 euler 0 0 20 -> pos turned by 30 deg, a 50 deg turn
  EXPECT_NEAR(m.geom_pos[0], 0.5 * std::cos(30 * d), 1e-15);
  EXPECT_NEAR(m.geom_pos[1], 0.5 * std::sin(30 * d), 1e-15);
  EXPECT_NEAR(m.geom_quat[0], std::cos(25 * d), 1e-15);
  EXPECT_NEAR(m.geom_quat[3], std::sin(25 * d), 1e-15);
  // geom 1: quat 0 1 0 0 then quat 0 -1 0 0: the identity (q and -q are one rotation)
  EXPECT_NEAR(std::abs(m.geom_quat[4]), 1, 1e-15);
  // geom 2 (nested frames 30 + 20 deg about z): the same 50 deg turn as geom 0, at the origin
  for (int g : {2}) {
    EXPECT_NEAR(m.geom_quat[4 * g], std::cos(25 * d), 1e-15);
    EXPECT_NEAR(m.geom_quat[4 * g + 3], std::sin(25 * d), 1e-15);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(m.geom_pos[3 * g + k], 0);
  }
  // body 2 holds a frame at 0 1 0 with a geom at 0 1 0 and body 3 at 1 0 0: both composed
  EXPECT_EQ(m.geom_pos[3 * 4 + 1], 2);
  EXPECT_EQ(m.body_parentid[3], 2);
  EXPECT_EQ(m.body_pos[3 * 3 + 0], 1);
  EXPECT_EQ(m.body_pos[3 * 3 + 1], 1);
  EXPECT_EQ(m.geom_pos[3 * 5 + 2], 1);  // body 3's own geom: in body 3's frame, untouched
  // the hinge in a frame turned 90 deg about x: axis z -> -y
  EXPECT_NEAR(m.jnt_axis[0], 0, 1e-15);
  EXPECT_NEAR(m.jnt_axis[1], -1, 1e-15);
  EXPECT_NEAR(m.jnt_axis[2], 0, 1e-15);
}

// fromto in a rotated frame: the segment moves rigidly (position, axis and length as the end
// points composed by hand); the geom's frame is made in the frame's coordinates and then turned
// with it (frame.cc). A quarter turn about z of the x-directed capsule 0..1: the hand-made
// frame is quat 0.5 0.5 -0.5 0.5 (the minimal turn taking z to -x, then the quarter turn).
TEST(LoaderFrame, FromtoInARotatedFrame) {
  const Model framed = load(kFrameFromtoRotated.framed);
  const Model hand = load(kFrameFromtoRotated.hand);
  expect_same_model(framed, hand, 1e-15);
  // the end points composed by hand give the same segment (its turn about the axis aside)
  const Model ends = load(R"(<mujoco><worldbody><body><joint/>
  <geom type="capsule" size="0.1" fromto="0 0 0 0 1 0"/></body></worldbody></mujoco>)");
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(framed.geom_pos[k], ends.geom_pos[k], 1e-15);
    EXPECT_NEAR(framed.geom_size[k], ends.geom_size[k], 1e-15);
  }
  // z axes of both geom frames (third column of the rotation): along -y
  auto zaxis = [](const double* q, double z[3]) {
    z[0] = 2 * (q[1] * q[3] + q[0] * q[2]);
    z[1] = 2 * (q[2] * q[3] - q[0] * q[1]);
    z[2] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
  };
  double za[3], zb[3];
  zaxis(&framed.geom_quat[0], za);
  zaxis(&ends.geom_quat[0], zb);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(za[k], zb[k], 1e-15);
  EXPECT_NEAR(za[1], -1, 1e-15);
}

// childclass on a frame applies to its descendants as a body's does: children of the frame,
// bodies in it and their children, until a body or frame gives another childclass; an element's
// own class wins.
TEST(LoaderFrame, ChildclassAppliesToDescendants) {
  const Model framed = load(kFrameChildclass.framed);
  EXPECT_EQ(framed.geom_type[0], moreau::kGeomBox);
  EXPECT_EQ(framed.geom_type[1], moreau::kGeomSphere);
  EXPECT_EQ(framed.geom_size[3], 0.7);
  EXPECT_EQ(framed.geom_type[2], moreau::kGeomSphere);  // the frame without childclass: the body's "b"
  EXPECT_EQ(framed.geom_size[6], 0.7);
  EXPECT_EQ(framed.dof_damping[0], 2);
  EXPECT_EQ(framed.dof_damping[1], 2);  // body in the frame: childclass a
  EXPECT_EQ(framed.geom_type[3], moreau::kGeomBox);
  EXPECT_EQ(framed.geom_type[4], moreau::kGeomSphere);  // nested frame childclass b
  EXPECT_EQ(framed.geom_size[12], 0.7);
}

// Every pair of frame_models.h: the framed and hand-written forms compile alike (to rounding).
TEST(LoaderFrame, EveryPairMatchesItsHandWrittenForm) {
  for (const FramePair* p : kFramePairs) {
    SCOPED_TRACE(p->name);
    expect_same_model(load(p->framed), load(p->hand), 1e-15);
  }
  SCOPED_TRACE("frame.xml");
  MOREAU_REQUIRE_SHARED();  // after the hand-written pairs, which ran
  expect_same_model(moreau::load_model(moreau::test_models::shared_model("mujoco/test/engine/testdata/frame.xml")),
                    load(kFrameMujocoTestHand), 1e-15);
}

// An identity frame (no attributes) leaves its children bit for bit as they are.
TEST(LoaderFrame, EmptyFrameIsTransparent) {
  const Model framed = load(R"(<mujoco><worldbody><frame name="f"><body pos="0.1 0.2 0.3" euler="10 20 30">
<joint axis="0.3 0.4 0.5"/><geom type="box" size="0.1 0.2 0.3" fromto="0.1 0.2 0.3 0.7 0.11 -0.2"/></body></frame>
</worldbody></mujoco>)");
  const Model hand = load(R"(<mujoco><worldbody><body pos="0.1 0.2 0.3" euler="10 20 30">
<joint axis="0.3 0.4 0.5"/><geom type="box" size="0.1 0.2 0.3" fromto="0.1 0.2 0.3 0.7 0.11 -0.2"/></body>
</worldbody></mujoco>)");
  expect_same_model(framed, hand, 0);
}

// The same physics: a double pendulum written with frames and by hand gives the same forward
// dynamics (the arrays above are equal to rounding, so qacc agrees to rounding too).
TEST(LoaderFrame, SameDynamics) {
  const Model framed = load(kFramePendulum.framed);
  const Model hand = load(kFramePendulum.hand);
  expect_same_model(framed, hand, 1e-15);
  moreau::Data a = moreau::make_data(framed), b = moreau::make_data(hand);
  moreau::reset_data(framed, a);
  moreau::reset_data(hand, b);
  a.qpos[0] = b.qpos[0] = 0.3;
  a.qpos[1] = b.qpos[1] = -0.2;
  moreau::forward(framed, a);
  moreau::forward(hand, b);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(a.qacc[i], b.qacc[i], 1e-12 * (1 + std::abs(b.qacc[i])));
}

// ------------------------------------------------------------------ assetdir

// Writes a unit cube OBJ (outward faces).
void write_cube(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream f(file);
  f << "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
       "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 2 3 7 6\nf 1 5 8 4\n";
}

std::string mesh_model(const std::string& compiler) {
  return "<mujoco>" + compiler + R"(<asset><mesh file="cube.obj" scale="2 1 0.5"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="cube"/></body></worldbody></mujoco>)";
}

// assetdir sets the directory of mesh (and height field, texture) files, relative to the model
// file like meshdir; meshdir and texturedir take precedence (MJCF reference, compiler/assetdir).
TEST(LoaderAssetdir, ActsAsMeshdirUnlessMeshdirIsGiven) {
  const fs::path dir = fs::temp_directory_path() / "moreau_assetdir_test";
  fs::remove_all(dir);
  write_cube(dir / "assets" / "cube.obj");
  auto load_file = [&](const std::string& name, const std::string& compiler) {
    std::ofstream(dir / name) << mesh_model(compiler);
    return moreau::load_model((dir / name).string());
  };
  const Model by_meshdir = load_file("meshdir.xml", R"(<compiler meshdir="assets"/>)");
  const Model by_assetdir = load_file("assetdir.xml", R"(<compiler assetdir="assets"/>)");
  expect_same_model(by_assetdir, by_meshdir, 0);
  EXPECT_NEAR(by_assetdir.body_mass[1], 1000, 1e-9);  // 2 x 1 x 0.5 box of density 1000
  // meshdir wins over assetdir, in one <compiler> or across several (the last setting of each)
  const Model both = load_file("both.xml", R"(<compiler assetdir="nowhere" meshdir="assets"/>)");
  expect_same_model(both, by_meshdir, 0);
  const Model split = load_file("split.xml", R"(<compiler meshdir="assets"/><compiler assetdir="nowhere"/>)");
  expect_same_model(split, by_meshdir, 0);
  const Model last = load_file("last.xml", R"(<compiler assetdir="nowhere"/><compiler assetdir="assets"/>)");
  expect_same_model(last, by_meshdir, 0);
  // texturedir does not stand in for meshdir
  const Model tex = load_file("tex.xml", R"(<compiler assetdir="assets" texturedir="textures"/>)");
  expect_same_model(tex, by_meshdir, 0);
  // an absolute assetdir is used as it is
  const Model abs = load_file("abs.xml", "<compiler assetdir=\"" + (dir / "assets").string() + "\"/>");
  expect_same_model(abs, by_meshdir, 0);
  // a wrong assetdir: the missing file is reported on the <mesh> line
  try {
    load_file("wrong.xml", R"(<compiler assetdir="nowhere"/>)");
    ADD_FAILURE() << "no LoadError";
  } catch (const moreau::LoadError& e) {
    EXPECT_EQ(e.element(), "mesh") << e.what();
    EXPECT_NE(std::string(e.what()).find("nowhere/cube.obj"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace

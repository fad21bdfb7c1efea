// Mesh reading, convex hull and mass properties (src/mesh), and mesh geoms in the loader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mesh/mesh.h"
#include "png_writer.h"
#include "moreau/moreau.h"

namespace {

namespace fs = std::filesystem;

const double kCubeV[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
const int kCubeF[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                      2, 3, 7, 2, 7, 6, 1, 2, 6, 1, 6, 5, 0, 4, 7, 0, 7, 3};

moreau::mesh::TriMesh cube() {
  moreau::mesh::TriMesh m;
  m.vert.assign(std::begin(kCubeV), std::end(kCubeV));
  m.face.assign(std::begin(kCubeF), std::end(kCubeF));
  return m;
}

TEST(Mesh, MassPropertiesOfUnitCube) {
  const auto mp = moreau::mesh::mass_properties(cube());
  EXPECT_NEAR(mp.volume, 1, 1e-14);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.com[k], 0.5, 1e-14);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.inertia[k], 1.0 / 6, 1e-14);
  for (int k = 3; k < 6; ++k) EXPECT_NEAR(mp.inertia[k], 0, 1e-14);
}

TEST(Mesh, MassPropertiesOfTetrahedron) {
  // unit right tetrahedron: V = 1/6, com = 1/4, I_xx = 1/80 * ... per unit density:
  // second moments about the com: C_xx = 1/160 V-normalized -> I_xx = 2 * (1/60 - V/16) = 1/80
  moreau::mesh::TriMesh t;
  t.vert = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  t.face = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  const auto mp = moreau::mesh::mass_properties(t);
  EXPECT_NEAR(mp.volume, 1.0 / 6, 1e-15);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.com[k], 0.25, 1e-15);
  EXPECT_NEAR(mp.inertia[0], 1.0 / 80, 1e-15);
  EXPECT_NEAR(mp.inertia[3], 1.0 / 480, 1e-15);  // -(int xy - V cx cy) = -(1/120 - 1/96)
}

TEST(Mesh, ConvexHullOfCubeWithInteriorPoints) {
  std::vector<double> v(std::begin(kCubeV), std::end(kCubeV));
  for (double x : {0.5, 0.25}) v.insert(v.end(), {x, x, 0.5});
  moreau::mesh::TriMesh m;
  m.vert = v;
  m.face = moreau::mesh::convex_hull(v);
  EXPECT_EQ(m.face.size() % 3, 0u);
  for (int f : m.face) EXPECT_LT(f, 8);  // interior points are not on the hull
  const auto mp = moreau::mesh::mass_properties(m);
  EXPECT_NEAR(mp.volume, 1, 1e-12);
  EXPECT_THROW(moreau::mesh::convex_hull({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}), std::runtime_error);  // flat
}

TEST(Mesh, ReadsStlAsciiBinaryAndObj) {
  const fs::path dir = fs::temp_directory_path() / "moreau_mesh_test";
  fs::create_directories(dir);
  const auto c = cube();
  {  // ASCII STL
    std::ofstream f(dir / "cube_ascii.stl");
    f << "solid cube\n";
    for (size_t t = 0; t < c.face.size(); t += 3) {
      f << "facet normal 0 0 0\nouter loop\n";
      for (int k = 0; k < 3; ++k) {
        const double* p = &c.vert[3 * c.face[t + k]];
        f << "vertex " << p[0] << " " << p[1] << " " << p[2] << "\n";
      }
      f << "endloop\nendfacet\n";
    }
    f << "endsolid cube\n";
  }
  {  // binary STL
    std::ofstream f(dir / "cube_bin.STL", std::ios::binary);
    char header[80] = {0};
    f.write(header, 80);
    const uint32_t n = static_cast<uint32_t>(c.face.size() / 3);
    f.write(reinterpret_cast<const char*>(&n), 4);
    for (size_t t = 0; t < c.face.size(); t += 3) {
      float rec[12] = {0};
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j) rec[3 + 3 * k + j] = static_cast<float>(c.vert[3 * c.face[t + k] + j]);
      f.write(reinterpret_cast<const char*>(rec), 48);
      const uint16_t attr = 0;
      f.write(reinterpret_cast<const char*>(&attr), 2);
    }
  }
  {  // OBJ with quads (triangulated as fans) and v/vt/vn indices
    std::ofstream f(dir / "cube.obj");
    for (size_t i = 0; i < 8; ++i) f << "v " << c.vert[3 * i] << " " << c.vert[3 * i + 1] << " " << c.vert[3 * i + 2] << "\n";
    f << "f 1/1/1 4/1/1 3/1/1 2/1/1\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 2 3 7 6\nf 1 5 8 4\n";
  }
  for (const char* name : {"cube_ascii.stl", "cube_bin.STL", "cube.obj"}) {
    const auto m = moreau::mesh::read_mesh_file((dir / name).string());
    // STL corners merged (8 vertices); OBJ faces get one vertex per corner as in 2.2.2 (36)
    EXPECT_EQ(m.vert.size(), std::string(name) == "cube.obj" ? 108u : 24u) << name;
    EXPECT_EQ(m.face.size(), 36u) << name;
    EXPECT_NEAR(moreau::mesh::mass_properties(m).volume, 1, 1e-6) << name;
  }
  EXPECT_THROW(moreau::mesh::read_mesh_file((dir / "missing.stl").string()), std::runtime_error);
  std::ofstream(dir / "bad.ply") << "ply\n";
  EXPECT_THROW(moreau::mesh::read_mesh_file((dir / "bad.ply").string()), std::runtime_error);

  // in a model: meshdir is relative to the model file; the body gets the mesh's mass and frame
  std::ofstream(dir / "model.xml") << "<mujoco>\n<compiler meshdir=\".\"/>\n<asset>\n<mesh file=\"cube.obj\" scale=\"2 2 2\"/>\n"
                                      "</asset>\n<worldbody>\n<body>\n<freejoint/>\n<geom type=\"mesh\" mesh=\"cube\"/>\n"
                                      "</body>\n</worldbody>\n</mujoco>\n";
  const moreau::Model mo = moreau::load_model((dir / "model.xml").string());
  EXPECT_NEAR(mo.body_mass[1], 8000, 1e-6);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mo.body_ipos[3 + k], 1, 1e-7);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mo.body_inertia[3 + k], 8000.0 * 8 / 12, 1e-4);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mo.geom_size[k], 1, 1e-7);
  // a mesh file that cannot be read names the <mesh> element
  std::ofstream(dir / "model2.xml") << "<mujoco>\n<asset>\n<mesh file=\"nothere.stl\"/>\n</asset>\n</mujoco>\n";
  try {
    moreau::load_model((dir / "model2.xml").string());
    ADD_FAILURE() << "no error";
  } catch (const moreau::LoadError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.element(), "mesh");
    EXPECT_NE(std::string(e.what()).find("cannot open mesh file"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Mesh, LegacyInertiaIsTheEquivalentBox) {
  // MuJoCo 2.2.2 gives a mesh the volume and inertia of the box with its principal moments per
  // unit mass: exact for a box, larger than the true volume for a tetrahedron.
  const moreau::Model m = moreau::load_model_from_string(R"(<mujoco><asset>
    <mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>
    <worldbody><body><geom type="mesh" mesh="tet"/></body></worldbody></mujoco>)");
  // unit density moments (1/60, 1/96, 1/96), V = 1/6 -> box half sizes a^2 = 3(I2+I3-I1)/(2V)...
  const double V = 1.0 / 6, I1 = 1.0 / 60, I2 = 1.0 / 96;
  const double a2 = 1.5 * (2 * I2 - I1) / V, b2 = 1.5 * I1 / V;
  const double vbox = 8 * std::sqrt(a2 * b2 * b2);
  EXPECT_NEAR(m.body_mass[1], 1000 * vbox, 1e-6);
  EXPECT_NEAR(m.body_inertia[3], 1000 * I1 * vbox / V, 1e-6);
  EXPECT_NEAR(m.body_inertia[4], 1000 * I2 * vbox / V, 1e-6);
}

TEST(Mesh, NonConvexMeshInertiaMatchesMuJoCo222) {
  // A U-shaped prism (3 x 2 x 1, a 1 x 1 notch): not star-shaped from its centre, so 2.2.2's
  // absolute-volume tetrahedra differ from the exact solid (true volume 5, com y 0.9). Expected
  // values: MuJoCo 2.2.2 on this very model (mj_loadXML, density 1); 1e-7 relative because 2.2.2
  // works from single-precision vertices.
  const moreau::Model m = moreau::load_model_from_string(R"(<mujoco><asset><mesh name="U"
    vertex="0 0 0 3 0 0 3 2 0 2 2 0 2 1 0 1 1 0 1 2 0 0 2 0 0 0 1 3 0 1 3 2 1 2 2 1 2 1 1 1 1 1 1 2 1 0 2 1"
    face="1 3 2 1 4 3 0 6 5 0 7 6 0 4 1 0 5 4 9 10 11 9 11 12 8 13 14 8 14 15 8 9 12 8 12 13 0 1 9 0 9 8
          1 2 10 1 10 9 2 3 11 2 11 10 3 4 12 3 12 11 4 5 13 4 13 12 5 6 14 5 14 13 6 7 15 6 15 14 7 0 8 7 8 15"/>
    </asset><worldbody><body><freejoint/><geom type="mesh" mesh="U" density="1"/></body></worldbody></mujoco>)");
  auto rel = [](double a, double b) { return std::fabs(a - b) / std::fabs(b); };
  EXPECT_LT(rel(m.body_mass[1], 5.8678497773114167), 1e-7);
  const double inertia[3] = {6.524238804024507, 5.1429977612451419, 2.3131936574955314};
  for (int k = 0; k < 3; ++k) EXPECT_LT(rel(m.body_inertia[3 + k], inertia[k]), 1e-7) << k;
  const double ipos[3] = {1.5000000006474432, 0.95454546747440339, 0.50000000812790624};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(m.body_ipos[3 + k], ipos[k], 1e-7) << k;
  // the winding does not matter (absolute volumes): the same mesh with every face reversed
  moreau::mesh::TriMesh u;
  const double v[] = {0, 0, 0, 3, 0, 0, 3, 2, 0, 2, 2, 0, 2, 1, 0, 1, 1, 0, 1, 2, 0, 0, 2, 0};
  for (int z = 0; z < 2; ++z)
    for (int i = 0; i < 8; ++i) u.vert.insert(u.vert.end(), {v[3 * i], v[3 * i + 1], double(z)});
  const int faces[] = {1, 3, 2, 1, 4, 3, 0, 6, 5, 0, 7, 6, 0, 4, 1, 0, 5, 4, 9, 10, 11, 9, 11, 12, 8, 13, 14, 8,
                       14, 15, 8, 9, 12, 8, 12, 13, 0, 1, 9, 0, 9, 8, 1, 2, 10, 1, 10, 9, 2, 3, 11, 2, 11, 10,
                       3, 4, 12, 3, 12, 11, 4, 5, 13, 4, 13, 12, 5, 6, 14, 5, 14, 13, 6, 7, 15, 6, 15, 14, 7, 0, 8, 7, 8, 15};
  u.face.assign(std::begin(faces), std::end(faces));
  const auto a = moreau::mesh::legacy_mass_properties(u);
  for (size_t f = 0; f < u.face.size(); f += 3) std::swap(u.face[f + 1], u.face[f + 2]);
  const auto b = moreau::mesh::legacy_mass_properties(u);
  EXPECT_DOUBLE_EQ(a.volume, b.volume);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(a.inertia[k], b.inertia[k], 1e-12);
  // and the exact solid is different: 2.2.2's rule is not the true mass distribution here
  EXPECT_NEAR(std::fabs(moreau::mesh::mass_properties(u).volume), 5, 1e-12);  // faces reversed: -5
  EXPECT_GT(a.volume, 5.1);
}

TEST(Mesh, LegacyMassPropertiesEqualExactForConvexMeshes) {
  auto c = cube();
  for (double& x : c.vert) x = 2 * x + 0.5;
  const auto e = moreau::mesh::mass_properties(c), l = moreau::mesh::legacy_mass_properties(c);
  EXPECT_NEAR(l.volume, e.volume, 1e-12);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(l.com[k], e.com[k], 1e-12);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(l.inertia[k], e.inertia[k], 1e-12);
}

// Height fields from PNG files. Expected data: MuJoCo 2.2.2's hfield_data for the same files.
const unsigned char kRgbPng[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x08, 0x02, 0x00, 0x00, 0x00, 0x3b, 0x96, 0x39, 0x91, 0x00, 0x00, 0x00, 0x30, 0x49, 0x44, 0x41, 0x54, 0x08, 0x99, 0x63, 0xe0, 0x4a, 0x61, 0x3d, 0xc1, 0x6e, 0x24, 0x77, 0x62, 0x9a, 0x06, 0xef, 0x2f, 0x96, 0x0f, 0xff, 0x7f, 0x3b, 0x7d, 0x96, 0xd6, 0x60, 0x37, 0xda, 0x55, 0xaf, 0xce, 0x18, 0xe5, 0xa0, 0xc3, 0xf5, 0x80, 0x9b, 0xeb, 0x03, 0x37, 0xd7, 0x8f, 0x7c, 0x00, 0x17, 0x68, 0x0e, 0x51, 0x56, 0xa6, 0xfc, 0xe9, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};  // 4 x 3 RGB; red rows 10 200 30 40 / 250 60 70 0 / 90 100 110 120
const unsigned char kGray16Png[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x10, 0x00, 0x00, 0x00, 0x00, 0xc1, 0x0f, 0x2d, 0x59, 0x00, 0x00, 0x00, 0x24, 0x49, 0x44, 0x41, 0x54, 0x08, 0x99, 0x63, 0x66, 0x7e, 0x21, 0x24, 0x22, 0xf5, 0x44, 0x71, 0x0b, 0xa3, 0x53, 0x86, 0xc0, 0x02, 0xfe, 0x05, 0x02, 0x0b, 0x18, 0x1b, 0x5e, 0x08, 0x2c, 0x10, 0x58, 0xc0, 0xbf, 0x00, 0x00, 0x74, 0x54, 0x09, 0x1a, 0xb6, 0xcf, 0x48, 0xf6, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};  // 4 x 3 gray, 16-bit, 1000 + 4000 i

TEST(Mesh, HeightFieldFromPngMatchesMuJoCo222) {
  const fs::path dir = fs::temp_directory_path() / "moreau_hfield_png_test";
  fs::create_directories(dir / "assets");
  std::ofstream(dir / "assets" / "rgb.png", std::ios::binary).write(reinterpret_cast<const char*>(kRgbPng), sizeof(kRgbPng));
  std::ofstream(dir / "assets" / "g16.png", std::ios::binary).write(reinterpret_cast<const char*>(kGray16Png), sizeof(kGray16Png));
  // files are found through meshdir, as 2.2.2 does
  std::ofstream(dir / "model.xml") << R"(<mujoco><compiler meshdir="assets"/><asset>
    <hfield name="a" file="rgb.png" size="1 2 3 0.1"/><hfield name="b" file="g16.png" size="1 1 1 1"/></asset>
    <worldbody><geom type="hfield" hfield="a"/><geom type="hfield" hfield="b" pos="3 0 0"/></worldbody></mujoco>)";
  const moreau::Model m = moreau::load_model((dir / "model.xml").string());
  ASSERT_EQ(m.nhfield, 2);
  EXPECT_EQ(m.hfield_nrow[0], 3);  // image height
  EXPECT_EQ(m.hfield_ncol[0], 4);  // image width
  ASSERT_EQ(m.nhfielddata, 24);
  // bottom image row first; red channel only; (v - min) / (max - min)
  const float rgb[12] = {0.360000014f, 0.400000006f, 0.439999998f, 0.479999989f, 1, 0.239999995f,
                         0.280000001f, 0, 0.0399999991f, 0.800000012f, 0.119999997f, 0.159999996f};
  // 16-bit samples keep their high byte
  const float g16[12] = {0.726744175f, 0.819767416f, 0.912790716f, 1, 0.366279066f, 0.459302336f,
                         0.54651165f, 0.639534891f, 0, 0.0930232555f, 0.186046511f, 0.273255825f};
  for (int i = 0; i < 12; ++i) {
    EXPECT_NEAR(m.hfield_data[i], rgb[i], 1e-7) << i;
    EXPECT_NEAR(m.hfield_data[12 + i], g16[i], 1e-7) << i;
  }
  // the same pixels Adam7-interlaced, and a file that is not a PNG
  std::vector<unsigned char> px(36);
  const unsigned char red[12] = {10, 200, 30, 40, 250, 60, 70, 0, 90, 100, 110, 120};
  for (int i = 0; i < 12; ++i) px[3 * i] = red[i], px[3 * i + 1] = 7 * i, px[3 * i + 2] = 255 - i;
  std::ofstream(dir / "assets" / "rgbi.png", std::ios::binary) << moreau::testing::rgb_png(4, 3, px, true);
  std::ofstream(dir / "assets" / "bad.png", std::ios::binary) << "not a png";
  std::ofstream(dir / "model3.xml") << R"(<mujoco><compiler meshdir="assets"/><asset>
    <hfield name="a" file="rgbi.png" size="1 2 3 0.1"/></asset><worldbody><geom type="hfield" hfield="a"/></worldbody></mujoco>)";
  const moreau::Model mi = moreau::load_model((dir / "model3.xml").string());
  ASSERT_EQ(mi.nhfielddata, 12);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(mi.hfield_data[i], m.hfield_data[i]) << i;
  std::ofstream(dir / "model4.xml") << R"(<mujoco><compiler meshdir="assets"/><asset>
    <hfield name="a" file="bad.png" size="1 2 3 0.1"/></asset></mujoco>)";
  try {
    moreau::load_model((dir / "model4.xml").string());
    ADD_FAILURE() << "a file that is not a PNG loaded";
  } catch (const moreau::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("height field file"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is not a PNG file"), std::string::npos) << e.what();
  }
  // 2.2.2 rejects a height field given both from a file and by nrow/ncol
  std::ofstream(dir / "model2.xml") << R"(<mujoco><compiler meshdir="assets"/><asset>
    <hfield name="a" file="rgb.png" nrow="3" ncol="4" size="1 2 3 0.1"/></asset></mujoco>)";
  EXPECT_THROW(moreau::load_model((dir / "model2.xml").string()), moreau::LoadError);
  fs::remove_all(dir);
}

}  // namespace

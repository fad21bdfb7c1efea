// Mesh reading, convex hull and mass properties (src/mesh), and mesh geoms in the loader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mesh/mesh.h"
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
    EXPECT_EQ(m.vert.size(), 24u) << name;  // STL corners merged
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

}  // namespace

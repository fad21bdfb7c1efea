// Meshes and height fields, hand-built cases with known answers: penetration depth, normal and
// point for deep, touching, separated-within-margin and separated placements, and degenerate ones.
//
// Tolerances: MPR (libccd) stops when the portal lies within mpr_tolerance (1e-6) of the
// Minkowski surface, so depths are asserted to 1e-6 (2e-6 where two surfaces are curved). Its
// contact point is a barycentric combination over the final portal, exact on flat faces but only
// within ~1e-4 of the axis through the true point on curved ones, and not midway between the
// surfaces along it (it lies inside the overlap); the normal of a sphere is then recomputed at that
// point (as 2.2.2 does), hence normals to 2e-3 and points to 2e-4 across the normal in the sphere
// cases. Mesh-plane contacts are computed directly from the vertices: 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

// A unit cube mesh (half size 0.5), its vertices only: the faces are its convex hull.
const char* kCube = "<mesh name=\"cube\" vertex=\"-.5 -.5 -.5  .5 -.5 -.5  -.5 .5 -.5  .5 .5 -.5  "
                    "-.5 -.5 .5  .5 -.5 .5  -.5 .5 .5  .5 .5 .5\"/>";

struct Scene {
  Model m;
  Data d;
  explicit Scene(const std::string& xml) : m(load_model_from_string(xml)), d(make_data(m)) {}
  // Places free body b (0-based among the free joints) at pos with orientation quat.
  void place(int b, double x, double y, double z, double qw = 1, double qx = 0, double qy = 0, double qz = 0) {
    double* q = &d.qpos[m.jnt_qposadr[b]];
    q[0] = x; q[1] = y; q[2] = z;
    const double n = std::sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
    q[3] = qw / n; q[4] = qx / n; q[5] = qy / n; q[6] = qz / n;
  }
  void run() { forward(m, d); }
};

std::string model(const std::string& assets, const std::string& world, double margin = 0) {
  return "<mujoco><option gravity=\"0 0 0\"/><default><geom margin=\"" + std::to_string(margin) +
         "\"/></default><asset>" + assets + "</asset><worldbody>" + world + "</worldbody></mujoco>";
}

// ------------------------------------------------------------------------------ mesh - plane

TEST(CollisionMesh, PlaneCubeFaceDown) {
  // Cube resting on its face, 0.1 below the plane: contacts at three of the bottom corners, each
  // 0.1 deep, midway between the corner and the plane, normal the plane's.
  Scene s(model(kCube, "<geom type=\"plane\" size=\"1 1 .1\"/><body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>"));
  s.place(0, 0, 0, 0.4);
  s.run();
  ASSERT_EQ(s.d.ncon, 3);  // 2.2.2 gives three vertex contacts for a face (collide_mesh.cc)
  for (int i = 0; i < 3; ++i) {
    const Contact& c = s.d.contact[i];
    EXPECT_NEAR(c.dist, -0.1, 1e-12);
    EXPECT_NEAR(std::fabs(c.pos[0]), 0.5, 1e-12);
    EXPECT_NEAR(std::fabs(c.pos[1]), 0.5, 1e-12);
    EXPECT_NEAR(c.pos[2], -0.05, 1e-12);
    EXPECT_NEAR(c.frame[2], 1, 1e-12);
  }
}

TEST(CollisionMesh, PlaneCubeOnCorner) {
  // Cube standing on a corner (body diagonal vertical), the corner 0.02 below the plane: one
  // contact at that corner; its neighbours are 1/sqrt(3) higher, beyond the margin.
  Scene s(model(kCube, "<geom type=\"plane\" size=\"1 1 .1\"/><body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>"));
  // rotate (1,1,1)/sqrt(3) onto -z: about axis (1,-1,0)/sqrt(2) by pi - atan(sqrt(2))
  const double a = M_PI - std::atan(std::sqrt(2.0));
  const double h = std::sqrt(3.0) / 2;  // centre to corner
  s.place(0, 0, 0, h - 0.02, std::cos(a / 2), std::sin(a / 2) / std::sqrt(2.0), -std::sin(a / 2) / std::sqrt(2.0), 0);
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  EXPECT_NEAR(s.d.contact[0].dist, -0.02, 1e-12);
  EXPECT_NEAR(s.d.contact[0].pos[0], 0, 1e-12);
  EXPECT_NEAR(s.d.contact[0].pos[1], 0, 1e-12);
  EXPECT_NEAR(s.d.contact[0].pos[2], -0.01, 1e-12);
}

TEST(CollisionMesh, PlaneCubeTouchingWithinMarginAndSeparated) {
  const std::string world = "<geom type=\"plane\" size=\"1 1 .1\"/><body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>";
  {  // exactly touching: contacts at distance 0
    Scene s(model(kCube, world));
    s.place(0, 0, 0, 0.5);
    s.run();
    ASSERT_EQ(s.d.ncon, 3);
    EXPECT_NEAR(s.d.contact[0].dist, 0, 1e-12);
  }
  {  // 0.03 above the plane, margin 0.05: contacts at distance +0.03
    Scene s(model(kCube, world, 0.05));
    s.place(0, 0, 0, 0.53);
    s.run();
    ASSERT_EQ(s.d.ncon, 3);
    EXPECT_NEAR(s.d.contact[0].dist, 0.03, 1e-12);
    EXPECT_NEAR(s.d.contact[0].pos[2], 0.015, 1e-12);
  }
  {  // 0.06 above, margin 0.05: none
    Scene s(model(kCube, world, 0.05));
    s.place(0, 0, 0, 0.56);
    s.run();
    EXPECT_EQ(s.d.ncon, 0);
  }
}

// A plate (half sizes 0.5, 0.5, 0.05) tipped 80 degrees about the horizontal diagonal (1,-1,0): its
// corner A = (-.5,-.5,-.05) is deepest and its neighbour across the thickness, B = (-.5,-.5,.05), lies
// 0.1 cos(80) higher and 0.1 sin(80) to the side; every other vertex is above the plane at the depths
// used. 2.2.2 keeps B only when it is farther than 0.3 rbound (rbound = |(.5,.5,.05)|) from the
// first contact's position, the midpoint of A and the plane (collide_mesh.cc): at depth 0.1 B is
// 0.104 from it (one contact), at depth 0.5 0.253 (two). Both counts are 2.2.2's for this scene.
TEST(CollisionMesh, PlaneTippedPlateNeighbourFromFirstContact) {
  const char* plate = "<mesh name=\"plate\" vertex=\"-.5 -.5 -.05  .5 -.5 -.05  -.5 .5 -.05  .5 .5 -.05  "
                      "-.5 -.5 .05  .5 -.5 .05  -.5 .5 .05  .5 .5 .05\"/>";
  const double phi = 80 * M_PI / 180, c = std::cos(phi), sn = std::sin(phi), r2 = std::sqrt(0.5);
  // rotation about u = (1,-1,0)/sqrt(2): w = (1,1,0)/sqrt(2) -> c w + s e_z, e_z -> c e_z - s w
  auto turned = [&](const double* v, double* out) {
    const double vw = (v[0] + v[1]) * r2, vu = (v[0] - v[1]) * r2, vz = v[2];
    const double nw = c * vw - sn * vz, nz = sn * vw + c * vz;
    out[0] = (nw + vu) * r2;
    out[1] = (nw - vu) * r2;
    out[2] = nz;
  };
  // the mesh's vertices are stored in single precision (as 2.2.2's mesh_vert) and 0.05 is not a
  // float: positions and depths agree to a few float ulps of 0.5, not to 1e-12
  const double kTol = 1e-8;
  const double a[3] = {-.5, -.5, -.05}, b[3] = {-.5, -.5, .05};
  double ra[3], rb[3];
  turned(a, ra);
  turned(b, rb);
  for (double depth : {0.1, 0.5}) {
    Scene s(model(plate, "<geom type=\"plane\" size=\"1 1 .1\"/><body><freejoint/><geom type=\"mesh\" mesh=\"plate\"/></body>"));
    const double z = -depth - ra[2];  // body height that puts A at -depth
    s.place(0, 0, 0, z, std::cos(phi / 2), std::sin(phi / 2) * r2, -std::sin(phi / 2) * r2, 0);
    s.run();
    ASSERT_EQ(s.d.ncon, depth < 0.3 ? 1 : 2) << "depth " << depth;
    const Contact& ca = s.d.contact[0];
    EXPECT_NEAR(ca.dist, -depth, kTol);
    EXPECT_NEAR(ca.pos[0], ra[0], kTol);
    EXPECT_NEAR(ca.pos[1], ra[1], kTol);
    EXPECT_NEAR(ca.pos[2], -depth / 2, kTol);
    EXPECT_NEAR(ca.frame[2], 1, kTol);
    if (s.d.ncon < 2) continue;
    const Contact& cb = s.d.contact[1];
    const double db = rb[2] + z;  // B's height: -depth + 0.1 cos(80)
    EXPECT_NEAR(db, -depth + 0.1 * c, kTol);
    EXPECT_NEAR(cb.dist, db, kTol);
    EXPECT_NEAR(cb.pos[0], rb[0], kTol);
    EXPECT_NEAR(cb.pos[1], rb[1], kTol);
    EXPECT_NEAR(cb.pos[2], db / 2, kTol);
  }
}

// ------------------------------------------------------------------------------ mesh - convex (MPR)

TEST(CollisionMesh, SphereOnCubeFace) {
  // Sphere r = 0.2 over the top face, 0.05 deep: dist -0.05, normal from the sphere (geom1) down
  // into the cube, point midway between the two surfaces (z = 0.5 - 0.025).
  Scene s(model(kCube, "<body><freejoint/><geom type=\"sphere\" size=\".2\"/></body>"
                       "<body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>"));
  s.place(0, 0.1, -0.05, 0.65);
  s.place(1, 0, 0, 0);
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_EQ(s.m.geom_type[c.geom1], kGeomSphere);
  EXPECT_NEAR(c.dist, -0.05, 1e-6);
  EXPECT_NEAR(c.frame[2], -1, 2e-3);
  EXPECT_NEAR(c.pos[0], 0.1, 2e-4);
  EXPECT_NEAR(c.pos[1], -0.05, 2e-4);
  // within the overlap (sphere bottom 0.45, face 0.5); not midway: libccd's point combines the
  // portal's support points (0.4643 here; 2.2.2 reports the same point)
  EXPECT_GT(c.pos[2], 0.45);
  EXPECT_LT(c.pos[2], 0.5);
}

TEST(CollisionMesh, SphereNearCubeWithinMarginAndSeparated) {
  const std::string world = "<body><freejoint/><geom type=\"sphere\" size=\".2\"/></body>"
                            "<body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>";
  {  // 0.03 gap, margin 0.05: contact at distance +0.03
    Scene s(model(kCube, world, 0.05));
    s.place(0, 0, 0, 0.73);
    s.place(1, 0, 0, 0);
    s.run();
    ASSERT_EQ(s.d.ncon, 1);
    EXPECT_NEAR(s.d.contact[0].dist, 0.03, 1e-6);
  }
  {  // 0.06 gap, margin 0.05: none
    Scene s(model(kCube, world, 0.05));
    s.place(0, 0, 0, 0.76);
    s.place(1, 0, 0, 0);
    s.run();
    EXPECT_EQ(s.d.ncon, 0);
  }
}

TEST(CollisionMesh, BoxAndMeshCubeFaceToFace) {
  // Box and mesh of the same size, stacked with 0.1 overlap: flat faces, so MPR's answer is exact.
  Scene s(model(kCube, "<body><freejoint/><geom type=\"box\" size=\".5 .5 .5\"/></body>"
                       "<body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>"));
  s.place(0, 0, 0, 0);
  s.place(1, 0.2, 0.1, 0.9);
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_NEAR(c.dist, -0.1, 1e-9);
  EXPECT_NEAR(c.frame[2], 1, 1e-9);  // from the box (geom1) up to the mesh
  EXPECT_NEAR(c.pos[2], 0.45, 1e-9);
}

TEST(CollisionMesh, MeshMeshDeepAndDegenerate) {
  const std::string world = "<body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>"
                            "<body><freejoint/><geom type=\"mesh\" mesh=\"cube\"/></body>";
  {  // side by side, 0.3 overlap along x: dist -0.3, normal +x
    Scene s(model(kCube, world));
    s.place(0, 0, 0, 0);
    s.place(1, 0.7, 0.05, 0.02);
    s.run();
    ASSERT_EQ(s.d.ncon, 1);
    EXPECT_NEAR(s.d.contact[0].dist, -0.3, 1e-9);
    EXPECT_NEAR(s.d.contact[0].frame[0], 1, 1e-9);
  }
  {  // coincident: a contact as deep as the cube is wide, with a unit normal along an axis
    Scene s(model(kCube, world));
    s.place(0, 0, 0, 0);
    s.place(1, 0, 0, 0);
    s.run();
    ASSERT_EQ(s.d.ncon, 1);
    const Contact& c = s.d.contact[0];
    EXPECT_NEAR(c.dist, -1, 1e-9);
    EXPECT_NEAR(std::fabs(c.frame[0]) + std::fabs(c.frame[1]) + std::fabs(c.frame[2]), 1, 1e-9);
  }
}

// ------------------------------------------------------------------------------ height field

// A 2x2-sample field (one cell, two prisms) of size 1 x 1, top at z = 0 (flat data), 0.5 deep.
const char* kFlatField = "<hfield name=\"h\" nrow=\"2\" ncol=\"2\" size=\"1 1 .5 .5\" elevation=\"0 0 0 0\"/>";

TEST(CollisionHField, SphereOnFlatField) {
  // Sphere r = 0.1 over the interior of a prism, 0.02 deep: dist -0.02, normal up.
  Scene s(model(kFlatField, "<geom type=\"hfield\" hfield=\"h\"/><body><freejoint/><geom type=\"sphere\" size=\".1\"/></body>"));
  s.place(0, 0.3, -0.3, 0.08);
  s.run();
  ASSERT_EQ(s.d.ncon, 1);
  const Contact& c = s.d.contact[0];
  EXPECT_NEAR(c.dist, -0.02, 1e-6);
  EXPECT_NEAR(c.frame[2], 1, 2e-3);
  EXPECT_NEAR(c.pos[0], 0.3, 2e-4);
  EXPECT_GT(c.pos[2], -0.02);  // within the overlap (see SphereOnCubeFace)
  EXPECT_LT(c.pos[2], 0);
}

TEST(CollisionHField, MarginBiasAndSeparation) {
  // As 2.2.2: a prism's top is raised by the margin m and the geom inflated by m/2, and the contact
  // distance is minus MPR's depth, so a contact reports (true distance - 1.5 m): a 0.03 gap with
  // m = 0.05 gives -0.045 (2.2.2: -0.0449999), a 0.02 overlap -0.095; a gap above 1.5 m, none.
  const std::string world = "<geom type=\"hfield\" hfield=\"h\"/><body><freejoint/><geom type=\"sphere\" size=\".1\"/></body>";
  for (const auto& [z, dist] : {std::pair{0.13, -0.045}, std::pair{0.08, -0.095}}) {
    Scene s(model(kFlatField, world, 0.05));
    s.place(0, 0.3, -0.3, z);
    s.run();
    ASSERT_EQ(s.d.ncon, 1) << z;
    EXPECT_NEAR(s.d.contact[0].dist, dist, 1e-6) << z;
  }
  Scene s(model(kFlatField, world, 0.05));
  s.place(0, 0.3, -0.3, 0.2);
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

TEST(CollisionHField, BoxOverSeveralPrismsGivesSeveralContacts) {
  // A 5x5-sample sloped field (z = 0.1 x): a box lying across several cells touches several
  // prisms, each a contact; every contact normal points from the field (geom1) to the box, up.
  Scene s(model("<hfield name=\"h\" nrow=\"5\" ncol=\"5\" size=\"1 1 .2 .5\" elevation=\""
                "0 .25 .5 .75 1  0 .25 .5 .75 1  0 .25 .5 .75 1  0 .25 .5 .75 1  0 .25 .5 .75 1\"/>",
                "<geom type=\"hfield\" hfield=\"h\"/><body><freejoint/><geom type=\"box\" size=\".4 .4 .05\"/></body>"));
  s.place(0, 0, 0, 0.1);  // the field is at 0.1 under the box centre; the box bottom at 0.05
  s.run();
  EXPECT_GT(s.d.ncon, 2);
  EXPECT_LE(s.d.ncon, kMaxContactsPerPair);
  for (int i = 0; i < s.d.ncon; ++i) {
    EXPECT_EQ(s.m.geom_type[s.d.contact[i].geom1], kGeomHField);
    EXPECT_GT(s.d.contact[i].frame[2], 0) << i;
    EXPECT_LT(s.d.contact[i].dist, 0) << i;
  }
}

TEST(CollisionHField, UprightCylinderAgainstTheFieldsSideWall) {
  // An upright cylinder (r 0.1, half height 0.2) pushed d into the field's vertical side wall at
  // x = 1 (the prism {(0,0), (1,1), (1,0)} of the single cell; its wall spans z in [-0.5, 0]): one
  // contact, depth d, normal +x (field to cylinder; radial for the cylinder, whose contact line lies
  // beside its wall). With margin m only the cylinder is inflated along the wall (by m/2; the
  // prism's top, not its wall, is raised by m): -d - m/2. 2.2.2 gives -0.019999999999,
  // -0.049999999999 and -0.069999996533 here. (The prism support's choice between top and bottom
  // corners for near-horizontal directions, convex.cc, is checked against 2.2.2 by the
  // differential HFieldExact test, not here: this scene's MPR ends the same either way.)
  // Tolerances: depth to MPR's 1e-6; the point lies within the overlap (see SphereOnCubeFace),
  // within 1e-3 of the contact line in y, and the radial normal is then within 1e-2 of +x.
  const std::string world = "<geom type=\"hfield\" hfield=\"h\"/><body><freejoint/><geom type=\"cylinder\" size=\".1 .2\"/></body>";
  for (const auto& [d, m] : {std::pair{0.02, 0.0}, std::pair{0.05, 0.0}, std::pair{0.02, 0.1}}) {
    Scene s(model(kFlatField, world, m));
    s.place(0, 1 + 0.1 - d, 0.3, -0.25);
    s.run();
    ASSERT_EQ(s.d.ncon, 1) << d << " " << m;
    const Contact& c = s.d.contact[0];
    EXPECT_NEAR(c.dist, -d - m / 2, 1e-6) << d << " " << m;
    EXPECT_NEAR(c.frame[0], 1, 1e-4);
    EXPECT_NEAR(c.frame[1], 0, 1e-2);
    EXPECT_NEAR(c.frame[2], 0, 1e-12);  // radial to a vertical axis
    EXPECT_GE(c.pos[0], 1 - d - m / 2 - 1e-9);
    EXPECT_LE(c.pos[0], 1 + 1e-9);
    EXPECT_NEAR(c.pos[1], 0.3, 1e-3);
    EXPECT_GT(c.pos[2], -0.45);
    EXPECT_LT(c.pos[2], -0.05);
  }
}

TEST(CollisionHField, FarAboveNoContact) {
  Scene s(model(kFlatField, "<geom type=\"hfield\" hfield=\"h\"/><body><freejoint/><geom type=\"box\" size=\".1 .1 .1\"/></body>"));
  s.place(0, 0, 0, 1);
  s.run();
  EXPECT_EQ(s.d.ncon, 0);
}

}  // namespace
}  // namespace moreau

// Bad MJCF input: every class of error gives one LoadError naming file, line, element and the
// expectation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "moreau/moreau.h"

namespace {

using moreau::LoadError;

// Loads `xml` (named "model.xml") and returns the LoadError it throws.
LoadError load_error(const std::string& xml) {
  try {
    moreau::load_model_from_string(xml, "model.xml");
  } catch (const LoadError& e) {
    return e;
  }
  ADD_FAILURE() << "no LoadError for:\n" << xml;
  return LoadError("", 0, "", "");
}

void expect_error(const std::string& xml, int line, const std::string& element, const std::string& needle) {
  const LoadError e = load_error(xml);
  EXPECT_EQ(e.file(), "model.xml") << e.what();
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.element(), element) << e.what();
  EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "'" << needle << "' not in: " << e.what();
  EXPECT_EQ(std::string(e.what()).rfind("model.xml:" + std::to_string(line) + ": <" + element + ">: ", 0), 0u)
      << e.what();
}

TEST(LoaderErrors, MalformedXml) {
  // the unclosed element is named where tinyxml2 knows it
  expect_error("<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>", 3, "body",
               "malformed XML: the element is not closed where its parent ends");
  expect_error("<mujoco>\n<worldbody>\n<geom size=\"1\" size=\"2\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "malformed XML: an attribute is malformed or repeated");
  expect_error("<mujoco>\n<worldbody\n</mujoco>\n", 2, "xml", "malformed XML: not well-formed XML");
}

TEST(LoaderErrors, RootMustBeMujoco) { expect_error("<robot/>", 1, "robot", "root element must be <mujoco>"); }

TEST(LoaderErrors, UnknownElement) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n<gizmo/>\n</body>\n</worldbody>\n</mujoco>", 4, "gizmo",
               "unknown element <gizmo> in <body>");
  expect_error("<mujoco>\n<frobnicate/>\n</mujoco>", 2, "frobnicate", "unknown element <frobnicate>");
}

TEST(LoaderErrors, UnknownAttribute) {
  expect_error("<mujoco>\n<worldbody>\n<geom size=\"1\" colour=\"red\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "unknown attribute 'colour'");
  expect_error("<mujoco>\n<worldbody>\n<body gravity=\"1\"/>\n</worldbody>\n</mujoco>", 3, "body",
               "unknown attribute 'gravity'");
  // visual-only assets are checked against 2.2.2's schema too
  expect_error("<mujoco>\n<asset>\n<texture name=\"t\" builtin=\"flat\" width=\"8\" height=\"8\" nchannel=\"3\"/>\n"
               "</asset>\n</mujoco>",
               3, "texture", "unknown attribute 'nchannel'");
  expect_error("<mujoco>\n<asset>\n<material name=\"m\" metallic=\"1\"/>\n</asset>\n</mujoco>", 3, "material",
               "unknown attribute 'metallic'");
  expect_error("<mujoco>\n<compiler>\n<lengthrange inteval=\"1\" intstep=\"2\"/>\n</compiler>\n</mujoco>", 3,
               "lengthrange", "unknown attribute 'intstep'");
}

TEST(LoaderErrors, WrongNumberOfValues) {
  expect_error(
      "<mujoco>\n<worldbody>\n<body>\n<joint range=\"0 1 2\" limited=\"true\"/>\n<geom size=\"1\"/>\n</body>\n"
      "</worldbody>\n</mujoco>",
      4, "joint", "attribute 'range' expects 2 numbers, got 3");
  expect_error("<mujoco>\n<worldbody>\n<geom size=\"1 2 3 4\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "attribute 'size' expects 1 to 3 numbers, got 4");
}

TEST(LoaderErrors, UnparsableNumber) {
  expect_error("<mujoco>\n<option timestep=\"0.0o1\"/>\n</mujoco>", 2, "option", "attribute 'timestep'");
  expect_error("<mujoco>\n<worldbody>\n<geom size=\"abc\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "cannot parse 'abc'");
  expect_error("<mujoco>\n<size nkey=\"1.5\"/>\n</mujoco>", 2, "size", "expects integers");
}

TEST(LoaderErrors, InvalidKeyword) {
  expect_error("<mujoco>\n<option integrator=\"leapfrog\"/>\n</mujoco>", 2, "option",
               "attribute 'integrator' expects one of 'Euler', 'RK4', 'implicit', 'implicitfast', 'implicitcon', got 'leapfrog'");
  expect_error("<mujoco>\n<worldbody>\n<geom type=\"blob\" size=\"1\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "attribute 'type' expects one of");
  expect_error("<mujoco>\n<compiler angle=\"gradian\"/>\n</mujoco>", 2, "compiler", "attribute 'angle'");
}

TEST(LoaderErrors, UndefinedReference) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n"
               "<actuator>\n<motor joint=\"elbow\"/>\n</actuator>\n</mujoco>",
               9, "motor", "attribute 'joint' refers to undefined joint 'elbow'");
  expect_error("<mujoco>\n<worldbody>\n<geom class=\"nope\" size=\"1\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "unknown default class 'nope'");
}

TEST(LoaderErrors, DuplicateName) {
  expect_error("<mujoco>\n<worldbody>\n<geom name=\"a\" size=\"1\"/>\n<geom name=\"a\" size=\"1\"/>\n"
               "</worldbody>\n</mujoco>",
               4, "geom", "duplicate geom name 'a'");
  expect_error("<mujoco>\n<default>\n<default class=\"x\"/>\n<default class=\"x\"/>\n</default>\n</mujoco>", 4,
               "default", "duplicate default class 'x'");
}

TEST(LoaderErrors, MissingFile) {
  try {
    moreau::load_model("/nonexistent/dir/model.xml");
    FAIL() << "no error";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/dir/model.xml");
    EXPECT_NE(std::string(e.what()).find("cannot open file"), std::string::npos);
  }
  expect_error("<mujoco>\n<include file=\"missing_part.xml\"/>\n</mujoco>", 2, "include",
               "cannot open file 'missing_part.xml'");
}

TEST(LoaderErrors, MissingMeshFile) {
  expect_error("<mujoco>\n<compiler meshdir=\"nowhere\"/>\n<asset>\n<mesh file=\"part.stl\"/>\n</asset>\n</mujoco>", 4,
               "mesh", "nowhere/part.stl");
}

TEST(LoaderErrors, ImpossibleInertia) {
  // a moving body without mass (2.2.2: "mass and inertia of moving bodies must be larger than
  // mjMINVAL"), unless a direct static child carries it
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<body><site/></body>\n</body>\n</worldbody>\n</mujoco>", 3,
               "body", "mass and inertia of a moving body must be larger than 1e-15");
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"0 1 1\"/>\n"
               "</body>\n</worldbody>\n</mujoco>",
               3, "body", "mass and inertia of a moving body");
  EXPECT_NO_THROW(moreau::load_model_from_string(
      "<mujoco><worldbody><body><joint/><body><geom size=\"1\"/></body></body></worldbody></mujoco>"));
  // planes and height fields only in bodies welded to the world (2.2.2)
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size=\"1\"/>\n<geom type=\"plane\" size=\"1 1 1\"/>\n"
               "</body>\n</worldbody>\n</mujoco>",
               6, "geom", "plane and hfield geoms are only allowed in static bodies");
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<inertial pos=\"0 0 0\" mass=\"-1\" diaginertia=\"1 1 1\"/>\n"
               "</body>\n</worldbody>\n</mujoco>",
               5, "inertial", "mass must be non-negative");
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 3\"/>\n"
               "</body>\n</worldbody>\n</mujoco>",
               5, "inertial", "triangle inequality");
  expect_error("<mujoco>\n<worldbody>\n<geom type=\"sphere\" size=\"0\"/>\n</worldbody>\n</mujoco>", 3, "geom",
               "must be positive");
}

TEST(LoaderErrors, RangeWithoutLimited) {
  // MuJoCo 2.2.2: a range without 'limited' is an error unless autolimits is on.
  expect_error("<mujoco>\n<worldbody>\n<body>\n<joint range=\"0 1\"/>\n<geom size=\"1\"/>\n</body>\n</worldbody>\n</mujoco>",
               4, "joint", "'range' is given but 'limited' is not");
  EXPECT_NO_THROW(moreau::load_model_from_string(
      "<mujoco><compiler autolimits=\"true\"/><worldbody><body><joint range=\"0 1\"/><geom size=\"1\"/></body>"
      "</worldbody></mujoco>"));
}

TEST(LoaderErrors, CompositeNotSupported) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n<composite type=\"ellipsoid\" count=\"2 2 2\"/>\n</body>\n</worldbody>\n</mujoco>",
               4, "composite", "composite type 'ellipsoid' is not supported yet");
}

TEST(LoaderErrors, ErrorInsideIncludedFile) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "moreau_loader_include_error";
  fs::create_directories(dir);
  std::ofstream(dir / "main.xml") << "<mujoco>\n  <include file=\"part.xml\"/>\n</mujoco>\n";
  std::ofstream(dir / "part.xml") << "<mujoco>\n  <worldbody>\n\n    <geom size=\"1\" bogus=\"2\"/>\n  </worldbody>\n</mujoco>\n";
  try {
    moreau::load_model((dir / "main.xml").string());
    FAIL() << "no error";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.file(), (dir / "part.xml").string());
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.element(), "geom");
    EXPECT_NE(std::string(e.what()).find("unknown attribute 'bogus'"), std::string::npos) << e.what();
  }
  // malformed XML in the included file
  std::ofstream(dir / "part.xml") << "<mujoco>\n<worldbody>\n</mujoco>\n";
  try {
    moreau::load_model((dir / "main.xml").string());
    FAIL() << "no error";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.file(), (dir / "part.xml").string()) << e.what();
  }
  fs::remove_all(dir);
}

// A chain of `n` jointless bodies written as a main file and included parts of `per_part` bodies
// each (tinyxml2 refuses more than 100 levels in one file, so deep models span files); returns the
// main file's text and puts the parts in `assets`.
std::string chain_over_includes(int n, int per_part, moreau::AssetMap& assets) {
  std::string main;
  for (int part = 0; part * per_part < n; ++part) {
    std::string text;
    const int end = std::min(n, (part + 1) * per_part);
    for (int i = part * per_part; i < end; ++i) text += "<body pos=\"0 0 0.1\"><geom size=\"0.01\"/>\n";
    if (end < n) text += "<include file=\"part" + std::to_string(part + 1) + ".xml\"/>\n";
    for (int i = part * per_part; i < end; ++i) text += "</body>";
    if (part == 0) main = "<mujoco><worldbody>\n" + text + "\n</worldbody></mujoco>\n";
    else assets["part" + std::to_string(part) + ".xml"] = "<mujoco>\n" + text + "\n</mujoco>\n";
  }
  return main;
}

// Elements may nest up to 2000 levels across included files: a chain of 1000 bodies loads (its
// bodies in order, each one level below the last); 2100 levels are refused in the file and on
// the line where the limit is crossed.
TEST(LoaderErrors, DeepNestingOverIncludes) {
  moreau::AssetMap assets;
  const std::string xml = chain_over_includes(1000, 40, assets);
  const moreau::Model m = moreau::load_model_from_string(xml, assets, "main.xml");
  ASSERT_EQ(m.nbody, 1001);
  for (int b = 1; b < m.nbody; ++b) {
    ASSERT_EQ(m.body_parentid[b], b - 1) << b;
    ASSERT_EQ(m.body_pos[3 * b + 2], 0.1) << b;
  }

  moreau::AssetMap deep_assets;
  const std::string deep = chain_over_includes(2100, 40, deep_assets);
  try {
    moreau::load_model_from_string(deep, deep_assets, "main.xml");
    FAIL() << "no error for 2100 levels";
  } catch (const LoadError& e) {
    // <mujoco> is level 0 and <worldbody> 1; body i (0-based) of part p is at level 2 + i + p
    // (each include adds one level) and its geom one below: the geom of body 1950, on line 32 of
    // part48.xml, is the first element past level 2000.
    EXPECT_EQ(e.file(), "part48.xml") << e.what();
    EXPECT_EQ(e.line(), 32) << e.what();
    EXPECT_EQ(e.element(), "geom") << e.what();
    EXPECT_NE(std::string(e.what()).find("elements nested too deeply"), std::string::npos) << e.what();
  }
}

// A model whose constraint rows cannot be indexed, with no <size> element: the error points at
// <mujoco>. A 200 x 200 grid's tendon rows may each touch all of its 120000 dofs.
TEST(LoaderErrors, StorageProblemWithoutSizeNamesTheRoot) {
  expect_error("<mujoco>\n<worldbody>\n<body>\n<composite type=\"grid\" count=\"200 200 1\" spacing=\"0.01\">"
               "<geom size=\"0.001\"/></composite>\n</body>\n</worldbody>\n</mujoco>",
               1, "mujoco", "the model's contacts and constraint rows cannot be stored: ");
}

}  // namespace

// multiccd (2.2.2's multi-point convex collision) is implemented: the flag sets and clears the bit.
TEST(LoaderErrors, MulticcdLoads) {
  const moreau::Model on =
      moreau::load_model_from_string("<mujoco><option><flag multiccd=\"enable\"/></option></mujoco>");
  EXPECT_NE(on.opt.enableflags & moreau::kEnblMulticcd, 0);
  const moreau::Model off =
      moreau::load_model_from_string("<mujoco><option><flag multiccd=\"disable\"/></option></mujoco>");
  EXPECT_EQ(off.opt.enableflags & moreau::kEnblMulticcd, 0);
}

// <frame> (newer than 2.2.2, loaded: tests/mjcf/loader_frame_test.cc): bad attributes, misplaced
// frames, and what the MJCF reference leaves open are refused with the frame's or child's line.
TEST(LoaderErrors, FrameErrors) {
  const std::string head = "<mujoco>\n<worldbody>\n";
  const std::string tail = "\n</worldbody>\n</mujoco>";
  // attributes: name, childclass, pos, quat, axisangle, xyaxes, zaxis, euler only
  expect_error(head + "<frame size=\"1\">\n<geom size=\"1\"/>\n</frame>" + tail, 3, "frame",
               "unknown attribute 'size'");
  expect_error(head + "<frame class=\"a\"/>" + tail, 3, "frame", "unknown attribute 'class'");
  expect_error(head + "<frame pos=\"1 0\"/>" + tail, 3, "frame", "attribute 'pos'");
  expect_error(head + "<frame quat=\"1 0 0 0\" euler=\"0 0 1\"/>" + tail, 3, "frame",
               "orientation specified more than once");
  expect_error(head + "<frame quat=\"0 0 0 0\"/>" + tail, 3, "frame", "non-zero quaternion");
  expect_error(head + "<frame childclass=\"nothere\"/>" + tail, 3, "frame", "unknown default class 'nothere'");
  // placement: only in worldbody, body and frame
  expect_error("<mujoco>\n<frame pos=\"1 0 0\"/>\n</mujoco>", 2, "frame",
               "element <frame> is only allowed inside <worldbody>, <body> or <frame>");
  expect_error("<mujoco>\n<default>\n<frame/>\n</default>\n</mujoco>", 3, "frame", "unknown element <frame> in <default>");
  // children: what a body may hold, less inertial and composite; in the world, no joints
  expect_error(head + "<body>\n<frame>\n<inertial mass=\"1\" diaginertia=\"1 1 1\"/>\n</frame>\n</body>" + tail, 5,
               "inertial", "element <inertial> inside a <frame> is not supported");
  expect_error(head + "<body>\n<frame>\n<composite type=\"particle\" count=\"2 2 2\" spacing=\"0.1\"/>\n</frame>\n</body>" +
                   tail,
               5, "composite", "element <composite> inside a <frame> is not supported");
  expect_error(head + "<frame>\n<frame pos=\"1 0 0\">\n<joint/>\n</frame>\n</frame>" + tail, 5, "joint",
               "element <joint> is not allowed in a <frame> of <worldbody>");
  expect_error(head + "<frame>\n<freejoint/>\n</frame>" + tail, 4, "freejoint",
               "element <freejoint> is not allowed in a <frame> of <worldbody>");
  expect_error(head + "<frame>\n<gizmo/>\n</frame>" + tail, 4, "gizmo", "unknown element <gizmo> in <frame>");
  // a child's own errors keep its line; fromto resolved in a turned frame keeps the geom's checks
  expect_error(head + "<frame euler=\"0 0 90\">\n<geom type=\"sphere\" size=\"1\" fromto=\"0 0 0 1 0 0\"/>\n</frame>" +
                   tail,
               4, "geom", "attribute 'fromto' is only allowed for capsule, cylinder, box and ellipsoid geoms");
  // frames are defined in local coordinates only
  expect_error("<mujoco>\n<compiler coordinate=\"global\"/>\n<worldbody>\n<frame/>\n</worldbody>\n</mujoco>", 4,
               "frame", "<frame> requires compiler coordinate=\"local\"");
}

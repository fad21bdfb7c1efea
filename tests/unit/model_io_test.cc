// Model input/output without MuJoCo: the binary format (round trip, bad input), the field list
// against include/moreau/model.h, loading with assets from a map, <size memory>, save_xml on
// small models.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "constraint/storage.h"
#include "io/model_fields.h"
#include "mjcf/spec.h"
#include "moreau/io.h"
#include "moreau/moreau.h"

namespace {

namespace fs = std::filesystem;
using moreau::LoadError;
using moreau::Model;

// A small model with a free body, hinges, a tendon, actuators, sensors, a keyframe and contacts.
const char* kModel = R"(<mujoco model="io">
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1"/>
      <site name="s"/></body>
    <body name="arm" pos="0.5 0 0.5">
      <joint name="j1" type="hinge" axis="0 1 0" limited="true" range="-60 60" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body pos="0.3 0 0"><joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="sphere" size="0.05" pos="0.2 0 0"/></body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="j1" coef="1"/><joint joint="j2" coef="-0.5"/></fixed></tendon>
  <actuator><motor joint="j1" gear="2" ctrllimited="true" ctrlrange="-1 1"/><position joint="j2" kp="5"/></actuator>
  <sensor><jointpos joint="j1"/><framepos objtype="site" objname="s"/></sensor>
  <keyframe><key qpos="0 0 0.5 1 0 0 0 0.2 -0.1" ctrl="0.5 0.1"/></keyframe>
</mujoco>)";

// Every listed field's name.
std::set<std::string> listed_fields() {
  std::set<std::string> names;
#define MOREAU_NAME_FIELD(name, count) names.insert(#name);
  MOREAU_MODEL_FIELDS(MOREAU_NAME_FIELD)
#undef MOREAU_NAME_FIELD
  return names;
}

std::vector<double> rollout(const Model& m, int steps) {
  moreau::Data d = moreau::make_data(m);
  moreau::reset_data_keyframe(m, d, 0);
  std::vector<double> out;
  for (int i = 0; i < steps; ++i) {
    moreau::step(m, d);
    out.insert(out.end(), d.qpos.begin(), d.qpos.end());
    out.insert(out.end(), d.qvel.begin(), d.qvel.end());
  }
  return out;
}

// Every std::vector member of struct Model in include/moreau/model.h is in the binary format's
// field list (a field added to Model without a line in src/io/model_fields.h fails here by name).
TEST(ModelIO, FieldListCoversEveryVectorOfModel) {
  std::ifstream in(std::string(MOREAU_SOURCE_DIR) + "/include/moreau/model.h");
  ASSERT_TRUE(in) << "cannot read include/moreau/model.h";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text = std::regex_replace(text, std::regex("//[^\n]*"), "");
  const auto begin = text.find("struct Model {");
  ASSERT_NE(begin, std::string::npos);
  const auto end = text.find("\n};", begin);
  const std::string body = text.substr(begin, end - begin);
  const std::set<std::string> listed = listed_fields();
  int vectors = 0;
  const std::regex decl(R"(std::vector<[^;]*?>\s+([^;]*);)");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), decl); it != std::sregex_iterator(); ++it) {
    std::stringstream names((*it)[1].str());
    std::string name;
    while (std::getline(names, name, ',')) {
      name = std::regex_replace(name, std::regex(R"(\s|=.*)"), "");
      if (name.empty()) continue;
      ++vectors;
      EXPECT_TRUE(listed.count(name)) << "Model::" << name
                                      << " is missing from MOREAU_MODEL_FIELDS (src/io/model_fields.h)";
    }
  }
  EXPECT_GT(vectors, 200);  // the parse found the declarations (model.h has over 200)
}

TEST(ModelIO, BinaryRoundTripIsBitwise) {
  const Model m = moreau::load_model_from_string(kModel);
  const std::string bytes = moreau::save_model_to_string(m);
  const Model r = moreau::load_model_binary_from_string(bytes);
  EXPECT_EQ(moreau::save_model_to_string(r), bytes);
  EXPECT_EQ(r.nq, 9);
  EXPECT_EQ(r.body_mass, m.body_mass);
  EXPECT_EQ(r.geom_names, m.geom_names);
  EXPECT_EQ(std::memcmp(r.opt.gravity, m.opt.gravity, sizeof m.opt.gravity), 0);
  EXPECT_EQ(r.dof_invweight0, m.dof_invweight0);
  EXPECT_EQ(rollout(r, 200), rollout(m, 200));  // bitwise
  // through a file
  const fs::path path = fs::temp_directory_path() / "moreau_model_io_test.mrb";
  moreau::save_model(m, path.string());
  EXPECT_EQ(moreau::save_model_to_string(moreau::load_model_binary(path.string())), bytes);
  fs::remove(path);
}

// The message of the LoadError that f throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelIO, BadBinaryInputIsALoadErrorNamingWhatWasExpected) {
  const std::string bytes = moreau::save_model_to_string(moreau::load_model_from_string(kModel));
  // truncated anywhere: header, a field, the end
  for (size_t n : {size_t(0), size_t(5), size_t(12), bytes.size() / 2, bytes.size() - 1}) {
    const std::string e = error_of([&] { moreau::load_model_binary_from_string(bytes.substr(0, n), "cut.mrb"); });
    EXPECT_NE(e.find("cut.mrb"), std::string::npos) << n << ": " << e;
    EXPECT_TRUE(e.find("truncated") != std::string::npos || e.find("magic") != std::string::npos) << n << ": " << e;
  }
  // foreign file
  std::string e = error_of([&] { moreau::load_model_binary_from_string("<mujoco/>", "model.xml"); });
  EXPECT_NE(e.find("model.xml"), std::string::npos) << e;
  EXPECT_NE(e.find("expected the magic 'MOREAUBM'"), std::string::npos) << e;
  // another version
  std::string v = bytes;
  v[8] = 99;
  e = error_of([&] { moreau::load_model_binary_from_string(v, "v.mrb"); });
  EXPECT_NE(e.find("version 99, expected version 3"), std::string::npos) << e;
  // a flipped byte in the fields
  std::string c = bytes;
  c[c.size() / 2] ^= 0x40;
  e = error_of([&] { moreau::load_model_binary_from_string(c, "c.mrb"); });
  EXPECT_NE(e.find("checksum"), std::string::npos) << e;
  // missing file
  e = error_of([&] { moreau::load_model_binary("/nonexistent/m.mrb"); });
  EXPECT_NE(e.find("/nonexistent/m.mrb"), std::string::npos) << e;
}

// 4 x 3 RGB PNG (tests/mjcf/mesh_test.cc has its MuJoCo 2.2.2 hfield_data).
const unsigned char kRgbPng[] = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x08, 0x02, 0x00, 0x00, 0x00, 0x3b, 0x96, 0x39, 0x91, 0x00, 0x00, 0x00, 0x30, 0x49, 0x44, 0x41, 0x54, 0x08, 0x99, 0x63, 0xe0, 0x4a, 0x61, 0x3d, 0xc1, 0x6e, 0x24, 0x77, 0x62, 0x9a, 0x06, 0xef, 0x2f, 0x96, 0x0f, 0xff, 0x7f, 0x3b, 0x7d, 0x96, 0xd6, 0x60, 0x37, 0xda, 0x55, 0xaf, 0xce, 0x18, 0xe5, 0xa0, 0xc3, 0xf5, 0x80, 0x9b, 0xeb, 0x03, 0x37, 0xd7, 0x8f, 0x7c, 0x00, 0x17, 0x68, 0x0e, 0x51, 0x56, 0xa6, 0xfc, 0xe9, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

const char* kObj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 5\nf 2 5 4\nf 3 4 5\n";

// A model that reads an included file, a mesh and a PNG height field through meshdir.
const char* kAssetModel = R"(<mujoco>
  <compiler meshdir="assets"/>
  <include file="parts/asset.xml"/>
  <worldbody>
    <geom type="hfield" hfield="terrain"/>
    <body pos="0 0 1"><freejoint/><geom type="mesh" mesh="rock"/></body>
  </worldbody>
</mujoco>)";
const char* kIncluded = R"(<mujoco><asset>
  <mesh name="rock" file="rock.obj" scale="0.1 0.1 0.1"/>
  <hfield name="terrain" file="terrain.png" size="1 1 0.2 0.1"/>
</asset></mujoco>)";

TEST(ModelIO, AssetsFromAMapGiveTheModelFromDisk) {
  const fs::path dir = fs::temp_directory_path() / "moreau_model_io_assets";
  fs::create_directories(dir / "assets");
  fs::create_directories(dir / "parts");
  const std::string png(reinterpret_cast<const char*>(kRgbPng), sizeof kRgbPng);
  std::ofstream(dir / "model.xml") << kAssetModel;
  std::ofstream(dir / "parts" / "asset.xml") << kIncluded;
  std::ofstream(dir / "assets" / "rock.obj") << kObj;
  std::ofstream(dir / "assets" / "terrain.png", std::ios::binary) << png;
  const Model disk = moreau::load_model((dir / "model.xml").string());
  fs::remove_all(dir);
  ASSERT_EQ(disk.nmesh, 1);
  ASSERT_EQ(disk.nhfielddata, 12);
  const std::string want = moreau::save_model_to_string(disk);
  // the model_file differs (it names the model's path): compare with it set to the same
  auto same = [&](Model m) {
    m.model_file = disk.model_file;
    return moreau::save_model_to_string(m) == want;
  };
  const std::string path = (dir / "model.xml").string();
  // by the resolved path, by the path relative to the model's folder, by the base name
  EXPECT_TRUE(same(moreau::load_model_from_string(
      kAssetModel, {{(dir / "parts/asset.xml").string(), kIncluded}, {(dir / "assets/rock.obj").string(), kObj},
                    {(dir / "assets/terrain.png").string(), png}}, path)));
  EXPECT_TRUE(same(moreau::load_model_from_string(
      kAssetModel, {{"parts/asset.xml", kIncluded}, {"assets/rock.obj", kObj}, {"assets/terrain.png", png}}, path)));
  EXPECT_TRUE(same(moreau::load_model_from_string(
      kAssetModel, {{"asset.xml", kIncluded}, {"rock.obj", kObj}, {"terrain.png", png}}, path)));
  // a model with no folder
  EXPECT_TRUE(same(moreau::load_model_from_string(
      kAssetModel, {{"asset.xml", kIncluded}, {"rock.obj", kObj}, {"terrain.png", png}})));
  // load_model(path, assets): the model file itself may come from the map too
  EXPECT_TRUE(same(moreau::load_model(
      path, {{"model.xml", kAssetModel}, {"asset.xml", kIncluded}, {"rock.obj", kObj}, {"terrain.png", png}})));
  // a missing asset names the file, the element and the map
  const std::string e = error_of([&] {
    moreau::load_model_from_string(kAssetModel, {{"asset.xml", kIncluded}, {"terrain.png", png}}, path);
  });
  EXPECT_NE(e.find("rock.obj"), std::string::npos) << e;
  EXPECT_NE(e.find("not in the asset map of 2 files either"), std::string::npos) << e;
  const std::string e2 = error_of([&] { moreau::load_model_from_string(kAssetModel, moreau::AssetMap{}, path); });
  EXPECT_NE(e2.find(":3: <include>: cannot open file"), std::string::npos) << e2;
  EXPECT_NE(e2.find("parts/asset.xml"), std::string::npos) << e2;
}

TEST(ModelIO, SizeMemorySetsTheCapacity) {
  auto with = [](const std::string& memory) {
    return moreau::load_model_from_string("<mujoco>\n<size memory=\"" + memory +
                                          "\"/><worldbody><geom size='1'/></worldbody></mujoco>");
  };
  EXPECT_EQ(with("1M").memory, 1 << 20);
  EXPECT_EQ(with("512k").memory, 512 << 10);
  // large values parse (a load would size Data for them: the parser alone)
  auto parsed = [](const std::string& memory) {
    return moreau::mjcf::parse_spec(moreau::mjcf::read_xml_string("<mujoco><size memory=\"" + memory + "\"/></mujoco>", "m.xml")).memory;
  };
  EXPECT_EQ(parsed("2G"), 2ll << 30);
  EXPECT_EQ(parsed("3g"), 3ll << 30);
  EXPECT_EQ(parsed("1T"), 1ll << 40);
  EXPECT_EQ(with("1000").memory, 1000);
  EXPECT_EQ(with("-1").memory, -1);
  EXPECT_EQ(moreau::load_model_from_string(kModel).memory, -1);
  // the contact capacity: as many contacts as fit in the bytes with 6 rows of nv + 16 doubles
  // each (src/constraint/storage.cc); nv = 0 here
  const Model one = with("1M");
  const moreau::Data d = moreau::make_data(one);
  const long long per_contact = static_cast<long long>(sizeof(moreau::Contact)) + 6 * 8 * 16;
  EXPECT_EQ(static_cast<long long>(d.contact.size()), (1 << 20) / per_contact);
  EXPECT_GT(d.contact.size(), 100u);  // more than the default rule's 100 for one geom
  EXPECT_EQ(moreau::make_data(with("100")).contact.size(), 1u);  // at least one
  for (const char* bad : {"1X", "1MB", "M", "", "-2", "1.5M", "99999999999T"}) {
    const std::string e = error_of([&] { with(bad); });
    EXPECT_NE(e.find(":2: <size>: attribute 'memory' expects a byte count"), std::string::npos) << bad << ": " << e;
  }
}

// A free sphere (nv = 6, condim 3: 4 pyramidal rows per contact) with one <size> attribute.
std::string sphere_with(const std::string& size_attr) {
  return "<mujoco>\n<size " + size_attr +
         "/>\n<worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>";
}

// The loader's capacity rules are make_data's: contacts from memory/nconmax, rows from njmax or
// from the contacts, each allocated by make_data exactly as constraint::contact_capacity and
// row_capacity say.
TEST(ModelIO, SizeCapacityRulesAreMakeDatas) {
  for (const char* attr : {"memory=\"1M\"", "nconmax=\"37\"", "njmax=\"50\"", "nconmax=\"-1\""}) {
    const Model m = moreau::load_model_from_string(sphere_with(attr));
    const moreau::Data d = moreau::make_data(m);
    const long long ncon = moreau::constraint::contact_capacity(m);
    EXPECT_EQ(static_cast<long long>(d.contact.size()), ncon) << attr;
    EXPECT_EQ(static_cast<long long>(d.efc_type.size()), moreau::constraint::row_capacity(m, ncon)) << attr;
  }
  const Model m = moreau::load_model_from_string(sphere_with("memory=\"1M\""));
  const long long per_contact = static_cast<long long>(sizeof(moreau::Contact)) + 6 * 8 * (6 + 16);
  EXPECT_EQ(moreau::constraint::memory_per_contact(m), per_contact);
  EXPECT_EQ(moreau::constraint::contact_capacity(m), (1 << 20) / per_contact);
  EXPECT_EQ(moreau::constraint::row_capacity(m, 1000), 4000);  // 4 pyramidal rows per condim-3 contact
}

// <size> values whose contacts or rows Moreau cannot index (int) or this machine cannot hold are
// a LoadError at <size> naming the attribute, what it asks for and the largest value accepted,
// before any Data is made (memory="1T" used to end in std::bad_alloc).
TEST(ModelIO, SizeBeyondWhatCanBeHonouredIsALoadError) {
  const long long per_contact = static_cast<long long>(sizeof(moreau::Contact)) + 6 * 8 * (6 + 16);
  const long long contacts = (1ll << 40) / per_contact;  // under the 2^30 clamp
  ASSERT_LT(contacts, 1ll << 30);
  const std::string e = error_of([&] { moreau::load_model_from_string(sphere_with("memory=\"1T\""), "m.xml"); });
  EXPECT_NE(e.find("m.xml:2: <size>: attribute 'memory' = '1T' asks for " + std::to_string(contacts) +
                   " contacts with " + std::to_string(4 * contacts) +
                   " constraint rows, more than the 2147483647 rows that Moreau indexes; for this model 'memory' "
                   "accepts -1 or at most "),
            std::string::npos)
      << e;
  // the largest memory accepted: its contacts fit, one byte more is a contact more and is refused
  const std::smatch most = [&] {
    std::smatch r;
    std::regex_search(e, r, std::regex("at most ([0-9]+) bytes \\(" + std::to_string(per_contact) + " per contact\\)"));
    return r;
  }();
  ASSERT_EQ(most.size(), 2u) << e;
  const long long limit = std::stoll(most[1]);
  const Model probe = moreau::load_model_from_string(sphere_with("memory=\"1M\""));
  const long long ok = limit / per_contact;
  EXPECT_EQ((limit + 1) / per_contact, ok + 1);
  EXPECT_EQ(moreau::constraint::arena_problem(probe, ok, moreau::constraint::row_capacity(probe, ok), 0), "");
  const std::string next = error_of(
      [&] { moreau::load_model_from_string(sphere_with("memory=\"" + std::to_string(limit + 1) + "\""), "m.xml"); });
  EXPECT_NE(next.find("m.xml:2: <size>: attribute 'memory' = '" + std::to_string(limit + 1) + "' asks for " +
                      std::to_string(ok + 1) + " contacts"),
            std::string::npos)
      << next;

  const std::string c = error_of([&] { moreau::load_model_from_string(sphere_with("nconmax=\"2000000000\""), "m.xml"); });
  EXPECT_NE(c.find("m.xml:2: <size>: attribute 'nconmax' = '2000000000' asks for 2000000000 contacts with 8000000000 "
                   "constraint rows, more than the 2147483647 rows that Moreau indexes; for this model 'nconmax' "
                   "accepts -1 or at most "),
            std::string::npos)
      << c;
  // njmax rows: each row of the free body's 6 dofs has up to 6 Jacobian entries
  const std::string j = error_of([&] { moreau::load_model_from_string(sphere_with("njmax=\"2000000000\""), "m.xml"); });
  EXPECT_NE(j.find("m.xml:2: <size>: attribute 'njmax' = '2000000000' asks for 2000000000 constraint rows with up to "
                   "12000000000 Jacobian entries, more than the 2147483647 that Moreau indexes; for this model "
                   "'njmax' accepts -1 or at most "),
            std::string::npos)
      << j;
  for (const char* bad : {"1e30", "-2", "2.5", "3000000000"}) {
    const std::string n = error_of([&] { moreau::load_model_from_string(sphere_with(std::string("nstack=\"") + bad + "\""), "m.xml"); });
    EXPECT_NE(n.find("m.xml:2: <size>: attribute 'nstack' expects -1 or a whole number from 0 to 2147483647, got '" +
                     std::string(bad) + "'"),
              std::string::npos)
        << bad << ": " << n;
  }
  EXPECT_EQ(moreau::load_model_from_string(sphere_with("nstack=\"1000000\"")).nstack, 1000000);
}

}  // namespace

namespace {

// The bytes of the binary image with model_file cleared (it names the path a model came from).
std::string image(Model m) {
  m.model_file.clear();
  return moreau::save_model_to_string(m);
}

// save_xml of a model with a free body, limits, a tendon, actuators, sensors, a keyframe, size
// memory and names needing escapes reloads to a bitwise equal Model (the binary images are equal).
TEST(ModelIO, SaveXmlReloadsBitwiseEqual) {
  std::string xml = kModel;
  xml.replace(xml.find("<option"), 0, "<size memory=\"1M\"/>\n  ");
  xml.replace(xml.find("name=\"box\""), 10, "name=\"a&amp;b &lt;c&gt; &quot;d&quot;\"");
  const Model m = moreau::load_model_from_string(xml);
  ASSERT_EQ(m.body_names[1], "a&b <c> \"d\"");
  ASSERT_EQ(m.memory, 1 << 20);
  const std::string saved = moreau::save_xml_to_string(m);
  const Model r = moreau::load_model_from_string(saved);
  EXPECT_EQ(image(r), image(m));
  EXPECT_EQ(r.body_names[1], m.body_names[1]);
  EXPECT_EQ(r.memory, 1 << 20);
  EXPECT_EQ(rollout(r, 200), rollout(m, 200));
  // through a file; saving the reloaded model gives the same text
  const fs::path path = fs::temp_directory_path() / "moreau_model_io_test.xml";
  moreau::save_xml(m, path.string());
  EXPECT_EQ(image(moreau::load_model(path.string())), image(m));
  fs::remove(path);
  EXPECT_EQ(moreau::save_xml_to_string(r), saved);
}

// Meshes: an asymmetric hexahedron given with faces, a mirroring scale, refpos and refquat, and
// one whose faces are its convex hull, on geoms turned in their bodies. save_xml writes each mesh
// from its source and each mesh geom in its own frame, so the reloaded Model is bitwise the
// original (the mesh recompiles to the same inertial frame, vertices and hull graph) and so is a
// rollout of the falling bodies.
const char* kMeshModel = R"(<mujoco>
  <asset>
    <mesh name="wedge" vertex="0 0 0  1.3 0 0  0 0.7 0  0.2 0.1 0.9  1.1 0.6 0.8  0.3 0.9 0.4"
          face="0 2 1  0 1 3  1 4 3  1 2 4  2 5 4  2 0 5  0 3 5  3 4 5"
          scale="0.3 -0.2 0.25" refpos="0.1 0.05 -0.02" refquat="0.9 0.1 -0.2 0.3"/>
    <mesh name="hull" vertex="0.1 0 0  -0.08 0.03 0  0 0.11 0.02  0.01 -0.02 0.13  0.04 0.05 -0.07  -0.03 -0.06 -0.05"/>
  </asset>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.4" euler="10 20 30"><freejoint/>
      <geom type="mesh" mesh="wedge" pos="0.01 0.02 0.03" axisangle="1 2 3 0.7"/></body>
    <body pos="0.5 0 0.3"><freejoint/>
      <geom type="mesh" mesh="hull" quat="0.3 0.2 0.1 0.9"/>
      <geom type="mesh" mesh="wedge" pos="0 0 0.1" xyaxes="0 1 0 -1 0 0"/></body>
  </worldbody>
  <keyframe><key qvel="0.5 0 0 1 2 3  0 -0.4 0 0 3 1"/></keyframe>
</mujoco>)";

TEST(ModelIO, SaveXmlWritesMeshesFromTheirSource) {
  const Model m = moreau::load_model_from_string(kMeshModel);
  ASSERT_EQ(m.nmesh, 2);
  EXPECT_EQ(m.mesh_hullface[0], 0);
  EXPECT_EQ(m.mesh_hullface[1], 1);
  const std::string saved = moreau::save_xml_to_string(m);
  EXPECT_NE(saved.find("refquat=\"0.90000000000000002 0.10000000000000001 -0.20000000000000001 0.29999999999999999\""),
            std::string::npos)
      << saved;
  const Model r = moreau::load_model_from_string(saved);
  EXPECT_EQ(image(r), image(m));
  EXPECT_EQ(rollout(r, 200), rollout(m, 200));
  EXPECT_EQ(moreau::save_xml_to_string(r), saved);
}

// A Model changed after loading is saved as it is, not from a source it no longer matches: a
// moved mesh geom (its frame taken back through the mesh's inertial frame) and a changed mesh
// vertex (the mesh in its compiled frame, recentred on reload) reload to the change, to rounding.
TEST(ModelIO, SaveXmlWritesAChangedMeshAsChanged) {
  Model m = moreau::load_model_from_string(kMeshModel);
  m.geom_pos[3 * 1 + 0] += 0.25;
  Model r = moreau::load_model_from_string(moreau::save_xml_to_string(m));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.geom_pos[3 * 1 + k], m.geom_pos[3 * 1 + k], 1e-15) << k;
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(r.geom_quat[4 * 1 + k], m.geom_quat[4 * 1 + k], 1e-15) << k;
  EXPECT_EQ(r.mesh_vert, m.mesh_vert);  // the mesh itself is unchanged: written from its source

  m = moreau::load_model_from_string(kMeshModel);
  const int v = m.mesh_vertadr[1];
  m.mesh_vert[3 * v] *= 1.5f;
  r = moreau::load_model_from_string(moreau::save_xml_to_string(m));
  // the changed vertex in the body frame of the geom using it (geom 2), before and after
  auto in_body = [](const Model& x, int g, int vert) {
    const float* p = &x.mesh_vert[3 * vert];
    double local[3] = {p[0], p[1], p[2]}, out[3];
    moreau::rot_vec_quat(out, local, &x.geom_quat[4 * g]);
    for (int k = 0; k < 3; ++k) out[k] += x.geom_pos[3 * g + k];
    return std::array<double, 3>{out[0], out[1], out[2]};
  };
  const auto a = in_body(m, 2, v), b = in_body(r, 2, r.mesh_vertadr[1]);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(a[k], b[k], 1e-7) << k;
}

// An unnamed object that another element refers to gets a generated name (a Model built or
// edited in code); the reloaded model refers to the same object.
TEST(ModelIO, SaveXmlNamesReferencedUnnamedObjects) {
  Model m = moreau::load_model_from_string(kModel);
  const int j1 = moreau::name2id(m, moreau::kObjJoint, "j1");
  ASSERT_GE(j1, 0);
  m.jnt_names[j1].clear();
  const Model r = moreau::load_model_from_string(moreau::save_xml_to_string(m));
  EXPECT_EQ(r.jnt_names[j1], "moreau_joint" + std::to_string(j1));
  EXPECT_EQ(r.actuator_trnid, m.actuator_trnid);
  EXPECT_EQ(r.wrap_objid, m.wrap_objid);
  EXPECT_EQ(r.sensor_objid, m.sensor_objid);
  Model rr = r;
  rr.jnt_names[j1].clear();
  EXPECT_EQ(image(rr), image(m));
}

}  // namespace

namespace {

// FNV-1a, as the format's checksum (src/io/binary.cc).
uint64_t fnv1a(const std::string& s, size_t from) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = from; i < s.size(); ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 1099511628211ull;
  }
  return h;
}

// An image edited with a valid checksum (a foreign writer's bug, or a crafted file) is still
// checked: array lengths against the sizes, address tables against their arrays.
TEST(ModelIO, BinaryChecksSizesAndAddressesBehindTheChecksum) {
  const std::string bytes = moreau::save_model_to_string(moreau::load_model_from_string(kModel));
  auto edit_int = [&](const std::string& field, int value) {
    const std::string key = std::string("\x00\x00\x00", 3) + field + '\x01';  // name, then the int32 tag
    size_t at = bytes.find(key);
    EXPECT_NE(at, std::string::npos) << field;
    std::string out = bytes;
    at += key.size() + 8;  // the element count, then the value
    std::memcpy(&out[at], &value, 4);
    const uint64_t h = fnv1a(out, 32);
    std::memcpy(&out[24], &h, 8);
    return out;
  };
  std::string e = error_of([&] { moreau::load_model_binary_from_string(edit_int("nq", 12), "e.mrb"); });
  EXPECT_NE(e.find("field 'qpos0': expected 12 elements for the model's sizes, found 9"), std::string::npos) << e;
  e = error_of([&] { moreau::load_model_binary_from_string(edit_int("body_jntadr", 50), "e.mrb"); });
  EXPECT_NE(e.find("body joints of body 0 lies outside its array"), std::string::npos) << e;
  // unchanged value: the edit itself is sound
  EXPECT_TRUE(error_of([&] { moreau::load_model_binary_from_string(edit_int("nq", 9), "e.mrb"); }).empty());
}

}  // namespace

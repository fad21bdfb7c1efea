// Every class of bad input through the command-line tool: `moreau info` exits 1 and
// prints {"error": "FILE:LINE: <ELEMENT>: message"} naming the file, the line and the element.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;

struct BadInput {
  const char* what;
  const char* xml;
  int line;
  const char* element;
  const char* message;
};

const BadInput kBadInputs[] = {
    {"malformed_xml", "<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>\n", 3, "body", "malformed XML"},
    {"unknown_element", "<mujoco>\n<worldbody>\n<gizmo/>\n</worldbody>\n</mujoco>\n", 3, "gizmo",
     "unknown element <gizmo> in <worldbody>"},
    {"unknown_attribute", "<mujoco>\n<worldbody>\n<geom size=\"1\" colour=\"red\"/>\n</worldbody>\n</mujoco>\n", 3, "geom",
     "unknown attribute 'colour'"},
    {"wrong_number_of_values", "<mujoco>\n<worldbody>\n<body pos=\"0 0\"/>\n</worldbody>\n</mujoco>\n", 3, "body",
     "attribute 'pos' expects 3 numbers, got 2"},
    {"bad_reference",
     "<mujoco>\n<worldbody>\n<body><joint/><geom size=\"1\"/></body>\n</worldbody>\n<actuator>\n<motor joint=\"elbow\"/>\n"
     "</actuator>\n</mujoco>\n",
     6, "motor", "attribute 'joint' refers to undefined joint 'elbow'"},
    {"missing_file", "<mujoco>\n<asset>\n<mesh file=\"no_such_mesh.stl\"/>\n</asset>\n</mujoco>\n", 3, "mesh",
     "no_such_mesh.stl"},
    {"missing_include", "<mujoco>\n<include file=\"no_such_part.xml\"/>\n</mujoco>\n", 2, "include",
     "cannot open file"},
    {"impossible_inertia",
     "<mujoco>\n<worldbody>\n<body>\n<joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 3\"/>\n</body>\n"
     "</worldbody>\n</mujoco>\n",
     5, "inertial", "triangle inequality"},
    {"massless_moving_body", "<mujoco>\n<worldbody>\n<body>\n<joint/>\n</body>\n</worldbody>\n</mujoco>\n", 3, "body",
     "mass and inertia of a moving body"},
    {"memory_too_large",
     "<mujoco>\n<size memory=\"1T\"/>\n<worldbody>\n<body><freejoint/><geom size=\"1\"/></body>\n</worldbody>\n"
     "</mujoco>\n",
     2, "size", "attribute 'memory' = '1T' asks for"},
    {"nconmax_too_large",
     "<mujoco>\n<size nconmax=\"2000000000\"/>\n<worldbody>\n<body><freejoint/><geom size=\"1\"/></body>\n"
     "</worldbody>\n</mujoco>\n",
     2, "size", "'nconmax' accepts -1 or at most"},
};

class LoaderCliErrors : public ::testing::TestWithParam<int> {};

TEST_P(LoaderCliErrors, InfoExitsWithTheLocatedError) {
  const BadInput& b = kBadInputs[GetParam()];
  const fs::path dir = fs::path(::testing::TempDir()) / ("moreau_cli_bad_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / (std::string(b.what) + ".xml")).string();
  std::ofstream(path) << b.xml;
  FILE* p = popen((std::string(MOREAU_CLI) + " info " + path + " 2>/dev/null").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 1) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_TRUE(j.contains("error")) << out;
  const std::string msg = j["error"];
  const std::string prefix = path + ":" + std::to_string(b.line) + ": <" + b.element + ">: ";
  EXPECT_EQ(msg.rfind(prefix, 0), 0u) << msg;
  EXPECT_NE(msg.find(b.message), std::string::npos) << msg;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(BadInputs, LoaderCliErrors,
                         ::testing::Range(0, static_cast<int>(sizeof(kBadInputs) / sizeof(kBadInputs[0]))),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(kBadInputs[i.param].what); });

}  // namespace

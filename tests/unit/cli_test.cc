// The command-line contract of `moreau` (README): scripts depend on these keys and exit codes
// (0 success, 1 model or input error, 2 bad command line).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using Json = nlohmann::json;

namespace {

struct Result {
  int status = -1;
  std::string out;
};

// Run `moreau ARGS` with `input` on stdin; capture stdout (stderr is discarded).
Result run_cli(const std::string& args, const std::string& input = "") {
  // One input file per test and process: ctest runs the tests in parallel.
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  static int counter = 0;
  const std::string in_path = testing::TempDir() + "moreau_cli_" + (info ? info->name() : "x") + "_" +
                              std::to_string(getpid()) + "_" + std::to_string(counter++) + ".jsonl";
  {
    std::ofstream f(in_path);
    f << input;
  }
  const std::string cmd = std::string(MOREAU_CLI) + " " + args + " < " + in_path + " 2>/dev/null";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// Run `program ARGS` (stdin empty) and capture stdout and stderr separately.
struct Output {
  int status = -1;
  std::string out, err;
};
Output run_program(const std::string& program, const std::string& args) {
  static int counter = 0;
  const std::string err_path =
      testing::TempDir() + "moreau_cli_err_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".txt";
  const std::string cmd = program + " " + args + " < /dev/null 2> " + err_path;
  Output r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream f(err_path);
  r.err.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  std::remove(err_path.c_str());
  return r;
}
Output run_cli_err(const std::string& args) { return run_program(MOREAU_CLI, args); }

std::vector<Json> lines(const std::string& out) {
  std::vector<Json> v;
  std::istringstream s(out);
  std::string line;
  while (std::getline(s, line))
    if (!line.empty()) v.push_back(Json::parse(line));
  return v;
}

const std::string kPendulum = std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml";
const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

}  // namespace

TEST(Cli, InfoPrintsSizes) {
  const Result r = run_cli("info " + kHumanoid);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 1u);
  // Sizes as MuJoCo 2.2.2 reports them for this model (nq = 7 + 19 hinges, nv = 6 + 19).
  EXPECT_EQ(v[0]["nq"], 26);
  EXPECT_EQ(v[0]["nv"], 25);
  EXPECT_EQ(v[0]["nu"], 8);
  EXPECT_EQ(v[0]["nbody"], 14);
  EXPECT_EQ(v[0]["njnt"], 20);
  EXPECT_EQ(v[0]["ngeom"], 15);
  EXPECT_EQ(v[0]["nkey"], 1);
}

TEST(Cli, InfoOnBadModelPrintsJsonErrorAndFails) {
  const std::string path = testing::TempDir() + "bad_model_" + std::to_string(getpid()) + ".xml";
  {
    std::ofstream f(path);
    f << "<mujoco>\n  <worldbody>\n    <body pos=\"0 0\"/>\n  </worldbody>\n</mujoco>\n";
  }
  const Result r = run_cli("info " + path);
  EXPECT_EQ(r.status, 1);
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 1u);
  ASSERT_TRUE(v[0].contains("error"));
  const std::string msg = v[0]["error"];
  EXPECT_NE(msg.find(".xml:3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad_model_"), std::string::npos) << msg;
  EXPECT_NE(msg.find("body"), std::string::npos) << msg;
}

TEST(Cli, InfoOnMissingFileFails) {
  const Result r = run_cli("info /nonexistent/model.xml");
  EXPECT_EQ(r.status, 1);
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].contains("error"));
}

TEST(Cli, ForwardOutputsEveryKeyWithModelSizes) {
  const Result r = run_cli("forward " + kPendulum + " --full",
                           "{}\n{\"qpos\": [0.3, -0.2], \"qvel\": [1.0, 2.0]}\n");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 2u);
  for (const auto& o : v) {
    for (const char* k : {"qacc", "qfrc_bias", "qfrc_passive", "qfrc_actuator", "qfrc_constraint"})
      EXPECT_EQ(o[k].size(), 2u) << k;
    EXPECT_EQ(o["xpos"].size(), 3u * 3);
    EXPECT_EQ(o["xquat"].size(), 4u * 3);
    EXPECT_EQ(o["energy"].size(), 2u);
    EXPECT_EQ(o["qM"].size(), 4u);
    EXPECT_TRUE(o.contains("ncon"));
    EXPECT_TRUE(o.contains("nefc"));
    EXPECT_TRUE(o.contains("contact_dist"));
    EXPECT_TRUE(o.contains("sensordata"));
    EXPECT_TRUE(o.contains("actuator_force"));
    EXPECT_TRUE(o.contains("efc_force"));
  }
  // At rest in the hanging configuration there is no motion: qacc = 0.
  EXPECT_NEAR(v[0]["qacc"][0].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(v[0]["qacc"][1].get<double>(), 0.0, 1e-12);
  // M is symmetric positive definite.
  const auto& M = v[1]["qM"];
  EXPECT_DOUBLE_EQ(M[1].get<double>(), M[2].get<double>());
  EXPECT_GT(M[0].get<double>(), 0);
}

TEST(Cli, ForwardReportsBadLinesAndContinues) {
  const Result r = run_cli("forward " + kPendulum, "{\"qpos\": [1, 2, 3]}\nnot json\n{\"bogus\": 1}\n{}\n");
  EXPECT_EQ(r.status, 1);
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_NE(v[0]["error"].get<std::string>().find("qpos"), std::string::npos);
  EXPECT_EQ(v[0]["line"], 1);
  EXPECT_TRUE(v[1].contains("error"));
  EXPECT_NE(v[2]["error"].get<std::string>().find("bogus"), std::string::npos);
  EXPECT_TRUE(v[3].contains("qacc"));
}

TEST(Cli, InverseRecoversAppliedForce) {
  // forward with qfrc_applied gives qacc; inverse at that qacc gives back qfrc_applied (no constraints).
  const Result f = run_cli("forward " + kPendulum,
                           "{\"qpos\": [0.4, 0.7], \"qvel\": [-1, 0.5], \"qfrc_applied\": [0.3, -0.8]}\n");
  ASSERT_EQ(f.status, 0) << f.out;
  const Json fo = lines(f.out).at(0);
  Json in = {{"qpos", {0.4, 0.7}}, {"qvel", {-1, 0.5}}, {"qacc", fo["qacc"]}};
  const Result i = run_cli("inverse " + kPendulum, in.dump() + "\n");
  ASSERT_EQ(i.status, 0) << i.out;
  const Json io = lines(i.out).at(0);
  EXPECT_NEAR(io["qfrc_inverse"][0].get<double>(), 0.3, 1e-10);
  EXPECT_NEAR(io["qfrc_inverse"][1].get<double>(), -0.8, 1e-10);
}

TEST(Cli, RolloutPrintsEveryKSteps) {
  const Result r = run_cli("rollout " + kPendulum + " --steps 100 --every 25");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 4u);
  const double dt = 0.001;  // the model's timestep
  EXPECT_NEAR(v[3]["time"].get<double>(), 100 * dt, 1e-12);
  EXPECT_EQ(v[3]["qpos"].size(), 2u);
  EXPECT_EQ(v[3]["qvel"].size(), 2u);
  // Default: only the last line.
  const Result last = run_cli("rollout " + kPendulum + " --steps 10");
  EXPECT_EQ(lines(last.out).size(), 1u);
}

TEST(Cli, OptionOverridesAreValidated) {
  // names the options do not know are command-line errors
  EXPECT_EQ(run_cli("rollout " + kPendulum + " --steps 1 --integrator Bogus").status, 2);
  EXPECT_EQ(run_cli("rollout " + kPendulum + " --steps 1 --disable nosuchflag").status, 2);
  EXPECT_EQ(run_cli("rollout " + kPendulum + " --steps 1 --solver raisim-dss").status, 2);
  // A hard-contact solver with an integrator it cannot step with is refused, not replaced (the
  // integrator may come from the model: exit 1 with {"error"}).
  const Result rk4 = run_cli("rollout " + kPendulum + " --steps 1 --solver raisim --integrator RK4");
  EXPECT_EQ(rk4.status, 1);
  EXPECT_NE(rk4.out.find("Euler"), std::string::npos) << rk4.out;
  // Disabling gravity leaves the pendulum at rest.
  const Result r = run_cli("rollout " + kPendulum + " --steps 50 --disable gravity --key 0");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_DOUBLE_EQ(v[0]["qvel"][0].get<double>(), 0.0);
}

TEST(Cli, BenchReportsStepsPerSecond) {
  const Result r = run_cli("bench " + kPendulum + " --steps 200");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_GT(v[0]["steps_per_second"].get<double>(), 0);
  EXPECT_EQ(v[0]["steps"], 200);
}

// `rollout --metrics`: the existing keys are unchanged and each line gains the step's
// iterations, eps_abs, errors, world-frame contact forces and the energy of the new state. A 1 kg
// cube resting on a plane under raisim-ds: the four contact forces on the cube sum to m g upward
// (1e-9 relative), eps_abs is tiny, and the energy is the potential m g z (kinetic 0).
TEST(Cli, RolloutMetrics) {
  const std::string cube = std::string(MOREAU_SOURCE_DIR) + "/models/experiments/dragged_cube.xml";
  const Result r = run_cli("rollout " + cube + " --steps 20 --every 10 --metrics --solver raisim-ds");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto v = lines(r.out);
  ASSERT_EQ(v.size(), 2u);
  for (const auto& o : v) {
    for (const char* k : {"time", "qpos", "qvel", "act"}) EXPECT_TRUE(o.contains(k)) << k;
    EXPECT_GT(o["iterations"].get<int>(), 0);
    EXPECT_LT(o["eps_abs"].get<double>(), 1e-9);
    for (const char* k : {"primal", "dual", "complementarity"}) EXPECT_TRUE(o["errors"].contains(k)) << k;
    ASSERT_EQ(o["contacts"].size(), 4u);
    double fz = 0;
    for (const auto& c : o["contacts"]) {
      EXPECT_EQ(c["pos"].size(), 3u);
      ASSERT_EQ(c["force"].size(), 3u);
      // force on geom2 by geom1: on the cube if the cube is geom2
      fz += (c["geom2"] == "cube" ? 1 : -1) * c["force"][2].get<double>();
    }
    EXPECT_NEAR(fz, 9.81, 1e-9 * 9.81);
    ASSERT_EQ(o["energy"].size(), 2u);
    EXPECT_NEAR(o["energy"][0].get<double>(), 9.81 * o["qpos"][2].get<double>(), 1e-9);
    EXPECT_NEAR(o["energy"][1].get<double>(), 0.0, 1e-12);
  }
  // without --metrics the lines keep the contract's keys only
  const Result plain = run_cli("rollout " + cube + " --steps 2 --solver raisim-ds");
  const auto p = lines(plain.out);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].size(), 4u);
}

// `moreau experiment` prints CSV with a header; a bad name is an error.
TEST(Cli, ExperimentPrintsCsv) {
  const Result r = run_cli("experiment two-blocks --solver lcp");
  ASSERT_EQ(r.status, 0) << r.out;
  std::istringstream s(r.out);
  std::string header, row;
  std::getline(s, header);
  EXPECT_EQ(header, "step,time,qA,qB,vA,vB,force,gap");
  int rows = 0;
  while (std::getline(s, row)) ++rows;
  EXPECT_EQ(rows, 4);  // steps 0..3
  EXPECT_EQ(run_cli("experiment no-such-experiment").status, 2);  // a bad command line
}

// `--enable multiccd` (multi-point convex collision): a cylinder standing on a box gets its
// first contact plus one at each of four rim points (CollisionMulticcd.CylinderOnBoxRim), all
// with the first contact's distance (-0.01: the cylinder's base 0.01 below the box top).
TEST(Cli, EnableMulticcd) {
  const std::string path = testing::TempDir() + "cylinder_box_" + std::to_string(getpid()) + ".xml";
  {
    std::ofstream f(path);
    f << "<mujoco><worldbody><geom type=\"box\" size=\"1 1 .3\" pos=\"0 0 -.3\"/><body pos=\"0 0 .02\">"
         "<freejoint/><geom type=\"cylinder\" size=\".4 .03\"/></body></worldbody></mujoco>";
  }
  const Result one = run_cli("forward " + path, "{}\n");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_EQ(lines(one.out)[0]["ncon"], 1);
  const Result multi = run_cli("forward " + path + " --enable multiccd", "{}\n");
  ASSERT_EQ(multi.status, 0) << multi.out;
  const auto v = lines(multi.out);
  ASSERT_EQ(v[0]["ncon"], 5);
  for (const auto& dist : v[0]["contact_dist"]) EXPECT_NEAR(dist.get<double>(), -0.01, 1e-9);
  std::remove(path.c_str());
}

// ------------------------------------------------------------------------------ command-line errors

constexpr const char* kExitCodesLine = "Exit codes: 0 success, 1 model or input error, 2 bad command line.";

TEST(Cli, HelpDocumentsExitCodes) {
  for (const std::string args : {"--help", "rollout --help", "simulate --help"}) {
    const Output r = run_cli_err(args);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_NE(r.out.find(kExitCodesLine), std::string::npos) << args << ": " << r.out;
  }
}

TEST(Cli, UnknownSubcommandIsNamedAndTheSubcommandsListed) {
  const Output r = run_cli_err("simulat");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'simulat'"), std::string::npos) << r.err;
  for (const char* sub : {"info", "forward", "inverse", "rollout", "experiment", "bench", "simulate"})
    EXPECT_NE(r.err.find(sub), std::string::npos) << sub << ": " << r.err;
  const Output none = run_cli_err("");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("a subcommand is required: info, forward"), std::string::npos) << none.err;
  const Output exp = run_cli_err("experiment sliding-cub");
  EXPECT_EQ(exp.status, 2);
  EXPECT_NE(exp.err.find("unknown experiment 'sliding-cub'; the experiments are: sliding-cube"), std::string::npos)
      << exp.err;
}

// Every parse error exits with 2 (CLI11's own codes 104..114 never leak) and says in words what is
// accepted, never a numeric range.
TEST(Cli, BadValuesExitTwoAndSayWhatIsAccepted) {
  const std::string roll = "rollout " + kPendulum + " ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {roll + "--steps -1", "--steps must be a non-negative integer, not '-1'"},
      {roll + "--steps abc", "--steps must be a non-negative integer, not 'abc'"},
      {roll + "--steps 2.5", "--steps must be a non-negative integer, not '2.5'"},
      {roll + "--steps 99999999999999999999", "--steps must be at most 2147483647"},
      {roll + "--steps 1 --every -3", "--every must be a non-negative integer, not '-3'"},
      {roll + "--steps 1 --key -1", "--key must be a non-negative integer, not '-1'"},
      {roll + "--steps 1 --timestep -0.001", "--timestep must be a positive number, not '-0.001'"},
      {roll + "--steps 1 --timestep 0", "--timestep must be a positive number, not '0'"},
      {roll + "--steps 1 --timestep nan", "--timestep must be a positive number, not 'nan'"},
      {roll + "--steps 1 --timestep inf", "--timestep must be a positive number, not 'inf'"},
      {roll + "--steps 1 --iterations -5", "--iterations must be a non-negative integer, not '-5'"},
      {roll + "--steps 1 --iterations nan", "--iterations must be a non-negative integer, not 'nan'"},
      {roll + "--steps 1 --tolerance -1e-3", "--tolerance must be a non-negative number, not '-1e-3'"},
      {roll + "--steps 1 --tolerance NaN", "--tolerance must be a non-negative number, not 'NaN'"},
      {"bench " + kPendulum + " --steps 0", "--steps must be a positive integer, not '0'"},
      {"simulate " + kPendulum + " --steps -2", "--steps must be a non-negative integer, not '-2'"},
      {"experiment impact --key -1", "--key must be a non-negative integer, not '-1'"},
      {"forward " + kPendulum + " --timestep -1", "--timestep must be a positive number, not '-1'"},
      {roll + "--steps 1 --cone round", "--cone 'round' is not one of: pyramidal elliptic"},
      {roll, "--steps is required"},
      {roll + "--steps", "--steps needs a value"},
      {roll + "--steps 1 --stpes 2", "The following arguments were not expected: 2 --stpes"},
      {"info", "MODEL is required"},
      {"info " + kPendulum + " extra", "The following argument was not expected: extra"},
  };
  for (const auto& [args, message] : cases) {
    const Output r = run_cli_err(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("moreau: " + message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("179769"), std::string::npos) << args << ": " << r.err;  // no numeric range
    EXPECT_EQ(r.out, "") << args;  // stdout stays for JSON results
  }
  // a keyframe the model does not have is an input error (1), as a bad model is
  EXPECT_EQ(run_cli_err(roll + "--steps 1 --key 7").status, 1);
}

// `simulate` without a model finds the bundled humanoid next to the binary: ../models from a build
// folder in the source tree, ../share/moreau/models under an install prefix; elsewhere it says
// where it looked and exits 1.
TEST(Cli, SimulateFindsTheBundledModelFromTheBinarysLocation) {
  namespace fs = std::filesystem;
  const Output here = run_cli_err("simulate --steps 5");
  ASSERT_EQ(here.status, 0) << here.err;
  const std::string source_model = (fs::path(MOREAU_SOURCE_DIR) / "models" / "humanoid.xml").lexically_normal();
  EXPECT_NE(here.out.find(fs::canonical(source_model).string()), std::string::npos) << here.out;

  const fs::path root = fs::path(testing::TempDir()) / ("moreau_prefix_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "prefix" / "bin");
  fs::create_directories(root / "prefix" / "share" / "moreau" / "models");
  fs::create_directories(root / "lonely" / "bin");
  fs::copy_file(MOREAU_CLI, root / "prefix" / "bin" / "moreau");
  fs::copy_file(source_model, root / "prefix" / "share" / "moreau" / "models" / "humanoid.xml");
  fs::copy_file(MOREAU_CLI, root / "lonely" / "bin" / "moreau");

  const Output installed = run_program((root / "prefix" / "bin" / "moreau").string(), "simulate --steps 5");
  EXPECT_EQ(installed.status, 0) << installed.err;
  EXPECT_NE(installed.out.find((root / "prefix" / "share" / "moreau" / "models" / "humanoid.xml").string()),
            std::string::npos)
      << installed.out;
  EXPECT_NE(installed.out.find("simulated  5 steps"), std::string::npos) << installed.out;

  const Output lonely = run_program((root / "lonely" / "bin" / "moreau").string(), "simulate --steps 5");
  EXPECT_EQ(lonely.status, 1);
  EXPECT_NE(lonely.err.find("the bundled model humanoid.xml is neither at " +
                            (root / "lonely" / "models" / "humanoid.xml").string()),
            std::string::npos)
      << lonely.err;
  fs::remove_all(root);
}

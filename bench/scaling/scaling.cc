// Scaling benchmark: cost per step against the number of bodies N, Moreau and MuJoCo 2.2.2 in the
// same process, on generated models written to a temporary folder and loaded by both engines:
//
//   chain  N bodies in one chain, hinge joints alternating about y and z, capsule links, joint
//          limits (every joint starts just past its limit, so every limit row is active), hanging
//          from the world;
//   tree   N bodies in a binary tree (body i's parent is (i-1)/2), hinge joints, sphere geoms laid
//          out as a shrinking H-tree so that no two overlap at the start, limits as the chain;
//   pile   N free boxes on a plane, stacked in columns of up to three on a square grid with a small
//          gap under each, dropped and let settle; measured while resting.
//
// Three modes per model: "smooth" (constraints disabled: the smooth dynamics, no collision rows or
// solver), "full" (the model's default options) and "collision" (collision detection alone,
// moreau::collision against mj_collision, at the state the full steps start from). Each measurement restores the same saved state
// and runs a block of steps; blocks of the two engines alternate (and swap order every repetition)
// so that both see the same machine load, and the median over the repetitions is reported. Then as many
// blocks per engine run with the stage timers on (Moreau's Data::timing, MuJoCo's mjcb_time) for the
// per-stage breakdown (each stage's wall-clock time scaled by the block's CPU/wall ratio,
// medians over the blocks).
//
// Output: one CSV row per (family, N, mode, engine) on stdout or --csv FILE; the log-log least-squares
// exponents of cost per step against N (and, for the pile, of the constraint solver's time against
// the number of contacts) on stderr and in --fit FILE (JSON).
#include <mujoco/mujoco.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace {

// ------------------------------------------------------------------------------- model generation

struct SizeLimits {
  int nconmax = 0;  // 0: the engine's default
  int njmax = 0;
};

std::string size_element(const SizeLimits& s) {
  if (s.nconmax <= 0 && s.njmax <= 0) return "";
  std::ostringstream o;
  o << "  <size";
  if (s.nconmax > 0) o << " nconmax=\"" << s.nconmax << "\"";
  if (s.njmax > 0) o << " njmax=\"" << s.njmax << "\"";
  o << "/>\n";
  return o.str();
}

// Joint angle that starts each hinge 0.01 rad past its limit (+-0.3 rad), the sign alternating every
// second joint so that the chain stays a straight zigzag instead of curling onto itself.
double start_angle(int i) { return ((i / 2) % 2 ? -1.0 : 1.0) * 0.31; }

// A model as files: the main file first, then the files it includes.
using Files = std::vector<std::pair<std::string, std::string>>;

// XML parsers (tinyxml2 in both engines) refuse elements nested more than 100 deep, so the chain is
// split into files of kChainPart bodies, each included inside the innermost body of the previous.
constexpr int kChainPart = 40;

Files chain_xml(const std::string& stem, int n, const SizeLimits& s) {
  Files files;
  std::ostringstream o;
  o << "<mujoco model=\"chain_" << n << "\">\n"
    << "  <compiler angle=\"radian\"/>\n"
    << "  <option timestep=\"0.002\"/>\n"
    << size_element(s)
    << "  <default><joint type=\"hinge\" limited=\"true\" range=\"-0.3 0.3\" damping=\"0.02\" armature=\"0.001\"/>\n"
    << "    <geom type=\"capsule\" size=\"0.02\" fromto=\"0 0 0 0.1 0 0\" density=\"500\"/></default>\n"
    << "  <keyframe><key qpos=\"";
  for (int i = 0; i < n; ++i) o << start_angle(i) << (i + 1 < n ? " " : "");
  o << "\"/></keyframe>\n  <worldbody>\n";
  for (int part = 0; part * kChainPart < n; ++part) {
    std::ostringstream b;
    const int end = std::min(n, (part + 1) * kChainPart);
    for (int i = part * kChainPart; i < end; ++i)
      b << "<body pos=\"" << (i == 0 ? 0.0 : 0.1) << " 0 " << (i == 0 ? 2.0 : 0.0) << "\">"
        << "<joint axis=\"" << (i % 2 ? "0 0 1" : "0 1 0") << "\"/><geom/>\n";
    if (end < n) b << "<include file=\"" << stem << "_part" << part + 1 << ".xml\"/>\n";
    for (int i = part * kChainPart; i < end; ++i) b << "</body>";
    if (part == 0) {
      o << b.str() << "\n  </worldbody>\n</mujoco>\n";
      files.emplace_back(stem + ".xml", o.str());
    } else {
      files.emplace_back(stem + "_part" + std::to_string(part) + ".xml", "<mujoco>\n" + b.str() + "\n</mujoco>\n");
    }
  }
  return files;
}

// Binary tree in heap order. Body i at depth d sits at its parent's position plus L_d along +-x (d
// even) or +-y (d odd) and -L_d/2 along z, L_d = 0.4 * 0.65^d; a ratio below 1/sqrt(2) keeps the
// H-tree's nodes distinct, and a sphere of radius L_d/4 keeps clear of its neighbours.
std::string tree_xml(int n, const SizeLimits& s) {
  std::ostringstream o;
  o << "<mujoco model=\"tree_" << n << "\">\n"
    << "  <compiler angle=\"radian\"/>\n"
    << "  <option timestep=\"0.002\"/>\n"
    << size_element(s)
    << "  <default><joint type=\"hinge\" limited=\"true\" range=\"-0.3 0.3\" damping=\"0.02\" armature=\"0.001\"/>\n"
    << "    <geom type=\"sphere\" density=\"500\"/></default>\n"
    << "  <worldbody>\n";
  auto depth = [](int i) {
    int d = 0;
    while (i > 0) i = (i - 1) / 2, ++d;
    return d;
  };
  // Recursive emission in heap order; the depth is at most log2(N), so recursion is shallow.
  struct EmitR {
    int n;
    std::ostringstream& o;
    decltype(depth)& depth_of;
    void operator()(int i) {
      const int d = depth_of(i);
      const double len = 0.4 * std::pow(0.65, d);
      const double sign = (i % 2) ? 1.0 : -1.0;
      double px = 0, py = 0, pz = -0.5 * len;
      if (i == 0) {
        pz = 2.0;
      } else if (d % 2) {
        px = sign * len;
      } else {
        py = sign * len;
      }
      o << "<body pos=\"" << px << " " << py << " " << pz << "\"><joint axis=\""
        << (d % 2 ? "0 1 0" : "1 0 0") << "\"/><geom size=\"" << 0.25 * len << "\"/>\n";
      for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c) (*this)(c);
      o << "</body>";
    }
  };
  EmitR{n, o, depth}(0);
  o << "\n  </worldbody>\n  <keyframe><key qpos=\"";
  for (int i = 0; i < n; ++i) o << start_angle(i) << (i + 1 < n ? " " : "");
  o << "\"/></keyframe>\n</mujoco>\n";
  return o.str();
}

// N boxes of half size 0.05 in columns of kPileHeight on a grid of pitch 0.15, each 2 mm above the
// one below (or the floor), every second level shifted by 1 cm in x and y so that stacked faces
// overlap in a square: 4 contacts per box at rest. (A box turned on the one below touches it at 8
// points; 500 such boxes need 13,300 constraint rows, and MuJoCo 2.2.2, whose mjData holds
// njmax x njmax arrays and an int-sized stack, cannot create its data beyond about 10,000 rows
// with nv = 3000.)
constexpr int kPileHeight = 3;
std::string pile_xml(int n, const SizeLimits& s) {
  const int columns = (n + kPileHeight - 1) / kPileHeight;
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(columns))));
  std::ostringstream o;
  o << "<mujoco model=\"pile_" << n << "\">\n"
    << "  <option timestep=\"0.002\"/>\n"
    << size_element(s)
    << "  <worldbody>\n    <geom type=\"plane\" size=\"0 0 1\"/>\n";
  for (int i = 0; i < n; ++i) {
    const int col = i / kPileHeight, level = i % kPileHeight;
    const double x = 0.15 * (col % side - 0.5 * (side - 1));
    const double y = 0.15 * (col / side - 0.5 * (side - 1));
    const double z = 0.05 + level * 0.1 + (level + 1) * 0.002;
    const double shift = level % 2 ? 0.01 : 0.0;
    o << "    <body pos=\"" << x + shift << " " << y + shift << " " << z << "\"><freejoint/><geom type=\"box\" size=\"0.05 0.05 0.05\"/></body>\n";
  }
  o << "  </worldbody>\n</mujoco>\n";
  return o.str();
}

// ------------------------------------------------------------------------------- measurement

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

// The stages reported per step (both engines' timers share this numbering).
constexpr int kStages[] = {moreau::kTimerPosKinematics, moreau::kTimerPosInertia, moreau::kTimerPosCollision,
                           moreau::kTimerPosMake,       moreau::kTimerPosProject, moreau::kTimerVelocity,
                           moreau::kTimerActuation,     moreau::kTimerAcceleration, moreau::kTimerConstraint};
constexpr const char* kStageNames[] = {"kinematics", "inertia",      "collision",    "make",      "project",
                                       "velocity",   "actuation",    "acceleration", "constraint"};
constexpr int kNStage = sizeof(kStages) / sizeof(kStages[0]);
static_assert(int{mjTIMER_POS_KINEMATICS} == int{moreau::kTimerPosKinematics} &&
              int{mjTIMER_CONSTRAINT} == int{moreau::kTimerConstraint} &&
              int{mjTIMER_POS_PROJECT} == int{moreau::kTimerPosProject} &&
              int{mjTIMER_VELOCITY} == int{moreau::kTimerVelocity} && int{mjNTIMER} == int{moreau::kNTimer});

struct Block {
  double cpu = 0;     // thread CPU seconds per step
  double wall = 0;    // wall-clock seconds per step
  double ncon = 0;    // mean contacts per step
  double nefc = 0;    // mean constraint rows per step
};

// One engine behind a common interface: save/restore the measured state, run a block.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual void reset() = 0;
  virtual void step() = 0;
  virtual void forward() = 0;
  virtual void collide() = 0;  // collision detection alone, at the poses of the last forward
  virtual void save() = 0;
  virtual void restore() = 0;
  virtual int ncon() const = 0;
  virtual int nefc() const = 0;
  virtual int nv() const = 0;
  virtual bool full_warning() const = 0;
  virtual void timing(bool on) = 0;
  virtual double stage_seconds(int timer) const = 0;  // accumulated since timing(true)

  // `steps` steps from the saved state; with collision_only, forward once at the saved state and
  // then `steps` calls of collision detection alone.
  Block run(int steps, bool collision_only = false) {
    restore();
    if (collision_only) forward();
    long long con = 0, efc = 0;
    const double w0 = now_seconds(), t0 = thread_cpu_seconds();
    for (int i = 0; i < steps; ++i) {
      if (collision_only) collide();
      else step();
      con += ncon();
      efc += nefc();
    }
    const double t1 = thread_cpu_seconds(), w1 = now_seconds();
    return {(t1 - t0) / steps, (w1 - w0) / steps, static_cast<double>(con) / steps,
            static_cast<double>(efc) / steps};
  }
};

class MoreauEngine final : public Engine {
 public:
  MoreauEngine(const std::string& path, int disable) : m_(moreau::load_model(path)) {
    m_.opt.disableflags |= disable;
    d_ = moreau::make_data(m_);
  }
  void reset() override {
    if (m_.nkey > 0) moreau::reset_data_keyframe(m_, d_, 0);
    else moreau::reset_data(m_, d_);
  }
  void step() override { moreau::step(m_, d_); }
  void forward() override { moreau::forward(m_, d_); }
  void collide() override { moreau::collision(m_, d_); }
  void save() override {
    time_ = d_.time, qpos_ = d_.qpos, qvel_ = d_.qvel, act_ = d_.act, warm_ = d_.qacc_warmstart;
  }
  void restore() override {
    d_.time = time_, d_.qpos = qpos_, d_.qvel = qvel_, d_.act = act_, d_.qacc_warmstart = warm_;
  }
  int ncon() const override { return d_.ncon; }
  int nefc() const override { return d_.nefc; }
  int nv() const override { return m_.nv; }
  bool full_warning() const override {
    return d_.warning[moreau::kWarnContactFull].number > 0 || d_.warning[moreau::kWarnCnstrFull].number > 0;
  }
  void timing(bool on) override {
    d_.timing = on;
    for (auto& t : d_.timer) t = {};
  }
  double stage_seconds(int timer) const override { return d_.timer[timer].duration; }

 private:
  moreau::Model m_;
  moreau::Data d_;
  double time_ = 0;
  std::vector<double> qpos_, qvel_, act_, warm_;
};

class MujocoEngine final : public Engine {
 public:
  MujocoEngine(const std::string& path, int disable) {
    char err[1000] = "";
    m_ = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
    if (!m_) throw std::runtime_error(std::string("MuJoCo 2.2.2 does not load ") + path + ": " + err);
    m_->opt.disableflags |= disable;
    d_ = mj_makeData(m_);
    if (!d_) throw std::runtime_error("mj_makeData failed for " + path);
  }
  ~MujocoEngine() override {
    mj_deleteData(d_);
    mj_deleteModel(m_);
  }
  MujocoEngine(const MujocoEngine&) = delete;
  MujocoEngine& operator=(const MujocoEngine&) = delete;
  void reset() override {
    if (m_->nkey > 0) mj_resetDataKeyframe(m_, d_, 0);
    else mj_resetData(m_, d_);
  }
  void step() override { mj_step(m_, d_); }
  void forward() override { mj_forward(m_, d_); }
  void collide() override { mj_collision(m_, d_); }
  void save() override {
    time_ = d_->time;
    qpos_.assign(d_->qpos, d_->qpos + m_->nq);
    qvel_.assign(d_->qvel, d_->qvel + m_->nv);
    act_.assign(d_->act, d_->act + m_->na);
    warm_.assign(d_->qacc_warmstart, d_->qacc_warmstart + m_->nv);
  }
  void restore() override {
    d_->time = time_;
    std::copy(qpos_.begin(), qpos_.end(), d_->qpos);
    std::copy(qvel_.begin(), qvel_.end(), d_->qvel);
    std::copy(act_.begin(), act_.end(), d_->act);
    std::copy(warm_.begin(), warm_.end(), d_->qacc_warmstart);
  }
  int ncon() const override { return d_->ncon; }
  int nefc() const override { return d_->nefc; }
  int nv() const override { return m_->nv; }
  bool full_warning() const override {
    return d_->warning[mjWARN_CONTACTFULL].number > 0 || d_->warning[mjWARN_CNSTRFULL].number > 0;
  }
  void timing(bool on) override {
    mjcb_time = on ? &now_seconds_mj : nullptr;
    for (auto& t : d_->timer) t.duration = 0, t.number = 0;
  }
  double stage_seconds(int timer) const override { return d_->timer[timer].duration; }

 private:
  static mjtNum now_seconds_mj() { return now_seconds(); }
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  double time_ = 0;
  std::vector<double> qpos_, qvel_, act_, warm_;
};

struct Options {
  std::vector<std::string> families = {"chain", "tree", "pile"};
  std::map<std::string, std::vector<int>> sizes = {
      {"chain", {10, 20, 50, 100, 200, 500, 1000}},
      {"tree", {10, 20, 50, 100, 200, 500, 1000}},
      {"pile", {1, 2, 5, 10, 20, 50, 100, 200, 500}},
  };
  std::vector<std::string> modes = {"smooth", "full", "collision"};
  int reps = 5;
  double block_seconds = 0.05;  // CPU time per block, at least one step
  int warmup = 50;              // chain and tree: steps from the keyframe before the measured state
  int settle = 600;             // pile: steps of settling before the measured state
  std::string csv, fit, dir;
};

struct Row {
  std::string family, mode, engine;
  int n = 0, nv = 0, steps = 0;
  double cpu_med = 0, cpu_min = 0, cpu_max = 0;
  double ncon = 0, nefc = 0;
  double stage[kNStage] = {};
};

std::vector<int> parse_ints(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    try {
      size_t used = 0;
      const int v = std::stoi(tok, &used);
      if (used != tok.size() || v <= 0) throw std::invalid_argument(tok);
      out.push_back(v);
    } catch (const std::exception&) {
      throw std::invalid_argument("expected a comma-separated list of positive integers, not '" + s + "'");
    }
  }
  return out;
}

std::vector<std::string> parse_words(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) out.push_back(tok);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--families") {
      o.families = parse_words(value(i));
      for (const auto& f : o.families)
        if (!o.sizes.count(f)) throw std::invalid_argument("--families: expected chain, tree or pile, not '" + f + "'");
    } else if (a == "--chain" || a == "--tree" || a == "--pile") {
      o.sizes[a.substr(2)] = parse_ints(value(i));
    } else if (a == "--modes") {
      o.modes = parse_words(value(i));
      for (const auto& m : o.modes)
        if (m != "smooth" && m != "full" && m != "collision")
          throw std::invalid_argument("--modes: expected smooth, full or collision, not '" + m + "'");
    } else if (a == "--reps") {
      o.reps = parse_ints(value(i)).at(0);
    } else if (a == "--block-ms") {
      o.block_seconds = 1e-3 * parse_ints(value(i)).at(0);
    } else if (a == "--settle") {
      o.settle = parse_ints(value(i)).at(0);
    } else if (a == "--warmup") {
      o.warmup = parse_ints(value(i)).at(0);
    } else if (a == "--csv") {
      o.csv = value(i);
    } else if (a == "--fit") {
      o.fit = value(i);
    } else if (a == "--dir") {
      o.dir = value(i);
    } else if (a == "--help" || a == "-h") {
      std::puts(
          "moreau_scaling [--families chain,tree,pile] [--chain N,..] [--tree N,..] [--pile N,..]\n"
          "               [--modes smooth,full] [--reps R] [--block-ms MS] [--warmup S] [--settle S]\n"
          "               [--csv FILE] [--fit FILE] [--dir TMPDIR]");
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown option '" + a + "' (see --help)");
    }
  }
  return o;
}

Files generate(const std::string& family, int n, const SizeLimits& s) {
  const std::string stem = family + "_" + std::to_string(n);
  if (family == "chain") return chain_xml(stem, n, s);
  if (family == "tree") return {{stem + ".xml", tree_xml(n, s)}};
  return {{stem + ".xml", pile_xml(n, s)}};
}

// Writes the files into dir; returns the main file's path.
std::string write_model(const std::string& dir, const Files& files) {
  for (const auto& [name, text] : files) {
    std::ofstream f(dir + "/" + name);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + dir + "/" + name);
  }
  return dir + "/" + files.front().first;
}

// Contact and row capacities for a family: the pile's come from a probe run of Moreau with a
// generous capacity, so that MuJoCo 2.2.2's dense njmax x njmax arrays stay as small as the scene
// allows (both engines then load the same file).
SizeLimits capacities(const std::string& family, int n, const Options& o, const std::string& dir) {
  if (family != "pile") return {std::max(100, 4 * n), std::max(500, 8 * n)};
  SizeLimits generous{16 * n + 50, 64 * n + 200};
  const std::string path = write_model(dir, {{"probe.xml", pile_xml(n, generous)}});
  MoreauEngine e(path, 0);
  e.reset();
  int maxcon = 0, maxefc = 0;
  for (int i = 0; i < o.settle + 200; ++i) {
    e.step();
    maxcon = std::max(maxcon, e.ncon());
    maxefc = std::max(maxefc, e.nefc());
  }
  return {maxcon + maxcon / 4 + 20, maxefc + maxefc / 20 + 80};
}

std::vector<Row> measure(const std::string& family, int n, const std::string& mode, const Options& o,
                         const std::string& dir) {
  const SizeLimits s = capacities(family, n, o, dir);
  const std::string path = write_model(dir, generate(family, n, s));
  const int disable = mode == "smooth" ? moreau::kDsblConstraint : 0;
  static_assert(int{mjDSBL_CONSTRAINT} == int{moreau::kDsblConstraint});

  std::unique_ptr<Engine> eng[2];
  eng[0] = std::make_unique<MoreauEngine>(path, disable);
  eng[1] = std::make_unique<MujocoEngine>(path, disable);
  const char* names[2] = {"moreau", "mujoco"};
  // The measured state: the pile after settling (full steps; without constraints the boxes fall
  // freely from their start, which costs the smooth dynamics the same), the chain and tree after a
  // short warm-up from the keyframe.
  for (int k = 0; k < 2; ++k) {
    eng[k]->reset();
    const int steps = family == "pile" ? (mode == "smooth" ? 0 : o.settle) : o.warmup;
    for (int i = 0; i < steps; ++i) eng[k]->step();
    eng[k]->save();
  }
  // Block length from one step of each engine (the slower sets it, so both run equal blocks).
  double per_step = 0;
  const bool collision_only = mode == "collision";
  for (auto& e : eng) per_step = std::max(per_step, e->run(1, collision_only).cpu);
  const int steps = std::clamp(static_cast<int>(o.block_seconds / std::max(per_step, 1e-9)), 1, 2000);

  std::vector<double> cpu[2];
  Block last[2];
  for (int r = 0; r < o.reps; ++r) {
    for (int j = 0; j < 2; ++j) {
      const int k = (r % 2) ? 1 - j : j;
      last[k] = eng[k]->run(steps, collision_only);
      cpu[k].push_back(last[k].cpu);
    }
  }
  // The stage breakdown: as many blocks again with the stage timers on, medians per stage.
  std::vector<double> stage[2][kNStage];
  for (int r = 0; r < (collision_only ? 0 : o.reps); ++r) {
    for (int j = 0; j < 2; ++j) {
      const int k = (r % 2) ? 1 - j : j;
      eng[k]->timing(true);
      const Block b = eng[k]->run(steps, collision_only);
      // The timers read the wall clock; on a loaded machine the thread runs only part of that
      // time, so each stage is scaled by the block's CPU/wall ratio to estimate its CPU time.
      const double cpu_share = b.wall > 0 ? b.cpu / b.wall : 1.0;
      for (int st = 0; st < kNStage; ++st)
        stage[k][st].push_back(cpu_share * eng[k]->stage_seconds(kStages[st]) / steps);
      eng[k]->timing(false);
    }
  }
  std::vector<Row> rows;
  for (int k = 0; k < 2; ++k) {
    Row row;
    row.family = family, row.mode = mode, row.engine = names[k];
    row.n = n, row.nv = eng[k]->nv(), row.steps = steps;
    row.cpu_med = median(cpu[k]);
    row.cpu_min = *std::min_element(cpu[k].begin(), cpu[k].end());
    row.cpu_max = *std::max_element(cpu[k].begin(), cpu[k].end());
    row.ncon = last[k].ncon, row.nefc = last[k].nefc;
    for (int st = 0; st < kNStage; ++st) row.stage[st] = collision_only ? NAN : median(stage[k][st]);
    if (eng[k]->full_warning())
      std::fprintf(stderr, "warning: %s %s N=%d: contact or row storage full\n", names[k], family.c_str(), n);
    rows.push_back(row);
  }
  return rows;
}

// ------------------------------------------------------------------------------- fits

// Least-squares slope and intercept of log(y) against log(x).
struct Fit {
  double slope = NAN, intercept = NAN;
  int points = 0;
};
Fit loglog(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int k = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0 && y[i] > 0)) continue;
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, ++k;
  }
  Fit f;
  f.points = k;
  if (k < 2) return f;
  const double den = k * sxx - sx * sx;
  if (den == 0) return f;
  f.slope = (k * sxy - sx * sy) / den;
  f.intercept = (sy - f.slope * sx) / k;
  return f;
}

const char* kCsvHeader =
    "family,n,mode,engine,nv,steps_per_block,us_per_step,us_min,us_max,ncon,nefc,"
    "us_kinematics,us_inertia,us_collision,us_make,us_project,us_velocity,us_actuation,us_acceleration,"
    "us_constraint";

void print_row(FILE* f, const Row& r) {
  std::fprintf(f, "%s,%d,%s,%s,%d,%d,%.4f,%.4f,%.4f,%.2f,%.2f", r.family.c_str(), r.n, r.mode.c_str(),
               r.engine.c_str(), r.nv, r.steps, 1e6 * r.cpu_med, 1e6 * r.cpu_min, 1e6 * r.cpu_max, r.ncon, r.nefc);
  for (double s : r.stage) std::fprintf(f, ",%.4f", 1e6 * s);
  std::fprintf(f, "\n");
  std::fflush(f);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "moreau_scaling: %s\n", e.what());
    return 2;
  }
  namespace fs = std::filesystem;
  std::string dir = o.dir;
  if (dir.empty()) {
    // a fresh folder in the system's temporary directory (TMPDIR or its default)
    std::string tmpl = (fs::temp_directory_path() / "moreau_scaling_XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      std::perror("moreau_scaling: mkdtemp");
      return 1;
    }
    dir = tmpl;
  } else {
    fs::create_directories(dir);
  }
  FILE* csv = stdout;
  if (!o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "moreau_scaling: cannot write %s\n", o.csv.c_str());
      return 1;
    }
  }
  std::fprintf(csv, "%s\n", kCsvHeader);
  std::vector<Row> all;
  try {
    for (const auto& family : o.families)
      for (int n : o.sizes[family])
        for (const auto& mode : o.modes) {
          for (const Row& r : measure(family, n, mode, o, dir)) {
            print_row(csv, r);
            all.push_back(r);
          }
          std::fprintf(stderr, "%s N=%d %s: moreau %.1f us, mujoco %.1f us, ncon %.1f\n", family.c_str(), n,
                       mode.c_str(), 1e6 * all[all.size() - 2].cpu_med, 1e6 * all.back().cpu_med,
                       all.back().ncon);
        }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "moreau_scaling: %s\n", e.what());
    return 1;
  }
  if (csv != stdout) std::fclose(csv);
  if (o.dir.empty()) fs::remove_all(dir);

  // Exponents: cost per step ~ N^p, each stage too; for the pile, the constraint solver against
  // the number of contacts (flat cost per contact: p = 1).
  std::ostringstream json;
  json << "{\n  \"fits\": [";
  bool first = true;
  std::fprintf(stderr, "\nexponent p of cost per step ~ N^p (log-log least squares over all N)\n");
  std::fprintf(stderr, "%-6s %-6s %-7s %8s", "family", "mode", "engine", "step");
  for (const char* s : kStageNames) std::fprintf(stderr, " %12s", s);
  std::fprintf(stderr, "\n");
  for (const auto& family : o.families)
    for (const auto& mode : o.modes)
      for (const char* engine : {"moreau", "mujoco"}) {
        std::vector<double> x, y, xc, yc, stage[kNStage];
        for (const Row& r : all) {
          if (r.family != family || r.mode != mode || r.engine != engine) continue;
          x.push_back(r.n), y.push_back(r.cpu_med);
          for (int s = 0; s < kNStage; ++s) stage[s].push_back(r.stage[s]);
          if (r.ncon > 0) xc.push_back(r.ncon), yc.push_back(r.stage[kNStage - 1]);
        }
        if (x.empty()) continue;
        const Fit f = loglog(x, y);
        std::fprintf(stderr, "%-6s %-6s %-7s %8.2f", family.c_str(), mode.c_str(), engine, f.slope);
        json << (first ? "" : ",") << "\n    {\"family\": \"" << family << "\", \"mode\": \"" << mode
             << "\", \"engine\": \"" << engine << "\", \"step\": " << f.slope;
        first = false;
        for (int s = 0; s < kNStage; ++s) {
          const Fit fs_ = loglog(x, stage[s]);
          std::fprintf(stderr, " %12.2f", fs_.slope);
          if (std::isfinite(fs_.slope)) json << ", \"" << kStageNames[s] << "\": " << fs_.slope;
        }
        std::fprintf(stderr, "\n");
        if (family == "pile" && mode == "full") {
          const Fit fc = loglog(xc, yc);
          std::fprintf(stderr, "%-6s %-6s %-7s constraint solver ~ ncon^%.2f\n", family.c_str(), mode.c_str(), engine,
                       fc.slope);
          if (std::isfinite(fc.slope)) json << ", \"constraint_vs_ncon\": " << fc.slope;
        }
        json << "}";
      }
  json << "\n  ]\n}\n";
  if (!o.fit.empty()) {
    std::ofstream f(o.fit);
    f << json.str();
  }
  return 0;
}

// Spec -> Model: the driver. The work is in compile_tree.cc and compile_objects.cc; the constants
// that need the dynamics at qpos0 come last (finish).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include <unistd.h>

#include "compiler/compile.h"
#include "compiler/compiler.h"
#include "compiler/lengthrange.h"
#include "constraint/storage.h"
#include "compiler/fuse_static.h"
#include "compiler/global_coordinates.h"
#include "math/vec.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau::compiler {

using namespace moreau::math;

// ------------------------------------------------------------------------------ driver

Model Compiler::run() {
  m_.modelname = s_.modelname;
  m_.model_file = s_.file;
  m_.opt = s_.opt;
  m_.stat = Statistic{};  // set_const computes the statistics; the loader applies <statistic>'s
  m_.vis = s_.vis;
  m_.nconmax = s_.nconmax;
  m_.njmax = s_.njmax;
  m_.nstack = s_.nstack;
  m_.memory = s_.memory;
  m_.nuserdata = s_.nuserdata;
  compile_assets();
  flatten(s_.world, -1);
  m_.body_parentid[0] = 0;  // MuJoCo convention: the world is its own parent
  m_.body_names.clear();
  for (const auto* b : bodies_) m_.body_names.push_back(b->name);
  m_.body_names[0] = "world";
  if (s_.world.name.empty()) body_names_.ids.emplace("world", 0);
  m_.nbody = static_cast<int>(bodies_.size());
  compile_tree();
  compile_mesh_graphs();
  compile_tree_structure();
  for (const auto* j : joints_) m_.jnt_names.push_back(j->name);
  for (const auto* g : geoms_) m_.geom_names.push_back(g->name);
  for (const auto* s : sites_) m_.site_names.push_back(s->name);
  compile_tendons();
  compile_actuators();
  compile_sensors();
  compile_equalities();
  compile_contacts();
  compile_keys();
  compile_custom();
  compile_user_sizes();
  // mass of subtrees (used by set_const and sensors)
  m_.body_subtreemass = m_.body_mass;
  for (int b = m_.nbody - 1; b > 0; --b) m_.body_subtreemass[m_.body_parentid[b]] += m_.body_subtreemass[b];
  m_.body_invweight0.assign(2 * m_.nbody, 0);
  m_.dof_invweight0.assign(m_.nv, 0);
  m_.dof_M0.assign(m_.nv, 0);
  return std::move(m_);
}

namespace {

// The compiled arrays of a Spec, before the constants that need the dynamics (compile()).
// springdamper (optional out): 2 per joint, the joints' springdamper values; they need
// dof_invweight0 and are applied after set_const.
Model compile_arrays(const mjcf::Spec& spec, std::vector<double>* springdamper) {
  if (spec.compiler.global) {
    // A body without 'pos' sits at its inertial frame: compile once with such bodies at the
    // world frame, where their compiled inertial frames are world poses.
    std::vector<double> frames;
    if (has_unplaced_body(spec.world)) {
      mjcf::Spec probe = spec;
      probe.compiler.settotalmass = -1;
      probe.compiler.fusestatic = false;
      global_to_local(probe, nullptr);
      const Model placed = Compiler(probe, false).run();
      for (int b = 0; b < placed.nbody; ++b) {
        frames.insert(frames.end(), &placed.body_ipos[3 * b], &placed.body_ipos[3 * b] + 3);
        frames.insert(frames.end(), &placed.body_iquat[4 * b], &placed.body_iquat[4 * b] + 4);
      }
    }
    mjcf::Spec local = spec;
    global_to_local(local, &frames);
    return compile_arrays(local, springdamper);
  }
  if (spec.compiler.fusestatic && fusion_allowed(spec)) {
    mjcf::Spec first = spec;
    first.compiler.settotalmass = -1;
    const Model unfused = Compiler(first, false).run();
    mjcf::Spec fused = fuse_static(spec, unfused);
    fused.compiler.fusestatic = false;
    return compile_arrays(fused, springdamper);
  }
  const mjcf::Spec& s = spec;
  Compiler c(s);
  Model m = c.run();
  if (springdamper) {
    springdamper->clear();
    std::function<void(const mjcf::BodySpec&)> walk = [&](const mjcf::BodySpec& b) {
      for (const auto& j : b.joints) {
        const bool on = j.springdamper[0] > 0 && j.springdamper[1] > 0;
        if (on && j.type != kJointHinge && j.type != kJointSlide)
          fail(j.src, "attribute 'springdamper' is only allowed for hinge and slide joints");
        springdamper->push_back(on ? j.springdamper[0] : 0);
        springdamper->push_back(on ? j.springdamper[1] : 0);
      }
      for (const auto& c : b.children) walk(c);
    };
    walk(s.world);
  }
  return m;
}

// The compiled model plus the constants that need the dynamics at qpos0 (set_const), the
// resting length of tendon springs without springlength: the tendon's length in the spring
// reference configuration qpos_spring (as MuJoCo 2.2.2), and the actuator length ranges
// (compiler/lengthrange).
Model finish(Model m, const std::vector<double>& springdamper, const mjcf::Spec& spec) {
  const Statistic& given = spec.stat;  // NaN where <statistic> does not set the value
  set_const(m);
  if (!std::isnan(given.meaninertia)) m.stat.meaninertia = given.meaninertia;  // as 2.2.2
  if (!std::isnan(given.meanmass)) m.stat.meanmass = given.meanmass;
  if (!std::isnan(given.meansize)) m.stat.meansize = given.meansize;
  if (!std::isnan(given.extent)) m.stat.extent = given.extent;
  if (!std::isnan(given.center[0])) std::copy(given.center, given.center + 3, m.stat.center);
  // springdamper (time constant T, damping ratio z): a mass-spring-damper with the joint's
  // effective mass 1/dof_invweight0 at qpos0: stiffness = M/(T z)^2, damping = 2 M / T.
  for (int j = 0; j < m.njnt; ++j) {
    const double T = springdamper[2 * j], z = springdamper[2 * j + 1];
    if (T <= 0 || z <= 0) continue;
    const int dof = m.jnt_dofadr[j];
    const double iw = m.dof_invweight0[dof];
    if (iw <= 0) continue;
    m.jnt_stiffness[j] = 1 / (iw * T * T * z * z);
    m.dof_damping[dof] = 2 / (iw * T);
  }
  bool need = false;
  for (int t = 0; t < m.ntendon; ++t) need = need || m.tendon_lengthspring[t] < 0;
  if (need) {
    Data d = make_data(m);
    reset_data(m, d);
    for (int i = 0; i < m.nq; ++i) d.qpos[i] = m.qpos_spring[i];
    kinematics(m, d);
    com_pos(m, d);
    tendon(m, d);
    for (int t = 0; t < m.ntendon; ++t)
      if (m.tendon_lengthspring[t] < 0) m.tendon_lengthspring[t] = d.ten_length[t];
  }
  std::string error;
  const int u = set_lengthrange(m, spec.compiler.lengthrange, &error);
  if (u >= 0) mjcf::fail(spec.actuators[u].src, error);
  return m;
}

// This machine's physical memory in bytes (0 when unknown: no limit).
long long physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<long long>(pages) * page : 0;
}

// The largest n in [lo, hi] with fits(n), given fits(lo) (fits is monotone: true, then false).
template <class F>
long long largest_fitting(long long lo, long long hi, F fits) {
  while (lo < hi) {
    const long long mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// <size memory|nconmax|njmax>: the contacts and constraint rows they give every Data (rules in
// constraint/storage.cc) must be ones Moreau can index (int) and this machine can hold; otherwise
// a LoadError at <size> naming the attribute, what it asks for and the largest value this model
// accepts. Checked before anything makes a Data.
void check_arena(const Model& m, const mjcf::Spec& spec) {
  const long long limit = physical_memory();
  const long long ncon = constraint::contact_capacity(m);
  const long long rows = constraint::row_capacity(m, ncon);
  std::string why = constraint::arena_problem(m, ncon, rows, limit);
  if (why.empty()) return;
  const mjcf::Node& n = spec.size_src;
  auto given = [&](const char* attr) {
    for (const auto& [name, value] : n.attrs)
      if (name == attr) return "attribute '" + std::string(attr) + "' = '" + value + "'";
    return "attribute '" + std::string(attr) + "'";
  };
  // njmax sets the rows whatever the contacts: blamed when its rows alone cannot be had
  if (m.njmax > 0) {
    const std::string alone = constraint::arena_problem(m, 1, m.njmax, limit);
    if (!alone.empty()) {
      const long long most = largest_fitting(1, m.njmax, [&](long long r) {
        return constraint::arena_problem(m, 1, r, limit).empty();
      });
      mjcf::fail(n, given("njmax") + " asks for " + alone + "; for this model 'njmax' accepts -1 or at most " +
                        std::to_string(most));
    }
  }
  auto fits = [&](long long c) {
    return constraint::arena_problem(m, c, constraint::row_capacity(m, c), limit).empty();
  };
  if ((m.nconmax <= 0 && m.memory <= 0) || !fits(1))
    mjcf::fail(n, "the model's contacts and constraint rows cannot be stored: " + why);
  const long long most = largest_fitting(1, ncon, fits);
  if (m.nconmax > 0)
    mjcf::fail(n, given("nconmax") + " asks for " + why + "; for this model 'nconmax' accepts -1 or at most " +
                      std::to_string(most));
  const long long per_contact = constraint::memory_per_contact(m);
  mjcf::fail(n, given("memory") + " asks for " + why + "; for this model 'memory' accepts -1 or at most " +
                    std::to_string((most + 1) * per_contact - 1) + " bytes (" + std::to_string(per_contact) +
                    " per contact)");
}

}  // namespace

Model compile(const mjcf::Spec& spec) {
  std::vector<double> springdamper;
  Model m = compile_arrays(spec, &springdamper);
  check_arena(m, spec);
  return finish(std::move(m), springdamper, spec);
}

}  // namespace moreau::compiler

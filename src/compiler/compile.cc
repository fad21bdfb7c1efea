// Spec -> Model: the driver. The work is in compile_tree.cc and compile_objects.cc.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/compiler.h"
#include "compiler/fuse_static.h"
#include "compiler/global_coordinates.h"
#include "math/vec.h"

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

Model compile(const mjcf::Spec& spec, std::vector<double>* springdamper) {
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
    return compile(local, springdamper);
  }
  if (spec.compiler.fusestatic && fusion_allowed(spec)) {
    mjcf::Spec first = spec;
    first.compiler.settotalmass = -1;
    const Model unfused = Compiler(first, false).run();
    mjcf::Spec fused = fuse_static(spec, unfused);
    fused.compiler.fusestatic = false;
    return compile(fused, springdamper);
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

}  // namespace moreau::compiler

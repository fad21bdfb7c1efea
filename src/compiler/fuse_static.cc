// compiler fusestatic="true": static bodies (no joints, not mocap) are merged into their parent.
//
// What MuJoCo 2.2.2 does, established by experiment (tests/differential/compiler_flags_test.cc):
// - Fusion is all or nothing: it is skipped for the whole model when the model has any camera,
//   light, skin, tuple, actuator, tendon, sensor, equality, contact pair or exclude (any element
//   that could name a body), so no remaining element can refer to a fused body. Keyframes,
//   meshes, materials and custom numeric/text data do not prevent it.
// - A static body's geoms and sites move to its parent, after the parent's own ones, with their
//   poses composed; its child bodies take its place in the parent's list of children. Static
//   children of the world are fused into the world too. Nested static bodies fuse bottom-up.
// - Mass properties: each body's inertia is first compiled on its own (explicit <inertial> or from
//   its geoms, then boundmass/boundinertia/balanceinertia), then the static body's is added to the
//   parent's about their joint center of mass and the result is rediagonalized. A static body with
//   no mass leaves its parent's inertia exactly as it was. Inertia moved into the world is dropped.
// - settotalmass scales the fused model; the check that moving bodies have mass comes after
//   fusion.
// The compiled inertia of each body comes from compiling the unfused Spec once (first pass).
#include <cmath>
#include <vector>

#include "compiler/compile_internal.h"
#include "compiler/compiler.h"
#include "compiler/fuse_static.h"
#include "math/vec.h"

namespace moreau::compiler {

using namespace moreau::math;

namespace {

// A body's mass properties in its own frame: mass, center of mass, principal frame and moments.
struct Mass {
  double mass = 0, pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0}, inertia[3] = {0, 0, 0};
};

// Full inertia tensor (row-major 3x3) about the body origin's axes, centered at the body's com.
void tensor_of(const Mass& b, double T[9]) {
  double R[9];
  quat2mat(R, b.quat);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double v = 0;
      for (int k = 0; k < 3; ++k) v += R[3 * r + k] * b.inertia[k] * R[3 * c + k];
      T[3 * r + c] = v;
    }
}

// Adds `s` (already expressed in p's frame) to p.
void add_mass(Mass& p, const Mass& s) {
  if (s.mass < kMinVal) return;  // a massless static body leaves the parent as it was (2.2.2)
  const double total = p.mass + s.mass;
  double com[3];
  for (int k = 0; k < 3; ++k) com[k] = (p.mass * p.pos[k] + s.mass * s.pos[k]) / total;
  double I[9] = {0};
  for (const Mass* b : {static_cast<const Mass*>(&p), &s}) {
    double T[9], d[3];
    tensor_of(*b, T);
    sub3(d, b->pos, com);
    const double dd = dot3(d, d);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) I[3 * r + c] += T[3 * r + c] + b->mass * ((r == c ? dd : 0) - d[r] * d[c]);
  }
  const double full[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
  principal_axes(full, p.inertia, p.quat);
  copy3(p.pos, com);
  p.mass = total;
}

void move_frame(double* pos, double* quat, const double* fpos, const double* fquat) {
  mulpose(pos, quat, fpos, fquat, pos, quat);
  normalize4_div(quat);
}

bool is_static(const mjcf::BodySpec& b) { return b.joints.empty() && !b.mocap; }

class Fuser {
 public:
  explicit Fuser(const Model& unfused) : m_(unfused) {}

  // Fuses the static descendants of b into b (depth first, bottom-up); returns b's mass
  // properties afterwards.
  Mass fuse(mjcf::BodySpec& b, bool world) {
    const int id = next_++;
    Mass self;
    self.mass = m_.body_mass[id];
    copy3(self.pos, &m_.body_ipos[3 * id]);
    copy4(self.quat, &m_.body_iquat[4 * id]);
    copy3(self.inertia, &m_.body_inertia[3 * id]);
    bool merged = false;
    std::vector<mjcf::BodySpec> kids = std::move(b.children);
    b.children.clear();
    for (auto& k : kids) {
      const Mass km = fuse(k, false);
      if (!is_static(k)) {
        b.children.push_back(std::move(k));
        continue;
      }
      merged = true;
      // A fromto frame is made in the static body's frame, then moved (its turn about the
      // segment depends on the frame it is made in).
      for (auto& g : k.geoms) {
        if (g.has_fromto) {
          geom_fromto(g, g.pos, g.quat, g.size);
          g.has_fromto = false;
        }
        move_frame(g.pos, g.quat, k.pos, k.quat);
        b.geoms.push_back(std::move(g));
      }
      for (auto& s : k.sites) {
        if (s.has_fromto) {
          site_fromto(s, s.pos, s.quat, s.size);
          s.has_fromto = false;
        }
        move_frame(s.pos, s.quat, k.pos, k.quat);
        b.sites.push_back(std::move(s));
      }
      for (auto& c : k.children) {
        move_frame(c.pos, c.quat, k.pos, k.quat);
        b.children.push_back(std::move(c));
      }
      Mass moved = km;
      move_frame(moved.pos, moved.quat, k.pos, k.quat);
      if (!world) add_mass(self, moved);
    }
    if (merged && !world) {
      // The parent keeps the inertia computed here, whatever inertiafromgeom says: its geom list
      // now includes the fused geoms, whose mass is already counted.
      mjcf::InertialSpec& in = b.inertial;
      if (!in.present) in.src = b.src;
      in.present = true;
      in.compiled = true;
      in.full = false;
      in.mass = self.mass;
      copy3(in.pos, self.pos);
      copy4(in.quat, self.quat);
      for (int k = 0; k < 3; ++k) in.inertia[k] = self.inertia[k];
    }
    return self;
  }

 private:
  const Model& m_;
  int next_ = 0;  // body id in the unfused model: bodies are numbered depth first, as flatten does
};

}  // namespace

bool fusion_allowed(const mjcf::Spec& s) {
  int ncam = 0, nlight = 0;
  std::vector<const mjcf::BodySpec*> stack{&s.world};
  while (!stack.empty()) {
    const mjcf::BodySpec* b = stack.back();
    stack.pop_back();
    ncam += static_cast<int>(b->cameras.size());
    nlight += static_cast<int>(b->lights.size());
    for (const auto& c : b->children) stack.push_back(&c);
  }
  return ncam == 0 && nlight == 0 && s.skins.empty() && s.tuples.empty() && s.actuators.empty() &&
         s.tendons.empty() && s.sensors.empty() && s.equalities.empty() && s.pairs.empty() && s.excludes.empty();
}

mjcf::Spec fuse_static(const mjcf::Spec& spec, const Model& unfused) {
  mjcf::Spec fused = spec;
  Fuser f(unfused);
  f.fuse(fused.world, true);
  return fused;
}

}  // namespace moreau::compiler

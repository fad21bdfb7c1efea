// compiler coordinate="global": the positions and orientations of bodies, inertials, joints,
// geoms, sites, cameras and lights, and the anchors of connect and weld equalities, are given in
// the world frame. This pass rewrites them into the local frames the compiler expects, walking
// the body tree with each body's world pose.
//
// What MuJoCo 2.2.2 does, established by experiment (tests/differential/compiler_flags_test.cc):
// - A body without 'pos' takes its inertial frame as its body frame (its 'quat' is then ignored),
//   so its ipos is 0 and its iquat the identity; without mass information that is an error.
// - An omitted element position is the world origin, an omitted orientation the world axes; a
//   free joint's position stays 0 and its axis is the world z axis, converted.
// - fromto frames are made in world coordinates, then converted.
// - A massless body's inertial frame is its body frame (in local coordinates 2.2.2 puts it at the
//   body's position in its parent instead).
// - A fullinertia tensor is given in world axes.
// - A light's direction is rotated by its body's world orientation (not by the inverse).
// - A connect anchor is converted to body1's frame, a weld anchor to body2's (the world's if
//   absent); weld relpose is not converted.
// - <composite> is refused.
#include <map>

#include "compiler/compile_internal.h"
#include "compiler/compiler.h"
#include "compiler/global_coordinates.h"
#include "math/vec.h"

namespace moreau::compiler {

using namespace moreau::math;
using mjcf::BodySpec;
using mjcf::fail;

namespace {

struct Pose {
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
};

// A point given in the world, expressed in the frame `f`.
void point_to_local(double* p, const Pose& f) {
  double d[3], qinv[4];
  sub3(d, p, f.pos);
  negquat(qinv, f.quat);
  rotvecquat(p, d, qinv);
}

void vector_to_local(double* v, const Pose& f) {
  double qinv[4];
  negquat(qinv, f.quat);
  rotvecquat(v, v, qinv);
}

void quat_to_local(double* q, const Pose& f) {
  double qinv[4];
  negquat(qinv, f.quat);
  mulquat(q, qinv, q);
  normalize4_div(q);
}

void frame_to_local(double* pos, double* quat, const Pose& f) {
  point_to_local(pos, f);
  quat_to_local(quat, f);
}

class Converter {
 public:
  // frames: 7 numbers per body (depth-first order, the world first): the world pose of the
  // inertial frame, used for bodies without 'pos'; null: such bodies get the world frame.
  Converter(const mjcf::Spec& s, const std::vector<double>* frames) : s_(s), frames_(frames) {}

  void body(BodySpec& b, const Pose& parent) {
    const int id = next_++;
    Pose self;  // the body's world pose
    if (b.pos_set) {
      copy3(self.pos, b.pos);
      copy4(self.quat, b.quat);
      normalize4_div(self.quat);
    } else if (frames_) {
      if (!has_mass_source(b))
        fail(b.src, "with coordinate=\"global\" a body without 'pos' is placed at its center of mass, but this body "
                    "has no <inertial> and no geoms with mass: give it 'pos'");
      copy3(self.pos, &(*frames_)[7 * id]);
      copy4(self.quat, &(*frames_)[7 * id + 3]);
    }
    if (!b.name.empty()) world_pose_[b.name] = self;
    copy3(b.pos, self.pos);
    copy4(b.quat, self.quat);
    frame_to_local(b.pos, b.quat, parent);
    mjcf::InertialSpec& in = b.inertial;
    if (in.present) {
      if (in.full) {
        // The tensor is in world axes: its principal frame is a world orientation.
        double diag[3], q[4];
        if (!principal_axes(in.inertia, diag, q)) fail(in.src, "attribute 'fullinertia' must be positive definite");
        for (int k = 0; k < 3; ++k) in.inertia[k] = diag[k];
        copy4(in.quat, q);
        in.full = false;
      }
      frame_to_local(in.pos, in.quat, self);
    } else if (!has_mass_source(b)) {
      // No mass: the compiler would put the inertial frame at the body's position in its parent
      // (a 2.2.2 convention of local coordinates); in global coordinates 2.2.2 puts it at the
      // body origin.
      in.present = in.compiled = true;
      in.src = b.src;
    }
    for (auto& j : b.joints) {
      if (j.type != kJointFree) point_to_local(j.pos, self);  // a free joint's stays 0
      vector_to_local(j.axis, self);
    }
    // A fromto frame is made in world coordinates, then converted (its turn about the segment
    // depends on the frame it is made in).
    for (auto& g : b.geoms) {
      if (g.has_fromto) {
        geom_fromto(g, g.pos, g.quat, g.size);
        g.has_fromto = false;
      }
      frame_to_local(g.pos, g.quat, self);
    }
    for (auto& st : b.sites) {
      if (st.has_fromto) {
        site_fromto(st, st.pos, st.quat, st.size);
        st.has_fromto = false;
      }
      frame_to_local(st.pos, st.quat, self);
    }
    for (auto& c : b.cameras) frame_to_local(c.pos, c.quat, self);
    for (auto& l : b.lights) {
      point_to_local(l.pos, self);
      rotvecquat(l.dir, l.dir, self.quat);  // 2.2.2 rotates by the body's orientation, not its inverse
    }
    for (auto& c : b.children) body(c, self);
  }

  void world(BodySpec& w) {
    next_ = 1;  // the world is body 0; its own elements are already in the world frame
    world_pose_["world"] = Pose{};
    for (auto& c : w.children) body(c, Pose{});
  }

  const Pose* pose_of(const std::string& name) const {
    const auto it = world_pose_.find(name);
    return it == world_pose_.end() ? nullptr : &it->second;
  }

 private:
  const mjcf::Spec& s_;
  const std::vector<double>* frames_;
  int next_ = 0;
  std::map<std::string, Pose> world_pose_;

  // Whether the compiler can give the body an inertial frame (compiler/inertiafromgeom and
  // inertiagrouprange decide which geoms count).
  bool has_mass_source(const BodySpec& b) const {
    const auto& c = s_.compiler;
    bool geoms = false;
    for (const auto& g : b.geoms)
      geoms = geoms || (g.group >= c.inertiagrouprange[0] && g.group <= c.inertiagrouprange[1]);
    if (c.inertiafromgeom == 1) return geoms;
    if (c.inertiafromgeom == 0) return b.inertial.present;
    return b.inertial.present || geoms;
  }
};

}  // namespace

bool has_unplaced_body(const mjcf::BodySpec& b, bool world) {
  if (!world && !b.pos_set) return true;
  for (const auto& c : b.children)
    if (has_unplaced_body(c, false)) return true;
  return false;
}

void global_to_local(mjcf::Spec& spec, const std::vector<double>* frames) {
  Converter conv(spec, frames);
  conv.world(spec.world);
  for (auto& e : spec.equalities) {
    if (e.type != kEqConnect && e.type != kEqWeld) continue;
    const std::string& frame_body = e.type == kEqConnect ? e.name1 : (e.name2.empty() ? "world" : e.name2);
    if (const Pose* p = conv.pose_of(frame_body)) point_to_local(e.data, *p);  // else: the compiler reports the name
  }
  spec.compiler.global = false;
}

}  // namespace moreau::compiler

// <frame>: a pose-only grouping element (newer than MuJoCo 2.2.2; MJCF reference, body/frame:
// "Frames specify a coordinate transformation which is applied to all child elements. During
// compilation the transformation they encode is accumulated in their direct children"). The
// parser places a frame's children in the enclosing body with the frame's pose composed into
// theirs, so the compiler never sees a frame: a model with frames compiles to the same arrays as
// the same model with the poses composed by hand.
#include "math/vec.h"
#include "mjcf/parse_common.h"
#include "model_geometry/geometry.h"

namespace moreau::mjcf {

using namespace moreau::math;

FramePose FramePose::then(const double pos[3], const double quat[4]) const {
  FramePose r;
  r.inside = true;
  const bool local_identity =
      pos[0] == 0 && pos[1] == 0 && pos[2] == 0 && quat[0] == 1 && quat[1] == 0 && quat[2] == 0 && quat[3] == 0;
  r.identity = identity && local_identity;
  mulpose(r.pos, r.quat, this->pos, this->quat, pos, quat);
  normalize4_div(r.quat);
  return r;
}

void FramePose::apply(double p[3], double q[4]) const {
  if (identity) return;
  double rp[3], rq[4];
  mulpose(rp, rq, pos, quat, p, q);
  normalize4_div(rq);
  copy3(p, rp);
  copy4(q, rq);
}

void FramePose::apply_point(double p[3]) const {
  if (identity) return;
  double rp[3];
  rotvecquat(rp, p, quat);
  add3(p, rp, pos);
}

void FramePose::apply_vector(double v[3]) const {
  if (identity) return;
  rotvecquat(v, v, quat);
}

// A fromto segment is given in the frame's coordinates: the geom's frame is made there (as the
// compiler makes it in a body's frame: z along the segment, the minimal turn from the frame's z),
// then moved with the frame. The segment's end points move rigidly, so the geom's position,
// axis and size are those of the end points composed by hand; its turn about the segment is the
// one made in the frame (it only matters for boxes and ellipsoids). This is how fusestatic moves
// the fromto geoms of a fused body (src/compiler/fuse_static.cc).
void FramePose::apply(GeomSpec& g) const {
  if (identity) return;
  if (g.has_fromto) {
    if (const char* error = geometry::geom_fromto(g.type, g.fromto, g.pos, g.quat, g.size)) fail(g.src, error);
    g.has_fromto = false;
  }
  apply(g.pos, g.quat);
}

void FramePose::apply(SiteSpec& s) const {
  if (identity) return;
  if (s.has_fromto) {
    geometry::site_fromto(s.type, s.fromto, s.pos, s.quat, s.size);
    s.has_fromto = false;
  }
  apply(s.pos, s.quat);
}

// A joint's position and axis are coordinates in the body frame; a free joint has neither.
void FramePose::apply(JointSpec& j) const {
  if (j.type == kJointFree) return;
  apply_point(j.pos);
  apply_vector(j.axis);
}

void FramePose::apply(LightSpec& l) const {
  apply_point(l.pos);
  apply_vector(l.dir);
}

}  // namespace moreau::mjcf

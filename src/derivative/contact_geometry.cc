// The derivative of a contact's position, distance and frame with respect to the rigid motions of
// its two geoms (contact_geometry.h). A geom's motion is a twist (w, v): angular velocity w and the
// velocity v of its origin geom_xpos, so that a point x fixed in the geom moves with
// v + w x (x - geom_xpos) and a direction u fixed in it with w x u. The methods, by geom pair:
//
// Analytic (exact), from how the narrow phase builds the contact (src/collision):
//  - plane (geom1; static in 2.2.2's models, a turning plane handled too) vs sphere, capsule, box,
//    ellipsoid, cylinder, mesh:
//    n = the plane's z axis (dn = w1 x n), x = the point of geom2 that the routine picks, a function
//    x_l(n_l) of the normal in geom2's frame (n_l = R2' n): a box corner or mesh vertex (fixed), a
//    sphere's or capsule end's centre minus r n_l, an ellipsoid's support point -D^2 n_l / |D n_l|,
//    a cylinder's rim point (direction -n_l's xy part, turned by 0 or +-120 degrees); then
//    dist = n.(x - plane origin), pos = x - n dist / 2; the frame's offered tangent is a capsule's
//    axis (turning with it), else the world y (z) axis.
//  - sphere and capsule pairs (parallel capsules included: each end contact is an end's centre
//    against the closest point of the other segment): two points c1, c2 with radii, c = a centre,
//    a segment end, or the closest point p + s u of a segment (s free inside: u.(c1 - c2) = 0),
//    n = (c2 - c1) / L, dist = L - r1 - r2, pos = c1 + n (r1 + dist / 2).
//  - sphere-box: the same with c2 = the centre clamped to the box (sliding on a face or an edge),
//    or for a centre inside the box the face of least depth (sphere_box_pair below).
//  - capsule-box: the sphere-box form with the sphere's centre sliding on the segment (an end,
//    a box plane's crossing, the closest point to the box; capsule_box_pair below).
//  - box-box: each point of a face or edge contact recognised as one of the routine's features
//    (an incident edge crossing a reference side line, a reference corner, an incident vertex),
//    fixed by four planes of the two boxes (box_box_pair below).
// Narrow-phase differences (capsule-box and box-box points not recognised, and the MPR pairs: ellipsoid,
// cylinder and mesh vs non-plane geoms, height fields): the pair's routine is piecewise smooth
// (box pairs: clipping branches, MuJoCo's half-depth face distances, scaled corners; MPR: libccd's
// portal refinement, whose steps stay the same under small perturbations), so its derivative is
// taken by centred differences of the routine alone: step 1e-6 along each twist direction the
// dofs give the two geoms (at most 12), the contact matched by position. Truncation ~1e-13, round-off ~1e-10 relative; the derivative
// is that of what the routine returns (for MPR, its approximate penetration, not the exact
// geometry's). It costs at most 48 calls of the routine per contact, not a forward pass per column.
// Where MPR jumps under 1e-6 perturbations (it takes another path: measured jumps of 1e-6..1e-5
// of the geoms' size in pos and up to 1e-4 in the normal on flat faces, at every scale from 1e-7
// to 1e-3), the model's routine has no derivative (centred differences of forward there grow as
// 1/eps). The fallback runs MPR to convergence (tolerance 1e-12), a smooth function of the poses
// up to a jitter of ~4e-9 in pos, and differences it at steps 1e-4 and 1e-4/4 (agreement 1e-2):
// the derivative of the contact the model's MPR approximates within its tolerance. Where that
// jumps too, or a perturbation loses the contact, the witness approximation: the points
// p1 = pos - n dist / 2 and p2 = pos + n dist / 2 (a sphere's or capsule's moved to its centre
// line) held on their geoms, the normal fixed: d dist = n.(v2(p2) - v1(p1)),
// d pos = (v1(p1) + v2(p2)) / 2, d frame = 0. A rough approximation (errors of order 1 on smooth
// MPR contacts, docs/notes/derivatives.md): MPR's depth is not the geometric penetration, and the
// curvature terms of dn and of the points' sliding are omitted. Each fallback warns once.
#include "derivative/contact_geometry.h"

#include <ccd/ccd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "collision/convex.h"
#include "collision/narrowphase.h"
#include "kinematics/jacobian.h"
#include "math/vec.h"
#include "moreau/collision.h"

namespace moreau::internal {
namespace {

using namespace math;

bool round_type(int t) { return t == kGeomSphere || t == kGeomCapsule; }
bool moving(const Model& m, int geom) { return last_dof(m, m.geom_bodyid[geom]) >= 0; }

// Velocity of world point x of a geom with twist tw (w, v at its origin gp).
void point_vel(double* out, const double* tw, const double* gp, const double* x) {
  double r[3], t[3];
  sub3(r, x, gp);
  cross3(t, tw, r);
  add3(out, tw + 3, t);
}

// d frame (rows n, t1, t2) from dn and the offered tangent tan0 (dtan its derivative): make_frame's
// t1 = normalize(tan0 - (n.tan0) n), t2 = n x t1.
void frame_deriv(const double* frame, const double* dn, const double* tan0, const double* dtan, double* dframe) {
  const double* n = frame;
  copy3(dframe, dn);
  std::fill_n(dframe + 3, 6, 0.0);
  const double nt = dot3(n, tan0);
  double u[3], du[3];
  for (int a = 0; a < 3; ++a) {
    u[a] = tan0[a] - nt * n[a];
    du[a] = dtan[a] - (dot3(dn, tan0) + dot3(n, dtan)) * n[a] - nt * dn[a];
  }
  const double ul = std::sqrt(dot3(u, u));
  if (ul <= kMinVal) return;
  const double* t1 = frame + 3;
  const double tp = dot3(t1, du);
  for (int a = 0; a < 3; ++a) dframe[3 + a] = (du[a] - tp * t1[a]) / ul;
  double x[3], y[3];
  cross3(x, dn, t1);
  cross3(y, n, dframe + 3);
  for (int a = 0; a < 3; ++a) dframe[6 + a] = x[a] + y[a];
}

// The default tangent of make_frame (no tangent offered): world y, or z when n is near y.
void default_tangent(const double* n, double* tan0) {
  tan0[0] = tan0[1] = tan0[2] = 0;
  if (std::abs(n[1]) < 0.5) tan0[1] = 1; else tan0[2] = 1;
}

// ---- plane (geom1) vs a convex primitive or mesh (geom2) ----

struct PlanePair {
  const double* frame;
  double n[3], x[3], xl[3], dist;
  const double* p1;  // plane origin
  const double* p2;  // geom2 origin
  const double* R2;  // geom2 frame (row-major)
  int type;
  const double* size;
  int cyl = 0;         // the cylinder point (0: the deepest rim point, 1: the other disk, 2, 3: +-120 degrees)
  double cv[2], cvn = 0;  // the cylinder's rim direction (unit) and |n_l's xy part|
};

void cylinder_points(const double* nl, double r, double h, double* vx, double* vy, double* vn, double pts[4][3]) {
  const double zd = nl[2] > 0 ? -h : h;
  *vx = -nl[0], *vy = -nl[1];
  *vn = std::sqrt(*vx * *vx + *vy * *vy);
  if (*vn < kMinVal) { *vx = 1; *vy = 0; } else { *vx /= *vn; *vy /= *vn; }
  const double c = -0.5, s = std::sqrt(3.0) / 2;
  const double x = *vx, y = *vy;
  const double p[4][3] = {{r * x, r * y, zd}, {r * x, r * y, -zd}, {r * (c * x - s * y), r * (s * x + c * y), zd},
                          {r * (c * x + s * y), r * (-s * x + c * y), zd}};
  for (int i = 0; i < 4; ++i) copy3(pts[i], p[i]);
}

PlanePair plane_pair(const Model& m, const Data& d, const Contact& con) {
  PlanePair g;
  g.frame = con.frame;
  copy3(g.n, con.frame);
  g.dist = con.dist;
  for (int a = 0; a < 3; ++a) g.x[a] = con.pos[a] + 0.5 * con.dist * g.n[a];
  g.p1 = &d.geom_xpos[3 * con.geom1];
  g.p2 = &d.geom_xpos[3 * con.geom2];
  g.R2 = &d.geom_xmat[9 * con.geom2];
  g.type = m.geom_type[con.geom2];
  g.size = &m.geom_size[3 * con.geom2];
  double r[3];
  sub3(r, g.x, g.p2);
  mulmatTvec3(g.xl, g.R2, r);
  if (g.type == kGeomCylinder) {
    double nl[3], pts[4][3];
    mulmatTvec3(nl, g.R2, g.n);
    cylinder_points(nl, g.size[0], g.size[1], &g.cv[0], &g.cv[1], &g.cvn, pts);
    double best = 1e300;
    for (int i = 0; i < 4; ++i) {
      double e[3];
      sub3(e, pts[i], g.xl);
      if (dot3(e, e) < best) best = dot3(e, e), g.cyl = i;
    }
  }
  return g;
}

// out: d pos (3), d dist, d frame (9) for twists tw1 (plane), tw2 (geom2).
void plane_deriv(const PlanePair& g, const double* tw1, const double* tw2, double* out) {
  double dn[3], wn[3], t[3], dnl[3], dxl[3] = {0, 0, 0};
  cross3(dn, tw1, g.n);
  cross3(wn, tw2, g.n);
  sub3(t, dn, wn);
  mulmatTvec3(dnl, g.R2, t);  // n_l = R2' n: d n_l = R2' (dn - w2 x n)
  switch (g.type) {
    case kGeomSphere:
    case kGeomCapsule:  // x = centre (or an end's centre) - r n
      for (int a = 0; a < 3; ++a) dxl[a] = -g.size[0] * dnl[a];
      break;
    case kGeomEllipsoid: {  // x_l = -D^2 n_l / |D n_l|
      double nl[3];
      mulmatTvec3(nl, g.R2, g.n);
      double den2 = 0, sd = 0;
      for (int k = 0; k < 3; ++k) {
        const double s2 = g.size[k] * g.size[k];
        den2 += s2 * nl[k] * nl[k];
        sd += s2 * nl[k] * dnl[k];
      }
      const double den = std::sqrt(den2);
      for (int k = 0; k < 3; ++k) {
        const double s2 = g.size[k] * g.size[k];
        dxl[k] = -s2 * dnl[k] / den + s2 * nl[k] * sd / (den2 * den);
      }
      break;
    }
    case kGeomCylinder:
      if (g.cvn >= kMinVal) {
        // v = -n_xy / |n_xy|: dv = (I - v v') (-dn_xy) / |n_xy|, turned as the point is
        const double w0 = -dnl[0], w1 = -dnl[1];
        const double vw = g.cv[0] * w0 + g.cv[1] * w1;
        const double dvx = (w0 - g.cv[0] * vw) / g.cvn, dvy = (w1 - g.cv[1] * vw) / g.cvn;
        const double c = -0.5, s = std::sqrt(3.0) / 2, r = g.size[0];
        if (g.cyl < 2) dxl[0] = r * dvx, dxl[1] = r * dvy;
        else if (g.cyl == 2) dxl[0] = r * (c * dvx - s * dvy), dxl[1] = r * (s * dvx + c * dvy);
        else dxl[0] = r * (c * dvx + s * dvy), dxl[1] = r * (-s * dvx + c * dvy);
      }
      break;
    default:  // box corner, mesh vertex: fixed in the geom
      break;
  }
  double dx[3], Rdxl[3];
  point_vel(dx, tw2, g.p2, g.x);
  mulmatvec3(Rdxl, g.R2, dxl);
  add3(dx, dx, Rdxl);
  double rx[3], rel[3];
  sub3(rx, g.x, g.p1);
  sub3(rel, dx, tw1 + 3);  // the plane origin moves with v1
  const double ddist = dot3(dn, rx) + dot3(g.n, rel);
  for (int a = 0; a < 3; ++a) out[a] = dx[a] - 0.5 * (dn[a] * g.dist + g.n[a] * ddist);
  out[3] = ddist;
  double tan0[3], dtan[3] = {0, 0, 0};
  if (g.type == kGeomCapsule) {
    tan0[0] = g.R2[2], tan0[1] = g.R2[5], tan0[2] = g.R2[8];
    cross3(dtan, tw2, tan0);
  } else {
    default_tangent(g.n, tan0);
  }
  frame_deriv(g.frame, dn, tan0, dtan, out + 4);
}

// ---- sphere and capsule pairs ----

struct RoundPair {
  const double* frame;
  double c1[3], c2[3], r1 = 0, r2 = 0, n[3], L = 0, dist = 0;
  const double* p1;
  const double* p2;
  bool seg1 = false, seg2 = false;  // c1 / c2 slides on a free segment parameter
  double u1[3] = {0, 0, 0}, u2[3] = {0, 0, 0};
};

RoundPair round_pair(const Model& m, const Data& d, const Contact& con) {
  RoundPair g;
  g.frame = con.frame;
  copy3(g.n, con.frame);
  g.dist = con.dist;
  g.r1 = m.geom_size[3 * con.geom1];
  g.r2 = m.geom_size[3 * con.geom2];
  g.p1 = &d.geom_xpos[3 * con.geom1];
  g.p2 = &d.geom_xpos[3 * con.geom2];
  for (int a = 0; a < 3; ++a) {
    g.c1[a] = con.pos[a] - g.n[a] * (g.r1 + 0.5 * con.dist);
    g.c2[a] = con.pos[a] + g.n[a] * (g.r2 + 0.5 * con.dist);
  }
  g.L = con.dist + g.r1 + g.r2;
  auto segment = [&](int geom, const double* c, double* u) {
    const double* R = &d.geom_xmat[9 * geom];
    u[0] = R[2], u[1] = R[5], u[2] = R[8];
    double v[3];
    sub3(v, c, &d.geom_xpos[3 * geom]);
    return std::abs(dot3(u, v)) < m.geom_size[3 * geom + 1] * (1 - 1e-9);  // inside: free
  };
  if (m.geom_type[con.geom1] == kGeomCapsule) g.seg1 = segment(con.geom1, g.c1, g.u1);
  if (m.geom_type[con.geom2] == kGeomCapsule) g.seg2 = segment(con.geom2, g.c2, g.u2);
  if (g.seg1 && g.seg2 && 1 - std::pow(dot3(g.u1, g.u2), 2) <= 1e-12) {
    // parallel capsules: the contact is an end of one against the other segment; the end is the
    // point nearer its segment's end
    double v1[3], v2[3];
    sub3(v1, g.c1, g.p1);
    sub3(v2, g.c2, g.p2);
    const double f1 = std::abs(dot3(g.u1, v1)) / m.geom_size[3 * con.geom1 + 1];
    const double f2 = std::abs(dot3(g.u2, v2)) / m.geom_size[3 * con.geom2 + 1];
    (f1 >= f2 ? g.seg1 : g.seg2) = false;
  }
  return g;
}

void round_deriv(const RoundPair& g, const double* tw1, const double* tw2, double* out) {
  double v1[3], v2[3], du1[3], du2[3], dw0[3], w[3];
  point_vel(v1, tw1, g.p1, g.c1);
  point_vel(v2, tw2, g.p2, g.c2);
  cross3(du1, tw1, g.u1);
  cross3(du2, tw2, g.u2);
  sub3(dw0, v1, v2);
  sub3(w, g.c1, g.c2);
  // segment parameters: u1.w = 0 (s free), u2.w = 0 (t free), w = c1 - c2
  double ds = 0, dt = 0;
  const double e1 = -(dot3(g.u1, dw0) + dot3(du1, w)), e2 = -(dot3(g.u2, dw0) + dot3(du2, w));
  if (g.seg1 && g.seg2) {
    // ds - b dt = e1, b ds - dt = e2
    const double b = dot3(g.u1, g.u2), det = b * b - 1;
    ds = (-e1 + b * e2) / det;
    dt = (e2 - b * e1) / det;
  } else if (g.seg1) {
    ds = e1;
  } else if (g.seg2) {
    dt = -e2;
  }
  double dc1[3], dc2[3], dd[3], dn[3];
  for (int a = 0; a < 3; ++a) dc1[a] = v1[a] + g.u1[a] * ds, dc2[a] = v2[a] + g.u2[a] * dt;
  sub3(dd, dc2, dc1);
  const double ddist = dot3(g.n, dd);
  for (int a = 0; a < 3; ++a) dn[a] = (dd[a] - ddist * g.n[a]) / g.L;
  // pos = c1 + n (r1 + dist/2)
  for (int a = 0; a < 3; ++a) out[a] = dc1[a] + dn[a] * (g.r1 + 0.5 * g.dist) + g.n[a] * 0.5 * ddist;
  out[3] = ddist;
  double tan0[3];
  const double zero[3] = {0, 0, 0};
  default_tangent(g.n, tan0);
  frame_deriv(g.frame, dn, tan0, zero, out + 4);
}

// ---- sphere (geom1) vs box (geom2) ----

// col::sphere_box: c = the sphere's centre in the box's frame. Outside: q = c clamped to the box
// (the clamped coordinates fixed on a face, edge or corner, the others sliding with c),
// n = (q - c) / L, dist = L - r, pos = c + n (r + dist / 2). Inside: n = minus the outward normal
// of the face of least depth (turning with the box), dist = -r (as 2.2.2 reports it), pos at
// c - n (depth - r) / 2 in the box's frame, depth = size_k - |c_k|.
struct SphereBox {
  const double* frame;
  double c[3], cl[3], q[3], n[3], L = 0, r = 0, dist = 0;
  const double* p2;
  const double* R2;
  const double* size;
  bool inside = false, free[3] = {false, false, false};
  int k = 0;
};

// centre: the sphere's centre (world), geom1's origin by default (capsule_box_pair gives its own).
SphereBox sphere_box_pair(const Model& m, const Data& d, const Contact& con, const double* centre = nullptr) {
  SphereBox g;
  g.frame = con.frame;
  copy3(g.n, con.frame);
  g.dist = con.dist;
  g.r = m.geom_size[3 * con.geom1];
  copy3(g.c, centre ? centre : &d.geom_xpos[3 * con.geom1]);
  g.p2 = &d.geom_xpos[3 * con.geom2];
  g.R2 = &d.geom_xmat[9 * con.geom2];
  g.size = &m.geom_size[3 * con.geom2];
  double t[3], ql[3];
  sub3(t, g.c, g.p2);
  mulmatTvec3(g.cl, g.R2, t);
  g.inside = true;
  for (int a = 0; a < 3; ++a) {
    ql[a] = std::clamp(g.cl[a], -g.size[a], g.size[a]);
    g.free[a] = ql[a] == g.cl[a];
    g.inside = g.inside && g.free[a];
  }
  mulmatvec3(g.q, g.R2, ql);
  add3(g.q, g.q, g.p2);
  if (g.inside) {
    double depth = g.size[0] - std::abs(g.cl[0]);
    for (int a = 1; a < 3; ++a)
      if (g.size[a] - std::abs(g.cl[a]) < depth) depth = g.size[a] - std::abs(g.cl[a]), g.k = a;
  } else {
    double e[3];
    sub3(e, g.q, g.c);
    g.L = std::sqrt(dot3(e, e));
  }
  return g;
}

// vc: the centre's velocity (a sphere's: its geom's origin velocity); tw2: the box's twist.
void sphere_box_deriv(const SphereBox& g, const double* vc, const double* tw2, double* out) {
  double vb[3], rel[3], rl[3], dn[3];
  point_vel(vb, tw2, g.p2, g.c);    // the box's material point at c
  sub3(rel, vc, vb);
  mulmatTvec3(rl, g.R2, rel);       // d c_l
  if (g.inside) {
    // pos_l = c_l + nl (r - depth) / 2, nl = -sign(c_k) e_k, d depth = -sign(c_k) d c_k
    const double sg = g.cl[g.k] < 0 ? -1.0 : 1.0;
    double dpl[3];
    copy3(dpl, rl);
    dpl[g.k] += -sg * 0.5 * (sg * rl[g.k]);
    double pos[3], dpw[3], pl[3];
    copy3(pl, g.cl);
    const double depth = g.size[g.k] - std::abs(g.cl[g.k]);
    pl[g.k] += -sg * 0.5 * (g.r - depth);
    mulmatvec3(pos, g.R2, pl);
    add3(pos, pos, g.p2);
    point_vel(out, tw2, g.p2, pos);
    mulmatvec3(dpw, g.R2, dpl);
    add3(out, out, dpw);
    out[3] = 0;
    cross3(dn, tw2, g.n);
  } else {
    // q slides with c along the free coordinates: d q = v_box(q) + R2 P d c_l
    double pl[3] = {0, 0, 0}, dq[3], dd[3];
    for (int a = 0; a < 3; ++a)
      if (g.free[a]) pl[a] = rl[a];
    point_vel(dq, tw2, g.p2, g.q);
    double t[3];
    mulmatvec3(t, g.R2, pl);
    add3(dq, dq, t);
    sub3(dd, dq, vc);
    const double ddist = dot3(g.n, dd);
    for (int a = 0; a < 3; ++a) dn[a] = (dd[a] - ddist * g.n[a]) / g.L;
    for (int a = 0; a < 3; ++a) out[a] = vc[a] + dn[a] * (g.r + 0.5 * g.dist) + g.n[a] * 0.5 * ddist;
    out[3] = ddist;
  }
  double tan0[3];
  const double zero[3] = {0, 0, 0};
  default_tangent(g.n, tan0);
  frame_deriv(g.frame, dn, tan0, zero, out + 4);
}

// ---- capsule (geom1) vs box (geom2) ----
//
// col::capsule_box puts spheres of the capsule's radius at centres c on its segment and collides
// each with the box as sphere-box does; the closed form covers a centre c that is
//  - a segment end (fixed in the capsule; also inside the box);
//  - the segment's crossing of a box plane (a coordinate at +-h: the clipped part's end over a
//    face, or a slide stopped at the edge's slab): e.(c - plane) = 0, e fixed in the box;
//  - the segment's interior point closest to the box: u.(c - q) = 0, q = c clamped to the box.
// c slides on the segment: dc = u_cap(c) + u dt (u_cap: the capsule's material velocity), dt from
// the condition's derivative; the sphere-box derivative then takes dc for the centre's velocity.
// The centre c = pos - n (r + dist / 2) is recognised from the contact (on the segment, and one
// condition within 1e-9 of the sizes, the others clear of theirs by 1e-7). A centre inside the box
// (dist = -r) is covered where it is a segment end (the sphere-box inside form: the face of least
// depth turns with the box). 2.2.2's slide across the box (second_over_edge: c = c1 + sg s u,
// s = 2 h_m / |u_m|, from a first centre c1 over an edge or a corner) is covered where exactly one
// (m, sg) leads back to an end or a closest point c1: dc = dc1 + sg (ds u + s du). A crossing
// segment's edge point inside the box keeps the narrow-phase differences.

struct CapsuleBox {
  SphereBox sb;
  int kind = 0;  // 1: a segment end, 2: a box plane's crossing (axis j), 3: the closest point,
                 // 4: a segment end inside the box, 5: a slide from a first centre (kind 1 or 3)
  int j = 0;
  double u[3];
  const double* p1;
  // a slide: c = c1 + sg s u, s = 2 h_m / |u_m| (u_m = u's component along the box's axis m)
  SphereBox sb1;
  int kind1 = 0, m = 0;
  double sg = 0, s = 0;
};

// The kind (1..3) of an outside centre c on the segment, its sphere-box form in *sb; 0 where none
// holds or the conditions are ambiguous.
int outside_centre_kind(const Model& m, const Data& d, const Contact& con, const double* c, const double* u,
                        const double* p1, SphereBox* sb, int* plane) {
  const double r = m.geom_size[3 * con.geom1], hl = m.geom_size[3 * con.geom1 + 1];
  const double* h = &m.geom_size[3 * con.geom2];
  const double size = std::max({r, hl, h[0], h[1], h[2]}), tol = 1e-9 * size, clear = 1e-7 * size;
  double e[3];
  sub3(e, c, p1);
  const double t = dot3(e, u);
  for (int a = 0; a < 3; ++a) e[a] -= t * u[a];
  if (norm3(e) > tol || std::abs(t) > hl + tol) return 0;  // not on the segment
  *sb = sphere_box_pair(m, d, con, c);
  if (sb->inside || sb->L <= clear) return 0;
  int kinds = 0, kind = 0;
  auto test = [&](double gap, int k) {
    if (gap > clear) return true;
    if (gap > tol) return false;  // near a condition, not on it: ambiguous
    ++kinds, kind = k;
    return true;
  };
  if (!test(std::abs(std::abs(t) - hl), 1)) return 0;
  double e2[3], ul[3];
  mulmatTvec3(ul, sb->R2, u);
  for (int k = 0; k < 3; ++k) {
    const int before = kinds;
    if (!test(std::abs(std::abs(sb->cl[k]) - h[k]), 2)) return 0;
    if (kinds > before) {
      *plane = k;
      if (std::abs(ul[k]) < 1e-6) return 0;  // the segment along the plane
    }
  }
  sub3(e2, c, sb->q);
  if (!test(std::abs(dot3(u, e2)), 3)) return 0;
  if (kinds != 1) return 0;
  if (kind == 3) {  // the closest point moves along the segment where u has a clamped component
    double s = 0;
    for (int k = 0; k < 3; ++k)
      if (!sb->free[k]) s += ul[k] * ul[k];
    if (s < 1e-6) return 0;
  }
  return kind;
}

bool capsule_box_pair(const Model& m, const Data& d, const Contact& con, CapsuleBox* g) {
  const double r = m.geom_size[3 * con.geom1], hl = m.geom_size[3 * con.geom1 + 1];
  const double* h = &m.geom_size[3 * con.geom2];
  const double size = std::max({r, hl, h[0], h[1], h[2]}), tol = 1e-9 * size, clear = 1e-7 * size;
  g->p1 = &d.geom_xpos[3 * con.geom1];
  const double* R1 = &d.geom_xmat[9 * con.geom1];
  g->u[0] = R1[2], g->u[1] = R1[5], g->u[2] = R1[8];
  double c[3], e[3];
  if (con.dist == -r) {
    // a centre inside the box (2.2.2 reports dist = -r): a segment end whose sphere-box contact
    // (the face of least depth, clear of the next by 1e-7) is this one
    for (double end : {-hl, hl}) {
      for (int a = 0; a < 3; ++a) c[a] = g->p1[a] + end * g->u[a];
      g->sb = sphere_box_pair(m, d, con, c);
      const SphereBox& sb = g->sb;
      if (!sb.inside) continue;
      double pl[3], pw[3];
      copy3(pl, sb.cl);
      const double depth = h[sb.k] - std::abs(sb.cl[sb.k]);
      pl[sb.k] -= (sb.cl[sb.k] < 0 ? -1 : 1) * 0.5 * (r - depth);
      mulmatvec3(pw, sb.R2, pl);
      add3(pw, pw, sb.p2);
      sub3(e, pw, con.pos);
      if (norm3(e) > tol) continue;
      for (int k = 0; k < 3; ++k)
        if (k != sb.k && h[k] - std::abs(sb.cl[k]) - depth <= clear) return false;  // tied faces
      g->kind = 4;
      return true;
    }
    return false;
  }
  for (int a = 0; a < 3; ++a) c[a] = con.pos[a] - con.frame[a] * (r + 0.5 * con.dist);
  g->kind = outside_centre_kind(m, d, con, c, g->u, g->p1, &g->sb, &g->j);
  if (g->kind > 0) return true;
  // a slide of 2 h_m / |u_m| from a first centre outside the box over an edge or a corner (an end
  // or the closest point): exactly one (m, direction) that leads back to one
  sub3(e, c, g->p1);
  const double t = dot3(e, g->u);
  for (int a = 0; a < 3; ++a) e[a] -= t * g->u[a];
  if (norm3(e) > tol || std::abs(t) > hl) return false;  // not on the segment
  const SphereBox sb2 = sphere_box_pair(m, d, con, c);
  if (sb2.inside || sb2.L <= clear) return false;
  double ul[3];
  mulmatTvec3(ul, sb2.R2, g->u);
  int found = 0;
  for (int k = 0; k < 3; ++k) {
    if (std::abs(ul[k]) < 1e-6) continue;
    const double s = 2 * h[k] / std::abs(ul[k]);
    for (double sg : {-1.0, 1.0}) {
      double c1[3];
      for (int a = 0; a < 3; ++a) c1[a] = c[a] - sg * s * g->u[a];
      SphereBox sb1;
      int pl1 = 0;
      const int kind1 = outside_centre_kind(m, d, con, c1, g->u, g->p1, &sb1, &pl1);
      if (kind1 != 1 && kind1 != 3) continue;
      int clamped = 0;
      for (int q = 0; q < 3; ++q) clamped += !sb1.free[q];
      if (clamped < 2) continue;  // the slide starts over an edge or a corner
      ++found;
      g->sb1 = sb1, g->kind1 = kind1, g->m = k, g->sg = sg, g->s = s;
    }
  }
  if (found != 1) return false;
  g->sb = sb2;
  g->kind = 5;
  return true;
}

// The velocity dc of a centre c on the segment of kind 1..3 (its sphere-box form sb).
void centre_velocity(const SphereBox& sb, int kind, int j, const double* u, const double* p1, const double* tw1,
                     const double* tw2, double* dc) {
  double uc[3];
  point_vel(uc, tw1, p1, sb.c);
  double dt = 0;
  if (kind == 2) {  // e.(dc - u_box(c)) = 0
    double ub[3], ax[3] = {sb.R2[j], sb.R2[3 + j], sb.R2[6 + j]}, rel[3];
    point_vel(ub, tw2, sb.p2, sb.c);
    sub3(rel, ub, uc);
    dt = dot3(ax, rel) / dot3(ax, u);
  } else if (kind == 3) {
    // u.(c - q) = 0 with dq = u_box(q) + M (dc - u_box(c)), M = R P R' (P: the free coordinates):
    // dt (1 - u'Mu) = -du.(c - q) - u.(uc - u_box(q) - M (uc - u_box(c)))
    double du[3], w[3], ubq[3], ubc[3], rel[3], rl[3], ul[3], f[3];
    cross3(du, tw1, u);
    sub3(w, sb.c, sb.q);
    point_vel(ubq, tw2, sb.p2, sb.q);
    point_vel(ubc, tw2, sb.p2, sb.c);
    sub3(rel, uc, ubc);
    mulmatTvec3(rl, sb.R2, rel);
    mulmatTvec3(ul, sb.R2, u);
    double uMu = 0;
    for (int k = 0; k < 3; ++k) {
      if (!sb.free[k]) rl[k] = 0;
      else uMu += ul[k] * ul[k];
    }
    mulmatvec3(f, sb.R2, rl);  // M (uc - u_box(c))
    double num = -dot3(du, w);
    for (int a = 0; a < 3; ++a) num -= u[a] * (uc[a] - ubq[a] - f[a]);
    dt = num / (1 - uMu);
  }
  for (int a = 0; a < 3; ++a) dc[a] = uc[a] + u[a] * dt;
}

void capsule_box_deriv(const CapsuleBox& g, const double* tw1, const double* tw2, double* out) {
  double dc[3];
  if (g.kind == 5) {
    // c = c1 + sg s u, s = 2 h_m / |u_m|, u_m = e_m.u: d u_m = e_m.((w1 - w2) x u), ds = -s d u_m / u_m
    double dc1[3], du[3], w[3], x[3];
    centre_velocity(g.sb1, g.kind1, 0, g.u, g.p1, tw1, tw2, dc1);
    cross3(du, tw1, g.u);
    sub3(w, tw1, tw2);
    cross3(x, w, g.u);
    const double* R2 = g.sb.R2;
    const double em[3] = {R2[g.m], R2[3 + g.m], R2[6 + g.m]};
    const double um = dot3(em, g.u), ds = -g.s * dot3(em, x) / um;
    for (int a = 0; a < 3; ++a) dc[a] = dc1[a] + g.sg * (ds * g.u[a] + g.s * du[a]);
  } else {
    centre_velocity(g.sb, g.kind == 4 ? 1 : g.kind, g.j, g.u, g.p1, tw1, tw2, dc);
  }
  sphere_box_deriv(g.sb, dc, tw2, out);
}

// ---- box-box (collide_box.cc's face contacts R2-R5 and edge contacts R6) ----
//
// Every point of a face contact, and of an edge contact's clipping, pairs a point xa of box A
// (geom1) with a point xb of box B (geom2) along the normal n: xa = pos - s n, xb = pos + s n,
// s = dist for a face contact (dist = d / 2) and s = dist / 2 for an edge contact (dist = d).
// Each of the routine's features fixes the pair by four planes fixed in the boxes (a box's plane:
// a local coordinate at +-h): the reference face's plane holds the reference box's point, and
//  - an incident edge crossing a reference side line: two planes of each box;
//  - a reference corner inside the incident face: three of the reference box (the face and the
//    two side planes through the corner), the incident face's plane;
//  - an incident vertex: three of the incident box, the reference face's plane.
// A point x on a plane (e, fixed in a box of twist (w, v) at origin o) keeps e.dx = e.u(x), u the
// box's material velocity at x (the plane's turning and sliding combined), which gives four linear
// equations in (d pos, d s). The normal turns with the reference box for a face contact
// (dn = w x n); for an edge contact n = +-(a_i x b_j) / |a_i x b_j| (the sign fixed). The features
// are recognised from the contact itself: n along one face axis or one edge axis of the pair (a
// sine below 1e-12), and each of xa, xb at +-h in the local coordinates that give exactly four
// planes (within 1e-9 of the box's size, every other coordinate clear of its bound by 1e-7).
// Anything else (parallel faces, a point on several features, R8's clamped pairs, R9's scaled
// points) keeps the narrow-phase differences.

struct BoxBox {
  const double* frame;
  double n[3], xa[3], xb[3], s = 0;
  int type = -1;  // 0: face of A, 1: face of B, 2: edge a_i x b_j
  int ei = 0, ej = 0;
  double cl = 0, csign = 1;  // edge: |a_i x b_j| and the sign of n along it
  const double* p[2];        // the boxes' origins
  const double* R[2];        // their frames (row-major, axes in the columns)
  double e[4][3];            // the planes' normals (world)
  int box[4];                // the box holding each plane (0: A, 1: B)
  int count[2] = {0, 0};     // planes per box
  double Kinv[16];           // the inverse of the equations' matrix
};

bool box_box_pair(const Model& m, const Data& d, const Contact& con, BoxBox* g) {
  g->frame = con.frame;
  copy3(g->n, con.frame);
  const int geoms[2] = {con.geom1, con.geom2};
  for (int b = 0; b < 2; ++b) g->p[b] = &d.geom_xpos[3 * geoms[b]], g->R[b] = &d.geom_xmat[9 * geoms[b]];
  auto axis = [&](int b, int k, double* a) { a[0] = g->R[b][k], a[1] = g->R[b][3 + k], a[2] = g->R[b][6 + k]; };
  // the normal's origin: a face axis of A or B, or an edge axis; exactly one
  int found = 0;
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < 3; ++k) {
      double a[3], c[3];
      axis(b, k, a);
      cross3(c, a, g->n);
      if (norm3(c) <= 1e-12) ++found, g->type = b;
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double a[3], bb[3], c[3], x[3];
      axis(0, i, a);
      axis(1, j, bb);
      cross3(c, a, bb);
      const double L = norm3(c);
      if (L < 1e-6) continue;  // (nearly) parallel edges: a face axis, or an ill-conditioned normal
      cross3(x, c, g->n);
      if (norm3(x) > 1e-12 * L) continue;
      ++found, g->type = 2, g->ei = i, g->ej = j, g->cl = L;
      g->csign = dot3(c, g->n) > 0 ? 1 : -1;
    }
  if (found != 1) return false;
  g->s = g->type == 2 ? 0.5 * con.dist : con.dist;
  for (int a = 0; a < 3; ++a) g->xa[a] = con.pos[a] - g->s * g->n[a], g->xb[a] = con.pos[a] + g->s * g->n[a];
  // the planes through xa (of A) and xb (of B)
  int np = 0;
  bool ref_face = g->type == 2;  // a face contact's reference face must be among them
  for (int b = 0; b < 2; ++b) {
    const double* h = &m.geom_size[3 * geoms[b]];
    const double size = std::max({h[0], h[1], h[2]});
    double r[3], xl[3];
    sub3(r, b == 0 ? g->xa : g->xb, g->p[b]);
    mulmatTvec3(xl, g->R[b], r);
    for (int k = 0; k < 3; ++k) {
      const double gap = std::abs(std::abs(xl[k]) - h[k]);
      if (gap > 1e-7 * size) continue;
      if (gap > 1e-9 * size || np == 4) return false;
      axis(b, k, g->e[np]);
      g->box[np++] = b;
      ++g->count[b];
      if (b == g->type) {
        double a[3];
        axis(b, k, a);
        double c[3];
        cross3(c, a, g->n);
        ref_face = ref_face || norm3(c) <= 1e-12;
      }
    }
  }
  if (np != 4 || !ref_face) return false;
  // K [d pos; d s] = rhs: a plane of A at xa = pos - s n: e.d pos - (e.n) d s = e.uA(xa) + s e.dn;
  // of B at xb = pos + s n: e.d pos + (e.n) d s = e.uB(xb) - s e.dn
  double K[16], I[16];
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) K[4 * r + c] = g->e[r][c];
    K[4 * r + 3] = (g->box[r] == 0 ? -1 : 1) * dot3(g->e[r], g->n);
  }
  for (int i = 0; i < 16; ++i) I[i] = i % 5 == 0 ? 1 : 0;
  for (int c = 0; c < 4; ++c) {  // Gauss-Jordan with partial pivoting
    int piv = c;
    for (int r = c + 1; r < 4; ++r)
      if (std::abs(K[4 * r + c]) > std::abs(K[4 * piv + c])) piv = r;
    if (std::abs(K[4 * piv + c]) < 1e-6) return false;  // the planes do not fix the pair
    for (int k = 0; k < 4; ++k) std::swap(K[4 * c + k], K[4 * piv + k]), std::swap(I[4 * c + k], I[4 * piv + k]);
    const double inv = 1 / K[4 * c + c];
    for (int k = 0; k < 4; ++k) K[4 * c + k] *= inv, I[4 * c + k] *= inv;
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const double f = K[4 * r + c];
      for (int k = 0; k < 4; ++k) K[4 * r + k] -= f * K[4 * c + k], I[4 * r + k] -= f * I[4 * c + k];
    }
  }
  std::copy_n(I, 16, g->Kinv);
  return true;
}

void box_box_deriv(const BoxBox& g, const double* tw1, const double* tw2, double* out) {
  const double* tw[2] = {tw1, tw2};
  double dn[3];
  if (g.type < 2) {
    cross3(dn, tw[g.type], g.n);
  } else {  // n = sign (a x b) / |a x b|: dn = (I - n n') sign d(a x b) / |a x b|
    double a[3] = {g.R[0][g.ei], g.R[0][3 + g.ei], g.R[0][6 + g.ei]};
    double b[3] = {g.R[1][g.ej], g.R[1][3 + g.ej], g.R[1][6 + g.ej]};
    double da[3], db[3], t1[3], t2[3], u[3];
    cross3(da, tw1, a);
    cross3(db, tw2, b);
    cross3(t1, da, b);
    cross3(t2, a, db);
    for (int k = 0; k < 3; ++k) u[k] = g.csign * (t1[k] + t2[k]) / g.cl;
    const double nu = dot3(g.n, u);
    for (int k = 0; k < 3; ++k) dn[k] = u[k] - nu * g.n[k];
  }
  double rhs[4];
  for (int r = 0; r < 4; ++r) {
    const int b = g.box[r];
    double u[3];
    point_vel(u, tw[b], g.p[b], b == 0 ? g.xa : g.xb);
    rhs[r] = dot3(g.e[r], u) + (b == 0 ? 1 : -1) * g.s * dot3(g.e[r], dn);
  }
  double x[4];
  for (int r = 0; r < 4; ++r) {
    x[r] = 0;
    for (int k = 0; k < 4; ++k) x[r] += g.Kinv[4 * r + k] * rhs[k];
  }
  copy3(out, x);
  out[3] = g.type == 2 ? 2 * x[3] : x[3];
  double tan0[3];
  const double zero[3] = {0, 0, 0};
  default_tangent(g.n, tan0);
  frame_deriv(g.frame, dn, tan0, zero, out + 4);
}

// ---- witness points (MPR pairs) ----

// The witness points p1 = pos - n dist / 2, p2 = pos + n dist / 2 move with their geoms; a sphere's
// or capsule's point moves with its centre-line point p -+ r n (rolling a sphere about its centre
// does not move its surface point along n).
void witness_deriv(const Model& m, const Contact& con, const double* gp1, const double* gp2, const double* tw1,
                   const double* tw2, double* out) {
  const double* n = con.frame;
  auto inner = [&](int geom) { return round_type(m.geom_type[geom]) ? m.geom_size[3 * geom] : 0.0; };
  const double r1 = inner(con.geom1), r2 = inner(con.geom2);
  double p1[3], p2[3], v1[3], v2[3];
  for (int a = 0; a < 3; ++a) {
    p1[a] = con.pos[a] - (0.5 * con.dist + r1) * n[a];
    p2[a] = con.pos[a] + (0.5 * con.dist + r2) * n[a];
  }
  point_vel(v1, tw1, gp1, p1);
  point_vel(v2, tw2, gp2, p2);
  for (int a = 0; a < 3; ++a) out[a] = 0.5 * (v1[a] + v2[a]);
  out[3] = dot3(n, v2) - dot3(n, v1);
  std::fill_n(out + 4, 9, 0.0);
}

// ---- narrow-phase differences ----

// The pair's margin as the driver gives it: includemargin + gap (the explicit pair's gap, or the
// larger geom gap).
double pair_margin(const Model& m, const Contact& con) {
  double gap = std::max(m.geom_gap[con.geom1], m.geom_gap[con.geom2]);
  if (m.opt.collision != kCollideDynamic)
    for (int i = 0; i < m.npair; ++i)
      if ((m.pair_geom1[i] == con.geom1 && m.pair_geom2[i] == con.geom2) ||
          (m.pair_geom1[i] == con.geom2 && m.pair_geom2[i] == con.geom1)) {
        gap = m.pair_gap[i];
        break;
      }
  return con.includemargin + gap;
}

// The contact of out[0..n) nearest to pos (squared distance in *d2), or -1.
int nearest(const ContactPoint* out, int n, const double* pos, double* d2) {
  int best = -1;
  *d2 = 1e300;
  for (int i = 0; i < n; ++i) {
    double e[3];
    sub3(e, out[i].pos, pos);
    if (dot3(e, e) < *d2) *d2 = dot3(e, e), best = i;
  }
  return best;
}

void contact_values(const ContactPoint& c, double* y) {
  copy3(y, c.pos);
  y[3] = c.dist;
  double f[9];
  std::copy_n(c.frame, 9, f);
  col::make_frame(f);
  std::copy_n(f, 9, y + 4);
}

// convex_convex with libccd's MPR run to convergence (tolerance 1e-12, up to 1000 refinements)
// instead of the model's mpr_tolerance: a smooth function of the poses where the model's
// tolerance makes MPR's answer jump (the fallback below differentiates it).
void ccd_support_fn(const void* o, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  col::convex_support(*static_cast<const col::ConvexObject*>(o), dir->v, out->v);
}
void ccd_center_fn(const void* o, ccd_vec3_t* out) {
  col::convex_center(*static_cast<const col::ConvexObject*>(o), out->v);
}
int converged_convex(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const col::ConvexObject o1 = col::convex_object(m, d, g1, 0.5 * margin), o2 = col::convex_object(m, d, g2, 0.5 * margin);
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd.support2 = ccd_support_fn;
  ccd.center1 = ccd.center2 = ccd_center_fn;
  ccd.max_iterations = 1000;
  ccd.mpr_tolerance = 1e-12;
  ccd_real_t depth = 0;
  ccd_vec3_t dir, pos;
  if (ccdMPRPenetration(&o1, &o2, &ccd, &depth, &dir, &pos) != 0) return 0;
  if (dot3(dir.v, dir.v) < kMinVal) return 0;
  col::fix_normal(o1, o2, pos.v, dir.v);
  col::set_point(out[0], margin - depth, pos.v, dir.v);
  return 1;
}

// The twists (geom1's, geom2's: 12 numbers) that the dofs moving either geom give, reduced to an
// orthonormal basis E (Gram-Schmidt, at most 12 vectors, E[12 * j + i]); returns its size. The
// differences below run along these directions only: a routine that jumps along a motion no dof
// makes (a sphere on a hinge about its own centre, inside a box at a tie of two faces) does not
// matter to the derivative.
int dof_twist_basis(const Model& m, const Data& d, const Contact& con, double* E) {
  const int g[2] = {con.geom1, con.geom2};
  const double* o[2] = {&d.subtree_com[3 * m.body_rootid[m.geom_bodyid[g[0]]]],
                        &d.subtree_com[3 * m.body_rootid[m.geom_bodyid[g[1]]]]};
  // dofs of either chain, walked from each chain's last dof (a dof on both chains appears twice:
  // the second pass adds nothing to the basis)
  int nb = 0;
  for (int side = 0; side < 2 && nb < 12; ++side)
    for (int k = last_dof(m, m.geom_bodyid[g[side]]); k >= 0 && nb < 12; k = m.dof_parentid[k]) {
      double t[12] = {0};
      for (int b = 0; b < 2; ++b) {
        bool on = false;
        for (int j = last_dof(m, m.geom_bodyid[g[b]]); j >= 0 && !on; j = m.dof_parentid[j]) on = j == k;
        if (!on) continue;
        const double* S = &d.cdof[6 * k];
        double r[3], c[3];
        sub3(r, &d.geom_xpos[3 * g[b]], o[b]);
        cross3(c, S, r);
        copy3(t + 6 * b, S);
        add3(t + 6 * b + 3, S + 3, c);
      }
      double n0 = 0;
      for (double x : t) n0 += x * x;
      if (n0 == 0) continue;
      for (int pass = 0; pass < 2; ++pass)  // orthogonalize twice (classical Gram-Schmidt's loss)
        for (int j = 0; j < nb; ++j) {
          double p = 0;
          for (int i = 0; i < 12; ++i) p += E[12 * j + i] * t[i];
          for (int i = 0; i < 12; ++i) t[i] -= p * E[12 * j + i];
        }
      double n1 = 0;
      for (double x : t) n1 += x * x;
      if (n1 <= 1e-18 * n0) continue;  // in the span already
      for (int i = 0; i < 12; ++i) E[12 * nb + i] = t[i] / std::sqrt(n1);
      ++nb;
    }
  return nb;
}

// Move a geom's pose by the twist (w, v) times e: origin + e v, frame turned by e |w| about w.
void move_pose(double* xpos, double* xmat, const double* tw, double e) {
  for (int a = 0; a < 3; ++a) xpos[a] += e * tw[3 + a];
  const double th = std::sqrt(dot3(tw, tw));
  if (th == 0) return;
  double k[3], Q[9], R[9];
  for (int a = 0; a < 3; ++a) k[a] = tw[a] / th;
  const double c = std::cos(e * th), s = std::sin(e * th), v = 1 - c;
  Q[0] = c + k[0] * k[0] * v, Q[1] = k[0] * k[1] * v - k[2] * s, Q[2] = k[0] * k[2] * v + k[1] * s;
  Q[3] = k[1] * k[0] * v + k[2] * s, Q[4] = c + k[1] * k[1] * v, Q[5] = k[1] * k[2] * v - k[0] * s;
  Q[6] = k[2] * k[0] * v - k[1] * s, Q[7] = k[2] * k[1] * v + k[0] * s, Q[8] = c + k[2] * k[2] * v;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R[3 * i + j] = Q[3 * i] * xmat[j] + Q[3 * i + 1] * xmat[3 + j] + Q[3 * i + 2] * xmat[6 + j];
  std::copy_n(R, 9, xmat);
}

// Centred differences of the narrow phase along the dofs' twist directions (dof_twist_basis), at
// steps h and h/4: they agree to O(h^2 f''') where the routine is smooth, and differ by at least a
// jump / h where its output jumps within the step (MPR taking another path). G = (G E) E', exact
// on the dofs' twists. kLost: the contact is not reproduced, or a perturbation loses it. With
// `converged` (MPR pairs whose routine jumps): converged_convex, steps 1e-4 and 1e-4/4, agreement
// 1e-2 (its remaining jitter, measured ~4e-9 in pos, enters as jitter / step), the nominal
// contact matched by position only.
enum class NarrowPhase { kOk, kLost, kJumps };
NarrowPhase narrow_phase_jacobian(const Model& m, Data& d, const Contact& con, double* G, bool converged = false) {
  const int g1 = con.geom1, g2 = con.geom2;
  const CollisionTable& table = default_collision_table();
  const int t1 = m.geom_type[g1], t2 = m.geom_type[g2];
  const CollisionFunction fn = converged ? converged_convex : table.fn[t1][t2];
  if (!fn) return NarrowPhase::kLost;
  void* user = converged ? nullptr : table.user[t1][t2];
  const double margin = pair_margin(m, con);
  ContactPoint out[kMaxContactsPerPair];
  double d2;
  const int n0 = fn(m, d, g1, g2, margin, out, user);
  const int i0 = nearest(out, n0, con.pos, &d2);
  // step; largest displacement of a matched contact; agreement of the two steps
  const double h = converged ? 1e-4 : 1e-6, match = converged ? 1e-3 : 1e-4, agree = converged ? 1e-2 : 1e-5;
  if (i0 < 0 || (converged ? d2 > match * match : d2 > 1e-24 || out[i0].dist != con.dist)) return NarrowPhase::kLost;
  double E[12 * 12];
  const int nb = dof_twist_basis(m, d, con, E);
  double* xpos[2] = {&d.geom_xpos[3 * g1], &d.geom_xpos[3 * g2]};
  double* xmat[2] = {&d.geom_xmat[9 * g1], &d.geom_xmat[9 * g2]};
  double pos0[2][3], mat0[2][9];
  for (int b = 0; b < 2; ++b) copy3(pos0[b], xpos[b]), std::copy_n(xmat[b], 9, mat0[b]);
  std::fill_n(G, 13 * 12, 0.0);
  for (int j = 0; j < nb; ++j) {
    const double* e = E + 12 * j;
    double y[4][13];
    for (int s = 0; s < 4; ++s) {
      const double step = (s % 2 == 0 ? 1 : -1) * (s < 2 ? h : h / 4);
      for (int b = 0; b < 2; ++b) move_pose(xpos[b], xmat[b], e + 6 * b, step);
      const int n = fn(m, d, g1, g2, margin, out, user);
      for (int b = 0; b < 2; ++b) copy3(xpos[b], pos0[b]), std::copy_n(mat0[b], 9, xmat[b]);
      int i = i0 < n ? i0 : -1;
      if (i >= 0) {
        double e3[3];
        sub3(e3, out[i].pos, con.pos);
        if (dot3(e3, e3) > match * match) i = -1;
      }
      if (i < 0) i = nearest(out, n, con.pos, &d2);
      if (i < 0 || d2 > match * match) return NarrowPhase::kLost;
      contact_values(out[i], y[s]);
    }
    // agreement relative to max(1, the largest entry of the quantity: pos, dist or frame)
    double c[13], c4[13], scale[3] = {1, 1, 1};
    for (int r = 0; r < 13; ++r) {
      c[r] = (y[0][r] - y[1][r]) / (2 * h);
      c4[r] = (y[2][r] - y[3][r]) / (h / 2);
      const int q = r < 3 ? 0 : r == 3 ? 1 : 2;
      scale[q] = std::max(scale[q], std::abs(c[r]));
    }
    for (int r = 0; r < 13; ++r) {
      if (std::abs(c[r] - c4[r]) > agree * scale[r < 3 ? 0 : r == 3 ? 1 : 2]) return NarrowPhase::kJumps;
      for (int i = 0; i < 12; ++i) G[12 * r + i] += c[r] * e[i];
    }
  }
  return NarrowPhase::kOk;
}

void warn_fallback(bool witness) {
  static std::once_flag converged_flag, witness_flag;
  std::call_once(witness ? witness_flag : converged_flag, [witness] {
    std::fprintf(stderr, "moreau: analytic derivatives: %s\n",
                 witness ? "a contact that a 1e-6 perturbation of its geoms loses, or whose narrow phase jumps: its "
                           "qpos derivative uses the witness-point approximation"
                         : "an MPR contact that jumps under 1e-6 perturbations of its geoms: its qpos derivative is "
                           "that of MPR run to convergence (tolerance 1e-12)");
  });
}

}  // namespace

ContactDerivMethod contact_deriv_method(const Model& m, const Data& d, const Contact& con) {
  const int t1 = m.geom_type[con.geom1], t2 = m.geom_type[con.geom2];
  if (t1 == kGeomPlane)
    return t2 == kGeomHField || t2 == kGeomPlane ? ContactDerivMethod::kUnsupported : ContactDerivMethod::kAnalytic;
  if (t1 == kGeomSphere && t2 == kGeomBox) return ContactDerivMethod::kAnalytic;
  if (t1 == kGeomBox && t2 == kGeomBox) {
    BoxBox g;
    return box_box_pair(m, d, con, &g) ? ContactDerivMethod::kAnalytic : ContactDerivMethod::kNarrowPhase;
  }
  if (t1 == kGeomCapsule && t2 == kGeomBox) {
    CapsuleBox g;
    return capsule_box_pair(m, d, con, &g) ? ContactDerivMethod::kAnalytic : ContactDerivMethod::kNarrowPhase;
  }
  if (round_type(t1) && round_type(t2)) {
    // coincident centres: the normal is the cross product of the geoms' axes (not differentiable)
    const bool distinct = con.dist + m.geom_size[3 * con.geom1] + m.geom_size[3 * con.geom2] > 1e-9;
    return distinct ? ContactDerivMethod::kAnalytic : ContactDerivMethod::kUnsupported;
  }
  return ContactDerivMethod::kNarrowPhase;  // box pairs, MPR (convex_convex, hfield_convex)
}

ContactDerivMethod contact_jacobian(const Model& m, Data& d, int id, ContactJacobian* out, bool witness) {
  const Contact& con = d.contact[id];
  double* G = out->G;
  ContactDerivMethod method = contact_deriv_method(m, d, con);
  const int t1 = m.geom_type[con.geom1], t2 = m.geom_type[con.geom2];
  const bool box_pair = t2 == kGeomBox && (t1 == kGeomSphere || t1 == kGeomCapsule || t1 == kGeomBox);
  if (method == ContactDerivMethod::kNarrowPhase) {
    if (!(witness && !box_pair)) {
      const NarrowPhase r = narrow_phase_jacobian(m, d, con, G);
      if (r == NarrowPhase::kOk) return method;
      if (r == NarrowPhase::kJumps && default_collision_table().fn[t1][t2] == col::convex_convex &&
          narrow_phase_jacobian(m, d, con, G, true) == NarrowPhase::kOk) {
        warn_fallback(false);
        return ContactDerivMethod::kConvergedMpr;
      }
      warn_fallback(true);
    }
    method = ContactDerivMethod::kWitness;
  }
  std::fill_n(G, 13 * 12, 0.0);
  const double* gp1 = &d.geom_xpos[3 * con.geom1];
  const double* gp2 = &d.geom_xpos[3 * con.geom2];
  PlanePair plane;
  RoundPair round;
  SphereBox sbox;
  BoxBox bbox;
  CapsuleBox cbox;
  if (method == ContactDerivMethod::kAnalytic) {
    if (t1 == kGeomPlane) plane = plane_pair(m, d, con);
    else if (t1 == kGeomBox) box_box_pair(m, d, con, &bbox);
    else if (t1 == kGeomCapsule && t2 == kGeomBox) capsule_box_pair(m, d, con, &cbox);
    else if (t2 == kGeomBox) sbox = sphere_box_pair(m, d, con);
    else round = round_pair(m, d, con);
  }
  const bool mv[2] = {moving(m, con.geom1), moving(m, con.geom2)};
  for (int j = 0; j < 12; ++j) {
    if (!mv[j / 6]) continue;
    double tw[12] = {0}, col[13];
    tw[j] = 1;
    switch (method) {
      case ContactDerivMethod::kAnalytic:
        if (t1 == kGeomPlane) plane_deriv(plane, tw, tw + 6, col);
        else if (t1 == kGeomBox) box_box_deriv(bbox, tw, tw + 6, col);
        else if (t1 == kGeomCapsule && t2 == kGeomBox) capsule_box_deriv(cbox, tw, tw + 6, col);
        else if (t2 == kGeomBox) sphere_box_deriv(sbox, tw + 3, tw + 6, col);
        else round_deriv(round, tw, tw + 6, col);
        break;
      case ContactDerivMethod::kWitness:
        witness_deriv(m, con, gp1, gp2, tw, tw + 6, col);
        break;
      default:
        std::fill_n(col, 13, 0.0);
        break;
    }
    for (int r = 0; r < 13; ++r) G[12 * r + j] = col[r];
  }
  return method;
}

bool narrow_phase_contact_jacobian(const Model& m, Data& d, int id, ContactJacobian* out) {
  return narrow_phase_jacobian(m, d, d.contact[id], out->G) == NarrowPhase::kOk;
}

BoxBoxFeature box_box_feature(const Model& m, const Data& d, const Contact& con) {
  BoxBox g;
  if (m.geom_type[con.geom1] != kGeomBox || m.geom_type[con.geom2] != kGeomBox || !box_box_pair(m, d, con, &g))
    return BoxBoxFeature::kNone;
  const int ref = g.count[g.type == 2 ? 0 : g.type];  // the reference box's planes
  const int base = g.type == 2 ? 3 : 0;
  return static_cast<BoxBoxFeature>(1 + base + (ref == 2 ? 0 : ref == 3 ? 1 : 2));
}

CapsuleBoxFeature capsule_box_feature(const Model& m, const Data& d, const Contact& con) {
  CapsuleBox g;
  if (m.geom_type[con.geom1] != kGeomCapsule || m.geom_type[con.geom2] != kGeomBox || !capsule_box_pair(m, d, con, &g))
    return CapsuleBoxFeature::kNone;
  return static_cast<CapsuleBoxFeature>(g.kind);
}

void contact_jacobian_apply(const Model& m, const Data& d, const Contact& con, const ContactJacobian& cj,
                            const double* Sk, bool on1, bool on2, const double* o1, const double* o2, double* dpos,
                            double* ddist, double* dframe) {
  (void)m;
  double tw[12] = {0};
  auto twist = [&](double* t, int geom, const double* o) {
    double r[3], c[3];
    sub3(r, &d.geom_xpos[3 * geom], o);
    cross3(c, Sk, r);
    copy3(t, Sk);
    add3(t + 3, Sk + 3, c);
  };
  if (on1) twist(tw, con.geom1, o1);
  if (on2) twist(tw + 6, con.geom2, o2);
  double y[13];
  for (int r = 0; r < 13; ++r) {
    double s = 0;
    for (int j = 0; j < 12; ++j) s += cj.G[12 * r + j] * tw[j];
    y[r] = s;
  }
  copy3(dpos, y);
  *ddist = y[3];
  std::copy_n(y + 4, 9, dframe);
}

}  // namespace moreau::internal

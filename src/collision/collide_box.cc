// Box-box pairs: MuJoCo 2.2.2's contact sets (count, order, dist, pos, normal). The rules were
// measured on 2.2.2 as a black box, by probe programs calling its mjCOLLISIONFUNC[box][box] on
// chosen poses (probes and counts: docs/notes/box_box_rules.md); collision_primitives_test.cc
// (random states, in order) and collision_narrowphase_test.cc (hand-built cases) check them.
//
// A = geom1, B = geom2.
//  R1 Axis: the largest separation over the 15 axes (faces of A, faces of B, then A.ax[i] x B.ax[j]
//     i-major), strict '>'. An edge axis tied with the coinciding face axis (parallel edges) wins
//     when the boxes are separated and loses when they penetrate. Face separations are computed in
//     each box's own frame, which decides exact ties between parallel faces as 2.2.2 does.
//  R2 Face contact (face k of the reference box, nref towards the other box): the reference frame
//     (e1, e2) per face is {x: (-z, y) / (z, y), y: (x, -z) / (x, z), z: (x, y) / (-x, y)} for the
//     + / - face; corners come in the order (-,-), (-,+), (+,-), (+,+) on (e1, e2).
//  R3 Incident feature: v0 = the vertex of the other box deepest along -nref (an axis orthogonal to
//     nref takes the - side); v0's edges with |cos| < 1/2 to nref span it: two -> face (v1, v2, v3
//     flip the lower-index, the higher-index, both axes), one -> edge, none -> v0 alone.
//  R4 Points, in this order: (a) incident edges v0v1, v0v2, v1v3, v2v3 crossing the reference side
//     lines e1 = -h1, +h1, e2 = -h2, +h2 (bounds inclusive); (b) reference corners strictly inside
//     the incident face; (c) incident vertices strictly inside the reference face, and v0 always.
//     A point is kept when its height d above the reference face is <= margin.
//  R5 Face contact values: dist = d / 2 (half the height), pos = midway.
//  R6 Edge contact (axis A.ax[i] x B.ax[j]): the face of A next to edge i with normal closest to n is
//     the reference, the face of B next to edge j closest to -n the incident face; both seen along
//     n (not along the face normal); dist = the full distance along n; the incident face's v1 flips
//     B's edge axis j with v0 on its + side, v2 the other axis (v0 deepest); only the first
//     reference corner inside the incident face gives its own point, later corners follow R9; no
//     forced v0.
//  R6a Parallel edges (separated boxes whose tied edge axis a_i x b_j coincides with a face axis,
//     so that B's other in-face axis b_m is orthogonal to n and the incident vertices tie in depth):
//     v0 takes the side sgn_m = -sign((n . b_kb) (a_i . b_m)) of b_m, the incident face's own side
//     (kb) times the sign of A's edge axis along b_m.
//  R7 Repeated positions: see remove_repeated.
//  R8 Edge contact of boxes apart along n where (a) gives no point: see separated_edge_points
//     (2.2.2's other path: reference corners and incident vertices paired with clamped partners).
//  R9 Later reference corners of an edge contact: see reference_corners. 2.2.2 tests each corner
//     after the first one inside at its incident point p scaled about v0 by mu = det / den, with
//     det = ((v1 - v0) x (v2 - v0)) . n and den = L^2 (w . nr), L the previous corner's pair length;
//     such a corner gives one deep point that lies on neither box.
#include <algorithm>
#include <cmath>

#include "collision/narrowphase.h"

namespace moreau::col {
namespace {

struct Box {
  double c[3];
  double ax[3][3];  // local axes in world
  double h[3];
};
Box box_of(const GeomPose& g) {
  Box b;
  math::copy3(b.c, g.pos);
  for (int k = 0; k < 3; ++k) { axis_of(b.ax[k], g.mat, k); b.h[k] = g.size[k]; }
  return b;
}

// The clipping stage shared by face and edge contacts. A reference face of box `ref` (axis k,
// outward unit normal nr) and an incident polygon of box `inc` (nv = 1, 2 or 4 vertices: v0, and
// v1, v2, v3 flipping the in-face axes j1, j2 of `inc`) are compared seen along the unit direction
// w (w . nr > 0): a point p of the incident side has depth coordinate d = (p - fc).nr / (w.nr),
// its distance along w from the reference plane, and face coordinates those of p - w d.
struct Clip {
  const Box* ref;
  double fc[3], e[2][3], hf[2], nr[3];  // reference face centre, frame (e1 x e2 = nr), half sizes
  int k, ea[2];                          // face axis and the axes of e1, e2 (in ref's frame)
  double sk, es[2];                      // their signs
  const Box* inc;
  int nv, j1, j2, ki;  // incident polygon; ki: its face axis (when nv == 4)
  double v[4][3], uv[4][2], dep[4], sgn[3];
  double w[3], wn, we[2];
  bool separated = false;  // edge contact of boxes apart along n (within the margin)
};

// Reference face frame: e1, e2 per face (R2: the contact order of the face corners).
void set_reference(Clip& c, const Box& ref, int k, const double* nr) {
  static constexpr int kAxis[3][2] = {{2, 1}, {0, 2}, {0, 1}};
  static constexpr double kSign[3][2][2] = {{{-1, 1}, {1, 1}}, {{1, -1}, {1, 1}}, {{1, 1}, {-1, 1}}};
  const bool up = math::dot3(ref.ax[k], nr) > 0;
  c.ref = &ref;
  math::copy3(c.nr, nr);
  math::copy3(c.fc, ref.c);
  math::addscl3(c.fc, ref.ax[k], up ? ref.h[k] : -ref.h[k]);
  c.k = k;
  c.sk = up ? 1.0 : -1.0;
  for (int q = 0; q < 2; ++q) {
    c.ea[q] = kAxis[k][q];
    c.es[q] = kSign[k][up ? 0 : 1][q];
    math::scl3(c.e[q], ref.ax[c.ea[q]], c.es[q]);
    c.hf[q] = ref.h[c.ea[q]];
  }
}

// Incident polygon of `inc`: v0 is its vertex deepest along -w (an axis orthogonal to w takes the
// - side); `flat` lists the nflat (0..2) axes spanning the polygon, ascending; forced (optional):
// a sign per axis of `inc` that overrides that choice where it is nonzero.
// tl, rl: the incident box's centre and axes in the reference box's frame (tl[m] = ref.ax[m] .
// (inc.c - ref.c), rl[m][j] = ref.ax[m] . inc.ax[j]).
void set_incident(Clip& c, const Box& inc, const int* flat, int nflat, const double* w, const double* tl,
                  const double (*rl)[3], const double* forced = nullptr) {
  const Box& ref = *c.ref;
  const bool along_normal = w == c.nr;  // face contact: seen along the reference normal itself
  c.inc = &inc;
  math::copy3(c.w, w);
  c.wn = along_normal ? 1.0 : math::dot3(w, c.nr);
  c.we[0] = along_normal ? 0.0 : math::dot3(w, c.e[0]);
  c.we[1] = along_normal ? 0.0 : math::dot3(w, c.e[1]);
  for (int j = 0; j < 3; ++j)
    c.sgn[j] = (along_normal ? c.sk * rl[c.k][j] : math::dot3(inc.ax[j], w)) >= 0 ? -1.0 : 1.0;
  for (int j = 0; forced && j < 3; ++j)
    if (forced[j] != 0) c.sgn[j] = forced[j];
  c.nv = 1 << nflat;
  c.j1 = nflat > 0 ? flat[0] : -1;
  c.j2 = nflat > 1 ? flat[1] : -1;
  c.ki = nflat == 2 ? 3 - flat[0] - flat[1] : -1;
  // The incident box in the reference box's frame: heights and face coordinates are computed from
  // these local coordinates (as 2.2.2 does: boxes resting exactly on each other come out at
  // distance 0, not at the rounding of their world positions).
  for (int i = 0; i < c.nv; ++i) {
    double sh[3];
    math::copy3(c.v[i], inc.c);
    for (int j = 0; j < 3; ++j) {
      double s = c.sgn[j];
      if ((j == c.j1 && (i & 1)) || (j == c.j2 && (i & 2))) s = -s;
      sh[j] = s * inc.h[j];
      math::addscl3(c.v[i], inc.ax[j], sh[j]);
    }
    double vl[3];
    for (int m = 0; m < 3; ++m) vl[m] = tl[m] + sh[0] * rl[m][0] + sh[1] * rl[m][1] + sh[2] * rl[m][2];
    const double height = c.sk * vl[c.k] - ref.h[c.k];
    c.dep[i] = height / c.wn;
    for (int q = 0; q < 2; ++q) c.uv[i][q] = c.es[q] * vl[c.ea[q]] - c.dep[i] * c.we[q];
  }
}

// A contact at incident point p with depth coordinate d: position midway along w, distance
// `scale` d; normal n (geom1 -> geom2).
void add_point(ContactPoint* out, int& nc, const double* p, double d, const Clip& c, double scale,
               const double* n) {
  double pos[3];
  math::copy3(pos, p);
  math::addscl3(pos, c.w, -0.5 * d);
  set_point(out[nc++], scale * d, pos, n);
}

// (b) of clip_contacts: reference corners strictly inside the incident face, seen along w. In the
// edge case (R9) only the first corner inside gives its own point; each later corner is tested at
// a scaled image q = v0 + mu (p - v0) of its incident point p, mu = det / den, where det =
// ((v1 - v0) x (v2 - v0)) . n and den = L^2 (w . nr), L the length of the previous corner's pair
// (|d| for the first corner, |q - corner| for a later one, whether or not the point was kept).
// A later corner whose q lies strictly inside the incident face gives the point midway between the
// reference corner and q, dist = +-|q - corner|, negative when q lies below the reference plane.
// With `clamp` (R8's (b'')), a corner whose point lies within the face's extent along one axis only
// (or, for a later corner, also along both) is paired with that point clamped to the face, and a
// first corner within one extent starts the chain. Returns whether a point was given.
bool reference_corners(const Clip& c, double margin, double scale, bool edge, bool clamp, const double* n,
                       ContactPoint* out, int& nc) {
  const Box& inc = *c.inc;
  double m[3], ic[3], e1[3], e2[3], cr[3];
  math::scl3(m, inc.ax[c.ki], c.sgn[c.ki]);
  math::copy3(ic, inc.c);
  math::addscl3(ic, m, inc.h[c.ki]);
  const double wm = math::dot3(c.w, m);
  math::sub3(e1, c.v[1], c.v[0]);
  math::sub3(e2, c.v[2], c.v[0]);
  math::cross3(cr, e1, e2);
  const double det = math::dot3(cr, n);
  bool first = true, any = false;  // first: no link of the chain yet
  double den = 0;
  for (double a : {-1.0, 1.0}) {
    for (double b : {-1.0, 1.0}) {
      double corner[3], f[3], r[3];
      math::copy3(corner, c.fc);
      math::addscl3(corner, c.e[0], a * c.hf[0]);
      math::addscl3(corner, c.e[1], b * c.hf[1]);
      math::sub3(r, ic, corner);
      const double d = math::dot3(r, m) / wm;
      math::copy3(f, corner);
      math::addscl3(f, c.w, d);  // the corner seen along w on the incident face plane
      const bool later = edge && !first;
      if (later) {  // R9's scaled point (den = 0, a zero pair length: an infinite scale, no point)
        if (den == 0) continue;
        math::sub3(r, f, c.v[0]);
        math::copy3(f, c.v[0]);
        math::addscl3(f, r, det / den);
      }
      math::sub3(r, f, inc.c);
      const double x1 = math::dot3(r, inc.ax[c.j1]), x2 = math::dot3(r, inc.ax[c.j2]);
      const bool inside = std::fabs(x1) < inc.h[c.j1] && std::fabs(x2) < inc.h[c.j2];
      if (!later && inside) {  // (b)'s point
        if (d <= margin) {
          add_point(out, nc, f, d, c, scale, n);
          any = true;
        }
        first = false;
        den = d * d * c.wn;
        continue;
      }
      if (clamp) {
        if (std::fabs(x1) > inc.h[c.j1] && std::fabs(x2) > inc.h[c.j2]) continue;
        math::addscl3(f, inc.ax[c.j1], std::clamp(x1, -inc.h[c.j1], inc.h[c.j1]) - x1);
        math::addscl3(f, inc.ax[c.j2], std::clamp(x2, -inc.h[c.j2], inc.h[c.j2]) - x2);
      } else if (!later || !inside) {
        continue;
      }
      // the pair of the corner and f: midway, dist = +-|f - corner|, negative when f lies behind
      // the reference face's plane
      double pair[3], pos[3];
      math::sub3(pair, f, corner);
      math::sub3(r, f, c.fc);
      const double len = math::norm3(pair);
      const double dist = math::dot3(r, c.nr) < 0 ? -len : len;
      if (dist <= margin) {
        for (int k = 0; k < 3; ++k) pos[k] = 0.5 * (corner[k] + f[k]);
        set_point(out[nc++], dist, pos, n);
        any = true;
      }
      first = false;
      den = len * len * c.wn;
    }
  }
  return any;
}

// R8: an edge contact between boxes that are apart along n (0 < separation <= margin) where (a)
// gives no point (no incident edge crosses a reference side line within the margin). 2.2.2 then
// takes another path, decided before the corners (a first corner inside the incident face does not
// prevent it, nor does an incident vertex inside the reference face), that returns (b'') and (c'')
// below: pairs of a box feature and a partner on the other box's face, positioned at their
// midpoint, most of them on neither box (measured on 2.2.2; docs/notes/box_box_rules.md):
//  (b'') the reference corners in (b)'s order ((-,-), (-,+), (+,-), (+,+)) as a chain, like R9's:
//       the first corner is tested at its projection f along w onto the incident face's plane,
//       each later one at f scaled about v0 by det / den (R9's scale, den = L^2 (w . nr), L the
//       length of the previous link of the chain). A corner whose point lies within the incident
//       face's extent along neither axis is passed over. The first corner strictly within both
//       extents is (b)'s corner: (b)'s point if d <= margin, L = |d|.
//       Otherwise (within one extent for the first corner; within one or both for a later one)
//       the pair is the corner and its point clamped to the face, dist = +-their distance,
//       negative when the partner lies behind the reference face's plane (its depth coordinate
//       along w is negative, as for (c')); L = that distance whether or not the point is kept.
//  (c'') each incident vertex in order: one inside the reference face (seen along w) gives (c)'s
//       point; one outside gives the pair (c') of itself and its face coordinates clamped to the
//       face, du, dv the clamped amounts, d its depth coordinate:
//       dist = sign(d) sqrt(d^2 + du^2 + dv^2), position p - (w d + e1 du + e2 dv) / 2
//       (the midpoint with its orthogonal projection onto the reference face's edge line, for a
//       vertex outside in one coordinate: 2.2.2 sums the squares as if w and e were orthogonal).
//       When (b'') gave a point ((b)'s or a pair), vertices outside the face in both coordinates
//       (beyond a corner) are left out; without one they are kept.
// Points with dist > margin are dropped, as elsewhere.
void separated_edge_points(const Clip& c, double margin, const double* n, ContactPoint* out, int& nc) {
  const bool corner = reference_corners(c, margin, 1.0, true, true, n, out, nc);
  for (int i = 0; i < c.nv; ++i) {
    const bool in1 = std::fabs(c.uv[i][0]) < c.hf[0], in2 = std::fabs(c.uv[i][1]) < c.hf[1];
    if (in1 && in2) {  // (c)'s point
      if (c.dep[i] <= margin) add_point(out, nc, c.v[i], c.dep[i], c, 1.0, n);
      continue;
    }
    if (corner && !in1 && !in2) continue;
    const double d = c.dep[i];
    double du[2];
    for (int q = 0; q < 2; ++q) du[q] = c.uv[i][q] - std::clamp(c.uv[i][q], -c.hf[q], c.hf[q]);
    const double dist = (d < 0 ? -1 : 1) * std::sqrt(d * d + du[0] * du[0] + du[1] * du[1]);
    if (dist > margin) continue;
    double pos[3];
    math::copy3(pos, c.v[i]);
    math::addscl3(pos, c.w, -0.5 * d);
    for (int q = 0; q < 2; ++q) math::addscl3(pos, c.e[q], -0.5 * du[q]);
    set_point(out[nc++], dist, pos, n);
  }
}

// The contact points, in 2.2.2's order: (a) incident edges (v0v1, v0v2, v1v3, v2v3) crossing the
// reference side lines (e1 = -h1, +h1, e2 = -h2, +h2), within the other side range (inclusive);
// (b) reference corners ((-,-), (-,+), (+,-), (+,+) on (e1, e2)) strictly inside the incident face;
// (c) incident vertices strictly inside the reference face, and v0 always for a face contact.
// Points farther than the margin (d > margin) are dropped.
int clip_contacts(const Clip& c, double margin, double scale, bool edge, const double* n, ContactPoint* out) {
  int nc = 0;
  static constexpr int kEdge[4][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  const int nedge = c.nv == 4 ? 4 : c.nv - 1;
  for (int ie = 0; ie < nedge; ++ie) {
    const int a = kEdge[ie][0], b = kEdge[ie][1];
    for (int q = 0; q < 2; ++q) {
      const double da = c.uv[a][q], db = c.uv[b][q];
      if (da == db) continue;
      for (double s : {-1.0, 1.0}) {
        const double t = (s * c.hf[q] - da) / (db - da);
        if (t < 0 || t > 1) continue;
        const double other = c.uv[a][1 - q] + t * (c.uv[b][1 - q] - c.uv[a][1 - q]);
        if (std::fabs(other) > c.hf[1 - q]) continue;
        const double d = c.dep[a] + t * (c.dep[b] - c.dep[a]);
        if (d > margin) continue;
        double p[3];
        for (int k = 0; k < 3; ++k) p[k] = c.v[a][k] + t * (c.v[b][k] - c.v[a][k]);
        add_point(out, nc, p, d, c, scale, n);
      }
    }
  }
  // R8: an edge contact of boxes apart along n where (a) finds no crossing
  if (edge && c.separated && nc == 0) {
    separated_edge_points(c, margin, n, out, nc);
    return nc;
  }
  if (c.nv == 4) reference_corners(c, margin, scale, edge, false, n, out, nc);
  for (int i = 0; i < c.nv; ++i) {
    const bool inside = std::fabs(c.uv[i][0]) < c.hf[0] && std::fabs(c.uv[i][1]) < c.hf[1];
    if (!(inside || (!edge && i == 0))) continue;
    if (c.dep[i] > margin) continue;
    add_point(out, nc, c.v[i], c.dep[i], c, scale, n);
  }
  return nc;
}

// Face contact: `ref` owns face axis k with outward normal nref (unit, towards `inc`). The
// incident feature: v0's edges whose direction makes |cos| < 1/2 with nref (less than 30 degrees
// with the reference face) span it -- two such edges a face, one an edge, none the vertex v0.
// Distances are half the depth (2.2.2), positions midway.
int face_contacts(const Box& ref, int k, const double* nref, const Box& inc, const double* tl,
                  const double (*rl)[3], const double* n, double margin, ContactPoint* out) {
  Clip c;
  set_reference(c, ref, k, nref);
  int flat[2], nflat = 0;
  for (int j = 0; j < 3; ++j)  // inc.ax[j] . nref = +-rl[k][j]
    if (std::fabs(rl[k][j]) < 0.5 && nflat < 2) flat[nflat++] = j;
  set_incident(c, inc, flat, nflat, nref, tl, rl);
  return clip_contacts(c, margin, 0.5, false, n, out);
}

// Edge contact (axis A.ax[i] x B.ax[j], unit normal n from A to B): the face of A next to its
// edge whose normal is closest to n is the reference, the face of B next to its edge closest to
// -n the incident face, compared along n; distances are the full distance along n.
int edge_contacts(const Box& A, int i, const Box& B, int j, const double* tl, const double (*rl)[3],
                  const double* n, double margin, bool separated, ContactPoint* out) {
  auto side_face = [&](const Box& X, int edge_axis) {
    const int k1 = edge_axis == 0 ? 1 : 0, k2 = edge_axis == 2 ? 1 : 2;
    return std::fabs(math::dot3(X.ax[k1], n)) >= std::fabs(math::dot3(X.ax[k2], n)) ? k1 : k2;
  };
  const int ka = side_face(A, i), kb = side_face(B, j);
  double nr[3];
  math::scl3(nr, A.ax[ka], math::dot3(A.ax[ka], n) > 0 ? 1.0 : -1.0);
  Clip c;
  set_reference(c, A, ka, nr);
  const int m = 3 - j - kb;  // the incident face's other in-face axis
  const int flat[2] = {j, m};
  // v0 lies on the + side of B's edge axis j (R6), and on the side -sign((n . b_kb) (a_i . b_m)) of
  // the other in-face axis b_m where b_m is orthogonal to n (R6a).
  double forced[3] = {0, 0, 0};
  forced[j] = 1.0;
  const double a_bm = math::dot3(A.ax[i], B.ax[m]);
  if (std::fabs(math::dot3(B.ax[m], n)) < 1e-12 && std::fabs(a_bm) > 1e-12)
    forced[m] = math::dot3(B.ax[kb], n) * a_bm > 0 ? -1.0 : 1.0;
  set_incident(c, B, flat, 2, n, tl, rl, forced);
  c.separated = separated;
  return clip_contacts(c, margin, 1.0, true, n, out);
}

// R7: 2.2.2's collision step (mj_forward) keeps, of contacts at exactly the same position, only
// the last one; the others keep their order (points 1e-12 apart are all kept). Capsule-box
// duplicates are not removed.
int remove_repeated(ContactPoint* out, int n) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    bool repeated = false;
    for (int j = i + 1; j < n && !repeated; ++j)
      repeated = out[j].pos[0] == out[i].pos[0] && out[j].pos[1] == out[i].pos[1] && out[j].pos[2] == out[i].pos[2];
    if (!repeated) out[m++] = out[i];
  }
  return m;
}

// The unit axis of SAT candidate (type, i, j) in world coordinates: a face axis of A (0) or B (1),
// or the edge axis a_i x b_j (2).
void axis_of_result(const Box& A, const Box& B, int type, int i, int j, double* L) {
  if (type == 0) { math::copy3(L, A.ax[i]); return; }
  if (type == 1) { math::copy3(L, B.ax[i]); return; }
  math::cross3(L, A.ax[i], B.ax[j]);
  math::normalize3(L);
}

}  // namespace

int box_box(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const Box A = box_of(geom_pose(m, d, g1)), B = box_of(geom_pose(m, d, g2));
  double T[3], R[3][3], pa[3], pb[3];  // R[i][j] = a_i . b_j; pa, pb: T in A's and B's frames
  math::sub3(T, B.c, A.c);
  for (int i = 0; i < 3; ++i) {
    pa[i] = math::dot3(A.ax[i], T);
    pb[i] = math::dot3(B.ax[i], T);
    for (int j = 0; j < 3; ++j) R[i][j] = math::dot3(A.ax[i], B.ax[j]);
  }
  // Separating axis test over the 15 axes: the axis of largest separation (least penetration);
  // strict comparisons in the order faces of A, faces of B, edge pairs (i of A, j of B), i-major.
  double best_sep = -INFINITY;
  int best_type = -1, best_i = 0, best_j = 0;  // type 0: face of A, 1: face of B, 2: edge-edge
  // Face axes, each box's separation computed in its own frame, in this order of operations: it
  // decides exact ties between parallel faces of A and B as 2.2.2 does (a world-frame formula
  // does not).
  for (int i = 0; i < 3; ++i) {
    const double sep = std::fabs(pa[i]) - A.h[i] - B.h[0] * std::fabs(R[i][0]) - B.h[1] * std::fabs(R[i][1]) -
                       B.h[2] * std::fabs(R[i][2]);
    if (sep > best_sep) { best_sep = sep; best_type = 0; best_i = i; }
  }
  for (int j = 0; j < 3; ++j) {
    const double sep = std::fabs(pb[j]) - B.h[j] - A.h[0] * std::fabs(R[0][j]) - A.h[1] * std::fabs(R[1][j]) -
                       A.h[2] * std::fabs(R[2][j]);
    if (sep > best_sep) { best_sep = sep; best_type = 1; best_i = j; }
  }
  // Edge axes a_i x b_j, in A's frame: (R[i1][j] a_i2 - R[i2][j] a_i1) / len.
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double len = std::sqrt(R[i1][j] * R[i1][j] + R[i2][j] * R[i2][j]);
      if (len < 1e-12) continue;  // parallel edges: the face axes cover them
      const double rA = A.h[i1] * std::fabs(R[i2][j]) + A.h[i2] * std::fabs(R[i1][j]);
      const double rB = B.h[j1] * std::fabs(R[i][j2]) + B.h[j2] * std::fabs(R[i][j1]);
      const double sep = (std::fabs(R[i1][j] * pa[i2] - R[i2][j] * pa[i1]) - rA - rB) / len;
      // An edge axis that coincides with the best axis so far (parallel edges) and has the same
      // separation up to rounding: 2.2.2 takes the edge when the boxes are separated and keeps the
      // earlier axis when they penetrate (R1); otherwise the strict '>' decides.
      bool better = sep > best_sep;
      if (std::fabs(sep - best_sep) < 1e-12) {
        double L[3], Lb[3];
        axis_of_result(A, B, 2, i, j, L);
        axis_of_result(A, B, best_type, best_i, best_j, Lb);
        if (std::fabs(std::fabs(math::dot3(L, Lb)) - 1) < 1e-12) better = best_sep > 0;
      }
      if (better) { best_sep = sep; best_type = 2; best_i = i; best_j = j; }
    }
  }
  if (best_sep > margin) return 0;
  double n[3];
  axis_of_result(A, B, best_type, best_i, best_j, n);
  if (math::dot3(n, T) < 0) math::scl3(n, n, -1);  // from A to B

  int nc;
  if (best_type == 0) {
    nc = face_contacts(A, best_i, n, B, pa, R, n, margin, out);
  } else if (best_type == 1) {
    double nb[3], tl[3], rl[3][3];  // A in B's frame
    math::scl3(nb, n, -1);           // B's outward normal towards A
    for (int q = 0; q < 3; ++q) {
      tl[q] = -pb[q];
      for (int k = 0; k < 3; ++k) rl[q][k] = R[k][q];
    }
    nc = face_contacts(B, best_i, nb, A, tl, rl, n, margin, out);
  } else {
    nc = edge_contacts(A, best_i, B, best_j, pa, R, n, margin, best_sep > 0, out);
  }
  return remove_repeated(out, nc);
}

}  // namespace moreau::col

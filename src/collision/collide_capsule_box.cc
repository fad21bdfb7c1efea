// Capsule-box pairs: MuJoCo 2.2.2's contact sets, by rules measured on 2.2.2 as a black box (probe
// programs calling its mjCOLLISIONFUNC[capsule][box] on swept and random poses; the probes and
// counts: docs/notes/capsule_box_rules.md). The capsule is two spheres on its segment:
//  - the first sits at the segment's closest point to the box (an end inside the box: the -end,
//    else the +end; a segment crossing the box with both ends outside: the candidate of the two
//    ends and the 12 box edges closest to the box; a segment exactly parallel to a box axis or face:
//    2.2.2's choice within the tie);
//  - the second depends on where the first centre lies: over a face, the end, farther from the
//    first, of the segment clipped to the prism over that face; over an edge or a corner, or on the
//    edge of a crossing segment, a slide along the segment from the first point by the box's whole
//    extent 2 h_m / |u_m| along one axis m (second_over_edge); inside the box otherwise, none.
#include <algorithm>
#include <cmath>

#include "collision/narrowphase.h"

namespace moreau::col {

namespace {
// Squared distance from local point p to the box of half sizes h.
double box_dist2(const double* p, const double* h) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    const double e = std::fabs(p[k]) - h[k];
    if (e > 0) s += e * e;
  }
  return s;
}
// Sphere (local centre c, radius r) against the box: contact in box-local coordinates.
// Returns false if beyond margin. nl points from the sphere to the box.
bool sphere_box_local(const double* c, double r, const double* h, double margin, double* dist,
                      double* pl, double* nl) {
  double q[3];
  bool inside = true;
  for (int k = 0; k < 3; ++k) {
    q[k] = std::clamp(c[k], -h[k], h[k]);
    if (q[k] != c[k]) inside = false;
  }
  if (!inside) {
    math::sub3(nl, q, c);
    const double len = math::norm3(nl);
    *dist = len - r;
    if (*dist > margin) return false;
    math::scl3(nl, nl, 1.0 / len);
  } else {
    int kmin = 0;
    double depth = h[0] - std::fabs(c[0]);
    for (int k = 1; k < 3; ++k)
      if (h[k] - std::fabs(c[k]) < depth) { depth = h[k] - std::fabs(c[k]); kmin = k; }
    math::zero3(nl);
    nl[kmin] = c[kmin] < 0 ? 1 : -1;
    *dist = -depth - r;
    // reported as -r (centre on the surface), as 2.2.2 does for a centre inside the box
    math::copy3(pl, c);
    math::addscl3(pl, nl, r + 0.5 * *dist);
    *dist = -r;
    return true;
  }
  math::copy3(pl, c);
  math::addscl3(pl, nl, r + 0.5 * *dist);
  return true;
}
// Squared distance between the segment c + t u (|t| <= hl, u unit, box frame) and the box edge along
// axis k at x_a = ea, x_b = eb (|x_k| <= h_k); *t gets the segment parameter of the closest point.
double segment_edge_dist2(const double* c, const double* u, double hl, const double* h, int k, int a, int b,
                          double ea, double eb, double* t) {
  const double da = c[a] - ea, db = c[b] - eb, uab = u[a] * u[a] + u[b] * u[b];
  if (uab > 1e-12) {
    // the edge's own coordinate unconstrained: the 2D distance in the (a, b) plane
    const double t1 = std::clamp(-(da * u[a] + db * u[b]) / uab, -hl, hl);
    const double e1 = c[k] + t1 * u[k];
    if (std::fabs(e1) <= h[k]) {
      const double qa = da + t1 * u[a], qb = db + t1 * u[b];
      *t = t1;
      return qa * qa + qb * qb;
    }
    // else the closest edge point is the end e = +-h_k: the segment against that vertex
    const double ek = e1 > 0 ? h[k] : -h[k];
    const double t2 = std::clamp(-(da * u[a] + db * u[b] + (c[k] - ek) * u[k]), -hl, hl);
    if (std::fabs(c[k] + t2 * u[k]) >= h[k] && (c[k] + t2 * u[k] > 0) == (ek > 0)) {
      const double qa = da + t2 * u[a], qb = db + t2 * u[b], qk = c[k] + t2 * u[k] - ek;
      *t = t2;
      return qa * qa + qb * qb + qk * qk;
    }
  }
  // parallel to the edge, or the general case: the segment-segment routine
  double pe[3] = {0, 0, 0}, ue[3] = {0, 0, 0};
  pe[a] = ea;
  pe[b] = eb;
  ue[k] = 1;
  double ts, te;
  segment_segment(c, u, hl, pe, ue, h[k], &ts, &te);
  double dv[3];
  for (int q = 0; q < 3; ++q) dv[q] = c[q] + ts * u[q] - pe[q] - te * ue[q];
  *t = ts;
  return math::dot3(dv, dv);
}

}  // namespace

namespace {

// The second sphere of a capsule-box pair whose first sphere (segment parameter t1, centre p,
// box-local) lies outside the box over an edge or a corner, or on an edge of a box the segment
// crosses. Returns the second segment parameter, or NAN for none. Rules measured on 2.2.2 (capsules
// swept across box edges and corners, and random poses):
//  - Edge (two coordinates of p outside the box, on axes a and b; f, the one with the smaller
//    |u_k|, is the support face): the second point is reached by sliding from the first along the
//    segment across the whole box along the other axis m, by 2 h_m / |u_m|, in the direction that
//    moves towards the box on m. 2.2.2 measures this from the first point as if it were on the box
//    boundary (the move is exactly 2 h_m / |u_m|, not to the far plane); the slide stops where the
//    segment leaves the slab of the free (edge) axis, and is clamped to the segment. When the segment
//    is exactly parallel to the support face (u_f = 0), there is a second point only if the slide
//    runs towards -side_f (vertical capsules beside and through a box rotated about z).
//  - Corner (three coordinates outside), or an end point over an edge whose line passes the edge
//    line beyond the edge's end ("corner type"): if some |u_k| >= 1/sqrt(2) (measured boundary:
//    u_k^2 = 1/2 exactly) the slide runs towards the box on k, else in the direction that moves
//    towards the box on two of the three axes; its length is the shortest 2 h_k / |u_k| among the
//    axes that the direction moves towards the box.
//  - A first point at a segment end whose slide leaves the segment at once (clamped back onto the
//    same end) gives the same sphere twice, except when along the segment the capsule moves away from
//    the box on every clamped axis other than the slide axis; then there is no second sphere. A zero
//    component of u counts as negative in that test (axis-aligned probes).
double second_over_edge(const double* c, const double* u, double hl, const double* h, double t1, const double* p,
                        bool through, const int* edge) {
  bool cl[3];
  double side[3], q[3];
  int ncl = 0;
  for (int k = 0; k < 3; ++k) {
    cl[k] = std::fabs(p[k]) > h[k];
    ncl += cl[k];
    side[k] = p[k] > 0 ? 1 : -1;
    q[k] = std::clamp(p[k], -h[k], h[k]);
  }
  const int e = t1 == -hl ? -1 : (t1 == hl ? 1 : 0);  // which end the first point is, if any
  int kf = -1;
  bool corner = ncl == 3;
  if (through) {
    // crossing segment: the edge the first point was found on (its two axes count as clamped)
    kf = edge[0];
    const int a = (kf + 1) % 3, b = (kf + 2) % 3;
    cl[kf] = false;
    cl[a] = cl[b] = true;
    side[a] = edge[1];
    side[b] = edge[2];
    q[a] = side[a] * h[a];
    q[b] = side[b] * h[b];
  } else if (ncl == 2) {
    for (int k = 0; k < 3; ++k)
      if (!cl[k]) kf = k;
    if (e != 0) {
      // closest point of the segment's line to the edge line, as an edge coordinate
      double w[3];
      math::sub3(w, c, q);
      const double bb = u[kf], den = 1 - bb * bb;
      if (den > 1e-12) {
        const double sll = (bb * w[kf] - math::dot3(u, w)) / den;
        const double te = bb * sll + w[kf] + q[kf];
        if (std::fabs(te) > h[kf]) {
          corner = true;
          side[kf] = te > 0 ? 1 : -1;
        }
      }
    }
  }
  // direction of t that moves towards the box on axis k
  auto toward = [&](int k) { return (side[k] > 0 ? -1.0 : 1.0) * (u[k] > 0 ? 1.0 : -1.0); };
  int m = -1;
  double t2;
  if (!corner) {
    int f = -1;
    for (int k = 0; k < 3; ++k)
      if (cl[k] && (f < 0 || std::fabs(u[k]) < std::fabs(u[f]))) f = k;
    for (int k = 0; k < 3; ++k)
      if (cl[k] && k != f) m = k;
    const double sg = toward(m);
    // a support face exactly parallel to the segment (u_f = 0): a second point only when the slide
    // runs towards -side_f (vertical capsules through and beside a box rotated about z)
    if (u[f] == 0 && sg != (side[f] > 0 ? -1.0 : 1.0)) return NAN;
    double s = 2 * h[m] / std::fabs(u[m]);
    const double vj = sg * u[kf];
    if (vj > 0) s = std::min(s, (h[kf] - q[kf]) / vj);
    else if (vj < 0) s = std::min(s, (q[kf] + h[kf]) / -vj);
    t2 = std::clamp(t1 + sg * s, -hl, hl);
  } else {
    int kb = 0;
    for (int k = 1; k < 3; ++k)
      if (std::fabs(u[k]) > std::fabs(u[kb])) kb = k;
    if (u[kb] * u[kb] >= 0.5) {
      m = kb;
      const double sg = toward(m);
      double s = 2 * h[m] / std::fabs(u[m]);
      for (int k = 0; k < 3; ++k)
        if (toward(k) == sg) s = std::min(s, 2 * h[k] / std::fabs(u[k]));
      t2 = std::clamp(t1 + sg * s, -hl, hl);
    } else {
      int votes = 0;
      for (int k = 0; k < 3; ++k) votes += toward(k) > 0 ? 1 : -1;
      const double sg = votes > 0 ? 1 : -1;
      double s = INFINITY;
      for (int k = 0; k < 3; ++k) {
        if (toward(k) != sg) continue;
        const double sk = 2 * h[k] / std::fabs(u[k]);
        if (sk < s) { s = sk; m = k; }
      }
      t2 = std::clamp(t1 + sg * s, -hl, hl);
    }
  }
  if (e != 0 && t2 == t1) {
    bool approaches = false;
    for (int k = 0; k < 3; ++k) {
      if (k == m || !(cl[k] || (corner && k == kf))) continue;
      const double uk = u[k] != 0 ? u[k] : -1e-300;
      if (-e * uk * side[k] < 0) approaches = true;
    }
    if (!approaches) return NAN;
  }
  return t2;
}

}  // namespace

int capsule_box(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const GeomPose cap = geom_pose(m, d, g1), box = geom_pose(m, d, g2);
  const double r = cap.size[0], hl = cap.size[1];
  const double* h = box.size;
  double c[3], u[3], uw[3];
  to_local(c, box, cap.pos);
  axis_of(uw, cap.mat, 2);
  math::mulmatTvec3(u, box.mat, uw);

  // The first sphere. A segment end inside the box: the -end if it is inside, else the +end
  // (not the deeper end).
  auto inside_at = [&](double t) {
    return std::fabs(c[0] + t * u[0]) <= h[0] && std::fabs(c[1] + t * u[1]) <= h[1] &&
           std::fabs(c[2] + t * u[2]) <= h[2];
  };
  double tbest = 0;
  bool through = false;  // the first sphere is the edge point of a segment crossing the box
  int edge[3] = {0, 1, 1};  // that edge: its axis and the sides of the two other axes
  if (inside_at(-hl)) {
    tbest = -hl;
  } else if (inside_at(hl)) {
    tbest = hl;
  } else {
    // Closest point of the segment c + t u, t in [-hl, hl], to the box: the squared distance is a
    // convex piecewise quadratic in t whose pieces end where the point crosses a slab plane.
    double bp[16];  // (16: GCC -Warray-bounds sees std::sort's insertion threshold)
    int nbp = 0;
    bp[nbp++] = -hl;
    bp[nbp++] = hl;
    for (int k = 0; k < 3; ++k) {
      if (std::fabs(u[k]) < kMinVal) continue;
      for (double s : {-1.0, 1.0}) {
        const double t = (s * h[k] - c[k]) / u[k];
        if (t > -hl && t < hl) bp[nbp++] = t;
      }
    }
    std::sort(bp, bp + nbp);
    double fbest = INFINITY;
    for (int i = 0; i + 1 < nbp; ++i) {
      const double t0 = bp[i], t1 = bp[i + 1], tm = 0.5 * (t0 + t1);
      double num = 0, den = 0;
      bool outside = false;
      for (int k = 0; k < 3; ++k) {
        const double x = c[k] + tm * u[k];
        const double target = x > h[k] ? h[k] : (x < -h[k] ? -h[k] : NAN);
        if (std::isnan(target)) continue;
        outside = true;
        num += u[k] * (c[k] - target);
        den += u[k] * u[k];
      }
      // (a piece with no coordinate outside lies inside the box: evaluated at its middle, since its
      // ends sit on slab planes where rounding can put them just outside)
      double t = den > kMinVal ? std::clamp(-num / den, t0, t1) : (outside ? t0 : tm);
      double p[3] = {c[0] + t * u[0], c[1] + t * u[1], c[2] + t * u[2]};
      const double f = box_dist2(p, h);
      if (f < fbest) { fbest = f; tbest = t; }
    }
    if (fbest <= 0) {
      // The segment crosses the box with both ends outside: 2.2.2 takes the candidate nearest the
      // box among the two ends and the segment's closest points to the 12 box edges.
      double bestd = INFINITY;
      for (double te : {-hl, hl}) {
        const double pe[3] = {c[0] + te * u[0], c[1] + te * u[1], c[2] + te * u[2]};
        const double dd2 = box_dist2(pe, h);
        if (dd2 < bestd) { bestd = dd2; tbest = te; }
      }
      for (int k = 0; k < 3; ++k) {
        const int a = (k + 1) % 3, b = (k + 2) % 3;
        for (double sa : {-1.0, 1.0}) {
          for (double sb : {-1.0, 1.0}) {
            double ts;
            const double dd2 = segment_edge_dist2(c, u, hl, h, k, a, b, sa * h[a], sb * h[b], &ts);
            if (dd2 < bestd) {
              bestd = dd2;
              tbest = ts;
              through = true;
              edge[0] = k;
              edge[1] = sa > 0 ? 1 : -1;
              edge[2] = sb > 0 ? 1 : -1;
            }
          }
        }
      }
    }
  }

  // A segment exactly parallel to a box axis k (both other local components zero, as for a capsule
  // and a box rotated about the same world axis) is at the same distance from the box all along the
  // part beside a face or an edge; 2.2.2's choice within that tie, measured:
  //  - beside an edge along k: the point level with the edge's -h_k end if the segment reaches it,
  //    else level with its +h_k end, else the segment end nearer the -h_k end;
  //  - beside a face: the -end if it is level with the face, else the +end, else (the segment spans
  //    the face) the point level with the -h_k edge of the face.
  enum { kNotParallel, kParallelEdge, kParallelFaceSpan, kParallelFaceTie } parallel = kNotParallel;
  int pk = -1, pf = -1;  // the parallel axis; for a spanned face, the face axis
  if (!inside_at(-hl) && !inside_at(hl)) {
    for (int k = 0; k < 3; ++k)
      if (u[(k + 1) % 3] == 0 && u[(k + 2) % 3] == 0) pk = k;
  }
  if (pk >= 0) {
    const int a = (pk + 1) % 3, b = (pk + 2) % 3;
    const bool oa = std::fabs(c[a]) > h[a], ob = std::fabs(c[b]) > h[b];
    const double za = c[pk] - hl * u[pk], zb = c[pk] + hl * u[pk];  // the -end's and the +end's level
    const double zlo = std::min(za, zb), zhi = std::max(za, zb), hk = h[pk];
    const bool overlap = zlo <= hk && zhi >= -hk;
    auto level = [&](double z) { return z == za ? -hl : (z == zb ? hl : (z - c[pk]) / u[pk]); };
    if (overlap && oa && ob) {
      parallel = kParallelEdge;
      through = false;
      // (a segment within the edge's extent: its upper end when its centre is above the box
      // centre's level, else its lower end)
      tbest = level(zlo <= -hk ? -hk : (zhi >= hk ? hk : (c[pk] > 0 ? zhi : zlo)));
    } else if (overlap && oa != ob) {
      pf = oa ? a : b;
      through = false;
      if (std::fabs(za) <= hk) {
        tbest = -hl;
      } else if (std::fabs(zb) <= hk) {
        tbest = hl;
      } else {
        parallel = kParallelFaceSpan;
        tbest = level(-hk);
      }
    }
  }

  // A segment exactly parallel to a face pair f but to no axis (u_f = 0, the two other components
  // not), beside face f: the distance ties along the part of the segment over the face. 2.2.2
  // takes the -end if it is over the face, else the +end, else the end of
  // that part where the segment crosses the edge that comes first in the order of the crossing
  // candidates above (edge axis, then the signs), treated as that edge's point for the second sphere.
  if (pk < 0 && !inside_at(-hl) && !inside_at(hl)) {
    for (int f = 0; f < 3; ++f) {
      const int j = (f + 1) % 3, g = (f + 2) % 3;
      if (u[f] != 0 || u[j] == 0 || u[g] == 0 || std::fabs(c[f]) <= h[f]) continue;
      double lo = -hl, hi = hl;
      int qlo = -1, qhi = -1;  // the axis whose plane bounds the part over the face at lo, hi
      for (int q : {j, g}) {
        double ta = (-h[q] - c[q]) / u[q], tb = (h[q] - c[q]) / u[q];
        if (ta > tb) std::swap(ta, tb);
        if (ta > lo) { lo = ta; qlo = q; }
        if (tb < hi) { hi = tb; qhi = q; }
      }
      if (lo > hi) break;
      through = false;
      if (qlo < 0) {
        tbest = -hl;
      } else if (qhi < 0) {
        tbest = hl;
      } else {
        // the edge along the third axis between face f and the bounding plane of q at t
        auto edge_of = [&](double t, int q, int* e) {
          const int ke = 3 - f - q;
          double x[3];
          for (int k = 0; k < 3; ++k) x[k] = c[k] + t * u[k];
          e[0] = ke;
          e[1] = x[(ke + 1) % 3] > 0 ? 1 : -1;
          e[2] = x[(ke + 2) % 3] > 0 ? 1 : -1;
          return 4 * ke + (e[1] > 0 ? 2 : 0) + (e[2] > 0 ? 1 : 0);
        };
        int elo[3], ehi[3];
        const bool first_lo = edge_of(lo, qlo, elo) <= edge_of(hi, qhi, ehi);
        tbest = first_lo ? lo : hi;
        for (int k = 0; k < 3; ++k) edge[k] = first_lo ? elo[k] : ehi[k];
        parallel = kParallelFaceTie;
      }
      break;
    }
  }

  // First contact: the sphere at that point against the box.
  const double p[3] = {c[0] + tbest * u[0], c[1] + tbest * u[1], c[2] + tbest * u[2]};
  double dd, ppl[3], nnl[3];
  // The two spheres are tested against the margin independently: for a segment crossing the box
  // the first (an end or an edge point) can lie beyond the margin while the second, on a face the
  // segment leaves the box through, is inside it at depth -r (2.2.2 then reports the
  // second alone). For any other segment the first is the closest point, so
  // a second never passes where the first fails. (nnl is set, unnormalized, even beyond the margin.)
  int n = 0;
  double pos[3], nw[3];
  if (sphere_box_local(p, r, h, margin, &dd, ppl, nnl)) {
    to_world(pos, box, ppl);
    dir_to_world(nw, box, nnl);
    set_point(out[n++], dd, pos, nw);
  }

  int noutside = 0;
  for (int k = 0; k < 3; ++k) noutside += std::fabs(p[k]) > h[k];
  double t2 = NAN;
  if (parallel == kParallelEdge) {
    // Beside an edge along pk (sides of the two other axes from p): the second point slides from the
    // first along the edge to where the segment leaves the edge's extent, in the direction -side_a or
    // -side_b of the two clamped axes (both for an edge with mixed signs, one for equal signs),
    // clamped to the segment; none when that does not move.
    const int a = (pk + 1) % 3, b = (pk + 2) % 3;
    for (double sg : {p[a] > 0 ? -1.0 : 1.0, p[b] > 0 ? -1.0 : 1.0}) {
      const double vj = sg * u[pk];
      const double s = vj > 0 ? (h[pk] - p[pk]) / vj : (p[pk] + h[pk]) / -vj;
      const double tt = std::clamp(tbest + sg * std::max(s, 0.0), -hl, hl);
      if (tt != tbest) { t2 = tt; break; }
    }
  } else if (parallel == kParallelFaceSpan) {
    // Spanning a face: 2.2.2 takes the first point as on the face's -h edge and slides across the
    // face along pk by 2 h / |u| (the edge rule), but only when that slide runs in the direction
    // -side of the face axis.
    const double sg = u[pk] > 0 ? 1.0 : -1.0;
    if (sg == (p[pf] > 0 ? -1.0 : 1.0)) t2 = std::clamp(tbest + sg * 2 * h[pk] / std::fabs(u[pk]), -hl, hl);
  } else if (parallel == kParallelFaceTie) {
    t2 = second_over_edge(c, u, hl, h, tbest, p, true, edge);
  } else if (through) {
    // A crossing segment: a second point when the edge point lies inside the box, none when it
    // lies outside.
    // (an edge point of a segment parallel to a face lands on the face's plane, up to rounding)
    bool inside = true;
    for (int k = 0; k < 3; ++k) inside = inside && std::fabs(p[k]) <= h[k] * (1 + 1e-12);
    if (inside) t2 = second_over_edge(c, u, hl, h, tbest, p, true, edge);
  } else if (noutside == 1) {
    // Face region: the face of the box the first normal points into (its dominant axis) is
    // the support face; the segment is clipped to the prism over that face (|x_j| <= h_j on the
    // two other axes), and the end of the clipped part farther from the first point is the second
    // point, whatever the capsule's tilt.
    int k = 0;
    for (int j = 1; j < 3; ++j)
      if (std::fabs(nnl[j]) > std::fabs(nnl[k])) k = j;
    double lo = -hl, hi = hl;
    bool empty = false;
    for (int j = 0; j < 3; ++j) {
      if (j == k) continue;
      if (std::fabs(u[j]) < kMinVal) {
        if (std::fabs(c[j]) > h[j]) empty = true;
        continue;
      }
      double ta = (-h[j] - c[j]) / u[j], tb = (h[j] - c[j]) / u[j];
      if (ta > tb) std::swap(ta, tb);
      lo = std::max(lo, ta);
      hi = std::min(hi, tb);
    }
    if (!empty && lo <= hi) {
      const double t1 = std::fabs(lo - tbest) > std::fabs(hi - tbest) ? lo : hi;
      if (std::fabs(t1 - tbest) > kMinVal) t2 = t1;
    }
  } else if (noutside >= 2) {
    t2 = second_over_edge(c, u, hl, h, tbest, p, false, edge);
  }
  // (a first centre inside the box, not on a crossing segment's edge, gets no second point)
  if (!std::isnan(t2)) {
    const double q[3] = {c[0] + t2 * u[0], c[1] + t2 * u[1], c[2] + t2 * u[2]};
    if (sphere_box_local(q, r, h, margin, &dd, ppl, nnl)) {
      to_world(pos, box, ppl);
      dir_to_world(nw, box, nnl);
      set_point(out[n++], dd, pos, nw);
    }
  }
  return n;
}

}  // namespace moreau::col

// Broad phase: sweep and prune over body bounding boxes.
//
// Each body's box bounds the bounding spheres (geom_rbound, grown by the geom margin) of its
// collidable geoms; a plane (rbound 0: infinite) makes its body's box infinite. Boxes are sorted by
// their lower end on the coordinate axis of largest spread of the box centres, then swept: a pair is
// a candidate when the boxes overlap on all three axes. The chapter sorts on the principal axis of
// the geom centres; a coordinate axis gives the same pairs (the overlap test is exact on all three
// axes either way) and needs no eigen-decomposition. The sweep reads a copy of the boxes in sorted
// order (contiguous: the inner loop runs over every overlap along the axis, which grows faster than
// the number of bodies when they spread in two or three dimensions), and the candidate keys are put
// in order by two counting-sort passes (second body, then first) when there are many of them.
// With few collidable bodies (at most kAllPairsBodies) every pair of boxes is tested in body order
// instead: that is cheaper than the axis statistics, the sort and the sweep, and gives the pairs
// already in order.
// A pair that overlaps only through a plane's unbounded box (a floor against every body) is kept
// when the plane can reach the other body's finite box (its other geoms' spheres and margins), or
// when both bodies hold planes: a body high above the floor has no geom whose bounding sphere
// passes the narrow phase's plane test, so it is not paired with the floor. The boxes the mid phase
// queries stay unbounded.
#include "collision/broadphase.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/filter.h"
#include "collision/hull.h"
#include "collision/midphase.h"
#include "collision/narrowphase.h"
#include "engine/checks.h"
#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {

namespace col {
namespace {
// Up to this many collidable bodies the broad phase tests every pair (at most 496 box tests).
constexpr int kAllPairsBodies = 32;
// Per-body flags: a collidable plane; a collidable geom with a negative margin.
constexpr int kPlane = 1, kNegativeMargin = 2;

// Whether boxes a and b (min xyz, max xyz) overlap on all three axes.
inline bool boxes_overlap(const double* a, const double* b) {
  return !(b[0] > a[3] || a[0] > b[3] || b[1] > a[4] || a[1] > b[4] || b[2] > a[5] || a[2] > b[5]);
}

// Entries of d.work.col_broad for nb bodies (see collision_reserve).
size_t broad_need(size_t nb) {
  const size_t worst_pairs = nb * (nb > 0 ? nb - 1 : 0) / 2;
  return 4 * nb + std::max<size_t>(8 * nb, std::min<size_t>(worst_pairs, size_t{1} << 22)) + 64;
}

// A collidable plane for the plane test below: its body, unit normal n, offset n.P of its origin P
// and the threshold max(margin, 0) + band (band alone with the override margin, which the boxes
// include).
struct PlaneTest {
  int body;
  double n[3], offset, threshold;
};
// At most this many planes are tested; with more, every pair with a plane body is kept.
constexpr int kMaxPlanes = 8;

// Whether plane t may reach a body whose collidable non-plane geoms have the box fb (their bounding
// spheres grown by their margins, all of them >= 0). Each such geom's sphere centre c lies at least
// ext = rbound + margin inside fb on every axis, so n.(c - P) >= min over fb of n.(x - P) + ext |n|_1
// with |n|_1 >= |n| = 1; the narrow phase's bounding test (driver.cc, bounds_overlap) passes only
// when n.(c - P) <= rbound + max(margin_p, margin) + band. So no geom passes when the box's lowest
// point along n lies above the plane by more than the threshold. A small relative slack covers
// rounding; a box with an infinite or NaN bound is always reached.
inline bool plane_reaches(const PlaneTest& t, const double* fb) {
  double low = 0, size = 0;
  for (int k = 0; k < 3; ++k) {
    const double x = t.n[k] * (t.n[k] >= 0 ? fb[k] : fb[3 + k]);
    low += x;
    size += std::fabs(x);
  }
  const double above = low - t.offset;
  return !(above > t.threshold + 1e-9 * (1 + size + std::fabs(t.offset)));
}

// Whether candidate pair b1, b2 (one of them with a plane, flags kPlane / kNegativeMargin) stays:
// both hold planes (plane against plane has no bounding test), their finite boxes overlap, or a
// plane of one reaches the other's finite box (plane_reaches needs that body's margins >= 0).
inline bool plane_pair(int b1, int b2, const int* flags, const double* box, const double* finite,
                       const PlaneTest* planes, int nplanes) {
  const bool p1 = flags[b1] & kPlane, p2 = flags[b2] & kPlane;
  if ((p1 && p2) || nplanes > kMaxPlanes) return true;
  const double* f1 = p1 ? finite + 6 * b1 : box + 6 * b1;
  const double* f2 = p2 ? finite + 6 * b2 : box + 6 * b2;
  if (boxes_overlap(f1, f2)) return true;
  const int bp = p1 ? b1 : b2, bo = p1 ? b2 : b1;
  if (flags[bo] & kNegativeMargin) return true;
  const double* fo = p1 ? f2 : f1;
  for (int i = 0; i < nplanes; ++i)
    if (planes[i].body == bp && plane_reaches(planes[i], fo)) return true;
  return false;
}
}  // namespace
}  // namespace col

void collision_reserve(const Model& m, Data& d) {
  internal::check_data(m, d, "collision_reserve");
  const size_t nb = static_cast<size_t>(m.nbody);
  // Body boxes by body id (6*nbody), then the same boxes in sweep order (6*nbody), then the finite
  // boxes of bodies with planes (6*nbody).
  if (d.work.col_bound.size() < 18 * nb) d.work.col_bound.resize(18 * nb);
  // work: body list (nbody) + per-body contype/conaffinity unions (2*nbody) + per-body plane flags
  // (nbody) + candidate body pairs.
  // The pair list holds the worst case nbody*(nbody-1)/2 up to 4M entries (16 MB; every model
  // with fewer than ~2900 bodies), so that collision() never allocates inside a step; only larger
  // models may still grow it when more bodies overlap than that.
  const size_t need = col::broad_need(nb);
  if (d.work.col_broad.size() < need) d.work.col_broad.resize(need);
  if (d.work.col_bvh_adr.size() != nb) col::midphase_build(m, d);
  if (d.work.col_hull_adr.size() != static_cast<size_t>(m.nmesh)) col::hull_build(m, d);
  if (d.work.col_hfield_top.size() != static_cast<size_t>(m.nhfield)) col::hfield_top_build(m, d);
}

}  // namespace moreau

namespace moreau::col {

const int* broadphase(const Model& m, Data& d, int* npairs) {
  const int nb = m.nbody;
  // (collision_reserve gives col_broad broad_need(nbody) entries: at least 12 * nbody + 64, and
  // room for every pair of up to kAllPairsBodies bodies)
  if (d.work.col_bound.size() < 18 * static_cast<size_t>(nb) || d.work.col_broad.size() < broad_need(nb) ||
      d.work.col_hull_adr.size() != static_cast<size_t>(m.nmesh) ||
      d.work.col_hfield_top.size() != static_cast<size_t>(m.nhfield))
    collision_reserve(m, d);
  const bool override_margin = m.opt.enableflags & kEnblOverride;
  const double band = contact_band(m.opt.solver);
  constexpr double kInf = std::numeric_limits<double>::infinity();

  // Per body: box, contype/conaffinity unions, flags; list of bodies with collidable geoms; the
  // collidable planes' tests.
  double* box = d.work.col_bound.data();
  double* finite = box + 12 * static_cast<size_t>(nb);  // finite boxes of bodies with planes
  int* list = d.work.col_broad.data();          // nb
  int* ctype = list + nb;                 // nb
  int* caff = ctype + nb;                 // nb
  int* flags = caff + nb;                 // nb: kPlane, kNegativeMargin
  int nlist = 0;
  PlaneTest plane_tests[kMaxPlanes];      // the collidable planes (nplanes may exceed kMaxPlanes)
  int nplanes = 0;
  const double* xpos = d.geom_xpos.data();
  for (int b = 0; b < nb; ++b) {
    const int adr = m.body_geomadr[b], num = m.body_geomnum[b];
    int ct = 0, ca = 0;
    bool plane = false, unbounded = false;
    // the box in locals (they cannot alias geom_xpos), stored once per body
    double lo0 = kInf, lo1 = kInf, lo2 = kInf, hi0 = -kInf, hi1 = -kInf, hi2 = -kInf, lowest = 0;
    for (int g = adr; g < adr + num; ++g) {
      const int ct_g = m.geom_contype[g], ca_g = m.geom_conaffinity[g];
      if (!ct_g && !ca_g) continue;
      ct |= ct_g;
      ca |= ca_g;
      const double r = m.geom_rbound[g];
      if (r <= 0) {  // plane (or unbounded): infinite box
        if (m.geom_type[g] != kGeomPlane) {
          unbounded = true;
          continue;
        }
        plane = true;
        if (nplanes++ >= kMaxPlanes) continue;
        PlaneTest& t = plane_tests[nplanes - 1];
        const double* R = &d.geom_xmat[9 * g];
        const double* P = xpos + 3 * g;
        t.body = b;
        t.n[0] = R[2], t.n[1] = R[5], t.n[2] = R[8];
        t.offset = t.n[0] * P[0] + t.n[1] * P[1] + t.n[2] * P[2];
        t.threshold = (override_margin ? 0.0 : std::max(m.geom_margin[g], 0.0)) + band;
        continue;
      }
      const double margin = override_margin ? m.opt.o_margin : m.geom_margin[g];
      lowest = std::min(lowest, margin);
      const double ext = r + margin;
      const double* p = xpos + 3 * g;
      lo0 = std::min(lo0, p[0] - ext), hi0 = std::max(hi0, p[0] + ext);
      lo1 = std::min(lo1, p[1] - ext), hi1 = std::max(hi1, p[1] + ext);
      lo2 = std::min(lo2, p[2] - ext), hi2 = std::max(hi2, p[2] + ext);
    }
    const bool negative = lowest < 0;
    double* bx = box + 6 * b;
    bx[0] = lo0, bx[1] = lo1, bx[2] = lo2, bx[3] = hi0, bx[4] = hi1, bx[5] = hi2;
    // a body with planes keeps the box of its other geoms for plane_reaches
    if (plane) {
      double* fb = finite + 6 * b;
      std::copy_n(bx, 6, fb);
      if (unbounded) {
        fb[0] = fb[1] = fb[2] = -kInf;
        fb[3] = fb[4] = fb[5] = kInf;
      }
    }
    if (plane || unbounded) {
      bx[0] = bx[1] = bx[2] = -kInf;
      bx[3] = bx[4] = bx[5] = kInf;
    }
    if (!ct && !ca) continue;
    ctype[b] = ct;
    caff[b] = ca;
    flags[b] = (plane ? kPlane : 0) | (negative ? kNegativeMargin : 0);
    list[nlist++] = b;
  }
  size_t base = 4 * static_cast<size_t>(nb);
  if (nlist <= kAllPairsBodies) {
    // every pair, in body order (list ascends): the keys come out sorted, into the room
    // broad_need leaves for nlist (nlist - 1) / 2 <= nbody (nbody - 1) / 2 of them
    int* out = d.work.col_broad.data() + base;
    int n = 0;
    for (int i = 0; i < nlist; ++i) {
      const int bi = list[i];
      const double* bxi = box + 6 * bi;
      for (int j = i + 1; j < nlist; ++j) {
        const int bj = list[j];
        if (!boxes_overlap(bxi, box + 6 * bj)) continue;
        if (!compatible(ctype[bi], caff[bi], ctype[bj], caff[bj])) continue;
        if (((flags[bi] | flags[bj]) & kPlane) &&
            !plane_pair(bi, bj, flags, box, finite, plane_tests, nplanes))
          continue;
        if (body_pair_filtered(m, bi, bj)) continue;
        out[n++] = (bi << 16) + bj;
      }
    }
    *npairs = n;
    return out;
  }
  double mean[3] = {0, 0, 0}, sq[3] = {0, 0, 0};
  int nfinite = 0;
  for (int i = 0; i < nlist; ++i) {
    const double* bx = box + 6 * list[i];
    if (!std::isfinite(bx[0])) continue;
    ++nfinite;
    for (int k = 0; k < 3; ++k) {
      const double c = 0.5 * (bx[k] + bx[3 + k]);
      mean[k] += c;
      sq[k] += c * c;
    }
  }
  int axis = 0;
  if (nfinite > 0) {
    double best = -1;
    for (int k = 0; k < 3; ++k) {
      const double var = sq[k] / nfinite - (mean[k] / nfinite) * (mean[k] / nfinite);
      if (var > best) { best = var; axis = k; }
    }
  }
  std::sort(list, list + nlist, [&](int a, int b) { return box[6 * a + axis] < box[6 * b + axis]; });

  // Sweep over the boxes in sorted order; candidate signatures go after the per-body arrays,
  // growing the buffer if needed.
  double* sorted = box + 6 * static_cast<size_t>(nb);
  for (int i = 0; i < nlist; ++i) std::copy_n(box + 6 * list[i], 6, sorted + 6 * i);
  size_t n = 0;
  for (int i = 0; i < nlist; ++i) {
    const double* bxi = sorted + 6 * i;
    const double upper = bxi[3 + axis];
    for (int j = i + 1; j < nlist; ++j) {
      const double* bxj = sorted + 6 * j;
      if (bxj[axis] > upper) break;
      if (!boxes_overlap(bxi, bxj)) continue;
      const int* w = d.work.col_broad.data();  // (not list: the buffer may have grown)
      const int bi = w[i], bj = w[j];
      if (!compatible(w[nb + bi], w[2 * nb + bi], w[nb + bj], w[2 * nb + bj])) continue;
      const int b1 = std::min(bi, bj), b2 = std::max(bi, bj);
      if (((w[3 * nb + b1] | w[3 * nb + b2]) & kPlane) &&
          !plane_pair(b1, b2, w + 3 * nb, box, finite, plane_tests, nplanes))
        continue;
      if (body_pair_filtered(m, b1, b2)) continue;
      if (base + n >= d.work.col_broad.size()) d.work.col_broad.resize(2 * d.work.col_broad.size());  // rare growth
      d.work.col_broad[base + n++] = (b1 << 16) + b2;
    }
  }
  int* pairs = d.work.col_broad.data() + base;
  if (n >= 64 && 4 * n >= static_cast<size_t>(nb) && base + 2 * n <= d.work.col_broad.size()) {
    // Keys are unique with both bodies < nb: a stable counting sort by the second body, then by
    // the first, orders them as std::sort would, in O(n + nbody). The per-body arrays (4 * nbody,
    // done with) hold the counts; the keys pass through the space after them.
    int* count = d.work.col_broad.data();
    int* tmp = pairs + n;
    auto pass = [&](const int* from, int* to, int shift, int mask) {
      std::fill(count, count + nb + 1, 0);
      for (size_t k = 0; k < n; ++k) ++count[((from[k] >> shift) & mask) + 1];
      for (int b = 0; b < nb; ++b) count[b + 1] += count[b];
      for (size_t k = 0; k < n; ++k) to[count[(from[k] >> shift) & mask]++] = from[k];
    };
    pass(pairs, tmp, 0, 0xFFFF);
    pass(tmp, pairs, 16, 0xFFFF);
  } else {
    std::sort(pairs, pairs + n);
  }
  *npairs = static_cast<int>(n);
  return pairs;
}

}  // namespace moreau::col

// Height field against a convex geom: the field is a union of triangular prisms (computation
// chapter, "Collision detection"), each tested with MPR against the geom; every prism in contact
// gives one contact, up to kMaxContactsPerPair.
//
// As 2.2.2 does it (measured on 2.2.2's libccd calls, see convex.h):
//   - the test runs in the height field's frame: the other geom's pose is expressed there and the
//     results are rotated back;
//   - the cells tested are those under the geom's axis-aligned box in the field's frame (without
//     the margin), from floor to ceil of its extent in cells; a prism whose highest top (margin
//     included) lies below the box is skipped (both rules reproduce 2.2.2's list of MPR calls);
//   - grid point (c, r) lies at x = -size_x + c dx, y = -size_y + r dy, z = data[r ncol + c] size_z;
//     cell (c, r) is split along its (c, r)-(c+1, r+1) diagonal into the prisms with top corners
//     {(c, r+1), (c, r), (c+1, r+1)} and {(c, r), (c+1, r+1), (c+1, r)}, tested in that order, cells
//     row by row; a prism reaches from z = -size_bottom up to its corners' heights raised by the
//     contact margin (the other geom is inflated by half the margin, as in all MPR pairs);
//   - its support point is the vertex of largest dir.v among the bottom corners where dir_z < 0,
//     among the top corners otherwise (corners in the order above, first maximum; see convex.cc);
//     its centre the mean of the six vertices (summed bottoms first);
//   - the contact distance is minus MPR's depth, the normal is fixed for a smooth geom as in the
//     convex pairs (fix_normal).
#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/convex.h"
#include "collision/narrowphase.h"

namespace moreau::col {

int hfield_convex(const Model& m, const Data& d, int g1, int g2, double margin, ContactPoint* out, void*) {
  const double* hpos = &d.geom_xpos[3 * g1];
  const double* hmat = &d.geom_xmat[9 * g1];
  const int id = m.geom_dataid[g1];
  const double* size = &m.hfield_size[4 * id];
  const int nrow = m.hfield_nrow[id], ncol = m.hfield_ncol[id];
  const float* data = &m.hfield_data[m.hfield_adr[id]];

  // the other geom in the field's frame
  ConvexObject o2 = convex_object(m, d, g2, 0.5 * margin);
  double lpos[3], lmat[9], v[3];
  math::sub3(v, o2.pos, hpos);
  math::mulmatTvec3(lpos, hmat, v);
  math::mulmatTmat3(lmat, hmat, o2.mat);
  o2.pos = lpos;
  o2.mat = lmat;

  // A primitive lies within geom_rbound of its centre: when its lowest possible point is above the
  // field's highest prism top (elevation plus margin), every prism is skipped below, and there is
  // no contact. The bound is loosened by far more than the rounding of the support points.
  const int t2 = m.geom_type[g2];
  if (static_cast<size_t>(id) < d.work.col_hfield_top.size() && t2 >= kGeomSphere &&
      t2 <= kGeomBox) {
    const double low = lpos[2] - m.geom_rbound[g2] * (1 + 1e-9) - 1e-9 * (1 + std::fabs(lpos[2]));
    if (d.work.col_hfield_top[id] + margin < low) return 0;
  }

  // the geom's axis-aligned box in the field's frame (its support points without the margin);
  // the cells it covers, row by row
  double lo[3], hi[3];
  {
    const double inflate = o2.margin;
    o2.margin = 0;
    for (int k = 0; k < 3; ++k) {
      double e[3] = {0, 0, 0}, p[3];
      e[k] = 1;
      convex_support(o2, e, p);
      hi[k] = p[k];
      e[k] = -1;
      convex_support(o2, e, p);
      lo[k] = p[k];
    }
    o2.margin = inflate;
  }
  const double dx = 2 * size[0] / (ncol - 1), dy = 2 * size[1] / (nrow - 1);
  const int c0 = std::max(0, static_cast<int>(std::floor((lo[0] + size[0]) / dx)));
  const int c1 = std::min(ncol - 1, static_cast<int>(std::ceil((hi[0] + size[0]) / dx)));
  const int r0 = std::max(0, static_cast<int>(std::floor((lo[1] + size[1]) / dy)));
  const int r1 = std::min(nrow - 1, static_cast<int>(std::ceil((hi[1] + size[1]) / dy)));

  ConvexObject prism;
  prism.type = kGeomHField;
  auto corner = [&](int k, int c, int r) {
    double* top = prism.prism[k];
    double* bottom = prism.prism[k + 3];
    top[0] = bottom[0] = dx * c - size[0];
    top[1] = bottom[1] = dy * r - size[1];
    top[2] = data[r * ncol + c] * size[2] + margin;
    bottom[2] = -size[3];
  };
  int n = 0;
  for (int r = r0; r < r1; ++r) {
    for (int c = c0; c < c1; ++c) {
      for (int half = 0; half < 2; ++half) {
        if (half == 0) {
          corner(0, c, r + 1);
          corner(1, c, r);
          corner(2, c + 1, r + 1);
        } else {
          corner(0, c, r);
          corner(1, c + 1, r + 1);
          corner(2, c + 1, r);
        }
        // a prism whose top lies below the geom's box cannot touch it
        if (std::max({prism.prism[0][2], prism.prism[1][2], prism.prism[2][2]}) < lo[2]) continue;
        for (int k = 0; k < 3; ++k) {  // bottoms, then tops; times 1/6 (2.2.2's bits)
          double s = 0;
          for (int i = 3; i < 9; ++i) s += prism.prism[i % 6][k];
          prism.prism_center[k] = s * (1.0 / 6);
        }
        double depth, dir[3], pos[3];
        if (!convex_penetration(m, prism, o2, &depth, dir, pos)) continue;
        double wpos[3], wdir[3];
        math::mulmatvec3(wpos, hmat, pos);
        math::add3(wpos, wpos, hpos);
        math::mulmatvec3(wdir, hmat, dir);
        const ConvexObject world = convex_object(m, d, g2, 0.5 * margin);
        ConvexObject none;  // the prism has no smooth surface
        none.type = kGeomHField;
        fix_normal(none, world, wpos, wdir);
        set_point(out[n++], -depth, wpos, wdir);
        if (n == kMaxContactsPerPair) return n;
      }
    }
  }
  return n;
}

void hfield_top_build(const Model& m, Data& d) {
  d.work.col_hfield_top.assign(m.nhfield, 0);
  for (int id = 0; id < m.nhfield; ++id) {
    const float* data = &m.hfield_data[m.hfield_adr[id]];
    const double sz = m.hfield_size[4 * id + 2];
    double top = -std::numeric_limits<double>::infinity();
    for (int i = 0, n = m.hfield_nrow[id] * m.hfield_ncol[id]; i < n; ++i) {
      const double z = data[i] * sz;  // as the prism corners compute it
      top = std::isfinite(z) ? std::max(top, z) : std::numeric_limits<double>::infinity();
      if (top == std::numeric_limits<double>::infinity()) break;
    }
    d.work.col_hfield_top[id] = top;
  }
}

}  // namespace moreau::col

// Model statistics (MJCF <statistic>; the "Statistic" section of the model documentation): the
// centre and size of the model in qpos0 and a typical body size. Viewers frame the scene from
// center and extent; meansize scales visual decorations.
//
// center: the middle of the axis-aligned box around the body frames and inertial frames (the
//   world's excluded), joint anchors, sites, and geoms widened by their bounding sphere. A plane
//   or height field has no bounding sphere: it counts with a tenth of its largest size, an
//   infinite plane with 1.
// extent: the box's longest side (at least 1e-5), raised to twice meansize; where the box is
//   empty (a model without elements) the previous value stays.
// meansize: the mean over bodies (the world excluded) of a body size: the largest distance from
//   the body's centre of mass to one of its own joints' or its children's joints' anchors, or to
//   the far side of one of its geoms' bounding spheres; at least 1e-5.
#include "compiler/statistic.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace moreau {
namespace {

struct Box {
  double lo[3] = {1e10, 1e10, 1e10};
  double hi[3] = {-1e10, -1e10, -1e10};
  void add(const double* p, double r) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k] - r);
      hi[k] = std::max(hi[k], p[k] + r);
    }
  }
};

double distance(const double* a, const double* b) {
  const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// The radius a geom counts with in the bounding box.
double box_radius(const Model& m, int g) {
  if (m.geom_rbound[g] > 0) return m.geom_rbound[g];
  const double* s = &m.geom_size[3 * g];
  if (m.geom_type[g] == kGeomPlane) return s[0] != 0 || s[1] != 0 ? 0.1 * std::max(s[0], s[1]) : 1.0;
  if (m.geom_type[g] == kGeomHField) {
    const double* h = &m.hfield_size[4 * m.geom_dataid[g]];
    return 0.1 * std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
  }
  return 0;
}

}  // namespace

void set_statistic(Model& m, const Data& d) {
  Box box;
  for (int b = 1; b < m.nbody; ++b) {
    box.add(&d.xpos[3 * b], 0);
    box.add(&d.xipos[3 * b], 0);
  }
  for (int j = 0; j < m.njnt; ++j) box.add(&d.xanchor[3 * j], 0);
  for (int s = 0; s < m.nsite; ++s) box.add(&d.site_xpos[3 * s], 0);
  for (int g = 0; g < m.ngeom; ++g) box.add(&d.geom_xpos[3 * g], box_radius(m, g));

  for (int k = 0; k < 3; ++k) m.stat.center[k] = 0.5 * (box.lo[k] + box.hi[k]);
  if (box.hi[0] > box.lo[0]) {
    double side = 0;
    for (int k = 0; k < 3; ++k) side = std::max(side, box.hi[k] - box.lo[k]);
    m.stat.extent = std::max(1e-5, side);
  }

  if (m.nbody > 1) {
    std::vector<double> size(m.nbody, 0.0);
    for (int j = 0; j < m.njnt; ++j) {
      const int b = m.jnt_bodyid[j], parent = m.body_parentid[b];
      size[b] = std::max(size[b], distance(&d.xipos[3 * b], &d.xanchor[3 * j]));
      size[parent] = std::max(size[parent], distance(&d.xipos[3 * parent], &d.xanchor[3 * j]));
    }
    double sum = 0;
    for (int b = 1; b < m.nbody; ++b) {
      for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g)
        if (m.geom_rbound[g] > 0)
          size[b] = std::max(size[b], m.geom_rbound[g] + distance(&d.xipos[3 * b], &d.geom_xpos[3 * g]));
      sum += std::max(size[b], 1e-5) / (m.nbody - 1);
    }
    m.stat.meansize = sum;
  }
  m.stat.extent = std::max(m.stat.extent, 2 * m.stat.meansize);
}

}  // namespace moreau

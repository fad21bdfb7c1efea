// Hand-built models for the collision unit tests (no MJCF, no MuJoCo).
#pragma once

#include <cmath>
#include <vector>

#include "math/vec.h"
#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau::coltest {

// A scene: world body 0 plus one body per added geom (each body a free root body, parent world),
// unless `body` is given. Poses are set directly in Data.
struct Scene {
  Model m;
  Data d;
  Scene() {
    m.nbody = 1;
    m.body_parentid = {0};
    m.body_weldid = {0};
    m.body_rootid = {0};
    m.body_geomadr = {0};
    m.body_geomnum = {0};
    m.nconmax = 100;
  }
  // Adds a geom of `type` and `size` at pos with rotation quat (w,x,y,z) in a new body (or `body`).
  int add(int type, std::vector<double> size, std::vector<double> pos, std::vector<double> quat = {1, 0, 0, 0},
          int body = -1) {
    if (body < 0) {
      body = m.nbody++;
      m.body_parentid.push_back(0);
      m.body_weldid.push_back(body);
      m.body_rootid.push_back(body);
      m.body_geomadr.push_back(m.ngeom);
      m.body_geomnum.push_back(0);
    }
    // geoms must be contiguous per body: only append to the last body or a body with no geoms
    if (m.body_geomnum[body] == 0) m.body_geomadr[body] = m.ngeom;
    m.body_geomnum[body]++;
    const int g = m.ngeom++;
    size.resize(3, 0);
    m.geom_type.push_back(type);
    m.geom_contype.push_back(1);
    m.geom_conaffinity.push_back(1);
    m.geom_condim.push_back(3);
    m.geom_bodyid.push_back(body);
    m.geom_dataid.push_back(-1);
    m.geom_priority.push_back(0);
    m.geom_solmix.push_back(1);
    m.geom_solref.insert(m.geom_solref.end(), {0.02, 1});
    m.geom_solimp.insert(m.geom_solimp.end(), {0.9, 0.95, 0.001, 0.5, 2});
    m.geom_size.insert(m.geom_size.end(), size.begin(), size.end());
    double rb = 0;
    switch (type) {
      case kGeomSphere: rb = size[0]; break;
      case kGeomCapsule: rb = size[0] + size[1]; break;
      case kGeomCylinder: rb = std::sqrt(size[0] * size[0] + size[1] * size[1]); break;
      case kGeomEllipsoid: rb = std::max({size[0], size[1], size[2]}); break;
      case kGeomBox: rb = std::sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]); break;
      default: rb = 0;
    }
    m.geom_rbound.push_back(rb);
    m.geom_friction.insert(m.geom_friction.end(), {1, 0.005, 0.0001});
    m.geom_margin.push_back(0);
    m.geom_gap.push_back(0);
    double q[4] = {quat[0], quat[1], quat[2], quat[3]}, R[9];
    math::normalize4(q);
    math::quat2mat(R, q);
    d.geom_xpos.insert(d.geom_xpos.end(), pos.begin(), pos.end());
    d.geom_xmat.insert(d.geom_xmat.end(), R, R + 9);
    d.xpos.resize(3 * m.nbody);  // sized as make_data does: collision() checks the Data/Model match
    return g;
  }
  void run() {
    if (d.contact.size() != static_cast<size_t>(m.nconmax)) d.contact.resize(m.nconmax);
    collision(m, d);
  }
};

// Quaternion of a rotation by `deg` degrees about axis (x,y,z).
inline std::vector<double> rot(double deg, double x, double y, double z) {
  double a[3] = {x, y, z};
  math::normalize3(a);
  double q[4];
  math::axisangle2quat(q, a, deg * M_PI / 180);
  return {q[0], q[1], q[2], q[3]};
}

}  // namespace moreau::coltest

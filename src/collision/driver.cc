// Collision driver: explicit pairs and broad-phase body pairs -> filters -> narrow phase -> contacts
// with mixed parameters. Computation chapter, "Collision detection"; simulation chapter, "Contacts".
//
// Order of d.contact: candidate body pairs in increasing (body1, body2) order, and within one body
// pair the geoms in model order; explicit <pair>s are merged in by their body-pair signature. The
// contacts of one body pair are thus contiguous with body1 the major index, as the simulation
// chapter describes (and in the order 2.2.2 produces).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collision/broadphase.h"
#include "collision/filter.h"
#include "collision/midphase.h"
#include "collision/narrowphase.h"
#include "engine/checks.h"
#include "moreau/messages.h"
#include "moreau/moreau.h"

namespace moreau {
namespace col {

// Contact frame: rows normal, tangent1, tangent2 (right-handed). A tangent offered by the narrow
// phase is kept (orthogonalized); otherwise the tangent is the world y axis, or the z axis when the
// normal is close to y, made orthogonal to the normal.
void make_frame(double* f) {
  math::normalize3(f);
  if (math::dot3(f + 3, f + 3) < 0.25) {
    if (std::fabs(f[1]) < 0.5) { f[3] = 0; f[4] = 1; f[5] = 0; }
    else { f[3] = 0; f[4] = 0; f[5] = 1; }
  }
  math::addscl3(f + 3, f, -math::dot3(f, f + 3));
  math::normalize3(f + 3);
  math::cross3(f + 6, f, f + 3);
}

namespace {

struct Params {
  int dim;
  double friction[5];
  double solref[kNREF];
  double solimp[kNIMP];
  double margin, gap;
};

// Mixing rules for dynamic geom pairs. The geom of higher priority gives condim, friction, solref
// and solimp; at equal priority condim and friction are the maxima, solref/solimp are the average
// weighted by solmix (weight solmix1/(solmix1+solmix2) for geom 1). Margin and gap are maxima.
void mix_params(const Model& m, int g1, int g2, Params& p) {
  const Option& o = m.opt;
  const bool ovr = o.enableflags & kEnblOverride;
  p.margin = ovr ? o.o_margin : std::max(m.geom_margin[g1], m.geom_margin[g2]);
  p.gap = std::max(m.geom_gap[g1], m.geom_gap[g2]);
  const double* f;
  double fmax[3];
  const int pr1 = m.geom_priority[g1], pr2 = m.geom_priority[g2];
  if (pr1 != pr2) {
    const int gw = pr1 > pr2 ? g1 : g2;
    p.dim = m.geom_condim[gw];
    f = &m.geom_friction[3 * gw];
    for (int k = 0; k < kNREF; ++k) p.solref[k] = m.geom_solref[kNREF * gw + k];
    for (int k = 0; k < kNIMP; ++k) p.solimp[k] = m.geom_solimp[kNIMP * gw + k];
  } else {
    p.dim = std::max(m.geom_condim[g1], m.geom_condim[g2]);
    for (int k = 0; k < 3; ++k) fmax[k] = std::max(m.geom_friction[3 * g1 + k], m.geom_friction[3 * g2 + k]);
    f = fmax;
    const double s1 = m.geom_solmix[g1], s2 = m.geom_solmix[g2];
    double mix;
    if (s1 >= kMinVal && s2 >= kMinVal) mix = s1 / (s1 + s2);
    else if (s1 < kMinVal && s2 < kMinVal) mix = 0.5;
    else mix = s1 < kMinVal ? 0.0 : 1.0;
    const double* r1 = &m.geom_solref[kNREF * g1];
    const double* r2 = &m.geom_solref[kNREF * g2];
    if (r1[0] > 0 && r2[0] > 0) {
      for (int k = 0; k < kNREF; ++k) p.solref[k] = mix * r1[k] + (1 - mix) * r2[k];
    } else {  // direct (negative) solref: averaging stiffness with a time constant is meaningless
      for (int k = 0; k < kNREF; ++k) p.solref[k] = std::min(r1[k], r2[k]);
    }
    for (int k = 0; k < kNIMP; ++k)
      p.solimp[k] = mix * m.geom_solimp[kNIMP * g1 + k] + (1 - mix) * m.geom_solimp[kNIMP * g2 + k];
  }
  p.friction[0] = p.friction[1] = f[0];
  p.friction[2] = f[1];
  p.friction[3] = p.friction[4] = f[2];
  if (ovr) {
    for (int k = 0; k < kNREF; ++k) p.solref[k] = o.o_solref[k];
    for (int k = 0; k < kNIMP; ++k) p.solimp[k] = o.o_solimp[k];
  }
}

// Explicit pairs carry their own parameters.
void pair_params(const Model& m, int ip, Params& p) {
  const Option& o = m.opt;
  const bool ovr = o.enableflags & kEnblOverride;
  p.dim = m.pair_dim[ip];
  for (int k = 0; k < 5; ++k) p.friction[k] = m.pair_friction[5 * ip + k];
  for (int k = 0; k < kNREF; ++k) p.solref[k] = ovr ? o.o_solref[k] : m.pair_solref[kNREF * ip + k];
  for (int k = 0; k < kNIMP; ++k) p.solimp[k] = ovr ? o.o_solimp[k] : m.pair_solimp[kNIMP * ip + k];
  p.margin = ovr ? o.o_margin : m.pair_margin[ip];
  p.gap = m.pair_gap[ip];
}

// Bounding-sphere test with margin (a plane against the other geom's sphere).
bool bounds_overlap(const Model& m, const Data& d, int g1, int g2, double margin) {
  const double r1 = m.geom_rbound[g1], r2 = m.geom_rbound[g2];
  const double* p1 = &d.geom_xpos[3 * g1];
  const double* p2 = &d.geom_xpos[3 * g2];
  if (m.geom_type[g1] == kGeomPlane) {
    if (r2 <= 0) return true;
    const double* R = &d.geom_xmat[9 * g1];
    const double dist = (p2[0] - p1[0]) * R[2] + (p2[1] - p1[1]) * R[5] + (p2[2] - p1[2]) * R[8];
    return dist <= r2 + margin;
  }
  if (r1 <= 0 || r2 <= 0) return true;
  double v[3];
  math::sub3(v, p2, p1);
  const double lim = r1 + r2 + margin;
  return math::dot3(v, v) <= lim * lim;
}

class Collector {
 public:
  Collector(const Model& m, Data& d, const CollisionTable& t)
      : m_(m), d_(d), t_(t), cap_(static_cast<int>(d.contact.size())),
        band_(contact_band(m.opt.solver)) {}
  bool full() const { return full_; }

  // Narrow phase of geoms g1, g2 with contact margin `margin` (plus the hard-contact solvers'
  // band, moreau.h): the contact points go to buf_ and their number is returned; g1, g2 come back
  // ordered by type, as the contacts record them.
  int narrow(int& g1, int& g2, double margin) {
    margin += band_;
    if (m_.geom_type[g1] > m_.geom_type[g2]) std::swap(g1, g2);
    const int t1 = m_.geom_type[g1], t2 = m_.geom_type[g2];
    const CollisionFunction fn = t_.fn[t1][t2];
    if (!fn) return 0;
    if (!bounds_overlap(m_, d_, g1, g2, margin)) return 0;
    return fn(m_, d_, g1, g2, margin, buf_, t_.user[t1][t2]);
  }

  // Appends the n contact points of buf_ as contacts of geoms g1, g2 (ordered by type) with
  // parameters p.
  void add(int g1, int g2, int n, const Params& p) {
    for (int i = 0; i < n; ++i) {
      if (d_.ncon >= cap_) {
        warning(d_, kWarnContactFull, d_.ncon);
        full_ = true;
        return;
      }
      Contact& c = d_.contact[d_.ncon++];
      const ContactPoint& q = buf_[i];
      c.dist = q.dist;
      math::copy3(c.pos, q.pos);
      for (int k = 0; k < 9; ++k) c.frame[k] = q.frame[k];
      make_frame(c.frame);
      c.includemargin = p.margin - p.gap;
      for (int k = 0; k < 5; ++k) c.friction[k] = p.friction[k];
      for (int k = 0; k < kNREF; ++k) c.solref[k] = p.solref[k];
      for (int k = 0; k < kNIMP; ++k) c.solimp[k] = p.solimp[k];
      c.mu = 0;
      c.dim = p.dim;
      c.geom1 = g1;
      c.geom2 = g2;
      c.exclude = 0;
      c.efc_address = -1;
    }
  }

  // Narrow phase of geoms g1, g2 with parameters p.
  void collide(int g1, int g2, const Params& p) {
    const int n = narrow(g1, g2, p.margin);
    if (n) add(g1, g2, n, p);
  }

 private:
  const Model& m_;
  Data& d_;
  const CollisionTable& t_;
  const int cap_;
  const double band_;
  bool full_ = false;
  ContactPoint buf_[kMaxContactsPerPair];
};

bool is_explicit_pair(const Model& m, int g1, int g2) {
  for (int i = 0; i < m.npair; ++i)
    if ((m.pair_geom1[i] == g1 && m.pair_geom2[i] == g2) || (m.pair_geom1[i] == g2 && m.pair_geom2[i] == g1))
      return true;
  return false;
}

CollisionTable make_default_table() {
  CollisionTable t;
  auto set = [&](int a, int b, CollisionFunction f) { t.fn[a][b] = f; };
  set(kGeomPlane, kGeomSphere, plane_sphere);
  set(kGeomPlane, kGeomCapsule, plane_capsule);
  set(kGeomPlane, kGeomEllipsoid, plane_ellipsoid);
  set(kGeomPlane, kGeomCylinder, plane_cylinder);
  set(kGeomPlane, kGeomBox, plane_box);
  set(kGeomSphere, kGeomSphere, sphere_sphere);
  set(kGeomSphere, kGeomCapsule, sphere_capsule);
  // sphere-cylinder: 2.2.2 uses its convex (MPR) path; the analytic col::sphere_cylinder is
  // available for custom tables.
  set(kGeomSphere, kGeomBox, sphere_box);
  set(kGeomCapsule, kGeomCapsule, capsule_capsule);
  set(kGeomCapsule, kGeomBox, capsule_box);
  set(kGeomBox, kGeomBox, box_box);
  // general convex pairs (MPR), meshes included
  const int convex[] = {kGeomSphere, kGeomCapsule, kGeomEllipsoid, kGeomCylinder, kGeomBox, kGeomMesh};
  for (int a : convex)
    for (int b : convex)
      if (a <= b && !t.fn[a][b]) t.fn[a][b] = convex_convex;
  set(kGeomPlane, kGeomMesh, plane_mesh);
  for (int b : convex) set(kGeomHField, b, hfield_convex);
  return t;
}

}  // namespace
}  // namespace col

const CollisionTable& default_collision_table() {
  static const CollisionTable table = col::make_default_table();  // immutable after init
  return table;
}

void collision(const Model& m, Data& d) { collision(m, d, default_collision_table()); }

void collision(const Model& m, Data& d, const CollisionTable& table) {
  internal::check_data(m, d, "collision");
  using namespace col;
  d.ncon = 0;
  if (m.opt.disableflags & (kDsblContact | kDsblConstraint)) return;
  if (d.contact.empty() || m.ngeom == 0) return;
  Collector col(m, d, table);
  Params p;
  const int mode = m.opt.collision;
  const bool override_margin = m.opt.enableflags & kEnblOverride;

  // Explicit pairs are merged into the sequence of candidate body pairs by body-pair signature
  // (pairs first on equal signatures), so that the contacts of one body pair stay contiguous; with
  // collision="pair" they come alone, in order.
  int ip = 0;
  auto explicit_upto = [&](long long sig) {
    for (; ip < m.npair && !col.full() && m.pair_signature[ip] <= sig; ++ip) {
      pair_params(m, ip, p);
      col.collide(m.pair_geom1[ip], m.pair_geom2[ip], p);
    }
  };
  const bool use_pairs = mode == kCollideAll || mode == kCollidePair;
  if (mode == kCollideAll || mode == kCollideDynamic) {
    int npairs = 0;
    const int* pairs = broadphase(m, d, &npairs);
    for (int i = 0; i < npairs && !col.full(); ++i) {
      const int b1 = pairs[i] >> 16, b2 = pairs[i] & 0xFFFF;
      if (use_pairs && ip < m.npair) explicit_upto(((b1 + 1) << 16) + b2 + 1);  // Model's signature convention
      // geoms of each body, all of them or, for a body with a tree, those near the other body
      // (mid phase: the same pairs pass the bounding-sphere test, in the same order)
      const int* l1 = nullptr;
      const int* l2 = nullptr;
      int n1 = m.body_geomnum[b1], n2 = m.body_geomnum[b2];
      if (midphase_has_tree(d, b1)) {
        int* out = midphase_list(d, 0);
        n1 = midphase_query(m, d, b1, &d.work.col_bound[6 * b2], out);
        l1 = out;
      }
      if (midphase_has_tree(d, b2)) {
        int* out = midphase_list(d, 1);
        n2 = midphase_query(m, d, b2, &d.work.col_bound[6 * b1], out);
        l2 = out;
      }
      const int a1 = m.body_geomadr[b1], a2 = m.body_geomadr[b2];
      for (int i1 = 0; i1 < n1; ++i1) {
        const int g1 = l1 ? l1[i1] : a1 + i1;
        for (int i2 = 0; i2 < n2; ++i2) {
          const int g2 = l2 ? l2[i2] : a2 + i2;
          if (!compatible(m.geom_contype[g1], m.geom_conaffinity[g1], m.geom_contype[g2],
                          m.geom_conaffinity[g2]))
            continue;
          if (use_pairs && m.npair && is_explicit_pair(m, g1, g2)) continue;
          if (d.contact_filter && d.contact_filter(m, d, g1, g2)) continue;
          // the margin decides the narrow phase; the other parameters matter only for contacts
          const double margin =
              override_margin ? m.opt.o_margin : std::max(m.geom_margin[g1], m.geom_margin[g2]);
          int c1 = g1, c2 = g2;
          const int n = col.narrow(c1, c2, margin);
          if (!n) continue;
          mix_params(m, g1, g2, p);  // in the pair's order: the solmix weights are not symmetric
          col.add(c1, c2, n, p);
        }
      }
    }
  }
  if (use_pairs) explicit_upto(1LL << 62);  // the rest
  d.maxuse_con = std::max(d.maxuse_con, d.ncon);
}

}  // namespace moreau

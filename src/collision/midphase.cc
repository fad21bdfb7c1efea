// Mid phase: per-body bounding volume hierarchies (see midphase.h).
//
// Layout in Data::work: col_bvh_adr[b] is the first node of body b's tree (-1: none); node i has
// col_bvh_node[3i..3i+2] = (left, right, geom): children, or (-1, -1, geom) for a leaf; its box
// col_bvh_box[7i..7i+6] = centre (3), half sizes (3) in the reference geom's frame and the largest
// geom margin below it. Each tree starts with a header node (reference geom, number of unbounded
// collidable geoms, root node), followed by the unbounded geoms packed three per node, then the
// tree.
#include "collision/midphase.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "math/vec.h"

namespace moreau::col {
namespace {

bool collidable(const Model& m, int g) { return m.geom_contype[g] || m.geom_conaffinity[g]; }

struct Item {
  double c[3];   // centre in the reference frame
  double r;      // bounding-sphere radius
  double margin;
  int geom;
};

// Recursive top-down build: median split along the longest axis of the centres' spread.
int build_node(std::vector<Item>& items, int lo, int hi, std::vector<int>& node, std::vector<double>& box) {
  const int id = static_cast<int>(node.size() / 3);
  node.insert(node.end(), {-1, -1, -1});
  box.resize(box.size() + 7);
  double mn[3] = {1e300, 1e300, 1e300}, mx[3] = {-1e300, -1e300, -1e300}, cmn[3] = {1e300, 1e300, 1e300},
         cmx[3] = {-1e300, -1e300, -1e300}, margin = 0;
  for (int i = lo; i < hi; ++i) {
    for (int k = 0; k < 3; ++k) {
      mn[k] = std::min(mn[k], items[i].c[k] - items[i].r);
      mx[k] = std::max(mx[k], items[i].c[k] + items[i].r);
      cmn[k] = std::min(cmn[k], items[i].c[k]);
      cmx[k] = std::max(cmx[k], items[i].c[k]);
    }
    margin = std::max(margin, items[i].margin);
  }
  double* b = &box[7 * static_cast<size_t>(id)];
  for (int k = 0; k < 3; ++k) {
    b[k] = 0.5 * (mn[k] + mx[k]);
    b[3 + k] = 0.5 * (mx[k] - mn[k]);
  }
  b[6] = margin;
  if (hi - lo == 1) {
    node[3 * id + 2] = items[lo].geom;
    return id;
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (cmx[k] - cmn[k] > cmx[axis] - cmn[axis]) axis = k;
  const int mid = (lo + hi) / 2;
  std::nth_element(items.begin() + lo, items.begin() + mid, items.begin() + hi,
                   [axis](const Item& a, const Item& c) { return a.c[axis] < c.c[axis]; });
  const int left = build_node(items, lo, mid, node, box);
  const int right = build_node(items, mid, hi, node, box);
  node[3 * id] = left;
  node[3 * id + 1] = right;
  return id;
}

// Pose of geom g relative to its body, as kinematics computes it: geom_pos, geom_quat.
void relative_pose(const Model& m, int g, double* pos, double* R) {
  math::copy3(pos, &m.geom_pos[3 * g]);
  math::quat2mat(R, &m.geom_quat[4 * g]);
}

}  // namespace

void midphase_build(const Model& m, Data& d) {
  d.work.col_bvh_adr.assign(m.nbody, -1);
  d.work.col_bvh_node.clear();
  d.work.col_bvh_box.clear();
  int maxgeom = 0;
  std::vector<Item> items;
  // a Model assembled without geom frames in their bodies (hand-built tests) gets no trees
  const bool frames = m.geom_pos.size() >= 3 * static_cast<size_t>(m.ngeom) &&
                      m.geom_quat.size() >= 4 * static_cast<size_t>(m.ngeom);
  for (int b = 0; b < m.nbody && frames; ++b) {
    const int adr = m.body_geomadr[b], num = m.body_geomnum[b];
    maxgeom = std::max(maxgeom, num);
    int ref = -1, ncoll = 0;
    for (int g = adr; g < adr + num; ++g)
      if (collidable(m, g) && m.geom_rbound[g] > 0) {
        ++ncoll;
        if (ref < 0) ref = g;
      }
    if (ncoll < kMidphaseMinGeoms) continue;
    // header node: (reference geom, number of unbounded collidable geoms, their list follows)
    const int head = static_cast<int>(d.work.col_bvh_node.size() / 3);
    d.work.col_bvh_adr[b] = head;
    std::vector<int> unbounded;
    for (int g = adr; g < adr + num; ++g)
      if (collidable(m, g) && !(m.geom_rbound[g] > 0)) unbounded.push_back(g);
    d.work.col_bvh_node.insert(d.work.col_bvh_node.end(), {ref, static_cast<int>(unbounded.size()), 0});
    d.work.col_bvh_box.resize(d.work.col_bvh_box.size() + 7);
    for (size_t i = 0; i < unbounded.size(); i += 3) {  // packed 3 per node slot
      int slot[3] = {-1, -1, -1};
      for (size_t k = 0; k < 3 && i + k < unbounded.size(); ++k) slot[k] = unbounded[i + k];
      d.work.col_bvh_node.insert(d.work.col_bvh_node.end(), slot, slot + 3);
      d.work.col_bvh_box.resize(d.work.col_bvh_box.size() + 7);
    }
    // items: geom centres in the reference geom's frame
    double pref[3], Rref[9];
    relative_pose(m, ref, pref, Rref);
    items.clear();
    for (int g = adr; g < adr + num; ++g) {
      if (!collidable(m, g) || !(m.geom_rbound[g] > 0)) continue;
      double p[3], R[9], v[3];
      relative_pose(m, g, p, R);
      math::sub3(v, p, pref);
      Item it;
      math::mulmatTvec3(it.c, Rref, v);
      // bounds grown a little: the world poses come from kinematics, with their own rounding
      it.r = m.geom_rbound[g] * (1 + 1e-9) + 1e-9 * (1 + math::norm3(it.c));
      it.margin = m.geom_margin[g];
      it.geom = g;
      items.push_back(it);
    }
    d.work.col_bvh_node[3 * head + 2] = static_cast<int>(d.work.col_bvh_node.size() / 3);  // root
    build_node(items, 0, static_cast<int>(items.size()), d.work.col_bvh_node, d.work.col_bvh_box);
  }
  for (int b = 0; b < m.nbody; ++b) maxgeom = std::max(maxgeom, m.body_geomnum[b]);
  // query work space: two candidate lists and a traversal stack
  d.work.col_mid.assign(4 * static_cast<size_t>(maxgeom) + 128, 0);
  d.work.col_bvh_node.shrink_to_fit();  // built by appending: keep no spare capacity
  d.work.col_bvh_box.shrink_to_fit();
}

int midphase_query(const Model& m, Data& d, int b, const double* box, int* out) {
  const int head = d.work.col_bvh_adr[b];
  const int* node = d.work.col_bvh_node.data();
  const double* nbox = d.work.col_bvh_box.data();
  const int ref = node[3 * head], nunb = node[3 * head + 1], root = node[3 * head + 2];
  int n = 0;
  for (int i = 0; i < nunb; ++i) out[n++] = node[3 * (head + 1 + i / 3) + i % 3];
  // the query box in the reference geom's frame (an enclosing box of the rotated box)
  const double* pref = &d.geom_xpos[3 * ref];
  const double* Rref = &d.geom_xmat[9 * ref];
  double cw[3], hw[3], v[3], c[3], h[3];
  for (int k = 0; k < 3; ++k) {
    cw[k] = 0.5 * (box[k] + box[3 + k]);
    hw[k] = 0.5 * (box[3 + k] - box[k]);
  }
  if (!std::isfinite(hw[0]) || !std::isfinite(hw[1]) || !std::isfinite(hw[2])) {  // unbounded: everything
    n = 0;
    for (int g = m.body_geomadr[b]; g < m.body_geomadr[b] + m.body_geomnum[b]; ++g)
      if (collidable(m, g)) out[n++] = g;
    return n;
  }
  math::sub3(v, cw, pref);
  math::mulmatTvec3(c, Rref, v);
  for (int i = 0; i < 3; ++i)
    h[i] = std::fabs(Rref[i]) * hw[0] + std::fabs(Rref[3 + i]) * hw[1] + std::fabs(Rref[6 + i]) * hw[2];
  const bool ovr = m.opt.enableflags & kEnblOverride;
  // depth-first traversal with an explicit stack in the work space
  int* stack = midphase_list(d, 2);  // the last half: up to 2 maxgeom + 64 entries
  int top = 0;
  stack[top++] = root;
  const int first = n;  // unbounded geoms come first, then the tree's
  while (top > 0) {
    const int i = stack[--top];
    const double* nb = nbox + 7 * static_cast<size_t>(i);
    const double grow = ovr ? m.opt.o_margin : nb[6];
    if (std::fabs(nb[0] - c[0]) > nb[3] + grow + h[0] || std::fabs(nb[1] - c[1]) > nb[4] + grow + h[1] ||
        std::fabs(nb[2] - c[2]) > nb[5] + grow + h[2])
      continue;
    if (node[3 * i] < 0) {
      out[n++] = node[3 * i + 2];
    } else {
      stack[top++] = node[3 * i + 1];
      stack[top++] = node[3 * i];
    }
  }
  (void)first;
  std::sort(out, out + n);  // (std::inplace_merge may allocate; sort does not)
  return n;
}

}  // namespace moreau::col

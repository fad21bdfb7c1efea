// <composite>: MuJoCo 2.2.2's macro element, expanded into bodies, joints, geoms, sites, tendons
// and equalities as 2.2.2 generates them, for the types particle, grid, rope, loop, cloth and box
// (the others are refused). Element names follow 2.2.2's (B<i>, J<i>, G<i>, S<i>, ...), so that
// other elements can refer to them.
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "math/vec.h"
#include "mjcf/parse_common.h"
#include "model_geometry/geometry.h"

namespace moreau::mjcf {
namespace {

using namespace moreau::math;

class Composite {
 public:
  explicit Composite(Spec& s) : spec(s) {}

  void parse(const Node& c, Attrs& e, BodySpec& b) {
    std::string type;
    if (!e.str("type", type)) e.error("attribute 'type' is required");
    if (type != "particle" && type != "rope" && type != "loop" && type != "grid" && type != "cloth" && type != "box")
      e.error("composite type '" + type +
              "' is not supported yet (only 'particle', 'rope', 'loop', 'grid', 'cloth' and 'box')");
    int count[3] = {1, 1, 1};
    double spacing = 0, offset[3] = {0, 0, 0};
    if (!e.ints("count", count, 3)) e.error("attribute 'count' is required");
    for (int k = 0; k < 3; ++k)
      if (count[k] < 1 || count[k] > 10000) e.error("attribute 'count' expects integers from 1 to 10000");
    if (static_cast<long long>(count[0]) * count[1] * count[2] > 100000)
      e.error("attribute 'count' asks for more than 100000 elements");
    if (!e.num("spacing", spacing)) e.error("attribute 'spacing' is required");
    if (spacing <= 0) e.error("attribute 'spacing' must be positive");
    e.nums("offset", offset, 3);
    double flatinertia = 0;
    if (type == "cloth") e.num("flatinertia", flatinertia);
    std::string prefix;
    e.str("prefix", prefix);
    if (!prefix.empty()) e.error("attribute 'prefix' of <composite> is not supported yet");
    e.finish();
    // 2.2.2's composite elements start from their own defaults, not from the default classes:
    // joints in group 3; particle geoms with condim 1 and priority 1.
    GeomSpec geom;
    if (type == "particle") {
      geom.condim = 1;
      geom.priority = 1;
    }
    JointSpec joint;
    joint.type = kJointSlide;
    joint.group = 3;
    TendonSpec tendon, shear;
    bool has_shear = false;
    double solreffix[2] = {0.02, 1}, solimpfix[5] = {0.9, 0.95, 0.001, 0.5, 2};
    std::vector<std::pair<int, int>> pins;
    bool has_skin = false;
    for (const auto& ch : c.children) {
      Attrs a(ch);
      if (ch.name == "geom") {
        read_geom(a, geom, spec.compiler);
      } else if (ch.name == "joint") {
        std::string kind;
        if (!a.str("kind", kind)) a.error("attribute 'kind' is required");
        if (kind != "main") a.error("joint kind '" + kind + "' is not supported for particle composites");
        if (type == "box") {
          a.numvar("solreffix", solreffix, 1, 2);
          a.numvar("solimpfix", solimpfix, 1, 5);
        }
        read_joint(a, joint, spec.compiler);
        joint.type = kJointSlide;
      } else if (ch.name == "pin" && type == "grid") {
        int coord[2];
        if (!a.ints("coord", coord, 2)) a.error("attribute 'coord' is required");
        pins.emplace_back(coord[0], coord[1]);
      } else if (ch.name == "tendon" && (type == "grid" || type == "cloth")) {
        std::string kind;
        if (!a.str("kind", kind)) a.error("attribute 'kind' is required");
        if (kind == "main") {
          read_tendon(a, tendon, spec.compiler);
        } else if (kind == "shear" && type == "cloth") {
          read_tendon(a, shear, spec.compiler);
          has_shear = true;
        } else {
          a.error("tendon kind '" + kind + "' is not supported for " + type + " composites");
        }
      } else if (ch.name == "skin") {
        for (const auto& at : ch.attrs) a.find(at.first.c_str());  // visual only
        has_skin = true;
      } else {
        a.error("element <" + ch.name + "> in a " + type + " <composite> is not supported yet");
      }
      a.finish();
      geom.src = ch;
    }
    geom.src = c;
    joint.src = c;
    if (has_skin) {
      // with a skin, 2.2.2 moves the generated geoms and tendons to the hidden group 3
      geom.group = 3;
      tendon.group = 3;
      shear.group = 3;
    }
    if (type == "box") {
      compose_box(c, e, b, count, spacing, geom, joint, solreffix, solimpfix);
      return;
    }
    if (type == "cloth") {
      joint.type = kJointHinge;
      compose_cloth(c, e, b, count, spacing, flatinertia, geom, joint, tendon, has_shear ? &shear : nullptr);
      return;
    }
    if (type == "rope" || type == "loop") {
      compose_rope(c, e, b, count, spacing, geom, joint, type == "loop");
      return;
    }
    if (type == "grid") {
      compose_grid(c, e, b, count, spacing, offset, geom, joint, tendon, pins);
      return;
    }
    for (int i = 0; i < count[0]; ++i)
      for (int j = 0; j < count[1]; ++j)
        for (int k = 0; k < count[2]; ++k) {
          BodySpec body;
          body.src = c;
          const int idx[3] = {i, j, k};
          for (int d = 0; d < 3; ++d) body.pos[d] = offset[d] + spacing * (idx[d] - 0.5 * count[d]);
          for (int d = 0; d < 3; ++d) {
            JointSpec jd = joint;
            jd.axis[0] = jd.axis[1] = jd.axis[2] = 0;
            jd.axis[d] = 1;
            jd.pos[0] = jd.pos[1] = jd.pos[2] = 0;
            body.joints.push_back(jd);
          }
          body.geoms.push_back(geom);
          b.children.push_back(std::move(body));
        }
  }

  // A spatial tendon `name` from site s1 to site s2 (a copy of tmpl) and the tendon equality that
  // holds it at its reference length (default solref/solimp: the caller may change them).
  EqualitySpec& add_site_tendon(const Node& c, const TendonSpec& tmpl, const std::string& name,
                                const std::string& s1, const std::string& s2) {
    TendonSpec t = tmpl;
    t.src = c;
    t.name = name;
    t.spatial = true;
    for (const auto& sn : {s1, s2}) {
      WrapSpec w;
      w.src = c;
      w.type = kWrapSite;
      w.name = sn;
      t.path.push_back(w);
    }
    spec.tendons.push_back(t);
    EqualitySpec eq;
    eq.src = c;
    eq.type = kEqTendon;
    eq.name1 = name;
    eq.data[1] = 1;
    spec.equalities.push_back(eq);
    return spec.equalities.back();
  }

  // rope: a chain along x through the enclosing body, whose name "B<i>" says which element of
  // the chain it is; elements i+1.. follow in +x, elements i-1.. down to 0 in -x, each nested in
  // the previous one with two hinges (y, then z) at the joint halfway to its parent, and a geom
  // along x. Names: B<i>, J0_<i>, J1_<i>, G<i> (as 2.2.2).
  // loop: the same chain bent into a regular polygon (each element turned by 2 pi / n about z),
  // closed by a connect equality between B0 and B<n-1> and an exclude between them.
  void compose_rope(const Node& c, Attrs& e, BodySpec& root, const int count[3], double spacing,
                    const GeomSpec& geom, const JointSpec& joint, bool loop) {
    if (count[1] != 1 || count[2] != 1) e.error("rope composite expects count=\"n 1 1\"");
    const std::string& rn = root.name;
    if (rn.size() < 2 || rn[0] != 'B') e.error("the body containing a rope composite must be named B<index>");
    for (size_t k = 1; k < rn.size(); ++k)
      if (rn[k] < '0' || rn[k] > '9') e.error("the body containing a rope composite must be named B<index>");
    const int idx = std::atoi(rn.c_str() + 1);
    if (idx >= count[0]) e.error("rope root body index " + std::to_string(idx) + " is out of range");
    const double along_x[3] = {1, 0, 0};
    auto element_geom = [&](int i) {
      GeomSpec g = geom;
      g.name = "G" + std::to_string(i);
      g.pos[0] = g.pos[1] = g.pos[2] = 0;
      geometry::zaxis_to_quat(along_x, g.quat);
      return g;
    };
    root.geoms.push_back(element_geom(idx));
    auto element = [&](int i, double dir) {
      BodySpec body;
      body.src = c;
      body.name = "B" + std::to_string(i);
      body.pos[0] = dir * spacing;
      if (loop) {
        const double th = 2 * M_PI / count[0];
        body.pos[0] = dir * 0.5 * spacing * (1 + std::cos(th));
        body.pos[1] = 0.5 * spacing * std::sin(th);
        const double zaxis[3] = {0, 0, 1};
        axisangle2quat(body.quat, zaxis, dir * th);
      }
      for (int a = 0; a < 2; ++a) {
        JointSpec j = joint;
        j.type = kJointHinge;
        j.name = "J" + std::to_string(a) + "_" + std::to_string(i);
        j.pos[0] = -dir * 0.5 * spacing;
        j.pos[1] = j.pos[2] = 0;
        j.axis[0] = 0;
        j.axis[1] = a == 0 ? 1 : 0;
        j.axis[2] = a == 0 ? 0 : 1;
        body.joints.push_back(j);
      }
      body.geoms.push_back(element_geom(i));
      return body;
    };
    auto chain = [&](int from, int to, int step, double dir) {
      if (from == to) return;
      BodySpec* parent = &root;
      for (int i = from; i != to; i += step) {
        parent->children.push_back(element(i, dir));
        parent = &parent->children.back();
      }
    };
    chain(idx + 1, count[0], 1, 1);
    chain(idx - 1, -1, -1, -1);
    if (loop) {
      EqualitySpec eq;
      eq.src = c;
      eq.type = kEqConnect;
      eq.name1 = "B0";
      eq.name2 = "B" + std::to_string(count[0] - 1);
      eq.data[0] = -0.5 * spacing;
      eq.solref[0] = 0.01;
      eq.solimp[0] = eq.solimp[1] = 0.99;
      spec.equalities.push_back(eq);
      spec.excludes.emplace_back(eq.name1, eq.name2);
      spec.exclude_src.push_back(c);
    }
  }

  // grid (2D): bodies B<i>_<j> at offset + spacing (i - nx/2, j - ny/2, 0), each with a geom
  // G<i>_<j>, a site S<i>_<j> and, unless pinned, slide joints J<0..2>_<i>_<j>; spatial tendons
  // T0_<i>_<j> (to i+1) then T1_<i>_<j> (to j+1) between neighbouring sites, each held at its
  // reference length by a tendon equality (2.2.2's names and parameters).
  void compose_grid(const Node& c, Attrs& e, BodySpec& root, const int count[3], double spacing,
                    const double offset[3], const GeomSpec& geom, const JointSpec& joint, const TendonSpec& tendon,
                    const std::vector<std::pair<int, int>>& pins) {
    if (count[2] != 1) e.error("grid composite expects count=\"nx ny 1\"");
    for (const auto& p : pins)
      if (p.first < 0 || p.first >= count[0] || p.second < 0 || p.second >= count[1])
        e.error("pin coord is outside the grid");
    auto nm = [](const char* pre, int i, int j) { return std::string(pre) + std::to_string(i) + "_" + std::to_string(j); };
    for (int i = 0; i < count[0]; ++i)
      for (int j = 0; j < count[1]; ++j) {
        BodySpec body;
        body.src = c;
        body.name = nm("B", i, j);
        body.pos[0] = offset[0] + spacing * (i - 0.5 * count[0]);
        body.pos[1] = offset[1] + spacing * (j - 0.5 * count[1]);
        body.pos[2] = offset[2];
        bool pinned = false;
        for (const auto& p : pins) pinned = pinned || (p.first == i && p.second == j);
        if (!pinned)
          for (int d = 0; d < 3; ++d) {
            JointSpec jd = joint;
            jd.name = "J" + std::to_string(d) + "_" + std::to_string(i) + "_" + std::to_string(j);
            jd.axis[0] = jd.axis[1] = jd.axis[2] = 0;
            jd.axis[d] = 1;
            jd.pos[0] = jd.pos[1] = jd.pos[2] = 0;
            body.joints.push_back(jd);
          }
        GeomSpec g = geom;
        g.name = nm("G", i, j);
        body.geoms.push_back(g);
        SiteSpec st;
        st.src = c;
        st.name = nm("S", i, j);
        st.group = 3;
        body.sites.push_back(st);
        root.children.push_back(std::move(body));
      }
    auto add_tendon = [&](const std::string& name, const std::string& s1, const std::string& s2) {
      EqualitySpec& eq = add_site_tendon(c, tendon, name, s1, s2);
      eq.solref[0] = 0.01;
      eq.solimp[0] = eq.solimp[1] = 0.99;
    };
    for (int i = 0; i + 1 < count[0]; ++i)
      for (int j = 0; j < count[1]; ++j) add_tendon(nm("T0_", i, j), nm("S", i, j), nm("S", i + 1, j));
    for (int i = 0; i < count[0]; ++i)
      for (int j = 0; j + 1 < count[1]; ++j) add_tendon(nm("T1_", i, j), nm("S", i, j), nm("S", i, j + 1));
  }

  // cloth (2D): a spanning tree through the enclosing body B<i0>_<j0>: from each element of row
  // j0 the column runs in +y and -y, and row j0 runs in +x and -x. Each element B<i>_<j> has
  // hinges J0 (the in-plane axis across its edge) and J1 (z) at its parent's position, a geom
  // G<i>_<j> lying along x or y in a checkerboard, and a site S<i>_<j>. The x-edges the tree
  // leaves out become spatial tendons T<i>_<j>; kind="shear" adds diagonal tendons TS<i>_<j>;
  // each tendon is held at its reference length by a tendon equality. flatinertia > 0 gives each element the inertia of a
  // spacing x spacing x flatinertia*spacing plate (2.2.2's names and parameters).
  void compose_cloth(const Node& c, Attrs& e, BodySpec& root, const int count[3], double spacing,
                     double flatinertia, const GeomSpec& geom, const JointSpec& joint, const TendonSpec& tendon,
                     const TendonSpec* shear) {
    if (count[2] != 1) e.error("cloth composite expects count=\"nx ny 1\"");
    const std::string& rn = root.name;
    const auto us = rn.find('_');
    bool ok = rn.size() >= 4 && rn[0] == 'B' && us != std::string::npos && us > 1 && us + 1 < rn.size();
    for (size_t k = 1; ok && k < rn.size(); ++k) ok = k == us || (rn[k] >= '0' && rn[k] <= '9');
    if (!ok) e.error("the body containing a cloth composite must be named B<i>_<j>");
    const int i0 = std::atoi(rn.c_str() + 1), j0 = std::atoi(rn.c_str() + us + 1);
    if (i0 >= count[0] || j0 >= count[1]) e.error("cloth root body index is out of range");
    auto nm = [](const char* pre, int i, int j) { return std::string(pre) + std::to_string(i) + "_" + std::to_string(j); };
    auto fill = [&](BodySpec& body, int i, int j) {
      GeomSpec g = geom;
      g.name = nm("G", i, j);
      g.pos[0] = g.pos[1] = g.pos[2] = 0;
      // even elements: z along x (and x along y); odd: z along -y (2.2.2's frames)
      const double h = std::sqrt(0.5);
      const double qeven[4] = {0.5, 0.5, 0.5, 0.5}, qodd[4] = {h, h, 0, 0};
      copy4(g.quat, (i + j) % 2 == 0 ? qeven : qodd);
      body.geoms.push_back(g);
      SiteSpec st;
      st.src = c;
      st.name = nm("S", i, j);
      st.group = 3;
      body.sites.push_back(st);
      if (flatinertia > 0) {
        // mass of the element: the geom's, from its size and density (or mass)
        const double m = geometry::geom_mass(g.type, g.size, g.mass_set, g.mass, g.density).mass;
        const double t = flatinertia * spacing;
        body.inertial.present = true;
        body.inertial.src = c;
        body.inertial.mass = m;
        body.inertial.inertia[0] = body.inertial.inertia[1] = m * (spacing * spacing + t * t) / 12;
        body.inertial.inertia[2] = m * 2 * spacing * spacing / 12;
      }
    };
    auto element = [&](int i, int j, int di, int dj) {
      BodySpec body;
      body.src = c;
      body.name = nm("B", i, j);
      body.pos[0] = di * spacing;
      body.pos[1] = dj * spacing;
      for (int a = 0; a < 2; ++a) {
        JointSpec jd = joint;
        jd.name = "J" + std::to_string(a) + "_" + std::to_string(i) + "_" + std::to_string(j);
        jd.pos[0] = -di * spacing;
        jd.pos[1] = -dj * spacing;
        jd.pos[2] = 0;
        jd.axis[0] = a == 0 && dj != 0 ? 1 : 0;
        jd.axis[1] = a == 0 && di != 0 ? 1 : 0;
        jd.axis[2] = a == 1 ? 1 : 0;
        body.joints.push_back(jd);
      }
      fill(body, i, j);
      return body;
    };
    // column through (i, j0): +y then -y chains, nested
    auto columns = [&](BodySpec& at, int i) {
      for (int dj : {1, -1}) {
        BodySpec* parent = &at;
        for (int j = j0 + dj; j >= 0 && j < count[1]; j += dj) {
          parent->children.push_back(element(i, j, 0, dj));
          parent = &parent->children.back();
        }
      }
    };
    fill(root, i0, j0);
    columns(root, i0);
    for (int di : {1, -1}) {
      BodySpec* parent = &root;
      for (int i = i0 + di; i >= 0 && i < count[0]; i += di) {
        parent->children.push_back(element(i, j0, di, 0));
        BodySpec* here = &parent->children.back();
        columns(*here, i);
        parent = here;
      }
    }
    for (int j = 0; j < count[1]; ++j) {
      if (j == j0) continue;
      for (int i = 0; i + 1 < count[0]; ++i) add_site_tendon(c, tendon, nm("T", i, j), nm("S", i, j), nm("S", i + 1, j));
    }
    if (shear)
      for (int i = 0; i + 1 < count[0]; ++i)
        for (int j = 0; j + 1 < count[1]; ++j)
          add_site_tendon(c, *shear, nm("TS", i, j), nm("S", i, j), nm("S", i + 1, j + 1));
  }

  // box: the surface elements B<i>_<j>_<k> of an n x n x n grid around the enclosing body (which
  // gets a sphere Gcenter of twice the geom radius), each turned so that its z axis points
  // outward, with one slide joint J<i>_<j>_<k> along z and a geom G<i>_<j>_<k> set inward by its
  // half-length plus radius. Joint equalities fix each joint (solreffix/solimpfix) and couple
  // it with its +x, +y, +z surface neighbours; a fixed tendon T sums all joints and a tendon
  // equality keeps it constant (2.2.2's names and parameters).
  void compose_box(const Node& c, Attrs& e, BodySpec& root, const int count[3], double spacing,
                   const GeomSpec& geom, const JointSpec& joint, const double solreffix[2], const double solimpfix[5]) {
    for (int k = 0; k < 3; ++k)
      if (count[k] < 2) e.error("box composite expects count of at least 2 in each direction");
    GeomSpec center;
    center.src = c;
    center.name = "Gcenter";
    center.type = kGeomSphere;
    center.size[0] = 2 * geom.size[0];
    center.group = geom.group;
    // the center takes the elements' colour and material (2.2.2, by experiment)
    for (int k = 0; k < 4; ++k) center.rgba[k] = geom.rgba[k];
    center.material = geom.material;
    // box elements and the center only receive contacts (contype 0, conaffinity 1), so they do
    // not collide with each other (2.2.2)
    center.contype = 0;
    center.conaffinity = 1;
    root.geoms.push_back(center);
    auto surface = [&](int i, int j, int k) {
      return i == 0 || j == 0 || k == 0 || i == count[0] - 1 || j == count[1] - 1 || k == count[2] - 1;
    };
    auto nm = [](const char* pre, int i, int j, int k) {
      return std::string(pre) + std::to_string(i) + "_" + std::to_string(j) + "_" + std::to_string(k);
    };
    std::vector<std::array<int, 3>> elems;
    for (int i = 0; i < count[0]; ++i)
      for (int j = 0; j < count[1]; ++j)
        for (int k = 0; k < count[2]; ++k) {
          if (!surface(i, j, k)) continue;
          elems.push_back({i, j, k});
          BodySpec body;
          body.src = c;
          body.name = nm("B", i, j, k);
          const int idx[3] = {i, j, k};
          for (int d = 0; d < 3; ++d) body.pos[d] = spacing * (idx[d] - 0.5 * (count[d] - 1));
          geometry::zaxis_to_quat(body.pos, body.quat);
          JointSpec jd = joint;
          jd.name = nm("J", i, j, k);
          jd.type = kJointSlide;
          jd.pos[0] = jd.pos[1] = jd.pos[2] = 0;
          jd.axis[0] = jd.axis[1] = 0;
          jd.axis[2] = 1;
          body.joints.push_back(jd);
          GeomSpec g = geom;
          g.name = nm("G", i, j, k);
          g.contype = 0;
          g.conaffinity = 1;
          g.pos[0] = g.pos[1] = 0;
          g.pos[2] = -(geom.size[1] + geom.size[0]);
          body.geoms.push_back(g);
          root.children.push_back(std::move(body));
        }
    auto joint_eq = [&](const std::string& j1, const std::string& j2, const double* ref, const double* imp) {
      EqualitySpec eq;
      eq.src = c;
      eq.type = kEqJoint;
      eq.name1 = j1;
      eq.name2 = j2;
      eq.data[1] = 1;
      for (int q = 0; q < 2; ++q) eq.solref[q] = ref[q];
      for (int q = 0; q < 5; ++q) eq.solimp[q] = imp[q];
      spec.equalities.push_back(eq);
    };
    const double couple_ref[2] = {0.02, 1}, couple_imp[5] = {0.9, 0.9, 0.001, 0.5, 2};
    for (const auto& el : elems) {
      const std::string jn = nm("J", el[0], el[1], el[2]);
      joint_eq(jn, "", solreffix, solimpfix);
      for (int d = 0; d < 3; ++d) {
        std::array<int, 3> nb = el;
        nb[d] += 1;
        if (nb[d] >= count[d] || !surface(nb[0], nb[1], nb[2])) continue;
        joint_eq(jn, nm("J", nb[0], nb[1], nb[2]), couple_ref, couple_imp);
      }
    }
    TendonSpec t;
    t.src = c;
    t.name = "T";
    t.group = geom.group == 3 ? 3 : 0;  // hidden with the geoms when a skin is given
    for (const auto& el : elems) {
      WrapSpec w;
      w.src = c;
      w.type = kWrapJoint;
      w.name = nm("J", el[0], el[1], el[2]);
      w.prm = 1;
      t.path.push_back(w);
    }
    spec.tendons.push_back(t);
    EqualitySpec eq;
    eq.src = c;
    eq.type = kEqTendon;
    eq.name1 = "T";
    eq.data[1] = 1;
    eq.solref[0] = 0.01;
    eq.solimp[0] = eq.solimp[1] = 0.99;
    spec.equalities.push_back(eq);
  }

 private:
  Spec& spec;
};

}  // namespace

void parse_composite(const Node& c, Attrs& e, BodySpec& b, Spec& spec) { Composite(spec).parse(c, e, b); }

}  // namespace moreau::mjcf

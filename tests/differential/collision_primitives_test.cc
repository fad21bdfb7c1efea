// Differential test of the narrow phase: for each primitive type pair, two geoms at random poses in
// MuJoCo 2.2.2 (mj_forward) and in Moreau (collision() on MuJoCo's geom poses): same contacts per
// geom pair, dist/pos/frame within 1e-6, same mixed parameters.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "differential/collision_support.h"
#include "differential/known_differences.h"

namespace moreau {
namespace {

const char* kTypeName[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};

// How the random states are drawn: half sizes in [smin, smax], positions in [-pos, pos]^3, and the
// special poses with parallel axes turned about `axis` (1 x, 2 y, 3 z). The defaults are those of
// every exact test below (their asserted counts depend on them).
struct Sampling {
  double smin = 0.08, smax = 0.4, pos = 0.45;
  int axis = 3;
};

std::string size_str(int type, std::mt19937& rng, const Sampling& sm) {
  std::uniform_real_distribution<double> u(sm.smin, sm.smax);
  char buf[128];
  if (type == mjGEOM_PLANE) return "0 0 1";
  // Draws in named order: the order in which function arguments are evaluated is unspecified (gcc
  // goes right to left, clang left to right), so u(rng) as arguments gave each compiler other sizes.
  // This order is the one gcc used, so the counts asserted below are unchanged.
  if (type == mjGEOM_SPHERE) {
    snprintf(buf, sizeof buf, "%.4f", u(rng));
  } else if (type == mjGEOM_CAPSULE || type == mjGEOM_CYLINDER) {
    const double s1 = u(rng), s0 = u(rng);
    snprintf(buf, sizeof buf, "%.4f %.4f", s0, s1);
  } else {
    const double s2 = u(rng), s1 = u(rng), s0 = u(rng);
    snprintf(buf, sizeof buf, "%.4f %.4f %.4f", s0, s1, s2);
  }
  return buf;
}

struct PairStats {
  int trials = 0, contacts = 0;
  int states_in_contact = 0, states_matching = 0;  // states with contacts on either side; fully equal
  int states_ordered = 0;  // fully equal in 2.2.2's order too (one geom pair per model)
  coltest::Report rep;
};

// The contacts of the model's single geom pair, in order: same count, dist/pos/frame within tol.
bool same_in_order(const mjData* md, const Data& d, double tol) {
  if (md->ncon != d.ncon) return false;
  for (int i = 0; i < d.ncon; ++i) {
    const mjContact& c = md->contact[i];
    const Contact& o = d.contact[i];
    double e = std::fabs(c.dist - o.dist);
    for (int k = 0; k < 3; ++k) e = std::max({e, std::fabs(c.pos[k] - o.pos[k]), std::fabs(c.frame[k] - o.frame[k])});
    if (e > tol) return false;
  }
  return true;
}


// A random convex point cloud (the mesh's hull is what collides), 8 to 20 points in a box of
// half sizes 0.08..0.4, as an MJCF vertex list.
std::string mesh_vertices(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1), us(0.08, 0.4);
  std::uniform_int_distribution<int> un(8, 20);
  const double s[3] = {us(rng), us(rng), us(rng)};
  std::string v;
  char buf[96];
  for (int i = 0, n = un(rng); i < n; ++i) {
    // (named draws, in gcc's order of argument evaluation, as in size_str)
    const double z = s[2] * u(rng), y = s[1] * u(rng), x = s[0] * u(rng);
    snprintf(buf, sizeof buf, "%.4f %.4f %.4f ", x, y, z);
    v += buf;
  }
  return v;
}

// A geom of type t with a random size (mesh "m", height field "h" refer to the model's assets).
std::string geom_xml(int t, double margin, std::mt19937& rng, const Sampling& sm) {
  std::string g = "<geom type=\"" + std::string(kTypeName[t]) + "\" margin=\"" + std::to_string(margin) + "\"";
  if (t == mjGEOM_MESH) g += " mesh=\"m\"";
  else if (t == mjGEOM_HFIELD) g += " hfield=\"h\"";
  else g += " size=\"" + size_str(t, rng, sm) + "\"";
  return g;
}

// Runs `trials` random states for geoms of types t1, t2; returns the accumulated report. Planes
// and height fields are static (world body, tilted); the other geoms float freely. Meshes and
// height fields get random data per model (4 models).
PairStats run_pair(int t1, int t2, double margin, int trials, unsigned seed, const Sampling& sm = {}) {
  std::mt19937 rng(seed);
  PairStats st;
  const int kModels = 4;
  for (int im = 0; im < kModels; ++im) {
    // (random draws in the same order as before meshes and height fields were added, so that the
    // primitive pairs see the same states)
    std::uniform_real_distribution<double> ang(-180, 180);
    const bool fixed1 = t1 == mjGEOM_PLANE || t1 == mjGEOM_HFIELD;
    std::string ga;
    if (fixed1) {
      const double ax = ang(rng) / 6, ay = ang(rng) / 6;
      ga = geom_xml(t1, margin, rng, sm) + " euler=\"" + std::to_string(ax) + " " + std::to_string(ay) + " 0\"/>";
    } else {
      ga = "<body name=\"a\"><freejoint/>" + geom_xml(t1, margin, rng, sm) + "/></body>";
    }
    const std::string gb = "<body name=\"b\"><freejoint/>" + geom_xml(t2, margin, rng, sm) + "/></body>";
    std::string assets;
    if (t1 == mjGEOM_MESH || t2 == mjGEOM_MESH) assets += "<mesh name=\"m\" vertex=\"" + mesh_vertices(rng) + "\"/>";
    // height field: 2.2.2 reads it from a file (binary: int32 nrow, ncol, float32 data), here in the VFS
    std::vector<char> hfile;
    if (t1 == mjGEOM_HFIELD) {
      std::uniform_int_distribution<int> un(3, 9);
      std::uniform_real_distribution<double> u01(0, 1), usz(0.3, 0.8);
      const int32_t nrow = un(rng), ncol = un(rng);
      hfile.resize(8 + 4 * static_cast<size_t>(nrow) * ncol);
      std::memcpy(hfile.data(), &nrow, 4);
      std::memcpy(hfile.data() + 4, &ncol, 4);
      for (int i = 0; i < nrow * ncol; ++i) {
        const float v = static_cast<float>(u01(rng));
        std::memcpy(hfile.data() + 8 + 4 * i, &v, 4);
      }
      char h[200];
      // (named draws, in gcc's order of argument evaluation, as in size_str)
      const double z3 = usz(rng), z2 = usz(rng), z1 = usz(rng), z0 = usz(rng);
      snprintf(h, sizeof h, "<hfield name=\"h\" file=\"h.bin\" size=\"%.3f %.3f %.3f %.3f\"/>", z0, z1, 0.4 * z2,
               0.2 * z3);
      assets += h;
    }
    const std::string xml = "<mujoco><option gravity=\"0 0 0\"/><asset>" + assets + "</asset><worldbody>" + ga + gb +
                            "</worldbody></mujoco>";
    char err[1000] = "";
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    mj_makeEmptyFileVFS(&vfs, "pair.xml", static_cast<int>(xml.size()));
    std::memcpy(vfs.filedata[vfs.nfile - 1], xml.data(), xml.size());
    if (!hfile.empty()) {
      mj_makeEmptyFileVFS(&vfs, "h.bin", static_cast<int>(hfile.size()));
      std::memcpy(vfs.filedata[vfs.nfile - 1], hfile.data(), hfile.size());
    }
    mjModel* mm = mj_loadXML("pair.xml", &vfs, err, sizeof err);
    mj_deleteVFS(&vfs);
    if (!mm) { ADD_FAILURE() << err << "\n" << xml; return st; }
    mjData* md = mj_makeData(mm);
    Model m = coltest::collision_model_from_mj(mm);
    Data d = coltest::collision_data(m, mm);
    std::uniform_real_distribution<double> upos(-sm.pos, sm.pos), un(-1, 1);
    std::uniform_int_distribution<int> special(0, 9);
    for (int trial = 0; trial < trials / kModels; ++trial) {
      for (int j = 0; j < mm->njnt; ++j) {
        double* q = md->qpos + mm->jnt_qposadr[j];
        for (int k = 0; k < 3; ++k) q[k] = upos(rng);
        double quat[4] = {un(rng), un(rng), un(rng), un(rng)};
        const int sp = special(rng);
        if (sp == 0) { quat[0] = 1; quat[1] = quat[2] = quat[3] = 0; }           // axis aligned
        if (sp == 1) {  // parallel axes (z by default)
          const double v = un(rng);
          quat[0] = 1;
          quat[1] = quat[2] = quat[3] = 0;
          quat[sm.axis] = v;
        }
        if (sp == 2) { for (int k = 0; k < 3; ++k) q[k] = 0.01 * upos(rng); }     // near-coincident
        mju_normalize4(quat);
        for (int k = 0; k < 4; ++k) q[3 + k] = quat[k];
      }
      mj_forward(mm, md);
      coltest::copy_poses(mm, md, d);
      collision(m, d);
      bool skip[8][8] = {};
      coltest::Report one;
      coltest::compare_contacts(mm, md, m, d, coltest::Tolerance{}, skip, one);
      if (one.pairs_compared > 0) {
        ++st.states_in_contact;
        if (one.count_mismatch == 0 && one.value_mismatch == 0) ++st.states_matching;
        if (same_in_order(md, d, 1e-6)) ++st.states_ordered;
      }
      coltest::compare_contacts(mm, md, m, d, coltest::Tolerance{}, skip, st.rep);
      st.contacts += md->ncon;
      ++st.trials;
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
  return st;
}

// Every pair is exact: same contact counts per geom pair, dist/pos/frame within 1e-6, same mixed
// parameters. in_order[i]: where given, the number of states (margin 0, 0.1) that also match in
// 2.2.2's order, all the states in contact. `trials` states per margin.
void check_pair(int t1, int t2, const int* in_order = nullptr, int trials = 400) {
  for (double margin : {0.0, 0.1}) {
    const PairStats st = run_pair(t1, t2, margin, trials, 1234 + 17 * t1 + t2 + (margin > 0 ? 1000 : 0));
    const auto& r = st.rep;
    printf("%-9s-%-9s margin %.1f: %d states, %d mujoco contacts, %d geom pairs, count mismatch %d, "
           "value mismatch %d, param mismatch %d | max err dist %.2e pos %.2e normal %.2e frame %.2e\n",
           kTypeName[t1], kTypeName[t2], margin, st.trials, st.contacts, r.pairs_compared, r.count_mismatch,
           r.value_mismatch, r.param_mismatch, r.max_dist_err, r.max_pos_err, r.max_normal_err, r.max_frame_err);
    printf("    states in contact %d, fully matching %d, also in 2.2.2's order %d\n", st.states_in_contact,
           st.states_matching, st.states_ordered);
    for (size_t i = 0; i < r.messages.size() && i < 5; ++i) printf("    %s\n", r.messages[i].c_str());
    if (in_order) {
      EXPECT_EQ(st.states_in_contact, in_order[margin > 0 ? 1 : 0]);  // the sample is the one measured
      EXPECT_EQ(st.states_ordered, st.states_in_contact);
    }
    EXPECT_EQ(r.count_mismatch, 0);
    EXPECT_EQ(r.value_mismatch, 0);
    EXPECT_EQ(r.param_mismatch, 0);
  }
}

TEST(CollisionPrimitivesDiff, PlaneSphere) { check_pair(mjGEOM_PLANE, mjGEOM_SPHERE); }
TEST(CollisionPrimitivesDiff, PlaneCapsule) { check_pair(mjGEOM_PLANE, mjGEOM_CAPSULE); }
TEST(CollisionPrimitivesDiff, PlaneEllipsoid) { check_pair(mjGEOM_PLANE, mjGEOM_ELLIPSOID); }
TEST(CollisionPrimitivesDiff, PlaneCylinder) { check_pair(mjGEOM_PLANE, mjGEOM_CYLINDER); }
TEST(CollisionPrimitivesDiff, PlaneBox) { check_pair(mjGEOM_PLANE, mjGEOM_BOX); }
TEST(CollisionPrimitivesDiff, SphereSphere) { check_pair(mjGEOM_SPHERE, mjGEOM_SPHERE); }
TEST(CollisionPrimitivesDiff, SphereCapsule) { check_pair(mjGEOM_SPHERE, mjGEOM_CAPSULE); }
TEST(CollisionPrimitivesDiff, SphereBox) { check_pair(mjGEOM_SPHERE, mjGEOM_BOX); }
// Includes exactly parallel capsules (two contacts from the segment ends, as 2.2.2).
TEST(CollisionPrimitivesDiff, CapsuleCapsule) { check_pair(mjGEOM_CAPSULE, mjGEOM_CAPSULE); }
// Capsule-box reproduces 2.2.2's contacts exactly and in order (collide_capsule_box.cc lists the
// measured rules; 4000 random states per margin, including capsules parallel to a box axis).
TEST(CollisionPrimitivesDiff, CapsuleBox) {
  const int in_order[2] = {2440, 3566};  // all the states in contact, in 2.2.2's order too
  check_pair(mjGEOM_CAPSULE, mjGEOM_BOX, in_order, 4000);
}
// Box-box reproduces 2.2.2's contacts exactly and in order (collide_box.cc lists the rules R1..R9
// and the probes that established them): every random state in contact, 20000 per margin (0.6 s).
TEST(CollisionPrimitivesDiff, BoxBox) {
  const int in_order[2] = {13638, 15809};  // all the states in contact, in 2.2.2's order too
  check_pair(mjGEOM_BOX, mjGEOM_BOX, in_order, 20000);
}
// The wider sweep behind the README's box-box figures (26 runs of 20000 states, 380375 in contact;
// 9.5 s in Release): other seeds, margins 0..0.5 and 1, the parallel-axis poses turned about x and
// y, half sizes 0.001..5. Every state must match 2.2.2 exactly and in order.
TEST(CollisionPrimitivesDiff, BoxBoxWide) {
  struct Run {
    unsigned seed;
    double margin;
    Sampling sm;
  };
  std::vector<Run> runs;
  for (unsigned seed = 1; seed <= 9; ++seed) runs.push_back({seed, 0.1, {}});
  for (double margin : {0.0, 0.01, 0.02, 0.05, 0.2, 0.3, 0.5}) runs.push_back({11, margin, {}});
  for (int axis : {1, 2})
    for (double margin : {0.0, 0.1, 0.3}) runs.push_back({12, margin, {0.08, 0.4, 0.45, axis}});
  runs.push_back({13, 0.0, {0.01, 1.0, 0.8, 3}});
  runs.push_back({13, 0.1, {0.01, 1.0, 0.8, 3}});
  runs.push_back({14, 0.01, {0.001, 0.05, 0.05, 3}});
  runs.push_back({15, 1.0, {0.5, 5.0, 3.0, 3}});
  int total = 0;
  for (const Run& r : runs) {
    const PairStats st = run_pair(mjGEOM_BOX, mjGEOM_BOX, r.margin, 20000, r.seed, r.sm);
    printf("seed %u margin %.2f sizes %g..%g axis %d: %d states in contact, %d in 2.2.2's order\n", r.seed,
           r.margin, r.sm.smin, r.sm.smax, r.sm.axis, st.states_in_contact, st.states_ordered);
    EXPECT_EQ(st.states_ordered, st.states_in_contact) << "seed " << r.seed << " margin " << r.margin;
    EXPECT_EQ(st.rep.count_mismatch + st.rep.value_mismatch + st.rep.param_mismatch, 0);
    total += st.states_in_contact;
  }
  printf("%d states in contact in all\n", total);
}

}  // namespace
}  // namespace moreau

namespace moreau {
namespace {
// Pairs both engines solve with MPR (libccd, the same library): with support functions that give
// 2.2.2's values to the bit (src/collision/convex.h), MPR takes the same steps, so counts, dist and
// pos agree exactly (max error 0 in every run) and the 1e-6 tolerance of the other pairs applies.
// Where a pair involves a sphere, capsule, box or mesh only, the normal agrees too.
// Ellipsoids and cylinders: 2.2.2 replaces MPR's normal by the surface normal at the contact
// (fix_normal, convex.cc); reproduced for spheres, capsules and cylinders (radial where the point
// lies beside the wall: |z| < 0.95 h and |r - rho| < 4 (h - |z|)) and for ellipsoids (2.2.2's two
// early-stopping iterations: Newton on the nearest point's multiplier outside, the ray-exit
// gradient iteration from MPR's direction, capped at 30 steps, inside), so these pairs are exact
// too, height fields against cylinders and ellipsoids included.
TEST(CollisionPrimitivesDiff, ConvexPairsExact) {
  const int pairs[][2] = {{mjGEOM_SPHERE, mjGEOM_MESH},     {mjGEOM_CAPSULE, mjGEOM_MESH},
                          {mjGEOM_BOX, mjGEOM_MESH},        {mjGEOM_MESH, mjGEOM_MESH},
                          {mjGEOM_SPHERE, mjGEOM_CYLINDER}, {mjGEOM_CAPSULE, mjGEOM_CYLINDER},
                          {mjGEOM_CYLINDER, mjGEOM_CYLINDER}, {mjGEOM_CYLINDER, mjGEOM_BOX},
                          {mjGEOM_CYLINDER, mjGEOM_MESH},   {mjGEOM_SPHERE, mjGEOM_ELLIPSOID},
                          {mjGEOM_CAPSULE, mjGEOM_ELLIPSOID}, {mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID},
                          {mjGEOM_ELLIPSOID, mjGEOM_CYLINDER}, {mjGEOM_ELLIPSOID, mjGEOM_BOX},
                          {mjGEOM_ELLIPSOID, mjGEOM_MESH}};
  for (const auto& p : pairs) check_pair(p[0], p[1]);
}
TEST(CollisionPrimitivesDiff, HFieldExact) {
  const int types[] = {mjGEOM_SPHERE, mjGEOM_CAPSULE, mjGEOM_ELLIPSOID, mjGEOM_CYLINDER, mjGEOM_BOX, mjGEOM_MESH};
  for (int t : types) check_pair(mjGEOM_HFIELD, t);
}
// Mesh-plane: up to three contacts at hull vertices, the deepest and two of its graph neighbours
// (the rule measured on 2.2.2 is in collide_mesh.cc).
TEST(CollisionPrimitivesDiff, PlaneMesh) { check_pair(mjGEOM_PLANE, mjGEOM_MESH); }
}  // namespace
}  // namespace moreau

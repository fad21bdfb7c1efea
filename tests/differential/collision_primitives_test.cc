// Differential test of the narrow phase: for each primitive type pair, two geoms at random poses in
// MuJoCo 2.2.2 (mj_forward) and in Moreau (collision() on MuJoCo's geom poses): same contacts per
// geom pair, dist/pos/frame within 1e-6, same mixed parameters.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "differential/collision_support.h"

namespace moreau {
namespace {

const char* kTypeName[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};

std::string size_str(int type, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.08, 0.4);
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
  coltest::Report rep;
};

// Runs `trials` random states for geoms of types t1, t2; returns the accumulated report.
PairStats run_pair(int t1, int t2, double margin, int trials, unsigned seed) {
  std::mt19937 rng(seed);
  PairStats st;
  const int kModels = 4;
  for (int im = 0; im < kModels; ++im) {
    char xml[2048];
    std::uniform_real_distribution<double> ang(-180, 180);
    // (named draws, in gcc's order, as in size_str)
    const double ey = t1 == mjGEOM_PLANE ? ang(rng) / 6 : 0, ex = t1 == mjGEOM_PLANE ? ang(rng) / 6 : 0;
    const std::string ga = t1 == mjGEOM_PLANE
        ? "<geom type=\"plane\" size=\"0 0 1\" euler=\"" + std::to_string(ex) + " " + std::to_string(ey) + " 0\" margin=\"" + std::to_string(margin) + "\"/>"
        : "<body name=\"a\"><freejoint/><geom type=\"" + std::string(kTypeName[t1]) + "\" size=\"" + size_str(t1, rng) + "\" margin=\"" + std::to_string(margin) + "\"/></body>";
    const std::string gb = "<body name=\"b\"><freejoint/><geom type=\"" + std::string(kTypeName[t2]) + "\" size=\"" + size_str(t2, rng) + "\" margin=\"" + std::to_string(margin) + "\"/></body>";
    snprintf(xml, sizeof xml, "<mujoco><option gravity=\"0 0 0\"/><worldbody>%s%s</worldbody></mujoco>", ga.c_str(), gb.c_str());
    char err[1000] = "";
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    mj_makeEmptyFileVFS(&vfs, "pair.xml", static_cast<int>(strlen(xml)));
    std::memcpy(vfs.filedata[0], xml, strlen(xml));
    mjModel* mm = mj_loadXML("pair.xml", &vfs, err, sizeof err);
    mj_deleteVFS(&vfs);
    if (!mm) { ADD_FAILURE() << err << "\n" << xml; return st; }
    mjData* md = mj_makeData(mm);
    Model m = coltest::collision_model_from_mj(mm);
    Data d = coltest::collision_data(m, mm);
    std::uniform_real_distribution<double> upos(-0.45, 0.45), un(-1, 1);
    std::uniform_int_distribution<int> special(0, 9);
    for (int trial = 0; trial < trials / kModels; ++trial) {
      for (int j = 0; j < mm->njnt; ++j) {
        double* q = md->qpos + mm->jnt_qposadr[j];
        for (int k = 0; k < 3; ++k) q[k] = upos(rng);
        double quat[4] = {un(rng), un(rng), un(rng), un(rng)};
        const int sp = special(rng);
        if (sp == 0) { quat[0] = 1; quat[1] = quat[2] = quat[3] = 0; }           // axis aligned
        if (sp == 1) { quat[0] = 1; quat[1] = quat[2] = 0; quat[3] = un(rng); }  // parallel z axes
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

// kExact: counts, dist/pos/frame within 1e-6. kCounts: same number of contacts per pair (values
// are printed). kReport: known differences, printed only.
enum Check { kExact, kCounts, kReport };

// min_matching[i]: for kReport pairs, the number of states (margin 0, 0.1) known to match 2.2.2
// fully (count and values); fewer is a regression.
void check_pair(int t1, int t2, Check check, const int* min_matching = nullptr) {
  for (double margin : {0.0, 0.1}) {
    const PairStats st = run_pair(t1, t2, margin, 400, 1234 + 17 * t1 + t2 + (margin > 0 ? 1000 : 0));
    const auto& r = st.rep;
    printf("%-9s-%-9s margin %.1f: %d states, %d mujoco contacts, %d geom pairs, count mismatch %d, "
           "value mismatch %d, param mismatch %d | max err dist %.2e pos %.2e normal %.2e frame %.2e\n",
           kTypeName[t1], kTypeName[t2], margin, st.trials, st.contacts, r.pairs_compared, r.count_mismatch,
           r.value_mismatch, r.param_mismatch, r.max_dist_err, r.max_pos_err, r.max_normal_err, r.max_frame_err);
    printf("    states in contact %d, fully matching %d\n", st.states_in_contact, st.states_matching);
    for (size_t i = 0; i < r.messages.size() && i < 5; ++i) printf("    %s\n", r.messages[i].c_str());
    if (min_matching) EXPECT_GE(st.states_matching, min_matching[margin > 0 ? 1 : 0]);
    if (check != kReport) EXPECT_EQ(r.count_mismatch, 0);
    if (check == kExact) EXPECT_EQ(r.value_mismatch, 0);
    EXPECT_EQ(r.param_mismatch, 0);
  }
}

TEST(CollisionPrimitivesDiff, PlaneSphere) { check_pair(mjGEOM_PLANE, mjGEOM_SPHERE, kExact); }
TEST(CollisionPrimitivesDiff, PlaneCapsule) { check_pair(mjGEOM_PLANE, mjGEOM_CAPSULE, kExact); }
TEST(CollisionPrimitivesDiff, PlaneEllipsoid) { check_pair(mjGEOM_PLANE, mjGEOM_ELLIPSOID, kExact); }
TEST(CollisionPrimitivesDiff, PlaneCylinder) { check_pair(mjGEOM_PLANE, mjGEOM_CYLINDER, kExact); }
TEST(CollisionPrimitivesDiff, PlaneBox) { check_pair(mjGEOM_PLANE, mjGEOM_BOX, kExact); }
TEST(CollisionPrimitivesDiff, SphereSphere) { check_pair(mjGEOM_SPHERE, mjGEOM_SPHERE, kExact); }
TEST(CollisionPrimitivesDiff, SphereCapsule) { check_pair(mjGEOM_SPHERE, mjGEOM_CAPSULE, kExact); }
TEST(CollisionPrimitivesDiff, SphereBox) { check_pair(mjGEOM_SPHERE, mjGEOM_BOX, kExact); }
// Includes exactly parallel capsules (two contacts from the segment ends, as 2.2.2).
TEST(CollisionPrimitivesDiff, CapsuleCapsule) { check_pair(mjGEOM_CAPSULE, mjGEOM_CAPSULE, kExact); }
// KNOWN DIFFERENCE (partly): capsule-box reproduces 2.2.2's first point (closest point, or the
// segment end inside the box) and its face-prism second point; 2.2.2's second point for edge/corner
// normals (often a duplicate of the first, or the nearest segment end) is not reproduced yet.
// Box-box: 2.2.2 adds extra points to the clipped face polygon (e.g. the incident face's (-,-)
// vertex even when it lies outside the reference face) and several points for edge-edge axes; not
// reproduced. Fully matching states are asserted not to decrease.
TEST(CollisionPrimitivesDiff, CapsuleBox) {
  const int min_matching[2] = {190, 247};  // of 269 and 311 states in contact
  check_pair(mjGEOM_CAPSULE, mjGEOM_BOX, kReport, min_matching);
}
TEST(CollisionPrimitivesDiff, BoxBox) {
  const int min_matching[2] = {110, 117};  // of 279 and 321 states in contact
  check_pair(mjGEOM_BOX, mjGEOM_BOX, kReport, min_matching);
}

}  // namespace
}  // namespace moreau

namespace moreau {
namespace {
// Pairs both engines solve with MPR (2.2.2's general convex path).
TEST(CollisionPrimitivesDiff, ConvexPairs) {
  const int pairs[][2] = {{mjGEOM_SPHERE, mjGEOM_ELLIPSOID},   {mjGEOM_SPHERE, mjGEOM_CYLINDER},
                          {mjGEOM_CAPSULE, mjGEOM_ELLIPSOID},  {mjGEOM_CAPSULE, mjGEOM_CYLINDER},
                          {mjGEOM_ELLIPSOID, mjGEOM_ELLIPSOID}, {mjGEOM_ELLIPSOID, mjGEOM_CYLINDER},
                          {mjGEOM_ELLIPSOID, mjGEOM_BOX},      {mjGEOM_CYLINDER, mjGEOM_CYLINDER},
                          {mjGEOM_CYLINDER, mjGEOM_BOX}};
  // Both sides iterate (MPR, tolerance 1e-6): counts must agree; dist and pos agree to ~1e-13 in
  // most states and to ~1e-2 at worst where the iterations end on different portals; normals agree
  // for sphere/capsule/cylinder pairs and differ for ellipsoid pairs (printed).
  for (const auto& p : pairs) check_pair(p[0], p[1], kCounts);
}
}  // namespace
}  // namespace moreau

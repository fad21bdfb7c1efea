// Differential test of the narrow phase: for each primitive type pair, two geoms at random poses in
// MuJoCo 2.2.2 (mj_forward) and in Moreau (collision() on MuJoCo's geom poses): same contacts per
// geom pair, dist/pos/frame within 1e-6, same mixed parameters.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "differential/collision_support.h"
#include "differential/known_differences.h"

namespace moreau {
namespace {

const char* kTypeName[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};

std::string size_str(int type, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.08, 0.4);
  char buf[128];
  if (type == mjGEOM_PLANE) return "0 0 1";
  if (type == mjGEOM_SPHERE) snprintf(buf, sizeof buf, "%.4f", u(rng));
  else if (type == mjGEOM_CAPSULE || type == mjGEOM_CYLINDER) snprintf(buf, sizeof buf, "%.4f %.4f", u(rng), u(rng));
  else snprintf(buf, sizeof buf, "%.4f %.4f %.4f", u(rng), u(rng), u(rng));
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

// Runs `trials` random states for geoms of types t1, t2; returns the accumulated report.
PairStats run_pair(int t1, int t2, double margin, int trials, unsigned seed) {
  std::mt19937 rng(seed);
  PairStats st;
  const int kModels = 4;
  for (int im = 0; im < kModels; ++im) {
    char xml[2048];
    std::uniform_real_distribution<double> ang(-180, 180);
    const std::string ga = t1 == mjGEOM_PLANE
        ? "<geom type=\"plane\" size=\"0 0 1\" euler=\"" + std::to_string(ang(rng) / 6) + " " + std::to_string(ang(rng) / 6) + " 0\" margin=\"" + std::to_string(margin) + "\"/>"
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

// kExact: counts, dist/pos/frame within 1e-6. kCounts: same number of contacts per pair (values
// are printed). kReport: known differences, printed only.
enum Check { kExact, kCounts, kReport };

// min_matching[i]: for kReport pairs, the number of states (margin 0, 0.1) known to match 2.2.2
// fully (count, values and order); fewer is a regression. `trials` states per margin.
void check_pair(int t1, int t2, Check check, const int* min_matching = nullptr, int trials = 400) {
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
    if (min_matching) EXPECT_GE(st.states_ordered, min_matching[margin > 0 ? 1 : 0]);
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
// Box-box and capsule-box reproduce 2.2.2's contact sets in order (collide_box.cc lists the rules
// and the probes that established them), except for measured, characterized states
// (known_differences.h, shown as the SKIPPED ...KnownDifference tests). The number of states that
// match fully and in order is asserted not to decrease (4000 random states per margin).
TEST(CollisionPrimitivesDiff, CapsuleBox) {
  const int min_matching[2] = {2175, 2722};  // of 2440 and 3566 states in contact
  check_pair(mjGEOM_CAPSULE, mjGEOM_BOX, kReport, min_matching, 4000);
}
TEST(CollisionPrimitivesDiff, BoxBox) {
  const int min_matching[2] = {2575, 3218};  // of 2577 and 3245 states in contact
  check_pair(mjGEOM_BOX, mjGEOM_BOX, kReport, min_matching, 4000);
}
TEST(CollisionPrimitivesDiff, BoxBoxKnownDifference) {
  GTEST_SKIP() << "known difference: " << testing::known_difference("CollisionPrimitives", "box-box");
}
TEST(CollisionPrimitivesDiff, CapsuleBoxKnownDifference) {
  GTEST_SKIP() << "known difference: " << testing::known_difference("CollisionPrimitives", "capsule-box");
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

// Differential test of multi-point convex collision (flag multiccd): pairs of convex geoms that both
// engines collide with MPR, at random poses and at near-flat resting poses (faces nearly parallel,
// where multiccd adds contacts), in MuJoCo 2.2.2 (mj_forward) and in Moreau (collision() on
// MuJoCo's geom poses): the same contacts in the same order, dist/pos/frame within 1e-6.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "differential/collision_support.h"

namespace moreau {
namespace {

// Geom kinds: a box mesh (8 vertices, so its hull faces are known), a random point cloud mesh,
// and primitives. Each kind knows its half height along its local z (for resting poses).
enum Kind { kBoxMesh, kHullMesh, kBox, kCylinder, kCapsule };
const char* kKindName[] = {"boxmesh", "hullmesh", "box", "cylinder", "capsule"};

struct GeomSpec {
  std::string asset, geom;
  double half_z = 0, half_xy = 0;  // extent along local z, smaller extent across
};

GeomSpec make_geom(Kind k, int index, double margin, std::mt19937& rng) {
  std::uniform_real_distribution<double> us(0.08, 0.4), u(-1, 1);
  const double s0 = us(rng), s1 = us(rng), s2 = 0.4 * us(rng);
  char buf[512];
  GeomSpec g;
  const std::string name = "m" + std::to_string(index);
  const std::string common = " margin=\"" + std::to_string(margin) + "\"";
  switch (k) {
    case kBoxMesh:
      snprintf(buf, sizeof buf,
               "<mesh name=\"%s\" vertex=\"-1 -1 -1 1 -1 -1 1 1 -1 1 1 1 1 -1 1 -1 1 -1 -1 1 1 -1 -1 1\" "
               "scale=\"%.4f %.4f %.4f\"/>",
               name.c_str(), s0, s1, s2);
      g.asset = buf;
      g.geom = "<geom type=\"mesh\" mesh=\"" + name + "\"" + common + "/>";
      g.half_z = s2;
      g.half_xy = std::min(s0, s1);
      break;
    case kHullMesh: {
      std::string v;
      for (int i = 0; i < 14; ++i) {
        snprintf(buf, sizeof buf, "%.4f %.4f %.4f ", s0 * u(rng), s1 * u(rng), s2 * u(rng));
        v += buf;
      }
      g.asset = "<mesh name=\"" + name + "\" vertex=\"" + v + "\"/>";
      g.geom = "<geom type=\"mesh\" mesh=\"" + name + "\"" + common + "/>";
      g.half_z = s2;
      g.half_xy = std::min(s0, s1);
      break;
    }
    case kBox:
      snprintf(buf, sizeof buf, "<geom type=\"box\" size=\"%.4f %.4f %.4f\"%s/>", s0, s1, s2, common.c_str());
      g.geom = buf;
      g.half_z = s2;
      g.half_xy = std::min(s0, s1);
      break;
    case kCylinder:
      snprintf(buf, sizeof buf, "<geom type=\"cylinder\" size=\"%.4f %.4f\"%s/>", s0, s2, common.c_str());
      g.geom = buf;
      g.half_z = s2;
      g.half_xy = s0;
      break;
    case kCapsule:  // lying along x (its flat-ish contact is a line)
      snprintf(buf, sizeof buf, "<geom type=\"capsule\" size=\"%.4f %.4f\" euler=\"0 90 0\"%s/>", s2, s0,
               common.c_str());
      g.geom = buf;
      g.half_z = s2;
      g.half_xy = s2;
      break;
  }
  return g;
}

struct Stats {
  int states = 0, in_contact = 0, multi = 0, matching = 0, mj_contacts = 0;
  double max_err = 0;
  std::string first_problem;
};

// Random quaternion, or (resting) a small tilt about a random axis after a random turn about z.
void pose_quat(double* q, bool resting, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  if (!resting) {
    double r[4] = {u(rng), u(rng), u(rng), u(rng)};
    mju_normalize4(r);
    mju_copy4(q, r);
    return;
  }
  double axis[3] = {u(rng), u(rng), u(rng)}, z[3] = {0, 0, 1}, qt[4], qz[4];
  mju_normalize3(axis);
  mju_axisAngle2Quat(qt, axis, 0.02 * u(rng));
  mju_axisAngle2Quat(qz, z, M_PI * u(rng));
  mju_mulQuat(q, qt, qz);
}

// `trials` states on each of 4 models of kinds k1, k2 (geom 1 of the lower MuJoCo type first).
Stats run_pair(Kind k1, Kind k2, double margin, int trials, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1), u01(0, 1);
  Stats st;
  for (int im = 0; im < 4; ++im) {
    const GeomSpec a = make_geom(k1, 0, margin, rng), b = make_geom(k2, 1, margin, rng);
    const std::string xml = "<mujoco><option gravity=\"0 0 0\"><flag multiccd=\"" + std::string(getenv("NOMCCD") ? "disable" : "enable") + "\"/></option><asset>" +
                            a.asset + b.asset + "</asset><worldbody><body><freejoint/>" + a.geom +
                            "</body><body><freejoint/>" + b.geom + "</body></worldbody></mujoco>";
    char err[1000] = "";
    mjVFS vfs;
    mj_defaultVFS(&vfs);
    mj_makeEmptyFileVFS(&vfs, "pair.xml", static_cast<int>(xml.size()));
    std::memcpy(vfs.filedata[vfs.nfile - 1], xml.data(), xml.size());
    mjModel* mm = mj_loadXML("pair.xml", &vfs, err, sizeof err);
    mj_deleteVFS(&vfs);
    if (!mm) {
      ADD_FAILURE() << err << "\n" << xml;
      return st;
    }
    mjData* md = mj_makeData(mm);
    Model m = coltest::collision_model_from_mj(mm);
    Data d = coltest::collision_data(m, mm);
    for (int t = 0; t < trials / 4; ++t) {
      // half the states resting (b on a, faces nearly parallel, slightly interpenetrating), half random
      const bool resting = t % 2 == 0;
      double* q = md->qpos;
      mju_zero3(q);
      pose_quat(q + 3, resting, rng);
      if (resting) {
        const double r = std::min(a.half_xy, b.half_xy);
        q[7] = 0.5 * r * u(rng);
        q[8] = 0.5 * r * u(rng);
        q[9] = a.half_z + b.half_z - 0.2 * std::min(a.half_z, b.half_z) * u01(rng) + margin * u(rng);
      } else {
        for (int k = 0; k < 3; ++k) q[7 + k] = 0.45 * u(rng);
      }
      pose_quat(q + 10, resting, rng);
      mj_forward(mm, md);
      coltest::copy_poses(mm, md, d);
      collision(m, d);
      ++st.states;
      st.mj_contacts += md->ncon;
      if (md->ncon == 0 && d.ncon == 0) continue;
      ++st.in_contact;
      if (md->ncon > 1) ++st.multi;
      // same count, and in order the same dist, pos and frame (all 9 entries)
      bool same = md->ncon == d.ncon;
      for (int i = 0; same && i < d.ncon; ++i) {
        const mjContact& c = md->contact[i];
        const Contact& o = d.contact[i];
        double e = std::fabs(c.dist - o.dist);
        for (int k = 0; k < 3; ++k) e = std::max(e, std::fabs(c.pos[k] - o.pos[k]));
        for (int k = 0; k < 9; ++k) e = std::max(e, std::fabs(c.frame[k] - o.frame[k]));
        st.max_err = std::max(st.max_err, e);
        same = e <= 1e-6;
      }
      if (same) {
        ++st.matching;
      } else if (st.first_problem.empty()) {
        char buf[256];
        snprintf(buf, sizeof buf, "model %d state %d (%s): 2.2.2 %d contacts, Moreau %d", im, t,
                 resting ? "resting" : "random", md->ncon, d.ncon);
        st.first_problem = buf;
      }
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
  }
  return st;
}

void check(Kind k1, Kind k2, int trials = 400) {
  for (double margin : {0.0, 0.02}) {
    const Stats st = run_pair(k1, k2, margin, trials, 99 + 7 * k1 + k2 + (margin > 0 ? 1000 : 0));
    printf("%-8s-%-8s margin %.2f: %d states, %d in contact (%d with several contacts in 2.2.2), %d MuJoCo "
           "contacts, fully matching %d, max err %.2e %s\n",
           kKindName[k1], kKindName[k2], margin, st.states, st.in_contact, st.multi, st.mj_contacts, st.matching,
           st.max_err, st.first_problem.c_str());
    EXPECT_GT(st.multi, 0);  // the states exercise multiccd
    EXPECT_EQ(st.matching, st.in_contact) << st.first_problem;
  }
}

TEST(Multiccd, BoxMeshBoxMesh) { check(kBoxMesh, kBoxMesh); }
TEST(Multiccd, HullMeshHullMesh) { check(kHullMesh, kHullMesh); }
TEST(Multiccd, BoxBoxMesh) { check(kBox, kBoxMesh); }
TEST(Multiccd, CylinderBox) { check(kCylinder, kBox); }
TEST(Multiccd, CylinderCylinder) { check(kCylinder, kCylinder); }
TEST(Multiccd, CylinderBoxMesh) { check(kCylinder, kBoxMesh); }
TEST(Multiccd, CapsuleBoxMesh) { check(kCapsule, kBoxMesh); }

}  // namespace
}  // namespace moreau

// The mid phase (src/collision/midphase.h) only skips geom pairs that the narrow phase's
// bounding-sphere test would skip: collision() gives the same contacts, bit for bit and in the
// same order, with the per-body trees as without them (trees removed from Data).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "collision/midphase.h"
#include "model_list.h"
#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

// Contacts of both Data, compared field by field (geoms, dist, pos, frame exactly).
void expect_same_contacts(const Data& a, const Data& b, const std::string& at) {
  ASSERT_EQ(a.ncon, b.ncon) << at;
  for (int i = 0; i < a.ncon; ++i) {
    const Contact& x = a.contact[i];
    const Contact& y = b.contact[i];
    EXPECT_EQ(x.geom1, y.geom1) << at << " contact " << i;
    EXPECT_EQ(x.geom2, y.geom2) << at << " contact " << i;
    EXPECT_EQ(x.dist, y.dist) << at << " contact " << i;
    EXPECT_EQ(0, std::memcmp(x.pos, y.pos, sizeof x.pos)) << at << " contact " << i;
    EXPECT_EQ(0, std::memcmp(x.frame, y.frame, sizeof x.frame)) << at << " contact " << i;
  }
}

// Random states: free joints placed in a box over the scene, other joints random in their range;
// returns the total number of contacts seen and how many states had bodies with trees in contact.
int compare_with_and_without(const Model& m, int nstate, unsigned seed, double spread, double height) {
  Data with = make_data(m), without = make_data(m);
  int trees = 0;
  for (int b = 0; b < m.nbody; ++b) trees += col::midphase_has_tree(with, b);
  EXPECT_GT(trees, 0) << "the model must have a body with a tree";
  without.work.col_bvh_adr.assign(m.nbody, -1);  // no trees: the plain double loop over geom pairs
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  int total = 0;
  for (int s = 0; s < nstate; ++s) {
    for (int j = 0; j < m.njnt; ++j) {
      double* q = &with.qpos[m.jnt_qposadr[j]];
      if (m.jnt_type[j] == kJointFree) {
        q[0] = spread * u(rng);
        q[1] = spread * u(rng);
        q[2] = height * (1 + u(rng));
        double quat[4] = {u(rng), u(rng), u(rng), u(rng)};
        const double n = std::sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        for (int k = 0; k < 4; ++k) q[3 + k] = quat[k] / n;
      } else if (m.jnt_type[j] == kJointHinge || m.jnt_type[j] == kJointSlide) {
        q[0] = 0.5 * u(rng);
      }
    }
    without.qpos = with.qpos;
    forward(m, with);
    forward(m, without);
    expect_same_contacts(with, without, "state " + std::to_string(s));
    total += with.ncon;
  }
  return total;
}

// MuJoCo's mid-phase test model: a humanoid over a body holding 1000 boxes.
TEST(CollisionMidphase, SameContactsOnMidphaseModel) {
  MOREAU_REQUIRE_SHARED();
  const Model m = load_model(test_models::shared_model("mujoco/test/engine/testdata/collision_driver/midphase.xml"));
  const int ncon = compare_with_and_without(m, 40, 1, 2.5, 0.3);
  EXPECT_GT(ncon, 100);  // the states do exercise contacts between the humanoid and the boxes
}

// Bodies with many geoms of every convex type (mesh included) on both sides of a pair, a plane and
// a height field in the world body, margins, and an explicit pair.
TEST(CollisionMidphase, SameContactsMixedTypes) {
  std::string xml =
      "<mujoco><asset><mesh name=\"m\" vertex=\"0 0 0  .1 0 0  0 .1 0  0 0 .1  .05 .05 .08\"/>"
      "<hfield name=\"h\" nrow=\"4\" ncol=\"5\" size=\"1 1 .1 .05\" elevation=\"0 1 0 1 0  1 0 1 0 1  0 1 0 1 0  1 0 1 0 1\"/>"
      "</asset><worldbody><geom type=\"plane\" size=\"0 0 1\"/><geom type=\"hfield\" hfield=\"h\" pos=\"0 0 -.02\"/>";
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1), s(0.02, 0.08);
  const char* types[] = {"sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};
  auto geoms = [&](int n, double extent) {
    std::string g;
    for (int i = 0; i < n; ++i) {
      const char* t = types[i % 6];
      char buf[400];
      if (std::string(t) == "mesh")
        snprintf(buf, sizeof buf, "<geom type=\"mesh\" mesh=\"m\" pos=\"%.3f %.3f %.3f\" euler=\"%.0f %.0f %.0f\" margin=\"%.3f\"/>",
                 extent * u(rng), extent * u(rng), extent * u(rng), 90 * u(rng), 90 * u(rng), 90 * u(rng), i % 4 ? 0.0 : 0.01);
      else
        snprintf(buf, sizeof buf, "<geom type=\"%s\" size=\"%.3f %.3f %.3f\" pos=\"%.3f %.3f %.3f\" euler=\"%.0f %.0f %.0f\" margin=\"%.3f\"/>",
                 t, s(rng), s(rng), s(rng), extent * u(rng), extent * u(rng), extent * u(rng), 90 * u(rng), 90 * u(rng),
                 90 * u(rng), i % 5 ? 0.0 : 0.02);
      g += buf;
    }
    return g;
  };
  xml += "<body name=\"static\" pos=\"0 0 .1\">" + geoms(60, 0.8) + "</body>";
  for (int b = 0; b < 3; ++b) xml += "<body><freejoint/>" + geoms(12, 0.2) + "</body>";
  xml += "<body><freejoint/><geom type=\"sphere\" size=\".05\"/></body>";
  xml += "</worldbody><contact><pair geom1=\"static_g\" geom2=\"free_g\"/></contact></mujoco>";
  // name two geoms for the explicit pair
  xml.replace(xml.find("<geom type=\"", xml.find("name=\"static\"")), 5, "<geom name=\"static_g\"");
  const size_t last = xml.rfind("<geom type=\"sphere\" size=\".05\"");
  xml.replace(last, 5, "<geom name=\"free_g\"");
  const Model m = load_model_from_string(xml);
  const int ncon = compare_with_and_without(m, 60, 3, 0.6, 0.25);
  EXPECT_GT(ncon, 100);
}

}  // namespace
}  // namespace moreau

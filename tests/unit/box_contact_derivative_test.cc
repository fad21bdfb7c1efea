// The closed-form qpos derivatives of box-box contacts (contact_geometry.cc, box_box_pair) against
// centred differences of the pair's own narrow-phase routine (narrow_phase_contact_jacobian: steps
// 1e-6 and 1e-6 / 4 that agree within 1e-5, truncation ~1e-13, round-off ~1e-10), on random poses
// of two free boxes: every contact whose feature the closed form recognises must report the
// closed form and match the differences within 1e-6 (relative to max(1, the largest entry of the
// quantity: pos, dist, frame)), and every feature case must occur.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "derivative/contact_geometry.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

void random_quat(std::mt19937& rng, double* q) {
  std::normal_distribution<double> n01(0, 1);
  double s = 0;
  for (int k = 0; k < 4; ++k) q[k] = n01(rng), s += q[k] * q[k];
  for (int k = 0; k < 4; ++k) q[k] /= std::sqrt(s);
}

// Largest error of the closed form G against the differences F, relative per quantity.
double jacobian_error(const double* G, const double* F) {
  double worst = 0;
  for (int q = 0; q < 3; ++q) {
    const int r0 = q == 0 ? 0 : q == 1 ? 3 : 4, r1 = q == 0 ? 3 : q == 1 ? 4 : 13;
    double scale = 1, err = 0;
    for (int r = r0; r < r1; ++r)
      for (int j = 0; j < 12; ++j) {
        scale = std::max(scale, std::abs(F[12 * r + j]));
        err = std::max(err, std::abs(G[12 * r + j] - F[12 * r + j]));
      }
    worst = std::max(worst, err / scale);
  }
  return worst;
}

// xml with every MARGIN replaced by margin.
std::string with_margin(const char* xml, const char* margin) {
  std::string s = xml;
  for (size_t at; (at = s.find("MARGIN")) != std::string::npos;) s.replace(at, 6, margin);
  return s;
}

// The closed-form contacts of a pair's random poses, per feature (feature 0: none, the contacts left
// to the narrow-phase differences).
template <int kFeatures>
struct FeatureTally {
  int compared[kFeatures] = {0}, skipped = 0, none = 0;
  double worst[kFeatures] = {0};

  // Contact i of feature f: one without a closed form must report the narrow-phase differences, one
  // with it the closed form, matching the differences within 1e-6 (where they exist: the routine
  // may change branch within 1e-6).
  void add(const Model& m, Data& d, int i, int f, int trial) {
    const Contact& con = d.contact[i];
    if (f == 0) {
      ++none;
      EXPECT_EQ(internal::contact_deriv_method(m, d, con), internal::ContactDerivMethod::kNarrowPhase);
      return;
    }
    EXPECT_EQ(internal::contact_deriv_method(m, d, con), internal::ContactDerivMethod::kAnalytic);
    internal::ContactJacobian G, N;
    EXPECT_EQ(internal::contact_jacobian(m, d, i, &G), internal::ContactDerivMethod::kAnalytic);
    if (!internal::narrow_phase_contact_jacobian(m, d, i, &N)) {
      ++skipped;
      return;
    }
    const double e = jacobian_error(G.G, N.G);
    ++compared[f];
    worst[f] = std::max(worst[f], e);
    EXPECT_LE(e, 1e-6) << "trial " << trial << " contact " << i << " feature " << f;
  }

  // Prints each feature's count and worst error; every feature must occur at least 3 times.
  void report(const char* pair, const char* margin, const char* const (&names)[kFeatures]) const {
    for (int k = 1; k < kFeatures; ++k) {
      std::printf("%s (margin %s) %s: %d contacts, worst %.2e\n", pair, margin, names[k], compared[k], worst[k]);
      EXPECT_GE(compared[k], 3) << names[k];
    }
  }
};

// Two boxes without and with a margin (0.05: separated edge contacts take R8's other path, whose
// clamped pairs stay with the differences).
const char* kTwoBoxes = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body><freejoint/><geom type="box" size=".2 .15 .1" margin="MARGIN"/></body>
    <body><freejoint/><geom type="box" size=".12 .1 .06" margin="MARGIN"/></body>
  </worldbody>
</mujoco>)";

void box_box_closed_form(const char* margin) {
  Model m = load_model_from_string(with_margin(kTwoBoxes, margin));
  Data d = make_data(m);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  FeatureTally<7> tally;
  for (int trial = 0; trial < 400; ++trial) {
    std::fill(d.qpos.begin(), d.qpos.begin() + 3, 0.0);
    random_quat(rng, &d.qpos[3]);
    for (int k = 0; k < 3; ++k) d.qpos[7 + k] = u(rng);
    random_quat(rng, &d.qpos[10]);
    forward(m, d);
    for (int i = 0; i < d.ncon; ++i)
      tally.add(m, d, i, static_cast<int>(internal::box_box_feature(m, d, d.contact[i])), trial);
  }
  static_assert(static_cast<int>(internal::BoxBoxFeature::kNone) == 0);
  const char* const names[7] = {"none", "face crossing", "face corner", "face vertex",
                                "edge crossing", "edge corner", "edge vertex"};
  tally.report("box-box", margin, names);
  std::printf("box-box (margin %s): %d contacts left to the narrow-phase differences, %d not comparable\n", margin,
              tally.none, tally.skipped);
}

TEST(BoxContactDerivative, BoxBoxClosedFormMatchesNarrowPhase) { box_box_closed_form("0"); }
TEST(BoxContactDerivative, BoxBoxWithMarginClosedFormMatchesNarrowPhase) { box_box_closed_form("0.05"); }

// Capsule-box (a capsule's sphere at a segment end, at the segment's crossing of a box plane, at
// its point closest to the box, at a segment end inside the box, or slid across the box from an
// end or a closest point), without and with a margin, on
// random poses of a capsule around a box.
const char* kCapsuleBox = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body><freejoint/><geom type="capsule" size=".05 .2" margin="MARGIN"/></body>
    <body><freejoint/><geom type="box" size=".2 .15 .1" margin="MARGIN"/></body>
  </worldbody>
</mujoco>)";

void capsule_box_closed_form(const char* margin) {
  Model m = load_model_from_string(with_margin(kCapsuleBox, margin));
  Data d = make_data(m);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.35, 0.35);
  FeatureTally<6> tally;
  int inside = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    for (int k = 0; k < 3; ++k) d.qpos[k] = u(rng);
    random_quat(rng, &d.qpos[3]);
    std::fill(d.qpos.begin() + 7, d.qpos.begin() + 10, 0.0);
    random_quat(rng, &d.qpos[10]);
    forward(m, d);
    for (int i = 0; i < d.ncon; ++i) {
      const Contact& con = d.contact[i];
      ASSERT_EQ(m.geom_type[con.geom1], kGeomCapsule);
      const int f = static_cast<int>(internal::capsule_box_feature(m, d, con));
      if (f == 0) inside += con.dist == -m.geom_size[3 * con.geom1];  // a centre inside the box (dist = -r)
      tally.add(m, d, i, f, trial);
    }
  }
  static_assert(static_cast<int>(internal::CapsuleBoxFeature::kNone) == 0);
  const char* const names[6] = {"none", "segment end", "plane crossing", "closest point", "segment end inside",
                                "slide"};
  tally.report("capsule-box", margin, names);
  std::printf("capsule-box (margin %s): %d contacts left to the narrow-phase differences (%d with the centre inside "
              "the box), %d not comparable\n", margin, tally.none, inside, tally.skipped);
}

TEST(BoxContactDerivative, CapsuleBoxClosedFormMatchesNarrowPhase) { capsule_box_closed_form("0"); }
TEST(BoxContactDerivative, CapsuleBoxWithMarginClosedFormMatchesNarrowPhase) { capsule_box_closed_form("0.05"); }

// humanoid100 at the derivative benchmark's state (keyframe 0, 200 steps: the boxes of fallen
// humanoids on each other): every box-box contact (28: face crossings, face vertices, edge
// crossings) is recognised, reports the closed form and matches the narrow-phase differences.
TEST(BoxContactDerivative, Humanoid100BoxContactsUseClosedForm) {
  Model m = load_model("/usr/share/mujoco/model/humanoid100/humanoid100.xml");
  Data d = make_data(m);
  if (m.nkey > 0) reset_data_keyframe(m, d, 0);
  for (int i = 0; i < 200; ++i) step(m, d);
  forward(m, d);
  int boxes = 0;
  double worst = 0;
  for (int i = 0; i < d.ncon; ++i) {
    const Contact& con = d.contact[i];
    if (m.geom_type[con.geom1] != kGeomBox || m.geom_type[con.geom2] != kGeomBox) continue;
    ++boxes;
    EXPECT_NE(internal::box_box_feature(m, d, con), internal::BoxBoxFeature::kNone) << i;
    internal::ContactJacobian G, N;
    EXPECT_EQ(internal::contact_jacobian(m, d, i, &G), internal::ContactDerivMethod::kAnalytic) << i;
    ASSERT_TRUE(internal::narrow_phase_contact_jacobian(m, d, i, &N)) << i;
    worst = std::max(worst, jacobian_error(G.G, N.G));
  }
  std::printf("humanoid100: %d box-box contacts, worst %.2e against the narrow-phase differences\n", boxes, worst);
  EXPECT_EQ(boxes, 28);
  EXPECT_LE(worst, 1e-6);
}

}  // namespace
}  // namespace moreau

// Differential test of tendon wrapping against MuJoCo 2.2.2 on random configurations: a spatial
// tendon site - geom (sphere or cylinder, radius 1, random pose) - site, with random end points,
// and a random side site (outside or inside the obstacle) or none. Compares ten_length, the path
// (ten_wrapnum, wrap_obj, wrap_xpos) and, with the sites on free bodies, the moment arms ten_J.
// The sites sit on free bodies at random poses so that ten_J is not trivially zero.
// Bounds (values are O(1), so absolute = relative): 1e-9 on lengths, path points and ten_J; except
// when a side site inside the obstacle makes the path touch it at one point: that point solves a
// 1D minimization that MuJoCo 2.2.2 solves iteratively to about 1e-6, so there points and ten_J are
// compared to 1e-5 and our length must not exceed MuJoCo's (it agrees to ~1e-13: stationary).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "differential/mujoco_bridge.h"
#include "moreau/actuation.h"
#include "moreau/moreau.h"

namespace moreau::testing {
namespace {

MjModelPtr load_string(const std::string& xml) {
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  mj_makeEmptyFileVFS(&vfs, "wrap.xml", static_cast<int>(xml.size()));
  const int i = mj_findFileVFS(&vfs, "wrap.xml");
  std::copy(xml.begin(), xml.end(), static_cast<char*>(vfs.filedata[i]));
  char err[1000] = "";
  mjModel* m = mj_loadXML("wrap.xml", &vfs, err, sizeof(err));
  mj_deleteVFS(&vfs);
  return MjModelPtr(m);
}

TEST(TendonWrapRandom, MatchesMuJoCo) {
  std::mt19937_64 rng(2025);
  std::uniform_real_distribution<double> U(-3, 3), A(-M_PI, M_PI);
  int wrapped = 0, cases = 0;
  double worst_len = 0, worst_point = 0, worst_J = 0;
  for (int k = 0; k < 3000; ++k) {
    const bool cylinder = k % 2;
    const int side_mode = k % 5;  // 0: none; 1,2: outside-ish; 3,4: random (possibly inside)
    char side_site[200] = "", side_attr[40] = "";
    if (side_mode) {
      const double sc = side_mode >= 3 ? 0.5 : 1.0;
      std::snprintf(side_site, sizeof side_site, R"(<site name="side" pos="%.17g %.17g %.17g"/>)", sc * U(rng),
                    sc * U(rng), sc * U(rng));
      std::snprintf(side_attr, sizeof side_attr, R"(sidesite="side")");
    }
    char xml[3000];
    std::snprintf(xml, sizeof xml, R"(<mujoco><worldbody>
      <body pos="%.17g %.17g %.17g" euler="%.17g %.17g %.17g"><freejoint/><geom size=".01" contype="0" conaffinity="0"/>
        <geom name="g" type="%s" size="1 1" contype="0" conaffinity="0"/>%s</body>
      <body pos="%.17g %.17g %.17g"><freejoint/><geom size=".01" contype="0" conaffinity="0"/><site name="a"/></body>
      <body pos="%.17g %.17g %.17g"><freejoint/><geom size=".01" contype="0" conaffinity="0"/><site name="b"/></body>
      </worldbody><tendon><spatial><site site="a"/><geom geom="g" %s/><site site="b"/></spatial></tendon>
      <option><flag gravity="disable"/></option></mujoco>)",
                  0.2 * U(rng), 0.2 * U(rng), 0.2 * U(rng), A(rng), A(rng), A(rng), cylinder ? "cylinder" : "sphere",
                  side_site, U(rng), U(rng), U(rng), U(rng), U(rng), U(rng), side_attr);
    MjModelPtr M = load_string(xml);
    ASSERT_TRUE(M) << xml;
    MjDataPtr D(mj_makeData(M.get()));
    mj_forward(M.get(), D.get());
    const Model m = model_from_mujoco(M.get());
    Data d = make_data(m);
    std::copy_n(D->qpos, M->nq, d.qpos.begin());
    kinematics(m, d);
    com_pos(m, d);
    tendon(m, d);
    ++cases;
    ASSERT_EQ(d.ten_wrapnum[0], D->ten_wrapnum[0]) << "case " << k << "\n" << xml;
    if (D->ten_wrapnum[0] == 4) ++wrapped;
    worst_len = std::max(worst_len, std::fabs(d.ten_length[0] - D->ten_length[0]));
    if (!(D->ten_wrapnum[0] == 4 && D->wrap_xpos[3] == D->wrap_xpos[6])) {
      for (int w = 0; w < 3 * D->ten_wrapnum[0]; ++w)
        worst_point = std::max(worst_point, std::fabs(d.wrap_xpos[w] - D->wrap_xpos[w]));
      for (int i = 0; i < M->nv; ++i) worst_J = std::max(worst_J, std::fabs(d.ten_J[i] - D->ten_J[i]));
    }
    EXPECT_NEAR(d.ten_length[0], D->ten_length[0], 1e-9) << "case " << k << "\n" << xml;
    const bool touch = D->ten_wrapnum[0] == 4 && D->wrap_xpos[3] == D->wrap_xpos[6] &&
                       D->wrap_xpos[4] == D->wrap_xpos[7] && D->wrap_xpos[5] == D->wrap_xpos[8];
    const double tol = touch ? 1e-5 : 1e-9;
    if (touch) EXPECT_LE(d.ten_length[0], D->ten_length[0] + 1e-12) << "case " << k;
    for (int w = 0; w < D->ten_wrapnum[0]; ++w) {
      EXPECT_EQ(d.wrap_obj[w], D->wrap_obj[w]) << "case " << k;
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(d.wrap_xpos[3 * w + c], D->wrap_xpos[3 * w + c], tol) << "case " << k;
    }
    for (int i = 0; i < M->nv; ++i) EXPECT_NEAR(d.ten_J[i], D->ten_J[i], tol) << "case " << k << " dof " << i;
    if (HasFailure()) break;
  }
  std::printf("[ summary  ] %d random wrap cases, %d wrapped; max |error|: length %g, points %g, ten_J %g (not touching)\n",
              cases, wrapped, worst_len, worst_point, worst_J);
}

}  // namespace
}  // namespace moreau::testing

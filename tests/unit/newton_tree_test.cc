// The Newton Hessian factored in M's tree-sparse layout (src/solver/newton_tree.cc):
//  - it applies when every quadratic row lies on one ancestor chain (limits, contacts against the
//    floor) and not when a row spans two branches (a contact between the two arms of a chain);
//  - the factor solves H x = g for H = M + J' D J (+ the cone Hessians of elliptic contacts) formed
//    densely from qM and efc_J: |H x - g| / |g| at round-off (1e-12).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "constraint/storage.h"
#include "moreau/moreau.h"
#include "solver/solver.h"

namespace moreau {
namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";

// Dense H with every quadratic row (and elliptic blocks off the cone's "satisfied" state).
std::vector<double> dense_hessian(const Model& m, const Data& d) {
  const int nv = m.nv;
  std::vector<double> H(nv * nv);
  full_m(m, d.qM.data(), H.data());
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[i]];
      if (d.efc_state[i] != kCnstrSatisfied)
        for (int a = 0; a < con.dim; ++a)
          for (int b = 0; b < con.dim; ++b)
            for (int r = 0; r < nv; ++r)
              for (int c = 0; c < nv; ++c)
                H[r * nv + c] += con.H[a * con.dim + b] * d.efc_J[(i + a) * nv + r] * d.efc_J[(i + b) * nv + c];
      i += con.dim - 1;
      continue;
    }
    if (d.efc_state[i] != kCnstrQuadratic) continue;
    for (int r = 0; r < nv; ++r)
      for (int c = 0; c < nv; ++c) H[r * nv + c] += d.efc_D[i] * d.efc_J[i * nv + r] * d.efc_J[i * nv + c];
  }
  return H;
}

double residual(const Model& m, Data& d) {
  const int nv = m.nv;
  const constraint::Work w = constraint::carve(m, d);
  EXPECT_TRUE(solver::tree_hessian_factor(m, d, w));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> g(nv), x(nv);
  for (double& v : g) v = u(rng);
  x = g;
  solver::tree_hessian_solve(m, w, x.data());
  const std::vector<double> H = dense_hessian(m, d);
  double err = 0, scale = 0;
  for (int r = 0; r < nv; ++r) {
    double hx = 0;
    for (int c = 0; c < nv; ++c) hx += H[r * nv + c] * x[c];
    err = std::max(err, std::abs(hx - g[r]));
    scale = std::max(scale, std::abs(g[r]));
  }
  return err / scale;
}

TEST(NewtonTreeHessian, SolvesWithFloorContactsAndLimits) {
  for (const char* cone : {"pyramidal", "elliptic"}) {
    Model m = load_model(kHumanoid);
    m.opt.cone = std::string(cone) == "elliptic" ? kConeElliptic : kConePyramidal;
    Data d = make_data(m);
    if (m.nkey > 0) reset_data_keyframe(m, d, 0);
    for (int i = 0; i < 300; ++i) step(m, d);  // fall onto the floor
    forward(m, d);
    ASSERT_GT(d.ncon, 0) << cone;
    ASSERT_TRUE(solver::tree_hessian_applies(m, d)) << cone;
    EXPECT_LE(residual(m, d), 1e-12) << cone;
  }
}

TEST(NewtonTreeHessian, NotForARowAcrossTwoBranches) {
  // Two arms hinged on one base: their contact row spans both branches of the tree.
  const Model m = load_model_from_string(R"(<mujoco>
    <worldbody>
      <body><joint type="hinge" axis="0 0 1"/><geom size=".05"/>
        <body pos=".2 0 0"><joint type="hinge" axis="0 0 1"/><geom type="sphere" size=".1" pos=".1 .05 0"/></body>
        <body pos=".2 .25 0"><joint type="hinge" axis="0 0 1"/><geom type="sphere" size=".1" pos=".1 -.05 0"/></body>
      </body>
    </worldbody>
  </mujoco>)");
  Data d = make_data(m);
  forward(m, d);
  ASSERT_GT(d.ncon, 0);
  bool quadratic = false;
  for (int i = 0; i < d.nefc; ++i) quadratic = quadratic || d.efc_state[i] == kCnstrQuadratic;
  ASSERT_TRUE(quadratic);
  EXPECT_FALSE(solver::tree_hessian_applies(m, d));
}

}  // namespace
}  // namespace moreau

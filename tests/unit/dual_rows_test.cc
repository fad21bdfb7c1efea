// The constraint rows in dual form (src/solver/dual.cc), u_i = D^-1/2 L'^-1 J_i' with M = L' D L,
// which the soft PGS and noslip solvers and the hard-contact Gauss-Seidel solvers use: u_i . u_j
// must be (J M^-1 J')_ij, and M^-1 J' f must be L^-1 D^-1/2 sum_i u_i f_i. The scene has rows of
// every shape the construction distinguishes: rows on one root-to-leaf dof path (a contact of one
// arm with the floor, condim 1, 3, 4 and 6; friction loss and limits of single dofs), solved on the
// path with a contact's rows side by side, and rows whose columns span two branches (the two arms
// touching each other, a tendon over both), solved by the general closure.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "constraint/storage.h"
#include "dynamics/dynamics.h"
#include "moreau/moreau.h"
#include "solver/solver.h"

namespace {

constexpr const char* kScene = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1" condim="1"/>
    <body pos="0 0 0.35">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" mass="3"/>
      <body pos="0.2 0 0">
        <joint name="a1" type="hinge" axis="0 1 0" frictionloss="0.2" range="-1 1" limited="true"/>
        <geom type="capsule" fromto="0 0 0 0.05 0 -0.25" size="0.03"/>
        <body pos="0.05 0 -0.25">
          <joint name="a2" type="hinge" axis="0 1 0" frictionloss="0.1"/>
          <geom name="tipA" type="sphere" pos="0 0 -0.1" size="0.05" condim="6"
                friction="0.8 0.02 0.01"/>
        </body>
      </body>
      <body pos="-0.2 0 0">
        <joint name="b1" type="ball" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0.1 0 -0.25" size="0.03"/>
        <body pos="0.1 0 -0.25">
          <joint name="b2" type="slide" axis="1 0 0" frictionloss="0.3"/>
          <geom name="tipB" type="sphere" pos="0 0 -0.1" size="0.05" condim="4"/>
        </body>
      </body>
    </body>
    <body pos="1 0 0.1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" condim="3"/>
    </body>
    <body pos="-1 0 0.09">
      <freejoint/>
      <geom type="sphere" size="0.1" condim="1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t" frictionloss="0.2">
      <joint joint="a2" coef="1"/>
      <joint joint="b2" coef="-0.5"/>
    </fixed>
  </tendon>
</mujoco>)";

// The state: the arms' tips pressed into the floor and into each other, the boxes resting.
moreau::Data pressed_state(const moreau::Model& m) {
  moreau::Data d = moreau::make_data(m);
  moreau::reset_data(m, d);
  d.qpos[2] = 0.33;
  d.qpos[m.jnt_qposadr[moreau::name2id(m, moreau::kObjJoint, "a1")]] = 0.3;
  d.qpos[m.jnt_qposadr[moreau::name2id(m, moreau::kObjJoint, "b2")]] = 0.16;
  for (int k = 0; k < m.nv; ++k) d.qvel[k] = 0.1 * std::sin(1.0 + k);
  moreau::forward(m, d);
  return d;
}

// Dense J (nefc x nv) from the compressed rows.
std::vector<double> dense_J(const moreau::Model& m, const moreau::Data& d) {
  const double* Jv = moreau::constraint::J_values(m, d);
  std::vector<double> J(static_cast<size_t>(d.nefc) * m.nv, 0.0);
  for (int i = 0; i < d.nefc; ++i) {
    const moreau::constraint::SparseRow r = moreau::constraint::row_of(d, Jv, i);
    for (int k = 0; k < r.nnz; ++k) J[static_cast<size_t>(i) * m.nv + r.col[k]] = r.val[k];
  }
  return J;
}

// Checks u against the factor (qld, diaginv) of the matrix it was built from: u_i . u_j against
// J_i A^-1 J_j' (A^-1 J_j' by the factor's own solve), and L^-1 D^-1/2 sum u_i f_i against
// A^-1 J' f for one f. Returns the largest relative error.
double check_rows(const moreau::Model& m, moreau::Data& d, const moreau::solver::DualRows& u,
                  const double* qld, const double* diaginv, const double* sqrtinv) {
  const int nv = m.nv, n = d.nefc;
  const std::vector<double> J = dense_J(m, d);
  std::vector<double> X(J);  // rows: A^-1 J_i'
  moreau::internal::solve_ld(m, qld, diaginv, X.data(), n);
  double worst = 0, scale = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int k = 0; k < nv; ++k) ref += J[static_cast<size_t>(i) * nv + k] * X[static_cast<size_t>(j) * nv + k];
      scale = std::max(scale, std::fabs(ref));
      worst = std::max(worst, std::fabs(moreau::solver::dual_pair(u, i, j) - ref));
    }
  // the velocity change of impulses f
  std::vector<double> z(nv, 0.0), ref(nv, 0.0);
  for (int i = 0; i < n; ++i) {
    const double f = std::cos(0.7 * i);
    moreau::solver::dual_axpy(u, i, f, z.data());
    for (int k = 0; k < nv; ++k) ref[k] += f * X[static_cast<size_t>(i) * nv + k];
  }
  for (int k = 0; k < nv; ++k) z[k] *= sqrtinv[k];
  for (int k = 0; k < nv; ++k) {  // L x = y, from the root to the leaves
    const double* row = qld + m.dof_Madr[k];
    int t = 1;
    for (int a = m.dof_parentid[k]; a >= 0; a = m.dof_parentid[a], ++t) z[k] -= row[t] * z[a];
  }
  double vscale = 0, verr = 0;
  for (int k = 0; k < nv; ++k) {
    vscale = std::max(vscale, std::fabs(ref[k]));
    verr = std::max(verr, std::fabs(z[k] - ref[k]));
  }
  return std::max(worst / scale, verr / vscale);
}

TEST(DualRows, GramOfTheRowsIsTheDelassusMatrixForEveryRowShape) {
  const moreau::Model m = moreau::load_model_from_string(kScene);
  moreau::Data d = pressed_state(m);
  // every shape is present: contacts of condim 1, 3, 4 and 6, a contact between the two arms (two
  // branches), friction loss of single dofs and of the tendon (two branches), a joint limit
  int dims[7] = {}, two_branch = 0, single = 0;
  for (int c = 0; c < d.ncon; ++c) dims[d.contact[c].dim]++;
  for (int i = 0; i < d.nefc; ++i) {
    const int nnz = d.efc_J_rownnz[i];
    const int* col = d.efc_J_colind.data() + d.efc_J_rowadr[i];
    bool path = true;
    for (int k = nnz - 1; k > 0 && path; --k) {
      int a = col[k];
      while (a > col[k - 1]) a = m.dof_parentid[a];
      path = a == col[k - 1];
    }
    two_branch += !path;
    single += nnz == 1;
  }
  EXPECT_GE(dims[1], 1);
  EXPECT_GE(dims[3], 1);
  EXPECT_GE(dims[4], 1);
  EXPECT_GE(dims[6], 1);
  EXPECT_GE(two_branch, 2);
  EXPECT_GE(single, 3);
  int limits = 0;
  for (int i = 0; i < d.nefc; ++i) limits += d.efc_type[i] == moreau::kCnstrLimitJoint;
  EXPECT_GE(limits, 1);

  const moreau::constraint::Work w = moreau::constraint::carve(m, d);
  const moreau::solver::DualRows u = moreau::solver::dual_rows(m, d, w);
  // round-off of a few hundred operations on entries of order 1 (the scene's inertias are ~0.01 to
  // 3): seen 3.5e-16 and 6.2e-16 relative; a wrong entry of a row would be off by its own size
  const double err = check_rows(m, d, u, d.qLD.data(), d.qLDiagInv.data(), d.qLDiagSqrtInv.data());
  std::printf("dual rows of M: largest relative error %.2g over %d rows\n", err, d.nefc);
  EXPECT_LT(err, 1e-12);

  // another factor of the same pattern: M + h B, as the hard-contact solvers use it
  const double h = 0.01;
  std::vector<double> H(d.qM.begin(), d.qM.end()), Hinv(m.nv), Hsqrt(m.nv);
  for (int k = 0; k < m.nv; ++k) H[m.dof_Madr[k]] += h * (1.0 + k);
  moreau::internal::factor_ld(m, H.data(), Hinv.data(), Hsqrt.data());
  const moreau::solver::DualRows uh = moreau::solver::dual_rows(m, d, w, H.data(), Hsqrt.data());
  const double errh = check_rows(m, d, uh, H.data(), Hinv.data(), Hsqrt.data());
  std::printf("dual rows of M + h B: largest relative error %.2g\n", errh);
  EXPECT_LT(errh, 1e-12);
}

}  // namespace

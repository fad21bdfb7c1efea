// forward_derivatives against centred differences of forward() on every model of the differential
// corpus (tests/models_mujoco222.txt), one case per model.
//
// State: keyframe 0 (else qpos0), then kSteps steps with small random controls (the middle of
// ctrlrange plus 10% of its half width, N(0, 1) scaled; 0.1 N(0, 1) without a range), so that
// contacts, limits and activations are as the model lives them. The main solver is Newton to
// tolerance 1e-12 and noslip (where the model has it) runs to convergence: the analytic derivative is
// that of the exact minimizer (and of noslip's converged solution), which differences of an
// unconverged solve do not reproduce.
//
// Columns: d qacc / d (qpos tangent, qvel, act, ctrl). Where a class has more than kMaxCols columns,
// a random subset of kMaxCols of them is checked (fixed seed), to keep the suite fast; models with
// more than kMaxNv dofs are skipped (composite/particle.xml).
//
// Differences and their error:
//   - no constraint row at the state: centred at h = 1e-4 and h/2, extrapolated (Richardson):
//     truncation O(h^4 f^(5)) ~ 1e-16, round-off ~ 1e-16 |f| cond / h ~ 1e-12 |f| cond. Bound 1e-6.
//   - constraint rows: plain centred at h = 1e-6 (a larger step crosses more active-set switches,
//     and extrapolation amplifies the kinks of the impedance): truncation ~ h^2 f''' ~ 1e-12,
//     round-off ~ 1e-10 |f| cond. Bound 1e-5.
// Active-set guard: a column whose +-h evaluations change the constraint rows (nefc, efc_type,
// efc_id, efc_state) or the contacts (ncon, geom pairs) is not comparable (the function has a kink
// or a jump there) and is skipped and counted.
// Error of a column: ||a - fd|| / max(||fd||, scale), scale = max(1, ||qacc||) (2-norms): relative to
// the column where it is of the order of the acceleration, to the acceleration where the column
// vanishes (its differences are then round-off).
// Columns that the analytic path leaves to finite differences (derivative_fallbacks) are differences
// themselves, and must match as well; the fallbacks are printed per model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../model_list.h"
#include "derivative/contact_geometry.h"
#include "derivative_test_util.h"
#include "moreau/analytic_derivative.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

using testing::perturb_qpos;
using testing::Vec;

constexpr int kSteps = 100;
constexpr int kMaxCols = 16;
constexpr int kMaxNv = 1000;
constexpr double kSmoothStep = 1e-4, kConstrainedStep = 1e-6;
constexpr double kSmoothBound = 1e-6, kConstrainedBound = 1e-5;

// The constraint rows and contacts a perturbation must keep for its column to be compared.
struct ActiveSet {
  std::vector<int> rows;      // efc_type, efc_id, efc_state per row
  std::vector<int> contacts;  // geom1, geom2 per contact
  bool operator==(const ActiveSet&) const = default;
};

ActiveSet active_set(const Data& d) {
  ActiveSet s;
  for (int r = 0; r < d.nefc; ++r) s.rows.insert(s.rows.end(), {d.efc_type[r], d.efc_id[r], d.efc_state[r]});
  for (int c = 0; c < d.ncon; ++c) s.contacts.insert(s.contacts.end(), {d.contact[c].geom1, d.contact[c].geom2});
  return s;
}

double norm(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

// Small random controls around the middle of the range.
void small_ctrl(const Model& m, Data& d, std::mt19937& rng) {
  std::normal_distribution<double> n01(0, 1);
  for (int u = 0; u < m.nu; ++u) {
    if (m.actuator_ctrllimited[u]) {
      const double lo = m.actuator_ctrlrange[2 * u], hi = m.actuator_ctrlrange[2 * u + 1];
      const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
      d.ctrl[u] = std::clamp(mid + 0.1 * half * n01(rng), lo + 0.1 * half, hi - 0.1 * half);
    } else {
      d.ctrl[u] = 0.1 * n01(rng);
    }
  }
}

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const auto& e : test_models::entries()) out.push_back(test_models::resolve(e));
  return out;
}

// Up to kMaxCols of n column indices (all when n <= kMaxCols), sorted.
std::vector<int> column_subset(int n, std::mt19937& rng) {
  std::vector<int> c(n);
  std::iota(c.begin(), c.end(), 0);
  if (n > kMaxCols) {
    std::shuffle(c.begin(), c.end(), rng);
    c.resize(kMaxCols);
    std::sort(c.begin(), c.end());
  }
  return c;
}

struct ClassResult {
  int checked = 0, skipped = 0, kinks = 0;
  double worst = 0;
  int worst_col = -1;
};

class DerivativeCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(DerivativeCorpus, ForwardDerivativesMatchCentredDifferences) {
  const std::string path = GetParam();
  MOREAU_REQUIRE_MODEL(path);
  Model m = load_model(path);
  if (m.nv == 0) GTEST_SKIP() << "no degrees of freedom";
  // composite/particle.xml (nv 3000): forward_derivatives' four dense nv x nv outputs alone take
  // tens of seconds there; humanoid100 (nv 627) stays in.
  if (m.nv > kMaxNv) GTEST_SKIP() << "nv " << m.nv << " > " << kMaxNv << ": too slow for the unit suite";
  if (!is_hard_contact_solver(m.opt.solver)) m.opt.solver = kSolverNewton;
  m.opt.tolerance = 1e-12;
  m.opt.iterations = std::max(m.opt.iterations, 200);
  if (m.opt.noslip_iterations > 0) m.opt.noslip_iterations = 3000, m.opt.noslip_tolerance = 0;
  Data d = make_data(m);
  if (m.nkey > 0) reset_data_keyframe(m, d, 0);
  std::mt19937 rng(12345);
  for (int i = 0; i < kSteps; ++i) {
    small_ctrl(m, d, rng);
    step(m, d);
  }
  const int nv = m.nv, na = m.na, nu = m.nu;
  Vec Aq(static_cast<size_t>(nv) * nv), Av(Aq.size()), Aact(static_cast<size_t>(nv) * na),
      Au(static_cast<size_t>(nv) * nu);
  forward_derivatives(m, d, Aq.data(), Av.data(), Aact.data(), Au.data(), nullptr);
  const ActiveSet base = active_set(d);
  const bool constrained = d.nefc > 0;
  const Vec qacc0(d.qacc.begin(), d.qacc.begin() + nv);
  const double scale = std::max(1.0, norm(qacc0.data(), nv));
  const double h = constrained ? kConstrainedStep : kSmoothStep;
  const double bound = constrained ? kConstrainedBound : kSmoothBound;
  std::string fallbacks;
  for (const std::string& f : derivative_fallbacks(m, d))
    if (f.find("(C, D rows)") == std::string::npos) fallbacks += (fallbacks.empty() ? "" : "; ") + f;

  // Contacts whose geometry derivative is an approximation (contact_geometry.h): MPR contacts whose
  // narrow phase jumps under 1e-7..1e-3 perturbations take the derivative of MPR run to
  // convergence, or the witness-point approximation. Differences of forward have no limit there
  // (they follow the model's MPR at tolerance 1e-6), so these models' qpos columns are measured and
  // printed, not asserted; their other columns are.
  // (On a copy of d: the narrow phase that contact_jacobian reruns works in d's buffers.)
  int approx = 0;
  Data dc = d;
  for (int c = 0; c < d.ncon; ++c) {
    if (d.contact[c].efc_address < 0) continue;
    internal::ContactJacobian cj;
    const auto method = internal::contact_jacobian(m, dc, c, &cj);
    approx += method == internal::ContactDerivMethod::kConvergedMpr || method == internal::ContactDerivMethod::kWitness;
  }

  const Vec q0 = d.qpos, v0 = d.qvel, act0 = d.act, ctrl0 = d.ctrl, warm0 = d.qacc_warmstart;
  Vec dq(nv), fd(nv), out[4];
  // d qacc along one direction: perturb(e) sets the state at offset e from the base state.
  // Returns 0 when the column is comparable, 1 when the active set changes within +-h, 2 when qacc
  // is not smooth there (below).
  auto column = [&](auto perturb) {
    const double steps[4] = {h, -h, h / 2, -h / 2};
    for (int k = 0; k < 4; ++k) {
      d.qpos = q0, d.qvel = v0, d.act = act0, d.ctrl = ctrl0, d.qacc_warmstart = warm0;
      perturb(steps[k]);
      forward(m, d);
      if (!(active_set(d) == base)) return 1;
      out[k].assign(d.qacc.begin(), d.qacc.begin() + nv);
    }
    // Convergence of the differences: for a smooth f the centred differences at h and h/2 differ
    // by (3/4) h^2 f'''/6 (1e-9 f''' at h = 1e-4, 1e-13 f''' at 1e-6). A kink of the slope or of
    // the curvature within h (a fluid drag at rest, an unconverged inner iteration, a narrow phase
    // that takes another path) makes them differ by the size of the error the differences carry,
    // so where they differ by more than half the bound the column has no reference.
    double kink = 0;
    for (int i = 0; i < nv; ++i) {
      const double c1 = (out[0][i] - out[1][i]) / (2 * h), c2 = (out[2][i] - out[3][i]) / h;
      fd[i] = constrained ? c1 : (4 * c2 - c1) / 3;
      kink += (c1 - c2) * (c1 - c2);
    }
    return std::sqrt(kink) > 0.5 * bound * std::max(norm(fd.data(), nv), scale) ? 2 : 0;
  };
  // Compares column k of the row-major nv x ncols analytic matrix A.
  auto compare = [&](const Vec& A, int ncols, int k, ClassResult& r) {
    double num = 0;
    for (int i = 0; i < nv; ++i) num += std::pow(A[static_cast<size_t>(i) * ncols + k] - fd[i], 2);
    const double e = std::sqrt(num) / std::max(norm(fd.data(), nv), scale);
    ++r.checked;
    if (e > r.worst) r.worst = e, r.worst_col = k;
  };

  auto tally = [&](int c, const Vec& A, int ncols, int k, ClassResult& r) {
    if (c == 0) compare(A, ncols, k, r);
    else if (c == 1) ++r.skipped;
    else ++r.kinks;
  };
  ClassResult res[4];
  const char* names[4] = {"qpos", "qvel", "act", "ctrl"};
  for (int k : column_subset(nv, rng)) {
    const int c = column([&](double e) { perturb_qpos(m, d.qpos.data(), dq, k, e); });
    tally(c, Aq, nv, k, res[0]);
  }
  for (int k : column_subset(nv, rng)) {
    const int c = column([&](double e) { d.qvel[k] += e; });
    tally(c, Av, nv, k, res[1]);
  }
  for (int k : column_subset(na, rng)) {
    const int c = column([&](double e) { d.act[k] += e; });
    tally(c, Aact, na, k, res[2]);
  }
  for (int k : column_subset(nu, rng)) {
    const int c = column([&](double e) { d.ctrl[k] += e; });
    tally(c, Au, nu, k, res[3]);
  }
  d.qpos = q0, d.qvel = v0, d.act = act0, d.ctrl = ctrl0, d.qacc_warmstart = warm0;
  forward(m, d);

  std::printf("%s: nv %d nefc %d ncon %d, step %.0e, bound %.0e; fallbacks: %s\n", path.c_str(), nv,
              static_cast<int>(base.rows.size() / 3), static_cast<int>(base.contacts.size() / 2), h, bound, fallbacks.empty() ? "none" : fallbacks.c_str());
  for (int c = 0; c < 4; ++c) {
    if (res[c].checked + res[c].skipped + res[c].kinks == 0) continue;
    std::printf("  d qacc/d %-4s: %3d columns checked, %3d skipped (active set changes), %3d skipped (not smooth), "
                "worst %.2e (column %d)\n",
                names[c], res[c].checked, res[c].skipped, res[c].kinks, res[c].worst, res[c].worst_col);
    if (c == 0 && approx > 0) {
      std::printf("  (qpos columns not asserted: %d contacts with the converged-MPR or witness approximation)\n", approx);
      continue;
    }
    EXPECT_LE(res[c].worst, bound) << path << " d qacc/d " << names[c] << " column " << res[c].worst_col
                                   << (fallbacks.empty() ? "" : " (fallbacks: " + fallbacks + ")");
  }
  int checked = 0;
  for (const auto& r : res) checked += r.checked;
  if (checked == 0) GTEST_SKIP() << "no column has a reference: each changes the active set or is not smooth within +-h";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  const auto p = s.find("/models/");
  if (p != std::string::npos) s = s.substr(p + 8);
  const auto q = s.find("/model/");
  if (q != std::string::npos) s = s.substr(q + 7);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Models, DerivativeCorpus, ::testing::ValuesIn(corpus()), test_name);

}  // namespace
}  // namespace moreau

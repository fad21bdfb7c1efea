// Helpers shared by the analytic-derivative tests: random states near qpos0, finite differences
// along the tangent directions of qpos and along plain vectors (qvel, act, ctrl, ...), and the
// relative error of an analytic matrix against them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "moreau/moreau.h"

namespace moreau::testing {

using Vec = std::vector<double>;

// The spread of random_state's draws.
struct StateSpread {
  double qpos = 0.3;                 // tangent step per dof from qpos0: qpos * N(0, 1)
  double act_lo = 0, act_width = 1;  // activations uniform in [act_lo, act_lo + act_width]
};

// A random state near qpos0: a tangent step of spread.qpos * N(0, 1) per dof, velocities N(0, 1),
// activations uniform in spread's interval, controls inside the middle 80% of their range
// (N(0, 1) without a range). The draws come in this order from one mt19937 seeded with seed, so a
// seed names the same state in every test.
inline void random_state(const Model& m, Data& d, unsigned seed, StateSpread spread = {}) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n01(0, 1);
  std::uniform_real_distribution<double> u01(0, 1);
  std::copy(m.qpos0.begin(), m.qpos0.end(), d.qpos.begin());
  Vec dq(m.nv);
  for (auto& x : dq) x = spread.qpos * n01(rng);
  integrate_pos(m, d.qpos.data(), dq.data(), 1);
  for (int i = 0; i < m.nv; ++i) d.qvel[i] = n01(rng);
  for (int i = 0; i < m.na; ++i) d.act[i] = spread.act_lo + spread.act_width * u01(rng);
  for (int u = 0; u < m.nu; ++u) {
    if (m.actuator_ctrllimited[u]) {
      const double lo = m.actuator_ctrlrange[2 * u], hi = m.actuator_ctrlrange[2 * u + 1];
      d.ctrl[u] = lo + (0.1 + 0.8 * u01(rng)) * (hi - lo);
    } else {
      d.ctrl[u] = n01(rng);
    }
  }
}

// x[0..n) = scale * N(0, 1), drawn from a fresh mt19937 seeded with seed (random velocities,
// accelerations or forces beside a fixed configuration).
inline void fill_normal(double* x, int n, unsigned seed, double scale = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n01(0, 1);
  for (int i = 0; i < n; ++i) x[i] = scale * n01(rng);
}

// Moves qpos by e along the tangent direction of dof k (dq: nv doubles of scratch).
inline void perturb_qpos(const Model& m, double* qpos, Vec& dq, int k, double e) {
  std::fill(dq.begin(), dq.end(), 0.0);
  dq[k] = 1;
  integrate_pos(m, qpos, dq.data(), e);
}

// Centred differences at h (from f(+h) = p, f(-h) = n) and at h/2 (p2, n2), extrapolated
// (Richardson): the h^2 terms cancel, truncation O(h^4).
inline double richardson(double p, double n, double p2, double n2, double h) {
  const double d1 = (p - n) / (2 * h), d2 = (p2 - n2) / h;
  return (4 * d2 - d1) / 3;
}

// max |a - b| / max(max |b|, fscale, 1): b is the reference (the differences), fscale the size of
// the differentiated function where the derivative is small against it (0: relative to b alone).
inline double rel_error(const Vec& a, const Vec& b, double fscale = 0) {
  double num = 0, den = fscale;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / std::max(den, 1.0);
}

// max |x|.
inline double max_abs(const Vec& x) {
  double s = 0;
  for (double v : x) s = std::max(s, std::abs(v));
  return s;
}

// max |g| at the current state (g writes nout values).
template <class G>
double fscale(int nout, G g) {
  Vec v(nout);
  g(v.data());
  return max_abs(v);
}

// Extrapolated centred differences (richardson, steps h and h/2) of g (nout values of the state)
// along each tangent direction of qpos: row-major nout x nv. qpos is restored.
template <class G>
Vec fd_qpos(const Model& m, Data& d, int nout, double h, G g) {
  const Vec q0 = d.qpos;
  Vec out(static_cast<size_t>(nout) * m.nv), dq(m.nv), p(nout), n(nout), p2(nout), n2(nout);
  for (int k = 0; k < m.nv; ++k) {
    auto at = [&](double e, double* r) {
      d.qpos = q0;
      perturb_qpos(m, d.qpos.data(), dq, k, e);
      g(r);
    };
    at(h, p.data()), at(-h, n.data()), at(h / 2, p2.data()), at(-h / 2, n2.data());
    for (int i = 0; i < nout; ++i) out[static_cast<size_t>(i) * m.nv + k] = richardson(p[i], n[i], p2[i], n2[i], h);
  }
  d.qpos = q0;
  return out;
}

// The same along each entry of x (nx values, such as d.qvel or d.ctrl): row-major nout x nx. x is
// restored.
template <class G>
Vec fd_vec(double* x, int nx, int nout, double h, G g) {
  Vec out(static_cast<size_t>(nout) * nx), p(nout), n(nout), p2(nout), n2(nout);
  for (int k = 0; k < nx; ++k) {
    const double x0 = x[k];
    auto at = [&](double e, double* r) {
      x[k] = x0 + e;
      g(r);
    };
    at(h, p.data()), at(-h, n.data()), at(h / 2, p2.data()), at(-h / 2, n2.data());
    x[k] = x0;
    for (int i = 0; i < nout; ++i) out[static_cast<size_t>(i) * nx + k] = richardson(p[i], n[i], p2[i], n2[i], h);
  }
  return out;
}

}  // namespace moreau::testing

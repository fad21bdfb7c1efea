// Finite-difference Jacobians of inverse dynamics (computation chapter, "Derivatives": mjd_inverseFD;
// newer than MuJoCo 2.2.2): the derivatives of qfrc_inverse (optionally minus qfrc_actuator), of the
// sensors and of qM with respect to qpos (tangent space, as transition_fd), qvel and qacc.
// Each evaluation is the whole inverse (it has no stage skipping of its own); qacc perturbations need
// only its acceleration part, but inverse() always recomputes from the position stage, so they cost
// the same as the others.
#include <algorithm>
#include <cmath>

#include "derivative/work.h"
#include "engine/checks.h"
#include "moreau/actuation.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {

struct Work {
  double *qpos, *qvel, *qacc;   // the state
  double *nf, *ns, *nM;         // nominal outputs
  double *pf, *ps, *pM;         // + outputs (centered)
  double *dq;
};

Work carve(const Model& m, Data& d) {
  double* p = d.work.fd.data();
  auto take = [&](int n) { double* r = p; p += n; return r; };
  Work w{};
  w.qpos = take(m.nq), w.qvel = take(m.nv), w.qacc = take(m.nv);
  w.nf = take(m.nv), w.ns = take(m.nsensordata), w.nM = take(m.nM);
  w.pf = take(m.nv), w.ps = take(m.nsensordata), w.pM = take(m.nM);
  w.dq = take(m.nv);
  return w;
}

void evaluate(const Model& m, Data& d, bool flg_actuation, double* f, double* s, double* M) {
  inverse(m, d);
  std::copy_n(d.qfrc_inverse.begin(), m.nv, f);
  if (flg_actuation) {
    fwd_actuation(m, d);  // qfrc_actuator from ctrl/act at this state
    for (int i = 0; i < m.nv; ++i) f[i] -= d.qfrc_actuator[i];
  }
  std::copy_n(d.sensordata.begin(), m.nsensordata, s);
  std::copy_n(d.qM.begin(), m.nM, M);
}

void put(double* X, int rows, int j, int nv, const double* plus, const double* minus, double scale) {
  if (!X) return;
  for (int i = 0; i < rows; ++i) X[static_cast<size_t>(i) * nv + j] = (plus[i] - minus[i]) / scale;
}

}  // namespace

void inverse_fd(const Model& m, Data& d, double eps, bool centered, bool flg_actuation, double* DfDq,
                double* DfDv, double* DfDa, double* DsDq, double* DsDv, double* DsDa, double* DmDq) {
  internal::check_data(m, d, "inverse_fd");
  if (!(eps > 0) || !std::isfinite(eps)) internal::throw_invalid("inverse_fd", "eps must be a positive finite number");
  const int nv = m.nv, ns = m.nsensordata;
  Work w = carve(m, d);
  std::copy_n(d.qpos.begin(), m.nq, w.qpos);
  std::copy_n(d.qvel.begin(), nv, w.qvel);
  std::copy_n(d.qacc.begin(), nv, w.qacc);
  auto restore = [&] {
    std::copy_n(w.qpos, m.nq, d.qpos.begin());
    std::copy_n(w.qvel, nv, d.qvel.begin());
    std::copy_n(w.qacc, nv, d.qacc.begin());
  };

  evaluate(m, d, flg_actuation, w.nf, w.ns, w.nM);
  // the minus (or only) evaluation lands in the nominal-sized buffers after pf/ps/pM
  double* mf = w.dq + nv;  // work.fd has room: see fd_work_size
  double* ms = mf + nv;
  double* mM = ms + ns;

  // one variable: column j of the three outputs
  auto column = [&](auto perturb, int j, double* Df, double* Ds, double* Dm) {
    if (!Df && !Ds && !Dm) return;
    restore();
    perturb(eps);
    evaluate(m, d, flg_actuation, w.pf, w.ps, w.pM);
    const double* f0 = w.nf;
    const double* s0 = w.ns;
    const double* M0 = w.nM;
    double scale = eps;
    if (centered) {
      restore();
      perturb(-eps);
      evaluate(m, d, flg_actuation, mf, ms, mM);
      f0 = mf, s0 = ms, M0 = mM, scale = 2 * eps;
    }
    put(Df, nv, j, nv, w.pf, f0, scale);
    put(Ds, ns, j, nv, w.ps, s0, scale);
    put(Dm, m.nM, j, nv, w.pM, M0, scale);
  };

  for (int j = 0; j < nv; ++j) {
    column([&](double e) { d.qacc[j] += e; }, j, DfDa, DsDa, nullptr);
    column([&](double e) { d.qvel[j] += e; }, j, DfDv, DsDv, nullptr);
    column(
        [&](double e) {
          std::fill_n(w.dq, nv, 0.0);
          w.dq[j] = 1;
          integrate_pos(m, d.qpos.data(), w.dq, e);
        },
        j, DfDq, DsDq, DmDq);
  }
  restore();
}

}  // namespace moreau

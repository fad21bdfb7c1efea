// The reduced primal cost shared by Newton, CG and the analytic inverse (computation chapter,
// "Reduced primal problem"):
//   cost(x) = 0.5 (x - qacc_smooth)' M (x - qacc_smooth) + s(J x - aref),
// row by row (Jaref = J x - aref, force = -ds/dJaref):
//   equality:            0.5 D Jaref^2                                           quadratic
//   friction loss (eta): Huber: quadratic for |Jaref| < R eta, else linear with |force| = eta
//   limit, frictionless and pyramidal contact: 0.5 D Jaref^2 if Jaref < 0, else 0
//   elliptic contacts:   cone.cc.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "solver/solver.h"

namespace moreau::solver {

double eval_constraint(const Model& m, Data& d, const double* Jaref, double* force, int* state,
                       bool cone_hessian, int* nactive) {
  double cost = 0;
  int active = 0;
  for (int i = 0; i < d.nefc; ++i) {
    const double z = Jaref[i], D = d.efc_D[i];
    switch (d.efc_type[i]) {
      case kCnstrEquality:
        force[i] = -D * z;
        state[i] = kCnstrQuadratic;
        cost += 0.5 * D * z * z;
        break;
      case kCnstrFrictionDof:
      case kCnstrFrictionTendon: {
        const double eta = d.efc_frictionloss[i], R = d.efc_R[i];
        if (z <= -R * eta) {
          force[i] = eta;
          state[i] = kCnstrLinearNeg;
          cost += -eta * z - 0.5 * R * eta * eta;
        } else if (z >= R * eta) {
          force[i] = -eta;
          state[i] = kCnstrLinearPos;
          cost += eta * z - 0.5 * R * eta * eta;
        } else {
          force[i] = -D * z;
          state[i] = kCnstrQuadratic;
          cost += 0.5 * D * z * z;
        }
        break;
      }
      case kCnstrContactElliptic: {
        const int dim = d.contact[d.efc_id[i]].dim;
        cost += elliptic_eval(m, d, i, Jaref, force, state, cone_hessian);
        for (int j = 0; j < dim; ++j) active += state[i + j] != kCnstrSatisfied;
        i += dim - 1;
        continue;
      }
      default:  // limits, frictionless and pyramidal contacts
        if (z < 0) {
          force[i] = -D * z;
          state[i] = kCnstrQuadratic;
          cost += 0.5 * D * z * z;
        } else {
          force[i] = 0;
          state[i] = kCnstrSatisfied;
        }
        break;
    }
    active += state[i] != kCnstrSatisfied;
  }
  if (nactive) *nactive = active;
  return cost;
}

Primal primal_setup(const Model& m, Data& d, const Work& w) {
  Primal p;
  p.x = w.v[0];
  p.Ma = w.v[1];
  p.grad = w.v[2];
  p.Mgrad = w.v[3];
  p.search = w.v[4];
  p.Mv = w.v[5];
  p.gradold = w.v[6];
  p.Mgradold = w.v[7];
  p.tmp = w.v[8];
  p.Jaref = w.Jaref;
  p.jv = w.jv;
  p.ecoef = w.quad;
  return p;
}

void primal_cost(const Model& m, Data& d, Primal& p, bool cone_hessian) {
  const int nv = m.nv;
  // gauss = 0.5 (x - a0)' M (x - a0) = 0.5 (Ma - qfrc_smooth)'(x - qacc_smooth)
  double gauss = 0;
  for (int k = 0; k < nv; ++k) gauss += 0.5 * (p.Ma[k] - d.qfrc_smooth[k]) * (p.x[k] - d.qacc_smooth[k]);
  p.gauss = gauss;
  p.cost = gauss + eval_constraint(m, d, p.Jaref, d.efc_force.data(), d.efc_state.data(),
                                   cone_hessian, &p.nactive);
}

void primal_eval(const Model& m, Data& d, Primal& p, bool cone_hessian) {
  mul_m(m, d, p.Ma, p.x);
  constraint::mul_J(m, d, p.Jaref, p.x);
  for (int i = 0; i < d.nefc; ++i) p.Jaref[i] -= d.efc_aref[i];
  primal_cost(m, d, p, cone_hessian);
}

void primal_init(const Model& m, Data& d, Primal& p, bool cone_hessian) {
  const int nv = m.nv;
  // At qacc_smooth, Jaref is efc_b (solve_constraint computes J qacc_smooth - aref the same way)
  // and the Gauss term is zero (x - qacc_smooth = 0 exactly), so its cost is s(efc_b) alone.
  auto start_smooth = [&] {
    std::copy_n(d.qacc_smooth.data(), nv, p.x);
    mul_m(m, d, p.Ma, p.x);
    std::copy_n(d.efc_b.data(), d.nefc, p.Jaref);
    primal_cost(m, d, p, cone_hessian);
  };
  if (!(m.opt.disableflags & kDsblWarmstart) && static_cast<int>(d.qacc_warmstart.size()) >= nv) {
    // the warm start wins if its cost is lower than qacc_smooth's; its force and state (and cone
    // Hessians) are recomputed only when it wins
    std::copy_n(d.qacc_warmstart.data(), nv, p.x);
    primal_eval(m, d, p, false);
    const double cost_warm = p.cost;
    const double cost_smooth = eval_constraint(m, d, d.efc_b.data(), d.efc_force.data(),
                                               d.efc_state.data(), false, nullptr);
    if (cost_warm < cost_smooth) primal_cost(m, d, p, cone_hessian);
    else start_smooth();
  } else {
    start_smooth();
  }
}

void primal_gradient(const Model& m, Data& d, Primal& p) {
  constraint::mul_JT(m, d, p.tmp, d.efc_force.data());
  for (int k = 0; k < m.nv; ++k) p.grad[k] = p.Ma[k] - d.qfrc_smooth[k] - p.tmp[k];
}

void primal_finish(const Model& m, Data& d, Primal& p) {
  std::copy_n(p.x, m.nv, d.qacc.data());
  constraint::mul_JT(m, d, d.qfrc_constraint.data(), d.efc_force.data());
}

bool primal_iteration_done(const Model& m, Data& d, const Primal& p, int iter, const double* oldstate,
                           double decrease, double slope, int neval, bool newton, int* nchange) {
  int changed = 0;
  for (int i = 0; i < d.nefc; ++i) changed += oldstate[i] != d.efc_state[i];
  double g2 = 0;
  for (int k = 0; k < m.nv; ++k) g2 += p.grad[k] * p.grad[k];
  const double scale = stat_scale(m);
  const double improvement = scale * decrease;
  const double gradient = scale * std::sqrt(g2);
  if (iter < kNSolverStat && static_cast<int>(d.solver.size()) > iter) {
    SolverStat& st = d.solver[iter];
    st.improvement = improvement;
    st.gradient = gradient;
    st.lineslope = scale * slope;
    st.nactive = p.nactive;
    st.nchange = changed;
    st.neval = neval;
    st.nupdate = newton ? changed : 0;  // Newton updates its factor once per changed row
  }
  *nchange = changed;
  return improvement < m.opt.tolerance || gradient < m.opt.tolerance;
}

}  // namespace moreau::solver

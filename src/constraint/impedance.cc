// Solver parameters of each constraint row (computation chapter, "Solver parameters"; modeling
// chapter, solref/solimp):
//
//   impedance d(r) in (0,1): solimp = (dmin, dmax, width, midpoint, power). With x = |r|/width,
//     d = dmin + y(x) (dmax - dmin), y the sigmoid made of two power curves that meet at the
//     midpoint: y = x^p / mid^(p-1) for x <= mid, y = 1 - (1-x)^p / (1-mid)^(p-1) above; d = dmax
//     beyond the width. r is the violation pos - margin.
//   regularizer R = (1-d)/d * diagApprox (diagApprox: "endeffector" inverse weights at qpos0), D = 1/R.
//   reference acceleration aref = -b*(J v) - k*d*r with, for solref = (timeconst, dampratio) > 0,
//     b = 2/(dmax*timeconst), k = 1/(dmax^2 timeconst^2 dampratio^2); for solref = (-stiffness,
//     -damping) <= 0: k = stiffness/dmax^2, b = damping/dmax. refsafe: timeconst >= 2*timestep.
//   elliptic cones: R of the first friction row = R(normal)/impratio, the others such that
//     R_j mu_j^2 is the same for all friction rows (through their diagApprox, contact_rows.cc);
//     the regularized cone then has friction mu = mu_1 sqrt(R_1/R_0) (contact.mu), which makes
//     the inverse dynamics analytic.
#include <algorithm>
#include <cmath>

#include "constraint/storage.h"

namespace moreau::constraint {

namespace {
constexpr double kMinImp = 0.0001;  // impedance bounds (d must stay inside (0,1))
constexpr double kMaxImp = 0.9999;
inline double clampd(double x, double lo, double hi) { return std::min(hi, std::max(lo, x)); }
}  // namespace

double impedance(const double* solimp, double pos, double margin, double* deriv) {
  const double dmin = clampd(solimp[0], kMinImp, kMaxImp);
  const double dmax = clampd(solimp[1], kMinImp, kMaxImp);
  const double width = solimp[2];
  const double mid = clampd(solimp[3], kMinImp, kMaxImp);
  const double power = std::max(1.0, solimp[4]);
  if (deriv) *deriv = 0;
  // flat: no transition, the mean of the two ends
  if (dmin == dmax || width <= kMinVal) return 0.5 * (dmin + dmax);
  double x = (pos - margin) / width;
  const double sgn = x < 0 ? -1.0 : 1.0;
  x = std::fabs(x);
  if (x >= 1) return dmax;
  if (x <= 0) return dmin;
  double y, dy;
  if (power == 1) {
    y = x;
    dy = 1;
  } else if (x <= mid) {
    const double a = 1 / std::pow(mid, power - 1);
    y = a * std::pow(x, power);
    dy = power * a * std::pow(x, power - 1);
  } else {
    const double b = 1 / std::pow(1 - mid, power - 1);
    y = 1 - b * std::pow(1 - x, power);
    dy = power * b * std::pow(1 - x, power - 1);
  }
  if (deriv) *deriv = dy * sgn * (dmax - dmin) / width;
  return dmin + y * (dmax - dmin);
}

void row_params(const Model& m, const Data& d, int i, const double** solref, const double** solimp) {
  const int id = d.efc_id[i];
  switch (d.efc_type[i]) {
    case kCnstrEquality:
      *solref = &m.eq_solref[kNREF * id]; *solimp = &m.eq_solimp[kNIMP * id]; break;
    case kCnstrFrictionDof:
      *solref = &m.dof_solref[kNREF * id]; *solimp = &m.dof_solimp[kNIMP * id]; break;
    case kCnstrFrictionTendon:
      *solref = &m.tendon_solref_fri[kNREF * id]; *solimp = &m.tendon_solimp_fri[kNIMP * id]; break;
    case kCnstrLimitJoint:
      *solref = &m.jnt_solref[kNREF * id]; *solimp = &m.jnt_solimp[kNIMP * id]; break;
    case kCnstrLimitTendon:
      *solref = &m.tendon_solref_lim[kNREF * id]; *solimp = &m.tendon_solimp_lim[kNIMP * id]; break;
    default:
      *solref = d.contact[id].solref; *solimp = d.contact[id].solimp; break;
  }
}

void make_impedance(const Model& m, Data& d) {
  const bool refsafe = !(m.opt.disableflags & kDsblRefsafe);
  // The rows of one contact share solref, solimp and the distance the impedance reads (pyramidal
  // edges carry the contact's dist; elliptic friction rows take the normal row's), so imp, impP, K
  // and B are computed once per contact and reused for its other rows.
  int cached = -1;  // contact whose values imp, impP, K, B hold
  double imp = 0, impP = 0, K = 0, B = 0;
  for (int i = 0; i < d.nefc; ++i) {
    const int type = d.efc_type[i];
    const bool contact = type == kCnstrContactFrictionless || type == kCnstrContactPyramidal ||
                         type == kCnstrContactElliptic;
    if (!contact || d.efc_id[i] != cached) {
      cached = contact ? d.efc_id[i] : -1;
      const double *solref, *solimp;
      row_params(m, d, i, &solref, &solimp);
      double pos = d.efc_pos[i], margin = d.efc_margin[i];
      // elliptic friction rows: the impedance of the contact's distance (normal row)
      if (type == kCnstrContactElliptic) {
        const int i0 = d.contact[d.efc_id[i]].efc_address;
        pos = d.efc_pos[i0];
        margin = d.efc_margin[i0];
      }
      if (type == kCnstrEquality) {
        // equality: every row of the constraint takes the impedance of its whole residual, as
        // MuJoCo 2.2.2 does (checked in the tests): a single row its signed residual; connect the
        // norm of its 3 rows; weld the norm of (position, torquescale * orientation)
        int first = i, last = i;
        while (first > 0 && d.efc_type[first - 1] == kCnstrEquality && d.efc_id[first - 1] == d.efc_id[i]) --first;
        while (last + 1 < d.nefc && d.efc_type[last + 1] == kCnstrEquality && d.efc_id[last + 1] == d.efc_id[i]) ++last;
        if (last > first) {
          const int e = d.efc_id[i];
          const double ts = m.eq_type[e] == kEqWeld ? m.eq_data[kNEQDATA * e + 10] : 1.0;
          double n2 = 0;
          for (int k = first; k <= last; ++k) {
            const double r = (k - first < 3 ? 1.0 : ts) * d.efc_pos[k];
            n2 += r * r;
          }
          pos = std::sqrt(n2);
        }
      }
      imp = impedance(solimp, pos, margin, &impP);
      const double dmax = clampd(solimp[1], kMinImp, kMaxImp);
      if (solref[0] > 0) {
        const double timeconst = refsafe ? std::max(solref[0], 2 * m.opt.timestep) : solref[0];
        const double dampratio = solref[1];
        K = 1 / (dmax * dmax * timeconst * timeconst * dampratio * dampratio);
        B = 2 / (dmax * timeconst);
      } else {
        K = -solref[0] / (dmax * dmax);
        B = -solref[1] / dmax;
      }
    }
    // friction loss and elliptic friction rows have no position residual: no stiffness (as 2.2.2
    // reports it)
    const bool no_position = type == kCnstrFrictionDof || type == kCnstrFrictionTendon ||
                             (type == kCnstrContactElliptic && d.contact[d.efc_id[i]].efc_address != i);
    double* kbip = &d.efc_KBIP[4 * i];
    kbip[0] = no_position ? 0 : K; kbip[1] = B; kbip[2] = imp; kbip[3] = impP;
    d.efc_R[i] = std::max(kMinVal, (1 - imp) * d.efc_diagApprox[i] / imp);
    // frictional contacts: scale from the normal's regularizer (contact_rows.cc), then report
    // the diagApprox that R stands for
    if (type == kCnstrContactPyramidal || type == kCnstrContactElliptic) {
      const Contact& con = d.contact[d.efc_id[i]];
      const double impratio = std::max(kMinVal, m.opt.impratio);
      const double mu0 = con.friction[0];
      double scale = 1;
      if (type == kCnstrContactPyramidal) {
        scale = 2 * mu0 * mu0 / impratio;
      } else {
        const int j = i - con.efc_address;
        if (j > 0) scale = mu0 * mu0 / (std::max(kMinVal, con.friction[j - 1] * con.friction[j - 1]) * impratio);
      }
      d.efc_R[i] *= scale;
      d.efc_diagApprox[i] = d.efc_R[i] * imp / (1 - imp);
    }
  }
  // elliptic cones: friction of the regularized cone (diagApprox of the friction rows was set by
  // contact_rows so that R_1 = R_0/impratio and R_j friction_j^2 = R_1 friction_1^2)
  for (int i = 0; i < d.nefc; ++i) {
    if (d.efc_type[i] != kCnstrContactElliptic) continue;
    Contact& con = d.contact[d.efc_id[i]];
    con.mu = con.friction[0] * std::sqrt(d.efc_R[i + 1] / d.efc_R[i]);
    i += con.dim - 1;
  }
  for (int i = 0; i < d.nefc; ++i) d.efc_D[i] = 1 / d.efc_R[i];
}

}  // namespace moreau::constraint

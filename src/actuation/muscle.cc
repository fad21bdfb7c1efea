// Muscle model (MJCF <muscle>; modeling chapter "Muscles"): normalized length L and velocity V in
// optimal-length units, active force-length curve FL (two quadratic pieces on each side of the
// optimum L=1, zero outside [lmin, lmax]), force-velocity curve FV (quadratic from V=-1 to 0, then
// saturating at fvmax), passive force-length FP (quadratic from L=1 to the midpoint b=(1+lmax)/2,
// reaching fpmax/2 there, then linear with the same slope). Force = -F0 (FL FV act + FP). Activation dynamics: a first-order filter whose time
// constant depends on whether the muscle is activating or deactivating and on the activation.
//
// prm layout (gainprm/biasprm): range[0], range[1], force, scale, lmin, lmax, vmax, fpmax, fvmax.
#include "actuation/muscle.h"

#include <algorithm>

#include "engine/checks.h"
#include "moreau/actuation.h"

namespace moreau {

double muscle_fl(double L, double lmin, double lmax) { return muscle_detail::fl(L, lmin, lmax); }

double muscle_fv(double V, double fvmax) { return muscle_detail::fv(V, fvmax); }

double muscle_fp(double L, double lmax, double fpmax) { return muscle_detail::fp(L, lmax, fpmax); }

double muscle_gain(double len, double vel, const double lengthrange[2], double acc0, const double prm[]) {
  internal::check_ptr(lengthrange, "muscle_gain", "lengthrange");
  internal::check_ptr(prm, "muscle_gain", "prm");
  return muscle_detail::gain(len, vel, lengthrange, acc0, prm);
}

// d gain / d vel: the slope of FV (2(V+1) on the rising quadratic, 2(c-V)/c on the saturating one,
// 0 outside) times dV/dvel = 1/(L0 vmax). The bias (passive force-length) has no velocity term.
double muscle_gain_vel(double len, double vel, const double lengthrange[2], double acc0, const double prm[]) {
  internal::check_ptr(lengthrange, "muscle_gain_vel", "lengthrange");
  internal::check_ptr(prm, "muscle_gain_vel", "prm");
  double L0, F0;
  muscle_detail::scales(lengthrange, acc0, prm, &L0, &F0);
  const double L = prm[0] + (len - lengthrange[0]) / std::max(kMinVal, L0);
  const double scale = 1 / std::max(kMinVal, L0 * prm[6]);
  const double V = vel * scale;
  const double c = prm[8] - 1;
  double dfv = 0;
  if (V > -1 && V <= 0)
    dfv = 2 * (V + 1);
  else if (V > 0 && V <= c)
    dfv = 2 * (c - V) / c;
  return -F0 * muscle_detail::fl(L, prm[4], prm[5]) * dfv * scale;
}

double muscle_bias(double len, const double lengthrange[2], double acc0, const double prm[]) {
  internal::check_ptr(lengthrange, "muscle_bias", "lengthrange");
  internal::check_ptr(prm, "muscle_bias", "prm");
  return muscle_detail::bias(len, lengthrange, acc0, prm);
}

double muscle_dynamics(double ctrl, double act, const double prm[]) {
  internal::check_ptr(prm, "muscle_dynamics", "prm");
  return muscle_detail::dynamics(ctrl, act, prm);
}

}  // namespace moreau

// Muscle model (MJCF <muscle>; modeling chapter "Muscles"): normalized length L and velocity V in
// optimal-length units, active force-length curve FL (two quadratic pieces on each side of the
// optimum L=1, zero outside [lmin, lmax]), force-velocity curve FV (quadratic from V=-1 to 0, then
// saturating at fvmax), passive force-length FP (quadratic from L=1 to the midpoint b=(1+lmax)/2,
// reaching fpmax/2 there, then linear with the same slope). Force = -F0 (FL FV act + FP). Activation dynamics: a first-order filter whose time
// constant depends on whether the muscle is activating or deactivating and on the activation.
//
// prm layout (gainprm/biasprm): range[0], range[1], force, scale, lmin, lmax, vmax, fpmax, fvmax.
#include <algorithm>
#include <cmath>

#include "engine/checks.h"
#include "moreau/actuation.h"

namespace moreau {

double muscle_fl(double L, double lmin, double lmax) {
  const double a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax);
  if (L <= lmin || L >= lmax) return 0;
  if (L < a) {
    const double x = (L - lmin) / (a - lmin);
    return 0.5 * x * x;
  }
  if (L <= 1) {
    const double x = (1 - L) / (1 - a);
    return 1 - 0.5 * x * x;
  }
  if (L <= b) {
    const double x = (L - 1) / (b - 1);
    return 1 - 0.5 * x * x;
  }
  const double x = (lmax - L) / (lmax - b);
  return 0.5 * x * x;
}

double muscle_fv(double V, double fvmax) {
  const double c = fvmax - 1;
  if (V <= -1) return 0;
  if (V <= 0) return (V + 1) * (V + 1);
  if (V <= c) return fvmax - (c - V) * (c - V) / c;
  return fvmax;
}

double muscle_fp(double L, double lmax, double fpmax) {
  const double b = 0.5 * (1 + lmax);
  if (L <= 1) return 0;
  if (L <= b) {
    const double x = (L - 1) / (b - 1);
    return 0.5 * fpmax * x * x;
  }
  const double x = (L - b) / (b - 1);
  return fpmax * (0.5 + x);
}

namespace {
// Optimal length L0 (actuator length units per normalized unit) and peak force F0.
inline void muscle_scales(const double lengthrange[2], double acc0, const double prm[], double* L0,
                          double* F0) {
  *L0 = (lengthrange[1] - lengthrange[0]) / std::max(kMinVal, prm[1] - prm[0]);
  // force < 0: peak force from scale / acc0 (acc0: acceleration from unit actuator force at qpos0).
  *F0 = prm[2] < 0 ? prm[3] / std::max(kMinVal, acc0) : prm[2];
}
}  // namespace

double muscle_gain(double len, double vel, const double lengthrange[2], double acc0, const double prm[]) {
  internal::check_ptr(lengthrange, "muscle_gain", "lengthrange");
  internal::check_ptr(prm, "muscle_gain", "prm");
  double L0, F0;
  muscle_scales(lengthrange, acc0, prm, &L0, &F0);
  const double L = prm[0] + (len - lengthrange[0]) / std::max(kMinVal, L0);
  const double V = vel / std::max(kMinVal, L0 * prm[6]);
  return -F0 * muscle_fl(L, prm[4], prm[5]) * muscle_fv(V, prm[8]);
}

// d gain / d vel: the slope of FV (2(V+1) on the rising quadratic, 2(c-V)/c on the saturating one,
// 0 outside) times dV/dvel = 1/(L0 vmax). The bias (passive force-length) has no velocity term.
double muscle_gain_vel(double len, double vel, const double lengthrange[2], double acc0, const double prm[]) {
  internal::check_ptr(lengthrange, "muscle_gain_vel", "lengthrange");
  internal::check_ptr(prm, "muscle_gain_vel", "prm");
  double L0, F0;
  muscle_scales(lengthrange, acc0, prm, &L0, &F0);
  const double L = prm[0] + (len - lengthrange[0]) / std::max(kMinVal, L0);
  const double scale = 1 / std::max(kMinVal, L0 * prm[6]);
  const double V = vel * scale;
  const double c = prm[8] - 1;
  double dfv = 0;
  if (V > -1 && V <= 0)
    dfv = 2 * (V + 1);
  else if (V > 0 && V <= c)
    dfv = 2 * (c - V) / c;
  return -F0 * muscle_fl(L, prm[4], prm[5]) * dfv * scale;
}

double muscle_bias(double len, const double lengthrange[2], double acc0, const double prm[]) {
  internal::check_ptr(lengthrange, "muscle_bias", "lengthrange");
  internal::check_ptr(prm, "muscle_bias", "prm");
  double L0, F0;
  muscle_scales(lengthrange, acc0, prm, &L0, &F0);
  const double L = prm[0] + (len - lengthrange[0]) / std::max(kMinVal, L0);
  return -F0 * muscle_fp(L, prm[5], prm[7]);
}

double muscle_dynamics(double ctrl, double act, const double prm[]) {
  internal::check_ptr(prm, "muscle_dynamics", "prm");
  // The time constants use the activation clamped to [0, 1]; the rate uses the actual activation
  // (so an activation pushed outside [0, 1] returns to it).
  const double u = std::clamp(ctrl, 0.0, 1.0);
  const double a = std::clamp(act, 0.0, 1.0);
  const double tau_act = prm[0] * (0.5 + 1.5 * a);
  const double tau_deact = prm[1] / (0.5 + 1.5 * a);
  const double smooth = prm[2];  // tausmooth (newer than 2.2.2; 0 there): blend the two constants
  double tau;
  if (smooth < kMinVal) {
    tau = u - act > 0 ? tau_act : tau_deact;
  } else {
    // Quintic smoothstep of (u - a) over [-smooth/2, smooth/2].
    double x = std::clamp((u - act) / smooth + 0.5, 0.0, 1.0);
    const double s = x * x * x * (x * (6 * x - 15) + 10);
    tau = tau_deact + (tau_act - tau_deact) * s;
  }
  return (u - act) / std::max(kMinVal, tau);
}

}  // namespace moreau

// The muscle model's curves as inline functions without argument checks, for the actuation stage's
// loop; moreau::muscle_* (muscle.cc, the public API) check their arguments and call these. The
// formulas are in muscle.cc's header comment.
#pragma once

#include <algorithm>

#include "moreau/model.h"

namespace moreau::muscle_detail {

inline double fl(double L, double lmin, double lmax) {
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

inline double fv(double V, double fvmax) {
  const double c = fvmax - 1;
  if (V <= -1) return 0;
  if (V <= 0) return (V + 1) * (V + 1);
  if (V <= c) return fvmax - (c - V) * (c - V) / c;
  return fvmax;
}

inline double fp(double L, double lmax, double fpmax) {
  const double b = 0.5 * (1 + lmax);
  if (L <= 1) return 0;
  if (L <= b) {
    const double x = (L - 1) / (b - 1);
    return 0.5 * fpmax * x * x;
  }
  const double x = (L - b) / (b - 1);
  return fpmax * (0.5 + x);
}

// Optimal length L0 (actuator length units per normalized unit) and peak force F0.
inline void scales(const double lengthrange[2], double acc0, const double prm[], double* L0, double* F0) {
  *L0 = (lengthrange[1] - lengthrange[0]) / std::max(kMinVal, prm[1] - prm[0]);
  // force < 0: peak force from scale / acc0 (acc0: acceleration from unit actuator force at qpos0).
  *F0 = prm[2] < 0 ? prm[3] / std::max(kMinVal, acc0) : prm[2];
}

inline double gain(double len, double vel, const double lengthrange[2], double acc0, const double prm[]) {
  double L0, F0;
  scales(lengthrange, acc0, prm, &L0, &F0);
  const double L = prm[0] + (len - lengthrange[0]) / std::max(kMinVal, L0);
  const double V = vel / std::max(kMinVal, L0 * prm[6]);
  return -F0 * fl(L, prm[4], prm[5]) * fv(V, prm[8]);
}

inline double bias(double len, const double lengthrange[2], double acc0, const double prm[]) {
  double L0, F0;
  scales(lengthrange, acc0, prm, &L0, &F0);
  const double L = prm[0] + (len - lengthrange[0]) / std::max(kMinVal, L0);
  return -F0 * fp(L, prm[5], prm[7]);
}

inline double dynamics(double ctrl, double act, const double prm[]) {
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

}  // namespace moreau::muscle_detail

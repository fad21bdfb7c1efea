// Derivatives of sensordata with respect to the state and the controls (C and D of
// transition_derivatives), analytic per sensor type, centred differences of forward for the rest.
#pragma once

#include <string>
#include <vector>

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Null when the derivative of sensor s is analytic, else the name of what is not covered (a string
// literal, e.g. "touch sensor").
const char* sensor_deriv_unsupported(const Model& m, int s);

// d qacc / d (qpos tangent, qvel, act, ctrl), col-major: column k of each at k*nv.
struct QaccDeriv {
  const double *q, *v, *act, *u;
};

// Whether a covered sensor of the model reads qacc (accelerometer, framelinacc, frameangacc): then
// sensor_derivatives needs the derivatives of qacc.
bool sensors_need_qacc(const Model& m);

// C = d sensordata / d (qpos tangent, qvel, act) (nsensordata x (2nv+na)) and D = d sensordata / d ctrl
// (nsensordata x nu), row-major, either may be null, at the state of d (this runs forward first);
// qa: the derivatives of qacc at the state (needed when sensors_need_qacc).
// The rows of uncovered sensors come from centred differences of forward (eps 1e-6, one-sided for a
// control at the edge of its range) and a warning naming the sensor type is printed once per process.
// On return d holds the caller's state (bitwise) and, when the model has sensordata, forward's
// results there.
void sensor_derivatives(const Model& m, Data& d, double* C, double* D, const QaccDeriv* qa);

// One line per uncovered sensor type of the model (for derivative_fallbacks).
void sensor_fallbacks(const Model& m, std::vector<std::string>& out);

}  // namespace moreau::internal

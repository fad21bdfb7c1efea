// Derivatives of sensordata with respect to the state and the controls (C and D of
// transition_derivatives), analytic per sensor type, centred differences of forward for the rest.
#pragma once

#include <string>
#include <vector>

#include "moreau/data.h"
#include "moreau/model.h"

namespace moreau::internal {

// Null when the derivative of sensor s is analytic (for the sensors that read the constraint
// forces: when their derivative is available, see sensor_deriv_unsupported_at), else the name of
// what is not covered (a string literal, e.g. "user sensor").
const char* sensor_deriv_unsupported(const Model& m, int s);

// The same at the state of d (after forward): touch, force, torque, jointlimitfrc and
// tendonlimitfrc also fall back where constraint rows are present and their forces' derivative is
// not (force_ok false: noslip, or a column of d qacc by differences), force and torque where a
// connect or weld constraint is active.
const char* sensor_deriv_unsupported_at(const Model& m, const Data& d, int s, bool force_ok);

// d qacc / d (qpos tangent, qvel, act, ctrl), col-major: column k of each at k*nv; force: d efc_force
// along the same columns (nefc x (2nv + na + nu), col-major, column c at c*nefc), null where not
// analytic (force_ok false) or nefc = 0.
struct QaccDeriv {
  const double *q, *v, *act, *u;
  const double* force = nullptr;
  bool force_ok = false;
};

// Whether a covered sensor of the model reads qacc or the constraint forces (accelerometer,
// framelinacc, frameangacc, touch, force, torque, jointlimitfrc, tendonlimitfrc): then
// sensor_derivatives needs the derivatives of forward dynamics.
bool sensors_need_forward(const Model& m);

// C = d sensordata / d (qpos tangent, qvel, act) (nsensordata x (2nv+na)) and D = d sensordata / d ctrl
// (nsensordata x nu), row-major, either may be null, at the state of d (this runs forward first);
// qa: the derivatives of forward dynamics at the state (needed when sensors_need_forward).
// The rows of uncovered sensors come from centred differences of forward (eps 1e-6, one-sided for a
// control at the edge of its range) and a warning naming the sensor type is printed once per process.
// On return d holds the caller's state (bitwise) and, when the model has sensordata, forward's
// results there.
void sensor_derivatives(const Model& m, Data& d, double* C, double* D, const QaccDeriv* qa);

// One line per uncovered sensor type of the model at the state of d (after forward; for
// derivative_fallbacks).
void sensor_fallbacks(const Model& m, const Data& d, bool force_ok, std::vector<std::string>& out);

}  // namespace moreau::internal

// Internal helpers shared by the sensor stages.
#pragma once

#include "moreau/actuation.h"

namespace moreau::sensor_detail {

// Stage at which a sensor type is computed (computation chapter, "Simulation pipeline").
int sensor_stage(const Model& m, int s);
// Cutoff and (if enabled) noise for sensor s, applied to its values in sensordata.
void finish_sensor(const Model& m, Data& d, int s);
// The user sensors of `stage`: Data::sensor_callback fills them (when the model has some and the
// callback is set), then cutoff and noise as for the others.
void user_sensors(const Model& m, Data& d, int stage);
// Position, rotation matrix and body of a frame sensor's object (body: inertial frame; xbody:
// body frame; geom; site; camera). Returns false for unsupported object types.
bool object_frame(const Model& m, const Data& d, int objtype, int objid, const double** pos,
                  const double** mat, int* body);
// Constraint row of the limit of joint/tendon `id` (efc_type 3 joint limit, 4 tendon limit, as
// MuJoCo's mjtConstraint), or -1 when the limit is not active.
int limit_row(const Data& d, int efc_type, int id);
// Normal force of a contact from efc_force (the sum of the edges for pyramidal cones).
double contact_normal_force(const Data& d, const Contact& con);
// Whether contact c enters the touch sensor of `site` (its body's contacts with a positive normal
// force whose normal ray meets the site's volume).
bool touch_counts(const Model& m, const Data& d, int site, int c);
// Velocity of the point p moving with body b, 6D [angular; linear] in the world frame.
void point_velocity(const Model& m, const Data& d, int b, const double p[3], double res[6]);
// Acceleration of the point p moving with body b [angular; linear] (classical, from cacc).
void point_acceleration(const Model& m, const Data& d, int b, const double p[3], double res[6]);

// efc types: moreau::kCnstr* (data.h), values as MuJoCo mjtConstraint.

}  // namespace moreau::sensor_detail

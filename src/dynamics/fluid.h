// Fluid forces (src/dynamics/fluid.cc): adds the medium's forces (opt.density, opt.viscosity,
// opt.wind; geom_fluid for the ellipsoid model) into d.qfrc_passive. Needs the velocity stage up to
// com_vel (cvel, xipos, ximat, subtree_com). No allocation.
#pragma once

#include "moreau/moreau.h"

namespace moreau {
void fluid_forces(const Model& m, Data& d);
// Semi-axes r[3] of the ellipsoid that stands for a geom of the given type and size in the
// ellipsoid fluid model: sphere (s, s, s), capsule (s0, s0, s1 + s0), cylinder (s0, s0, s1), box,
// ellipsoid and mesh (s0, s1, s2) (measured against MuJoCo 2.2.2's geom_fluid).
void fluid_semiaxes(int type, const double* size, double* r);
// Virtual (added) mass and moments of inertia of the ellipsoid with semi-axes r, per unit fluid
// density, in its own frame: geom_fluid[6..8] and [9..11] (src/compiler/fluid_coef.cc).
void fluid_virtual_inertia(const double* r, double* virtual_mass, double* virtual_inertia);
// True if one of body b's geoms uses the ellipsoid model (geom_fluid[0] > 0): the body then gets
// that model for those geoms and no inertia-box forces.
bool fluid_ellipsoid_body(const Model& m, int b);
// Half-sizes r[3] of body b's equivalent inertia box (inertia-box model; body mass >= kMinVal):
// r_x = sqrt(3/(2m) (I_y + I_z - I_x)) and cyclic.
void fluid_box_halfsizes(const Model& m, int b, double* r);
// Angular velocity wl and linear velocity vl (relative to the medium, opt.wind) of the point `pos`
// of body b, in the frame R (3x3, columns the frame's axes in world: vl = R' v).
void fluid_local_velocity(const Model& m, const Data& d, int b, const double* pos, const double* R, double* wl,
                          double* vl);
// Jacobian of the ellipsoid model's local wrench on geom `geom` (torque g, force f, geom frame) with
// respect to its local velocity (w, v): H[6 i + j] = d(g, f)_i / d(w, v)_j, row-major 6x6. Exact:
// forward-mode differentiation (math/dual.h) of the very function fluid_forces evaluates.
void ellipsoid_fluid_jacobian(const Model& m, int geom, const double* w, const double* v, double* H);
// The ellipsoid model's local wrench itself: torque g and force f (geom frame) at the local velocity
// (w, v), as fluid_forces computes it.
void ellipsoid_fluid_wrench(const Model& m, int geom, const double* w, const double* v, double* g, double* f);
}  // namespace moreau

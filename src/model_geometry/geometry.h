// Geometry of model elements as MJCF describes them, needed both while parsing (mjcf/: frames
// and composites place and weigh elements) and while compiling (compiler/): the frame a fromto
// segment gives, the minimal rotation to a z axis, the mass properties of a primitive geom.
//
// Layering: model_geometry/ sits below mjcf/ and compiler/. It takes plain numbers and includes
// only math/ and the public model constants, never mjcf/ or compiler/; errors come back as
// messages for the caller to report with its element's file and line.
#pragma once

namespace moreau::geometry {

// The minimal rotation taking (0, 0, 1) to z (normalized by division first); z = -(0, 0, 1)
// turns by pi about x, as MuJoCo's zaxis.
void zaxis_to_quat(const double z[3], double quat[4]);

// The frame of a fromto segment (ft = from, to): origin at its midpoint, z axis pointing from
// `to` to `from` (as MuJoCo's fromto), halflen half its length.
void fromto_frame(const double ft[6], double pos[3], double quat[4], double& halflen);

// The frame and size that a geom's fromto gives it: size[1] = half length for capsules and
// cylinders; size[1] = size[0] and size[2] = half length for boxes and ellipsoids (2.2.2 uses the
// first size for both cross-section half sizes). Returns nullptr, or the error message for types
// without a fromto or coincident end points (then pos, quat and size are unspecified).
const char* geom_fromto(int type, const double ft[6], double pos[3], double quat[4], double size[3]);
// The same for a site (any type; no error): size[1] for capsules and cylinders, else size[2].
void site_fromto(int type, const double ft[6], double pos[3], double quat[4], double size[3]);

// Mass and principal inertia (about the geom's center, in its axes) of one geom from its type,
// size and density, or from its mass when mass_set (the density then follows from the volume).
// Meshes take mesh_volume and mesh_inertia (principal moments at unit density); other types
// ignore them. Types without volume (plane, height field) get the given mass and no inertia.
struct MassProperties {
  double mass = 0;
  double inertia[3] = {0, 0, 0};
};
MassProperties geom_mass(int type, const double size[3], bool mass_set, double mass, double density,
                         double mesh_volume = 0, const double* mesh_inertia = nullptr);

}  // namespace moreau::geometry

// Pieces of the compiler shared between its files: geom mass properties, principal axes,
// compiled meshes.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "mjcf/spec.h"
#include "moreau/model.h"

namespace moreau::compiler {

// A compiled mesh: vertices in the mesh's inertial frame (com at the origin, principal axes),
// and that frame's pose in the coordinates of the file (after scale/refpos/refquat).
struct MeshInfo {
  std::vector<double> vert;
  std::vector<int> face;
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  double volume = 0;
  double inertia[3] = {0, 0, 0};  // principal moments for unit density
  double aamm_half[3] = {0, 0, 0};  // half sizes of the axis-aligned box in the inertial frame
  double rbound = 0;
  bool faces_from_hull = false;  // no faces were given: they are the convex hull's
  std::vector<double> src_vert;  // the vertices as read (before refpos/refquat/scale)
  std::vector<float> raw_vert;   // the same in single precision, for the hull graph
};
MeshInfo load_mesh(const mjcf::MeshSpec& ms, const mjcf::Spec& spec);

// A height field's samples, normalized to [0, 1], row 0 first (at -y), from its file (PNG or
// 2.2.2's binary format, found like mesh files: compiler/meshdir) or its attributes.
struct HFieldInfo {
  int nrow = 0, ncol = 0;
  std::vector<float> data;
};
HFieldInfo load_hfield(const mjcf::HFieldSpec& hs, const mjcf::Spec& spec);

// The texture fields of `m` (all but tex_names) from spec.textures: the description of each and
// its pixels (texture.cc).
void compile_textures(const mjcf::Spec& spec, Model& m);

// Mass properties of one geom in its own frame.
struct GeomMass {
  const mjcf::Node* src = nullptr;
  int type = 0;
  std::array<double, 3> pos{};
  std::array<double, 4> quat{1, 0, 0, 0};
  double mass = 0;
  double inertia[3] = {0, 0, 0};
};

// Principal moments (descending) and the rotation to the principal frame (quat) of the
// symmetric inertia (xx, yy, zz, xy, xz, yz). False if not positive semi-definite.
bool principal_axes(const double full[6], double inertia[3], double quat[4]);

}  // namespace moreau::compiler

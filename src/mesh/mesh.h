// Triangle meshes: reading mesh files (STL binary/ASCII, OBJ, MuJoCo MSH), convex hulls, and
// mass properties. Reusable by the compiler (inertia) and collision (vertices, hulls).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace moreau::mesh {

struct TriMesh {
  std::vector<double> vert;  // 3 per vertex
  std::vector<int> face;     // 3 per triangle, counter-clockwise seen from outside
};

// Reads a mesh file; the format is chosen by the extension (.stl, .obj, .msh, any case).
// Throws std::runtime_error with a message that says what is wrong.
TriMesh read_mesh_file(const std::string& path);

// Triangles of the convex hull of the points (outward, counter-clockwise), as qhull lists them
// (the face part of hull_graph). Throws std::runtime_error when the points span no volume.
std::vector<int> convex_hull(const std::vector<double>& vert);

// The convex hull of a mesh's vertices as the graph that collision detection walks, in MuJoCo
// 2.2.2's mesh_graph layout (established by comparing with 2.2.2's compiled models):
//   numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
//   edge_localid[numvert + 3*numface], face_globalid[3*numface].
// Hull vertices are numbered locally (0..numvert-1) in qhull's vertex-list order; vert_globalid
// maps them to mesh vertex indices; edge_localid holds, from vert_edgeadr[i], the local ids of
// the hull neighbours of vertex i followed by -1; face_globalid the hull triangles (mesh vertex
// indices, counter-clockwise seen from outside). Computed with qhull (option Qt: triangulated).
// Throws std::runtime_error when qhull fails (fewer than 4 points, no volume).
std::vector<int> hull_graph(const float* vert, int nvert);

// Volume, center of mass and inertia about the center of mass (xx, yy, zz, xy, xz, yz) of the
// solid bounded by a closed, consistently oriented triangle mesh, for unit density (signed
// tetrahedra from the origin, exact for any closed mesh).
struct MassProperties {
  double volume = 0;
  double com[3] = {0, 0, 0};
  double inertia[6] = {0, 0, 0, 0, 0, 0};
};
MassProperties mass_properties(const TriMesh& mesh);

// MuJoCo 2.2.2's mesh mass properties (exactmeshinertia="false", its default), for any mesh,
// convex or not, closed or not, whatever the winding:
//   1. reference point c = area-weighted mean of the triangle centroids;
//   2. com = mean of the centroids of the tetrahedra (c, triangle), weighted by their ABSOLUTE
//      volumes;
//   3. volume and second moments from the tetrahedra (com, triangle), again with absolute
//      volumes, and the inertia taken about com as is (no parallel-axis correction for the
//      centroid of these second-pass tetrahedra, which differs from com for non-convex meshes).
// For a convex mesh every tetrahedron is positive and this equals mass_properties(). The
// box-equivalent step that 2.2.2 applies afterwards is the compiler's (see mesh_compile.cc).
MassProperties legacy_mass_properties(const TriMesh& mesh);

// Lower-case extension of a file name ("a/b.STL" -> "stl"); empty if none.
std::string file_extension(const std::string& path);
// The whole file as bytes; throws std::runtime_error "cannot open <what> file '<path>'".
std::string read_file(const std::string& path, const std::string& what);

}  // namespace moreau::mesh

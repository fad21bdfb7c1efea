// Mesh assets -> MeshInfo: vertices from a file or the XML, scale and reference frame, the
// convex hull when no faces are given, and the mass properties as MuJoCo 2.2.2 defines them.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "compiler/compile_internal.h"
#include "math/vec.h"
#include "mesh/hfield.h"
#include "mesh/mesh.h"

namespace moreau::compiler {

using namespace moreau::math;

namespace {
std::string dir_of(const std::string& path) {
  const auto p = path.find_last_of('/');
  return p == std::string::npos ? std::string() : path.substr(0, p + 1);
}

// Asset file path as 2.2.2 resolves mesh and height field files: strippath, then compiler/meshdir
// (absolute, or relative to the model file's directory) unless the file name is absolute.
std::string asset_path(std::string file, const mjcf::Spec& spec) {
  if (spec.compiler.strippath) {
    const auto p = file.find_last_of('/');
    if (p != std::string::npos) file = file.substr(p + 1);
  }
  if (!file.empty() && file[0] == '/') return file;
  std::string dir = spec.compiler.meshdir;
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return (dir.size() && dir[0] == '/') ? dir + file : dir_of(spec.file) + dir + file;
}
}  // namespace

HFieldInfo load_hfield(const mjcf::HFieldSpec& h, const mjcf::Spec& spec) {
  HFieldInfo hi;
  std::vector<double> raw;
  if (!h.file.empty()) {
    // 2.2.2: "specified from file and manually" is an error
    if (h.nrow || h.ncol || !h.elevation.empty())
      mjcf::fail(h.src, "height field given both by 'file' and by 'nrow'/'ncol'/'elevation'");
    try {
      mesh::HeightField f = mesh::read_hfield_file(asset_path(h.file, spec));
      hi.nrow = f.nrow;
      hi.ncol = f.ncol;
      raw = std::move(f.data);
    } catch (const std::exception& e) {
      mjcf::fail(h.src, e.what());
    }
  } else {
    if (h.nrow < 1 || h.ncol < 1) mjcf::fail(h.src, "attributes 'nrow' and 'ncol' must be positive");
    if (static_cast<long long>(h.nrow) * h.ncol > 100000000) mjcf::fail(h.src, "height field has more than 1e8 samples");
    hi.nrow = h.nrow;
    hi.ncol = h.ncol;
    const int n = h.nrow * h.ncol;
    if (!h.elevation.empty() && static_cast<int>(h.elevation.size()) != n)
      mjcf::fail(h.src, "attribute 'elevation' expects nrow*ncol = " + std::to_string(n) + " numbers, got " +
                            std::to_string(h.elevation.size()));
    raw.assign(n, 0.0);
    // 'elevation' lists rows top-down (MJCF order); row 0 of the data is the bottom one
    if (!h.elevation.empty())
      for (int r = 0; r < h.nrow; ++r)
        for (int c = 0; c < h.ncol; ++c) raw[r * h.ncol + c] = h.elevation[(h.nrow - 1 - r) * h.ncol + c];
  }
  // normalized to [0, 1] by the data's own min and max (all zero when flat), stored as float
  double lo = 0, hi_v = 0;
  if (!raw.empty()) {
    lo = *std::min_element(raw.begin(), raw.end());
    hi_v = *std::max_element(raw.begin(), raw.end());
  }
  hi.data.resize(raw.size());
  // in single precision, as 2.2.2 (its hfield_data equals (raw - min) / (max - min) computed in
  // float, bit for bit; the double quotient differs in the last bit for 11 of 63 random samples)
  const float flo = static_cast<float>(lo), frange = static_cast<float>(hi_v) - flo;
  for (size_t i = 0; i < raw.size(); ++i) hi.data[i] = hi_v > lo ? (static_cast<float>(raw[i]) - flo) / frange : 0.0f;
  return hi;
}

MeshInfo load_mesh(const mjcf::MeshSpec& ms, const mjcf::Spec& spec) {
  mesh::TriMesh tm;
  if (!ms.file.empty()) {
    if (!ms.vertex.empty() || !ms.face.empty()) mjcf::fail(ms.src, "give either 'file' or 'vertex'/'face', not both");
    const std::string path = asset_path(ms.file, spec);
    try {
      tm = mesh::read_mesh_file(path);
    } catch (const std::exception& e) {
      mjcf::fail(ms.src, e.what());
    }
  } else {
    if (ms.vertex.empty()) mjcf::fail(ms.src, "mesh needs attribute 'file' or 'vertex'");
    if (ms.vertex.size() % 3) mjcf::fail(ms.src, "attribute 'vertex' expects a multiple of 3 numbers, got " +
                                                     std::to_string(ms.vertex.size()));
    if (ms.face.size() % 3) mjcf::fail(ms.src, "attribute 'face' expects a multiple of 3 numbers, got " +
                                                   std::to_string(ms.face.size()));
    tm.vert = ms.vertex;
    tm.face = ms.face;
    const int nv = static_cast<int>(tm.vert.size() / 3);
    for (int f : tm.face)
      if (f < 0 || f >= nv) mjcf::fail(ms.src, "attribute 'face' has a vertex index out of range");
  }
  if (tm.vert.size() < 12) mjcf::fail(ms.src, "mesh needs at least 4 vertices");
  MeshInfo mi;
  // 2.2.2 computes the convex hull graph from the vertices as read, before refpos/refquat/scale
  // (qhull's vertex and face order depend on the coordinates; established by comparing
  // mesh_graph with 2.2.2's, see compile_mesh_graphs)
  mi.src_vert = tm.vert;
  mi.raw_vert.assign(tm.vert.begin(), tm.vert.end());
  // reference frame (refpos/refquat, in the file's units), then scale; vertices are stored in
  // single precision as in MuJoCo.
  double rq[4];
  copy4(rq, ms.refquat);
  normalize4_div(rq);
  double rqinv[4];
  negquat(rqinv, rq);
  for (size_t i = 0; i < tm.vert.size(); i += 3) {
    double v[3];
    sub3(v, &tm.vert[i], ms.refpos);
    rotvecquat(v, v, rqinv);
    for (int k = 0; k < 3; ++k) tm.vert[i + k] = static_cast<float>(v[k] * ms.scale[k]);
  }
  // a mirroring scale turns the faces inside out
  if (ms.scale[0] * ms.scale[1] * ms.scale[2] < 0)
    for (size_t f = 0; f < tm.face.size(); f += 3) std::swap(tm.face[f + 1], tm.face[f + 2]);
  const bool faces_from_hull = tm.face.empty();
  if (faces_from_hull) {
    // the hull of the vertices as read, as 2.2.2 (its mesh_face then equals ours); a mirroring
    // scale turns these faces inside out too
    try {
      tm.face = mesh::convex_hull(std::vector<double>(mi.raw_vert.begin(), mi.raw_vert.end()));
    } catch (const std::exception& e) {
      mjcf::fail(ms.src, e.what());
    }
    if (ms.scale[0] * ms.scale[1] * ms.scale[2] < 0)
      for (size_t f = 0; f < tm.face.size(); f += 3) std::swap(tm.face[f + 1], tm.face[f + 2]);
  }
  // MuJoCo 2.2.2's default (legacy) mesh mass properties: absolute-volume tetrahedra, for convex
  // and non-convex meshes alike (the rule and how it was established: mesh.h/mesh.cc).
  const mesh::MassProperties mp = mesh::legacy_mass_properties(tm);
  if (mp.volume < 1e-15) mjcf::fail(ms.src, "mesh volume is too small (is the mesh closed?)");
  double I[3];
  if (!principal_axes(mp.inertia, I, mi.quat)) mjcf::fail(ms.src, "mesh inertia is not positive definite");
  copy3(mi.pos, mp.com);
  // MuJoCo 2.2.2 (exactmeshinertia="false"): the mesh's volume and inertia are those of the
  // box with the same principal moments per unit mass (exact for boxes).
  const double V = mp.volume;
  const double a2 = 1.5 * (I[1] + I[2] - I[0]) / V, b2 = 1.5 * (I[0] + I[2] - I[1]) / V,
               c2 = 1.5 * (I[0] + I[1] - I[2]) / V;
  if (a2 <= 0 || b2 <= 0 || c2 <= 0) mjcf::fail(ms.src, "mesh inertia violates the triangle inequality");
  mi.volume = 8 * std::sqrt(a2 * b2 * c2);
  for (int k = 0; k < 3; ++k) mi.inertia[k] = I[k] * mi.volume / V;
  // vertices in the inertial frame
  double qinv[4];
  negquat(qinv, mi.quat);
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  mi.vert.resize(tm.vert.size());
  for (size_t i = 0; i < tm.vert.size(); i += 3) {
    double v[3];
    sub3(v, &tm.vert[i], mp.com);
    rotvecquat(v, v, qinv);
    for (int k = 0; k < 3; ++k) {
      mi.vert[i + k] = v[k];
      lo[k] = std::min(lo[k], v[k]);
      hi[k] = std::max(hi[k], v[k]);
    }
  }
  for (int k = 0; k < 3; ++k) mi.aamm_half[k] = std::max(std::fabs(lo[k]), std::fabs(hi[k]));
  mi.rbound = norm3(mi.aamm_half);  // 2.2.2: the bounding sphere of that box
  mi.face = tm.face;
  mi.faces_from_hull = faces_from_hull;
  return mi;
}

}  // namespace moreau::compiler

#include "mesh/mesh.h"

#include "io/assets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace moreau::mesh {

namespace {


// STL stores every triangle's corners; identical corners are merged into one vertex.
struct VertexMerger {
  std::map<std::tuple<float, float, float>, int> index;
  TriMesh* m;
  int add(float x, float y, float z) {
    auto [it, inserted] = index.emplace(std::make_tuple(x, y, z), static_cast<int>(m->vert.size() / 3));
    if (inserted) {
      m->vert.push_back(x);
      m->vert.push_back(y);
      m->vert.push_back(z);
    }
    return it->second;
  }
};

TriMesh read_stl(const std::string& path) {
  const std::string data = read_file(path, "mesh");
  TriMesh m;
  VertexMerger vm{{}, &m};
  // Binary: 80-byte header, uint32 count, 50 bytes per triangle. ASCII files start with "solid"
  // but some binary files do too, so the size decides.
  if (data.size() >= 84) {
    uint32_t n;
    std::memcpy(&n, data.data() + 80, 4);
    if (data.size() == 84 + 50ull * n) {
      for (uint32_t t = 0; t < n; ++t) {
        const char* p = data.data() + 84 + 50ull * t + 12;
        int idx[3];
        for (int k = 0; k < 3; ++k) {
          float v[3];
          std::memcpy(v, p + 12 * k, 12);
          for (float x : v)
            if (!std::isfinite(x)) throw std::runtime_error("STL file '" + path + "' has a non-finite vertex");
          idx[k] = vm.add(v[0], v[1], v[2]);
        }
        if (idx[0] != idx[1] && idx[1] != idx[2] && idx[0] != idx[2])
          for (int k : idx) m.face.push_back(k);
      }
      return m;
    }
  }
  std::istringstream in(data);
  std::string word;
  if (!(in >> word) || word != "solid") throw std::runtime_error("'" + path + "' is neither binary nor ASCII STL");
  std::vector<int> corner;
  while (in >> word) {
    if (word == "vertex") {
      float v[3];
      if (!(in >> v[0] >> v[1] >> v[2])) throw std::runtime_error("ASCII STL '" + path + "': bad vertex");
      corner.push_back(vm.add(v[0], v[1], v[2]));
    } else if (word == "endfacet") {
      if (corner.size() != 3) throw std::runtime_error("ASCII STL '" + path + "': facet without 3 vertices");
      if (corner[0] != corner[1] && corner[1] != corner[2] && corner[0] != corner[2])
        for (int k : corner) m.face.push_back(k);
      corner.clear();
    }
  }
  if (m.face.empty()) throw std::runtime_error("ASCII STL '" + path + "' has no facets");
  return m;
}

TriMesh read_obj(const std::string& path) {
  std::istringstream in(read_file(path, "mesh"));
  TriMesh m;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string tag;
    if (!(ls >> tag)) continue;
    if (tag == "v") {
      double x, y, z;
      if (!(ls >> x >> y >> z))
        throw std::runtime_error("OBJ '" + path + "' line " + std::to_string(lineno) + ": bad vertex");
      m.vert.insert(m.vert.end(), {x, y, z});
    } else if (tag == "f") {
      std::vector<int> poly;
      std::string tok;
      const int nv = static_cast<int>(m.vert.size() / 3);
      while (ls >> tok) {
        int i = std::atoi(tok.c_str());  // "i", "i/t", "i/t/n", "i//n"
        if (i < 0) i = nv + i + 1;       // negative indices count from the end
        if (i < 1 || i > nv)
          throw std::runtime_error("OBJ '" + path + "' line " + std::to_string(lineno) + ": face index out of range");
        poly.push_back(i - 1);
      }
      if (poly.size() < 3)
        throw std::runtime_error("OBJ '" + path + "' line " + std::to_string(lineno) + ": face with < 3 vertices");
      for (size_t k = 1; k + 1 < poly.size(); ++k) m.face.insert(m.face.end(), {poly[0], poly[k], poly[k + 1]});
    }
  }
  if (m.vert.empty()) throw std::runtime_error("OBJ '" + path + "' has no vertices");
  // As 2.2.2 (stanford_bunny.obj: 2503 'v' lines, 4968 faces -> 14904 vertices, face i = (3i,
  // 3i+1, 3i+2)): a mesh with faces gets one vertex per face corner, in face order. The vertex
  // order matters for the convex hull graph (qhull's output order follows the input).
  if (!m.face.empty()) {
    std::vector<double> corners;
    corners.reserve(3 * m.face.size());
    for (size_t i = 0; i < m.face.size(); ++i) {
      const double* v = &m.vert[3 * static_cast<size_t>(m.face[i])];
      corners.insert(corners.end(), v, v + 3);
      m.face[i] = static_cast<int>(i);
    }
    m.vert.swap(corners);
  }
  return m;
}

// MuJoCo's binary MSH: int32 nvertex, nnormal, ntexcoord, nface; then float32 vertices (3 each),
// normals (3), texcoords (2), int32 faces (3).
TriMesh read_msh(const std::string& path) {
  const std::string d = read_file(path, "mesh");
  if (d.size() < 16) throw std::runtime_error("MSH '" + path + "' is too short");
  int32_t n[4];
  std::memcpy(n, d.data(), 16);
  if (n[0] < 4 || n[1] < 0 || n[2] < 0 || n[3] < 0) throw std::runtime_error("MSH '" + path + "' has a bad header");
  const size_t need = 16 + 4ull * (3ull * n[0] + 3ull * n[1] + 2ull * n[2] + 3ull * n[3]);
  if (d.size() != need) throw std::runtime_error("MSH '" + path + "' has the wrong size for its header");
  TriMesh m;
  const char* p = d.data() + 16;
  for (int i = 0; i < 3 * n[0]; ++i) {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    m.vert.push_back(v);
  }
  p += 4ull * (3ull * n[0] + 3ull * n[1] + 2ull * n[2]);
  for (int i = 0; i < 3 * n[3]; ++i) {
    int32_t f;
    std::memcpy(&f, p + 4 * i, 4);
    if (f < 0 || f >= n[0]) throw std::runtime_error("MSH '" + path + "' has a face index out of range");
    m.face.push_back(f);
  }
  return m;
}

}  // namespace

TriMesh read_mesh_file(const std::string& path) {
  const std::string e = file_extension(path);
  if (e == "stl") return read_stl(path);
  if (e == "obj") return read_obj(path);
  if (e == "msh") return read_msh(path);
  throw std::runtime_error("mesh file '" + path + "' has an unknown format (expected .stl, .obj or .msh)");
}

// ------------------------------------------------------------------------------ mass properties

// The rule of mesh.h, chosen among candidate rules by comparing each with 2.2.2's body_mass,
// body_inertia and body_ipos (measurements: docs/notes/mesh.md). It agrees to single-precision
// round-off except on tiny meshes where 2.2.2's eigensolver stops on an absolute threshold before
// converging: the frame here is the converged one.
MassProperties legacy_mass_properties(const TriMesh& m) {
  const size_t nf = m.face.size() / 3;
  auto corner = [&](size_t f, int k) { return &m.vert[3 * m.face[3 * f + k]]; };
  // 1. area-weighted mean of the triangle centroids
  double c[3] = {0, 0, 0}, area = 0;
  for (size_t f = 0; f < nf; ++f) {
    const double *a = corner(f, 0), *b = corner(f, 1), *d = corner(f, 2);
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    const double ar = 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    area += ar;
    for (int k = 0; k < 3; ++k) c[k] += ar * (a[k] + b[k] + d[k]);
  }
  MassProperties r;
  if (area <= 0) return r;
  for (double& x : c) x /= 3 * area;  // (summing before dividing keeps symmetric meshes exactly centred)
  // |volume| of the tetrahedron (p, a, b, d) with p at the origin of the shifted corners
  auto tet = [](const double* a, const double* b, const double* d) {
    return std::fabs(a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                     a[2] * (b[0] * d[1] - b[1] * d[0])) / 6;
  };
  auto shifted = [&](size_t f, const double* p, double out[3][3]) {
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 3; ++j) out[k][j] = corner(f, k)[j] - p[j];
  };
  // 2. com from the tetrahedra (c, triangle)
  double V1 = 0, fm[3] = {0, 0, 0};
  for (size_t f = 0; f < nf; ++f) {
    double t[3][3];
    shifted(f, c, t);
    const double vol = tet(t[0], t[1], t[2]);
    V1 += vol;
    for (int k = 0; k < 3; ++k) fm[k] += vol * (t[0][k] + t[1][k] + t[2][k]);
  }
  if (V1 <= 0) return r;
  for (int k = 0; k < 3; ++k) r.com[k] = c[k] + fm[k] / (4 * V1);
  // 3. volume and second moments from the tetrahedra (com, triangle), about com
  double V = 0, S[3][3] = {{0}};
  for (size_t f = 0; f < nf; ++f) {
    double t[3][3];
    shifted(f, r.com, t);
    const double vol = tet(t[0], t[1], t[2]);
    V += vol;
    const double *a = t[0], *b = t[1], *d = t[2];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S[i][j] += vol / 20 *
                   (2 * (a[i] * a[j] + b[i] * b[j] + d[i] * d[j]) + a[i] * b[j] + a[j] * b[i] + a[i] * d[j] +
                    a[j] * d[i] + b[i] * d[j] + b[j] * d[i]);
  }
  r.volume = V;
  r.inertia[0] = S[1][1] + S[2][2];
  r.inertia[1] = S[0][0] + S[2][2];
  r.inertia[2] = S[0][0] + S[1][1];
  r.inertia[3] = -S[0][1];
  r.inertia[4] = -S[0][2];
  r.inertia[5] = -S[1][2];
  return r;
}

MassProperties mass_properties(const TriMesh& m) {
  // Signed tetrahedra (origin, a, b, c): volume det/6, first moments, and second moments with
  // the closed form for a tetrahedron with one vertex at the origin.
  MassProperties r;
  double V = 0, c[3] = {0, 0, 0}, S[3][3] = {{0}};
  const size_t nf = m.face.size() / 3;
  for (size_t f = 0; f < nf; ++f) {
    const double* a = &m.vert[3 * m.face[3 * f]];
    const double* b = &m.vert[3 * m.face[3 * f + 1]];
    const double* d = &m.vert[3 * m.face[3 * f + 2]];
    const double det = a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                       a[2] * (b[0] * d[1] - b[1] * d[0]);
    const double vol = det / 6;
    V += vol;
    for (int k = 0; k < 3; ++k) c[k] += vol * (a[k] + b[k] + d[k]) / 4;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S[i][j] += vol / 20 *
                   (2 * (a[i] * a[j] + b[i] * b[j] + d[i] * d[j]) + a[i] * b[j] + a[j] * b[i] + a[i] * d[j] +
                    a[j] * d[i] + b[i] * d[j] + b[j] * d[i]);
  }
  r.volume = V;
  if (std::fabs(V) < 1e-300) return r;
  for (int k = 0; k < 3; ++k) r.com[k] = c[k] / V;
  // second moments about the com
  double C[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C[i][j] = S[i][j] - V * r.com[i] * r.com[j];
  r.inertia[0] = C[1][1] + C[2][2];
  r.inertia[1] = C[0][0] + C[2][2];
  r.inertia[2] = C[0][0] + C[1][1];
  r.inertia[3] = -C[0][1];
  r.inertia[4] = -C[0][2];
  r.inertia[5] = -C[1][2];
  return r;
}

std::string file_extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  std::string e = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// The file's bytes: from the asset map of the load in progress if it has the file, else from disk.
std::string read_file(const std::string& path, const std::string& what) {
  if (const std::string* asset = io::find_asset(path)) return *asset;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + what + " file '" + path + "'" + io::asset_note());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace moreau::mesh

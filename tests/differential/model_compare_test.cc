// Loads every model of tests/models_mujoco222.txt with Moreau and with MuJoCo 2.2.2 and compares
// the sizes and the compiled arrays.
//
// Tolerances: 1e-9, relative to max(1, |value|). Quaternions are compared up to sign. Body
// principal inertia frames (body_iquat) are compared through the inertia tensor they imply,
// R(iquat) diag(inertia) R(iquat)^T, together with the moments themselves: where principal
// moments repeat, any rotation within the eigenspace is an equally valid frame, and the tensor
// is what the dynamics use.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "differential/known_differences.h"
#include "differential/model_compare.h"
#include "differential/model_fields.h"
#include "model_list.h"
#include "math/vec.h"
#include "mesh/mesh.h"
#include "moreau/moreau.h"

namespace {

std::vector<std::string> model_list() { return moreau::test_models::entries(); }
std::string resolve(const std::string& entry) { return moreau::test_models::resolve(entry); }

struct Checker {
  int failures = 0;
  std::stringstream log;
  bool close(double a, double b, double tol = 1e-9) {
    return std::fabs(a - b) <= tol * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
  }
  template <class A, class B>
  void ints(const char* name, const A& ours, const B* theirs, size_t n) {
    if (ours.size() != n) {
      report(name, "size " + std::to_string(ours.size()) + " vs " + std::to_string(n));
      return;
    }
    for (size_t i = 0; i < n; ++i)
      if (static_cast<long>(ours[i]) != static_cast<long>(theirs[i])) {
        report(name, "[" + std::to_string(i) + "] " + std::to_string(static_cast<long>(ours[i])) + " vs " +
                         std::to_string(static_cast<long>(theirs[i])));
        return;
      }
  }
  template <class A, class B>
  void reals(const char* name, const A& ours, const B* theirs, size_t n, double tol = 1e-9) {
    if (ours.size() != n) {
      report(name, "size " + std::to_string(ours.size()) + " vs " + std::to_string(n));
      return;
    }
    for (size_t i = 0; i < n; ++i)
      if (!close(ours[i], theirs[i], tol)) {
        std::stringstream s;
        s.precision(12);
        s << "[" << i << "] " << ours[i] << " vs " << theirs[i];
        report(name, s.str());
        return;
      }
  }
  template <class A, class B>
  void quats(const char* name, const A& ours, const B* theirs, size_t count) {
    if (ours.size() != 4 * count) {
      report(name, "size mismatch");
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      bool same = true, neg = true;
      for (int k = 0; k < 4; ++k) {
        same = same && close(ours[4 * i + k], theirs[4 * i + k]);
        neg = neg && close(ours[4 * i + k], -theirs[4 * i + k]);
      }
      if (!same && !neg) {
        std::stringstream s;
        s.precision(10);
        s << "[" << i << "] (" << ours[4 * i] << " " << ours[4 * i + 1] << " " << ours[4 * i + 2] << " "
          << ours[4 * i + 3] << ") vs (" << theirs[4 * i] << " " << theirs[4 * i + 1] << " " << theirs[4 * i + 2]
          << " " << theirs[4 * i + 3] << ")";
        report(name, s.str());
        return;
      }
    }
  }
  void report(const char* name, const std::string& what) {
    ++failures;
    log << "  " << name << ": " << what << "\n";
  }
};

// How compare_compiled checks a field that Model shares with mjModel (model_fields.h). kDefault:
// integers exactly, reals to 1e-9 relative; kQuat: quaternions up to sign; kSkip: not compared by
// the loop over the shared fields (each skipped field says why; those compared by hand below
// are marked so).
enum class FieldCheck { kDefault, kQuat, kSkip };

FieldCheck size_check(std::string_view name) {
  static constexpr std::string_view kSkipped[] = {
      // visual-only meshes may keep duplicate vertices (vertices and faces of colliding meshes are
      // compared by hand)
      "nmeshvert", "nmeshface",
      // by hand, with hfield_data
      "nhfielddata",
      // not compared here: skins, custom data sizes, user camera data, the implicit integrators'
      // sparsity and the memory sizes
      "nskin", "nnumericdata", "ntext", "ntuple", "nuser_cam", "nD", "nconmax",
      "njmax", "nstack", "nuserdata"};
  for (std::string_view s : kSkipped)
    if (s == name) return FieldCheck::kSkip;
  return FieldCheck::kDefault;
}

FieldCheck array_check(std::string_view name) {
  static constexpr std::string_view kQuats[] = {"body_quat", "geom_quat", "site_quat", "cam_quat"};
  static constexpr std::string_view kSkipped[] = {
      // by hand: body_iquat as the inertia tensor it implies, mesh faces of colliding meshes,
      // sensor_type (user sensors), hfield_data (single precision)
      "body_iquat", "mesh_vertadr", "mesh_vertnum", "mesh_faceadr", "mesh_facenum", "mesh_face",
      "sensor_type", "hfield_data",
      // mesh vertices: single precision, in a frame defined up to round-off (checked through the
      // snapped geom frames above)
      "mesh_vert",
      // set_const's values at qpos0 (compared by the dynamics suites through their use)
      "body_subtreemass", "body_invweight0", "dof_invweight0", "dof_M0", "cam_poscom0", "cam_pos0",
      "cam_mat0", "light_poscom0", "light_pos0", "light_dir0", "tendon_length0", "tendon_invweight0",
      "actuator_acc0", "actuator_length0", "actuator_lengthrange",
      // fluid coefficients: closed form here, quadrature in 2.2.2 (Models/Fluid)
      "geom_fluid",
      // texture pixels: by hand (random dots)
      "tex_rgb"};
  for (std::string_view s : kQuats)
    if (s == name) return FieldCheck::kQuat;
  for (std::string_view s : kSkipped)
    if (s == name) return FieldCheck::kSkip;
  return FieldCheck::kDefault;
}

void tensor(const double* quat, const double* diag, double* out) {
  double R[9];
  moreau::math::quat2mat(R, quat);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double v = 0;
      for (int k = 0; k < 3; ++k) v += R[3 * r + k] * diag[k] * R[3 * c + k];
      out[3 * r + c] = v;
    }
}

}  // namespace

// The comparison itself, shared with compiler_flags_test.cc (differential/model_compare.h).
std::string moreau::testing::compare_compiled(moreau::Model& m, const mjModel* mj) {
  Checker c;
  for_each_model_size(m, mj, [&](const char* name, auto ours, auto theirs) {
    if (size_check(name) != FieldCheck::kSkip && ours != theirs)
      c.report(name, std::to_string(ours) + " vs " + std::to_string(theirs));
  });
  if (c.failures) return "sizes differ:\n" + c.log.str();
  const size_t nb = m.nbody, ng = m.ngeom;
  // Meshes: MuJoCo 2.2.2 stores mesh vertices in single precision and derives the mesh frame,
  // volume and inertia from them, so mesh-derived values (mesh geoms' pos/quat/size/rbound, the
  // inertial frame and mass of bodies whose inertia comes from a mesh) agree to ~1e-7 only.
  // A mesh's principal frame is defined up to the signs of its axes (the stored vertices follow
  // the frame, so the shape in the world is the same): quaternions that differ by such a flip
  // are accepted. Where our value agrees within those limits it is snapped to MuJoCo's before
  // the strict comparisons below.
  {
    auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b)); };
    auto snap = [&](std::vector<double>& v, const double* ref, size_t i, int n) {
      bool ok = true;
      for (int k = 0; k < n; ++k) ok = ok && near(v[n * i + k], ref[n * i + k]);
      if (ok)
        for (int k = 0; k < n; ++k) v[n * i + k] = ref[n * i + k];
    };
    auto snap_frame = [&](std::vector<double>& q, const double* ref, size_t i) {
      // accept q = ref * (axis flip): a rotation by pi about x, y or z, or none; up to sign
      const double flips[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
      for (const auto& f : flips) {
        double r[4];
        moreau::math::mulquat(r, ref + 4 * i, f);
        bool same = true, neg = true;
        for (int k = 0; k < 4; ++k) {
          same = same && near(q[4 * i + k], r[k]);
          neg = neg && near(q[4 * i + k], -r[k]);
        }
        if (same || neg) {
          for (int k = 0; k < 4; ++k) q[4 * i + k] = ref[4 * i + k];
          return;
        }
      }
    };
    // Where principal moments repeat, the mesh frame is any rotation within the eigenspace (MuJoCo's
    // choice follows its single-precision round-off). The frames are then accepted when the mesh's
    // vertices, placed by the geom pose, are the same points in the body frame. The same holds
    // where the principal moments are merely close: 2.2.2's single-precision round-off then turns
    // the frame by up to ~1e-5 rad (dog.xml's Phalanges_B_L_2, moments 2.4% apart). The point sets
    // are compared both ways, as 2.2.2's STL reader leaves a few exact duplicate corners unmerged
    // (352 vs 350 vertices there), which changes the count but not the points.
    auto same_shape = [&](size_t g) {
      const int mid = m.geom_dataid[g];
      if (mid < 0 || mid >= m.nmesh || mid >= mj->nmesh) return false;
      const int n = m.mesh_vertnum[mid], n2 = mj->mesh_vertnum[mid];
      if (n > 5000 || n2 > 5000 || n < n2 - 16 || n > n2) return false;
      auto place = [](const double* pos, const double* quat, const float* v, double* out) {
        const double p[3] = {v[0], v[1], v[2]};
        moreau::math::rotvecquat(out, p, quat);
        for (int k = 0; k < 3; ++k) out[k] += pos[k];
      };
      double scale = 0;
      for (int k = 0; k < 3; ++k) scale = std::max(scale, mj->geom_size[3 * g + k]);
      std::vector<double> ours(3 * n), theirs(3 * n2);
      for (int i = 0; i < n; ++i)
        place(&m.geom_pos[3 * g], &m.geom_quat[4 * g], &m.mesh_vert[3 * (m.mesh_vertadr[mid] + i)], &ours[3 * i]);
      for (int j = 0; j < n2; ++j)
        place(mj->geom_pos + 3 * g, mj->geom_quat + 4 * g, mj->mesh_vert + 3 * (mj->mesh_vertadr[mid] + j), &theirs[3 * j]);
      auto covered = [&](const std::vector<double>& from, const std::vector<double>& to) {
        for (size_t i = 0; i < from.size(); i += 3) {
          double best = 1e300;
          for (size_t j = 0; j < to.size(); j += 3)
            best = std::min(best, std::hypot(from[i] - to[j], from[i + 1] - to[j + 1], from[i + 2] - to[j + 2]));
          if (best > 1e-5 * std::max(scale, 1e-3)) return false;
        }
        return true;
      };
      return covered(ours, theirs) && covered(theirs, ours);
    };
    // Where two or three principal moments are equal to within round-off (highres_sphere.obj in
    // cache_hits.xml: 4e-9 apart), 2.2.2's frame within that eigenspace is set by its own
    // round-off, and the mesh's half sizes (geom_size) and rbound follow the frame. MuJoCo's frame
    // is accepted when it is also a principal frame of our mesh (our tensor expressed in it is
    // diagonal to 1e-9 of its trace), and then our vertices, expressed in MuJoCo's frame, must
    // give MuJoCo's geom_size and geom_rbound (1e-6: single-precision vertices).
    auto degenerate_frame = [&](size_t g) {
      const int mid = m.geom_dataid[g];
      if (mid < 0 || mid >= m.nmesh) return false;
      moreau::mesh::TriMesh tm;
      for (int i = 0; i < 3 * m.mesh_vertnum[mid]; ++i) tm.vert.push_back(m.mesh_vert[3 * m.mesh_vertadr[mid] + i]);
      for (int i = 0; i < 3 * m.mesh_facenum[mid]; ++i) tm.face.push_back(m.mesh_face[3 * m.mesh_faceadr[mid] + i]);
      const auto mp = moreau::mesh::legacy_mass_properties(tm);
      const double* in = mp.inertia;
      const double T[9] = {in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2]};
      double qinv[4], D[4], R[9];
      moreau::math::negquat(qinv, &m.geom_quat[4 * g]);
      moreau::math::mulquat(D, qinv, mj->geom_quat + 4 * g);
      moreau::math::quat2mat(R, D);  // MuJoCo's mesh axes in our mesh frame (columns)
      const double tr = in[0] + in[1] + in[2];
      double prev = 1e300;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          double v = 0;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) v += R[3 * i + a] * T[3 * i + j] * R[3 * j + b];
          if (a != b && std::fabs(v) > 1e-9 * tr) return false;
          if (a == b) {  // descending, as 2.2.2 orders them
            if (v > prev + 1e-9 * tr) return false;
            prev = v;
          }
        }
      double half[3] = {0, 0, 0};
      for (int i = 0; i < m.mesh_vertnum[mid]; ++i) {
        const float* v = &m.mesh_vert[3 * (m.mesh_vertadr[mid] + i)];
        for (int a = 0; a < 3; ++a)
          half[a] = std::max(half[a], std::fabs(R[a] * v[0] + R[3 + a] * v[1] + R[6 + a] * v[2]));
      }
      for (int a = 0; a < 3; ++a)
        if (!near(half[a], mj->geom_size[3 * g + a])) return false;
      return near(std::sqrt(half[0] * half[0] + half[1] * half[1] + half[2] * half[2]), mj->geom_rbound[g]);
    };
    for (size_t g = 0; g < ng; ++g) {
      if (mj->geom_type[g] != mjGEOM_MESH) continue;
      if (same_shape(g) || degenerate_frame(g)) {
        for (int k = 0; k < 4; ++k) m.geom_quat[4 * g + k] = mj->geom_quat[4 * g + k];
        for (int k = 0; k < 3; ++k) m.geom_size[3 * g + k] = mj->geom_size[3 * g + k];
        m.geom_rbound[g] = mj->geom_rbound[g];
      }
      snap(m.geom_pos, mj->geom_pos, g, 3);
      snap(m.geom_size, mj->geom_size, g, 3);
      snap(m.geom_rbound, mj->geom_rbound, g, 1);
      snap_frame(m.geom_quat, mj->geom_quat, g);
      const int b = mj->geom_bodyid[g];
      snap(m.body_ipos, mj->body_ipos, b, 3);
      snap(m.body_mass, mj->body_mass, b, 1);
      snap(m.body_inertia, mj->body_inertia, b, 3);
      snap_frame(m.body_iquat, mj->body_iquat, b);
    }
  }
  // options
  {
    std::vector<double> ours, theirs;
    std::vector<int> oi, ti;
    auto scalar = [&](const char*, auto o, auto p) {
      if constexpr (std::is_integral_v<decltype(p)>) { oi.push_back(o); ti.push_back(p); }
      else { ours.push_back(o); theirs.push_back(p); }
    };
    auto vector = [&](const char*, const auto* o, const auto* p, int n) {
      for (int k = 0; k < n; ++k) { ours.push_back(o[k]); theirs.push_back(p[k]); }
    };
    for_each_option(m.opt, mj->opt, scalar, vector);
    c.reals("opt(real fields)", ours, theirs.data(), theirs.size());
    c.ints("opt(int fields)", oi, ti.data(), ti.size());
  }
  // <statistic>, computed at qpos0 (or given by the model): meansize, extent and center to 1e-9,
  // meanmass too, meaninertia (the mean diagonal of qM, which scales the solver's tolerance) to 1e-6:
  // it depends on body_iquat, whose 2.2.2 eigensolver leaves ~1e-7 (see body_iquat below). Geoms'
  // bounding spheres enter the first three, and a mesh geom's comes from its frame, which 2.2.2
  // picks by its own round-off where principal moments repeat (the snapping above takes 2.2.2's
  // frame and rbound where the shapes agree): with meshes, a value also passes at 1e-6 when the
  // statistic recomputed from the snapped model (set_const) gives it.
  {
    auto values = [](const moreau::Statistic& s) {
      return std::vector<double>{s.meansize, s.extent, s.center[0], s.center[1], s.center[2], s.meanmass, s.meaninertia};
    };
    const double theirs[7] = {mj->stat.meansize,  mj->stat.extent,   mj->stat.center[0],   mj->stat.center[1],
                              mj->stat.center[2], mj->stat.meanmass, mj->stat.meaninertia};
    const double tol[7] = {1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-6};
    const std::vector<double> ours = values(m.stat);
    std::vector<double> snapped = ours;
    if (m.nmesh > 0) {
      moreau::Model copy = m;
      moreau::set_const(copy);
      snapped = values(copy.stat);
    }
    const char* names[7] = {"stat.meansize", "stat.extent", "stat.center[0]", "stat.center[1]",
                            "stat.center[2]", "stat.meanmass", "stat.meaninertia"};
    for (int k = 0; k < 7; ++k)
      if (!c.close(ours[k], theirs[k], tol[k]) && !(m.nmesh > 0 && c.close(snapped[k], theirs[k], 1e-6))) {
        std::stringstream s;
        s.precision(12);
        s << ours[k] << " vs " << theirs[k] << " (recomputed from the snapped meshes: " << snapped[k] << ")";
        c.report(names[k], s.str());
      }
  }
  // every shared array that array_check does not exempt: integers exactly, reals to 1e-9
  // relative, quaternions up to sign
  for_each_model_array(m, mj, [&](const char* name, const auto& ours, const auto* theirs, long long n) {
    const FieldCheck check = array_check(name);
    if (check == FieldCheck::kSkip) return;
    if constexpr (std::is_floating_point_v<std::remove_cvref_t<decltype(*theirs)>>) {
      if (check == FieldCheck::kQuat) c.quats(name, ours, theirs, n / 4);
      else c.reals(name, ours, theirs, n);
    } else {
      c.ints(name, ours, theirs, n);
    }
  });
  // body_iquat, through the inertia tensor it implies
  for (size_t b = 0; b < nb; ++b) {
    double t1[9], t2[9];
    tensor(&m.body_iquat[4 * b], &m.body_inertia[3 * b], t1);
    tensor(&mj->body_iquat[4 * b], &mj->body_inertia[3 * b], t2);
    const double scale = std::max(1e-300, mj->body_inertia[3 * b] + mj->body_inertia[3 * b + 1] + mj->body_inertia[3 * b + 2]);
    for (int k = 0; k < 9; ++k)
      // MuJoCo's iterative 3x3 eigensolver leaves ~1e-7 relative error in the frame; the
      // moments themselves are compared at 1e-9 above.
      if (std::fabs(t1[k] - t2[k]) > 1e-6 * std::max(1e-3, scale)) {
        c.report("body_iquat (as inertia tensor)", "body " + std::to_string(b));
        break;
      }
  }
  // texture pixels, byte for byte, except where a texture with random dots has a dot: 2.2.2 draws
  // them from the C library's rand(), whose state depends on the process (texture.cc), so there a
  // pixel may be the mark colour on either side
  for (int t = 0; t < m.ntex && t < mj->ntex; ++t) {
    const size_t n = 3ull * mj->tex_width[t] * mj->tex_height[t];
    if (m.tex_width[t] != mj->tex_width[t] || m.tex_height[t] != mj->tex_height[t] ||
        m.tex_adr[t] + n > m.tex_rgb.size())
      continue;  // reported by the loop over the arrays (tex_width, tex_height, tex_adr)
    const uint8_t* ours = m.tex_rgb.data() + m.tex_adr[t];
    const unsigned char* theirs = mj->tex_rgb + mj->tex_adr[t];
    const bool dots = m.tex_mark[t] == moreau::kMarkRandom && m.tex_random[t] > 0;
    uint8_t mark[3];
    for (int k = 0; k < 3; ++k) mark[k] = static_cast<uint8_t>(static_cast<int>(255 * m.tex_markrgb[3 * t + k]));
    for (size_t i = 0; i < n; i += 3) {
      if (std::memcmp(ours + i, theirs + i, 3) == 0) continue;
      if (dots && (std::memcmp(ours + i, mark, 3) == 0 || std::memcmp(theirs + i, mark, 3) == 0)) continue;
      c.report("tex_rgb", "texture " + std::to_string(t) + " pixel " + std::to_string(i / 3) + ": " +
                              std::to_string(ours[i]) + " " + std::to_string(ours[i + 1]) + " " + std::to_string(ours[i + 2]) +
                              " vs " + std::to_string(theirs[i]) + " " + std::to_string(theirs[i + 1]) + " " +
                              std::to_string(theirs[i + 2]));
      break;
    }
  }
  // <visual> (float fields exact: both parse the text into a double and round it to float once)
  {
    static_assert(sizeof(moreau::Visual) == sizeof(mjVisual), "Visual mirrors mjVisual field for field");
    static_assert(sizeof(float) == sizeof(int));
    constexpr size_t nw = sizeof(mjVisual) / sizeof(float);
    unsigned ours[nw], theirs[nw];
    std::memcpy(ours, &m.vis, sizeof(ours));
    std::memcpy(theirs, &mj->vis, sizeof(theirs));
    for (size_t k = 0; k < nw; ++k)
      if (ours[k] != theirs[k]) {
        float x, y;
        std::memcpy(&x, &ours[k], 4);
        std::memcpy(&y, &theirs[k], 4);
        c.report("vis", "word " + std::to_string(k) + ": " + std::to_string(x) + " vs " + std::to_string(y));
        break;
      }
  }
  // vertices and faces of the meshes that collide (those with a graph); visual-only meshes may
  // differ in vertex count: 2.2.2 keeps one duplicate STL corner of a dog bone (BONECa_1.stl: 754
  // distinct corners by their bytes, 755 vertices in 2.2.2), which changes nothing measurable
  for (int i = 0; i < m.nmesh && i < mj->nmesh; ++i) {
    if (mj->mesh_graphadr[i] < 0) continue;
    const std::string n = "mesh " + std::to_string(i);
    if (m.mesh_vertnum[i] != mj->mesh_vertnum[i] || m.mesh_facenum[i] != mj->mesh_facenum[i]) {
      c.report("mesh_vertnum/facenum", n);
      continue;
    }
    for (int k = 0; k < 3 * mj->mesh_facenum[i]; ++k)
      if (m.mesh_face[3 * m.mesh_faceadr[i] + k] != mj->mesh_face[3 * mj->mesh_faceadr[i] + k]) {
        c.report("mesh_face", n + " [" + std::to_string(k) + "]");
        break;
      }
  }
  // sensors (MuJoCo 2.2.2 has no plugin sensor: its user sensor is 36)
  {
    std::vector<int> types = m.sensor_type;
    for (int& t : types)
      if (t == moreau::kSensUser) t = mjSENS_USER;
    c.ints("sensor_type", types, mj->sensor_type, m.nsensor);
  }
  // height field samples (2.2.2 stores the normalized samples in single precision)
  if (m.nhfielddata != mj->nhfielddata) c.report("nhfielddata", std::to_string(m.nhfielddata) + " vs " + std::to_string(mj->nhfielddata));
  else c.reals("hfield_data", m.hfield_data, mj->hfield_data, mj->nhfielddata, 1e-7);
  return c.log.str();
}

namespace {

class ModelCompare : public ::testing::TestWithParam<std::string> {};

void compare_with_mujoco(const std::string& path) {
  char err[1024] = "";
  mjModel* mj = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  ASSERT_NE(mj, nullptr) << "MuJoCo failed: " << err;
  moreau::Model m;
  try {
    m = moreau::load_model(path);
  } catch (const std::exception& e) {
    mj_deleteModel(mj);
    FAIL() << "moreau::load_model threw: " << e.what();
  }
  const std::string diff = moreau::testing::compare_compiled(m, mj);
  mj_deleteModel(mj);
  EXPECT_EQ(diff, "") << path << ":\n" << diff;
}

TEST_P(ModelCompare, MatchesMuJoCo222) {
  if (const char* why = moreau::testing::known_difference("ModelCompare", GetParam()))
    GTEST_SKIP() << "known difference: " << why;
  const std::string path = resolve(GetParam());
  MOREAU_REQUIRE_MODEL(path);
  compare_with_mujoco(path);
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = std::to_string(info.index) + "_" + info.param;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelCompare, ::testing::ValuesIn(model_list()), case_name);

// Small models that exercise what the model list covers thinly: every actuator shortcut and
// its default-class inheritance, every sensor, equality data with offset bodies, contact pair
// mixing, keyframes, compiler inertia options, orientation forms, limits.
const char* const kFeatureModels[][2] = {
    {"actuators", R"(<mujoco>
  <default><default class="p"><position kp="10" ctrlrange="-1 1" ctrllimited="true"/></default>
    <default class="m"><muscle force="5" timeconst="0.02 0.05"/></default>
    <default class="c"><cylinder area="2" bias="1 2 3"/></default></default>
  <worldbody><body name="b"><joint name="j" range="-30 30" limited="true"/><joint name="s" type="slide"/>
    <geom size="0.1"/><site name="st" pos="0.1 0 0"/><site name="sc" pos="0 0.1 0"/></body>
    <body name="b2" pos="1 0 0"><freejoint/><geom size="0.1"/></body></worldbody>
  <tendon><fixed name="t"><joint joint="j" coef="2"/><joint joint="s" coef="-1"/></fixed></tendon>
  <actuator>
    <motor joint="j" gear="2" ctrlrange="-3 3" ctrllimited="true" forcerange="-1 1" forcelimited="true"/>
    <position joint="j" class="p"/><position joint="s" kp="3"/><velocity joint="j" kv="4"/>
    <motor joint="j" class="p"/><general joint="j" gainprm="5 1" biasprm="1 2 3" gaintype="affine" biastype="affine"/>
    <damper joint="s" kv="2" ctrlrange="0 1"/><adhesion body="b2" gain="3" ctrlrange="0 2"/>
    <motor tendon="t"/><motor site="st" gear="1 0 0 0 0 1"/><general jointinparent="j"/>
    <general cranksite="sc" slidersite="st" cranklength="0.5"/>
    <cylinder joint="s" class="c" timeconst="0.3"/><muscle joint="j" class="m" lengthrange="0 1"/>
    <muscle joint="j" lengthrange="0 1" range="0.5 1.5" lmin="0.4"/>
    <intvelocity joint="j" kp="7" actrange="-1 1"/>
    <general joint="j" dyntype="filter" dynprm="0.2" actrange="0 1" actlimited="true"/>
  </actuator></mujoco>)"},
    {"sensors", R"(<mujoco>
  <worldbody><body name="a"><joint name="j" range="-10 10" limited="true"/><geom name="g" type="box" size="0.1 0.2 0.3"/>
    <site name="s"/><camera name="cam" pos="0 0 1"/>
    <body name="b" pos="0 0 -1"><joint name="bj" type="ball"/><geom size="0.1"/></body></body></worldbody>
  <tendon><fixed name="t" range="-1 1" limited="true"><joint joint="j" coef="2"/></fixed></tendon>
  <actuator><motor name="m" joint="j"/></actuator>
  <sensor><touch site="s"/><accelerometer site="s" noise="0.1"/><velocimeter site="s" cutoff="2"/><gyro site="s"/>
    <force site="s"/><torque site="s"/><magnetometer site="s"/><rangefinder site="s"/>
    <jointpos joint="j"/><jointvel joint="j"/><tendonpos tendon="t"/><tendonvel tendon="t"/>
    <actuatorpos actuator="m"/><actuatorvel actuator="m"/><actuatorfrc actuator="m"/>
    <ballquat joint="bj"/><ballangvel joint="bj"/><jointlimitpos joint="j"/><jointlimitvel joint="j"/>
    <jointlimitfrc joint="j"/><tendonlimitpos tendon="t"/><tendonlimitvel tendon="t"/><tendonlimitfrc tendon="t"/>
    <framepos objtype="body" objname="a"/><framequat objtype="xbody" objname="a" reftype="site" refname="s"/>
    <framexaxis objtype="site" objname="s"/><frameyaxis objtype="geom" objname="g"/>
    <framezaxis objtype="camera" objname="cam" reftype="body" refname="b"/>
    <framelinvel objtype="body" objname="a"/><frameangvel objtype="body" objname="a"/>
    <framelinacc objtype="body" objname="a"/><frameangacc objtype="body" objname="a"/>
    <subtreecom body="a"/><subtreelinvel body="a"/><subtreeangmom body="a"/><clock/>
  </sensor></mujoco>)"},
    {"equality_contact_keys", R"(<mujoco>
  <size nkey="3"/>
  <worldbody>
    <body name="a" pos="0 0 1" euler="0 45 0"><joint name="ja"/><geom name="ga" size="0.1" priority="1" friction="0.5 0.1 0.01"/>
      <body name="c" pos="0.2 0 0"><joint name="jc" ref="10"/><geom name="gc" size="0.1" solmix="2" condim="4"/></body></body>
    <body name="b" pos="1 0 0" euler="30 30 30"><joint name="jb" type="slide"/><geom name="gb" size="0.1" solmix="3" margin="0.01" solref="0.03 2"/></body>
    <body name="mocap" mocap="true" pos="0 1 0" quat="0 1 0 0"/>
  </worldbody>
  <tendon><fixed name="t1"><joint joint="ja" coef="1"/></fixed><fixed name="t2"><joint joint="jb" coef="1"/></fixed></tendon>
  <equality><connect body1="a" body2="b" anchor="0.1 0.2 0.3"/><weld body1="b" body2="a"/>
    <weld body1="a" relpose="1 2 3 1 0 0 0" torquescale="3" solref="0.05 1"/><joint joint1="ja" joint2="jc" polycoef="0 2 1 0 0"/>
    <tendon tendon1="t1" tendon2="t2" active="false"/><connect body1="c" anchor="0 0 0.5"/></equality>
  <contact><pair geom1="ga" geom2="gb"/><pair geom1="gc" geom2="gb"/><pair geom1="gb" geom2="gc" condim="6" friction="1 2 3 4 5"
    solref="0.1 0.2" margin="0.3" gap="0.1"/><exclude body1="b" body2="a"/><exclude body1="c" body2="a"/></contact>
  <keyframe><key name="k" time="1" qpos="0.1 0.2 0.3" qvel="1 2 3" mpos="0 2 0" mquat="1 1 0 0"/></keyframe>
  <custom><numeric name="n1" data="1 2 3"/><numeric name="n2" size="4" data="5"/></custom>
  </mujoco>)"},
    {"compiler_inertia", R"(<mujoco>
  <compiler boundmass="0.5" boundinertia="0.01" balanceinertia="true" settotalmass="7" inertiagrouprange="0 2"/>
  <worldbody>
    <body><joint/><geom size="0.01" mass="0.001"/></body>
    <body><joint/><inertial pos="0.1 0 0" mass="2" fullinertia="1 2 2.5 0.1 0.2 0.3"/></body>
    <body><joint/><inertial pos="0 0.1 0" euler="10 20 30" mass="2" diaginertia="1 1 3"/></body>
    <body><joint/><geom type="box" size="0.1 0.2 0.3" pos="0.1 0.2 0.3" euler="10 20 30"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.2 0.1" size="0.05" density="500"/>
      <geom type="cylinder" size="0.05 0.1" group="3"/><geom type="ellipsoid" size="0.1 0.2 0.3" axisangle="1 1 0 30"/></body>
  </worldbody></mujoco>)"},
    {"orientation_limits", R"(<mujoco>
  <compiler angle="radian" eulerseq="ZyX" autolimits="true"/>
  <option timestep="0.005" gravity="0 0 -10" integrator="RK4" cone="elliptic" jacobian="sparse" solver="CG"
    iterations="20" o_solref="0.1 1" o_margin="0.01" impratio="2"><flag gravity="disable" energy="enable"/></option>
  <worldbody>
    <body euler="0.1 0.2 0.3"><joint range="-1 1" ref="0.2" springref="0.1" stiffness="3"/><geom size="0.1"/></body>
    <body xyaxes="1 1 0 -1 1 1"><joint type="ball" range="0 1"/><geom size="0.1"/></body>
    <body zaxis="1 2 3"><joint type="slide" range="-1 1" limited="false"/><geom size="0.1"/>
      <site type="capsule" fromto="0 0 0 1 1 0" size="0.01"/></body>
    <body axisangle="1 0 0 1"><joint axis="1 1 1" armature="0.1" damping="2" frictionloss="0.3" margin="0.1"
      solreflimit="0.05 2" solimpfriction="0.8 0.9 0.01 0.4 3"/><geom type="ellipsoid" size="0.1 0.2 0.3" zaxis="0 1 0"/></body>
  </worldbody></mujoco>)"},
    {"materials_textures_visual", R"(<mujoco>
  <visual><global fovy="60" azimuth="120" elevation="-20" offwidth="800"/><quality shadowsize="2048" offsamples="8"/>
    <headlight ambient="0.3 0.3 0.3" diffuse="0.6 0.5 0.4" active="0"/><map znear="0.02" zfar="40" fogstart="2"/>
    <scale com="0.2"/><rgba haze="0.15 0.25 0.35 1" fog="0.1 0.2 0.3 1" contactpoint="1 0 0 1"/></visual>
  <default><material specular="0.3"/><default class="c"><material shininess="0.9" rgba="1 0 0 1"/></default>
    <default class="g"><geom material="n"/></default></default>
  <asset>
    <texture name="grid" type="2d" builtin="checker" rgb1="1 0 0" rgb2="0 1 0" width="10" height="20" mark="edge" markrgb="0 0 1"/>
    <texture name="sky" type="skybox" builtin="gradient" rgb1="1 1 1" rgb2="0 0 0" width="8" height="8"/>
    <texture name="cube" builtin="flat" rgb1="0.5 0.5 0.5" width="4" height="3"/>
    <texture name="dots" type="2d" builtin="checker" mark="random" random="0.1" width="8" height="9"/>
    <material name="m" texture="grid" texrepeat="2 3" texuniform="true" emission="0.2" reflectance="0.1"/>
    <material name="n" class="c"/>
    <material name="o" texture="cube" class="c" rgba="0 0 1 0.5"/>
  </asset>
  <worldbody><geom type="plane" size="1 1 0.1" material="m"/><geom size="0.1" class="g"/>
    <body><freejoint/><geom size="0.1" material="m" rgba="1 1 1 1"/><site material="o" rgba="0 1 0 1"/><site material="n"/></body>
  </worldbody></mujoco>)"},
    {"springdamper", R"(<mujoco>
  <worldbody><body><freejoint/><geom type="box" size="0.2 0.1 0.05"/>
    <body pos="0.3 0 0"><joint axis="0 1 0" springdamper="0.01 2"/><geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.03"/>
      <body pos="0.2 0 0"><joint type="slide" axis="1 0 0" springdamper="0.05 0.5" stiffness="9" damping="9"/>
        <geom size="0.05"/></body></body></body></worldbody></mujoco>)"},
};

class FeatureCompare : public ::testing::TestWithParam<int> {};

TEST_P(FeatureCompare, MatchesMuJoCo222) {
  const auto& fm = kFeatureModels[GetParam()];
  const std::string path = std::string(::testing::TempDir()) + "/moreau_feature_" + fm[0] + ".xml";
  std::ofstream(path) << fm[1];
  compare_with_mujoco(path);
}

INSTANTIATE_TEST_SUITE_P(Features, FeatureCompare,
                         ::testing::Range(0, static_cast<int>(sizeof(kFeatureModels) / sizeof(kFeatureModels[0]))),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(kFeatureModels[i.param][0]); });

}  // namespace

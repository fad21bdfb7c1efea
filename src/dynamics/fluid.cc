// Fluid forces (computation chapter, "Fluid forces"): passive forces from a medium of density rho
// (opt.density) and viscosity beta (opt.viscosity) moving with velocity opt.wind, by one of two models
// per body.
//
// Inertia model (default, bodies with mass): in the body's inertia frame (xipos, ximat), with the com
// velocity relative to the medium (v = ximat' (v_com - wind), w = ximat' omega), the body is its
// equivalent inertia box, with half-sizes
//   r_x = sqrt(3/(2m) (I_y + I_z - I_x)) (and cyclic), r_eq = (r_x + r_y + r_z)/3;
//   force   f_i = -2 rho r_j r_k |v_i| v_i           - 6 beta pi r_eq v_i
//   torque  g_i = -rho/2 r_i (r_j^4 + r_k^4) |w_i| w_i - 8 beta pi r_eq^3 w_i
//   (quadratic drag of the box faces plus Stokes drag/torque of the sphere of radius r_eq).
//
// Ellipsoid model (geoms with fluidshape="ellipsoid", geom_fluid[0] = 1; a body with any such geom
// gets this model for those geoms and no inertia-box forces): each geom is the ellipsoid with
// semi-axes r (fluid_semiaxes), seen in the geom frame with the velocity (v, w) of its centre
// relative to the medium; the force and torque are the sum of
//   added mass   f_A = (rho m_A o v) x w,  g_A = (rho m_A o v) x v + (rho I_A o w) x w
//                (m_A, I_A: geom_fluid[6..11], the compiler's virtual inertia without rho; the
//                 acceleration part -m_A o dv/dt of the chapter is not applied: the model is stateless)
//   drag         f_D = -rho [C_blunt A_proj + C_slender (A_max - A_proj)] |v| v,
//                A_proj = pi sqrt(sum r_j^4 r_k^4 v_i^2 / sum r_j^2 r_k^2 v_i^2) (projected area),
//                A_max = pi r_max r_mid (the largest projected area)
//   angular drag g_D = -rho |a o w| w,  a_i = C_angular I_D,i + C_slender (max_k I_D,k - I_D,i),
//                I_D,i = 8 pi/15 r_i max(r_j, r_k)^4
//   Kutta lift   f_K = C_K rho A_proj cos(alpha) (n x v) x v, n the unit normal of the projected
//                cross-section (n_i ~ v_i / r_i^2), cos(alpha) = n.v/|v|
//   Magnus lift  f_M = C_M rho V w x v, V = 4/3 pi r_x r_y r_z
//   viscous      f_V = -6 pi beta r_D v,  g_V = -8 pi beta r_D^3 w,  r_D = (r_x + r_y + r_z)/3.
// What the chapter leaves open or states otherwise was measured against MuJoCo 2.2.2
// (tests/differential/fluid_test.cc): A_max = pi r_max r_mid (the chapter writes 4 pi r_max r_min),
// the norm |a o w| in g_D, and the kMinVal guards of A_proj and cos(alpha) at small speeds.
//
// Each wrench is rotated to world and applied at its point (xipos or geom_xpos), mapped to joint
// space through the body's Jacobian (internal::apply_ft), and added into d.qfrc_passive. No allocation.
#include <algorithm>
#include <cmath>

#include "dynamics/fluid.h"
#include "kinematics/jacobian.h"
#include "math/dual.h"
#include "math/vec.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {


// Apply the local force fl and torque gl (frame R) at the point `pos` of body b.
void apply_local(const Model& m, Data& d, int b, const double* pos, const double* R,
                 const double* fl, const double* gl) {
  double f[3], g[3];
  mulmatvec3(f, R, fl);
  mulmatvec3(g, R, gl);
  internal::apply_ft(m, d, f, g, pos, b, d.qfrc_passive.data());
}

void inertia_box_model(const Model& m, Data& d, int b) {
  const double rho = m.opt.density, beta = m.opt.viscosity;
  double r[3];
  fluid_box_halfsizes(m, b, r);
  double w[3], v[3];
  const double* pos = &d.xipos[3 * b];
  const double* R = &d.ximat[9 * b];
  fluid_local_velocity(m, d, b, pos, R, w, v);
  const double req = (r[0] + r[1] + r[2]) / 3;
  const double pi = M_PI;
  double f[3], g[3];
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    f[i] = -2 * rho * r[j] * r[k] * std::abs(v[i]) * v[i] - 6 * beta * pi * req * v[i];
    g[i] = -0.5 * rho * r[i] * (r[j] * r[j] * r[j] * r[j] + r[k] * r[k] * r[k] * r[k]) *
               std::abs(w[i]) * w[i] -
           8 * beta * pi * req * req * req * w[i];
  }
  apply_local(m, d, b, pos, R, f, g);
}

// Vector helpers for any scalar (double or math::Dual): the same operations, in the same order, as
// math/vec.h, so the double instantiation gives the same bits as plain code.
template <typename T> void cross(T* r, const T* a, const T* b) {
  const T x = a[1] * b[2] - a[2] * b[1];
  const T y = a[2] * b[0] - a[0] * b[2];
  const T z = a[0] * b[1] - a[1] * b[0];
  r[0] = x; r[1] = y; r[2] = z;
}
template <typename T, typename S> void add_scaled(T* r, const T* a, const S& s) {
  for (int i = 0; i < 3; ++i) r[i] += a[i] * s;
}
template <typename T> T norm(const T* a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

// Force f and torque g of the ellipsoid model on geom `geom` (semi-axes r) moving with local linear
// velocity v and angular velocity w (geom frame, relative to the medium). A template so that the
// implicit integrators differentiate this very function (Dual numbers, ellipsoid_fluid_jacobian).
template <typename T>
void ellipsoid_wrench(const Model& m, int geom, const double* r, const T* v, const T* w, T* f, T* g) {
  const double rho = m.opt.density, beta = m.opt.viscosity;
  const double* prm = &m.geom_fluid[kNFLUID * geom];
  const double c_blunt = prm[1], c_slender = prm[2], c_angular = prm[3], c_kutta = prm[4],
               c_magnus = prm[5];
  const double* virtual_mass = prm + 6;
  const double* virtual_inertia = prm + 9;
  const double pi = M_PI;
  const T speed = norm(v);

  // added mass: virtual momenta p = rho m_A o v and L = rho I_A o w
  T p[3], L[3], t[3];
  for (int i = 0; i < 3; ++i) {
    p[i] = rho * virtual_mass[i] * v[i];
    L[i] = rho * virtual_inertia[i] * w[i];
  }
  cross(f, p, w);
  cross(g, p, v);
  cross(t, L, w);
  add_scaled(g, t, 1.0);

  // projected area A_proj = pi sqrt(proj_num / proj_den) (lemma of the chapter); both sums vanish
  // with v, so the denominator is kept above kMinVal (as 2.2.2; measured at |v| ~ 1e-9).
  const double ryz = r[1] * r[2], rzx = r[2] * r[0], rxy = r[0] * r[1];
  const T v2[3] = {v[0] * v[0], v[1] * v[1], v[2] * v[2]};
  const T proj_den = ryz * ryz * v2[0] + rzx * rzx * v2[1] + rxy * rxy * v2[2];
  const T proj_num =
      ryz * ryz * ryz * ryz * v2[0] + rzx * rzx * rzx * rzx * v2[1] + rxy * rxy * rxy * rxy * v2[2];
  const T a_proj = pi * sqrt(proj_num / max(kMinVal, proj_den));
  const double r_max = std::max(r[0], std::max(r[1], r[2]));
  const double r_min = std::min(r[0], std::min(r[1], r[2]));
  const double r_mid = r[0] + r[1] + r[2] - r_max - r_min;
  const double a_max = pi * r_max * r_mid;

  // drag
  const T drag = -rho * (c_blunt * a_proj + c_slender * (a_max - a_proj)) * speed;
  add_scaled(f, v, drag);

  // angular drag
  double inertia_drag[3];
  for (int i = 0; i < 3; ++i) {
    const double rjk = std::max(r[(i + 1) % 3], r[(i + 2) % 3]);
    inertia_drag[i] = 8 * pi / 15 * r[i] * rjk * rjk * rjk * rjk;
  }
  const double i_max = std::max(inertia_drag[0], std::max(inertia_drag[1], inertia_drag[2]));
  T aw[3];
  for (int i = 0; i < 3; ++i)
    aw[i] = (c_angular * inertia_drag[i] + c_slender * (i_max - inertia_drag[i])) * w[i];
  add_scaled(g, w, -rho * norm(aw));

  // Kutta lift. With the (unnormalized) normal n_i = r_x^2 r_y^2 r_z^2 v_i / r_i^2 of the projected
  // cross-section, n.v = proj_den and |n|^2 = proj_num, so cos(alpha) n/|n| = proj_den n /
  // (|v| proj_num); the one denominator is kept above kMinVal (as 2.2.2: measured, the lift falls
  // off as |v|^5 once |v| proj_num < kMinVal).
  const T n[3] = {ryz * ryz * v[0], rzx * rzx * v[1], rxy * rxy * v[2]};
  T nxv[3], lift[3];
  cross(nxv, n, v);
  cross(lift, nxv, v);
  add_scaled(f, lift, c_kutta * rho * a_proj * proj_den / max(kMinVal, speed * proj_num));

  // Magnus lift
  T wxv[3];
  cross(wxv, w, v);
  add_scaled(f, wxv, c_magnus * rho * 4.0 / 3.0 * pi * r[0] * r[1] * r[2]);

  // viscous resistance of the equivalent sphere (Stokes)
  const double r_d = (r[0] + r[1] + r[2]) / 3;
  add_scaled(f, v, -6 * pi * beta * r_d);
  add_scaled(g, w, -8 * pi * beta * r_d * r_d * r_d);
}

void ellipsoid_model(const Model& m, Data& d, int b) {
  const int begin = m.body_geomadr[b], end = begin + m.body_geomnum[b];
  for (int geom = begin; geom < end; ++geom) {
    if (m.geom_fluid[kNFLUID * geom] <= 0) continue;
    double r[3];
    fluid_semiaxes(m.geom_type[geom], &m.geom_size[3 * geom], r);
    const double* pos = &d.geom_xpos[3 * geom];
    const double* R = &d.geom_xmat[9 * geom];
    double v[3], w[3], f[3], g[3];
    fluid_local_velocity(m, d, b, pos, R, w, v);
    ellipsoid_wrench(m, geom, r, v, w, f, g);
    apply_local(m, d, b, pos, R, f, g);
  }
}

}  // namespace

// Velocity of the point `pos` of body b relative to the medium and the body's angular velocity,
// both in the frame R (world-to-local: R').
void fluid_local_velocity(const Model& m, const Data& d, int b, const double* pos, const double* R,
                    double* wl, double* vl) {
  const double* cvel = &d.cvel[6 * b];
  const double* org = &d.subtree_com[3 * m.body_rootid[b]];
  double off[3], wxo[3], v[3];
  sub3(off, pos, org);
  cross3(wxo, cvel, off);
  add3(v, cvel + 3, wxo);
  sub3(v, v, m.opt.wind);
  mulmatTvec3(wl, R, cvel);
  mulmatTvec3(vl, R, v);
}

void ellipsoid_fluid_jacobian(const Model& m, int geom, const double* w, const double* v, double* H) {
  using D6 = Dual<6>;
  double r[3];
  fluid_semiaxes(m.geom_type[geom], &m.geom_size[3 * geom], r);
  D6 wd[3], vd[3], f[3], g[3];
  for (int i = 0; i < 3; ++i) {
    wd[i] = D6::variable(w[i], i);
    vd[i] = D6::variable(v[i], 3 + i);
  }
  ellipsoid_wrench(m, geom, r, vd, wd, f, g);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) {
      H[6 * i + j] = g[i].d[j];
      H[6 * (3 + i) + j] = f[i].d[j];
    }
}

void ellipsoid_fluid_wrench(const Model& m, int geom, const double* w, const double* v, double* g, double* f) {
  double r[3];
  fluid_semiaxes(m.geom_type[geom], &m.geom_size[3 * geom], r);
  ellipsoid_wrench(m, geom, r, v, w, f, g);
}

bool fluid_ellipsoid_body(const Model& m, int b) {
  const int begin = m.body_geomadr[b], end = begin + m.body_geomnum[b];
  for (int geom = begin; geom < end; ++geom)
    if (m.geom_fluid[kNFLUID * geom] > 0) return true;
  return false;
}

void fluid_box_halfsizes(const Model& m, int b, double* r) {
  const double mass = m.body_mass[b];
  const double* I = &m.body_inertia[3 * b];
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    r[i] = std::sqrt((I[j] + I[k] - I[i]) * 1.5 / mass);
  }
}

void fluid_semiaxes(int type, const double* size, double* r) {
  switch (type) {
    case kGeomSphere: r[0] = r[1] = r[2] = size[0]; break;
    case kGeomCapsule: r[0] = r[1] = size[0]; r[2] = size[1] + size[0]; break;
    case kGeomCylinder: r[0] = r[1] = size[0]; r[2] = size[1]; break;
    default: r[0] = size[0]; r[1] = size[1]; r[2] = size[2]; break;  // box, ellipsoid, mesh
  }
}

void fluid_forces(const Model& m, Data& d) {
  for (int b = 1; b < m.nbody; ++b) {
    if (fluid_ellipsoid_body(m, b))
      ellipsoid_model(m, d, b);
    else if (m.body_mass[b] >= kMinVal)
      inertia_box_model(m, d, b);
  }
}

}  // namespace moreau

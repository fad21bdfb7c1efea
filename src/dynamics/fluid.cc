// Fluid forces (computation chapter, "Fluid forces"): passive forces from a medium of density rho
// (opt.density) and viscosity beta (opt.viscosity) moving with velocity opt.wind. Every body with
// mass is handled by one of two models, in the frame of its inertia (xipos, ximat), using the body's
// com velocity relative to the medium (v = ximat' (v_com - wind), w = ximat' omega):
//
// Inertia model (default): the body is its equivalent inertia box, with half-sizes
//   r_x = sqrt(3/(2m) (I_y + I_z - I_x)) (and cyclic), r_eq = (r_x + r_y + r_z)/3;
//   force   f_i = -2 rho r_j r_k |v_i| v_i           - 6 beta pi r_eq v_i
//   torque  g_i = -rho/2 r_i (r_j^4 + r_k^4) |w_i| w_i - 8 beta pi r_eq^3 w_i
//   (quadratic drag of the box faces plus Stokes drag/torque of the sphere of radius r_eq).
//
// The wrench is rotated to world and applied at xipos, mapped to joint space through the body's com
// Jacobian (internal::apply_ft), and added into d.qfrc_passive. No allocation.
#include <cmath>

#include "engine/internal.h"
#include "math/vec.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {


// Velocity of body b's com (xipos) relative to the medium and its angular velocity, both in the
// body's inertia frame.
void local_velocity(const Model& m, const Data& d, int b, double* wl, double* vl) {
  const double* cvel = &d.cvel[6 * b];
  const double* com = &d.xipos[3 * b];
  const double* org = &d.subtree_com[3 * m.body_rootid[b]];
  double off[3], wxo[3], v[3];
  sub3(off, com, org);
  cross3(wxo, cvel, off);
  add3(v, cvel + 3, wxo);
  sub3(v, v, m.opt.wind);
  const double* R = &d.ximat[9 * b];
  mulmatTvec3(wl, R, cvel);
  mulmatTvec3(vl, R, v);
}

void apply_local(const Model& m, Data& d, int b, const double* fl, const double* gl) {
  const double* R = &d.ximat[9 * b];
  double f[3], g[3];
  mulmatvec3(f, R, fl);
  mulmatvec3(g, R, gl);
  internal::apply_ft(m, d, f, g, &d.xipos[3 * b], b, d.qfrc_passive.data());
}

void inertia_box_model(const Model& m, Data& d, int b) {
  const double rho = m.opt.density, beta = m.opt.viscosity;
  const double mass = m.body_mass[b];
  const double* I = &m.body_inertia[3 * b];
  double r[3];
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    r[i] = std::sqrt((I[j] + I[k] - I[i]) * 1.5 / mass);
  }
  double w[3], v[3];
  local_velocity(m, d, b, w, v);
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
  apply_local(m, d, b, f, g);
}

}  // namespace

void fluid_forces(const Model& m, Data& d) {
  for (int b = 1; b < m.nbody; ++b) {
    if (m.body_mass[b] < kMinVal) continue;
    inertia_box_model(m, d, b);
  }
}

}  // namespace moreau

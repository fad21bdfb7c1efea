// Data allocation and reset (simulation chapter, "Initialization" and "State and control").
//
// make_data sizes every array once from the Model; nothing in forward/step/inverse allocates.
//
// The contact capacity (d.contact.size()) and the constraint rows (efc_*) follow the rules of
// src/constraint/storage.cc (contact_capacity, allocate_constraint_storage); the broad-phase
// buffers are sized by collision_reserve.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "constraint/storage.h"
#include "dynamics/dynamics.h"
#include "engine/checks.h"
#include "engine/messages.h"
#include "integrator/integrator.h"
#include "io/model_fields.h"
#include "moreau/collision.h"
#include "moreau/derivative.h"
#include "moreau/moreau.h"
#include "solver/reserve.h"

namespace moreau {

namespace {

void set_mocap_from_model(const Model& m, Data& d) {
  for (int b = 0; b < m.nbody; ++b) {
    const int id = m.body_mocapid[b];
    if (id < 0) continue;
    std::copy_n(&m.body_pos[3 * b], 3, &d.mocap_pos[3 * id]);
    std::copy_n(&m.body_quat[4 * b], 4, &d.mocap_quat[4 * id]);
  }
}

// Every std::vector field of the Model must have the length its sizes give (MOREAU_MODEL_FIELDS):
// a hand-built or edited Model with a short array would otherwise be read out of bounds by the
// pipeline. Fields whose length an address table fixes (count -1) are not checked here.
template <class T>
void check_field(std::string& bad, const char* name, const T& v, long long count) {
  if constexpr (requires { v.size(); typename T::value_type; } && !std::is_same_v<T, std::string>) {
    if (count >= 0 && static_cast<long long>(v.size()) != count)
      bad += std::string(bad.empty() ? "" : ", ") + name + " has " + std::to_string(v.size()) +
             " entries, the sizes give " + std::to_string(count);
  }
}

void check_model_sizes(const Model& m) {
  std::string bad;
#define MOREAU_CHECK_FIELD(name, count) check_field(bad, #name, m.name, static_cast<long long>(count));
  MOREAU_MODEL_FIELDS(MOREAU_CHECK_FIELD)
#undef MOREAU_CHECK_FIELD
  if (!bad.empty())
    internal::raise<std::invalid_argument>("make_data: the Model's arrays do not match its sizes (" + bad +
                                           "); fill every field of include/moreau/model.h or compile the model");
}

template <class T>
void zero(std::vector<T>& v) { std::fill(v.begin(), v.end(), T{}); }

// Calls f on every array d owns (data_bytes counts them; Robustness.DataBytesCountsEveryArray
// checks the list against the bytes a copy of a Data allocates).
template <class D, class F>
void for_each_array(D& d, F&& f) {
  for (auto* v : {&d.qpos, &d.qvel, &d.act, &d.qacc_warmstart, &d.ctrl, &d.qfrc_applied, &d.xfrc_applied,
                  &d.mocap_pos, &d.mocap_quat, &d.qacc, &d.act_dot, &d.sensordata, &d.userdata, &d.xpos,
                  &d.xquat, &d.xmat, &d.xipos, &d.ximat, &d.xanchor, &d.xaxis, &d.geom_xpos, &d.geom_xmat,
                  &d.site_xpos, &d.site_xmat, &d.cam_xpos, &d.cam_xmat, &d.light_xpos, &d.light_xdir,
                  &d.subtree_com, &d.cdof, &d.cinert, &d.crb, &d.qM, &d.qLD, &d.qLDiagInv, &d.qLDiagSqrtInv,
                  &d.ten_length, &d.ten_J, &d.wrap_xpos, &d.actuator_length, &d.actuator_moment,
                  &d.ten_velocity, &d.actuator_velocity, &d.cvel, &d.cdof_dot, &d.qfrc_bias, &d.qfrc_passive,
                  &d.subtree_linvel, &d.subtree_angmom, &d.actuator_force, &d.qfrc_actuator, &d.qfrc_smooth,
                  &d.qacc_smooth, &d.qfrc_constraint, &d.qfrc_inverse, &d.cacc, &d.cfrc_int, &d.cfrc_ext,
                  &d.qH, &d.qHDiagInv, &d.qDeriv, &d.qLU, &d.efc_J, &d.efc_pos, &d.efc_margin,
                  &d.efc_frictionloss, &d.efc_diagApprox, &d.efc_KBIP, &d.efc_D, &d.efc_R, &d.efc_vel,
                  &d.efc_aref, &d.efc_b, &d.efc_force, &d.efc_state_d, &d.efc_AR, &d.work.stage,
                  &d.work.integrator, &d.work.deriv, &d.work.fd, &d.work.efc, &d.work.ncp, &d.work.col_bound,
                  &d.work.col_bvh_box, &d.work.col_hull, &d.work.col_hfield_top})
    f(*v);
  for (auto* v : {&d.ten_J_span, &d.ten_wrapadr, &d.ten_wrapnum, &d.wrap_obj, &d.actuator_moment_span,
                  &d.efc_type, &d.efc_id, &d.efc_state, &d.efc_J_rownnz, &d.efc_J_rowadr, &d.efc_J_colind, &d.efc_AR_rownnz,
                  &d.efc_AR_rowadr, &d.efc_AR_colind, &d.work.efc_int, &d.work.col_broad, &d.work.col_bvh_adr,
                  &d.work.col_bvh_node, &d.work.col_mid, &d.work.col_hull_adr, &d.work.col_hull_start})
    f(*v);
  f(d.eq_active);
  f(d.contact);
  f(d.solver);
}

}  // namespace

Data make_data(const Model& m) {
  check_model_sizes(m);
  Data d;
  const size_t nq = m.nq, nv = m.nv, na = m.na, nu = m.nu, nb = m.nbody;
  d.qpos.resize(nq);
  d.qvel.resize(nv);
  d.act.resize(na);
  d.qacc_warmstart.resize(nv);
  d.ctrl.resize(nu);
  d.qfrc_applied.resize(nv);
  d.xfrc_applied.resize(6 * nb);
  d.mocap_pos.resize(3 * m.nmocap);
  d.mocap_quat.resize(4 * m.nmocap);
  d.eq_active.resize(m.neq);
  d.qacc.resize(nv);
  d.act_dot.resize(na);
  d.sensordata.resize(m.nsensordata);
  d.userdata.resize(m.nuserdata);

  d.xpos.resize(3 * nb);
  d.xquat.resize(4 * nb);
  d.xmat.resize(9 * nb);
  d.xipos.resize(3 * nb);
  d.ximat.resize(9 * nb);
  d.xanchor.resize(3 * m.njnt);
  d.xaxis.resize(3 * m.njnt);
  d.geom_xpos.resize(3 * m.ngeom);
  d.geom_xmat.resize(9 * m.ngeom);
  d.site_xpos.resize(3 * m.nsite);
  d.site_xmat.resize(9 * m.nsite);
  d.cam_xpos.resize(3 * m.ncam);
  d.cam_xmat.resize(9 * m.ncam);
  d.light_xpos.resize(3 * m.nlight);
  d.light_xdir.resize(3 * m.nlight);
  d.subtree_com.resize(3 * nb);
  d.cdof.resize(6 * nv);
  d.cinert.resize(10 * nb);
  d.crb.resize(10 * nb);
  d.qM.resize(m.nM);
  d.qLD.resize(m.nM);
  d.qLDiagInv.resize(nv);
  d.qLDiagSqrtInv.resize(nv);

  d.ten_length.resize(m.ntendon);
  d.ten_J.resize(m.ntendon * nv);
  d.ten_J_span.resize(2 * m.ntendon);
  d.ten_wrapadr.resize(m.ntendon);
  d.ten_wrapnum.resize(m.ntendon);
  d.wrap_obj.resize(2 * m.nwrap);
  d.wrap_xpos.resize(6 * m.nwrap);
  d.actuator_length.resize(nu);
  d.actuator_moment.resize(nu * nv);
  d.actuator_moment_span.resize(2 * nu);

  d.ten_velocity.resize(m.ntendon);
  d.actuator_velocity.resize(nu);
  d.cvel.resize(6 * nb);
  d.cdof_dot.resize(6 * nv);
  d.qfrc_bias.resize(nv);
  d.qfrc_passive.resize(nv);
  d.subtree_linvel.resize(3 * nb);
  d.subtree_angmom.resize(3 * nb);

  d.actuator_force.resize(nu);
  d.qfrc_actuator.resize(nv);
  d.qfrc_smooth.resize(nv);
  d.qacc_smooth.resize(nv);
  d.qfrc_constraint.resize(nv);
  d.qfrc_inverse.resize(nv);
  d.cacc.resize(6 * nb);
  d.cfrc_int.resize(6 * nb);
  d.cfrc_ext.resize(6 * nb);

  d.qH.resize(m.nM);
  d.qHDiagInv.resize(nv);
  // dof-dof sparse layout (data.h), not nv*nv: nD = 2 nM - nv, from nM (which the layout uses)
  d.qDeriv.resize(std::max(0, 2 * m.nM - m.nv));
  d.qLU.resize(d.qDeriv.size());
  d.contact.resize(static_cast<size_t>(constraint::contact_capacity(m)));
  d.solver.resize(kNSolverStat);

  // work space, each part sized by its owner's rule
  d.work.stage.resize(internal::dynamics_work_size(m));
  d.work.integrator.resize(internal::integrator_work_size(m));
  d.work.deriv.resize(deriv_work_size(m));
  d.work.fd.resize(fd_work_size(m));
  collision_reserve(m, d);            // broad and mid phase (src/collision)
  allocate_constraint_storage(m, d);  // efc_* rows and the solvers' row work space (src/constraint)
  internal::solver_reserve(m, d);     // the selected solver's own work space (src/solver)

  reset_data(m, d);
  return d;
}

size_t data_bytes(const Model& m, const Data& d) {
  internal::check_data(m, d, "data_bytes");
  size_t bytes = sizeof(Data);
  for_each_array(d, [&](const auto& v) { bytes += v.capacity() * sizeof(v[0]); });
  return bytes;
}

void reset_data(const Model& m, Data& d) {
  internal::check_data(m, d, "reset_data");
  d.time = 0;
  std::copy_n(m.qpos0.begin(), m.nq, d.qpos.begin());
  zero(d.qvel);
  zero(d.act);
  zero(d.qacc_warmstart);
  zero(d.ctrl);
  zero(d.qfrc_applied);
  zero(d.xfrc_applied);
  set_mocap_from_model(m, d);
  std::copy_n(m.eq_active.begin(), m.neq, d.eq_active.begin());
  zero(d.qacc);
  zero(d.act_dot);
  zero(d.sensordata);
  zero(d.userdata);
  d.energy[0] = d.energy[1] = 0;
  // derived quantities: cleared so that a reset Data never shows results of the old state
  for (auto* v : {&d.xpos, &d.xquat, &d.xmat, &d.xipos, &d.ximat, &d.xanchor, &d.xaxis, &d.geom_xpos,
                  &d.geom_xmat, &d.site_xpos, &d.site_xmat, &d.cam_xpos, &d.cam_xmat, &d.light_xpos,
                  &d.light_xdir, &d.subtree_com, &d.cdof, &d.cinert, &d.crb, &d.qM, &d.qLD, &d.qLDiagInv,
                  &d.qLDiagSqrtInv, &d.cvel, &d.cdof_dot, &d.qfrc_bias, &d.qfrc_passive, &d.actuator_force,
                  &d.qfrc_actuator, &d.qfrc_smooth, &d.qacc_smooth, &d.qfrc_constraint, &d.qfrc_inverse,
                  &d.cacc, &d.cfrc_int, &d.cfrc_ext, &d.ten_length, &d.ten_velocity, &d.actuator_length,
                  &d.actuator_velocity, &d.ten_J, &d.wrap_xpos, &d.actuator_moment, &d.subtree_linvel,
                  &d.subtree_angmom, &d.qH, &d.qHDiagInv, &d.qDeriv, &d.qLU})
    zero(*v);
  for (auto* v : {&d.ten_J_span, &d.ten_wrapadr, &d.ten_wrapnum, &d.wrap_obj, &d.actuator_moment_span}) zero(*v);
  d.ncon = d.ne = d.nf = d.nefc = 0;
  zero(d.work.ncp);  // hard-contact solvers: no warm start from before the reset
  d.ncp = NcpStat{};
  d.warning.fill(WarningStat{});
  d.timer.fill(TimerStat{});
  d.solver_iter = d.solver_nnz = 0;
  d.solver_fwdinv[0] = d.solver_fwdinv[1] = 0;
  d.maxuse_con = d.maxuse_efc = 0;
}

void reset_data_keyframe(const Model& m, Data& d, int key) {
  internal::check_data(m, d, "reset_data_keyframe");
  if (key < 0 || key >= m.nkey)
    internal::raise<std::out_of_range>("reset_data_keyframe: key " + std::to_string(key) + " out of range [0, " +
                                       std::to_string(m.nkey) + ")");
  reset_data(m, d);
  d.time = m.key_time[key];
  std::copy_n(m.key_qpos.data() + (size_t)key * m.nq, m.nq, d.qpos.begin());
  std::copy_n(m.key_qvel.data() + (size_t)key * m.nv, m.nv, d.qvel.begin());
  std::copy_n(m.key_act.data() + (size_t)key * m.na, m.na, d.act.begin());
  if (!m.key_ctrl.empty()) std::copy_n(m.key_ctrl.data() + (size_t)key * m.nu, m.nu, d.ctrl.begin());
  if (!m.key_mpos.empty()) std::copy_n(m.key_mpos.data() + (size_t)key * 3 * m.nmocap, 3 * m.nmocap, d.mocap_pos.begin());
  if (!m.key_mquat.empty())
    std::copy_n(m.key_mquat.data() + (size_t)key * 4 * m.nmocap, 4 * m.nmocap, d.mocap_quat.begin());
}

}  // namespace moreau

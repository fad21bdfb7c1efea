// Test-only bridge from MuJoCo 2.2.2 to Moreau (see mujoco_bridge.h).
#include "differential/mujoco_bridge.h"
#include "model_list.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace moreau::testing {

namespace {

template <class T, class S>
void copy_array(std::vector<T>& dst, const S* src, long long n) {
  if (n < 0) n = 0;
  dst.assign(n, T{});
  if (!src) return;
  for (long long i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);
}

std::vector<std::string> names(const mjModel* mj, const int* adr, int n) {
  std::vector<std::string> out(n);
  for (int i = 0; i < n; ++i) out[i] = adr ? std::string(mj->names + adr[i]) : std::string();
  return out;
}

}  // namespace

Model model_from_mujoco(const mjModel* mj) {
  Model mo;
  // sizes
  mo.nq = mj->nq; mo.nv = mj->nv; mo.nu = mj->nu; mo.na = mj->na;
  mo.nbody = mj->nbody; mo.njnt = mj->njnt; mo.ngeom = mj->ngeom; mo.nsite = mj->nsite;
  mo.ncam = mj->ncam; mo.nlight = mj->nlight;
  mo.nmesh = mj->nmesh; mo.nmeshvert = mj->nmeshvert; mo.nmeshface = mj->nmeshface;
  mo.nhfield = mj->nhfield; mo.nhfielddata = mj->nhfielddata;
  mo.ntex = mj->ntex; mo.nmat = mj->nmat; mo.nskin = mj->nskin;
  mo.npair = mj->npair; mo.nexclude = mj->nexclude; mo.neq = mj->neq; mo.ntendon = mj->ntendon;
  mo.nwrap = mj->nwrap; mo.nsensor = mj->nsensor;
  mo.nnumeric = mj->nnumeric; mo.nnumericdata = mj->nnumericdata; mo.ntext = mj->ntext;
  mo.ntuple = mj->ntuple; mo.nkey = mj->nkey; mo.nmocap = mj->nmocap;
  mo.nuser_body = mj->nuser_body; mo.nuser_jnt = mj->nuser_jnt; mo.nuser_geom = mj->nuser_geom;
  mo.nuser_site = mj->nuser_site; mo.nuser_cam = mj->nuser_cam; mo.nuser_tendon = mj->nuser_tendon;
  mo.nuser_actuator = mj->nuser_actuator; mo.nuser_sensor = mj->nuser_sensor;
  mo.nM = mj->nM; mo.nD = mj->nD; mo.nsensordata = mj->nsensordata;
  mo.nconmax = mj->nconmax; mo.njmax = mj->njmax; mo.nstack = mj->nstack; mo.memory = -1;
  mo.nuserdata = mj->nuserdata;

  // options
  const mjOption& o = mj->opt;
  mo.opt.timestep = o.timestep; mo.opt.apirate = o.apirate; mo.opt.impratio = o.impratio;
  mo.opt.tolerance = o.tolerance; mo.opt.noslip_tolerance = o.noslip_tolerance;
  mo.opt.mpr_tolerance = o.mpr_tolerance;
  for (int k = 0; k < 3; ++k) {
    mo.opt.gravity[k] = o.gravity[k]; mo.opt.wind[k] = o.wind[k]; mo.opt.magnetic[k] = o.magnetic[k];
  }
  mo.opt.density = o.density; mo.opt.viscosity = o.viscosity; mo.opt.o_margin = o.o_margin;
  for (int k = 0; k < mjNREF; ++k) mo.opt.o_solref[k] = o.o_solref[k];
  for (int k = 0; k < mjNIMP; ++k) mo.opt.o_solimp[k] = o.o_solimp[k];
  mo.opt.integrator = o.integrator; mo.opt.collision = o.collision; mo.opt.cone = o.cone;
  mo.opt.jacobian = o.jacobian; mo.opt.solver = o.solver; mo.opt.iterations = o.iterations;
  mo.opt.noslip_iterations = o.noslip_iterations; mo.opt.mpr_iterations = o.mpr_iterations;
  mo.opt.disableflags = o.disableflags; mo.opt.enableflags = o.enableflags;

  // statistics
  mo.stat.meaninertia = mj->stat.meaninertia; mo.stat.meanmass = mj->stat.meanmass;
  mo.stat.meansize = mj->stat.meansize; mo.stat.extent = mj->stat.extent;
  for (int k = 0; k < 3; ++k) mo.stat.center[k] = mj->stat.center[k];

  // arrays (same names and layouts as mjModel)
  copy_array(mo.qpos0, mj->qpos0, mj->nq);
  copy_array(mo.qpos_spring, mj->qpos_spring, mj->nq);
  copy_array(mo.body_parentid, mj->body_parentid, mj->nbody);
  copy_array(mo.body_rootid, mj->body_rootid, mj->nbody);
  copy_array(mo.body_weldid, mj->body_weldid, mj->nbody);
  copy_array(mo.body_mocapid, mj->body_mocapid, mj->nbody);
  copy_array(mo.body_jntnum, mj->body_jntnum, mj->nbody);
  copy_array(mo.body_jntadr, mj->body_jntadr, mj->nbody);
  copy_array(mo.body_dofnum, mj->body_dofnum, mj->nbody);
  copy_array(mo.body_dofadr, mj->body_dofadr, mj->nbody);
  copy_array(mo.body_geomnum, mj->body_geomnum, mj->nbody);
  copy_array(mo.body_geomadr, mj->body_geomadr, mj->nbody);
  copy_array(mo.body_simple, mj->body_simple, mj->nbody);
  copy_array(mo.body_sameframe, mj->body_sameframe, mj->nbody);
  copy_array(mo.body_pos, mj->body_pos, mj->nbody*3);
  copy_array(mo.body_quat, mj->body_quat, mj->nbody*4);
  copy_array(mo.body_ipos, mj->body_ipos, mj->nbody*3);
  copy_array(mo.body_iquat, mj->body_iquat, mj->nbody*4);
  copy_array(mo.body_mass, mj->body_mass, mj->nbody);
  copy_array(mo.body_subtreemass, mj->body_subtreemass, mj->nbody);
  copy_array(mo.body_inertia, mj->body_inertia, mj->nbody*3);
  copy_array(mo.body_invweight0, mj->body_invweight0, mj->nbody*2);
  copy_array(mo.body_user, mj->body_user, mj->nbody*mj->nuser_body);
  copy_array(mo.jnt_type, mj->jnt_type, mj->njnt);
  copy_array(mo.jnt_qposadr, mj->jnt_qposadr, mj->njnt);
  copy_array(mo.jnt_dofadr, mj->jnt_dofadr, mj->njnt);
  copy_array(mo.jnt_bodyid, mj->jnt_bodyid, mj->njnt);
  copy_array(mo.jnt_group, mj->jnt_group, mj->njnt);
  copy_array(mo.jnt_limited, mj->jnt_limited, mj->njnt);
  copy_array(mo.jnt_solref, mj->jnt_solref, mj->njnt*mjNREF);
  copy_array(mo.jnt_solimp, mj->jnt_solimp, mj->njnt*mjNIMP);
  copy_array(mo.jnt_pos, mj->jnt_pos, mj->njnt*3);
  copy_array(mo.jnt_axis, mj->jnt_axis, mj->njnt*3);
  copy_array(mo.jnt_stiffness, mj->jnt_stiffness, mj->njnt);
  copy_array(mo.jnt_range, mj->jnt_range, mj->njnt*2);
  copy_array(mo.jnt_margin, mj->jnt_margin, mj->njnt);
  copy_array(mo.jnt_user, mj->jnt_user, mj->njnt*mj->nuser_jnt);
  copy_array(mo.dof_bodyid, mj->dof_bodyid, mj->nv);
  copy_array(mo.dof_jntid, mj->dof_jntid, mj->nv);
  copy_array(mo.dof_parentid, mj->dof_parentid, mj->nv);
  copy_array(mo.dof_Madr, mj->dof_Madr, mj->nv);
  copy_array(mo.dof_simplenum, mj->dof_simplenum, mj->nv);
  copy_array(mo.dof_solref, mj->dof_solref, mj->nv*mjNREF);
  copy_array(mo.dof_solimp, mj->dof_solimp, mj->nv*mjNIMP);
  copy_array(mo.dof_frictionloss, mj->dof_frictionloss, mj->nv);
  copy_array(mo.dof_armature, mj->dof_armature, mj->nv);
  copy_array(mo.dof_damping, mj->dof_damping, mj->nv);
  copy_array(mo.dof_invweight0, mj->dof_invweight0, mj->nv);
  copy_array(mo.dof_M0, mj->dof_M0, mj->nv);
  copy_array(mo.geom_type, mj->geom_type, mj->ngeom);
  copy_array(mo.geom_contype, mj->geom_contype, mj->ngeom);
  copy_array(mo.geom_conaffinity, mj->geom_conaffinity, mj->ngeom);
  copy_array(mo.geom_condim, mj->geom_condim, mj->ngeom);
  copy_array(mo.geom_bodyid, mj->geom_bodyid, mj->ngeom);
  copy_array(mo.geom_dataid, mj->geom_dataid, mj->ngeom);
  copy_array(mo.geom_matid, mj->geom_matid, mj->ngeom);
  copy_array(mo.geom_group, mj->geom_group, mj->ngeom);
  copy_array(mo.geom_priority, mj->geom_priority, mj->ngeom);
  copy_array(mo.geom_sameframe, mj->geom_sameframe, mj->ngeom);
  copy_array(mo.geom_solmix, mj->geom_solmix, mj->ngeom);
  copy_array(mo.geom_solref, mj->geom_solref, mj->ngeom*mjNREF);
  copy_array(mo.geom_solimp, mj->geom_solimp, mj->ngeom*mjNIMP);
  copy_array(mo.geom_size, mj->geom_size, mj->ngeom*3);
  copy_array(mo.geom_rbound, mj->geom_rbound, mj->ngeom);
  copy_array(mo.geom_pos, mj->geom_pos, mj->ngeom*3);
  copy_array(mo.geom_quat, mj->geom_quat, mj->ngeom*4);
  copy_array(mo.geom_friction, mj->geom_friction, mj->ngeom*3);
  copy_array(mo.geom_margin, mj->geom_margin, mj->ngeom);
  copy_array(mo.geom_gap, mj->geom_gap, mj->ngeom);
  copy_array(mo.geom_fluid, mj->geom_fluid, mj->ngeom*mjNFLUID);
  copy_array(mo.geom_user, mj->geom_user, mj->ngeom*mj->nuser_geom);
  copy_array(mo.geom_rgba, mj->geom_rgba, mj->ngeom*4);
  copy_array(mo.site_type, mj->site_type, mj->nsite);
  copy_array(mo.site_bodyid, mj->site_bodyid, mj->nsite);
  copy_array(mo.site_matid, mj->site_matid, mj->nsite);
  copy_array(mo.site_group, mj->site_group, mj->nsite);
  copy_array(mo.site_sameframe, mj->site_sameframe, mj->nsite);
  copy_array(mo.site_size, mj->site_size, mj->nsite*3);
  copy_array(mo.site_pos, mj->site_pos, mj->nsite*3);
  copy_array(mo.site_quat, mj->site_quat, mj->nsite*4);
  copy_array(mo.site_user, mj->site_user, mj->nsite*mj->nuser_site);
  copy_array(mo.site_rgba, mj->site_rgba, mj->nsite*4);
  copy_array(mo.cam_mode, mj->cam_mode, mj->ncam);
  copy_array(mo.cam_bodyid, mj->cam_bodyid, mj->ncam);
  copy_array(mo.cam_targetbodyid, mj->cam_targetbodyid, mj->ncam);
  copy_array(mo.cam_pos, mj->cam_pos, mj->ncam*3);
  copy_array(mo.cam_quat, mj->cam_quat, mj->ncam*4);
  copy_array(mo.cam_poscom0, mj->cam_poscom0, mj->ncam*3);
  copy_array(mo.cam_pos0, mj->cam_pos0, mj->ncam*3);
  copy_array(mo.cam_mat0, mj->cam_mat0, mj->ncam*9);
  copy_array(mo.cam_fovy, mj->cam_fovy, mj->ncam);
  copy_array(mo.cam_ipd, mj->cam_ipd, mj->ncam);
  copy_array(mo.light_mode, mj->light_mode, mj->nlight);
  copy_array(mo.light_bodyid, mj->light_bodyid, mj->nlight);
  copy_array(mo.light_targetbodyid, mj->light_targetbodyid, mj->nlight);
  copy_array(mo.light_directional, mj->light_directional, mj->nlight);
  copy_array(mo.light_castshadow, mj->light_castshadow, mj->nlight);
  copy_array(mo.light_active, mj->light_active, mj->nlight);
  copy_array(mo.light_pos, mj->light_pos, mj->nlight*3);
  copy_array(mo.light_dir, mj->light_dir, mj->nlight*3);
  copy_array(mo.light_poscom0, mj->light_poscom0, mj->nlight*3);
  copy_array(mo.light_pos0, mj->light_pos0, mj->nlight*3);
  copy_array(mo.light_dir0, mj->light_dir0, mj->nlight*3);
  copy_array(mo.mesh_vertadr, mj->mesh_vertadr, mj->nmesh);
  copy_array(mo.mesh_vertnum, mj->mesh_vertnum, mj->nmesh);
  copy_array(mo.mesh_faceadr, mj->mesh_faceadr, mj->nmesh);
  copy_array(mo.mesh_facenum, mj->mesh_facenum, mj->nmesh);
  copy_array(mo.mesh_graphadr, mj->mesh_graphadr, mj->nmesh);
  copy_array(mo.mesh_vert, mj->mesh_vert, mj->nmeshvert*3);
  copy_array(mo.mesh_face, mj->mesh_face, mj->nmeshface*3);
  copy_array(mo.mesh_graph, mj->mesh_graph, mj->nmeshgraph);
  copy_array(mo.hfield_size, mj->hfield_size, mj->nhfield*4);
  copy_array(mo.hfield_nrow, mj->hfield_nrow, mj->nhfield);
  copy_array(mo.hfield_ncol, mj->hfield_ncol, mj->nhfield);
  copy_array(mo.hfield_adr, mj->hfield_adr, mj->nhfield);
  copy_array(mo.hfield_data, mj->hfield_data, mj->nhfielddata);
  copy_array(mo.pair_dim, mj->pair_dim, mj->npair);
  copy_array(mo.pair_geom1, mj->pair_geom1, mj->npair);
  copy_array(mo.pair_geom2, mj->pair_geom2, mj->npair);
  copy_array(mo.pair_signature, mj->pair_signature, mj->npair);
  copy_array(mo.pair_solref, mj->pair_solref, mj->npair*mjNREF);
  copy_array(mo.pair_solimp, mj->pair_solimp, mj->npair*mjNIMP);
  copy_array(mo.pair_margin, mj->pair_margin, mj->npair);
  copy_array(mo.pair_gap, mj->pair_gap, mj->npair);
  copy_array(mo.pair_friction, mj->pair_friction, mj->npair*5);
  copy_array(mo.exclude_signature, mj->exclude_signature, mj->nexclude);
  copy_array(mo.eq_type, mj->eq_type, mj->neq);
  copy_array(mo.eq_obj1id, mj->eq_obj1id, mj->neq);
  copy_array(mo.eq_obj2id, mj->eq_obj2id, mj->neq);
  copy_array(mo.eq_active, mj->eq_active, mj->neq);
  copy_array(mo.eq_solref, mj->eq_solref, mj->neq*mjNREF);
  copy_array(mo.eq_solimp, mj->eq_solimp, mj->neq*mjNIMP);
  copy_array(mo.eq_data, mj->eq_data, mj->neq*mjNEQDATA);
  copy_array(mo.tendon_adr, mj->tendon_adr, mj->ntendon);
  copy_array(mo.tendon_num, mj->tendon_num, mj->ntendon);
  copy_array(mo.tendon_group, mj->tendon_group, mj->ntendon);
  copy_array(mo.tendon_limited, mj->tendon_limited, mj->ntendon);
  copy_array(mo.tendon_width, mj->tendon_width, mj->ntendon);
  copy_array(mo.tendon_solref_lim, mj->tendon_solref_lim, mj->ntendon*mjNREF);
  copy_array(mo.tendon_solimp_lim, mj->tendon_solimp_lim, mj->ntendon*mjNIMP);
  copy_array(mo.tendon_solref_fri, mj->tendon_solref_fri, mj->ntendon*mjNREF);
  copy_array(mo.tendon_solimp_fri, mj->tendon_solimp_fri, mj->ntendon*mjNIMP);
  copy_array(mo.tendon_range, mj->tendon_range, mj->ntendon*2);
  copy_array(mo.tendon_margin, mj->tendon_margin, mj->ntendon);
  copy_array(mo.tendon_stiffness, mj->tendon_stiffness, mj->ntendon);
  copy_array(mo.tendon_damping, mj->tendon_damping, mj->ntendon);
  copy_array(mo.tendon_frictionloss, mj->tendon_frictionloss, mj->ntendon);
  copy_array(mo.tendon_lengthspring, mj->tendon_lengthspring, mj->ntendon);
  copy_array(mo.tendon_length0, mj->tendon_length0, mj->ntendon);
  copy_array(mo.tendon_invweight0, mj->tendon_invweight0, mj->ntendon);
  copy_array(mo.tendon_user, mj->tendon_user, mj->ntendon*mj->nuser_tendon);
  copy_array(mo.wrap_type, mj->wrap_type, mj->nwrap);
  copy_array(mo.wrap_objid, mj->wrap_objid, mj->nwrap);
  copy_array(mo.wrap_prm, mj->wrap_prm, mj->nwrap);
  copy_array(mo.actuator_trntype, mj->actuator_trntype, mj->nu);
  copy_array(mo.actuator_dyntype, mj->actuator_dyntype, mj->nu);
  copy_array(mo.actuator_gaintype, mj->actuator_gaintype, mj->nu);
  copy_array(mo.actuator_biastype, mj->actuator_biastype, mj->nu);
  copy_array(mo.actuator_trnid, mj->actuator_trnid, mj->nu*2);
  copy_array(mo.actuator_group, mj->actuator_group, mj->nu);
  copy_array(mo.actuator_ctrllimited, mj->actuator_ctrllimited, mj->nu);
  copy_array(mo.actuator_forcelimited, mj->actuator_forcelimited, mj->nu);
  copy_array(mo.actuator_actlimited, mj->actuator_actlimited, mj->nu);
  copy_array(mo.actuator_dynprm, mj->actuator_dynprm, mj->nu*mjNDYN);
  copy_array(mo.actuator_gainprm, mj->actuator_gainprm, mj->nu*mjNGAIN);
  copy_array(mo.actuator_biasprm, mj->actuator_biasprm, mj->nu*mjNBIAS);
  copy_array(mo.actuator_ctrlrange, mj->actuator_ctrlrange, mj->nu*2);
  copy_array(mo.actuator_forcerange, mj->actuator_forcerange, mj->nu*2);
  copy_array(mo.actuator_actrange, mj->actuator_actrange, mj->nu*2);
  copy_array(mo.actuator_gear, mj->actuator_gear, mj->nu*6);
  copy_array(mo.actuator_cranklength, mj->actuator_cranklength, mj->nu);
  copy_array(mo.actuator_acc0, mj->actuator_acc0, mj->nu);
  copy_array(mo.actuator_length0, mj->actuator_length0, mj->nu);
  copy_array(mo.actuator_lengthrange, mj->actuator_lengthrange, mj->nu*2);
  copy_array(mo.actuator_user, mj->actuator_user, mj->nu*mj->nuser_actuator);
  copy_array(mo.sensor_type, mj->sensor_type, mj->nsensor);
  // 2.2.2 has no plugin sensor: its user sensor (36) is Moreau's kSensUser (37)
  for (int& t : mo.sensor_type)
    if (t == mjSENS_USER) t = kSensUser;
  copy_array(mo.sensor_datatype, mj->sensor_datatype, mj->nsensor);
  copy_array(mo.sensor_needstage, mj->sensor_needstage, mj->nsensor);
  copy_array(mo.sensor_objtype, mj->sensor_objtype, mj->nsensor);
  copy_array(mo.sensor_objid, mj->sensor_objid, mj->nsensor);
  copy_array(mo.sensor_reftype, mj->sensor_reftype, mj->nsensor);
  copy_array(mo.sensor_refid, mj->sensor_refid, mj->nsensor);
  copy_array(mo.sensor_dim, mj->sensor_dim, mj->nsensor);
  copy_array(mo.sensor_adr, mj->sensor_adr, mj->nsensor);
  copy_array(mo.sensor_cutoff, mj->sensor_cutoff, mj->nsensor);
  copy_array(mo.sensor_noise, mj->sensor_noise, mj->nsensor);
  copy_array(mo.sensor_user, mj->sensor_user, mj->nsensor*mj->nuser_sensor);
  copy_array(mo.numeric_adr, mj->numeric_adr, mj->nnumeric);
  copy_array(mo.numeric_size, mj->numeric_size, mj->nnumeric);
  copy_array(mo.numeric_data, mj->numeric_data, mj->nnumericdata);
  copy_array(mo.key_time, mj->key_time, mj->nkey);
  copy_array(mo.key_qpos, mj->key_qpos, mj->nkey*mj->nq);
  copy_array(mo.key_qvel, mj->key_qvel, mj->nkey*mj->nv);
  copy_array(mo.key_act, mj->key_act, mj->nkey*mj->na);
  copy_array(mo.key_ctrl, mj->key_ctrl, mj->nkey*mj->nu);
  copy_array(mo.key_mpos, mj->key_mpos, mj->nkey * 3 * mj->nmocap);
  copy_array(mo.key_mquat, mj->key_mquat, mj->nkey * 4 * mj->nmocap);

  // fields newer than MuJoCo 2.2.2
  mo.body_gravcomp.assign(mj->nbody, 0.0);
  mo.tendon_armature.assign(mj->ntendon, 0.0);
  mo.actuator_actearly.assign(mj->nu, 0);
  mo.actuator_actadr.assign(mj->nu, -1);
  mo.actuator_actnum.assign(mj->nu, 0);
  for (int i = 0, a = 0; i < mj->nu; ++i)
    if (mj->actuator_dyntype[i] != mjDYN_NONE) { mo.actuator_actadr[i] = a++; mo.actuator_actnum[i] = 1; }

  // custom text
  mo.text_data.resize(mj->ntext);
  for (int i = 0; i < mj->ntext; ++i) mo.text_data[i] = std::string(mj->text_data + mj->text_adr[i]);

  // names
  mo.modelname = mj->names;
  mo.body_names = names(mj, mj->name_bodyadr, mj->nbody);
  mo.jnt_names = names(mj, mj->name_jntadr, mj->njnt);
  mo.geom_names = names(mj, mj->name_geomadr, mj->ngeom);
  mo.site_names = names(mj, mj->name_siteadr, mj->nsite);
  mo.cam_names = names(mj, mj->name_camadr, mj->ncam);
  mo.light_names = names(mj, mj->name_lightadr, mj->nlight);
  mo.mesh_names = names(mj, mj->name_meshadr, mj->nmesh);
  mo.hfield_names = names(mj, mj->name_hfieldadr, mj->nhfield);
  mo.tex_names = names(mj, mj->name_texadr, mj->ntex);
  mo.mat_names = names(mj, mj->name_matadr, mj->nmat);
  mo.pair_names = names(mj, mj->name_pairadr, mj->npair);
  mo.exclude_names = names(mj, mj->name_excludeadr, mj->nexclude);
  mo.eq_names = names(mj, mj->name_eqadr, mj->neq);
  mo.tendon_names = names(mj, mj->name_tendonadr, mj->ntendon);
  mo.actuator_names = names(mj, mj->name_actuatoradr, mj->nu);
  mo.sensor_names = names(mj, mj->name_sensoradr, mj->nsensor);
  mo.numeric_names = names(mj, mj->name_numericadr, mj->nnumeric);
  mo.text_names = names(mj, mj->name_textadr, mj->ntext);
  mo.tuple_names = names(mj, mj->name_tupleadr, mj->ntuple);
  mo.key_names = names(mj, mj->name_keyadr, mj->nkey);
  return mo;
}

MjModelPtr load_mujoco(const std::string& path, std::string* error) {
  char err[1000] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, err, sizeof(err));
  if (!m && error) *error = err;
  return MjModelPtr(m);
}

std::string load_moreau(const std::string& path, Model* m) {
  try {
    *m = load_model(path);
  } catch (const std::exception& e) {
    return std::string("Moreau's loader refuses a model MuJoCo 2.2.2 loads: ") + e.what();
  }
  return {};
}

std::string resolve_model_path(const std::string& entry) { return test_models::resolve(entry); }

std::vector<std::string> model_list() { return test_models::entries(); }
std::vector<std::string> model_list_all() { return test_models::all_entries(); }

void smooth_random_ctrl(const mjModel* mj, mjData* D, int step, std::vector<double>& target,
                        std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  if (step % 20 == 0)
    for (int i = 0; i < mj->nu; ++i) target[i] = u(rng);
  for (int i = 0; i < mj->nu; ++i) {
    double c = target[i];
    if (mj->actuator_ctrllimited[i]) {
      const double lo = mj->actuator_ctrlrange[2 * i], hi = mj->actuator_ctrlrange[2 * i + 1];
      c = lo + (hi - lo) * 0.5 * (c + 1);
    }
    D->ctrl[i] = c;
  }
}

bool mjcf_text_mentions(const std::string& path, const std::vector<std::string>& words) {
  std::ifstream in(path);
  if (!in) return true;  // unreadable: let the caller's load decide
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (const std::string& w : words)
    if (text.find(w) != std::string::npos) return true;
  static const std::regex include(R"re(<include\s+file\s*=\s*"([^"]+)")re");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it)
    if (mjcf_text_mentions((dir / (*it)[1].str()).string(), words)) return true;
  return false;
}
std::vector<std::string> select_models(const std::vector<std::string>& filtered) {
  return test_models::select(filtered);
}

void random_qpos(const mjModel* mj, std::mt19937_64& rng, double* qpos, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::normal_distribution<double> g(0, 1);
  for (int i = 0; i < mj->nq; ++i) qpos[i] = mj->qpos0[i];
  auto random_quat = [&](double* q) {
    double n = 0;
    do {
      for (int k = 0; k < 4; ++k) q[k] = g(rng);
      n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 1e-3);
    for (int k = 0; k < 4; ++k) q[k] /= n;
  };
  for (int j = 0; j < mj->njnt; ++j) {
    double* q = qpos + mj->jnt_qposadr[j];
    switch (mj->jnt_type[j]) {
      case mjJNT_FREE:
        for (int k = 0; k < 3; ++k) q[k] += u(rng);
        random_quat(q + 3);
        break;
      case mjJNT_BALL:
        random_quat(q);
        break;
      default:
        q[0] += u(rng);
        break;
    }
  }
}

void random_qvel(const mjModel* mj, std::mt19937_64& rng, double* qvel, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  for (int i = 0; i < mj->nv; ++i) qvel[i] = u(rng);
}

double max_rel_err(const double* a, const double* b, int n) {
  double err = 0, scale = 0;
  for (int i = 0; i < n; ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= err)) err = d;  // NaN propagates as a failure
    scale = std::max(scale, std::abs(b[i]));
  }
  if (err == 0) return 0;
  return err / std::max(scale, 1e-6);
}

void strip_unimplemented(mjModel* mj) {
  for (int t = 0; t < mj->ntendon; ++t) {
    mj->tendon_stiffness[t] = 0;
    mj->tendon_damping[t] = 0;
  }
}

double adopt_fluid_virtual_inertia(Model& m, const mjModel* mj) {
  double worst = 0;
  for (int g = 0; g < mj->ngeom && g < m.ngeom; ++g)
    for (int k = 6; k < mjNFLUID; ++k) {
      const int i = mjNFLUID * g + k;
      const double ref = std::abs(mj->geom_fluid[i]);
      if (ref > 0 || m.geom_fluid[i] != 0)
        worst = std::max(worst, std::abs(m.geom_fluid[i] - mj->geom_fluid[i]) / std::max(ref, 1e-300));
      m.geom_fluid[i] = mj->geom_fluid[i];
    }
  return worst;
}

std::vector<double> mujoco_qderiv(const mjModel* M, const mjData* D) {
  const int nv = M->nv;
  std::vector<double> dense(static_cast<size_t>(nv) * nv, 0.0);
  for (int i = 0; i < nv; ++i)
    for (int k = 0; k < D->D_rownnz[i]; ++k)
      dense[static_cast<size_t>(i) * nv + D->D_colind[D->D_rowadr[i] + k]] = D->qDeriv[D->D_rowadr[i] + k];
  return dense;
}

}  // namespace moreau::testing

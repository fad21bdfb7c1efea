// The Model's fields in one list, for the binary format (src/io/binary.cc) and the tests.
//
// MOREAU_MODEL_FIELDS(X) calls X(name, count) once per field: `name` is a member expression of
// Model (scalars, fixed arrays, members of nested structs such as opt.timestep), `count` the
// number of elements a std::vector field must have in terms of the model's sizes (m.nbody ...),
// or -1 where the length is not fixed by the sizes (scalars, arrays whose length is an address
// table's). A new Model field is one line here; tests/unit/model_io_test.cc fails naming any
// std::vector member of include/moreau/model.h that is missing.
#pragma once

#define MOREAU_MODEL_FIELDS(X)                                                             \
  /* sizes */                                                                              \
  X(nq, -1) X(nv, -1) X(nu, -1) X(na, -1)                                                  \
  X(nbody, -1) X(njnt, -1) X(ngeom, -1) X(nsite, -1) X(ncam, -1) X(nlight, -1)             \
  X(nmesh, -1) X(nmeshvert, -1) X(nmeshface, -1) X(nhfield, -1) X(nhfielddata, -1)         \
  X(ntex, -1) X(ntexdata, -1) X(nmat, -1) X(nskin, -1)                                                     \
  X(npair, -1) X(nexclude, -1) X(neq, -1) X(ntendon, -1) X(nwrap, -1) X(nsensor, -1)       \
  X(nnumeric, -1) X(nnumericdata, -1) X(ntext, -1) X(ntuple, -1)                           \
  X(nkey, -1) X(nmocap, -1)                                                                \
  X(nuser_body, -1) X(nuser_jnt, -1) X(nuser_geom, -1) X(nuser_site, -1) X(nuser_cam, -1)  \
  X(nuser_tendon, -1) X(nuser_actuator, -1) X(nuser_sensor, -1)                            \
  X(nM, -1) X(nD, -1) X(nsensordata, -1) X(nconmax, -1) X(njmax, -1) X(nstack, -1)         \
  X(memory, -1) X(nuserdata, -1)                                                           \
  /* options */                                                                            \
  X(opt.timestep, -1) X(opt.apirate, -1) X(opt.impratio, -1) X(opt.tolerance, -1)          \
  X(opt.noslip_tolerance, -1) X(opt.mpr_tolerance, -1) X(opt.gravity, -1)                  \
  X(opt.wind, -1) X(opt.magnetic, -1) X(opt.density, -1) X(opt.viscosity, -1)              \
  X(opt.o_margin, -1) X(opt.o_solref, -1) X(opt.o_solimp, -1) X(opt.integrator, -1)        \
  X(opt.collision, -1) X(opt.cone, -1) X(opt.jacobian, -1) X(opt.solver, -1)               \
  X(opt.iterations, -1) X(opt.noslip_iterations, -1) X(opt.mpr_iterations, -1)             \
  X(opt.disableflags, -1) X(opt.enableflags, -1)                                           \
  /* statistics */                                                                         \
  X(stat.meaninertia, -1) X(stat.meanmass, -1) X(stat.meansize, -1) X(stat.extent, -1)     \
  X(stat.center, -1)                                                                       \
  X(modelname, -1) X(model_file, -1)                                                       \
  /* qpos */                                                                               \
  X(qpos0, m.nq) X(qpos_spring, m.nq)                                                      \
  /* bodies */                                                                             \
  X(body_parentid, m.nbody) X(body_rootid, m.nbody) X(body_weldid, m.nbody)                \
  X(body_mocapid, m.nbody) X(body_jntnum, m.nbody) X(body_jntadr, m.nbody)                 \
  X(body_dofnum, m.nbody) X(body_dofadr, m.nbody) X(body_geomnum, m.nbody)                 \
  X(body_geomadr, m.nbody) X(body_simple, m.nbody) X(body_sameframe, m.nbody)              \
  X(body_pos, 3 * m.nbody) X(body_quat, 4 * m.nbody) X(body_ipos, 3 * m.nbody)             \
  X(body_iquat, 4 * m.nbody) X(body_mass, m.nbody) X(body_subtreemass, m.nbody)            \
  X(body_inertia, 3 * m.nbody) X(body_invweight0, 2 * m.nbody) X(body_gravcomp, m.nbody)   \
  X(body_user, m.nuser_body * m.nbody)                                                     \
  /* joints */                                                                             \
  X(jnt_type, m.njnt) X(jnt_qposadr, m.njnt) X(jnt_dofadr, m.njnt) X(jnt_bodyid, m.njnt)   \
  X(jnt_group, m.njnt) X(jnt_limited, m.njnt) X(jnt_solref, kNREF * m.njnt)                \
  X(jnt_solimp, kNIMP * m.njnt) X(jnt_pos, 3 * m.njnt) X(jnt_axis, 3 * m.njnt)             \
  X(jnt_stiffness, m.njnt) X(jnt_range, 2 * m.njnt) X(jnt_margin, m.njnt)                  \
  X(jnt_user, m.nuser_jnt * m.njnt)                                                        \
  /* dofs */                                                                               \
  X(dof_bodyid, m.nv) X(dof_jntid, m.nv) X(dof_parentid, m.nv) X(dof_Madr, m.nv)           \
  X(dof_simplenum, m.nv) X(dof_solref, kNREF * m.nv) X(dof_solimp, kNIMP * m.nv)           \
  X(dof_frictionloss, m.nv) X(dof_armature, m.nv) X(dof_damping, m.nv)                     \
  X(dof_invweight0, m.nv) X(dof_M0, m.nv)                                                  \
  /* geoms */                                                                              \
  X(geom_type, m.ngeom) X(geom_contype, m.ngeom) X(geom_conaffinity, m.ngeom)              \
  X(geom_condim, m.ngeom) X(geom_bodyid, m.ngeom) X(geom_dataid, m.ngeom)                  \
  X(geom_matid, m.ngeom) X(geom_group, m.ngeom) X(geom_priority, m.ngeom)                  \
  X(geom_sameframe, m.ngeom) X(geom_solmix, m.ngeom) X(geom_solref, kNREF * m.ngeom)       \
  X(geom_solimp, kNIMP * m.ngeom) X(geom_size, 3 * m.ngeom) X(geom_rbound, m.ngeom)        \
  X(geom_pos, 3 * m.ngeom) X(geom_quat, 4 * m.ngeom) X(geom_friction, 3 * m.ngeom)         \
  X(geom_srcpos, 3 * m.ngeom) X(geom_srcquat, 4 * m.ngeom)                                 \
  X(geom_margin, m.ngeom) X(geom_gap, m.ngeom) X(geom_fluid, kNFLUID * m.ngeom)            \
  X(geom_user, m.nuser_geom * m.ngeom) X(geom_rgba, 4 * m.ngeom)                           \
  /* sites */                                                                              \
  X(site_type, m.nsite) X(site_bodyid, m.nsite) X(site_matid, m.nsite)                     \
  X(site_group, m.nsite) X(site_sameframe, m.nsite) X(site_size, 3 * m.nsite)              \
  X(site_pos, 3 * m.nsite) X(site_quat, 4 * m.nsite) X(site_user, m.nuser_site * m.nsite)  \
  X(site_rgba, 4 * m.nsite)                                                                \
  /* cameras */                                                                            \
  X(cam_mode, m.ncam) X(cam_bodyid, m.ncam) X(cam_targetbodyid, m.ncam)                    \
  X(cam_pos, 3 * m.ncam) X(cam_quat, 4 * m.ncam) X(cam_poscom0, 3 * m.ncam)                \
  X(cam_pos0, 3 * m.ncam) X(cam_mat0, 9 * m.ncam) X(cam_fovy, m.ncam) X(cam_ipd, m.ncam)   \
  /* lights */                                                                             \
  X(light_mode, m.nlight) X(light_bodyid, m.nlight) X(light_targetbodyid, m.nlight)        \
  X(light_directional, m.nlight) X(light_castshadow, m.nlight) X(light_active, m.nlight)   \
  X(light_pos, 3 * m.nlight) X(light_dir, 3 * m.nlight) X(light_poscom0, 3 * m.nlight)     \
  X(light_pos0, 3 * m.nlight) X(light_dir0, 3 * m.nlight)                                  \
  /* meshes */                                                                             \
  X(mesh_vertadr, m.nmesh) X(mesh_vertnum, m.nmesh) X(mesh_faceadr, m.nmesh)               \
  X(mesh_facenum, m.nmesh) X(mesh_graphadr, m.nmesh) X(mesh_vert, 3 * m.nmeshvert)         \
  X(mesh_face, 3 * m.nmeshface) X(mesh_graph, -1)                                          \
  X(mesh_srcvert, 3 * m.nmeshvert) X(mesh_refpos, 3 * m.nmesh)                             \
  X(mesh_refquat, 4 * m.nmesh) X(mesh_scale, 3 * m.nmesh) X(mesh_pos, 3 * m.nmesh)         \
  X(mesh_quat, 4 * m.nmesh) X(mesh_hullface, m.nmesh)                                      \
  /* height fields */                                                                      \
  X(hfield_size, 4 * m.nhfield) X(hfield_nrow, m.nhfield) X(hfield_ncol, m.nhfield)        \
  X(hfield_adr, m.nhfield) X(hfield_data, m.nhfielddata)                                   \
  /* contact pairs, excludes */                                                            \
  X(pair_dim, m.npair) X(pair_geom1, m.npair) X(pair_geom2, m.npair)                       \
  X(pair_signature, m.npair) X(pair_solref, kNREF * m.npair)                               \
  X(pair_solimp, kNIMP * m.npair) X(pair_margin, m.npair) X(pair_gap, m.npair)             \
  X(pair_friction, 5 * m.npair) X(exclude_signature, m.nexclude)                           \
  /* equality constraints */                                                               \
  X(eq_type, m.neq) X(eq_obj1id, m.neq) X(eq_obj2id, m.neq) X(eq_active, m.neq)            \
  X(eq_solref, kNREF * m.neq) X(eq_solimp, kNIMP * m.neq) X(eq_data, kNEQDATA * m.neq)     \
  /* tendons */                                                                            \
  X(tendon_adr, m.ntendon) X(tendon_num, m.ntendon) X(tendon_group, m.ntendon)             \
  X(tendon_limited, m.ntendon) X(tendon_width, m.ntendon)                                  \
  X(tendon_solref_lim, kNREF * m.ntendon) X(tendon_solimp_lim, kNIMP * m.ntendon)          \
  X(tendon_solref_fri, kNREF * m.ntendon) X(tendon_solimp_fri, kNIMP * m.ntendon)          \
  X(tendon_range, 2 * m.ntendon) X(tendon_margin, m.ntendon)                               \
  X(tendon_stiffness, m.ntendon) X(tendon_damping, m.ntendon)                              \
  X(tendon_frictionloss, m.ntendon) X(tendon_lengthspring, m.ntendon)                      \
  X(tendon_length0, m.ntendon) X(tendon_invweight0, m.ntendon)                             \
  X(tendon_user, m.nuser_tendon * m.ntendon) X(tendon_armature, m.ntendon)                 \
  X(wrap_type, m.nwrap) X(wrap_objid, m.nwrap) X(wrap_prm, m.nwrap)                        \
  /* actuators */                                                                          \
  X(actuator_trntype, m.nu) X(actuator_dyntype, m.nu) X(actuator_gaintype, m.nu)           \
  X(actuator_biastype, m.nu) X(actuator_trnid, 2 * m.nu) X(actuator_actadr, m.nu)          \
  X(actuator_actnum, m.nu) X(actuator_group, m.nu) X(actuator_ctrllimited, m.nu)           \
  X(actuator_forcelimited, m.nu) X(actuator_actlimited, m.nu) X(actuator_actearly, m.nu)   \
  X(actuator_dynprm, kNDYN * m.nu) X(actuator_gainprm, kNGAIN * m.nu)                      \
  X(actuator_biasprm, kNBIAS * m.nu) X(actuator_ctrlrange, 2 * m.nu)                       \
  X(actuator_forcerange, 2 * m.nu) X(actuator_actrange, 2 * m.nu)                          \
  X(actuator_gear, 6 * m.nu) X(actuator_cranklength, m.nu) X(actuator_acc0, m.nu)          \
  X(actuator_length0, m.nu) X(actuator_lengthrange, 2 * m.nu)                              \
  X(actuator_user, m.nuser_actuator * m.nu)                                                \
  /* sensors */                                                                            \
  X(sensor_type, m.nsensor) X(sensor_datatype, m.nsensor) X(sensor_needstage, m.nsensor)   \
  X(sensor_objtype, m.nsensor) X(sensor_objid, m.nsensor) X(sensor_reftype, m.nsensor)     \
  X(sensor_refid, m.nsensor) X(sensor_dim, m.nsensor) X(sensor_adr, m.nsensor)             \
  X(sensor_cutoff, m.nsensor) X(sensor_noise, m.nsensor)                                   \
  X(sensor_user, m.nuser_sensor * m.nsensor)                                               \
  /* custom */                                                                             \
  X(numeric_adr, m.nnumeric) X(numeric_size, m.nnumeric) X(numeric_data, m.nnumericdata)   \
  X(text_data, m.ntext)                                                                    \
  /* keyframes */                                                                          \
  X(key_time, m.nkey) X(key_qpos, m.nq * m.nkey) X(key_qvel, m.nv * m.nkey)                \
  X(key_act, m.na * m.nkey) X(key_mpos, 3 * m.nmocap * m.nkey)                             \
  X(key_mquat, 4 * m.nmocap * m.nkey) X(key_ctrl, m.nu * m.nkey)                           \
  /* materials, textures, visual settings */                                                 \
  X(tex_type, m.ntex) X(tex_height, m.ntex) X(tex_width, m.ntex) X(tex_builtin, m.ntex)    \
  X(tex_adr, m.ntex) X(tex_rgb, m.ntexdata)                                                \
  X(tex_mark, m.ntex) X(tex_rgb1, 3 * m.ntex) X(tex_rgb2, 3 * m.ntex)                      \
  X(tex_markrgb, 3 * m.ntex) X(tex_random, m.ntex) X(tex_file, m.ntex)                     \
  X(tex_cubefile, 6 * m.ntex) X(tex_gridsize, 2 * m.ntex) X(tex_gridlayout, m.ntex)        \
  X(tex_hflip, m.ntex) X(tex_vflip, m.ntex) X(mat_texid, m.nmat)                           \
  X(mat_texuniform, m.nmat) X(mat_texrepeat, 2 * m.nmat) X(mat_emission, m.nmat)           \
  X(mat_specular, m.nmat) X(mat_shininess, m.nmat) X(mat_reflectance, m.nmat)              \
  X(mat_rgba, 4 * m.nmat) X(vis.global.fovy, -1) X(vis.global.ipd, -1)                     \
  X(vis.global.azimuth, -1) X(vis.global.elevation, -1) X(vis.global.linewidth, -1)        \
  X(vis.global.glow, -1) X(vis.global.offwidth, -1) X(vis.global.offheight, -1)            \
  X(vis.quality.shadowsize, -1) X(vis.quality.offsamples, -1) X(vis.quality.numslices, -1) \
  X(vis.quality.numstacks, -1) X(vis.quality.numquads, -1) X(vis.headlight.ambient, -1)    \
  X(vis.headlight.diffuse, -1) X(vis.headlight.specular, -1) X(vis.headlight.active, -1)   \
  X(vis.map.stiffness, -1) X(vis.map.stiffnessrot, -1) X(vis.map.force, -1)                \
  X(vis.map.torque, -1) X(vis.map.alpha, -1) X(vis.map.fogstart, -1) X(vis.map.fogend, -1) \
  X(vis.map.znear, -1) X(vis.map.zfar, -1) X(vis.map.haze, -1) X(vis.map.shadowclip, -1)   \
  X(vis.map.shadowscale, -1) X(vis.map.actuatortendon, -1) X(vis.scale.forcewidth, -1)     \
  X(vis.scale.contactwidth, -1) X(vis.scale.contactheight, -1) X(vis.scale.connect, -1)    \
  X(vis.scale.com, -1) X(vis.scale.camera, -1) X(vis.scale.light, -1)                      \
  X(vis.scale.selectpoint, -1) X(vis.scale.jointlength, -1) X(vis.scale.jointwidth, -1)    \
  X(vis.scale.actuatorlength, -1) X(vis.scale.actuatorwidth, -1)                           \
  X(vis.scale.framelength, -1) X(vis.scale.framewidth, -1) X(vis.scale.constraint, -1)     \
  X(vis.scale.slidercrank, -1) X(vis.rgba.fog, -1) X(vis.rgba.haze, -1)                    \
  X(vis.rgba.force, -1) X(vis.rgba.inertia, -1) X(vis.rgba.joint, -1)                      \
  X(vis.rgba.actuator, -1) X(vis.rgba.actuatornegative, -1)                                \
  X(vis.rgba.actuatorpositive, -1) X(vis.rgba.com, -1) X(vis.rgba.camera, -1)              \
  X(vis.rgba.light, -1) X(vis.rgba.selectpoint, -1) X(vis.rgba.connect, -1)                \
  X(vis.rgba.contactpoint, -1) X(vis.rgba.contactforce, -1) X(vis.rgba.contactfriction, -1)\
  X(vis.rgba.contacttorque, -1) X(vis.rgba.contactgap, -1) X(vis.rgba.rangefinder, -1)     \
  X(vis.rgba.constraint, -1) X(vis.rgba.slidercrank, -1) X(vis.rgba.crankbroken, -1)       \
  /* names */                                                                              \
  X(body_names, m.nbody) X(jnt_names, m.njnt) X(geom_names, m.ngeom)                       \
  X(site_names, m.nsite) X(cam_names, m.ncam) X(light_names, m.nlight)                     \
  X(mesh_names, m.nmesh) X(hfield_names, m.nhfield) X(tex_names, m.ntex)                   \
  X(mat_names, m.nmat) X(pair_names, m.npair) X(exclude_names, m.nexclude)                 \
  X(eq_names, m.neq) X(tendon_names, m.ntendon) X(actuator_names, m.nu)                    \
  X(sensor_names, m.nsensor) X(numeric_names, m.nnumeric) X(text_names, m.ntext)           \
  X(tuple_names, m.ntuple) X(key_names, m.nkey)

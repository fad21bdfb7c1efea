// Bodies, joints, dofs, geoms, sites, cameras, lights, assets, inertia and the tree structure.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/compiler.h"
#include "dynamics/fluid.h"
#include "math/vec.h"
#include "mesh/mesh.h"

namespace moreau::compiler {

using namespace moreau::math;

void Compiler::flatten(const mjcf::BodySpec& b, int parent) {
  const int id = static_cast<int>(bodies_.size());
  bodies_.push_back(&b);
  m_.body_parentid.push_back(parent);
  children_.emplace_back();
  if (parent >= 0) children_[parent].push_back(id);
  body_names_.add(b.name, id, b.src);
  for (const auto& c : b.children) flatten(c, id);
}

// ------------------------------------------------------------------------------ assets

// Convex hull graphs (collision detection walks them), computed from the stored single-precision
// vertices. As 2.2.2 (established by loading models in it): a mesh gets a graph when its faces
// came from its hull (no faces given) or when some geom using it can collide (contype or
// conaffinity non-zero); purely visual meshes (the dog's bones, the mug) get none.
void Compiler::compile_mesh_graphs() {
  std::vector<char> needed(m_.nmesh, 0);
  for (int i = 0; i < m_.nmesh; ++i) needed[i] = meshes_[i].faces_from_hull;
  for (int g = 0; g < m_.ngeom; ++g)
    if (m_.geom_type[g] == kGeomMesh && (m_.geom_contype[g] || m_.geom_conaffinity[g])) needed[m_.geom_dataid[g]] = 1;
  for (int i = 0; i < m_.nmesh; ++i) {
    if (!needed[i]) continue;
    try {
      const std::vector<float>& v = meshes_[i].raw_vert;
      const std::vector<int> graph = mesh::hull_graph(v.data(), static_cast<int>(v.size() / 3));
      m_.mesh_graphadr[i] = static_cast<int>(m_.mesh_graph.size());
      m_.mesh_graph.insert(m_.mesh_graph.end(), graph.begin(), graph.end());
    } catch (const std::exception& e) {
      fail(s_.meshes[i].src, std::string("mesh convex hull: ") + e.what());
    }
  }
}

void Compiler::compile_assets() {
  for (size_t i = 0; i < s_.materials.size(); ++i)
    if (!s_.materials[i].name.empty()) mat_names_.ids.emplace(s_.materials[i].name, static_cast<int>(i));
  // Unnamed textures take their file's name without directory and extension (as 2.2.2).
  std::vector<std::string> tex_names;
  for (const auto& t : s_.textures) {
    std::string name = t.name.empty() ? t.file : t.name;
    if (t.name.empty()) {
      const auto sl = name.find_last_of('/');
      if (sl != std::string::npos) name = name.substr(sl + 1);
      const auto dot = name.find_last_of('.');
      if (dot != std::string::npos) name = name.substr(0, dot);
    }
    tex_names.push_back(name);
  }
  for (size_t i = 0; i < tex_names.size(); ++i)
    if (!tex_names[i].empty()) tex_names_.ids.emplace(tex_names[i], static_cast<int>(i));
  m_.nmat = static_cast<int>(s_.materials.size());
  m_.ntex = static_cast<int>(s_.textures.size());
  m_.nskin = static_cast<int>(s_.skins.size());
  m_.tex_names = tex_names;
  compile_textures(s_, m_);
  for (const auto& mt : s_.materials) {
    m_.mat_names.push_back(mt.name);
    m_.mat_texid.push_back(mt.texture.empty() ? -1 : tex_names_.get(mt.texture, mt.src, "texture"));
    m_.mat_texuniform.push_back(mt.texuniform ? 1 : 0);
    for (int k = 0; k < 2; ++k) m_.mat_texrepeat.push_back(static_cast<float>(mt.texrepeat[k]));
    m_.mat_emission.push_back(static_cast<float>(mt.emission));
    m_.mat_specular.push_back(static_cast<float>(mt.specular));
    m_.mat_shininess.push_back(static_cast<float>(mt.shininess));
    m_.mat_reflectance.push_back(static_cast<float>(mt.reflectance));
    for (int k = 0; k < 4; ++k) m_.mat_rgba.push_back(static_cast<float>(mt.rgba[k]));
  }
  for (const auto& ms : s_.meshes) {
    std::string name = ms.name;
    if (name.empty()) {
      // Unnamed meshes take the file name without directory and extension.
      name = ms.file;
      const auto sl = name.find_last_of('/');
      if (sl != std::string::npos) name = name.substr(sl + 1);
      const auto dot = name.find_last_of('.');
      if (dot != std::string::npos) name = name.substr(0, dot);
    }
    mesh_names_.add(name, static_cast<int>(meshes_.size()), ms.src);
    meshes_.push_back(load_mesh(ms, s_));
    const MeshInfo& mi = meshes_.back();
    m_.mesh_names.push_back(name);
    m_.mesh_vertadr.push_back(m_.nmeshvert);
    m_.mesh_vertnum.push_back(static_cast<int>(mi.vert.size() / 3));
    m_.mesh_faceadr.push_back(m_.nmeshface);
    m_.mesh_facenum.push_back(static_cast<int>(mi.face.size() / 3));
    m_.mesh_graphadr.push_back(-1);  // compile_mesh_graphs, once the geoms are known
    for (double v : mi.vert) m_.mesh_vert.push_back(static_cast<float>(v));
    for (int f : mi.face) m_.mesh_face.push_back(f);
    m_.mesh_srcvert.insert(m_.mesh_srcvert.end(), mi.src_vert.begin(), mi.src_vert.end());
    m_.mesh_refpos.insert(m_.mesh_refpos.end(), ms.refpos, ms.refpos + 3);
    m_.mesh_refquat.insert(m_.mesh_refquat.end(), ms.refquat, ms.refquat + 4);
    m_.mesh_scale.insert(m_.mesh_scale.end(), ms.scale, ms.scale + 3);
    m_.mesh_pos.insert(m_.mesh_pos.end(), mi.pos, mi.pos + 3);
    m_.mesh_quat.insert(m_.mesh_quat.end(), mi.quat, mi.quat + 4);
    m_.mesh_hullface.push_back(mi.faces_from_hull);
    m_.nmeshvert += static_cast<int>(mi.vert.size() / 3);
    m_.nmeshface += static_cast<int>(mi.face.size() / 3);
  }
  m_.nmesh = static_cast<int>(meshes_.size());
  for (const auto& h : s_.hfields) {
    hfield_names_.add(h.name, m_.nhfield, h.src);
    for (int k = 0; k < 4; ++k)
      if (h.size[k] <= 0) fail(h.src, "attribute 'size' must have 4 positive numbers");
    const HFieldInfo hi = load_hfield(h, s_);
    const int n = hi.nrow * hi.ncol;
    m_.hfield_names.push_back(h.name);
    for (double v : h.size) m_.hfield_size.push_back(v);
    m_.hfield_nrow.push_back(hi.nrow);
    m_.hfield_ncol.push_back(hi.ncol);
    m_.hfield_adr.push_back(m_.nhfielddata);
    m_.hfield_data.insert(m_.hfield_data.end(), hi.data.begin(), hi.data.end());
    m_.nhfielddata += n;
    m_.nhfield++;
  }
}

// ------------------------------------------------------------------------------ geoms and sites

void Compiler::compile_geom(const mjcf::GeomSpec& g, int body) {
  const int id = m_.ngeom++;
  geom_names_.add(g.name, id, g.src);
  geoms_.push_back(&g);
  double size[3] = {g.size[0], g.size[1], g.size[2]};
  double pos[3] = {g.pos[0], g.pos[1], g.pos[2]}, quat[4] = {g.quat[0], g.quat[1], g.quat[2], g.quat[3]};
  if (g.has_fromto) geom_fromto(g, pos, quat, size);
  const double given_pos[3] = {pos[0], pos[1], pos[2]}, given_quat[4] = {quat[0], quat[1], quat[2], quat[3]};
  int dataid = -1;
  if (g.type == kGeomMesh) {
    if (g.mesh.empty()) fail(g.src, "mesh geom requires attribute 'mesh'");
    dataid = mesh_names_.get(g.mesh, g.src, "mesh");
    // The mesh's vertices are stored in its inertial frame: the geom frame is offset by the
    // mesh's frame (pos, quat) relative to the file's coordinates.
    const MeshInfo& mi = meshes_[dataid];
    mulpose(pos, quat, pos, quat, mi.pos, mi.quat);
    size[0] = mi.aamm_half[0]; size[1] = mi.aamm_half[1]; size[2] = mi.aamm_half[2];
  } else if (g.type == kGeomHField) {
    if (g.hfield.empty()) fail(g.src, "hfield geom requires attribute 'hfield'");
    dataid = hfield_names_.get(g.hfield, g.src, "hfield");
    // geom size of a height field: half extents x, y and the mean of top and bottom (2.2.2)
    const double* hs = &m_.hfield_size[4 * dataid];
    size[0] = hs[0];
    size[1] = hs[1];
    size[2] = 0.5 * (hs[2] + hs[3]);
  } else if (!g.mesh.empty()) {
    fail(g.src, "attribute 'mesh' requires type=\"mesh\"");
  }
  // size validation per type (the values that the type uses must be positive)
  const int need = g.type == kGeomSphere ? 1 : (g.type == kGeomCapsule || g.type == kGeomCylinder) ? 2
                   : (g.type == kGeomBox || g.type == kGeomEllipsoid) ? 3 : 0;
  for (int k = 0; k < need; ++k)
    if (size[k] <= 0) fail(g.src, "attribute 'size' value " + std::to_string(k) + " must be positive for this geom type");
  if (g.type == kGeomPlane && size[2] <= 0 && g.size_n < 3) {}  // plane size is visual only
  if (g.density < 0) fail(g.src, "attribute 'density' must be non-negative");
  if (g.mass_set && g.mass < 0) fail(g.src, "attribute 'mass' must be non-negative");
  normalize4_div(quat);

  m_.geom_type.push_back(g.type);
  m_.geom_contype.push_back(g.contype);
  m_.geom_conaffinity.push_back(g.conaffinity);
  m_.geom_condim.push_back(g.condim);
  m_.geom_bodyid.push_back(body);
  m_.geom_dataid.push_back(dataid);
  int matid = -1;
  if (!g.material.empty()) matid = mat_names_.get(g.material, g.src, "material");
  m_.geom_matid.push_back(matid);
  m_.geom_group.push_back(g.group);
  m_.geom_priority.push_back(g.priority);
  m_.geom_sameframe.push_back(0);  // set once the body inertial frame is known
  m_.geom_solmix.push_back(g.solmix);
  for (double v : g.solref) m_.geom_solref.push_back(v);
  for (double v : g.solimp) m_.geom_solimp.push_back(v);
  for (double v : size) m_.geom_size.push_back(v);
  double rbound = 0;
  switch (g.type) {
    case kGeomSphere: rbound = size[0]; break;
    case kGeomCapsule: rbound = size[0] + size[1]; break;
    case kGeomCylinder: rbound = std::sqrt(size[0] * size[0] + size[1] * size[1]); break;
    case kGeomEllipsoid: rbound = std::max(size[0], std::max(size[1], size[2])); break;
    case kGeomBox: rbound = norm3(size); break;
    case kGeomMesh: rbound = meshes_[dataid].rbound; break;
    case kGeomHField: rbound = 0; break;  // as 2.2.2: height fields are never culled by rbound
    default: rbound = 0;
  }
  m_.geom_rbound.push_back(rbound);
  for (double v : pos) m_.geom_pos.push_back(v);
  for (double v : quat) m_.geom_quat.push_back(v);
  // a mesh geom's own frame (save_xml); the compiled frame for the other types
  const bool mesh = g.type == kGeomMesh;
  m_.geom_srcpos.insert(m_.geom_srcpos.end(), mesh ? given_pos : pos, (mesh ? given_pos : pos) + 3);
  m_.geom_srcquat.insert(m_.geom_srcquat.end(), mesh ? given_quat : quat, (mesh ? given_quat : quat) + 4);
  for (double v : g.friction) m_.geom_friction.push_back(v);
  m_.geom_margin.push_back(g.margin);
  m_.geom_gap.push_back(g.gap);
  double fluid[kNFLUID] = {0};
  if (g.fluidshape == 1) {
    fluid[0] = 1;
    for (int k = 0; k < 5; ++k) fluid[1 + k] = g.fluidcoef[k];
    double r[3];
    fluid_semiaxes(g.type, size, r);
    fluid_virtual_inertia(r, fluid + 6, fluid + 9);
  }
  for (double v : fluid) m_.geom_fluid.push_back(v);
  for (float v : g.rgba) m_.geom_rgba.push_back(v);
}

void Compiler::compile_site(const mjcf::SiteSpec& s, int body) {
  const int id = m_.nsite++;
  site_names_.add(s.name, id, s.src);
  sites_.push_back(&s);
  double size[3] = {s.size[0], s.size[1], s.size[2]};
  double pos[3] = {s.pos[0], s.pos[1], s.pos[2]}, quat[4] = {s.quat[0], s.quat[1], s.quat[2], s.quat[3]};
  if (s.has_fromto) site_fromto(s, pos, quat, size);
  normalize4_div(quat);
  m_.site_type.push_back(s.type);
  m_.site_bodyid.push_back(body);
  int matid = -1;
  if (!s.material.empty()) matid = mat_names_.get(s.material, s.src, "material");
  m_.site_matid.push_back(matid);
  m_.site_group.push_back(s.group);
  m_.site_sameframe.push_back(0);  // set once the body inertial frame is known
  for (double v : size) m_.site_size.push_back(v);
  for (double v : pos) m_.site_pos.push_back(v);
  for (double v : quat) m_.site_quat.push_back(v);
  for (float v : s.rgba) m_.site_rgba.push_back(v);
}

// ------------------------------------------------------------------------------ the tree

void Compiler::compile_tree() {
  const double ang = deg(s_);
  const int nbody = m_.nbody;
  std::vector<std::vector<GeomMass>> gm(nbody);
  for (int b = 0; b < nbody; ++b) {
    const mjcf::BodySpec& bs = *bodies_[b];
    double quat[4] = {bs.quat[0], bs.quat[1], bs.quat[2], bs.quat[3]};
    normalize4_div(quat);
    for (double v : bs.pos) m_.body_pos.push_back(b ? v : 0);
    for (double v : quat) m_.body_quat.push_back(v);
    // mocap bodies: children of the world without joints
    int mocapid = -1;
    if (bs.mocap) {
      if (m_.body_parentid[b] != 0) fail(bs.src, "mocap body must be a child of the world body");
      if (!bs.joints.empty()) fail(bs.src, "mocap body cannot have joints");
      mocapid = m_.nmocap++;
    }
    m_.body_mocapid.push_back(mocapid);
    m_.body_gravcomp.push_back(bs.gravcomp);

    // joints and dofs
    m_.body_jntnum.push_back(static_cast<int>(bs.joints.size()));
    m_.body_jntadr.push_back(bs.joints.empty() ? -1 : m_.njnt);
    int ndof = 0;
    for (const auto& j : bs.joints) ndof += kJointNv[j.type];
    m_.body_dofnum.push_back(ndof);
    m_.body_dofadr.push_back(ndof ? m_.nv : -1);
    for (const auto& j : bs.joints) {
      const int jid = m_.njnt++;
      jnt_names_.add(j.name, jid, j.src);
      joints_.push_back(&j);
      if (j.type == kJointFree && m_.body_parentid[b] != 0)
        fail(j.src, "free joint can only be used in a child of the world body");
      if (j.type == kJointFree && bs.joints.size() > 1)
        fail(j.src, "a body with a free joint cannot have other joints");
      m_.jnt_type.push_back(j.type);
      m_.jnt_qposadr.push_back(m_.nq);
      m_.jnt_dofadr.push_back(m_.nv);
      m_.jnt_bodyid.push_back(b);
      m_.jnt_group.push_back(j.group);
      const bool lim = resolve_limited(j.limited, j.range_set, s_.compiler.autolimits, j.src, "range", "limited");
      double range[2] = {j.range[0], j.range[1]};
      // MuJoCo 2.2.2 converts the range to radians only for limited joints.
      if (lim && (j.type == kJointHinge || j.type == kJointBall)) {
        range[0] *= ang;
        range[1] *= ang;
      }
      if (lim) {
        if (j.type == kJointFree) fail(j.src, "free joints cannot be limited");
        if (j.type == kJointBall) {
          if (range[0] != 0 || range[1] <= 0)
            fail(j.src, "limited ball joint expects range=\"0 max\" with max > 0");
        } else if (range[0] >= range[1]) {
          fail(j.src, "attribute 'range' expects range[0] < range[1] for a limited joint");
        }
      }
      m_.jnt_limited.push_back(lim);
      for (double v : j.solreflimit) m_.jnt_solref.push_back(v);
      for (double v : j.solimplimit) m_.jnt_solimp.push_back(v);
      for (double v : j.pos) m_.jnt_pos.push_back(v);
      double axis[3] = {j.axis[0], j.axis[1], j.axis[2]};
      normalize3_div(axis);
      for (double v : axis) m_.jnt_axis.push_back(v);
      m_.jnt_stiffness.push_back(j.stiffness);
      m_.jnt_range.push_back(range[0]);
      m_.jnt_range.push_back(range[1]);
      m_.jnt_margin.push_back(j.margin);
      // qpos0 (ref) and qpos_spring (springref)
      switch (j.type) {
        case kJointFree:
          for (int k = 0; k < 3; ++k) m_.qpos0.push_back(bs.pos[k]);
          for (int k = 0; k < 4; ++k) m_.qpos0.push_back(quat[k]);
          for (int k = 0; k < 3; ++k) m_.qpos_spring.push_back(bs.pos[k]);
          for (int k = 0; k < 4; ++k) m_.qpos_spring.push_back(quat[k]);
          break;
        case kJointBall:
          for (double v : {1.0, 0.0, 0.0, 0.0}) {
            m_.qpos0.push_back(v);
            m_.qpos_spring.push_back(v);
          }
          break;
        case kJointHinge:
          m_.qpos0.push_back(j.ref * ang);
          m_.qpos_spring.push_back(j.springref * ang);
          break;
        default:
          m_.qpos0.push_back(j.ref);
          m_.qpos_spring.push_back(j.springref);
      }
      for (int d = 0; d < kJointNv[j.type]; ++d) {
        m_.dof_bodyid.push_back(b);
        m_.dof_jntid.push_back(jid);
        for (double v : j.solreffriction) m_.dof_solref.push_back(v);
        for (double v : j.solimpfriction) m_.dof_solimp.push_back(v);
        m_.dof_frictionloss.push_back(j.frictionloss);
        m_.dof_armature.push_back(j.armature);
        m_.dof_damping.push_back(j.damping);
      }
      if (j.armature < 0 || j.damping < 0 || j.frictionloss < 0 || j.stiffness < 0)
        fail(j.src, "stiffness, damping, armature and frictionloss must be non-negative");
      m_.nq += kJointNq[j.type];
      m_.nv += kJointNv[j.type];
    }

    // geoms
    m_.body_geomnum.push_back(static_cast<int>(bs.geoms.size()));
    m_.body_geomadr.push_back(bs.geoms.empty() ? -1 : m_.ngeom);
    for (const auto& g : bs.geoms) {
      compile_geom(g, b);
      const int gid = m_.ngeom - 1;
      const bool use_geoms = b > 0 && inertia_from_geoms(bs.inertial);
      if (use_geoms && g.group >= s_.compiler.inertiagrouprange[0] && g.group <= s_.compiler.inertiagrouprange[1]) {
        GeomMass x;
        x.src = &g.src;
        x.type = g.type;
        x.pos = {m_.geom_pos[3 * gid], m_.geom_pos[3 * gid + 1], m_.geom_pos[3 * gid + 2]};
        x.quat = {m_.geom_quat[4 * gid], m_.geom_quat[4 * gid + 1], m_.geom_quat[4 * gid + 2],
                  m_.geom_quat[4 * gid + 3]};
        const MeshInfo* mesh = g.type == kGeomMesh ? &meshes_[m_.geom_dataid[gid]] : nullptr;
        const geometry::MassProperties mp =
            geometry::geom_mass(g.type, &m_.geom_size[3 * gid], g.mass_set, g.mass, g.density,
                                mesh ? mesh->volume : 0, mesh ? mesh->inertia : nullptr);
        x.mass = mp.mass;
        copy3(x.inertia, mp.inertia);
        gm[b].push_back(x);
      }
    }
    for (const auto& st : bs.sites) compile_site(st, b);
    for (const auto& c : bs.cameras) {
      cam_names_.add(c.name, m_.ncam, c.src);
      m_.cam_names.push_back(c.name);
      m_.ncam++;
      m_.cam_mode.push_back(c.mode);
      m_.cam_bodyid.push_back(b);
      m_.cam_targetbodyid.push_back(-1);
      double q[4] = {c.quat[0], c.quat[1], c.quat[2], c.quat[3]};
      normalize4_div(q);
      for (double v : c.pos) m_.cam_pos.push_back(v);
      for (double v : q) m_.cam_quat.push_back(v);
      for (int k = 0; k < 3; ++k) { m_.cam_poscom0.push_back(0); m_.cam_pos0.push_back(0); }
      for (int k = 0; k < 9; ++k) m_.cam_mat0.push_back(k % 4 == 0);
      m_.cam_fovy.push_back(c.fovy);
      m_.cam_ipd.push_back(c.ipd);
    }
    for (const auto& l : bs.lights) {
      light_names_.add(l.name, m_.nlight, l.src);
      m_.light_names.push_back(l.name);
      m_.nlight++;
      m_.light_mode.push_back(l.mode);
      m_.light_bodyid.push_back(b);
      m_.light_targetbodyid.push_back(-1);
      m_.light_directional.push_back(l.directional);
      m_.light_castshadow.push_back(l.castshadow);
      m_.light_active.push_back(l.active);
      double dir[3] = {l.dir[0], l.dir[1], l.dir[2]};
      normalize3_div(dir);
      for (int k = 0; k < 3; ++k) {
        m_.light_pos.push_back(l.pos[k]);
        m_.light_dir.push_back(dir[k]);
        m_.light_poscom0.push_back(0);
        m_.light_pos0.push_back(0);
        m_.light_dir0.push_back(0);
      }
    }
  }
  // camera / light targets (names are all known now)
  {
    int ci = 0, li = 0;
    for (int b = 0; b < nbody; ++b) {
      for (const auto& c : bodies_[b]->cameras) {
        if (!c.target.empty()) m_.cam_targetbodyid[ci] = body_names_.get(c.target, c.src, "target");
        ++ci;
      }
      for (const auto& l : bodies_[b]->lights) {
        if (!l.target.empty()) m_.light_targetbodyid[li] = body_names_.get(l.target, l.src, "target");
        ++li;
      }
    }
  }
  m_.body_ipos.assign(3 * nbody, 0);
  m_.body_iquat.assign(4 * nbody, 0);
  m_.body_mass.assign(nbody, 0);
  m_.body_inertia.assign(3 * nbody, 0);
  for (int b = 0; b < nbody; ++b) m_.body_iquat[4 * b] = 1;
  for (int b = 1; b < nbody; ++b) compile_body_inertia(b, gm[b]);
  if (s_.compiler.settotalmass > 0) {
    double total = 0;
    for (int b = 1; b < nbody; ++b) total += m_.body_mass[b];
    if (total < kMinVal) fail(s_.world.src, "settotalmass: the model has no mass to scale");
    const double scale = s_.compiler.settotalmass / total;
    for (int b = 1; b < nbody; ++b) {
      m_.body_mass[b] *= scale;
      for (int k = 0; k < 3; ++k) m_.body_inertia[3 * b + k] *= scale;
    }
  }
  if (check_masses_) check_moving_masses();
}

// compiler/inertiafromgeom: "true" always, "auto" unless the body has <inertial>; never for an
// inertia that fusestatic computed.
bool Compiler::inertia_from_geoms(const mjcf::InertialSpec& in) const {
  if (in.compiled) return false;
  return s_.compiler.inertiafromgeom == 1 || (s_.compiler.inertiafromgeom == 2 && !in.present);
}

// A body that moves (has joints) needs mass and inertia above kMinVal, unless one of its direct
// children without joints has them (found against 2.2.2: deeper descendants do not count).
void Compiler::check_moving_masses() const {
  auto heavy = [&](int b) {
    return m_.body_mass[b] >= kMinVal && m_.body_inertia[3 * b] >= kMinVal && m_.body_inertia[3 * b + 1] >= kMinVal &&
           m_.body_inertia[3 * b + 2] >= kMinVal;
  };
  for (int b = 1; b < m_.nbody; ++b) {
    if (m_.body_jntnum[b] == 0 || heavy(b)) continue;
    bool carried = false;
    for (int c : children_[b]) carried = carried || (m_.body_jntnum[c] == 0 && heavy(c));
    if (!carried)
      fail(bodies_[b]->src, "mass and inertia of a moving body must be larger than 1e-15 (got mass " +
                                std::to_string(m_.body_mass[b]) +
                                "): give it geoms with volume, an <inertial>, or a massive static child body");
  }
}

void Compiler::compile_body_inertia(int b, const std::vector<GeomMass>& gm) {
  const mjcf::BodySpec& bs = *bodies_[b];
  const auto& cs = s_.compiler;
  double* ipos = &m_.body_ipos[3 * b];
  double* iquat = &m_.body_iquat[4 * b];
  double* inertia = &m_.body_inertia[3 * b];
  double& mass = m_.body_mass[b];
  const bool from_geoms = inertia_from_geoms(bs.inertial);
  const mjcf::Node& src = bs.inertial.present && !from_geoms ? bs.inertial.src : bs.src;
  if (!from_geoms) {
    const auto& in = bs.inertial;
    mass = in.mass;
    copy3(ipos, in.pos);
    if (in.full) {
      const double full[6] = {in.inertia[0], in.inertia[1], in.inertia[2], in.inertia[3], in.inertia[4], in.inertia[5]};
      if (!principal_axes(full, inertia, iquat)) fail(in.src, "attribute 'fullinertia' must be positive definite");
    } else {
      copy3(inertia, in.inertia);
      copy4(iquat, in.quat);
      normalize4_div(iquat);
    }
  } else if (gm.size() == 1) {
    // One geom: the body's inertial frame is the geom frame.
    const GeomMass& g = gm[0];
    if (g.type == kGeomPlane || g.type == kGeomHField) {
      // no volume: no mass
    } else {
      mass = g.mass;
      for (int k = 0; k < 3; ++k) {
        ipos[k] = g.pos[k];
        inertia[k] = g.inertia[k];
      }
      for (int k = 0; k < 4; ++k) iquat[k] = g.quat[k];
    }
  } else if (gm.empty()) {
    // No inertial information: MuJoCo 2.2.2 leaves the (massless) inertial frame at the body's
    // own position in its parent.
    copy3(ipos, bs.pos);
  } else {
    double com[3] = {0, 0, 0};
    for (const auto& g : gm) {
      mass += g.mass;
      for (int k = 0; k < 3; ++k) com[k] += g.mass * g.pos[k];
    }
    if (mass > kMinVal) scl3(com, com, 1 / mass);
    // full inertia about the com, in the body frame
    double I[9] = {0};
    for (const auto& g : gm) {
      double R[9];
      quat2mat(R, g.quat.data());
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          double v = 0;
          for (int k = 0; k < 3; ++k) v += R[3 * r + k] * g.inertia[k] * R[3 * c + k];
          I[3 * r + c] += v;
        }
      double d[3];
      sub3(d, g.pos.data(), com);
      const double dd = dot3(d, d);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) I[3 * r + c] += g.mass * ((r == c ? dd : 0) - d[r] * d[c]);
    }
    copy3(ipos, com);
    const double full[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
    principal_axes(full, inertia, iquat);
  }
  // bounds and balancing (compiler options), then validity
  if (cs.boundmass > 0 && mass < cs.boundmass) mass = cs.boundmass;
  if (cs.boundinertia > 0)
    for (int k = 0; k < 3; ++k) inertia[k] = std::max(inertia[k], cs.boundinertia);
  const auto violates = [&] {
    const double tol = 1e-10 * (inertia[0] + inertia[1] + inertia[2]);
    return inertia[0] + inertia[1] < inertia[2] - tol || inertia[0] + inertia[2] < inertia[1] - tol ||
           inertia[1] + inertia[2] < inertia[0] - tol;
  };
  if (cs.balanceinertia && violates()) {
    const double mean = (inertia[0] + inertia[1] + inertia[2]) / 3;
    for (int k = 0; k < 3; ++k) inertia[k] = mean;
  }
  if (mass < 0) fail(src, "mass must be non-negative, got " + std::to_string(mass));
  for (int k = 0; k < 3; ++k)
    if (inertia[k] < 0) fail(src, "inertia must be non-negative");
  if (violates())
    fail(src, "inertia must satisfy the triangle inequality A + B >= C (got " + std::to_string(inertia[0]) + ", " +
                  std::to_string(inertia[1]) + ", " + std::to_string(inertia[2]) + ")");
}

void Compiler::compile_tree_structure() {
  const int nbody = m_.nbody;
  m_.body_rootid.resize(nbody);
  m_.body_weldid.resize(nbody);
  m_.body_sameframe.resize(nbody);
  m_.body_simple.resize(nbody);
  for (int b = 0; b < nbody; ++b) {
    const int p = m_.body_parentid[b];
    m_.body_rootid[b] = b == 0 ? 0 : (p == 0 ? b : m_.body_rootid[p]);
    m_.body_weldid[b] = b == 0 ? 0 : (m_.body_jntnum[b] > 0 ? b : m_.body_weldid[p]);
    const double* ip = &m_.body_ipos[3 * b];
    const double* iq = &m_.body_iquat[4 * b];
    m_.body_sameframe[b] = norm3(ip) < kMinVal && std::fabs(iq[1]) < kMinVal && std::fabs(iq[2]) < kMinVal &&
                           std::fabs(iq[3]) < kMinVal;
  }
  // Planes and height fields have no mass and one-sided collisions: 2.2.2 allows them only in
  // bodies welded to the world.
  for (int g = 0; g < m_.ngeom; ++g)
    if ((m_.geom_type[g] == kGeomPlane || m_.geom_type[g] == kGeomHField) && m_.body_weldid[m_.geom_bodyid[g]] != 0)
      fail(geoms_[g]->src, "plane and hfield geoms are only allowed in static bodies (bodies welded to the world)");
  // geom/site sameframe: 1 = body frame, 2 = body inertial frame, 0 = neither
  auto sameframe = [&](const double* pos, const double* quat, int b) -> uint8_t {
    const double* ip = &m_.body_ipos[3 * b];
    const double* iq = &m_.body_iquat[4 * b];
    auto eq = [](const double* a, const double* c, int n) {
      for (int k = 0; k < n; ++k)
        if (a[k] != c[k]) return false;  // exact, as 2.2.2 (a 1e-16 difference is "not same")
      return true;
    };
    const double zero[3] = {0, 0, 0}, unit[4] = {1, 0, 0, 0};
    if (eq(pos, zero, 3) && eq(quat, unit, 4)) return 1;
    if (eq(pos, ip, 3) && eq(quat, iq, 4)) return 2;
    return 0;
  };
  for (int g = 0; g < m_.ngeom; ++g)
    m_.geom_sameframe[g] = sameframe(&m_.geom_pos[3 * g], &m_.geom_quat[4 * g], m_.geom_bodyid[g]);
  for (int i = 0; i < m_.nsite; ++i)
    m_.site_sameframe[i] = sameframe(&m_.site_pos[3 * i], &m_.site_quat[4 * i], m_.site_bodyid[i]);
  // body_simple: the body's dofs give a diagonal block of M that no other dof couples with
  // (checked against MuJoCo 2.2.2): same frame for body and inertia, parent welded to the world,
  // no child bodies, joints at the body origin on coordinate axes, translations before at most
  // one rotational joint.
  for (int b = 0; b < nbody; ++b) {
    bool simple = m_.body_sameframe[b];
    if (b > 0) {
      if (m_.body_weldid[m_.body_parentid[b]] != 0) simple = false;
      if (!children_[b].empty()) simple = false;
      bool rot = false;
      for (int j = m_.body_jntadr[b]; j >= 0 && j < m_.body_jntadr[b] + m_.body_jntnum[b]; ++j) {
        const double* pos = &m_.jnt_pos[3 * j];
        const double* ax = &m_.jnt_axis[3 * j];
        if (norm3(pos) > kMinVal) simple = false;
        const int t = m_.jnt_type[j];
        if (t == kJointSlide || t == kJointHinge) {
          int nz = 0;
          for (int k = 0; k < 3; ++k) nz += std::fabs(ax[k]) > kMinVal;
          if (nz != 1) simple = false;
        }
        if (t == kJointSlide && rot) simple = false;
        if (t == kJointHinge || t == kJointBall) {
          if (rot) simple = false;
          rot = true;
        }
      }
    }
    m_.body_simple[b] = simple;
  }
  // dof tree: parent dof, tree-sparse addresses of M, simple dof runs
  const int nv = m_.nv;
  m_.dof_parentid.assign(nv, -1);
  m_.dof_Madr.assign(nv, 0);
  m_.dof_simplenum.assign(nv, 0);
  std::vector<int> depth(nv, 0);
  for (int i = 0; i < nv; ++i) {
    const int b = m_.dof_bodyid[i];
    if (i > m_.body_dofadr[b]) {
      m_.dof_parentid[i] = i - 1;
    } else {
      int p = m_.body_parentid[b];
      while (p > 0 && m_.body_dofnum[p] == 0) p = m_.body_parentid[p];
      m_.dof_parentid[i] = p > 0 ? m_.body_dofadr[p] + m_.body_dofnum[p] - 1 : -1;
    }
    depth[i] = m_.dof_parentid[i] >= 0 ? depth[m_.dof_parentid[i]] + 1 : 0;
  }
  int adr = 0;
  for (int i = 0; i < nv; ++i) {
    m_.dof_Madr[i] = adr;
    adr += depth[i] + 1;
  }
  m_.nM = adr;
  m_.nD = 2 * adr - nv;
  for (int i = nv - 1; i >= 0; --i) {
    if (m_.body_simple[m_.dof_bodyid[i]]) m_.dof_simplenum[i] = 1 + (i + 1 < nv ? m_.dof_simplenum[i + 1] : 0);
  }
}

// Body poses in the world at qpos0 (joints at their reference: no displacement).
void Compiler::world_poses(std::vector<double>& xpos, std::vector<double>& xquat) const {
  xpos.assign(3 * m_.nbody, 0);
  xquat.assign(4 * m_.nbody, 0);
  xquat[0] = 1;
  for (int b = 1; b < m_.nbody; ++b) {
    const int p = m_.body_parentid[b];
    mulpose(&xpos[3 * b], &xquat[4 * b], &xpos[3 * p], &xquat[4 * p], &m_.body_pos[3 * b], &m_.body_quat[4 * b]);
  }
}

}  // namespace moreau::compiler

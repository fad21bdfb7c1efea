#include "differential/collision_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace moreau::coltest {

template <typename T, typename S>
static std::vector<T> vec(const S* p, int n) {
  return std::vector<T>(p, p + n);
}

Model collision_model_from_mj(const mjModel* mm) {
  Model m;
  m.nbody = mm->nbody;
  m.ngeom = mm->ngeom;
  m.npair = mm->npair;
  m.nexclude = mm->nexclude;
  m.nconmax = mm->nconmax;
  m.opt.disableflags = mm->opt.disableflags;
  m.opt.enableflags = mm->opt.enableflags;
  m.opt.collision = mm->opt.collision;
  m.opt.o_margin = mm->opt.o_margin;
  for (int k = 0; k < kNREF; ++k) m.opt.o_solref[k] = mm->opt.o_solref[k];
  for (int k = 0; k < kNIMP; ++k) m.opt.o_solimp[k] = mm->opt.o_solimp[k];
  m.opt.mpr_tolerance = mm->opt.mpr_tolerance;
  m.opt.mpr_iterations = mm->opt.mpr_iterations;
  const int nb = mm->nbody, ng = mm->ngeom;
  m.body_parentid = vec<int>(mm->body_parentid, nb);
  m.body_rootid = vec<int>(mm->body_rootid, nb);
  m.body_weldid = vec<int>(mm->body_weldid, nb);
  m.body_geomadr = vec<int>(mm->body_geomadr, nb);
  m.body_geomnum = vec<int>(mm->body_geomnum, nb);
  m.geom_type = vec<int>(mm->geom_type, ng);
  m.geom_contype = vec<int>(mm->geom_contype, ng);
  m.geom_conaffinity = vec<int>(mm->geom_conaffinity, ng);
  m.geom_condim = vec<int>(mm->geom_condim, ng);
  m.geom_bodyid = vec<int>(mm->geom_bodyid, ng);
  m.geom_dataid = vec<int>(mm->geom_dataid, ng);
  m.geom_priority = vec<int>(mm->geom_priority, ng);
  m.geom_solmix = vec<double>(mm->geom_solmix, ng);
  m.geom_solref = vec<double>(mm->geom_solref, ng * mjNREF);
  m.geom_solimp = vec<double>(mm->geom_solimp, ng * mjNIMP);
  m.geom_size = vec<double>(mm->geom_size, ng * 3);
  m.geom_pos = vec<double>(mm->geom_pos, ng * 3);  // geom frames in their bodies (mid phase)
  m.geom_quat = vec<double>(mm->geom_quat, ng * 4);
  m.geom_rbound = vec<double>(mm->geom_rbound, ng);
  m.geom_friction = vec<double>(mm->geom_friction, ng * 3);
  m.geom_margin = vec<double>(mm->geom_margin, ng);
  m.geom_gap = vec<double>(mm->geom_gap, ng);
  const int np = mm->npair;
  m.pair_dim = vec<int>(mm->pair_dim, np);
  m.pair_geom1 = vec<int>(mm->pair_geom1, np);
  m.pair_geom2 = vec<int>(mm->pair_geom2, np);
  m.pair_solref = vec<double>(mm->pair_solref, np * mjNREF);
  m.pair_solimp = vec<double>(mm->pair_solimp, np * mjNIMP);
  m.pair_margin = vec<double>(mm->pair_margin, np);
  m.pair_gap = vec<double>(mm->pair_gap, np);
  m.pair_friction = vec<double>(mm->pair_friction, np * 5);
  m.pair_signature = vec<int>(mm->pair_signature, np);
  m.exclude_signature = vec<int>(mm->exclude_signature, mm->nexclude);
  // meshes and height fields as 2.2.2 compiled them (its mesh frame and hull graph)
  m.nmesh = mm->nmesh;
  m.nmeshvert = mm->nmeshvert;
  m.mesh_vertadr = vec<int>(mm->mesh_vertadr, mm->nmesh);
  m.mesh_vertnum = vec<int>(mm->mesh_vertnum, mm->nmesh);
  m.mesh_graphadr = vec<int>(mm->mesh_graphadr, mm->nmesh);
  m.mesh_vert = vec<float>(mm->mesh_vert, 3 * mm->nmeshvert);
  m.mesh_graph = vec<int>(mm->mesh_graph, mm->nmeshgraph);
  m.nhfield = mm->nhfield;
  m.nhfielddata = mm->nhfielddata;
  m.hfield_size = vec<double>(mm->hfield_size, 4 * mm->nhfield);
  m.hfield_nrow = vec<int>(mm->hfield_nrow, mm->nhfield);
  m.hfield_ncol = vec<int>(mm->hfield_ncol, mm->nhfield);
  m.hfield_adr = vec<int>(mm->hfield_adr, mm->nhfield);
  m.hfield_data = vec<float>(mm->hfield_data, mm->nhfielddata);
  return m;
}

// A Data for collision only: the model here is partly filled (geoms, bodies), so make_data cannot
// size the rest; the arrays the public entry points check get make_data's sizes.
Data collision_data(const Model& m, const mjModel* mm) {
  Data d;
  d.contact.resize(mm->nconmax);
  d.geom_xpos.resize(3 * m.ngeom);
  d.geom_xmat.resize(9 * m.ngeom);
  d.qpos.resize(m.nq);
  d.qvel.resize(m.nv);
  d.act.resize(m.na);
  d.ctrl.resize(m.nu);
  d.xpos.resize(3 * m.nbody);
  d.site_xpos.resize(3 * m.nsite);
  d.qM.resize(m.nM);
  d.mocap_pos.resize(3 * m.nmocap);
  d.eq_active.resize(m.neq);
  d.ten_length.resize(m.ntendon);
  d.sensordata.resize(m.nsensordata);
  d.cam_xpos.resize(3 * m.ncam);
  d.light_xpos.resize(3 * m.nlight);
  d.wrap_obj.resize(2 * m.nwrap);
  d.userdata.resize(m.nuserdata);
  collision_reserve(m, d);
  return d;
}

void copy_poses(const mjModel* mm, const mjData* md, Data& d) {
  std::copy(md->geom_xpos, md->geom_xpos + 3 * mm->ngeom, d.geom_xpos.begin());
  std::copy(md->geom_xmat, md->geom_xmat + 9 * mm->ngeom, d.geom_xmat.begin());
}

static double maxabs(const double* a, const double* b, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i) e = std::max(e, std::fabs(a[i] - b[i]));
  return e;
}

void compare_contacts(const mjModel* mm, const mjData* md, const Model& m, const Data& d,
                      const Tolerance& tol, const bool skip[8][8], Report& rep) {
  std::map<std::pair<int, int>, std::vector<int>> theirs, ours;
  std::vector<std::pair<int, int>> order_t, order_o;
  auto key = [](int a, int b) { return std::make_pair(std::min(a, b), std::max(a, b)); };
  for (int i = 0; i < md->ncon; ++i) {
    const auto k = key(md->contact[i].geom1, md->contact[i].geom2);
    if (theirs[k].empty()) order_t.push_back(k);
    theirs[k].push_back(i);
  }
  for (int i = 0; i < d.ncon; ++i) {
    const auto k = key(d.contact[i].geom1, d.contact[i].geom2);
    if (ours[k].empty()) order_o.push_back(k);
    ours[k].push_back(i);
  }
  auto note = [&](const std::string& s) {
    if (rep.messages.size() < 20) rep.messages.push_back(s);
  };
  auto skipped = [&](const std::pair<int, int>& k) {
    const int t1 = mm->geom_type[k.first], t2 = mm->geom_type[k.second];
    return skip[std::min(t1, t2)][std::max(t1, t2)];
  };
  {
    std::vector<std::pair<int, int>> a, b;
    for (auto& k : order_t) if (!skipped(k)) a.push_back(k);
    for (auto& k : order_o) if (!skipped(k)) b.push_back(k);
    if (a != b) rep.order_mismatch = 1;
  }
  std::map<std::pair<int, int>, int> all;
  for (auto& [k, v] : theirs) all[k] = 1;
  for (auto& [k, v] : ours) all[k] = 1;
  char buf[512];
  for (auto& [k, unused] : all) {
    if (skipped(k)) continue;
    ++rep.pairs_compared;
    const auto& vt = theirs[k];
    const auto& vo = ours[k];
    if (vt.size() != vo.size()) {
      ++rep.count_mismatch;
      snprintf(buf, sizeof buf, "geoms %d-%d (types %d-%d): mujoco %zu contacts, moreau %zu", k.first,
               k.second, mm->geom_type[k.first], mm->geom_type[k.second], vt.size(), vo.size());
      note(buf);
      continue;
    }
    std::vector<bool> used(vo.size(), false);
    for (int it : vt) {
      const mjContact& c = md->contact[it];
      // match by position (order within a pair is not specified by the documentation)
      int best = -1;
      double bd = INFINITY;
      for (size_t j = 0; j < vo.size(); ++j) {
        if (used[j]) continue;
        const double e = maxabs(c.pos, d.contact[vo[j]].pos, 3);
        if (e < bd) { bd = e; best = static_cast<int>(j); }
      }
      used[best] = true;
      const Contact& o = d.contact[vo[best]];
      const double ed = std::fabs(c.dist - o.dist), ep = maxabs(c.pos, o.pos, 3);
      // geom order may be swapped only if both sides are the same type: then the normal flips
      const bool flip = o.geom1 != c.geom1;
      double on[9];
      for (int q = 0; q < 9; ++q) on[q] = flip && q < 3 ? -o.frame[q] : o.frame[q];
      const double en = maxabs(c.frame, on, 3), ef = flip ? 0 : maxabs(c.frame, o.frame, 9);
      rep.max_dist_err = std::max(rep.max_dist_err, ed);
      rep.max_pos_err = std::max(rep.max_pos_err, ep);
      rep.max_normal_err = std::max(rep.max_normal_err, en);
      rep.max_frame_err = std::max(rep.max_frame_err, ef);
      if (ed > tol.dist || ep > tol.pos || en > tol.normal || ef > tol.frame) {
        ++rep.value_mismatch;
        snprintf(buf, sizeof buf,
                 "geoms %d-%d (types %d-%d): dist %.9g vs %.9g, pos err %.3g, normal err %.3g, frame err %.3g"
                 " | mj pos %.6f %.6f %.6f n %.6f %.6f %.6f | ours pos %.6f %.6f %.6f n %.6f %.6f %.6f",
                 k.first, k.second, mm->geom_type[k.first], mm->geom_type[k.second], c.dist, o.dist, ep,
                 en, ef, c.pos[0], c.pos[1], c.pos[2], c.frame[0], c.frame[1], c.frame[2], o.pos[0],
                 o.pos[1], o.pos[2], o.frame[0], o.frame[1], o.frame[2]);
        note(buf);
      }
      const double epar = std::max({maxabs(c.friction, o.friction, 5), maxabs(c.solref, o.solref, mjNREF),
                                    maxabs(c.solimp, o.solimp, mjNIMP),
                                    std::fabs(c.includemargin - o.includemargin)});
      if (epar > 1e-12 || c.dim != o.dim) {
        ++rep.param_mismatch;
        snprintf(buf, sizeof buf, "geoms %d-%d: parameter mismatch %.3g, dim %d vs %d", k.first, k.second,
                 epar, c.dim, o.dim);
        note(buf);
      }
    }
  }
}

}  // namespace moreau::coltest

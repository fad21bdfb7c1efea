// Tendons, actuators, sensors, equalities, contact pairs/excludes, keyframes, custom data, user data.
#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/compiler.h"
#include "math/vec.h"

namespace moreau::compiler {

using namespace moreau::math;

// ------------------------------------------------------------------------------ tendons

void Compiler::compile_tendons() {
  for (const auto& t : s_.tendons) {
    const int id = m_.ntendon++;
    tendon_names_.add(t.name, id, t.src);
    m_.tendon_names.push_back(t.name);
    m_.tendon_adr.push_back(m_.nwrap);
    m_.tendon_num.push_back(static_cast<int>(t.path.size()));
    m_.tendon_group.push_back(t.group);
    const bool lim = resolve_limited(t.limited, t.range_set, s_.compiler.autolimits, t.src, "range", "limited");
    if (lim && t.range[0] >= t.range[1]) fail(t.src, "attribute 'range' expects range[0] < range[1] for a limited tendon");
    m_.tendon_limited.push_back(lim);
    m_.tendon_width.push_back(t.width);
    for (double v : t.solreflimit) m_.tendon_solref_lim.push_back(v);
    for (double v : t.solimplimit) m_.tendon_solimp_lim.push_back(v);
    for (double v : t.solreffriction) m_.tendon_solref_fri.push_back(v);
    for (double v : t.solimpfriction) m_.tendon_solimp_fri.push_back(v);
    m_.tendon_range.push_back(t.range[0]);
    m_.tendon_range.push_back(t.range[1]);
    m_.tendon_margin.push_back(t.margin);
    m_.tendon_stiffness.push_back(t.stiffness);
    m_.tendon_damping.push_back(t.damping);
    m_.tendon_frictionloss.push_back(t.frictionloss);
    // springlength < 0: the spring rests at the length in qpos0 (filled in by set_const).
    m_.tendon_lengthspring.push_back(t.springlength);
    m_.tendon_length0.push_back(0);
    m_.tendon_invweight0.push_back(0);
    m_.tendon_armature.push_back(0);
    if (t.path.empty()) fail(t.src, "tendon has no path elements");
    if (t.spatial) {
      // Pulleys split the path into branches; each branch begins and ends with a site.
      size_t start = 0;
      for (size_t i = 0; i <= t.path.size(); ++i) {
        if (i == t.path.size() || t.path[i].type == kWrapPulley) {
          if (i > start && (t.path[start].type != kWrapSite || t.path[i - 1].type != kWrapSite))
            fail(t.src, "each branch of a spatial tendon path must begin and end with a site");
          start = i + 1;
        }
      }
    }
    for (size_t i = 0; i < t.path.size(); ++i) {
      const auto& w = t.path[i];
      int type = w.type, objid = -1;
      double prm = w.prm;
      switch (w.type) {
        case kWrapJoint: {
          objid = jnt_names_.get(w.name, w.src, "joint");
          const int jt = m_.jnt_type[objid];
          if (jt != kJointHinge && jt != kJointSlide) fail(w.src, "fixed tendon joint must be a hinge or slide joint");
          break;
        }
        case kWrapSite: objid = site_names_.get(w.name, w.src, "site"); break;
        case kWrapPulley:
          if (prm <= 0) fail(w.src, "attribute 'divisor' must be positive");
          break;
        default: {
          objid = geom_names_.get(w.name, w.src, "geom");
          const int gt = m_.geom_type[objid];
          if (gt == kGeomSphere) type = kWrapSphere;
          else if (gt == kGeomCylinder) type = kWrapCylinder;
          else fail(w.src, "wrapping geom must be a sphere or a cylinder");
          prm = w.sidesite.empty() ? -1 : site_names_.get(w.sidesite, w.src, "sidesite");
          if (i == 0 || i + 1 == t.path.size() || t.path[i - 1].type != kWrapSite ||
              (t.path[i + 1].type != kWrapSite))
            fail(w.src, "wrapping geom must be between two sites in the tendon path");
        }
      }
      m_.wrap_type.push_back(type);
      m_.wrap_objid.push_back(objid);
      m_.wrap_prm.push_back(prm);
      m_.nwrap++;
    }
  }
}

// ------------------------------------------------------------------------------ actuators

void Compiler::compile_actuators() {
  bool stateful_seen = false;
  for (const auto& a : s_.actuators) {
    const int id = m_.nu++;
    act_names_.add(a.name, id, a.src);
    m_.actuator_names.push_back(a.name);
    int trnid[2] = {-1, -1};
    switch (a.trntype) {
      case kTrnJoint:
      case kTrnJointInParent: trnid[0] = jnt_names_.get(a.target, a.src, "joint"); break;
      case kTrnTendon: trnid[0] = tendon_names_.get(a.target, a.src, "tendon"); break;
      case kTrnSite: trnid[0] = site_names_.get(a.target, a.src, "site"); break;
      case kTrnBody: trnid[0] = body_names_.get(a.target, a.src, "body"); break;
      case kTrnSliderCrank:
        trnid[0] = site_names_.get(a.target, a.src, "cranksite");
        if (a.slidersite.empty()) fail(a.src, "slider-crank actuator requires attribute 'slidersite'");
        trnid[1] = site_names_.get(a.slidersite, a.src, "slidersite");
        if (a.cranklength <= 0) fail(a.src, "slider-crank actuator requires a positive 'cranklength'");
        break;
      default: fail(a.src, "actuator needs a transmission target");
    }
    m_.actuator_trntype.push_back(a.trntype);
    m_.actuator_trnid.push_back(trnid[0]);
    m_.actuator_trnid.push_back(trnid[1]);
    m_.actuator_dyntype.push_back(a.dyntype);
    m_.actuator_gaintype.push_back(a.gaintype);
    m_.actuator_biastype.push_back(a.biastype);
    const bool stateful = a.dyntype != kDynNone;
    if (!stateful && stateful_seen) fail(a.src, "stateless actuators must come before stateful actuators");
    stateful_seen = stateful_seen || stateful;
    m_.actuator_actadr.push_back(stateful ? m_.na : -1);
    m_.actuator_actnum.push_back(stateful ? 1 : 0);
    if (stateful) m_.na++;
    m_.actuator_group.push_back(a.group);
    const bool al = s_.compiler.autolimits;
    const bool cl = resolve_limited(a.ctrllimited, a.ctrlrange_set, al, a.src, "ctrlrange", "ctrllimited");
    const bool fl = resolve_limited(a.forcelimited, a.forcerange_set, al, a.src, "forcerange", "forcelimited");
    const bool acl = resolve_limited(a.actlimited, a.actrange_set, al, a.src, "actrange", "actlimited");
    if (cl && a.ctrlrange[0] >= a.ctrlrange[1]) fail(a.src, "attribute 'ctrlrange' expects ctrlrange[0] < ctrlrange[1]");
    if (fl && a.forcerange[0] >= a.forcerange[1]) fail(a.src, "attribute 'forcerange' expects forcerange[0] < forcerange[1]");
    if (acl && a.actrange[0] >= a.actrange[1]) fail(a.src, "attribute 'actrange' expects actrange[0] < actrange[1]");
    if (a.kind == "adhesion" && a.ctrlrange[0] < 0) fail(a.src, "adhesion actuator expects a non-negative 'ctrlrange'");
    if (a.kind == "muscle" && a.gainprm[0] >= a.gainprm[1]) fail(a.src, "muscle attribute 'range' expects range[0] < range[1]");
    m_.actuator_ctrllimited.push_back(cl);
    m_.actuator_forcelimited.push_back(fl);
    m_.actuator_actlimited.push_back(acl);
    m_.actuator_actearly.push_back(0);
    for (double v : a.dynprm) m_.actuator_dynprm.push_back(v);
    for (double v : a.gainprm) m_.actuator_gainprm.push_back(v);
    for (double v : a.biasprm) m_.actuator_biasprm.push_back(v);
    for (double v : a.ctrlrange) m_.actuator_ctrlrange.push_back(v);
    for (double v : a.forcerange) m_.actuator_forcerange.push_back(v);
    for (double v : a.actrange) m_.actuator_actrange.push_back(v);
    for (double v : a.gear) m_.actuator_gear.push_back(v);
    m_.actuator_cranklength.push_back(a.cranklength);
    m_.actuator_acc0.push_back(0);
    m_.actuator_length0.push_back(0);
    m_.actuator_lengthrange.push_back(a.lengthrange[0]);
    m_.actuator_lengthrange.push_back(a.lengthrange[1]);
  }
}

// ------------------------------------------------------------------------------ sensors

void Compiler::compile_sensors() {
  auto lookup = [&](int objtype, const std::string& name, const mjcf::Node& src, const char* attr) -> int {
    switch (objtype) {
      case kObjBody:
      case kObjXBody: return body_names_.get(name, src, attr);
      case kObjJoint: return jnt_names_.get(name, src, attr);
      case kObjGeom: return geom_names_.get(name, src, attr);
      case kObjSite: return site_names_.get(name, src, attr);
      case kObjCamera: return cam_names_.get(name, src, attr);
      case kObjTendon: return tendon_names_.get(name, src, attr);
      case kObjActuator: return act_names_.get(name, src, attr);
      case kObjUnknown: return -1;
      default: fail(src, std::string("attribute '") + attr + "': this object type is not supported for sensors");
    }
  };
  int adr = 0;
  for (const auto& s : s_.sensors) {
    const int id = m_.nsensor++;
    sensor_names_.add(s.name, id, s.src);
    m_.sensor_names.push_back(s.name);
    int objid = -1, refid = -1;
    const char* objattr = s.type >= kSensFramePos && s.type <= kSensFrameAngAcc ? "objname"
                          : s.objtype == kObjSite ? "site" : s.objtype == kObjJoint ? "joint"
                          : s.objtype == kObjTendon ? "tendon" : s.objtype == kObjActuator ? "actuator"
                          : s.objtype == kObjBody ? "body" : "objname";
    if (s.type != kSensClock && !(s.type == kSensUser && s.objname.empty()))
      objid = lookup(s.objtype, s.objname, s.src, objattr);
    if (s.reftype != kObjUnknown) refid = lookup(s.reftype, s.refname, s.src, "refname");
    if (s.type == kSensBallQuat || s.type == kSensBallAngVel) {
      if (m_.jnt_type[objid] != kJointBall) fail(s.src, "ball sensor requires a ball joint");
    } else if (s.type == kSensJointPos || s.type == kSensJointVel) {
      if (m_.jnt_type[objid] != kJointHinge && m_.jnt_type[objid] != kJointSlide)
        fail(s.src, "joint sensor requires a hinge or slide joint");
    } else if (s.type >= kSensJointLimitPos && s.type <= kSensJointLimitFrc) {
      if (!m_.jnt_limited[objid]) fail(s.src, "joint limit sensor requires a limited joint");
    } else if (s.type >= kSensTendonLimitPos && s.type <= kSensTendonLimitFrc) {
      if (!m_.tendon_limited[objid]) fail(s.src, "tendon limit sensor requires a limited tendon");
    }
    m_.sensor_type.push_back(s.type);
    m_.sensor_datatype.push_back(s.datatype);
    m_.sensor_needstage.push_back(s.needstage);
    m_.sensor_objtype.push_back(s.objtype);
    m_.sensor_objid.push_back(objid);
    m_.sensor_reftype.push_back(s.reftype);
    m_.sensor_refid.push_back(refid);
    m_.sensor_dim.push_back(s.dim);
    m_.sensor_adr.push_back(adr);
    adr += s.dim;
    m_.sensor_cutoff.push_back(s.cutoff);
    m_.sensor_noise.push_back(s.noise);
  }
  m_.nsensordata = adr;
}

// ------------------------------------------------------------------------------ equalities

void Compiler::compile_equalities() {
  std::vector<double> xpos, xquat;
  world_poses(xpos, xquat);
  for (const auto& e : s_.equalities) {
    const int id = m_.neq++;
    eq_names_.add(e.name, id, e.src);
    m_.eq_names.push_back(e.name);
    int o1 = -1, o2 = -1;
    double data[kNEQDATA];
    for (int k = 0; k < kNEQDATA; ++k) data[k] = e.data[k];
    data[10] = e.data[10] == 0 && e.type != kEqWeld ? 1 : e.data[10];
    if (e.type == kEqConnect || e.type == kEqWeld) {
      o1 = body_names_.get(e.name1, e.src, "body1");
      o2 = e.name2.empty() ? 0 : body_names_.get(e.name2, e.src, "body2");
      if (e.type == kEqConnect) {
        // data[3..5]: the anchor (given in body1's frame) in body2's frame at qpos0
        double w[3], d[3], qinv[4];
        rotvecquat(w, e.data, &xquat[4 * o1]);
        add3(w, w, &xpos[3 * o1]);
        sub3(d, w, &xpos[3 * o2]);
        negquat(qinv, &xquat[4 * o2]);
        rotvecquat(data + 3, d, qinv);
      }
      if (e.type == kEqWeld && data[6] == 0 && data[7] == 0 && data[8] == 0 && data[9] == 0) {
        // relpose not given: the pose of body2 relative to body1 in the model's reference
        // configuration, its position taken at the anchor (given in body2's frame), as 2.2.2.
        double qinv[4], d[3], p[3], anchor[3];
        negquat(qinv, &xquat[4 * o1]);
        rotvecquat(anchor, e.data, &xquat[4 * o2]);
        add3(d, &xpos[3 * o2], anchor);
        sub3(d, d, &xpos[3 * o1]);
        rotvecquat(p, d, qinv);
        double q[4];
        mulquat(q, qinv, &xquat[4 * o2]);
        copy3(data + 3, p);
        copy4(data + 6, q);
      } else if (e.type == kEqWeld) {
        normalize4_div(data + 6);
      }
    } else if (e.type == kEqJoint) {
      o1 = jnt_names_.get(e.name1, e.src, "joint1");
      o2 = e.name2.empty() ? -1 : jnt_names_.get(e.name2, e.src, "joint2");
      for (int j : {o1, o2})
        if (j >= 0 && m_.jnt_type[j] != kJointHinge && m_.jnt_type[j] != kJointSlide)
          fail(e.src, "joint equality requires hinge or slide joints");
    } else {
      o1 = tendon_names_.get(e.name1, e.src, "tendon1");
      o2 = e.name2.empty() ? -1 : tendon_names_.get(e.name2, e.src, "tendon2");
    }
    m_.eq_type.push_back(e.type);
    m_.eq_obj1id.push_back(o1);
    m_.eq_obj2id.push_back(o2);
    m_.eq_active.push_back(e.active);
    for (double v : e.solref) m_.eq_solref.push_back(v);
    for (double v : e.solimp) m_.eq_solimp.push_back(v);
    for (double v : data) m_.eq_data.push_back(v);
  }
}

// ------------------------------------------------------------------------------ contact pairs and excludes

void Compiler::compile_contacts() {
  for (const auto& p : s_.pairs) {
    const int id = m_.npair++;
    pair_names_.add(p.name, id, p.src);
    m_.pair_names.push_back(p.name);
    int g1 = geom_names_.get(p.geom1, p.src, "geom1");
    int g2 = geom_names_.get(p.geom2, p.src, "geom2");
    if (g1 == g2) fail(p.src, "a contact pair needs two different geoms");
    if (g1 > g2) std::swap(g1, g2);  // lower id first, as 2.2.2
    m_.pair_geom1.push_back(g1);
    m_.pair_geom2.push_back(g2);
    const int b1 = m_.geom_bodyid[g1], b2 = m_.geom_bodyid[g2];
    // signature: ((body+1) << 16) + (other body+1), lower id first (as 2.2.2)
    m_.pair_signature.push_back(((std::min(b1, b2) + 1) << 16) + std::max(b1, b2) + 1);
    // Explicit pairs take their parameters from the pair element and its default class (not
    // from the geoms), as 2.2.2 does.
    m_.pair_dim.push_back(p.condim);
    for (double v : p.solref) m_.pair_solref.push_back(v);
    for (double v : p.solimp) m_.pair_solimp.push_back(v);
    for (double v : p.friction) m_.pair_friction.push_back(v);
    m_.pair_margin.push_back(p.margin);
    m_.pair_gap.push_back(p.gap);
  }
  for (size_t i = 0; i < s_.excludes.size(); ++i) {
    const auto& src = s_.exclude_src[i];
    const int b1 = body_names_.get(s_.excludes[i].first, src, "body1");
    const int b2 = body_names_.get(s_.excludes[i].second, src, "body2");
    m_.exclude_signature.push_back(((std::min(b1, b2) + 1) << 16) + std::max(b1, b2) + 1);
    m_.exclude_names.push_back("");
    m_.nexclude++;
  }
  // Sorted by signature (2.2.2 keeps them sorted for lookup).
  std::sort(m_.exclude_signature.begin(), m_.exclude_signature.end());
}

// ------------------------------------------------------------------------------ keyframes, custom

void Compiler::compile_keys() {
  m_.nkey = std::max(s_.nkey, static_cast<int>(s_.keys.size()));
  std::vector<double> mpos, mquat;
  for (int b = 0; b < m_.nbody; ++b)
    if (m_.body_mocapid[b] >= 0) {
      for (int k = 0; k < 3; ++k) mpos.push_back(m_.body_pos[3 * b + k]);
      for (int k = 0; k < 4; ++k) mquat.push_back(m_.body_quat[4 * b + k]);
    }
  for (int i = 0; i < m_.nkey; ++i) {
    mjcf::KeySpec dflt;
    const mjcf::KeySpec& k = i < static_cast<int>(s_.keys.size()) ? s_.keys[i] : dflt;
    if (i < static_cast<int>(s_.keys.size())) key_names_.add(k.name, i, k.src);
    m_.key_names.push_back(k.name);
    m_.key_time.push_back(k.time);
    auto fill = [&](const std::vector<double>& v, const std::vector<double>& d, std::vector<double>& out, int n,
                    const char* attr) {
      if (!v.empty() && static_cast<int>(v.size()) != n)
        fail(k.src, std::string("attribute '") + attr + "' expects " + std::to_string(n) + " numbers, got " +
                        std::to_string(v.size()));
      for (int j = 0; j < n; ++j) out.push_back(v.empty() ? (d.empty() ? 0 : d[j]) : v[j]);
    };
    fill(k.qpos, m_.qpos0, m_.key_qpos, m_.nq, "qpos");
    for (int j = 0; j < m_.njnt; ++j)
      if (m_.jnt_type[j] == kJointBall || m_.jnt_type[j] == kJointFree) {
        double* q = &m_.key_qpos[m_.key_qpos.size() - m_.nq + m_.jnt_qposadr[j] + (m_.jnt_type[j] == kJointFree ? 3 : 0)];
        normalize4_div(q);
      }
    fill(k.qvel, {}, m_.key_qvel, m_.nv, "qvel");
    fill(k.act, {}, m_.key_act, m_.na, "act");
    fill(k.mpos, mpos, m_.key_mpos, 3 * m_.nmocap, "mpos");
    fill(k.mquat, mquat, m_.key_mquat, 4 * m_.nmocap, "mquat");
    for (int j = 0; j < m_.nmocap; ++j) normalize4_div(&m_.key_mquat[m_.key_mquat.size() - 4 * m_.nmocap + 4 * j]);
    fill(k.ctrl, {}, m_.key_ctrl, m_.nu, "ctrl");
  }
}

void Compiler::compile_custom() {
  for (const auto& n : s_.numerics) {
    numeric_names_.add(n.name, m_.nnumeric, n.src);
    m_.numeric_names.push_back(n.name);
    m_.numeric_adr.push_back(m_.nnumericdata);
    m_.numeric_size.push_back(n.size);
    for (int i = 0; i < n.size; ++i) m_.numeric_data.push_back(i < static_cast<int>(n.data.size()) ? n.data[i] : 0);
    m_.nnumericdata += n.size;
    m_.nnumeric++;
  }
  for (const auto& t : s_.texts) {
    m_.text_names.push_back(t.first);
    m_.text_data.push_back(t.second);
    m_.ntext++;
  }
  m_.tuple_names = s_.tuples;
  m_.ntuple = static_cast<int>(s_.tuples.size());
}

// nuser_*: -1 in MJCF means "as long as the longest user array"; a given size pads with zeros
// and rejects longer arrays.
void Compiler::compile_user_sizes() {
  auto build = [&](int declared, const std::vector<std::pair<const std::vector<double>*, const mjcf::Node*>>& items,
                   std::vector<double>& out, const char* what) {
    int n = declared;
    if (n < 0) {
      n = 0;
      for (const auto& it : items) n = std::max(n, static_cast<int>(it.first->size()));
    }
    for (const auto& it : items) {
      if (static_cast<int>(it.first->size()) > n)
        fail(*it.second, std::string("attribute 'user' has more values than size/") + what + " = " + std::to_string(n));
      for (int k = 0; k < n; ++k) out.push_back(k < static_cast<int>(it.first->size()) ? (*it.first)[k] : 0);
    }
    return n;
  };
  std::vector<std::pair<const std::vector<double>*, const mjcf::Node*>> bu, ju, gu, su, cu, tu, au, snu;
  for (const auto* b : bodies_) {
    bu.emplace_back(&b->user, &b->src);
    for (const auto& c : b->cameras) cu.emplace_back(&c.user, &c.src);
  }
  for (const auto* j : joints_) ju.emplace_back(&j->user, &j->src);
  for (const auto* g : geoms_) gu.emplace_back(&g->user, &g->src);
  for (const auto* s : sites_) su.emplace_back(&s->user, &s->src);
  for (const auto& t : s_.tendons) tu.emplace_back(&t.user, &t.src);
  for (const auto& a : s_.actuators) au.emplace_back(&a.user, &a.src);
  for (const auto& s : s_.sensors) snu.emplace_back(&s.user, &s.src);
  m_.nuser_body = build(s_.nuser_body, bu, m_.body_user, "nuser_body");
  m_.nuser_jnt = build(s_.nuser_jnt, ju, m_.jnt_user, "nuser_jnt");
  m_.nuser_geom = build(s_.nuser_geom, gu, m_.geom_user, "nuser_geom");
  m_.nuser_site = build(s_.nuser_site, su, m_.site_user, "nuser_site");
  std::vector<double> cam_user;
  m_.nuser_cam = build(s_.nuser_cam, cu, cam_user, "nuser_cam");
  m_.nuser_tendon = build(s_.nuser_tendon, tu, m_.tendon_user, "nuser_tendon");
  m_.nuser_actuator = build(s_.nuser_actuator, au, m_.actuator_user, "nuser_actuator");
  m_.nuser_sensor = build(s_.nuser_sensor, snu, m_.sensor_user, "nuser_sensor");
}

}  // namespace moreau::compiler

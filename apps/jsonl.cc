#include "jsonl.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace moreau::cli {
namespace {

Json array(const double* v, int n) {
  Json a = Json::array();
  for (int i = 0; i < n; ++i) a.push_back(v[i]);
  return a;
}
Json array(const std::vector<double>& v) { return array(v.data(), static_cast<int>(v.size())); }

// Copy a JSON array of exactly n finite numbers into dst.
void read_array(const Json& line, const char* key, double* dst, int n) {
  const Json& a = line.at(key);
  if (!a.is_array())
    throw std::invalid_argument(std::string("'") + key + "' must be an array of " + std::to_string(n) +
                                " numbers");
  if (static_cast<int>(a.size()) != n)
    throw std::invalid_argument(std::string("'") + key + "' has " + std::to_string(a.size()) +
                                " numbers, the model expects " + std::to_string(n));
  for (int i = 0; i < n; ++i) {
    if (!a[i].is_number())
      throw std::invalid_argument(std::string("'") + key + "'[" + std::to_string(i) +
                                  "] is not a number (" + a[i].dump() + ")");
    const double x = a[i].get<double>();
    if (!std::isfinite(x))
      throw std::invalid_argument(std::string("'") + key + "'[" + std::to_string(i) + "] is not finite");
    dst[i] = x;
  }
}

}  // namespace

Json model_info(const Model& m) {
  return Json{{"nq", m.nq},           {"nv", m.nv},         {"nu", m.nu},       {"na", m.na},
              {"nbody", m.nbody},     {"njnt", m.njnt},     {"ngeom", m.ngeom}, {"nsite", m.nsite},
              {"neq", m.neq},         {"ntendon", m.ntendon}, {"nsensordata", m.nsensordata},
              {"nkey", m.nkey},       {"nmocap", m.nmocap}, {"npair", m.npair}, {"nexclude", m.nexclude},
              {"nmesh", m.nmesh},     {"nhfield", m.nhfield}, {"nsensor", m.nsensor},
              {"timestep", m.opt.timestep}};
}

void read_state(const Model& m, Data& d, const Json& line, bool allow_qacc) {
  if (!line.is_object()) throw std::invalid_argument("each input line must be a JSON object");
  for (const auto& [key, value] : line.items()) {
    if (key == "qpos") read_array(line, "qpos", d.qpos.data(), m.nq);
    else if (key == "qvel") read_array(line, "qvel", d.qvel.data(), m.nv);
    else if (key == "act") read_array(line, "act", d.act.data(), m.na);
    else if (key == "ctrl") read_array(line, "ctrl", d.ctrl.data(), m.nu);
    else if (key == "qfrc_applied") read_array(line, "qfrc_applied", d.qfrc_applied.data(), m.nv);
    else if (key == "qacc" && allow_qacc) read_array(line, "qacc", d.qacc.data(), m.nv);
    else if (key == "time") {
      if (!value.is_number()) throw std::invalid_argument("'time' must be a number");
      d.time = value.get<double>();
    } else {
      throw std::invalid_argument("unknown key '" + key + "' (expected qpos, qvel, act, ctrl, qfrc_applied" +
                                  std::string(allow_qacc ? ", qacc" : "") + ", time)");
    }
  }
}

Json forward_output(const Model& m, const Data& d, bool full) {
  Json out;
  out["qacc"] = array(d.qacc);
  out["qfrc_bias"] = array(d.qfrc_bias);
  out["qfrc_passive"] = array(d.qfrc_passive);
  out["qfrc_actuator"] = array(d.qfrc_actuator);
  out["qfrc_constraint"] = array(d.qfrc_constraint);
  out["ncon"] = d.ncon;
  out["nefc"] = d.nefc;
  Json dist = Json::array();
  for (int i = 0; i < d.ncon; ++i) dist.push_back(d.contact[i].dist);
  out["contact_dist"] = dist;
  out["xpos"] = array(d.xpos);
  out["xquat"] = array(d.xquat);
  out["sensordata"] = array(d.sensordata);
  out["actuator_force"] = array(d.actuator_force);
  out["energy"] = array(d.energy, 2);
  if (full) {
    std::vector<double> dense(static_cast<size_t>(m.nv) * m.nv);
    full_m(m, d.qM.data(), dense.data());
    out["qM"] = array(dense);
    out["efc_force"] = array(d.efc_force.data(), d.nefc);
  }
  return out;
}

Json inverse_output(const Model& m, const Data& d) {
  return Json{{"qfrc_inverse", array(d.qfrc_inverse)}, {"qfrc_constraint", array(d.qfrc_constraint)}};
}

namespace {
Json geom_id(const Model& m, int g) {
  if (g >= 0 && g < static_cast<int>(m.geom_names.size()) && !m.geom_names[g].empty()) return m.geom_names[g];
  return g;
}
}  // namespace

void add_step_metrics(const Model& m, Data& d, Json& line) {
  if (!is_hard_contact_solver(m.opt.solver)) contact_metrics(m, d, d.qvel.data());
  line["iterations"] = is_hard_contact_solver(m.opt.solver) ? d.ncp.iterations : d.solver_iter;
  line["eps_abs"] = d.ncp.eps_abs;
  line["errors"] = Json{{"primal", d.ncp.primal}, {"dual", d.ncp.dual}, {"complementarity", d.ncp.complementarity}};
  Json contacts = Json::array();
  for (int i = 0; i < d.ncon; ++i) {
    const Contact& con = d.contact[i];
    if (con.efc_address < 0) continue;
    double local[6], f[3];
    contact_force(m, d, i, local);
    for (int a = 0; a < 3; ++a)
      f[a] = con.frame[a] * local[0] + con.frame[3 + a] * local[1] + con.frame[6 + a] * local[2];
    contacts.push_back(Json{{"geom1", geom_id(m, con.geom1)},
                            {"geom2", geom_id(m, con.geom2)},
                            {"pos", array(con.pos, 3)},
                            {"force", array(f, 3)}});
  }
  line["contacts"] = contacts;
  // energy of the new state: its position stage (kinematics, inertia, tendons) first
  fwd_position(m, d);
  energy_pos(m, d);
  energy_vel(m, d);
  line["energy"] = array(d.energy, 2);
}

namespace {
constexpr const char* kWarningNames[kNWarning] = {"inertia",  "contactfull", "cnstrfull", "vgeomfull",
                                                  "badqpos", "badqvel",     "badqacc",   "badctrl"};
}  // namespace

Json warning_counts(const int* counts) {
  Json w = Json::object();
  for (int i = 0; i < kNWarning; ++i)
    if (counts[i] > 0) w[kWarningNames[i]] = Json{{"count", counts[i]}};
  return w;
}

Json warnings(const Data& d) {
  const auto& kNames = kWarningNames;
  Json w = Json::object();
  for (int i = 0; i < kNWarning; ++i)
    if (d.warning[i].number > 0)
      w[kNames[i]] = Json{{"count", d.warning[i].number}, {"index", d.warning[i].lastinfo}};
  return w;
}

}  // namespace moreau::cli

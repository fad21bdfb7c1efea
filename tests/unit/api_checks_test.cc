// Argument checks at the public entry points (moreau.h, state.h, derivative.h, actuation.h,
// collision.h, pose.h): ids out of range throw std::out_of_range, null required pointers, bad sizes
// and a Data made for another Model throw std::invalid_argument, each naming the function and the
// value. The Python bindings map these two types to IndexError and ValueError.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "moreau/collision.h"
#include "moreau/moreau.h"

namespace moreau {
namespace {

const std::string kHumanoid = std::string(MOREAU_SOURCE_DIR) + "/models/humanoid.xml";
const std::string kPendulum = std::string(MOREAU_SOURCE_DIR) + "/models/double_pendulum.xml";

// Runs f, expects exception type E whose message starts with `prefix` and contains `part`.
template <class E>
void expect_throw(const std::function<void()>& f, const std::string& prefix, const std::string& part = "") {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one starting with '" << prefix << "'";
  } catch (const E& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what << " (expected to contain '" << part << "')";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

class ApiChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    m = load_model(kHumanoid);
    d = make_data(m);
    reset_data_keyframe(m, d, 0);
    for (int i = 0; i < 2000 && d.ncon == 0; ++i) step(m, d);  // the humanoid falls to the floor
    forward(m, d);
    jac.assign(3 * m.nv, 0.0);
  }
  Model m;
  Data d;
  std::vector<double> jac;
};

TEST_F(ApiChecks, JacobianIdsOutOfRange) {
  const std::string range = " out of range [0, " + std::to_string(m.nbody) + ")";
  // the case that used to read out of bounds and return zeros
  expect_throw<std::out_of_range>([&] { jac_body_com(m, d, jac.data(), nullptr, -1); },
                                  "jac_body_com: body id -1" + range);
  expect_throw<std::out_of_range>([&] { jac_body_com(m, d, jac.data(), nullptr, m.nbody); },
                                  "jac_body_com: body id " + std::to_string(m.nbody) + range);
  expect_throw<std::out_of_range>([&] { jac_body(m, d, jac.data(), nullptr, -1); }, "jac_body: body id -1" + range);
  const double p[3] = {0, 0, 0};
  expect_throw<std::out_of_range>([&] { moreau::jac(m, d, jac.data(), nullptr, p, m.nbody); },
                                  "jac: body id " + std::to_string(m.nbody) + range);
  expect_throw<std::out_of_range>([&] { jac_geom(m, d, jac.data(), nullptr, m.ngeom); },
                                  "jac_geom: geom id " + std::to_string(m.ngeom) + " out of range [0, " +
                                      std::to_string(m.ngeom) + ")");
  expect_throw<std::out_of_range>([&] { jac_site(m, d, jac.data(), nullptr, -3); }, "jac_site: site id -3");
  expect_throw<std::out_of_range>([&] { jac_subtree_com(m, d, jac.data(), m.nbody); }, "jac_subtree_com: body id");
  const double axis[3] = {0, 0, 1};
  expect_throw<std::out_of_range>([&] { jac_point_axis(m, d, jac.data(), nullptr, p, axis, -1); },
                                  "jac_point_axis: body id -1");
  std::vector<double> qfrc(m.nv);
  expect_throw<std::out_of_range>([&] { apply_ft(m, d, p, p, p, m.nbody, qfrc.data()); }, "apply_ft: body id");
  // valid ids still work, and the null outputs allowed by the API are allowed
  jac_body_com(m, d, jac.data(), nullptr, m.nbody - 1);
  jac_body_com(m, d, nullptr, nullptr, 0);
  expect_throw<std::invalid_argument>([&] { moreau::jac(m, d, jac.data(), nullptr, nullptr, 1); },
                                      "jac: point must not be null");
  expect_throw<std::invalid_argument>([&] { jac_subtree_com(m, d, nullptr, 1); }, "jac_subtree_com: jacp must not be null");
  expect_throw<std::invalid_argument>([&] { apply_ft(m, d, p, p, p, 1, nullptr); },
                                      "apply_ft: qfrc_target must not be null");
}

TEST_F(ApiChecks, ContactForceIdOutOfRange) {
  ASSERT_GT(d.ncon, 0);
  double f[6];
  contact_force(m, d, d.ncon - 1, f);
  EXPECT_GT(f[0], 0.0);  // a contact of the solver pushes
  expect_throw<std::out_of_range>([&] { contact_force(m, d, d.ncon, f); },
                                  "contact_force: contact id " + std::to_string(d.ncon) + " out of range [0, " +
                                      std::to_string(d.ncon) + ")");
  expect_throw<std::out_of_range>([&] { contact_force(m, d, -1, f); }, "contact_force: contact id -1");
  expect_throw<std::invalid_argument>([&] { contact_force(m, d, 0, nullptr); }, "contact_force: result must not be null");
}

TEST_F(ApiChecks, OtherIdsOutOfRange) {
  expect_throw<std::out_of_range>([&] { reset_data_keyframe(m, d, m.nkey); }, "reset_data_keyframe: key");
  expect_throw<std::out_of_range>([&] { set_keyframe(m, d, -1); }, "set_keyframe: key id -1 out of range [0, 1)");
  expect_throw<std::out_of_range>([&] { next_activation(m, m.nu, 0, 0, 0.01); },
                                  "next_activation: actuator id " + std::to_string(m.nu));
  const double pnt[3] = {0, 0, 2}, vec[3] = {0, 0, -1};
  expect_throw<std::out_of_range>([&] { ray(m, d, pnt, vec, -2, nullptr); }, "ray: bodyexclude body id -2");
  EXPECT_GT(ray(m, d, pnt, vec, -1, nullptr), 0.0);  // -1: no body excluded
  expect_throw<std::out_of_range>([&] { id2name(m, kObjBody, m.nbody); }, "id2name: body id");
  expect_throw<std::out_of_range>([&] { id2name(m, kObjActuator, -1); }, "id2name: actuator id -1");
  expect_throw<std::invalid_argument>([&] { id2name(m, kObjDof, 0); }, "id2name: object type 4 has no names");
  double res[6];
  expect_throw<std::out_of_range>([&] { object_velocity(m, d, kObjGeom, m.ngeom, res, false); },
                                  "object_velocity: geom id");
  expect_throw<std::out_of_range>([&] { object_acceleration(m, d, kObjSite, -1, res, true); },
                                  "object_acceleration: site id -1");
  expect_throw<std::invalid_argument>([&] { object_velocity(m, d, kObjJoint, 0, res, false); },
                                      "object_velocity: object type 3 has no frame");
  double xpos[3];
  const double pos[3] = {0, 0, 0};
  expect_throw<std::out_of_range>([&] { local_to_global(m, d, xpos, nullptr, pos, nullptr, m.nbody); },
                                  "local_to_global: body id");
  expect_throw<std::invalid_argument>([&] { local_to_global(m, d, xpos, nullptr, pos, nullptr, 1, 3); },
                                      "local_to_global: sameframe 3");
}

TEST_F(ApiChecks, NullOutputsAndBadSizes) {
  std::vector<double> v(m.nv, 1.0);
  expect_throw<std::invalid_argument>([&] { rne(m, d, false, nullptr); }, "rne: result must not be null");
  ASSERT_GT(d.nefc, 0);
  expect_throw<std::invalid_argument>([&] { efc_J_dense(m, d, nullptr); }, "efc_J_dense: out must not be null");
  expect_throw<std::invalid_argument>([&] { mul_m(m, d, nullptr, v.data()); }, "mul_m: res must not be null");
  expect_throw<std::invalid_argument>([&] { mul_m(m, d, v.data(), nullptr); }, "mul_m: vec must not be null");
  expect_throw<std::invalid_argument>([&] { solve_m(m, d, nullptr); }, "solve_m: x must not be null");
  expect_throw<std::invalid_argument>([&] { solve_m(m, d, v.data(), -1); }, "solve_m: the number of columns");
  expect_throw<std::invalid_argument>([&] { solve_m2(m, d, nullptr); }, "solve_m2: x must not be null");
  expect_throw<std::invalid_argument>([&] { full_m(m, d.qM.data(), nullptr); }, "full_m: dense must not be null");
  expect_throw<std::invalid_argument>([&] { integrate_pos(m, nullptr, v.data(), 0.1); },
                                      "integrate_pos: qpos must not be null");
  expect_throw<std::invalid_argument>([&] { differentiate_pos(m, v.data(), 0.1, nullptr, d.qpos.data()); },
                                      "differentiate_pos: qpos1 must not be null");
  expect_throw<std::invalid_argument>([&] { normalize_quat(m, nullptr); }, "normalize_quat: qpos must not be null");
  expect_throw<std::invalid_argument>([&] { mul_jac_vec(m, d, v.data(), nullptr); }, "mul_jac_vec: vec must not be null");
  expect_throw<std::invalid_argument>([&] { mul_jac_t_vec(m, d, nullptr, v.data()); },
                                      "mul_jac_t_vec: res must not be null");
  // a null array of zero entries is accepted (the data() of an empty vector)
  Model empty_model = load_model_from_string("<mujoco><worldbody><geom size=\".1\"/></worldbody></mujoco>");
  Data empty_data = make_data(empty_model);
  rne(empty_model, empty_data, false, nullptr);
  mul_m(empty_model, empty_data, nullptr, nullptr);
  expect_throw<std::invalid_argument>([&] { get_state(m, d, kStatePhysics, static_cast<double*>(nullptr)); },
                                      "get_state: state must not be null");
  expect_throw<std::invalid_argument>([&] { set_state(m, d, kStatePhysics, std::vector<double>(3)); },
                                      "set_state: the vector has 3 values");
  expect_throw<std::invalid_argument>([&] { deriv_to_dense(m, nullptr, v.data()); },
                                      "deriv_to_dense: sparse must not be null");
  expect_throw<std::invalid_argument>([&] { transition_fd(m, d, 0.0, false, nullptr, nullptr, nullptr, nullptr); },
                                      "transition_fd: eps must be a positive finite number");
  expect_throw<std::invalid_argument>(
      [&] { inverse_fd(m, d, -1e-6, false, false, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr); },
      "inverse_fd: eps must be a positive finite number");
  expect_throw<std::invalid_argument>([&] { forward_skip(m, d, kStageAcc, false); }, "forward_skip: skipstage 3");
  expect_throw<std::invalid_argument>([&] { inverse_skip(m, d, -1, false); }, "inverse_skip: skipstage -1");
  double q[4] = {1, 0, 0, 0};
  expect_throw<std::invalid_argument>([&] { quat_mul(nullptr, q, q); }, "quat_mul: res must not be null");
  expect_throw<std::invalid_argument>([&] { mul_pose(nullptr, q, q, q, q, q); }, "mul_pose: posres must not be null");
  const double p[3] = {0, 0, 1};
  expect_throw<std::invalid_argument>([&] { ray_geom(p, nullptr, p, p, p, kGeomSphere); }, "ray_geom: mat must not be null");
  const double range[2] = {0.5, 1.5};
  expect_throw<std::invalid_argument>([&] { muscle_gain(1, 0, range, 1, nullptr); }, "muscle_gain: prm must not be null");
  expect_throw<std::invalid_argument>([&] { muscle_bias(1, nullptr, 1, range); },
                                      "muscle_bias: lengthrange must not be null");
  expect_throw<std::invalid_argument>([&] { muscle_dynamics(0.5, 0.5, nullptr); },
                                      "muscle_dynamics: prm must not be null");
}

// Every entry that takes a Data refuses one made for another model, naming itself and the first
// array whose size differs.
TEST_F(ApiChecks, DataOfAnotherModel) {
  const Model other = load_model(kPendulum);
  Data o = make_data(other);
  ASSERT_NE(other.nq, m.nq);
  std::vector<double> buf(100000, 0.0);
  double* b = buf.data();
  const double p[3] = {0, 0, 1}, axis[3] = {1, 0, 0}, q[4] = {1, 0, 0, 0};
  double r6[6];
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"step", [&] { step(m, o); }},
      {"step1", [&] { step1(m, o); }},
      {"step2", [&] { step2(m, o); }},
      {"forward", [&] { forward(m, o); }},
      {"inverse", [&] { inverse(m, o); }},
      {"inverse_skip", [&] { inverse_skip(m, o, kStageVel, true); }},
      {"forward_skip", [&] { forward_skip(m, o, kStagePos, false); }},
      {"reset_data", [&] { reset_data(m, o); }},
      {"reset_data_keyframe", [&] { reset_data_keyframe(m, o, 0); }},
      {"check_pos", [&] { check_pos(m, o); }},
      {"check_vel", [&] { check_vel(m, o); }},
      {"check_acc", [&] { check_acc(m, o); }},
      {"fwd_position", [&] { fwd_position(m, o); }},
      {"fwd_velocity", [&] { fwd_velocity(m, o); }},
      {"fwd_actuation", [&] { fwd_actuation(m, o); }},
      {"fwd_acceleration", [&] { fwd_acceleration(m, o); }},
      {"fwd_constraint", [&] { fwd_constraint(m, o); }},
      {"kinematics", [&] { kinematics(m, o); }},
      {"com_pos", [&] { com_pos(m, o); }},
      {"camlight", [&] { camlight(m, o); }},
      {"crb", [&] { crb(m, o); }},
      {"factor_m", [&] { factor_m(m, o); }},
      {"com_vel", [&] { com_vel(m, o); }},
      {"passive", [&] { passive(m, o); }},
      {"rne", [&] { rne(m, o, false, b); }},
      {"rne_post_constraint", [&] { rne_post_constraint(m, o); }},
      {"energy_pos", [&] { energy_pos(m, o); }},
      {"energy_vel", [&] { energy_vel(m, o); }},
      {"collision", [&] { collision(m, o); }},
      {"collision", [&] { collision(m, o, default_collision_table()); }},
      {"collision_reserve", [&] { collision_reserve(m, o); }},
      {"allocate_constraint_storage", [&] { allocate_constraint_storage(m, o); }},
      {"make_constraint", [&] { make_constraint(m, o); }},
      {"reference_constraint", [&] { reference_constraint(m, o); }},
      {"solve_constraint", [&] { solve_constraint(m, o); }},
      {"inverse_constraint", [&] { inverse_constraint(m, o); }},
      {"compare_fwdinv", [&] { compare_fwdinv(m, o); }},
      {"project_constraint", [&] { project_constraint(m, o); }},
      {"efc_J_dense", [&] { efc_J_dense(m, o, b); }},
      {"contact_force", [&] { contact_force(m, o, 0, b); }},
      {"contact_metrics", [&] { contact_metrics(m, o); }},
      {"mul_m", [&] { mul_m(m, o, b, b); }},
      {"solve_m", [&] { solve_m(m, o, b); }},
      {"solve_m2", [&] { solve_m2(m, o, b); }},
      {"jac", [&] { moreau::jac(m, o, b, b, p, 1); }},
      {"jac_body", [&] { jac_body(m, o, b, b, 1); }},
      {"jac_body_com", [&] { jac_body_com(m, o, b, b, 1); }},
      {"jac_geom", [&] { jac_geom(m, o, b, b, 1); }},
      {"jac_site", [&] { jac_site(m, o, b, b, 0); }},
      {"jac_subtree_com", [&] { jac_subtree_com(m, o, b, 1); }},
      {"jac_point_axis", [&] { jac_point_axis(m, o, b, b, p, axis, 1); }},
      {"apply_ft", [&] { apply_ft(m, o, p, p, p, 1, b); }},
      {"mul_jac_vec", [&] { mul_jac_vec(m, o, b, b); }},
      {"mul_jac_t_vec", [&] { mul_jac_t_vec(m, o, b, b); }},
      {"object_velocity", [&] { object_velocity(m, o, kObjBody, 1, r6, false); }},
      {"object_acceleration", [&] { object_acceleration(m, o, kObjBody, 1, r6, false); }},
      {"local_to_global", [&] { local_to_global(m, o, b, b, p, q, 1); }},
      {"set_keyframe", [&] { set_keyframe(m, o, 0); }},
      {"get_state", [&] { get_state(m, o, kStatePhysics, b); }},
      {"set_state", [&] { set_state(m, o, kStatePhysics, b); }},
      {"deriv_smooth_vel", [&] { deriv_smooth_vel(m, o); }},
      {"transition_fd", [&] { transition_fd(m, o, 1e-6, false, b, nullptr, nullptr, nullptr); }},
      {"inverse_fd", [&] { inverse_fd(m, o, 1e-6, false, false, b, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr); }},
      {"tendon", [&] { tendon(m, o); }},
      {"transmission", [&] { transmission(m, o); }},
      {"tendon_actuator_velocity", [&] { tendon_actuator_velocity(m, o); }},
      {"tendon_passive", [&] { tendon_passive(m, o); }},
      {"tendon_energy", [&] { tendon_energy(m, o); }},
      {"actuation_force", [&] { actuation_force(m, o); }},
      {"subtree_vel", [&] { subtree_vel(m, o); }},
      {"sensor_pos", [&] { sensor_pos(m, o); }},
      {"sensor_vel", [&] { sensor_vel(m, o); }},
      {"sensor_acc", [&] { sensor_acc(m, o); }},
      {"ray", [&] { ray(m, o, p, axis, -1, nullptr); }},
  };
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    expect_throw<std::invalid_argument>(call, std::string(name) + ": the Data was not made for this Model",
                                        "(qpos has " + std::to_string(other.nq) + " entries, the model's nq is " +
                                            std::to_string(m.nq) + ")");
  }
  // the other Data is untouched and still works with its own model
  step(other, o);
  EXPECT_GT(o.time, 0.0);
  // a default-constructed Data is refused too
  Data empty;
  expect_throw<std::invalid_argument>([&] { step(m, empty); }, "step: the Data was not made for this Model");
}

// A Model whose arrays do not match its sizes (a hand-built or edited Model) is refused by make_data,
// naming each short array, instead of being read out of bounds by the pipeline.
// An entry point checks the Data once and marks it checked for its Model while it runs (the stages
// it calls skip their check). The mark is for that Model only, is cleared when an exception leaves
// the call, and is not copied.
TEST_F(ApiChecks, CheckedMarkIsScopedToTheCallAndItsModel) {
  const Model other = load_model(kPendulum);
  EXPECT_EQ(d.checked.model, nullptr);
  const Model* seen = nullptr;
  bool other_refused = false;
  Data copy_in_call;
  d.control_callback = nullptr;
  struct Ctx {
    const Model* other;
    const Model** seen;
    bool* other_refused;
    Data* copy;
  } ctx{&other, &seen, &other_refused, &copy_in_call};
  d.control_user = &ctx;
  d.control_callback = [](const Model&, Data& dd) {
    Ctx* c = static_cast<Ctx*>(dd.control_user);
    *c->seen = dd.checked.model;
    try {
      fwd_actuation(*c->other, dd);  // another Model: still checked, and refused
    } catch (const std::invalid_argument& e) {
      *c->other_refused = std::string(e.what()).rfind("fwd_actuation:", 0) == 0;
    }
    *c->copy = dd;
    throw std::runtime_error("callback");
  };
  EXPECT_THROW(forward(m, d), std::runtime_error);
  EXPECT_EQ(seen, &m);
  EXPECT_TRUE(other_refused);
  EXPECT_EQ(copy_in_call.checked.model, nullptr);
  EXPECT_EQ(d.checked.model, nullptr);  // restored although the call ended by an exception
  d.control_callback = nullptr;
  // Unmarked again: a stage called with another Model is refused.
  expect_throw<std::invalid_argument>([&] { fwd_actuation(other, d); }, "fwd_actuation:");
  forward(m, d);
  EXPECT_EQ(d.checked.model, nullptr);
}

TEST_F(ApiChecks, MakeDataRefusesArraysThatDoNotMatchTheSizes) {
  Model bad = m;
  bad.dof_simplenum.pop_back();
  bad.geom_sameframe.clear();
  expect_throw<std::invalid_argument>([&] { make_data(bad); }, "make_data: the Model's arrays do not match",
                                      "dof_simplenum has " + std::to_string(m.nv - 1) + " entries, the sizes give " +
                                          std::to_string(m.nv));
  expect_throw<std::invalid_argument>([&] { make_data(bad); }, "make_data:",
                                      "geom_sameframe has 0 entries, the sizes give " + std::to_string(m.ngeom));
  bad = m;
  bad.actuator_gainprm.resize(bad.actuator_gainprm.size() + 1);
  expect_throw<std::invalid_argument>([&] { make_data(bad); }, "make_data:", "actuator_gainprm has");
  EXPECT_NO_THROW(make_data(m));
}

TEST_F(ApiChecks, UnknownIntegratorIsInvalidArgument) {
  m.opt.integrator = 9;
  expect_throw<std::invalid_argument>([&] { step(m, d); }, "step: unknown integrator 9");
}

}  // namespace
}  // namespace moreau

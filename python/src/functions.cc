// The engine's free functions: stepping, state, derivatives, Jacobians and utilities. Long calls
// release the GIL. The engine checks ids, sizes and the Data/Model match itself (std::out_of_range
// and std::invalid_argument become IndexError and ValueError); the bindings add the guard against
// two threads using the same Data.
#include "bind.h"

namespace moreau::python {
namespace {

// Marks a Data as in use for the duration of a call: two threads stepping one Data at once would
// race on its storage, so the second gets a RuntimeError instead.
class Busy {
 public:
  explicit Busy(PyData& p, const char* fn) : p_(p) {
    if (p_.busy.exchange(true))
      throw std::runtime_error(std::string(fn) + ": this Data is being used by another thread");
  }
  ~Busy() { p_.busy.store(false); }

 private:
  PyData& p_;
};

// Raise the exception a Python control callback left during the last call.
void raise_control_error(PyData& p) {
  if (p.control_error) {
    py::error_already_set e = std::move(*p.control_error);
    p.control_error.reset();
    throw e;
  }
}

// Runs f(m, data) with the GIL released, guarded, then raises a callback error if any.
template <class F>
void run(const Model& m, PyData& p, const char* fn, F&& f) {
  {
    Busy busy(p, fn);
    py::gil_scoped_release nogil;
    f(m, p.data);
  }
  raise_control_error(p);
}

unsigned check_spec(long long spec, const char* fn) {
  if (spec < 0 || spec >= (1ll << kNState))
    throw py::value_error(std::string(fn) + ": state spec " + std::to_string(spec) +
                          " has bits beyond moreau.State (0 <= spec < " + std::to_string(1 << kNState) + ")");
  return static_cast<unsigned>(spec);
}

py::array_t<double> zeros(std::vector<py::ssize_t> shape) {
  py::array_t<double> a(shape);
  std::fill_n(a.mutable_data(), a.size(), 0.0);
  return a;
}

// A (3, nv) pair of Jacobians (translational, rotational).
template <class F>
py::tuple jacobians(const Model& m, PyData& p, F&& f) {
  auto jacp = zeros({3, m.nv}), jacr = zeros({3, m.nv});
  double* jp = jacp.mutable_data();
  double* jr = jacr.mutable_data();
  f(jp, jr);
  return py::make_tuple(jacp, jacr);
}

}  // namespace

void bind_functions(py::module_& mod) {
  // ------------------------------------------------------------------ stepping
  mod.def(
      "step",
      [](const Model& m, PyData& p, int nstep) {
        if (nstep < 0) throw py::value_error("step: nstep must be >= 0, got " + std::to_string(nstep));
        run(m, p, "step", [&](const Model& m, Data& d) {
          for (int i = 0; i < nstep && !p.control_error; ++i) step(m, d);
        });
      },
      py::arg("m"), py::arg("d"), py::arg("nstep") = 1,
      "Advance the simulation by nstep timesteps with the model's integrator (the GIL is released).");
  mod.def(
      "forward", [](const Model& m, PyData& p) { run(m, p, "forward", [](const Model& m, Data& d) { forward(m, d); }); },
      py::arg("m"), py::arg("d"), "Forward dynamics: everything but integration (qacc, sensors, contacts ...).");
  mod.def(
      "inverse", [](const Model& m, PyData& p) { run(m, p, "inverse", [](const Model& m, Data& d) { inverse(m, d); }); },
      py::arg("m"), py::arg("d"), "Inverse dynamics: qfrc_inverse from qpos, qvel, qacc.");
  mod.def(
      "step1", [](const Model& m, PyData& p) { run(m, p, "step1", [](const Model& m, Data& d) { step1(m, d); }); },
      py::arg("m"), py::arg("d"), "First half of step: position and velocity stages (then set ctrl).");
  mod.def(
      "step2", [](const Model& m, PyData& p) { run(m, p, "step2", [](const Model& m, Data& d) { step2(m, d); }); },
      py::arg("m"), py::arg("d"), "Second half of step: actuation, acceleration, integration.");
  mod.def(
      "reset_data",
      [](const Model& m, PyData& p) {
        Busy busy(p, "reset_data");
        reset_data(m, p.data);
      },
      py::arg("m"), py::arg("d"), "Reset to qpos0, zero velocity, activation, controls and applied forces.");
  mod.def(
      "reset_data_keyframe",
      [](const Model& m, PyData& p, int key) {
        Busy busy(p, "reset_data_keyframe");
        reset_data_keyframe(m, p.data, key);
      },
      py::arg("m"), py::arg("d"), py::arg("key"), "Reset, then set the state of keyframe `key`.");
  mod.def(
      "set_const",
      [](Model& m, py::object d) {
        py::gil_scoped_release nogil;
        set_const(m);
      },
      py::arg("m"), py::arg("d") = py::none(),
      "Recompute the model's derived constants after changing masses, inertias, armature or geometry "
      "(the Data argument is accepted for MuJoCo's signature and not needed).");

  // The pipeline stages, for users who run parts of it (names as moreau.h).
#define STAGE(name, doc)                                                                          \
  mod.def(                                                                                        \
      #name, [](const Model& m, PyData& p) { run(m, p, #name, [](const Model& m, Data& d) { name(m, d); }); }, \
      py::arg("m"), py::arg("d"), doc);
  STAGE(kinematics, "xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, geom and site frames")
  STAGE(com_pos, "subtree_com, cinert, cdof")
  STAGE(camlight, "camera and light frames")
  STAGE(crb, "composite rigid body inertia: qM")
  STAGE(factor_m, "L'DL factorization of qM")
  STAGE(com_vel, "cvel, cdof_dot")
  STAGE(passive, "qfrc_passive")
  STAGE(collision, "contacts (d.contact, d.ncon)")
  STAGE(fwd_position, "position-dependent stages")
  STAGE(fwd_velocity, "velocity-dependent stages")
  STAGE(fwd_actuation, "actuator forces")
  STAGE(fwd_acceleration, "qacc_smooth")
  STAGE(fwd_constraint, "constraint solver")
  STAGE(energy_pos, "potential energy")
  STAGE(energy_vel, "kinetic energy")
  STAGE(rne_post_constraint, "cacc, cfrc_int, cfrc_ext")
#undef STAGE

  // ------------------------------------------------------------------ state
  mod.def(
      "state_size", [](const Model& m, long long spec) { return state_size(m, check_spec(spec, "state_size")); },
      py::arg("m"), py::arg("spec"), "Length of a state vector of the components in spec (moreau.State bits).");
  mod.def(
      "get_state",
      [](const Model& m, const PyData& p, long long spec) {
        const unsigned s = check_spec(spec, "get_state");
        py::array_t<double> out(state_size(m, s));
        get_state(m, p.data, s, out.mutable_data());
        return out;
      },
      py::arg("m"), py::arg("d"), py::arg("spec"), "The components of spec (moreau.State bits) as a new vector.");
  mod.def(
      "set_state",
      [](const Model& m, PyData& p, py::handle state, long long spec) {
        const unsigned s = check_spec(spec, "set_state");
        const int n = state_size(m, s);
        std::vector<double> buf(n);
        assign("set_state: state", buf.data(), {n}, state);
        Busy busy(p, "set_state");
        set_state(m, p.data, s, buf.data());
      },
      py::arg("m"), py::arg("d"), py::arg("state"), py::arg("spec"),
      "Copy a state vector of the components in spec into d (call forward or step next).");

  // ------------------------------------------------------------------ derivatives
  mod.def(
      "transition_fd",
      [](const Model& m, PyData& p, double eps, bool centered) {
        if (!(eps > 0)) throw py::value_error("transition_fd: eps must be positive");
        const py::ssize_t nx = 2 * m.nv + m.na, ns = m.nsensordata;
        auto A = zeros({nx, nx}), B = zeros({nx, m.nu}), C = zeros({ns, nx}), D = zeros({ns, m.nu});
        double *a = A.mutable_data(), *b = B.mutable_data(), *c = ns ? C.mutable_data() : nullptr,
               *dd = ns ? D.mutable_data() : nullptr;
        run(m, p, "transition_fd", [&](const Model& m, Data& d) { transition_fd(m, d, eps, centered, a, b, c, dd); });
        return py::make_tuple(A, B, C, D);
      },
      py::arg("m"), py::arg("d"), py::arg("eps") = 1e-6, py::arg("centered") = true,
      "Transition Jacobians of step by finite differences: (A, B, C, D) with dx' = A dx + B du, "
      "ds = C dx + D du; x = (qpos tangent, qvel, act), u = ctrl.");
  mod.def(
      "inverse_fd",
      [](const Model& m, PyData& p, double eps, bool centered, bool flg_actuation) {
        if (!(eps > 0)) throw py::value_error("inverse_fd: eps must be positive");
        const py::ssize_t nv = m.nv, ns = m.nsensordata;
        auto DfDq = zeros({nv, nv}), DfDv = zeros({nv, nv}), DfDa = zeros({nv, nv});
        auto DsDq = zeros({ns, nv}), DsDv = zeros({ns, nv}), DsDa = zeros({ns, nv}), DmDq = zeros({m.nM, nv});
        double *s1 = ns ? DsDq.mutable_data() : nullptr, *s2 = ns ? DsDv.mutable_data() : nullptr,
               *s3 = ns ? DsDa.mutable_data() : nullptr;
        double *f1 = DfDq.mutable_data(), *f2 = DfDv.mutable_data(), *f3 = DfDa.mutable_data(),
               *mm = DmDq.mutable_data();
        run(m, p, "inverse_fd", [&](const Model& m, Data& d) {
          inverse_fd(m, d, eps, centered, flg_actuation, f1, f2, f3, s1, s2, s3, mm);
        });
        py::dict out;
        out["DfDq"] = DfDq; out["DfDv"] = DfDv; out["DfDa"] = DfDa;
        out["DsDq"] = DsDq; out["DsDv"] = DsDv; out["DsDa"] = DsDa; out["DmDq"] = DmDq;
        return out;
      },
      py::arg("m"), py::arg("d"), py::arg("eps") = 1e-6, py::arg("centered") = true,
      py::arg("flg_actuation") = false, "Jacobians of inverse dynamics by finite differences (a dict).");
  mod.def(
      "deriv_smooth_vel",
      [](const Model& m, PyData& p, bool rne) {
        run(m, p, "deriv_smooth_vel", [&](const Model& m, Data& d) { deriv_smooth_vel(m, d, rne); });
        auto out = zeros({m.nv, m.nv});
        deriv_to_dense(m, p.data.qDeriv.data(), out.mutable_data());
        return out;
      },
      py::arg("m"), py::arg("d"), py::arg("rne") = true,
      "d(qfrc_passive + qfrc_actuator - qfrc_bias)/d qvel (dense nv x nv; also left in d.qDeriv).");

  mod.def(
      "transition_derivatives",
      [](const Model& m, PyData& p, bool sensors) {
        const py::ssize_t nx = 2 * m.nv + m.na, ns = m.nsensordata;
        auto A = zeros({nx, nx}), B = zeros({nx, m.nu});
        double *a = A.mutable_data(), *b = B.mutable_data();
        py::object C = py::none(), D = py::none();
        double *c = nullptr, *dd = nullptr;
        if (sensors) {
          auto Ca = zeros({ns, nx}), Da = zeros({ns, m.nu});
          c = ns ? Ca.mutable_data() : nullptr, dd = ns ? Da.mutable_data() : nullptr;
          C = Ca, D = Da;
        }
        run(m, p, "transition_derivatives",
            [&](const Model& m, Data& d) { transition_derivatives(m, d, a, b, c, dd); });
        return py::make_tuple(A, B, C, D);
      },
      py::arg("m"), py::arg("d"), py::arg("sensors") = false,
      "Transition Jacobians of step, analytic (moreau/analytic_derivative.h): (A, B, C, D) as "
      "transition_fd; C and D (sensor rows, analytic per sensor type; the types derivative_fallbacks "
      "lists with '(C, D rows)' by finite differences) only with sensors=True, else None.");
  mod.def(
      "forward_derivatives",
      [](const Model& m, PyData& p) {
        const py::ssize_t nv = m.nv, na = m.na, nu = m.nu;
        auto Dq = zeros({nv, nv}), Dv = zeros({nv, nv}), Da = zeros({nv, na}), Du = zeros({nv, nu}),
             Df = zeros({nv, nv}), Gact = zeros({na, na}), Gu = zeros({na, nu});
        double *q = Dq.mutable_data(), *v = Dv.mutable_data(), *a = Da.mutable_data(), *u = Du.mutable_data(),
               *f = Df.mutable_data(), *ga = Gact.mutable_data(), *gu = Gu.mutable_data();
        run(m, p, "forward_derivatives",
            [&](const Model& m, Data& d) { forward_derivatives(m, d, q, v, a, u, f, ga, gu); });
        py::dict out;
        out["DaDq"] = Dq; out["DaDv"] = Dv; out["DaDact"] = Da; out["DaDu"] = Du; out["DaDf"] = Df;
        out["DactDact"] = Gact; out["DactDu"] = Gu;
        return out;
      },
      py::arg("m"), py::arg("d"),
      "d qacc / d (qpos tangent, qvel, act, ctrl, qfrc_applied) and d act_dot / d (act, ctrl) of forward "
      "dynamics, analytic (a dict of arrays).");
  mod.def(
      "derivative_fallbacks",
      [](const Model& m, PyData& p) {
        std::vector<std::string> out;
        run(m, p, "derivative_fallbacks", [&](const Model& m, Data& d) { out = derivative_fallbacks(m, d); });
        return out;
      },
      py::arg("m"), py::arg("d"),
      "The features that make some derivative columns or sensor rows fall back to finite differences "
      "(empty: all analytic).");

  // ------------------------------------------------------------------ contacts and constraints
  mod.def(
      "contact_force",
      [](const Model& m, const PyData& p, int id) {
        auto out = zeros({6});
        contact_force(m, p.data, id, out.mutable_data());
        return out;
      },
      py::arg("m"), py::arg("d"), py::arg("id"),
      "Force of contact id in its frame (normal, tangent1, tangent2, spin, roll1, roll2).");
  mod.def(
      "contact_metrics",
      [](const Model& m, PyData& p, std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>> vplus) {
        if (vplus && vplus->size() != m.nv)
          throw py::value_error("contact_metrics: vplus: expected shape (" + std::to_string(m.nv) + ",)");
        const double* v = vplus ? vplus->data() : nullptr;
        run(m, p, "contact_metrics", [&](const Model& m, Data& d) { contact_metrics(m, d, v); });
        return ncp_stats(p.data.ncp);
      },
      py::arg("m"), py::arg("d"), py::arg("vplus") = py::none(),
      "The RaiSim paper's errors (primal, dual, complementarity, eps_abs) of the last forward, for "
      "any solver; vplus: the velocity after the step (default qvel + h qacc, i.e. after forward).");
  mod.def(
      "efc_J",
      [](const Model& m, const PyData& p) {
        auto out = zeros({p.data.nefc, m.nv});
        efc_J_dense(m, p.data, out.mutable_data());
        return out;
      },
      py::arg("m"), py::arg("d"), "The constraint Jacobian as a dense (nefc, nv) array (a copy).");
  mod.def(
      "impact",
      [](const Model& m, PyData& p, double restitution) {
        run(m, p, "impact", [&](const Model& m, Data& d) { impact(m, d, restitution); });
      },
      py::arg("m"), py::arg("d"), py::arg("restitution"),
      "Impulsive collision with restitution: replaces qvel by the post-impact velocity (hard-contact solver).");
  mod.def("is_hard_contact_solver", [](int s) { return is_hard_contact_solver(s); }, py::arg("solver"),
          "Whether a solver (moreau.Solver or int) is one of the hard-contact (velocity-stepping) solvers.");
  mod.def(
      "solver_name",
      [](int s) {
        if (s < 0 || s > kSolverLCP) throw py::value_error("solver_name: no solver " + std::to_string(s));
        return std::string(solver_name(s));
      },
      py::arg("solver"), "The MJCF / command-line name of a solver (\"Newton\", \"raisim-ds\", ...).");

  // ------------------------------------------------------------------ inertia matrix
  mod.def(
      "full_m",
      [](const Model& m, const PyData& p) {
        auto out = zeros({m.nv, m.nv});
        full_m(m, p.data.qM.data(), out.mutable_data());
        return out;
      },
      py::arg("m"), py::arg("d"), "The inertia matrix d.qM as a dense (nv, nv) array.");
  mod.def(
      "mul_m",
      [](const Model& m, const PyData& p, py::handle vec) {
        std::vector<double> v(m.nv);
        assign("mul_m: vec", v.data(), {m.nv}, vec);
        auto out = zeros({m.nv});
        mul_m(m, p.data, out.mutable_data(), v.data());
        return out;
      },
      py::arg("m"), py::arg("d"), py::arg("vec"), "M @ vec");
  mod.def(
      "solve_m",
      [](const Model& m, const PyData& p, py::array_t<double, py::array::c_style | py::array::forcecast> x) {
        const bool vec = x.ndim() == 1;
        if (!((vec && x.shape(0) == m.nv) || (x.ndim() == 2 && x.shape(1) == m.nv)))
          throw py::value_error("solve_m: expected shape (nv,) or (n, nv) with nv = " + std::to_string(m.nv));
        py::array_t<double> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
        std::copy_n(x.data(), x.size(), out.mutable_data());
        const int n = vec ? 1 : static_cast<int>(x.shape(0));
        if (m.nv > 0 && n > 0) solve_m(m, p.data, out.mutable_data(), n);
        return out;
      },
      py::arg("m"), py::arg("d"), py::arg("x"), "M^-1 x from the factor d.qLD (rows of x are vectors).");

  // ------------------------------------------------------------------ Jacobians
  mod.def(
      "jac",
      [](const Model& m, PyData& p, py::handle point, int body) {
        double pt[3];
        assign("jac: point", pt, {3}, point);
        return jacobians(m, p, [&](double* jp, double* jr) { jac(m, p.data, jp, jr, pt, body); });
      },
      py::arg("m"), py::arg("d"), py::arg("point"), py::arg("body"),
      "(jacp, jacr), each (3, nv): Jacobians of a world point attached to body.");
#define JAC(name, what)                                                                         \
  mod.def(                                                                                         \
      #name,                                                                                       \
      [](const Model& m, PyData& p, int id) {                                                      \
        return jacobians(m, p, [&](double* jp, double* jr) { name(m, p.data, jp, jr, id); });     \
      },                                                                                           \
      py::arg("m"), py::arg("d"), py::arg("id"), "(jacp, jacr), each (3, nv), of a " what);
  JAC(jac_body, "body frame")
  JAC(jac_body_com, "body centre of mass")
  JAC(jac_geom, "geom")
  JAC(jac_site, "site")
#undef JAC

  // ------------------------------------------------------------------ configuration space
  mod.def(
      "integrate_pos",
      [](const Model& m, py::array_t<double> qpos, py::handle qvel, double dt) {
        if (qpos.ndim() != 1 || qpos.shape(0) != m.nq || !(qpos.flags() & py::array::c_style) || !qpos.writeable())
          throw py::value_error("integrate_pos: qpos must be a writable float64 array of shape (" +
                                std::to_string(m.nq) + ",) (it is updated in place)");
        std::vector<double> v(m.nv);
        assign("integrate_pos: qvel", v.data(), {m.nv}, qvel);
        integrate_pos(m, qpos.mutable_data(), v.data(), dt);
      },
      py::arg("m"), py::arg("qpos"), py::arg("qvel"), py::arg("dt"),
      "qpos <- qpos + qvel*dt on the configuration manifold, in place.");
  mod.def(
      "differentiate_pos",
      [](const Model& m, py::handle qpos1, py::handle qpos2, double dt) {
        std::vector<double> a(m.nq), b(m.nq);
        assign("differentiate_pos: qpos1", a.data(), {m.nq}, qpos1);
        assign("differentiate_pos: qpos2", b.data(), {m.nq}, qpos2);
        auto out = zeros({m.nv});
        differentiate_pos(m, out.mutable_data(), dt, a.data(), b.data());
        return out;
      },
      py::arg("m"), py::arg("qpos1"), py::arg("qpos2"), py::arg("dt"),
      "The velocity that integrate_pos takes from qpos1 to qpos2 in time dt.");
  mod.def(
      "normalize_quat",
      [](const Model& m, py::array_t<double> qpos) {
        if (qpos.ndim() != 1 || qpos.shape(0) != m.nq || !(qpos.flags() & py::array::c_style) || !qpos.writeable())
          throw py::value_error("normalize_quat: qpos must be a writable float64 array of shape (" +
                                std::to_string(m.nq) + ",)");
        normalize_quat(m, qpos.mutable_data());
      },
      py::arg("m"), py::arg("qpos"), "Normalize the quaternions in qpos, in place.");
}

}  // namespace moreau::python

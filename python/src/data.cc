// moreau.Data: the state, inputs and every result of the pipeline as zero-copy NumPy views shaped
// from the Model (constraint rows and contacts by the current nefc and ncon), the time and the
// counts as attributes, the active contacts as strided views of the contact array, and the control
// callback.
#include <cstddef>

#include "bind.h"

namespace moreau::python {
namespace {

using DataClass = py::class_<PyData, std::shared_ptr<PyData>>;
using CountFn = int (*)(const Model&, const Data&);

template <class T>
void field(DataClass& c, const char* name, std::vector<T> Data::*mem, CountFn count, CountFn width,
           const char* doc) {
  c.def_property(
      name,
      [mem, count, width](py::object self) {
        PyData& p = self.cast<PyData&>();
        auto& v = p.data.*mem;
        const int n = count(*p.model, p.data), w = width(*p.model, p.data);
        std::vector<py::ssize_t> shape = w == 1 ? std::vector<py::ssize_t>{n} : std::vector<py::ssize_t>{n, w};
        // views never reach beyond the storage (counts are within capacity by construction)
        if (static_cast<size_t>(n) * w > v.size()) shape = {static_cast<py::ssize_t>(v.size())};
        return view(v.data(), shape, self);
      },
      [mem, count, width, name](py::object self, py::handle value) {
        PyData& p = self.cast<PyData&>();
        auto& v = p.data.*mem;
        const int n = count(*p.model, p.data), w = width(*p.model, p.data);
        std::vector<py::ssize_t> shape = w == 1 ? std::vector<py::ssize_t>{n} : std::vector<py::ssize_t>{n, w};
        assign(name, v.data(), shape, value);
      },
      doc);
}

// A strided view of one member of every active contact: shape (ncon,) or (ncon, k).
template <class T>
py::array contact_member(py::object data_obj, size_t offset, int k) {
  PyData& p = data_obj.cast<PyData&>();
  const py::ssize_t n = p.data.ncon;
  std::vector<py::ssize_t> shape = k == 1 ? std::vector<py::ssize_t>{n} : std::vector<py::ssize_t>{n, k};
  if (n == 0) return py::array_t<T>(shape);
  std::vector<py::ssize_t> strides = {static_cast<py::ssize_t>(sizeof(Contact))};
  if (k != 1) strides.push_back(sizeof(T));
  char* base = reinterpret_cast<char*>(p.data.contact.data()) + offset;
  return py::array(py::dtype::of<T>(), shape, strides, reinterpret_cast<T*>(base), data_obj);
}

// d.contact: the active contacts (length ncon), each member a strided view into Data::contact.
struct ContactList {
  py::object data;
};

// Called by the engine where MuJoCo calls its control callback; runs the Python function with the
// GIL (step may have released it). An exception is kept and raised when the step returns.
void python_control(const Model&, Data& d) {
  auto* self = static_cast<PyData*>(d.control_user);
  py::gil_scoped_acquire gil;
  if (self->control_error || self->control.is_none()) return;
  try {
    py::object data_obj = py::cast(self, py::return_value_policy::reference);
    self->control(py::cast(self->model), data_obj);
  } catch (py::error_already_set& e) {
    self->control_error.emplace(std::move(e));
  }
}

void set_control(PyData& p, py::object fn) {
  if (!fn.is_none() && !PyCallable_Check(fn.ptr()))
    throw py::type_error("set_control_callback: expected a callable fn(m, d) or None");
  p.control = fn;
  p.data.control_callback = fn.is_none() ? nullptr : &python_control;
  p.data.control_user = fn.is_none() ? nullptr : &p;
}

// A Data copy: the same state and results, no callback (callbacks are not shared between copies).
std::shared_ptr<PyData> copy_data(const PyData& p) {
  auto c = std::make_shared<PyData>(p.model);
  c->data = p.data;
  c->data.control_callback = nullptr;
  c->data.control_user = nullptr;
  return c;
}

}  // namespace

void bind_data(py::module_& mod) {
  py::class_<ContactList>(mod, "ContactList",
                          "The active contacts of a Data (length ncon): each attribute is a view of "
                          "that member of every contact.")
      .def("__len__", [](const ContactList& c) { return c.data.cast<PyData&>().data.ncon; })
#define C_MEMBER(name, T, k, doc)                                                                  \
  .def_property_readonly(                                                                          \
      #name, [](const ContactList& c) { return contact_member<T>(c.data, offsetof(Contact, name), k); }, doc)
      C_MEMBER(dist, double, 1, "(ncon,) signed distance (negative: penetration)")
      C_MEMBER(pos, double, 3, "(ncon, 3) position, midway between the surfaces")
      C_MEMBER(frame, double, 9, "(ncon, 9) rows: normal (geom1 -> geom2), tangent1, tangent2")
      C_MEMBER(includemargin, double, 1, "(ncon,)")
      C_MEMBER(friction, double, 5, "(ncon, 5) tangent1, tangent2, spin, roll1, roll2")
      C_MEMBER(solref, double, kNREF, "(ncon, 2)")
      C_MEMBER(solimp, double, kNIMP, "(ncon, 5)")
      C_MEMBER(mu, double, 1, "(ncon,) friction of the regularized cone (elliptic)")
      C_MEMBER(H, double, 36, "(ncon, 36) cone Hessian")
      C_MEMBER(dim, int, 1, "(ncon,) condim")
      C_MEMBER(geom1, int, 1, "(ncon,)")
      C_MEMBER(geom2, int, 1, "(ncon,)")
      C_MEMBER(exclude, int, 1, "(ncon,)")
      C_MEMBER(efc_address, int, 1, "(ncon,) first constraint row, -1 if not in the solver")
#undef C_MEMBER
      .def("__repr__", [](const ContactList& c) {
        return "<moreau.ContactList ncon=" + std::to_string(c.data.cast<PyData&>().data.ncon) + ">";
      });

  DataClass c(mod, "Data",
              py::custom_type_setup([](PyHeapTypeObject* heap_type) {
                // The control callback may refer to the Data (a closure): let the cycle collector
                // see and break that reference.
                auto* type = &heap_type->ht_type;
                type->tp_flags |= Py_TPFLAGS_HAVE_GC;
                type->tp_traverse = [](PyObject* self_base, visitproc visit, void* arg) {
                  auto& self = py::cast<PyData&>(py::handle(self_base));
                  Py_VISIT(self.control.ptr());
                  Py_VISIT(Py_TYPE(self_base));
                  return 0;
                };
                type->tp_clear = [](PyObject* self_base) {
                  auto& self = py::cast<PyData&>(py::handle(self_base));
                  self.data.control_callback = nullptr;
                  self.data.control_user = nullptr;
                  self.control = py::none();
                  return 0;
                };
              }),
              "Simulation state, inputs and results for a Model (made once; nothing allocates while "
              "stepping). Arrays are zero-copy views of the engine's storage.");
  c.def(py::init([](std::shared_ptr<Model> m) {
          if (!m) throw py::type_error("Data(model): model is None");
          auto p = std::make_shared<PyData>(std::move(m));
          p->control = py::none();
          return p;
        }),
        py::arg("model"))
      .def_property_readonly("model", [](const PyData& p) { return p.model; }, "the Model this Data was made for")
      .def("__copy__", &copy_data)
      .def("__deepcopy__", [](const PyData& p, py::dict) { return copy_data(p); }, py::arg("memo"))
      .def(
          "set_control_callback", [](PyData& p, py::object fn) { set_control(p, fn); }, py::arg("fn"),
          "Call fn(m, d) where the pipeline takes controls (after the position and velocity stages of "
          "every forward evaluation). Slower than setting d.ctrl in your own loop: each call enters "
          "Python. None removes it. An exception in fn stops the step and is raised.")
      .def_property(
          "control_callback", [](const PyData& p) { return p.control; },
          [](PyData& p, py::object fn) { set_control(p, fn); })
      .def_property(
          "time", [](const PyData& p) { return p.data.time; }, [](PyData& p, double t) { p.data.time = t; },
          "simulation time (s)")
      .def_property_readonly("energy", [](py::object self) { return view(self.cast<PyData&>().data.energy, {2}, self); },
                             "(2,) potential and kinetic energy (needs the energy enable flag)")
      .def_property_readonly("ncon", [](const PyData& p) { return p.data.ncon; })
      .def_property_readonly("ne", [](const PyData& p) { return p.data.ne; })
      .def_property_readonly("nf", [](const PyData& p) { return p.data.nf; })
      .def_property_readonly("nefc", [](const PyData& p) { return p.data.nefc; })
      .def_property_readonly("contact", [](py::object self) { return ContactList{self}; },
                             "the active contacts (ContactList, length ncon)")
      .def_property_readonly("solver_iter", [](const PyData& p) { return p.data.solver_iter; })
      .def_property_readonly("solver_fwdinv", [](py::object self) {
        return view(self.cast<PyData&>().data.solver_fwdinv, {2}, self);
      })
      .def_property_readonly("maxuse_con", [](const PyData& p) { return p.data.maxuse_con; })
      .def_property_readonly("maxuse_efc", [](const PyData& p) { return p.data.maxuse_efc; })
      .def_property_readonly(
          "warning",
          [](const PyData& p) {
            py::dict out;
            for (int i = 0; i < kNWarning; ++i)
              out[py::cast(static_cast<Warning>(i))] =
                  py::make_tuple(p.data.warning[i].number, p.data.warning[i].lastinfo);
            return out;
          },
          "{moreau.Warning: (number, lastinfo)}: how often each warning happened since the last reset")
      .def_property(
          "timing", [](const PyData& p) { return p.data.timing; }, [](PyData& p, bool on) { p.data.timing = on; },
          "fill the stage timers (Data.timer)")
      .def_property_readonly(
          "timer",
          [](const PyData& p) {
            static const char* names[kNTimer] = {"step", "forward", "inverse", "position", "velocity",
                                                 "actuation", "acceleration", "constraint", "pos_kinematics",
                                                 "pos_inertia", "pos_collision", "pos_make", "pos_project"};
            py::dict out;
            for (int i = 0; i < kNTimer; ++i)
              out[names[i]] = py::make_tuple(p.data.timer[i].duration, p.data.timer[i].number);
            return out;
          },
          "{stage: (seconds accumulated, calls)}")
      .def_property_readonly(
          "ncp",
          [](const PyData& p) { return ncp_stats(p.data.ncp); },
          "statistics of the last hard-contact solve (the RaiSim paper's errors)")
      .def("__repr__", [](const PyData& p) {
        return "<moreau.Data time=" + std::to_string(p.data.time) + " ncon=" + std::to_string(p.data.ncon) +
               " nefc=" + std::to_string(p.data.nefc) + ">";
      });

#define D(name, count, width, doc)                                                                 \
  field(c, #name, &Data::name, [](const Model& m, const Data& d) { return static_cast<int>(count); }, \
        [](const Model& m, const Data& d) { return static_cast<int>(width); }, doc);
  D(qpos, m.nq, 1, "(nq,) joint positions") D(qvel, m.nv, 1, "(nv,) joint velocities")
  D(act, m.na, 1, "(na,) actuator activations") D(qacc_warmstart, m.nv, 1, "(nv,) warm start of the solver")
  D(ctrl, m.nu, 1, "(nu,) controls") D(qfrc_applied, m.nv, 1, "(nv,) applied generalized forces")
  D(xfrc_applied, m.nbody, 6, "(nbody, 6) applied Cartesian force and torque at each body's com")
  D(mocap_pos, m.nmocap, 3, "(nmocap, 3)") D(mocap_quat, m.nmocap, 4, "(nmocap, 4)")
  D(eq_active, m.neq, 1, "(neq,) equality constraints enabled (uint8)")
  D(qacc, m.nv, 1, "(nv,) acceleration") D(act_dot, m.na, 1, "(na,) activation derivative")
  D(sensordata, m.nsensordata, 1, "(nsensordata,)") D(userdata, m.nuserdata, 1, "(nuserdata,)")
  D(xpos, m.nbody, 3, "(nbody, 3) body frame positions") D(xquat, m.nbody, 4, "(nbody, 4) body orientations")
  D(xmat, m.nbody, 9, "(nbody, 9) body orientations, row-major") D(xipos, m.nbody, 3, "(nbody, 3) centres of mass")
  D(ximat, m.nbody, 9, "(nbody, 9) principal inertia frames") D(xanchor, m.njnt, 3, "(njnt, 3) joint anchors")
  D(xaxis, m.njnt, 3, "(njnt, 3) joint axes") D(geom_xpos, m.ngeom, 3, "(ngeom, 3)")
  D(geom_xmat, m.ngeom, 9, "(ngeom, 9)") D(site_xpos, m.nsite, 3, "(nsite, 3)") D(site_xmat, m.nsite, 9, "(nsite, 9)")
  D(cam_xpos, m.ncam, 3, "(ncam, 3)") D(cam_xmat, m.ncam, 9, "(ncam, 9)")
  D(light_xpos, m.nlight, 3, "(nlight, 3)") D(light_xdir, m.nlight, 3, "(nlight, 3)")
  D(subtree_com, m.nbody, 3, "(nbody, 3)") D(cdof, m.nv, 6, "(nv, 6)") D(cinert, m.nbody, 10, "(nbody, 10)")
  D(crb, m.nbody, 10, "(nbody, 10)") D(qM, m.nM, 1, "(nM,) inertia matrix, tree-sparse (use full_m)")
  D(qLD, m.nM, 1, "(nM,) L'DL factor of qM") D(qLDiagInv, m.nv, 1, "(nv,)") D(qLDiagSqrtInv, m.nv, 1, "(nv,)")
  D(ten_length, m.ntendon, 1, "(ntendon,)") D(ten_J, m.ntendon, m.nv, "(ntendon, nv)")
  D(ten_wrapadr, m.ntendon, 1, "(ntendon,)") D(ten_wrapnum, m.ntendon, 1, "(ntendon,)")
  D(wrap_obj, m.nwrap, 2, "(nwrap, 2)") D(wrap_xpos, m.nwrap, 6, "(nwrap, 6)")
  D(actuator_length, m.nu, 1, "(nu,)") D(actuator_moment, m.nu, m.nv, "(nu, nv)")
  D(ten_velocity, m.ntendon, 1, "(ntendon,)") D(actuator_velocity, m.nu, 1, "(nu,)")
  D(cvel, m.nbody, 6, "(nbody, 6) com-based velocity [rot; lin]") D(cdof_dot, m.nv, 6, "(nv, 6)")
  D(qfrc_bias, m.nv, 1, "(nv,) C(q, v): Coriolis, centrifugal, gravity")
  D(qfrc_passive, m.nv, 1, "(nv,) passive forces") D(subtree_linvel, m.nbody, 3, "(nbody, 3)")
  D(subtree_angmom, m.nbody, 3, "(nbody, 3)") D(actuator_force, m.nu, 1, "(nu,)")
  D(qfrc_actuator, m.nv, 1, "(nv,)") D(qfrc_smooth, m.nv, 1, "(nv,)") D(qacc_smooth, m.nv, 1, "(nv,)")
  D(qfrc_constraint, m.nv, 1, "(nv,)") D(qfrc_inverse, m.nv, 1, "(nv,) result of inverse dynamics")
  D(cacc, m.nbody, 6, "(nbody, 6)") D(cfrc_int, m.nbody, 6, "(nbody, 6)") D(cfrc_ext, m.nbody, 6, "(nbody, 6)")
  D(qDeriv, m.nD, 1, "(nD,) d(smooth force)/d qvel, dof-dof sparse") D(qLU, m.nD, 1, "(nD,)")
  D(efc_type, d.nefc, 1, "(nefc,)") D(efc_id, d.nefc, 1, "(nefc,)") D(efc_pos, d.nefc, 1, "(nefc,)")
  D(efc_margin, d.nefc, 1, "(nefc,)") D(efc_frictionloss, d.nefc, 1, "(nefc,)")
  D(efc_diagApprox, d.nefc, 1, "(nefc,)") D(efc_KBIP, d.nefc, 4, "(nefc, 4)") D(efc_D, d.nefc, 1, "(nefc,)")
  D(efc_R, d.nefc, 1, "(nefc,)") D(efc_vel, d.nefc, 1, "(nefc,)") D(efc_aref, d.nefc, 1, "(nefc,)")
  D(efc_b, d.nefc, 1, "(nefc,)") D(efc_force, d.nefc, 1, "(nefc,) constraint forces")
  D(efc_state, d.nefc, 1, "(nefc,)")
#undef D
}

}  // namespace moreau::python

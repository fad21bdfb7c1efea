// Exceptions and enumerations of the Python module, and the shape-checked copy used by setters.
#include <cstring>

#include "bind.h"

namespace moreau::python {

std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

template <class T>
void assign(const char* field, T* dst, const std::vector<py::ssize_t>& shape, py::handle value) {
  py::array a = py::array::ensure(value);
  if (!a) throw py::value_error(std::string(field) + ": expected an array of shape " + shape_text(shape));
  std::vector<py::ssize_t> got(a.shape(), a.shape() + a.ndim());
  py::ssize_t n = 1;
  for (auto s : shape) n *= s;
  // The exact shape, or a flat array of the same number of elements (as MuJoCo's bindings accept).
  const bool flat_ok = a.ndim() == 1 && a.shape(0) == n;
  if (got != shape && !flat_ok)
    throw py::value_error(std::string(field) + ": expected shape " + shape_text(shape) + ", got " +
                          shape_text(got));
  const char kind = a.dtype().kind();
  const bool numeric = kind == 'f' || kind == 'i' || kind == 'u' || kind == 'b';
  if (!numeric || (std::is_integral_v<T> && kind == 'f'))
    throw py::value_error(std::string(field) + ": expected " +
                          (std::is_integral_v<T> ? "an integer" : "a real") + " array, got dtype " +
                          std::string(py::str(a.dtype())));
  auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (n > 0) std::memcpy(dst, c.data(), sizeof(T) * static_cast<size_t>(n));
}
template void assign<double>(const char*, double*, const std::vector<py::ssize_t>&, py::handle);
template void assign<float>(const char*, float*, const std::vector<py::ssize_t>&, py::handle);
template void assign<int>(const char*, int*, const std::vector<py::ssize_t>&, py::handle);
template void assign<uint8_t>(const char*, uint8_t*, const std::vector<py::ssize_t>&, py::handle);

py::dict ncp_stats(const NcpStat& s) {
  py::dict out;
  out["iterations"] = s.iterations;
  out["nblock"] = s.nblock;
  out["primal"] = s.primal;
  out["dual"] = s.dual;
  out["complementarity"] = s.complementarity;
  out["eps_abs"] = s.eps_abs;
  out["change"] = s.change;
  return out;
}

void bind_errors(py::module_& m) {
  // moreau.LoadError(Exception): message "FILE:LINE: <element>: what", with attributes file, line,
  // element and message.
  static py::object load_error =
      py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
          "moreau.LoadError",
          "A model that could not be loaded. str(e) is 'FILE:LINE: <element>: message'; the parts are "
          "e.file, e.line (0 if unknown), e.element and e.message.",
          PyExc_Exception, nullptr));
  m.attr("LoadError") = load_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const LoadError& e) {
      py::object exc = load_error(e.what());
      exc.attr("file") = e.file();
      exc.attr("line") = e.line();
      exc.attr("element") = e.element();
      exc.attr("message") = e.message();
      PyErr_SetObject(load_error.ptr(), exc.ptr());
    }
  });
}

void bind_enums(py::module_& m) {
  py::enum_<Solver>(m, "Solver", py::arithmetic(), "Constraint solvers (Option.solver).")
      .value("PGS", kSolverPGS)
      .value("CG", kSolverCG)
      .value("NEWTON", kSolverNewton)
      .value("RAISIM", kSolverRaisim)
      .value("RAISIM_DS", kSolverRaisimDS)
      .value("NCP_PGS", kSolverNcpPGS)
      .value("CCP", kSolverCCP)
      .value("LCP", kSolverLCP);
  py::enum_<Integrator>(m, "Integrator", py::arithmetic(), "Integrators (Option.integrator).")
      .value("EULER", kIntEuler)
      .value("RK4", kIntRK4)
      .value("IMPLICIT", kIntImplicit)
      .value("IMPLICITFAST", kIntImplicitFast)
      .value("IMPLICITCON", kIntImplicitCon);
  py::enum_<Cone>(m, "Cone", py::arithmetic(), "Friction cones (Option.cone).")
      .value("PYRAMIDAL", kConePyramidal)
      .value("ELLIPTIC", kConeElliptic);
  py::enum_<JacobianType>(m, "Jacobian", py::arithmetic(), "Constraint Jacobian storage (Option.jacobian).")
      .value("DENSE", kJacDense)
      .value("SPARSE", kJacSparse)
      .value("AUTO", kJacAuto);
  py::enum_<GeomType>(m, "GeomType", py::arithmetic(), "Geom types (Model.geom_type).")
      .value("PLANE", kGeomPlane)
      .value("HFIELD", kGeomHField)
      .value("SPHERE", kGeomSphere)
      .value("CAPSULE", kGeomCapsule)
      .value("ELLIPSOID", kGeomEllipsoid)
      .value("CYLINDER", kGeomCylinder)
      .value("BOX", kGeomBox)
      .value("MESH", kGeomMesh);
  py::enum_<JointType>(m, "JointType", py::arithmetic(), "Joint types (Model.jnt_type).")
      .value("FREE", kJointFree)
      .value("BALL", kJointBall)
      .value("SLIDE", kJointSlide)
      .value("HINGE", kJointHinge);
  py::enum_<ObjType>(m, "ObjType", py::arithmetic(), "Object types (name lookup, sensor objtype).")
      .value("UNKNOWN", kObjUnknown)
      .value("BODY", kObjBody)
      .value("XBODY", kObjXBody)
      .value("JOINT", kObjJoint)
      .value("DOF", kObjDof)
      .value("GEOM", kObjGeom)
      .value("SITE", kObjSite)
      .value("CAMERA", kObjCamera)
      .value("LIGHT", kObjLight)
      .value("MESH", kObjMesh)
      .value("SKIN", kObjSkin)
      .value("HFIELD", kObjHField)
      .value("TEXTURE", kObjTexture)
      .value("MATERIAL", kObjMaterial)
      .value("PAIR", kObjPair)
      .value("EXCLUDE", kObjExclude)
      .value("EQUALITY", kObjEquality)
      .value("TENDON", kObjTendon)
      .value("ACTUATOR", kObjActuator)
      .value("SENSOR", kObjSensor)
      .value("NUMERIC", kObjNumeric)
      .value("TEXT", kObjText)
      .value("TUPLE", kObjTuple)
      .value("KEY", kObjKey);
  py::enum_<Warning>(m, "Warning", py::arithmetic(), "Warning kinds (Data.warning).")
      .value("INERTIA", kWarnInertia)
      .value("CONTACTFULL", kWarnContactFull)
      .value("CNSTRFULL", kWarnCnstrFull)
      .value("VGEOMFULL", kWarnVGeomFull)
      .value("BADQPOS", kWarnBadQpos)
      .value("BADQVEL", kWarnBadQvel)
      .value("BADQACC", kWarnBadQacc)
      .value("BADCTRL", kWarnBadCtrl);
  py::enum_<DisableBit>(m, "DisableBit", py::arithmetic(), "Option.disableflags bits.")
      .value("CONSTRAINT", kDsblConstraint)
      .value("EQUALITY", kDsblEquality)
      .value("FRICTIONLOSS", kDsblFrictionloss)
      .value("LIMIT", kDsblLimit)
      .value("CONTACT", kDsblContact)
      .value("PASSIVE", kDsblPassive)
      .value("GRAVITY", kDsblGravity)
      .value("CLAMPCTRL", kDsblClampctrl)
      .value("WARMSTART", kDsblWarmstart)
      .value("FILTERPARENT", kDsblFilterparent)
      .value("ACTUATION", kDsblActuation)
      .value("REFSAFE", kDsblRefsafe)
      .value("SENSOR", kDsblSensor);
  py::enum_<EnableBit>(m, "EnableBit", py::arithmetic(), "Option.enableflags bits.")
      .value("OVERRIDE", kEnblOverride)
      .value("ENERGY", kEnblEnergy)
      .value("FWDINV", kEnblFwdinv)
      .value("SENSORNOISE", kEnblSensornoise)
      .value("MULTICCD", kEnblMulticcd)
      .value("INVDISCRETE", kEnblInvdiscrete)
      .value("JDOTV", kEnblJdotv);
  // State components (moreau/state.h; MuJoCo's mjtState bits). Combine with |: the result is an int.
  py::enum_<StateBit>(m, "State", py::arithmetic(), "State components for get_state/set_state (bit mask).")
      .value("TIME", kStateTime)
      .value("QPOS", kStateQpos)
      .value("QVEL", kStateQvel)
      .value("ACT", kStateAct)
      .value("WARMSTART", kStateWarmstart)
      .value("CTRL", kStateCtrl)
      .value("QFRC_APPLIED", kStateQfrcApplied)
      .value("XFRC_APPLIED", kStateXfrcApplied)
      .value("EQ_ACTIVE", kStateEqActive)
      .value("MOCAP_POS", kStateMocapPos)
      .value("MOCAP_QUAT", kStateMocapQuat)
      .value("USERDATA", kStateUserdata)
      .value("PHYSICS", kStatePhysics)
      .value("FULL_PHYSICS", kStateFullPhysics)
      .value("USER", kStateUser)
      .value("INTEGRATION", kStateIntegration);
}

}  // namespace moreau::python

// moreau.Model and moreau.Option: every std::vector field of the C++ Model as a zero-copy NumPy view
// shaped (count, width), sizes as read-only ints, options read-write (solver, integrator, cone and
// jacobian also by name).
#include <algorithm>
#include <cctype>
#include <functional>

#include "bind.h"

namespace moreau::python {
namespace {

using ModelClass = py::class_<Model, std::shared_ptr<Model>>;
using SizeFn = int (*)(const Model&);

// The view's shape: (count, width), or (count,) for width 1; a vector whose size does not match
// (optional arrays left empty by the compiler) is shown flat.
std::vector<py::ssize_t> field_shape(size_t size, int count, int width) {
  if (static_cast<size_t>(count) * static_cast<size_t>(width) == size) {
    if (width == 1) return {count};
    return {count, width};
  }
  return {static_cast<py::ssize_t>(size)};
}

template <class T>
void field(ModelClass& c, const char* name, std::vector<T> Model::*mem, SizeFn count, SizeFn width,
           const char* doc) {
  c.def_property(
      name,
      [mem, count, width](py::object self) {
        Model& m = self.cast<Model&>();
        auto& v = m.*mem;
        return view(v.data(), field_shape(v.size(), count(m), width(m)), self);
      },
      [mem, count, width, name](py::object self, py::handle value) {
        Model& m = self.cast<Model&>();
        auto& v = m.*mem;
        assign(name, v.data(), field_shape(v.size(), count(m), width(m)), value);
      },
      doc);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// An option given as a name (case-insensitive), an int or an enum value.
int option_value(const char* what, py::handle value, const std::vector<std::string>& names) {
  if (py::isinstance<py::str>(value)) {
    const std::string s = lower(value.cast<std::string>());
    for (size_t i = 0; i < names.size(); ++i)
      if (lower(names[i]) == s) return static_cast<int>(i);
    std::string msg = std::string(what) + ": '" + value.cast<std::string>() + "' is not one of:";
    for (const auto& n : names) msg += " " + n;
    throw py::value_error(msg);
  }
  const int i = py::int_(py::reinterpret_borrow<py::object>(value)).cast<int>();
  if (i < 0 || i >= static_cast<int>(names.size()))
    throw py::value_error(std::string(what) + ": " + std::to_string(i) + " is not in [0, " +
                          std::to_string(names.size()) + ")");
  return i;
}

const std::vector<std::string> kSolverNames = {"PGS", "CG", "Newton", "raisim", "raisim-ds",
                                               "ncp-pgs", "ccp", "lcp"};
const std::vector<std::string> kIntegratorNames = {"Euler", "RK4", "implicit", "implicitfast", "implicitcon"};
const std::vector<std::string> kConeNames = {"pyramidal", "elliptic"};
const std::vector<std::string> kJacobianNames = {"dense", "sparse", "auto"};

template <size_t N>
void option_array(py::class_<Option>& c, const char* name, double (Option::*mem)[N], const char* doc) {
  c.def_property(
      name, [mem](py::object self) { return view((self.cast<Option&>().*mem), {N}, self); },
      [mem, name](py::object self, py::handle value) {
        assign(name, self.cast<Option&>().*mem, {N}, value);
      },
      doc);
}

void bind_option(py::module_& mod) {
  py::class_<Option> c(mod, "Option", "Physics options (MJCF <option>); a view into its Model.");
  c.def_readwrite("timestep", &Option::timestep)
      .def_readwrite("apirate", &Option::apirate)
      .def_readwrite("impratio", &Option::impratio)
      .def_readwrite("tolerance", &Option::tolerance)
      .def_readwrite("noslip_tolerance", &Option::noslip_tolerance)
      .def_readwrite("mpr_tolerance", &Option::mpr_tolerance)
      .def_readwrite("density", &Option::density)
      .def_readwrite("viscosity", &Option::viscosity)
      .def_readwrite("o_margin", &Option::o_margin)
      .def_readwrite("collision", &Option::collision)
      .def_readwrite("iterations", &Option::iterations)
      .def_readwrite("noslip_iterations", &Option::noslip_iterations)
      .def_readwrite("mpr_iterations", &Option::mpr_iterations)
      .def_readwrite("disableflags", &Option::disableflags)
      .def_readwrite("enableflags", &Option::enableflags);
  option_array(c, "gravity", &Option::gravity, "(3,) gravitational acceleration");
  option_array(c, "wind", &Option::wind, "(3,) wind velocity");
  option_array(c, "magnetic", &Option::magnetic, "(3,) global magnetic flux");
  option_array(c, "o_solref", &Option::o_solref, "(2,) solref override");
  option_array(c, "o_solimp", &Option::o_solimp, "(5,) solimp override");
  c.def_property(
      "solver", [](const Option& o) { return static_cast<Solver>(o.solver); },
      [](Option& o, py::handle v) {
        const int s = option_value("solver", v, kSolverNames);
        if (is_hard_contact_solver(s) && o.integrator != kIntEuler)
          throw py::value_error(std::string("solver '") + solver_name(s) +
                                "' is a velocity-stepping (hard-contact) solver: it needs the Euler integrator");
        o.solver = s;
      },
      "moreau.Solver; set by enum, int or name: PGS, CG, Newton, raisim, raisim-ds, ncp-pgs, ccp, lcp");
  c.def_property(
      "integrator", [](const Option& o) { return static_cast<Integrator>(o.integrator); },
      [](Option& o, py::handle v) {
        const int i = option_value("integrator", v, kIntegratorNames);
        if (i != kIntEuler && is_hard_contact_solver(o.solver))
          throw py::value_error(std::string("integrator '") + kIntegratorNames[i] + "': the solver '" +
                                solver_name(o.solver) + "' needs the Euler integrator");
        o.integrator = i;
      },
      "moreau.Integrator; set by enum, int or name: Euler, RK4, implicit, implicitfast, implicitcon");
  c.def_property(
      "cone", [](const Option& o) { return static_cast<Cone>(o.cone); },
      [](Option& o, py::handle v) { o.cone = option_value("cone", v, kConeNames); },
      "moreau.Cone; set by enum, int or name: pyramidal, elliptic");
  c.def_property(
      "jacobian", [](const Option& o) { return static_cast<JacobianType>(o.jacobian); },
      [](Option& o, py::handle v) { o.jacobian = option_value("jacobian", v, kJacobianNames); },
      "moreau.Jacobian; set by enum, int or name: dense, sparse, auto");
  c.def("__repr__", [](const Option& o) {
    return "<moreau.Option timestep=" + std::to_string(o.timestep) + " solver=" + solver_name(o.solver) +
           " integrator=" + kIntegratorNames[o.integrator] + " cone=" + kConeNames[o.cone] + ">";
  });

  py::class_<Statistic>(mod, "Statistic", "Model statistics at qpos0 (MJCF <statistic>).")
      .def_readwrite("meaninertia", &Statistic::meaninertia)
      .def_readwrite("meanmass", &Statistic::meanmass)
      .def_readwrite("meansize", &Statistic::meansize)
      .def_readwrite("extent", &Statistic::extent)
      .def_property_readonly("center", [](py::object self) {
        return view(self.cast<Statistic&>().center, {3}, self);
      });
}

// Names of every kind, by the prefix the Python layer uses (m.names("body")).
const std::vector<std::string>* names_of(const Model& m, const std::string& kind) {
  static const std::vector<std::pair<const char*, std::vector<std::string> Model::*>> table = {
      {"body", &Model::body_names},       {"joint", &Model::jnt_names},
      {"geom", &Model::geom_names},       {"site", &Model::site_names},
      {"camera", &Model::cam_names},      {"light", &Model::light_names},
      {"mesh", &Model::mesh_names},       {"hfield", &Model::hfield_names},
      {"texture", &Model::tex_names},     {"material", &Model::mat_names},
      {"pair", &Model::pair_names},       {"exclude", &Model::exclude_names},
      {"equality", &Model::eq_names},     {"tendon", &Model::tendon_names},
      {"actuator", &Model::actuator_names}, {"sensor", &Model::sensor_names},
      {"numeric", &Model::numeric_names}, {"text", &Model::text_names},
      {"tuple", &Model::tuple_names},     {"key", &Model::key_names}};
  for (const auto& [k, mem] : table)
    if (kind == k) return &(m.*mem);
  return nullptr;
}

// Model::vis as nested dicts, field names as MJCF's <visual> attributes.
py::dict visual_dict(const Visual& v) {
  auto vec = [](const float* x, int n) {
    py::list l;
    for (int i = 0; i < n; ++i) l.append(x[i]);
    return l;
  };
  py::dict g, q, h, mp, sc, rg, out;
  g["fovy"] = v.global.fovy; g["ipd"] = v.global.ipd; g["azimuth"] = v.global.azimuth;
  g["elevation"] = v.global.elevation; g["linewidth"] = v.global.linewidth; g["glow"] = v.global.glow;
  g["offwidth"] = v.global.offwidth; g["offheight"] = v.global.offheight;
  q["shadowsize"] = v.quality.shadowsize; q["offsamples"] = v.quality.offsamples;
  q["numslices"] = v.quality.numslices; q["numstacks"] = v.quality.numstacks; q["numquads"] = v.quality.numquads;
  h["ambient"] = vec(v.headlight.ambient, 3); h["diffuse"] = vec(v.headlight.diffuse, 3);
  h["specular"] = vec(v.headlight.specular, 3); h["active"] = v.headlight.active;
  const auto& M = v.map;
  mp["stiffness"] = M.stiffness; mp["stiffnessrot"] = M.stiffnessrot; mp["force"] = M.force; mp["torque"] = M.torque;
  mp["alpha"] = M.alpha; mp["fogstart"] = M.fogstart; mp["fogend"] = M.fogend; mp["znear"] = M.znear;
  mp["zfar"] = M.zfar; mp["haze"] = M.haze; mp["shadowclip"] = M.shadowclip; mp["shadowscale"] = M.shadowscale;
  mp["actuatortendon"] = M.actuatortendon;
  const auto& S = v.scale;
  sc["forcewidth"] = S.forcewidth; sc["contactwidth"] = S.contactwidth; sc["contactheight"] = S.contactheight;
  sc["connect"] = S.connect; sc["com"] = S.com; sc["camera"] = S.camera; sc["light"] = S.light;
  sc["selectpoint"] = S.selectpoint; sc["jointlength"] = S.jointlength; sc["jointwidth"] = S.jointwidth;
  sc["actuatorlength"] = S.actuatorlength; sc["actuatorwidth"] = S.actuatorwidth; sc["framelength"] = S.framelength;
  sc["framewidth"] = S.framewidth; sc["constraint"] = S.constraint; sc["slidercrank"] = S.slidercrank;
  const auto& R = v.rgba;
  const std::pair<const char*, const float*> colours[] = {
      {"fog", R.fog}, {"haze", R.haze}, {"force", R.force}, {"inertia", R.inertia}, {"joint", R.joint},
      {"actuator", R.actuator}, {"actuatornegative", R.actuatornegative}, {"actuatorpositive", R.actuatorpositive},
      {"com", R.com}, {"camera", R.camera}, {"light", R.light}, {"selectpoint", R.selectpoint},
      {"connect", R.connect}, {"contactpoint", R.contactpoint}, {"contactforce", R.contactforce},
      {"contactfriction", R.contactfriction}, {"contacttorque", R.contacttorque}, {"contactgap", R.contactgap},
      {"rangefinder", R.rangefinder}, {"constraint", R.constraint}, {"slidercrank", R.slidercrank},
      {"crankbroken", R.crankbroken}};
  for (const auto& [k, x] : colours) rg[k] = vec(x, 4);
  out["global"] = g; out["quality"] = q; out["headlight"] = h; out["map"] = mp; out["scale"] = sc; out["rgba"] = rg;
  return out;
}

}  // namespace

void bind_model(py::module_& mod) {
  bind_option(mod);
  ModelClass c(mod, "Model", py::dynamic_attr(),
               "A compiled model (MJCF). Arrays are zero-copy views of the engine's own storage; after "
               "changing masses, inertias or geometry call moreau.set_const(m).");
  c.def_static(
       "from_xml_path",
       [](const std::string& path) {
         auto m = std::make_shared<Model>();
         {
           py::gil_scoped_release nogil;
           *m = load_model(path);
         }
         return m;
       },
       py::arg("path"), "Load and compile an MJCF file. Raises moreau.LoadError (file:line: element: what).")
      .def_static(
          "from_xml_string",
          [](const std::string& xml, std::optional<std::string> assets_dir) {
            auto m = std::make_shared<Model>();
            // The name anchors relative file names (meshes, height fields, includes) in assets_dir.
            const std::string name = assets_dir ? *assets_dir + "/<string>" : std::string("<string>");
            py::gil_scoped_release nogil;
            *m = load_model_from_string(xml, name);
            return m;
          },
          py::arg("xml"), py::arg("assets_dir") = py::none(),
          "Compile MJCF text; relative file names resolve against assets_dir (default: the working "
          "directory). Raises moreau.LoadError.")
      .def("__copy__", [](const Model& m) { return std::make_shared<Model>(m); })
      .def("__deepcopy__", [](const Model& m, py::dict) { return std::make_shared<Model>(m); }, py::arg("memo"))
      .def_property_readonly("opt", [](py::object self) -> Option& { return self.cast<Model&>().opt; },
                             py::return_value_policy::reference_internal, "physics options (writable)")
      .def_property_readonly("stat", [](py::object self) -> Statistic& { return self.cast<Model&>().stat; },
                             py::return_value_policy::reference_internal, "model statistics")
      .def_readwrite("modelname", &Model::modelname)
      .def_readonly("model_file", &Model::model_file)
      .def(
          "names",
          [](const Model& m, const std::string& kind) {
            const auto* v = names_of(m, kind);
            if (!v) throw py::key_error("unknown object kind '" + kind + "'");
            return *v;
          },
          py::arg("kind"), "names of the objects of a kind ('body', 'joint', 'geom', ...), index = id; '' if unnamed")
      .def(
          "name2id", [](const Model& m, ObjType type, const std::string& name) { return name2id(m, type, name); },
          py::arg("type"), py::arg("name"), "id of the named object, or -1")
      .def_property_readonly("text_data", [](const Model& m) { return m.text_data; })
      .def_property_readonly("tex_file", [](const Model& m) { return m.tex_file; },
                             "(ntex,) image file of each texture, relative to the model's folder ('' if none)")
      .def_property_readonly("vis", [](const Model& m) { return visual_dict(m.vis); },
                             "<visual> settings (a copy, as nested dicts: global, quality, headlight, map, scale, rgba)")
      .def("__repr__", [](const Model& m) {
        return "<moreau.Model '" + m.modelname + "' nq=" + std::to_string(m.nq) + " nv=" + std::to_string(m.nv) +
               " nu=" + std::to_string(m.nu) + " nbody=" + std::to_string(m.nbody) + ">";
      });

#define MOREAU_SIZE(n) c.def_readonly(#n, &Model::n);
  MOREAU_SIZE(nq) MOREAU_SIZE(nv) MOREAU_SIZE(nu) MOREAU_SIZE(na) MOREAU_SIZE(nbody) MOREAU_SIZE(njnt)
  MOREAU_SIZE(ngeom) MOREAU_SIZE(nsite) MOREAU_SIZE(ncam) MOREAU_SIZE(nlight) MOREAU_SIZE(nmesh)
  MOREAU_SIZE(nmeshvert) MOREAU_SIZE(nmeshface) MOREAU_SIZE(nhfield) MOREAU_SIZE(nhfielddata)
  MOREAU_SIZE(ntex) MOREAU_SIZE(ntexdata) MOREAU_SIZE(nmat) MOREAU_SIZE(nskin) MOREAU_SIZE(npair) MOREAU_SIZE(nexclude)
  MOREAU_SIZE(neq) MOREAU_SIZE(ntendon) MOREAU_SIZE(nwrap) MOREAU_SIZE(nsensor) MOREAU_SIZE(nnumeric)
  MOREAU_SIZE(nnumericdata) MOREAU_SIZE(ntext) MOREAU_SIZE(ntuple) MOREAU_SIZE(nkey) MOREAU_SIZE(nmocap)
  MOREAU_SIZE(nuser_body) MOREAU_SIZE(nuser_jnt) MOREAU_SIZE(nuser_geom) MOREAU_SIZE(nuser_site)
  MOREAU_SIZE(nuser_cam) MOREAU_SIZE(nuser_tendon) MOREAU_SIZE(nuser_actuator) MOREAU_SIZE(nuser_sensor)
  MOREAU_SIZE(nM) MOREAU_SIZE(nD) MOREAU_SIZE(nsensordata) MOREAU_SIZE(nconmax) MOREAU_SIZE(njmax)
  MOREAU_SIZE(nuserdata)
#undef MOREAU_SIZE

  // Every array: F(field, count, width, doc). count and width are expressions of the Model m.
#define F(name, count, width, doc)                                                               \
  field(c, #name, &Model::name, [](const Model& m) { return static_cast<int>(m.count); },        \
        [](const Model& m) { return static_cast<int>(width); }, doc);
  F(qpos0, nq, 1, "(nq,) default configuration")
  F(qpos_spring, nq, 1, "(nq,) reference configuration of joint springs")
  F(body_parentid, nbody, 1, "(nbody,) parent body id") F(body_rootid, nbody, 1, "(nbody,)")
  F(body_weldid, nbody, 1, "(nbody,)") F(body_mocapid, nbody, 1, "(nbody,) mocap id or -1")
  F(body_jntnum, nbody, 1, "(nbody,)") F(body_jntadr, nbody, 1, "(nbody,)")
  F(body_dofnum, nbody, 1, "(nbody,)") F(body_dofadr, nbody, 1, "(nbody,)")
  F(body_geomnum, nbody, 1, "(nbody,)") F(body_geomadr, nbody, 1, "(nbody,)")
  F(body_simple, nbody, 1, "(nbody,)") F(body_sameframe, nbody, 1, "(nbody,)")
  F(body_pos, nbody, 3, "(nbody, 3) position relative to the parent frame")
  F(body_quat, nbody, 4, "(nbody, 4) orientation relative to the parent (w, x, y, z)")
  F(body_ipos, nbody, 3, "(nbody, 3) centre of mass in the body frame")
  F(body_iquat, nbody, 4, "(nbody, 4) principal inertia frame in the body frame")
  F(body_mass, nbody, 1, "(nbody,) mass") F(body_subtreemass, nbody, 1, "(nbody,)")
  F(body_inertia, nbody, 3, "(nbody, 3) principal moments of inertia")
  F(body_invweight0, nbody, 2, "(nbody, 2)") F(body_gravcomp, nbody, 1, "(nbody,)")
  F(body_user, nbody, m.nuser_body, "(nbody, nuser_body)")
  F(jnt_type, njnt, 1, "(njnt,) moreau.JointType") F(jnt_qposadr, njnt, 1, "(njnt,)")
  F(jnt_dofadr, njnt, 1, "(njnt,)") F(jnt_bodyid, njnt, 1, "(njnt,)") F(jnt_group, njnt, 1, "(njnt,)")
  F(jnt_limited, njnt, 1, "(njnt,)") F(jnt_solref, njnt, kNREF, "(njnt, 2)")
  F(jnt_solimp, njnt, kNIMP, "(njnt, 5)") F(jnt_pos, njnt, 3, "(njnt, 3) anchor in the body frame")
  F(jnt_axis, njnt, 3, "(njnt, 3) axis in the body frame") F(jnt_stiffness, njnt, 1, "(njnt,)")
  F(jnt_range, njnt, 2, "(njnt, 2)") F(jnt_margin, njnt, 1, "(njnt,)")
  F(jnt_user, njnt, m.nuser_jnt, "(njnt, nuser_jnt)")
  F(dof_bodyid, nv, 1, "(nv,)") F(dof_jntid, nv, 1, "(nv,)") F(dof_parentid, nv, 1, "(nv,)")
  F(dof_Madr, nv, 1, "(nv,)") F(dof_simplenum, nv, 1, "(nv,)") F(dof_solref, nv, kNREF, "(nv, 2)")
  F(dof_solimp, nv, kNIMP, "(nv, 5)") F(dof_frictionloss, nv, 1, "(nv,)")
  F(dof_armature, nv, 1, "(nv,)") F(dof_damping, nv, 1, "(nv,)")
  F(dof_invweight0, nv, 1, "(nv,)") F(dof_M0, nv, 1, "(nv,)")
  F(geom_type, ngeom, 1, "(ngeom,) moreau.GeomType") F(geom_contype, ngeom, 1, "(ngeom,)")
  F(geom_conaffinity, ngeom, 1, "(ngeom,)") F(geom_condim, ngeom, 1, "(ngeom,)")
  F(geom_bodyid, ngeom, 1, "(ngeom,)") F(geom_dataid, ngeom, 1, "(ngeom,) mesh/hfield id or -1")
  F(geom_matid, ngeom, 1, "(ngeom,)") F(geom_group, ngeom, 1, "(ngeom,)")
  F(geom_priority, ngeom, 1, "(ngeom,)") F(geom_sameframe, ngeom, 1, "(ngeom,)")
  F(geom_solmix, ngeom, 1, "(ngeom,)") F(geom_solref, ngeom, kNREF, "(ngeom, 2)")
  F(geom_solimp, ngeom, kNIMP, "(ngeom, 5)") F(geom_size, ngeom, 3, "(ngeom, 3)")
  F(geom_rbound, ngeom, 1, "(ngeom,)") F(geom_pos, ngeom, 3, "(ngeom, 3) in the body frame")
  F(geom_quat, ngeom, 4, "(ngeom, 4) in the body frame") F(geom_friction, ngeom, 3, "(ngeom, 3)")
  F(geom_margin, ngeom, 1, "(ngeom,)") F(geom_gap, ngeom, 1, "(ngeom,)")
  F(geom_fluid, ngeom, kNFLUID, "(ngeom, 12)") F(geom_user, ngeom, m.nuser_geom, "(ngeom, nuser_geom)")
  F(geom_rgba, ngeom, 4, "(ngeom, 4) float32")
  F(site_type, nsite, 1, "(nsite,)") F(site_bodyid, nsite, 1, "(nsite,)")
  F(site_matid, nsite, 1, "(nsite,)") F(site_group, nsite, 1, "(nsite,)")
  F(site_sameframe, nsite, 1, "(nsite,)") F(site_size, nsite, 3, "(nsite, 3)")
  F(site_pos, nsite, 3, "(nsite, 3)") F(site_quat, nsite, 4, "(nsite, 4)")
  F(site_user, nsite, m.nuser_site, "(nsite, nuser_site)") F(site_rgba, nsite, 4, "(nsite, 4) float32")
  F(cam_mode, ncam, 1, "(ncam,)") F(cam_bodyid, ncam, 1, "(ncam,)") F(cam_targetbodyid, ncam, 1, "(ncam,)")
  F(cam_pos, ncam, 3, "(ncam, 3)") F(cam_quat, ncam, 4, "(ncam, 4)") F(cam_poscom0, ncam, 3, "(ncam, 3)")
  F(cam_pos0, ncam, 3, "(ncam, 3)") F(cam_mat0, ncam, 9, "(ncam, 9)") F(cam_fovy, ncam, 1, "(ncam,)")
  F(cam_ipd, ncam, 1, "(ncam,)")
  F(light_mode, nlight, 1, "(nlight,)") F(light_bodyid, nlight, 1, "(nlight,)")
  F(light_targetbodyid, nlight, 1, "(nlight,)") F(light_directional, nlight, 1, "(nlight,)")
  F(light_castshadow, nlight, 1, "(nlight,)") F(light_active, nlight, 1, "(nlight,)")
  F(light_pos, nlight, 3, "(nlight, 3)") F(light_dir, nlight, 3, "(nlight, 3)")
  F(light_poscom0, nlight, 3, "(nlight, 3)") F(light_pos0, nlight, 3, "(nlight, 3)")
  F(light_dir0, nlight, 3, "(nlight, 3)")
  F(mesh_vertadr, nmesh, 1, "(nmesh,)") F(mesh_vertnum, nmesh, 1, "(nmesh,)")
  F(mesh_faceadr, nmesh, 1, "(nmesh,)") F(mesh_facenum, nmesh, 1, "(nmesh,)")
  F(mesh_graphadr, nmesh, 1, "(nmesh,)") F(mesh_vert, nmeshvert, 3, "(nmeshvert, 3) float32")
  F(mesh_face, nmeshface, 3, "(nmeshface, 3)") F(mesh_graph, mesh_graph.size(), 1, "convex hull graphs")
  F(hfield_size, nhfield, 4, "(nhfield, 4)") F(hfield_nrow, nhfield, 1, "(nhfield,)")
  F(hfield_ncol, nhfield, 1, "(nhfield,)") F(hfield_adr, nhfield, 1, "(nhfield,)")
  F(hfield_data, nhfielddata, 1, "(nhfielddata,) float32")
  F(tex_type, ntex, 1, "(ntex,) 0 2d, 1 cube, 2 skybox")
  F(tex_height, ntex, 1, "(ntex,) image rows (cube and skybox faces stacked: 6 x width, or width when one image repeats)")
  F(tex_width, ntex, 1, "(ntex,) image columns") F(tex_adr, ntex, 1, "(ntex,) first byte in tex_rgb")
  F(tex_rgb, ntexdata, 1, "(ntexdata,) uint8 RGB pixels, rows from the top, as 2.2.2")
  F(tex_builtin, ntex, 1, "(ntex,) 0 none, 1 gradient, 2 checker, 3 flat")
  F(tex_mark, ntex, 1, "(ntex,) 0 none, 1 edge, 2 cross, 3 random") F(tex_rgb1, ntex, 3, "(ntex, 3)")
  F(tex_rgb2, ntex, 3, "(ntex, 3)") F(tex_markrgb, ntex, 3, "(ntex, 3)")
  F(tex_random, ntex, 1, "(ntex,)")
  F(mat_texid, nmat, 1, "(nmat,) texture id or -1") F(mat_texuniform, nmat, 1, "(nmat,)")
  F(mat_texrepeat, nmat, 2, "(nmat, 2) float32") F(mat_emission, nmat, 1, "(nmat,) float32")
  F(mat_specular, nmat, 1, "(nmat,) float32") F(mat_shininess, nmat, 1, "(nmat,) float32")
  F(mat_reflectance, nmat, 1, "(nmat,) float32") F(mat_rgba, nmat, 4, "(nmat, 4) float32")
  F(pair_dim, npair, 1, "(npair,)") F(pair_geom1, npair, 1, "(npair,)") F(pair_geom2, npair, 1, "(npair,)")
  F(pair_signature, npair, 1, "(npair,)") F(pair_solref, npair, kNREF, "(npair, 2)")
  F(pair_solimp, npair, kNIMP, "(npair, 5)") F(pair_margin, npair, 1, "(npair,)")
  F(pair_gap, npair, 1, "(npair,)") F(pair_friction, npair, 5, "(npair, 5)")
  F(exclude_signature, nexclude, 1, "(nexclude,)")
  F(eq_type, neq, 1, "(neq,)") F(eq_obj1id, neq, 1, "(neq,)") F(eq_obj2id, neq, 1, "(neq,)")
  F(eq_active, neq, 1, "(neq,)") F(eq_solref, neq, kNREF, "(neq, 2)") F(eq_solimp, neq, kNIMP, "(neq, 5)")
  F(eq_data, neq, kNEQDATA, "(neq, 11)")
  F(tendon_adr, ntendon, 1, "(ntendon,)") F(tendon_num, ntendon, 1, "(ntendon,)")
  F(tendon_group, ntendon, 1, "(ntendon,)") F(tendon_limited, ntendon, 1, "(ntendon,)")
  F(tendon_width, ntendon, 1, "(ntendon,)") F(tendon_solref_lim, ntendon, kNREF, "(ntendon, 2)")
  F(tendon_solimp_lim, ntendon, kNIMP, "(ntendon, 5)") F(tendon_solref_fri, ntendon, kNREF, "(ntendon, 2)")
  F(tendon_solimp_fri, ntendon, kNIMP, "(ntendon, 5)") F(tendon_range, ntendon, 2, "(ntendon, 2)")
  F(tendon_margin, ntendon, 1, "(ntendon,)") F(tendon_stiffness, ntendon, 1, "(ntendon,)")
  F(tendon_damping, ntendon, 1, "(ntendon,)") F(tendon_frictionloss, ntendon, 1, "(ntendon,)")
  F(tendon_lengthspring, ntendon, 1, "(ntendon,)")
  F(tendon_length0, ntendon, 1, "(ntendon,)") F(tendon_invweight0, ntendon, 1, "(ntendon,)")
  F(tendon_user, ntendon, m.nuser_tendon, "(ntendon, nuser_tendon)") F(tendon_armature, ntendon, 1, "(ntendon,)")
  F(wrap_type, nwrap, 1, "(nwrap,)") F(wrap_objid, nwrap, 1, "(nwrap,)") F(wrap_prm, nwrap, 1, "(nwrap,)")
  F(actuator_trntype, nu, 1, "(nu,)") F(actuator_dyntype, nu, 1, "(nu,)") F(actuator_gaintype, nu, 1, "(nu,)")
  F(actuator_biastype, nu, 1, "(nu,)") F(actuator_trnid, nu, 2, "(nu, 2)") F(actuator_actadr, nu, 1, "(nu,)")
  F(actuator_actnum, nu, 1, "(nu,)") F(actuator_group, nu, 1, "(nu,)") F(actuator_ctrllimited, nu, 1, "(nu,)")
  F(actuator_forcelimited, nu, 1, "(nu,)") F(actuator_actlimited, nu, 1, "(nu,)")
  F(actuator_actearly, nu, 1, "(nu,)") F(actuator_dynprm, nu, kNDYN, "(nu, 10)")
  F(actuator_gainprm, nu, kNGAIN, "(nu, 10)") F(actuator_biasprm, nu, kNBIAS, "(nu, 10)")
  F(actuator_ctrlrange, nu, 2, "(nu, 2)") F(actuator_forcerange, nu, 2, "(nu, 2)")
  F(actuator_actrange, nu, 2, "(nu, 2)") F(actuator_gear, nu, 6, "(nu, 6)")
  F(actuator_cranklength, nu, 1, "(nu,)") F(actuator_acc0, nu, 1, "(nu,)") F(actuator_length0, nu, 1, "(nu,)")
  F(actuator_lengthrange, nu, 2, "(nu, 2)") F(actuator_user, nu, m.nuser_actuator, "(nu, nuser_actuator)")
  F(sensor_type, nsensor, 1, "(nsensor,)") F(sensor_datatype, nsensor, 1, "(nsensor,)")
  F(sensor_needstage, nsensor, 1, "(nsensor,)") F(sensor_objtype, nsensor, 1, "(nsensor,)")
  F(sensor_objid, nsensor, 1, "(nsensor,)") F(sensor_reftype, nsensor, 1, "(nsensor,)")
  F(sensor_refid, nsensor, 1, "(nsensor,)") F(sensor_dim, nsensor, 1, "(nsensor,)")
  F(sensor_adr, nsensor, 1, "(nsensor,)") F(sensor_cutoff, nsensor, 1, "(nsensor,)")
  F(sensor_noise, nsensor, 1, "(nsensor,)") F(sensor_user, nsensor, m.nuser_sensor, "(nsensor, nuser_sensor)")
  F(numeric_adr, nnumeric, 1, "(nnumeric,)") F(numeric_size, nnumeric, 1, "(nnumeric,)")
  F(numeric_data, nnumericdata, 1, "(nnumericdata,)")
  F(key_time, nkey, 1, "(nkey,)") F(key_qpos, nkey, m.nq, "(nkey, nq)") F(key_qvel, nkey, m.nv, "(nkey, nv)")
  F(key_act, nkey, m.na, "(nkey, na)") F(key_mpos, nkey, 3 * m.nmocap, "(nkey, 3 nmocap)")
  F(key_mquat, nkey, 4 * m.nmocap, "(nkey, 4 nmocap)") F(key_ctrl, nkey, m.nu, "(nkey, nu)")
#undef F
}

}  // namespace moreau::python

// The fields that moreau::Model shares with MuJoCo 2.2.2's mjModel, enumerated from one list:
// MuJoCo's own X-macros (mujoco/mjxmacro.h: MJMODEL_INTS, MJMODEL_POINTERS, MJOPTION_*). A field of
// those lists that moreau::Model also has (same name; arrays as std::vector of numbers in 2.2.2's
// layout) is visited; the others (textures, materials, skins, name addresses, ...) are skipped at
// compile time. The bridge (model_from_mujoco) copies what these visit and the compiled-model
// comparison (compare_compiled) checks it, so a field Moreau gains is copied and compared without
// another hand-written line.
#pragma once

#include <mujoco/mjxmacro.h>
#include <mujoco/mujoco.h>

#include <string_view>
#include <type_traits>

namespace moreau::testing {

// visit(name, Model's size, mjModel's size) for each size (n*) of MJMODEL_INTS that Model has.
template <class M, class Visit>
void for_each_model_size(M& mo, const mjModel* mj, Visit&& visit) {
#define X(name) \
  if constexpr (requires { mo.name; }) visit(#name, mo.name, mj->name);
  MJMODEL_INTS
#undef X
}

// visit(name, Model's std::vector, mjModel's pointer, element count) for each array of
// MJMODEL_POINTERS that Model has as a vector of numbers (text_data, a string per entry in Model,
// is not one). The count is 2.2.2's: rows (a size of `mj`) times columns.
template <class M, class Visit>
void for_each_model_array(M& mo, const mjModel* mj, Visit&& visit) {
  MJMODEL_POINTERS_PREAMBLE(mj)
#define X(type, name, nr, nc)                                                                    \
  if constexpr (requires { mo.name; }) {                                                         \
    if constexpr (std::is_arithmetic_v<typename std::remove_cvref_t<decltype(mo.name)>::value_type>) \
      visit(#name, mo.name, mj->name, static_cast<long long>(mj->nr) * (nc));                    \
  }
  MJMODEL_POINTERS
#undef X
}

// visit(name, Option's field, mjOption's field) for each scalar of mjOption (MJOPTION_SCALARS), and
// visit(name, Option's array, mjOption's array, length) for each vector (MJOPTION_VECTORS).
template <class O, class VisitScalar, class VisitVector>
void for_each_option(O& o, const mjOption& p, VisitScalar&& scalar, VisitVector&& vector) {
#define X(type, name) scalar(#name, o.name, p.name);
  MJOPTION_SCALARS
#undef X
#define X(name, n) vector(#name, o.name, p.name, n);
  MJOPTION_VECTORS
#undef X
}

// The named kinds of object: Model's <kind>_names from mjModel's name_<kind>adr, one per element.
#define MOREAU_NAMED_KINDS(X)                                                                  \
  X(body, nbody) X(jnt, njnt) X(geom, ngeom) X(site, nsite) X(cam, ncam) X(light, nlight)     \
  X(mesh, nmesh) X(hfield, nhfield) X(tex, ntex) X(mat, nmat) X(pair, npair)                  \
  X(exclude, nexclude) X(eq, neq) X(tendon, ntendon) X(actuator, nu) X(sensor, nsensor)       \
  X(numeric, nnumeric) X(text, ntext) X(tuple, ntuple) X(key, nkey)

}  // namespace moreau::testing

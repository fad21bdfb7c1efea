// moreau._moreau: the compiled part of the Python package. The pure-Python layer (python/moreau)
// re-exports these names and adds named access; see docs/python.md.
#include "bind.h"

PYBIND11_MODULE(_moreau, m) {
  m.doc() = "Moreau physics engine: the compiled core (use the `moreau` package).";
  using namespace moreau::python;
  bind_errors(m);
  bind_enums(m);
  bind_model(m);
  bind_data(m);
  bind_functions(m);
  bind_rollout(m);
}

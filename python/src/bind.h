// The pieces of the Python module moreau._moreau. Each part registers its names in its own file;
// module.cc calls them in order.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "moreau/moreau.h"

namespace moreau::python {

namespace py = pybind11;

// A Data bound to Python: the engine's Data, the Model it was made for (kept alive), and what
// the Python layer adds (the control callback and its pending error, a guard against two threads
// stepping the same Data at once).
struct PyData {
  std::shared_ptr<Model> model;
  Data data;
  py::object control;                           // Python control callback, or None
  std::optional<py::error_already_set> control_error;  // raised by the callback inside a step
  std::atomic<bool> busy{false};

  PyData(std::shared_ptr<Model> m) : model(std::move(m)), data(make_data(*model)) {}
};

// A zero-copy NumPy view of `n` elements at `ptr`, shaped `shape` (C order), whose base object
// `owner` keeps the memory alive. An empty view is a fresh empty array (nothing to alias).
template <class T>
py::array view(T* ptr, std::vector<py::ssize_t> shape, py::handle owner, bool writable = true) {
  py::ssize_t n = 1;
  for (auto s : shape) n *= s;
  if (n == 0 || ptr == nullptr) return py::array_t<T>(shape);
  py::array a(py::dtype::of<T>(), shape, ptr, owner);
  if (!writable) a.attr("flags").attr("writeable") = false;
  return a;
}

// Copies `value` (any array-like) into `dst` (n elements of T) after checking its shape against
// `shape`; raises ValueError naming `field` and the expected shape.
template <class T>
void assign(const char* field, T* dst, const std::vector<py::ssize_t>& shape, py::handle value);

// The statistics of the last hard-contact solve or contact_metrics call as a dict (iterations,
// nblock, primal, dual, complementarity, eps_abs, change).
py::dict ncp_stats(const NcpStat& s);

// "(17, 3)" for messages.
std::string shape_text(const std::vector<py::ssize_t>& shape);

void bind_errors(py::module_& m);
void bind_enums(py::module_& m);
void bind_model(py::module_& m);
void bind_data(py::module_& m);
void bind_functions(py::module_& m);
void bind_rollout(py::module_& m);

}  // namespace moreau::python

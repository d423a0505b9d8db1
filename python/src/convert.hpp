// Conversions between the sandbox API's values and Python's: text, JSON.
//
// Text that comes out of a sandbox (command output, file contents) is bytes, not always valid UTF-8; it is
// given to Python as str decoded as UTF-8 with invalid bytes replaced by U+FFFD (the *_bytes accessors keep
// the exact bytes). JSON values become dict/list/str/int/float/bool/None and back.
#pragma once

#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace bashkit::python {

namespace py = pybind11;

// UTF-8 with invalid bytes replaced.
py::str text(const std::string& s);

// A JSON value as a Python object (objects -> dict, arrays -> list, ...).
py::object to_python(const nlohmann::json& j);

// A Python value as JSON: None, bool, int, float, str, dict with str keys, list and tuple. Raises TypeError
// for anything else (and ValueError for nesting deeper than 500 levels, or a float that is not finite).
nlohmann::json to_json(py::handle o);

}  // namespace bashkit::python

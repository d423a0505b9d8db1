#include "python/src/convert.hpp"

#include <cmath>
#include <cstdint>

namespace bashkit::python {
namespace {

constexpr int kMaxDepth = 500;

nlohmann::json to_json_at(py::handle o, int depth) {
    if (depth > kMaxDepth) throw py::value_error("cannot convert to JSON: nesting deeper than 500 levels");
    if (o.is_none()) return nullptr;
    // bool before int: bool is a subclass of int in Python.
    if (PyBool_Check(o.ptr())) return o.ptr() == Py_True;
    if (PyLong_Check(o.ptr())) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
        if (overflow == 0) {
            if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
            return int64_t(v);
        }
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(o.ptr());
            if (!PyErr_Occurred()) return uint64_t(u);
            PyErr_Clear();
        }
        throw py::value_error("cannot convert to JSON: integer out of the 64-bit range");
    }
    if (PyFloat_Check(o.ptr())) {
        double d = PyFloat_AsDouble(o.ptr());
        if (!std::isfinite(d)) throw py::value_error("cannot convert to JSON: float is not finite");
        return d;
    }
    if (PyUnicode_Check(o.ptr())) return o.cast<std::string>();
    if (PyDict_Check(o.ptr())) {
        nlohmann::json out = nlohmann::json::object();
        for (auto [k, v] : py::reinterpret_borrow<py::dict>(o)) {
            if (!PyUnicode_Check(k.ptr()))
                throw py::type_error("cannot convert to JSON: dict keys must be str, got " +
                                     std::string(py::str(py::type::of(k).attr("__name__"))));
            out[k.cast<std::string>()] = to_json_at(v, depth + 1);
        }
        return out;
    }
    if (PyList_Check(o.ptr()) || PyTuple_Check(o.ptr())) {
        nlohmann::json out = nlohmann::json::array();
        for (py::handle v : py::reinterpret_borrow<py::sequence>(o)) out.push_back(to_json_at(v, depth + 1));
        return out;
    }
    throw py::type_error("cannot convert to JSON: unsupported type " +
                         std::string(py::str(py::type::of(o).attr("__name__"))));
}

}  // namespace

py::str text(const std::string& s) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), Py_ssize_t(s.size()), "replace");
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

py::object to_python(const nlohmann::json& j) {
    using T = nlohmann::json::value_t;
    switch (j.type()) {
        case T::null:
        case T::discarded: return py::none();
        case T::boolean: return py::bool_(j.get<bool>());
        case T::number_integer: return py::int_(j.get<int64_t>());
        case T::number_unsigned: return py::int_(j.get<uint64_t>());
        case T::number_float: return py::float_(j.get<double>());
        case T::string: return text(j.get_ref<const std::string&>());
        case T::binary: {
            const auto& b = j.get_binary();
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
        }
        case T::array: {
            py::list l;
            for (const auto& e : j) l.append(to_python(e));
            return l;
        }
        case T::object: {
            py::dict d;
            for (const auto& [k, v] : j.items()) d[text(k)] = to_python(v);
            return d;
        }
    }
    return py::none();
}

nlohmann::json to_json(py::handle o) { return to_json_at(o, 0); }

}  // namespace bashkit::python

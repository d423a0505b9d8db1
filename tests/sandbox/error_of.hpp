// The message of the exception f() throws, or "(no exception)": for the refusal tests of the sandbox types.
#pragma once

#include <exception>
#include <string>

namespace bashkit::sandbox {

template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

}  // namespace bashkit::sandbox

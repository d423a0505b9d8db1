#include "interp/syntax/parser.hpp"

namespace bashkit::syntax {

std::string ParseError::format(std::string_view source_name) const {
    std::string out(source_name);
    out += ": line ";
    out += std::to_string(pos.line);
    out += ": ";
    out += message;
    return out;
}

}  // namespace bashkit::syntax

// libjq, loaded on first use (base/lazy_library.hpp): only jq loads it (and oniguruma). Every call goes
// through jqlib(), after need_libjq() has said yes. jv.h's jv_is_valid() and JV_ARRAY/JV_OBJECT macros call
// the library directly, so is_valid(), array2() and object2() stand in for them.
#pragma once

// jv.h defines jv_is_valid() as a static function calling jv_get_kind(); an unoptimised build keeps it in
// every object that includes the header, and with libjq loaded at run time nothing defines the symbol. The
// helper is never called (is_valid() below stands in for it), so the symbol is declared weak first.
extern "C" {  // libjq's headers have no C++ guards
#include <jv.h>
__attribute__((weak)) jv_kind jv_get_kind(jv);
#include <jq.h>
}

#include <string>
#include <string_view>

#include "base/lazy_library.hpp"
#include "interp/command.hpp"

#define BASHKIT_LIBJQ_FUNCTIONS(X) \
    X(jq_compile_args) X(jq_format_error) X(jq_get_error_message) X(jq_get_exit_code) \
    X(jq_halted) X(jq_init) X(jq_next) X(jq_set_attr) \
    X(jq_set_colors) X(jq_set_debug_cb) X(jq_set_error_cb) X(jq_set_input_cb) \
    X(jq_start) X(jq_teardown) X(jv_array) X(jv_array_append) \
    X(jv_array_get) X(jv_array_length) X(jv_copy) X(jv_dump_string) \
    X(jv_free) X(jv_get_kind) X(jv_invalid) X(jv_invalid_get_msg) \
    X(jv_invalid_has_msg) X(jv_null) X(jv_number) X(jv_number_value) \
    X(jv_object) X(jv_object_set) X(jv_parse_sized) X(jv_parser_free) \
    X(jv_parser_new) X(jv_parser_next) X(jv_parser_remaining) X(jv_parser_set_buf) \
    X(jv_string) X(jv_string_concat) X(jv_string_length_bytes) X(jv_string_sized) \
    X(jv_string_value)

namespace bashkit::builtins::jq {

struct LibjqApi {
    BASHKIT_LIBJQ_FUNCTIONS(BASHKIT_API_MEMBER)
};

// libjq's functions, or nullptr with *error set when the library cannot be loaded.
const LibjqApi* libjq_api(std::string* error = nullptr);

// Loads libjq; false after "jq: error: libjq cannot be loaded: WHY" on stderr.
bool need_libjq(interp::CommandContext& ctx);

// The loaded API: only after need_libjq() returned true.
inline const LibjqApi& jqlib() { return *libjq_api(); }

// jv_is_valid() of jv.h, which calls the library directly.
inline bool is_valid(jv x) { return jqlib().jv_get_kind(x) != JV_KIND_INVALID; }

// [a, b] and {k1: v1, k2: v2}, taking ownership of their arguments as jv's functions do.
inline jv array2(jv a, jv b) { return jqlib().jv_array_append(jqlib().jv_array_append(jqlib().jv_array(), a), b); }
inline jv object2(jv k1, jv v1, jv k2, jv v2) {
    return jqlib().jv_object_set(jqlib().jv_object_set(jqlib().jv_object(), k1, v1), k2, v2);
}

}  // namespace bashkit::builtins::jq

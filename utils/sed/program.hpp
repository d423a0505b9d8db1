// The compiled form of a sed script: a flat vector of commands (blocks and branches are jumps by index, as
// GNU sed compiles them), with the regexes, s/// and y/// data and the file names they refer to. Immutable
// once parsed; the runtime keeps its own per-command state (ranges).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "interp/regex.hpp"

namespace bashkit::utils::sed {

inline constexpr int kNoRegex = -1;     // an address or s/// without a regex
inline constexpr int kLastRegex = -2;   // the empty regex `//`: the last regex used at run time

enum class AddrType : uint8_t {
    none,
    num,       // N
    num_mod,   // first~step
    step,      // +N (second address only)
    step_mod,  // ~N (second address only)
    last,      // $
    regex,     // /re/ \cREc (with I and M flags)
    always,    // +0 or ~0 as a second address: matches at once, so the range is one line
};

struct Address {
    AddrType type = AddrType::none;
    uint64_t number = 0;
    uint64_t step = 0;
    int regex = kNoRegex;  // index into Program::regexes, or kLastRegex
};

// One piece of an s/// replacement: literal text, then optionally a group (0 = the whole match), each with
// the case conversion in force (GNU's struct replacement).
enum ReplType : uint8_t {
    kReplAsIs = 0,
    kReplUpper = 1,
    kReplLower = 2,
    kReplUpperFirst = 4,
    kReplLowerFirst = 8,
    kReplModifiers = kReplUpperFirst | kReplLowerFirst,
};

struct ReplPart {
    std::string prefix;
    int group = -1;  // -1: none
    uint8_t type = kReplAsIs;
};

struct Subst {
    int regex = kNoRegex;  // index, or kLastRegex
    std::vector<ReplPart> replacement;
    int max_group = 0;
    bool global = false;
    bool print = false;
    uint64_t nth = 0;  // 0: the first match (or every one with g); N: start at the Nth
    int wfile = -1;    // index into Program::outputs, or -1
};

struct Command {
    char name = 0;
    Address a1, a2;  // a1.type none: no address; a2.type none: a single address
    bool bang = false;
    std::string text;   // a i c: the text (ends with a newline unless empty); b t T ':': the label; r: file
    bool prepend = false;  // 0r FILE: insert before the first line
    int64_t int_arg = -1;  // q Q exit status, l width (-1: not given)
    size_t jump = 0;       // { b t T: the index to go to
    int subst = -1;        // s: index into Program::substs
    int ymap = -1;         // y: index into Program::ymaps
    int file = -1;         // w W: index into Program::outputs; R: index into Program::rfiles
};

struct Program {
    std::vector<Command> cmds;
    std::vector<interp::Regex> regexes;
    std::vector<Subst> substs;
    std::vector<std::array<unsigned char, 256>> ymaps;
    std::vector<std::string> outputs;  // w files, in order of first appearance (opened before any input)
    std::vector<std::string> rfiles;   // R files
    bool quiet = false;                // #n on the first line of the first script
    // Where the last script chunk was, for run-time errors that GNU reports with the compile position.
    std::string last_location;
};

}  // namespace bashkit::utils::sed

// Containment: no exception leaves a command. A command that throws (the session's memory budget,
// std::bad_alloc, a custom command of the embedder) fails with status 1 and a message on its stderr, the
// evaluator's frames, scopes and counters are put back as they were before it, and the script goes on as
// after any failed command. Thread entries and the public API have their own catch as a last line.
#include <new>
#include <stdexcept>

#include "interp/exec.hpp"
#include "interp/governor.hpp"

namespace bashkit::interp {

std::string Exec::exception_text() const noexcept {
    try {
        try {
            throw;
        } catch (const MemoryLimitExceeded& e) {
            return memory_limit_message(e.limit());
        } catch (const std::bad_alloc&) {
            return memory_limit_message(session_.limits.max_memory_bytes);
        } catch (const std::exception& e) {
            return e.what();
        } catch (...) {
            return "unknown error";
        }
    } catch (...) {
        return {};
    }
}

void Exec::report_exception(std::string_view name, ByteStream& to) const noexcept {
    try {
        std::string m = "bashkit: ";
        m.append(name);
        m += ": ";
        m += exception_text();
        m.push_back('\n');
        (void)to.write(m);
    } catch (...) {
        // Nothing more can be said without memory.
    }
}

void Exec::unwind_to(const UnwindMark& m) noexcept {
    try {
        while (state_.frames.size() > m.frames && state_.frames.size() > 1) state_.frames.pop_back();
        for (uint32_t s = state_.scope; s > m.scope; --s) state_.vars.pop_scope(s);
    } catch (...) {
    }
    state_.scope = m.scope;
    call_depth_ = m.call_depth;
    loop_depth_ = m.loop_depth;
    eval_depth_ = m.eval_depth;
    xtrace_level_ = m.subst_depth;
    line_offset_ = m.line_offset;
    errexit_suppressed_ = m.errexit_suppressed;
    in_trap_ = m.in_trap;
    traps_running_ = m.traps_running;
    in_source_ = m.in_source;
    levels_ = 0;
}

Flow Exec::command_threw(const sx::Command* cmd, const UnwindMark& m) noexcept {
    std::string text = exception_text();
    unwind_to(m);
    state_.status = 1;
    try {
        // An assignment statement whose value did not fit (its word is charged as it is built) fails as when
        // the variable's store refuses a value: named, and the rest of the line discarded (`y=$y$y` in an
        // endless loop ends it).
        if (cmd && cmd->kind == sx::NodeKind::Simple) {
            const auto* s = cmd->as<sx::Simple>();
            if (s->words.empty() && s->assigns.size == 1) {
                error(std::string(s->assigns[0]->name) + ": " + text);
                exit_status_ = 1;
                discard_line_ = true;
                return Flow::Exit;
            }
        }
        error(text);
        return after_command(cmd);
    } catch (...) {
        return Flow::Normal;
    }
}

bool Exec::charge_words(const std::vector<std::string>& words, size_t extra, MemoryCharge& held) {
    if (words.size() > session_.limits.max_array_entries) {
        error(words[0] + ": too many arguments (limit " + std::to_string(session_.limits.max_array_entries) + ")");
        state_.status = 1;
        return false;
    }
    // What the strings hold (their capacity: a word built by appending has room to spare).
    size_t bytes = extra;
    for (const std::string& w : words) bytes += w.capacity() + sizeof(std::string);
    // (smaller lists are not charged: the call depth bounds what they can hold together)
    if (bytes < kBudgetCheckFloor) return true;
    held = MemoryCharge(&session_.memory);
    if (!held.try_add(bytes)) {
        error(words[0] + ": " + memory_limit_message(session_.memory.limit()));
        state_.status = 1;
        return false;
    }
    return true;
}

}  // namespace bashkit::interp

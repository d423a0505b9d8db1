// set -x: the PS4 prefix (its prompt escapes and expansions), the traced text of commands and assignments.
#include "interp/exec.hpp"
#include "interp/builtins/builtin.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "interp/fields.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"
#include "interp/stream_charge.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

namespace {
// The backslash escapes of a prompt string (bash's decode_prompt_string), before its expansions.
std::string decode_prompt(Exec& ex, std::string_view ps) {
    std::string out;
    for (size_t i = 0; i < ps.size(); ++i) {
        char c = ps[i];
        if (c != '\\' || i + 1 >= ps.size()) {
            out += c;
            continue;
        }
        char e = ps[++i];
        switch (e) {
            case 'a': out += '\a'; break;
            case 'e': out += '\x1b'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case '\\': out += '\\'; break;
            case '$': out += ex.session().id.uid == 0 ? '#' : '$'; break;
            case 'u': out += ex.session().id.user; break;
            case 'h': {
                const std::string& h = ex.session().id.host;
                out += h.substr(0, h.find('.'));
                break;
            }
            case 'H': out += ex.session().id.host; break;
            case 's': out += "bash"; break;
            case 'v': out += "5.2"; break;
            case 'V': out += "5.2.15"; break;
            case 'w':
            case 'W': {
                std::string pwd = ex.get_str("PWD");
                std::string home = ex.get_str("HOME");
                if (e == 'W') {
                    if (pwd != "/" && pwd != home) pwd = pwd.substr(pwd.rfind('/') + 1);
                } else if (!home.empty() && (pwd == home || pwd.starts_with(home + "/"))) {
                    pwd = "~" + pwd.substr(home.size());
                }
                if (e == 'W' && !home.empty() && pwd == home) pwd = "~";
                out += pwd;
                break;
            }
            case '[':
            case ']': break;  // markers of non-printing sequences
            case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
                int v = 0, n = 0;
                size_t k = i;
                while (k < ps.size() && n < 3 && ps[k] >= '0' && ps[k] <= '7') v = v * 8 + (ps[k++] - '0'), ++n;
                out += static_cast<char>(v);
                i = k - 1;
                break;
            }
            default:
                out += '\\';
                out += e;
                break;
        }
    }
    return out;
}
}  // namespace

std::string Exec::xtrace_prefix() {
    const std::string* p = get_scalar("PS4");
    if (!p || p->empty()) return {};  // an unset or empty PS4: no prefix at all
    std::string ps4 = *p;
    if (ps4.find_first_of("\\$`") != std::string::npos) {
        // Expanded each time, as a here-document body is (quotes stay), with tracing off and $? kept; when the
        // expansion fails bash prints its message and uses the text as it is.
        std::string decoded = decode_prompt(*this, ps4);
        auto tree = std::make_shared<sx::ParseResult>();
        const sx::Word* w = sx::parse_expanding_text(decoded, *tree->arena);
        if (w) {
            const int saved_status = state_.status;
            const bool saved_report = report_exit_, saved_discard = discard_line_;
            const int saved_exit = exit_status_;
            state_.opts[OptXtrace] = false;
            std::string out;
            {
                OwnerScope scope(*this, tree);
                if (expand_heredoc_text(w, out) == Outcome::Ok) ps4 = std::move(out);
            }
            state_.opts[OptXtrace] = true;
            state_.status = saved_status;
            report_exit_ = saved_report;
            discard_line_ = saved_discard;
            exit_status_ = saved_exit;
        }
    }
    if (xtrace_level_ == 0 || ps4.empty()) return ps4;
    // The first character (a whole UTF-8 sequence) repeats once more for each level of $( ), eval, source, trap.
    size_t len = 1;
    unsigned char c0 = static_cast<unsigned char>(ps4[0]);
    if (c0 >= 0xC0) len = c0 >= 0xF0 ? 4 : c0 >= 0xE0 ? 3 : 2;
    len = std::min(len, ps4.size());
    std::string line;
    for (uint32_t i = 0; i < xtrace_level_; ++i) line.append(ps4, 0, len);
    return line + ps4;
}

void Exec::xtrace_line(std::string_view text) {
    std::string line = xtrace_prefix();
    line.append(text);
    line.push_back('\n');
    // BASH_XTRACEFD names the descriptor of the trace (stderr when unset or not open).
    if (const std::string* fdv = get_scalar("BASH_XTRACEFD")) [[unlikely]] {
        int64_t n = 0;
        if (parse_int(*fdv, n) && n >= 0 && n < 1024) {
            if (StreamPtr f = fd(static_cast<int>(n))) {
                (void)f->write(line);
                return;
            }
        }
    }
    write_err(line);
}

std::string Exec::command_text(const sx::Command* c) {
    if (!c) return {};
    sx::Arena arena;
    auto* script = arena.node<sx::Script>(c->pos);
    auto* stmt = arena.node<sx::Stmt>(c->pos);
    stmt->cmd = const_cast<sx::Command*>(c);
    std::vector<sx::Stmt*> v{stmt};
    script->body = arena.list<sx::Stmt*>(v);
    std::string text = sx::print(*script);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::string Exec::xtrace_assign_text(const sx::Assign* a, const AssignValue& v, int assoc, bool decl) {
    std::string t(a->name);
    // The subscript of an assignment statement as written (`c[$i]=x`), a declaration's expanded.
    if (v.has_index) t += "[" + (!decl && a->index ? sx::print(*a->index) : v.index) + "]";
    t += a->append ? "+=" : "=";
    if (!v.is_array) return v.scalar.empty() ? t : t + xtrace_quote(v.scalar);
    if (!decl) {  // `name=(...)` on its own: bash shows the words as written
        t += '(';
        for (size_t i = 0; i < a->elems.size; ++i) {
            const sx::ArrayElem& el = a->elems[i];
            if (i) t += ' ';
            if (el.key) t += "[" + sx::print(*el.key) + (el.append ? "]+=" : "]=");
            if (el.value) t += sx::print(*el.value);
        }
        return t + ')';
    }
    // A declaration builtin's array: every value single-quoted (the keys of an associative array too).
    auto q = [&](const std::string& x) { return decl ? single_quote(x) : xtrace_quote(x); };
    if (assoc < 0) {
        const Var* cur = lookup(a->name);
        assoc = cur && cur->is_assoc() ? 1 : 0;
    }
    t += '(';
    for (size_t i = 0; i < v.elems.size(); ++i) {
        const AssignValue::Elem& e = v.elems[i];
        if (i) t += ' ';
        if (e.keyed) t += "[" + (decl && assoc == 1 ? single_quote(e.key) : e.key) + (e.append ? "]+=" : "]=");
        t += q(e.value);
    }
    return t + ')';
}

void Exec::xtrace_simple(const sx::Simple* c, const std::vector<std::string>& argv, const DeclArgs& decls) {
    // Temporary bindings first, one line each (their values expanded once more, for the trace only).
    for (const sx::Assign* a : c->assigns) {
        std::string v;
        if (a->value) (void)expand_assign_value(a->value, v);
        xtrace_line(std::string(a->name) + (a->append ? "+=" : "=") + xtrace_quote(v));
    }
    std::string line;
    for (size_t i = 0; i < argv.size(); ++i) {
        if (i) line.push_back(' ');
        const sx::Assign* node = decls.node(i);
        const AssignValue* val = decls.value(i);
        if (node && val && !val->is_array) {
            std::string w(node->name);
            if (val->has_index) w += "[" + val->index + "]";
            w += node->append ? "+=" : "=";
            line += xtrace_quote(w + val->scalar);
        } else {
            line += xtrace_quote(argv[i]);
        }
    }
    xtrace_line(line);
    // export and readonly assign through bash's own assignment, which traces again.
    if (!decls.nodes.empty() && (argv[0] == "export" || argv[0] == "readonly") && !state_.funcs.count(argv[0]))
        for (size_t i = 1; i < argv.size(); ++i)
            if (const sx::Assign* node = decls.node(i); node && decls.value(i) && !decls.value(i)->is_array)
                xtrace_line(xtrace_assign_text(node, *decls.value(i), 0, false));
}

}  // namespace bashkit::interp

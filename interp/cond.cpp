// [[ ]] and test / [ : string, arithmetic and file tests over the FileSystem, =~ through RE2.
#include <algorithm>
#include <cstring>

#include "interp/exec.hpp"
#include "interp/fields.hpp"
#include "interp/pattern.hpp"
#include "interp/regex.hpp"

namespace bashkit::interp {

namespace {

void regex_escape(std::string& out, std::string_view s) {
    for (char c : s) {
        if (std::strchr("\\.[]()*+?{}|^$", c) && c) out.push_back('\\');
        out.push_back(c);
    }
}

// A binary operator of [[ ]] and test, classified once: [[ $i -gt 100 ]] in a loop compared the operator's
// text with up to twelve strings per round. `=~` is one only in [[ ]].
enum class BinaryOp { Match, NoMatch, Regex, Less, Greater, FileCompare, Eq, Ne, Lt, Le, Gt, Ge, Unknown };

BinaryOp binary_op(std::string_view op) {
    using B = BinaryOp;
    if (op.size() == 1) return op[0] == '=' ? B::Match : op[0] == '<' ? B::Less : op[0] == '>' ? B::Greater : B::Unknown;
    if (op.size() == 2) return op == "==" ? B::Match : op == "!=" ? B::NoMatch : op == "=~" ? B::Regex : B::Unknown;
    if (op.size() != 3 || op[0] != '-') return B::Unknown;
    static constexpr std::pair<std::string_view, BinaryOp> kDashed[] = {
        {"eq", B::Eq}, {"ne", B::Ne}, {"lt", B::Lt}, {"le", B::Le}, {"gt", B::Gt}, {"ge", B::Ge},
        {"nt", B::FileCompare}, {"ot", B::FileCompare}, {"ef", B::FileCompare}};
    for (const auto& [name, kind] : kDashed)
        if (op[1] == name[0] && op[2] == name[1]) return kind;
    return B::Unknown;
}

// An arithmetic comparison (Eq .. Ge).
bool compare_numbers(BinaryOp op, int64_t a, int64_t b) {
    switch (op) {
        case BinaryOp::Eq: return a == b;
        case BinaryOp::Ne: return a != b;
        case BinaryOp::Lt: return a < b;
        case BinaryOp::Le: return a <= b;
        case BinaryOp::Gt: return a > b;
        default: return a >= b;  // Ge
    }
}

}  // namespace

bool Exec::file_test(char op, const std::string& path_in) {
    if (path_in.empty()) return false;
    std::string path = abs_path(path_in);
    // Devices the interpreter provides (dev_fs.hpp).
    if (path.starts_with("/dev/")) {
        using K = DevicePath::Kind;
        const DevicePath d = classify_device(path);
        if (d.kind == K::fd) {
            if (d.fd < 0 || !fd(d.fd)) return false;
            switch (op) {
                case 'e': case 'a': case 'r': case 'w': return true;
                case 'p': return true;
                // /dev/stdin, /dev/stdout and /dev/stderr are symlinks (to /proc/self/fd/N) on Linux.
                case 'h': case 'L': return !path.starts_with("/dev/fd/");
                default: return false;
            }
        }
        if (d.kind != K::none && d.kind != K::dev_dir && d.kind != K::fd_dir) {
            switch (op) {
                case 'e': case 'a': case 'c': case 'r': case 'w': return true;
                default: return false;
            }
        }
        if (path == "/dev/" || d.kind == K::fd_dir) {
            // /dev and /dev/fd are directories we provide.
            switch (op) {
                case 'e': case 'a': case 'd': case 'r': case 'x': return true;
                default: break;
            }
        }
    }
    if (op == 'h' || op == 'L') {
        auto st = session_.fs.lstat(path);
        return st && st->is_symlink();
    }
    auto st = session_.fs.stat(path);
    if (!st) return false;
    switch (op) {
        case 'e': case 'a': return true;
        case 'f': return st->is_regular();
        case 'd': return st->is_directory();
        case 'b': return st->type == vfs::FileType::block_device;
        case 'c': return st->type == vfs::FileType::char_device;
        case 'p': return st->type == vfs::FileType::fifo;
        case 'S': return st->type == vfs::FileType::socket;
        case 's': return st->size > 0;
        case 'r': case 'w': return true;  // the sandbox user may read and write everything
        case 'x': return st->is_directory() || (st->mode & 0111) != 0;
        case 'u': return (st->mode & 04000) != 0;
        case 'g': return (st->mode & 02000) != 0;
        case 'k': return (st->mode & 01000) != 0;
        case 'O': return st->uid == session_.id.uid;
        case 'G': return st->gid == session_.id.gid;
        case 'N': return st->mtime > st->atime;
        default: return false;
    }
}

// Unary tests shared by [[ ]] and test. known=false when op is not a unary operator.
bool Exec::unary_test(std::string_view op, const std::string& arg, bool& known) {
    known = true;
    if (op.size() != 2 || op[0] != '-') {
        known = false;
        return false;
    }
    char c = op[1];
    switch (c) {
        case 'z': return arg.empty();
        case 'n': return !arg.empty();
        case 'o': {
            int o = find_set_option(arg);
            return o >= 0 && state_.opts[static_cast<size_t>(o)];
        }
        case 'v': {
            size_t lb = arg.find('[');
            if (lb != std::string::npos && arg.back() == ']') {
                std::string name = arg.substr(0, lb), sub = arg.substr(lb + 1, arg.size() - lb - 2);
                const Var* v = lookup(name);
                if (sub == "@" || sub == "*") return v && v->count() > 0;
                if (v && v->is_assoc()) {
                    std::string key;
                    if (subscript_text(v, sub, key) != Outcome::Ok || !(v = lookup(name)) || !v->is_assoc()) return false;
                    return v->assoc && v->assoc->get(key);
                }
                int64_t i = 0;
                if (arith_text(sub, i, false) != Outcome::Ok) return false;
                v = lookup(name);  // the arithmetic may have changed it
                bool indexed = v && v->is_indexed();
                if (i < 0) {
                    // counted back from the end of an indexed array; before its start, or on a scalar or an
                    // unset name, the subscript is bad (bash reports it and the test is false)
                    if (indexed && v->idx) i += v->idx->next_index();
                    if (i < 0 || !indexed) {
                        report_error(name + ": bad array subscript");
                        return false;
                    }
                }
                if (!v) return false;
                if (indexed) return v->idx && v->idx->get(i);
                return i == 0 && v->set;
            }
            if (arg == "#" || arg == "?" || arg == "$" || arg == "-" || arg == "0") return true;
            if (!arg.empty() && std::all_of(arg.begin(), arg.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
                int64_t n = 0;
                parse_int(arg, n);
                return n >= 1 && static_cast<size_t>(n) <= params().size();
            }
            const Var* v = lookup(arg);
            if (!v) return false;
            if (v->is_array()) return v->scalar_value() != nullptr;
            return v->set;
        }
        case 'R': {
            const Var* v = state_.vars.find(arg);
            return v && (v->attrs & kAttrNameref) && v->set;
        }
        case 't': {
            int64_t n = -1;
            if (!parse_int(arg, n) || n < 0 || n > 1023) return false;
            StreamPtr s = fd(static_cast<int>(n));
            return s && s->is_tty();
        }
        case 'a': case 'b': case 'c': case 'd': case 'e': case 'f': case 'g': case 'h': case 'k': case 'p':
        case 'r': case 's': case 'u': case 'w': case 'x': case 'G': case 'L': case 'N': case 'O': case 'S':
            return file_test(c, arg);
        default:
            known = false;
            return false;
    }
}

namespace {

// -nt -ot -ef
bool file_compare(Exec& ex, std::string_view op, const std::string& a, const std::string& b) {
    auto& fs = ex.session().fs;
    auto sa = fs.stat(ex.abs_path(a));
    auto sb = fs.stat(ex.abs_path(b));
    if (op == "-nt") {
        if (!sa) return false;
        if (!sb) return true;
        return sa->mtime > sb->mtime;
    }
    if (op == "-ot") {
        if (!sb) return false;
        if (!sa) return true;
        return sa->mtime < sb->mtime;
    }
    if (!sa || !sb) return false;
    return sa->dev == sb->dev && sa->ino == sb->ino;
}

bool is_binary_op(std::string_view op) {
    static constexpr std::string_view ops[] = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le",
                                               "-gt", "-ge", "-nt", "-ot", "-ef"};
    for (auto o : ops)
        if (o == op) return true;
    return false;
}

}  // namespace

void Exec::xtrace_cond(std::string_view test) {
    std::string line = cond_negated_ ? "[[ ! " : "[[ ";
    line.append(test);
    line += " ]]";
    xtrace_line(line);
}

Outcome Exec::eval_cond(const sx::CondExpr* e, bool& result) {
    using K = sx::NodeKind;
    switch (e->kind) {
        case K::CondWord: {
            std::string s;
            Outcome r = expand_word(e->as<sx::CondWord>()->word, s, true);
            if (r != Outcome::Ok) return r;
            if (state_.opts[OptXtrace]) xtrace_cond("-n " + s);
            result = !s.empty();
            return Outcome::Ok;
        }
        case K::CondNot: {
            // set -x shows a `!` that applies to one test (not one before parentheses).
            const sx::CondExpr* inner = e->as<sx::CondNot>()->expr;
            const bool saved = cond_negated_;
            cond_negated_ = inner->kind != K::CondParen && inner->kind != K::CondNot;
            Outcome r = eval_cond(inner, result);
            cond_negated_ = saved;
            result = !result;
            return r;
        }
        case K::CondParen:
            return eval_cond(e->as<sx::CondParen>()->expr, result);
        case K::CondAnd: {
            const auto* a = e->as<sx::CondAnd>();
            Outcome r = eval_cond(a->left, result);
            if (r != Outcome::Ok || !result) return r;
            return eval_cond(a->right, result);
        }
        case K::CondOr: {
            const auto* o = e->as<sx::CondOr>();
            Outcome r = eval_cond(o->left, result);
            if (r != Outcome::Ok || result) return r;
            return eval_cond(o->right, result);
        }
        case K::CondUnary: {
            const auto* u = e->as<sx::CondUnary>();
            std::string arg;
            Outcome r = expand_word(u->arg, arg, true);
            if (r != Outcome::Ok) return r;
            if (state_.opts[OptXtrace]) xtrace_cond(std::string(u->op) + " " + arg);
            bool known = true;
            result = unary_test(u->op, arg, known);
            if (!known) {
                error("unexpected argument `" + std::string(u->op) + "' to conditional unary operator");
                return Outcome::Fail;
            }
            return Outcome::Ok;
        }
        case K::CondBinary: {
            const auto* b = e->as<sx::CondBinary>();
            std::string left;
            Outcome r = expand_word(b->left, left, true);
            if (r != Outcome::Ok) return r;
            std::string_view op = b->op;
            const BinaryOp kind = binary_op(op);
            if (kind == BinaryOp::Match || kind == BinaryOp::NoMatch) {
                std::string pat;
                r = expand_pattern(b->right, pat, true);  // `[[ $x == ~/* ]]`: the tilde expands
                if (r != Outcome::Ok) return r;
                if (state_.opts[OptXtrace]) xtrace_cond(left + " " + std::string(op) + " " + pat);
                PatternOptions po;
                po.nocase = state_.opts[ShNocasematch];
                po.bytes = bytes_locale_for(pat, left);
                po.extglob = true;
                bool m = pattern_match(pat, left, po);
                result = kind == BinaryOp::NoMatch ? !m : m;
                return Outcome::Ok;
            }
            if (kind == BinaryOp::Regex) {
                // Quoted parts of the right side match literally.
                std::string re;
                if (b->right) {
                    bool first = true;
                    for (const sx::Node* p : b->right->parts) {
                        // A leading ~ or ~user expands, and the directory matches literally.
                        if (first && p->kind == sx::NodeKind::Lit && p->as<sx::Lit>()->text.starts_with('~')) {
                            std::string_view t = p->as<sx::Lit>()->text;
                            size_t end = std::min(t.find('/'), t.size());
                            bool ok = false;
                            std::string home = tilde_prefix(t.substr(1, end - 1), ok);
                            if (ok) {
                                regex_escape(re, home);
                                re.append(t.substr(end));
                                first = false;
                                continue;
                            }
                        }
                        first = false;
                        bool q = p->kind == sx::NodeKind::SglQuoted || p->kind == sx::NodeKind::DblQuoted ||
                                 p->kind == sx::NodeKind::Escaped || p->kind == sx::NodeKind::AnsiCQuoted;
                        FieldBuilder fb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
                        r = expand_part(p, fb, false);
                        if (r != Outcome::Ok) return r;
                        if (q)
                            regex_escape(re, fb.text());
                        else
                            re += fb.text();
                    }
                }
                if (state_.opts[OptXtrace]) xtrace_cond(left + " =~ " + re);
                RegexOptions ro;
                ro.icase = state_.opts[ShNocasematch];
                Regex rx = Regex::compile(re, RegexSyntax::kExtended, ro);
                if (!rx.ok()) {
                    result = false;
                    state_.status = 2;
                    return Outcome::Fail;
                }
                std::vector<RegexSpan> spans;
                result = rx.search(left, spans, 0);
                Var& v = state_.vars.lookup_or_create("BASH_REMATCH");
                if (!v.readonly()) {
                    v.attrs = (v.attrs & ~kAttrAssoc) | kAttrIndexed;
                    v.str_mut().clear();
                    auto arr = std::make_shared<IndexedArray>();
                    if (result)
                        for (size_t i = 0; i < spans.size(); ++i) {
                            if (spans[i].matched())
                                arr->slot(static_cast<int64_t>(i)) =
                                    left.substr(static_cast<size_t>(spans[i].begin),
                                                static_cast<size_t>(spans[i].end - spans[i].begin));
                            else
                                arr->slot(static_cast<int64_t>(i)) = "";
                        }
                    v.idx = std::move(arr);
                    v.set = true;
                }
                return Outcome::Ok;
            }
            std::string right;
            r = expand_word(b->right, right, true);
            if (r != Outcome::Ok) return r;
            if (state_.opts[OptXtrace]) xtrace_cond(left + " " + std::string(op) + " " + right);
            if (kind == BinaryOp::Less) {
                result = left < right;
                return Outcome::Ok;
            }
            if (kind == BinaryOp::Greater) {
                result = left > right;
                return Outcome::Ok;
            }
            if (kind == BinaryOp::FileCompare) {
                result = file_compare(*this, op, left, right);
                return Outcome::Ok;
            }
            int64_t a = 0, c = 0;
            r = arith_text(left, a, false);
            if (r != Outcome::Ok) return r;
            r = arith_text(right, c, false);
            if (r != Outcome::Ok) return r;
            if (kind == BinaryOp::Unknown) {
                error("unexpected argument to conditional binary operator");
                return Outcome::Fail;
            }
            result = compare_numbers(kind, a, c);
            return Outcome::Ok;
        }
        default:
            result = false;
            return Outcome::Ok;
    }
}

// ---------------------------------------------------------------- test / [

namespace {

struct TestParser {
    Exec& ex;
    std::span<const std::string> args;
    std::string_view name;
    size_t pos = 0;
    bool failed = false;
    std::string msg;

    bool fail(std::string m) {
        if (!failed) {
            failed = true;
            msg = std::move(m);
        }
        return false;
    }

    bool int_arg(const std::string& s, int64_t& v) {
        if (!parse_int(s, v)) return fail(s + ": integer expression expected");
        return true;
    }

    bool binary(const std::string& a, std::string_view op, const std::string& b) {
        const BinaryOp kind = binary_op(op);
        if (kind == BinaryOp::Match) return a == b;
        if (kind == BinaryOp::NoMatch) return a != b;
        if (kind == BinaryOp::Less) return a < b;
        if (kind == BinaryOp::Greater) return a > b;
        if (kind == BinaryOp::FileCompare) return file_compare(ex, op, a, b);
        int64_t x = 0, y = 0;
        if (!int_arg(a, x) || !int_arg(b, y)) return false;
        if (kind == BinaryOp::Unknown || kind == BinaryOp::Regex) return fail(std::string(op) + ": binary operator expected");
        return compare_numbers(kind, x, y);
    }

    bool unary(std::string_view op, const std::string& a) {
        bool known = true;
        bool r = ex.unary_test(op, a, known);
        if (!known) return fail(std::string(op) + ": unary operator expected");
        return r;
    }

    // Full grammar: or_expr := and_expr (-o and_expr)*
    bool expr() {
        bool v = and_expr();
        while (pos < args.size() && args[pos] == "-o") {
            ++pos;
            bool r = and_expr();
            v = v || r;
        }
        return v;
    }
    bool and_expr() {
        bool v = not_expr();
        while (pos < args.size() && args[pos] == "-a") {
            ++pos;
            bool r = not_expr();
            v = v && r;
        }
        return v;
    }
    bool not_expr() {
        if (pos < args.size() && args[pos] == "!") {
            ++pos;
            return !not_expr();
        }
        return primary();
    }
    bool primary() {
        if (pos >= args.size()) return fail("argument expected");
        const std::string& a = args[pos];
        if (a == "(") {
            ++pos;
            bool v = expr();
            // bash names what it found instead (the closing ] of `[` too, which is not an argument here).
            if (pos >= args.size() || args[pos] != ")") {
                if (pos < args.size()) return fail("`)' expected, found " + args[pos]);
                return fail(name == "[" ? "`)' expected, found ]" : "`)' expected");
            }
            ++pos;
            return v;
        }
        if (pos + 2 < args.size() + 0 && is_binary_op(args[pos + 1])) {
            const std::string& op = args[pos + 1];
            const std::string& b = args[pos + 2];
            pos += 3;
            return binary(a, op, b);
        }
        if (a.size() == 2 && a[0] == '-' && pos + 1 < args.size()) {
            bool known = true;
            std::string arg = args[pos + 1];
            bool r = ex.unary_test(a, arg, known);
            if (known) {
                pos += 2;
                return r;
            }
        }
        ++pos;
        return !a.empty();
    }

    bool eval_n(size_t n);
};

bool TestParser::eval_n(size_t n) {
    // POSIX rules by argument count.
    const auto& a = args;
    size_t b = pos;
    switch (n) {
        case 0:
            return false;
        case 1:
            pos += 1;
            return !a[b].empty();
        case 2:
            if (a[b] == "!") {
                pos += 2;
                return a[b + 1].empty();
            }
            pos += 2;
            return unary(a[b], a[b + 1]);
        case 3:
            if (is_binary_op(a[b + 1])) {
                pos += 3;
                return binary(a[b], a[b + 1], a[b + 2]);
            }
            if (a[b + 1] == "-a" || a[b + 1] == "-o") {
                pos += 3;
                bool l = !a[b].empty(), r = !a[b + 2].empty();
                return a[b + 1] == "-a" ? (l && r) : (l || r);
            }
            if (a[b] == "!") {
                pos += 1;
                return !eval_n(2);
            }
            if (a[b] == "(" && a[b + 2] == ")") {
                pos += 3;
                return !a[b + 1].empty();
            }
            return fail(a[b + 1] + ": binary operator expected");
        case 4:
            if (a[b] == "!") {
                pos += 1;
                return !eval_n(3);
            }
            if (a[b] == "(" && a[b + 3] == ")") {
                pos += 1;
                bool v = eval_n(2);
                pos += 1;
                return v;
            }
            [[fallthrough]];
        default: {
            bool v = expr();
            if (!failed && pos < args.size()) {
                const std::string& extra = args[pos];
                fail(extra.starts_with('-') ? "syntax error: `" + extra + "' unexpected" : "too many arguments");
            }
            return v;
        }
    }
}

}  // namespace

int Exec::test_command(std::span<const std::string> args, std::string_view name) {
    TestParser p{*this, args, name, 0, false, {}};
    bool v = p.eval_n(args.size());
    if (p.failed) {
        error(std::string(name) + ": " + p.msg);
        return 2;
    }
    return v ? 0 : 1;
}

}  // namespace bashkit::interp

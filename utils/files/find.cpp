// find: GNU findutils' expression language over the virtual filesystem.
//
// Order: GNU find walks directories in readdir order. The sandbox's filesystems have no meaningful
// order of their own, so entries are visited sorted by name (byte order), which makes output
// deterministic; pipe through sort when comparing with the host.
#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"
#include "interp/pattern.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::files {

namespace {

constexpr int kMaxExprDepth = 200;
constexpr int kMaxWalkDepth = 4096;
constexpr size_t kExecBatchArgs = 4096;
constexpr size_t kExecBatchBytes = 128 * 1024;

enum class Kind {
    And, Or, Not, Comma, True, False,
    Name, IName, Path, IPath, Regex, Type, XType, Size, Newer, Empty, Perm, Time, Links, Uid, Gid, Inum,
    Readable, Writable, Executable, LName, ILName, SameFile,
    Print, Print0, Printf, Fprint, Delete, Prune, Exec, ExecPlus, Quit, Ls,
};

enum class Cmp { Eq, Gt, Lt };

struct Node {
    Kind kind;
    std::vector<std::unique_ptr<Node>> kids;  // operands of And/Or/Comma (n-ary, so long chains stay flat), Not
    std::string text;                         // pattern, printf format
    std::optional<interp::Pattern> pattern;
    std::optional<interp::Regex> regex;
    std::string types;                        // -type letters
    Cmp cmp = Cmp::Eq;
    int64_t num = 0;                          // size units / links / ids / time amount
    int64_t unit = 1;                         // -size unit in bytes
    char time_field = 'm';                    // a c m
    int64_t time_unit = 86400;                // seconds per unit (days or minutes)
    vfs::TimeSpec ref{};                      // -newer
    vfs::Mode mode = 0;
    char perm_kind = '=';                     // '=' exact, '-' all, '/' any
    std::vector<std::string> argv;            // -exec command with {} markers
    std::vector<std::string> pending;         // -exec + batch
    size_t pending_bytes = 0;
    uint64_t dev = 0, ino = 0;                // -samefile
    explicit Node(Kind k) : kind(k) {}
};

using NodePtr = std::unique_ptr<Node>;

enum class Follow { Never, CommandLine, Always };

struct FindEntry {
    std::string path;     // as printed
    std::string abs;
    std::string start;    // the starting point it was found under
    int depth = 0;
    vfs::Stat st{};       // per the follow mode
    vfs::Stat lst{};      // lstat
    bool have_st = false;
};

class Find {
public:
    explicit Find(CommandContext& ctx) : ctx_(ctx), out_(ctx) {}
    int run();

private:
    // ---- parsing
    bool parse(std::vector<std::string> args);
    NodePtr parse_comma(int depth);
    NodePtr parse_or(int depth);
    NodePtr parse_and(int depth);
    NodePtr parse_not(int depth);
    NodePtr parse_primary(int depth);
    bool at_end() const { return pos_ >= args_.size(); }
    const std::string& peek() const { return args_[pos_]; }
    bool need_arg(const std::string& pred) {
        if (at_end()) {
            fail("missing argument to `" + pred + "'");
            return false;
        }
        return true;
    }
    void fail(const std::string& msg) {
        if (error_.empty()) error_ = msg;
    }
    bool parse_number(const std::string& pred, const std::string& arg, Node& n, bool allow_sign);
    bool has_action(const Node* n) const;

    // ---- evaluation
    bool eval(Node& n, FindEntry& e, bool& prune);
    void walk(const std::string& path, const std::string& abs, const std::string& start, int depth,
              std::vector<std::pair<uint64_t, uint64_t>>& ancestors);
    bool run_exec(Node& n, const std::vector<std::string>& paths);
    void flush_exec(Node& n);
    void flush_all_exec(Node* n);
    std::string printf_expand(const std::string& fmt, const FindEntry& e);
    std::string ls_line(const FindEntry& e);
    void report(const std::string& msg) {
        out_.flush();
        ctx_.error(msg);
        status_ = 1;
    }

    CommandContext& ctx_;
    Output out_;
    std::vector<std::string> args_;
    size_t pos_ = 0;
    std::string error_;
    std::vector<std::string> paths_;
    NodePtr expr_;
    Follow follow_ = Follow::Never;
    int maxdepth_ = -1, mindepth_ = 0;
    bool depth_first_ = false;
    bool quit_ = false;
    int status_ = 0;
    vfs::TimeSpec now_{};
    std::vector<Node*> exec_plus_;
    std::string text_regextype_;
};

// ------------------------------------------------------------------------------------------ parsing

bool is_expr_start(const std::string& a) {
    if (a.empty()) return false;
    if (a == "(" || a == "!" || a == ")" || a == ",") return true;
    return a[0] == '-' && a.size() > 1;
}

bool Find::parse(std::vector<std::string> args) {
    size_t i = 1;
    // Leading -H -L -P -D... options.
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-H") follow_ = Follow::CommandLine;
        else if (a == "-L") follow_ = Follow::Always;
        else if (a == "-P") follow_ = Follow::Never;
        else if (a == "--") { ++i; break; }
        else break;
    }
    for (; i < args.size() && !is_expr_start(args[i]); ++i) paths_.push_back(args[i]);
    args_.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    if (args_.empty()) {
        expr_ = std::make_unique<Node>(Kind::True);
    } else {
        expr_ = parse_comma(0);
        if (error_.empty() && !at_end()) {
            if (peek() == ")") fail("you have too many ')'");
            else fail("paths must precede expression: `" + peek() + "'");
        }
        if (!error_.empty()) return false;
        if (!expr_) expr_ = std::make_unique<Node>(Kind::True);
    }
    if (!has_action(expr_.get())) {
        auto all = std::make_unique<Node>(Kind::And);
        all->kids.push_back(std::move(expr_));
        all->kids.push_back(std::make_unique<Node>(Kind::Print));
        expr_ = std::move(all);
    }
    if (paths_.empty()) paths_.push_back(".");
    return true;
}

bool Find::has_action(const Node* n) const {
    if (!n) return false;
    switch (n->kind) {
        case Kind::Print: case Kind::Print0: case Kind::Printf: case Kind::Fprint: case Kind::Delete:
        case Kind::Exec: case Kind::ExecPlus: case Kind::Quit: case Kind::Ls:
            return true;
        default:
            for (const auto& k : n->kids)
                if (has_action(k.get())) return true;
            return false;
    }
}

// Joins left and right under an n-ary node of kind k, extending left when it is already one.
NodePtr combine(Kind k, NodePtr left, NodePtr right) {
    if (left->kind == k) {
        left->kids.push_back(std::move(right));
        return left;
    }
    auto n = std::make_unique<Node>(k);
    n->kids.push_back(std::move(left));
    n->kids.push_back(std::move(right));
    return n;
}

NodePtr Find::parse_comma(int depth) {
    NodePtr left = parse_or(depth);
    while (left && error_.empty() && !at_end() && peek() == ",") {
        ++pos_;
        NodePtr right = parse_or(depth);
        if (!right) {
            if (error_.empty()) fail("expected an expression after ','");
            return nullptr;
        }
        left = combine(Kind::Comma, std::move(left), std::move(right));
    }
    return left;
}

NodePtr Find::parse_or(int depth) {
    NodePtr left = parse_and(depth);
    while (error_.empty() && !at_end() && (peek() == "-o" || peek() == "-or")) {
        std::string op = peek();
        if (!left) {
            fail("invalid expression; you have used a binary operator '" + op + "' with nothing before it.");
            return nullptr;
        }
        ++pos_;
        NodePtr right = parse_and(depth);
        if (!right) {
            if (error_.empty()) fail("expected an expression after '" + op + "'");
            return nullptr;
        }
        left = combine(Kind::Or, std::move(left), std::move(right));
    }
    return left;
}

NodePtr Find::parse_and(int depth) {
    NodePtr left;
    while (error_.empty() && !at_end()) {
        const std::string& t = peek();
        if (t == ")" || t == "-o" || t == "-or" || t == ",") break;
        if (t == "-a" || t == "-and") {
            if (!left) {
                fail("invalid expression; you have used a binary operator '" + t + "' with nothing before it.");
                return nullptr;
            }
            std::string op = t;
            ++pos_;
            if (at_end() || peek() == ")" || peek() == "-o" || peek() == "-or" || peek() == ",") {
                fail("expected an expression after '" + op + "'");
                return nullptr;
            }
        }
        NodePtr right = parse_not(depth);
        if (!right) return nullptr;
        if (!left) {
            left = std::move(right);
        } else {
            left = combine(Kind::And, std::move(left), std::move(right));
        }
    }
    return left;
}

NodePtr Find::parse_not(int depth) {
    if (depth > kMaxExprDepth) {
        fail("expression nested too deeply");
        return nullptr;
    }
    const std::string t = peek();
    if (t == "!" || t == "-not") {
        ++pos_;
        if (at_end() || peek() == ")" || peek() == "-o" || peek() == "-or" || peek() == "-a" || peek() == "-and") {
            fail("expected an expression after '" + t + "'");
            return nullptr;
        }
        NodePtr inner = parse_not(depth + 1);
        if (!inner) return nullptr;
        auto n = std::make_unique<Node>(Kind::Not);
        n->kids.push_back(std::move(inner));
        return n;
    }
    if (t == "(") {
        ++pos_;
        if (!at_end() && peek() == ")") {
            fail("invalid expression; empty parentheses are not allowed.");
            return nullptr;
        }
        NodePtr inner = parse_comma(depth + 1);
        if (!error_.empty()) return nullptr;
        if (at_end() || peek() != ")") {
            fail("invalid expression; I was expecting to find a ')' somewhere but did not see one.");
            return nullptr;
        }
        ++pos_;
        return inner;
    }
    return parse_primary(depth);
}

bool Find::parse_number(const std::string& pred, const std::string& arg, Node& n, bool allow_sign) {
    std::string_view v = arg;
    n.cmp = Cmp::Eq;
    if (allow_sign && !v.empty() && (v[0] == '+' || v[0] == '-')) {
        n.cmp = v[0] == '+' ? Cmp::Gt : Cmp::Lt;
        v.remove_prefix(1);
    }
    if (v.empty() || v.size() > 18) {
        fail("invalid argument `" + arg + "' to `" + pred + "'");
        return false;
    }
    int64_t x = 0;
    for (char c : v) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            fail("invalid argument `" + arg + "' to `" + pred + "'");
            return false;
        }
        x = x * 10 + (c - '0');
    }
    n.num = x;
    return true;
}

// Emacs regex syntax (find's default) to ERE: \( \) \| are operators, ( ) | { } are literal.
std::string emacs_to_ere(std::string_view p) {
    std::string out;
    for (size_t i = 0; i < p.size(); ++i) {
        char c = p[i];
        if (c == '[') {
            size_t j = i + 1;
            if (j < p.size() && p[j] == '^') ++j;
            if (j < p.size() && p[j] == ']') ++j;
            while (j < p.size() && p[j] != ']') {
                if (p[j] == '[' && j + 1 < p.size() && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
                    size_t close = p.find(std::string{p[j + 1], ']'}, j + 2);
                    j = close == std::string_view::npos ? p.size() : close + 2;
                    continue;
                }
                ++j;
            }
            if (j >= p.size()) {
                out.append(p.substr(i));
                break;
            }
            out.append(p.substr(i, j - i + 1));
            i = j;
            continue;
        }
        if (c == '\\' && i + 1 < p.size()) {
            char d = p[++i];
            if (d == '(' || d == ')' || d == '|') out.push_back(d);
            else {
                out.push_back('\\');
                out.push_back(d);
            }
            continue;
        }
        if (c == '(' || c == ')' || c == '|' || c == '{' || c == '}') {
            out.push_back('\\');
            out.push_back(c);
            continue;
        }
        out.push_back(c);
    }
    return out;
}

NodePtr Find::parse_primary(int depth) {
    (void)depth;
    const std::string pred = args_[pos_++];
    auto node = [](Kind k) { return std::make_unique<Node>(k); };
    if (pred.empty() || pred[0] != '-' || pred.size() < 2) {
        fail("paths must precede expression: `" + pred + "'");
        return nullptr;
    }
    // Options (always true).
    if (pred == "-maxdepth" || pred == "-mindepth") {
        if (!need_arg(pred)) return nullptr;
        const std::string v = args_[pos_++];
        bool ok = !v.empty() && v.size() < 10 &&
                  std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        if (!ok) {
            fail("Expected a positive decimal integer argument to " + pred + ", but got '" + v + "'");
            return nullptr;
        }
        (pred == "-maxdepth" ? maxdepth_ : mindepth_) = std::stoi(v);
        return node(Kind::True);
    }
    if (pred == "-depth" || pred == "-d") {
        depth_first_ = true;
        return node(Kind::True);
    }
    if (pred == "-follow") {
        follow_ = Follow::Always;
        return node(Kind::True);
    }
    if (pred == "-xdev" || pred == "-mount" || pred == "-noleaf" || pred == "-ignore_readdir_race" ||
        pred == "-noignore_readdir_race" || pred == "-nowarn" || pred == "-warn" || pred == "-daystart")
        return node(Kind::True);
    if (pred == "-regextype") {
        if (!need_arg(pred)) return nullptr;
        text_regextype_ = args_[pos_++];
        if (text_regextype_ != "emacs" && text_regextype_ != "posix-extended" && text_regextype_ != "posix-egrep" &&
            text_regextype_ != "egrep" && text_regextype_ != "posix-basic" && text_regextype_ != "grep" &&
            text_regextype_ != "findutils-default" && text_regextype_ != "gnu-awk" && text_regextype_ != "awk" &&
            text_regextype_ != "posix-awk" && text_regextype_ != "sed") {
            fail("Unknown regular expression type " + quote(text_regextype_) +
                 "; valid types are 'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', 'posix-awk', 'awk', "
                 "'posix-basic', 'posix-egrep', 'egrep', 'posix-extended', 'posix-minimal-basic', 'sed'.");
            return nullptr;
        }
        return node(Kind::True);
    }
    if (pred == "-true") return node(Kind::True);
    if (pred == "-false") return node(Kind::False);
    if (pred == "-name" || pred == "-iname" || pred == "-path" || pred == "-ipath" || pred == "-wholename" ||
        pred == "-iwholename" || pred == "-lname" || pred == "-ilname") {
        if (!need_arg(pred)) return nullptr;
        bool icase = pred[1] == 'i';
        Kind k = (pred == "-name" || pred == "-iname")       ? (icase ? Kind::IName : Kind::Name)
                 : (pred == "-lname" || pred == "-ilname") ? (icase ? Kind::ILName : Kind::LName)
                                                           : (icase ? Kind::IPath : Kind::Path);
        auto n = node(k);
        n->text = args_[pos_++];
        interp::PatternOptions po;
        po.nocase = icase;
        n->pattern = interp::Pattern::compile(n->text, po);
        return n;
    }
    if (pred == "-regex" || pred == "-iregex") {
        if (!need_arg(pred)) return nullptr;
        auto n = node(Kind::Regex);
        n->text = args_[pos_++];
        interp::RegexOptions ro;
        ro.icase = pred == "-iregex";
        ro.dialect = interp::RegexDialect::kGnu;
        const std::string& rt = text_regextype_;
        if (rt == "posix-basic" || rt == "grep" || rt == "sed")
            n->regex = interp::Regex::compile(n->text, interp::RegexSyntax::kBasic, ro);
        else if (rt == "emacs" || rt == "findutils-default" || rt.empty())
            n->regex = interp::Regex::compile(emacs_to_ere(n->text), interp::RegexSyntax::kExtended, ro);
        else
            n->regex = interp::Regex::compile(n->text, interp::RegexSyntax::kExtended, ro);
        if (!n->regex->ok()) {
            fail(n->regex->message());
            return nullptr;
        }
        return n;
    }
    if (pred == "-type" || pred == "-xtype") {
        if (!need_arg(pred)) return nullptr;
        auto n = node(pred == "-type" ? Kind::Type : Kind::XType);
        const std::string v = args_[pos_++];
        if (v.empty()) {
            fail("Arguments to " + pred + " should contain at least one letter");
            return nullptr;
        }
        for (size_t i = 0; i < v.size(); ++i) {
            char c = v[i];
            if (i % 2 == 1) {
                if (c != ',') {
                    fail("Must separate multiple arguments to " + pred + " using: ','");
                    return nullptr;
                }
                continue;
            }
            if (std::string_view("bcdpflsD").find(c) == std::string_view::npos) {
                fail("Unknown argument to " + pred + ": " + std::string(1, c));
                return nullptr;
            }
            if (n->types.find(c) != std::string::npos) {
                fail("Duplicate file type '" + std::string(1, c) + "' in the argument list to " + pred + ".");
                return nullptr;
            }
            n->types.push_back(c);
        }
        if (v.back() == ',') {
            fail("Last file type in list argument to " + pred + " is missing, i.e., list is ending on: ','");
            return nullptr;
        }
        return n;
    }
    if (pred == "-size") {
        if (!need_arg(pred)) return nullptr;
        auto n = node(Kind::Size);
        std::string v = args_[pos_++];
        std::string num = v;
        n->unit = 512;
        if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back()))) {
            char u = v.back();
            num.pop_back();
            switch (u) {
                case 'b': n->unit = 512; break;
                case 'c': n->unit = 1; break;
                case 'w': n->unit = 2; break;
                case 'k': n->unit = 1024; break;
                case 'M': n->unit = 1024 * 1024; break;
                case 'G': n->unit = 1024 * 1024 * 1024; break;
                default:
                    fail("invalid -size type `" + std::string(1, u) + "'");
                    return nullptr;
            }
        }
        if (!parse_number(pred, num, *n, true)) {
            error_ = "invalid -size type `" + v + "'";
            if (!num.empty() && std::all_of(num.begin() + (num[0] == '+' || num[0] == '-'), num.end(),
                                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
                error_ = "invalid argument `" + v + "' to `-size'";
            return nullptr;
        }
        return n;
    }
    if (pred == "-empty") return node(Kind::Empty);
    if (pred == "-readable") return node(Kind::Readable);
    if (pred == "-writable") return node(Kind::Writable);
    if (pred == "-executable") return node(Kind::Executable);
    if (pred == "-newer" || pred == "-anewer" || pred == "-cnewer" || pred == "-samefile") {
        if (!need_arg(pred)) return nullptr;
        const std::string f = args_[pos_++];
        std::string abs = ctx_.resolve(f);
        auto st = follow_ == Follow::Never ? ctx_.fs.lstat(abs) : ctx_.fs.stat(abs);
        if (!st) {
            fail(quote(f) + ": " + std::string(errstr(st.error())));
            return nullptr;
        }
        if (pred == "-samefile") {
            auto n = node(Kind::SameFile);
            n->dev = st->dev;
            n->ino = st->ino;
            return n;
        }
        auto n = node(Kind::Newer);
        n->ref = st->mtime;
        n->time_field = pred == "-anewer" ? 'a' : (pred == "-cnewer" ? 'c' : 'm');
        return n;
    }
    if (pred == "-mtime" || pred == "-atime" || pred == "-ctime" || pred == "-mmin" || pred == "-amin" ||
        pred == "-cmin") {
        if (!need_arg(pred)) return nullptr;
        auto n = node(Kind::Time);
        n->time_field = pred[1];
        n->time_unit = pred.substr(2) == "min" ? 60 : 86400;
        if (!parse_number(pred, args_[pos_++], *n, true)) return nullptr;
        return n;
    }
    if (pred == "-links" || pred == "-inum" || pred == "-uid" || pred == "-gid") {
        if (!need_arg(pred)) return nullptr;
        Kind k = pred == "-links" ? Kind::Links : pred == "-inum" ? Kind::Inum : pred == "-uid" ? Kind::Uid : Kind::Gid;
        auto n = node(k);
        if (!parse_number(pred, args_[pos_++], *n, true)) return nullptr;
        return n;
    }
    if (pred == "-user" || pred == "-group") {
        if (!need_arg(pred)) return nullptr;
        const std::string v = args_[pos_++];
        auto n = node(pred == "-user" ? Kind::Uid : Kind::Gid);
        n->cmp = Cmp::Eq;
        const std::string* u = ctx_.env.get("USER");
        std::string me = (u && !u->empty()) ? *u : "user";
        if (v == "root") n->num = 0;
        else if (v == me) n->num = 1000;
        else if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) && v.size() < 10)
            n->num = std::stoll(v);
        else {
            fail(quote(v) + " is not the name of a known " + (pred == "-user" ? "user" : "group"));
            return nullptr;
        }
        return n;
    }
    if (pred == "-nouser" || pred == "-nogroup") return node(Kind::False);
    if (pred == "-perm") {
        if (!need_arg(pred)) return nullptr;
        auto n = node(Kind::Perm);
        std::string v = args_[pos_++];
        std::string m = v;
        if (!m.empty() && (m[0] == '-' || m[0] == '/' || m[0] == '+')) {
            n->perm_kind = m[0] == '+' ? '/' : m[0];
            m.erase(0, 1);
        }
        auto mode = parse_mode(m, 0, false, 0);
        if (!mode) {
            fail("invalid mode " + quote(v));
            return nullptr;
        }
        n->mode = *mode;
        return n;
    }
    if (pred == "-print") return node(Kind::Print);
    if (pred == "-print0") return node(Kind::Print0);
    if (pred == "-printf" || pred == "-fprint") {
        if (!need_arg(pred)) return nullptr;
        auto n = node(pred == "-printf" ? Kind::Printf : Kind::Fprint);
        n->text = args_[pos_++];
        return n;
    }
    if (pred == "-ls") return node(Kind::Ls);
    if (pred == "-delete") {
        depth_first_ = true;
        return node(Kind::Delete);
    }
    if (pred == "-prune") return node(Kind::Prune);
    if (pred == "-quit") return node(Kind::Quit);
    if (pred == "-exec" || pred == "-ok") {
        auto n = node(Kind::Exec);
        bool plus = false;
        bool terminated = false;
        size_t start = pos_;
        while (!at_end()) {
            const std::string& a = args_[pos_++];
            if (a == ";") {
                terminated = true;
                break;
            }
            if (a == "+" && pos_ - 1 > start && args_[pos_ - 2] == "{}") {
                plus = true;
                terminated = true;
                break;
            }
            n->argv.push_back(a);
        }
        if (!terminated || n->argv.empty()) {
            fail("missing argument to `" + pred + "'");
            return nullptr;
        }
        if (plus) {
            n->kind = Kind::ExecPlus;
            n->argv.pop_back();  // the {} before +
            for (const auto& a : n->argv)
                if (a.find("{}") != std::string::npos) {
                    fail("Only one instance of {} is supported with -exec" + std::string(pred == "-ok" ? "" : "") +
                         " ... +");
                    return nullptr;
                }
            exec_plus_.push_back(n.get());
        }
        if (!ctx_.runner) {
            fail("cannot run commands here (-exec needs a command runner)");
            return nullptr;
        }
        return n;
    }
    if (pred == "-execdir" || pred == "-okdir") {
        fail("The " + pred + " action is not supported in the sandbox; use -exec");
        return nullptr;
    }
    fail("unknown predicate `" + pred + "'");
    return nullptr;
}

// ------------------------------------------------------------------------------------------ evaluation

bool cmp_num(Cmp c, int64_t value, int64_t n) {
    switch (c) {
        case Cmp::Gt: return value > n;
        case Cmp::Lt: return value < n;
        default: return value == n;
    }
}

char type_char(const vfs::Stat& st) {
    switch (st.type) {
        case vfs::FileType::regular: return 'f';
        case vfs::FileType::directory: return 'd';
        case vfs::FileType::symlink: return 'l';
        case vfs::FileType::char_device: return 'c';
        case vfs::FileType::block_device: return 'b';
        case vfs::FileType::fifo: return 'p';
        case vfs::FileType::socket: return 's';
        default: return 'U';
    }
}

std::string base_name(const std::string& path) {
    std::string_view p = path;
    while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
    if (p == "/") return "/";
    size_t s = p.rfind('/');
    return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

bool Find::run_exec(Node& n, const std::vector<std::string>& paths) {
    out_.flush();
    std::vector<std::string> argv;
    if (n.kind == Kind::Exec) {
        for (const auto& a : n.argv) {
            std::string s;
            for (size_t i = 0; i < a.size(); ++i) {
                if (a.compare(i, 2, "{}") == 0) {
                    s += paths[0];
                    ++i;
                } else {
                    s.push_back(a[i]);
                }
            }
            argv.push_back(std::move(s));
        }
    } else {
        argv = n.argv;
        argv.insert(argv.end(), paths.begin(), paths.end());
    }
    int st = ctx_.runner->run_command(argv, ctx_.env, ctx_.in, ctx_.out, ctx_.err);
    return st == 0;
}

void Find::flush_exec(Node& n) {
    if (n.pending.empty()) return;
    std::vector<std::string> batch;
    batch.swap(n.pending);
    n.pending_bytes = 0;
    if (!run_exec(n, batch)) status_ = 1;
}

std::string Find::ls_line(const FindEntry& e) {
    const vfs::Stat& st = e.st;
    auto rpad = [](std::string s, size_t w) { return s.size() < w ? std::string(w - s.size(), ' ') + s : s; };
    auto lpad = [](std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s; };
    std::string line = rpad(std::to_string(st.ino), 6) + " " + rpad(std::to_string((st.blocks + 1) / 2), 4) + " " +
                       mode_string(st) + " " + rpad(std::to_string(st.nlink), 3) + " " +
                       lpad(user_name(ctx_, st.uid), 8) + " " + lpad(group_name(ctx_, st.gid), 8) + " " +
                       rpad(std::to_string(st.size), 8) + " ";
    const int64_t six_months = (365 * 86400 + 86400 / 4) / 2;
    int64_t t = st.mtime.sec;
    if (t > now_.sec - six_months && t <= now_.sec + 3600)
        line += format_time("%b %e %H:%M", t);
    else
        line += format_time("%b %e  %Y", t);
    line += " " + e.path;
    if (st.is_symlink()) {
        auto l = ctx_.fs.readlink(e.abs);
        if (l) line += " -> " + *l;
    }
    return line + "\n";
}

std::string Find::printf_expand(const std::string& fmt, const FindEntry& e) {
    std::string out;
    const vfs::Stat& st = e.st;
    auto time_of = [&](char f) -> vfs::TimeSpec {
        return f == 'a' ? st.atime : (f == 'c' ? st.ctime : st.mtime);
    };
    auto frac10 = [](vfs::TimeSpec t) {
        std::string s = std::to_string(t.nsec);
        while (s.size() < 9) s.insert(s.begin(), '0');
        return s + "0";
    };
    for (size_t i = 0; i < fmt.size(); ++i) {
        char c = fmt[i];
        if (c == '\\' && i + 1 < fmt.size()) {
            char d = fmt[++i];
            switch (d) {
                case 'n': out.push_back('\n'); break;
                case 't': out.push_back('\t'); break;
                case 'r': out.push_back('\r'); break;
                case 'a': out.push_back('\a'); break;
                case 'b': out.push_back('\b'); break;
                case 'f': out.push_back('\f'); break;
                case 'v': out.push_back('\v'); break;
                case '\\': out.push_back('\\'); break;
                case 'c': return out;
                default:
                    if (d >= '0' && d <= '7') {
                        int v = d - '0', n = 1;
                        while (n < 3 && i + 1 < fmt.size() && fmt[i + 1] >= '0' && fmt[i + 1] <= '7') {
                            v = v * 8 + (fmt[++i] - '0');
                            ++n;
                        }
                        out.push_back(static_cast<char>(v));
                    } else {
                        out.push_back('\\');
                        out.push_back(d);
                    }
            }
            continue;
        }
        if (c != '%' || i + 1 >= fmt.size()) {
            out.push_back(c);
            continue;
        }
        size_t j = i + 1;
        std::string flags;
        while (j < fmt.size() && std::string_view("-+ #0").find(fmt[j]) != std::string_view::npos) flags += fmt[j++];
        size_t width = 0;
        while (j < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[j])) && width < 4096)
            width = width * 10 + static_cast<size_t>(fmt[j++] - '0');
        bool has_prec = false;
        size_t prec = 0;
        if (j < fmt.size() && fmt[j] == '.') {
            has_prec = true;
            ++j;
            while (j < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[j])) && prec < 4096)
                prec = prec * 10 + static_cast<size_t>(fmt[j++] - '0');
        }
        if (j >= fmt.size()) {
            out.append(fmt.substr(i));
            break;
        }
        char d = fmt[j];
        std::string v;
        bool numeric = false;
        switch (d) {
            case '%': v = "%"; break;
            case 'p': v = e.path; break;
            case 'f': v = base_name(e.path); break;
            case 'h': {
                std::string_view p = e.path;
                while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
                size_t s = p.rfind('/');
                if (s == std::string_view::npos) v = ".";
                else if (s == 0) v = p.size() == 1 ? "" : "/";
                else v = std::string(p.substr(0, s));
                break;
            }
            case 'P': {
                if (e.path.size() > e.start.size()) {
                    v = e.path.substr(e.start.size());
                    if (!v.empty() && v[0] == '/') v.erase(0, 1);
                }
                break;
            }
            case 'H': v = e.start; break;
            case 's': v = std::to_string(st.size); numeric = true; break;
            case 'd': v = std::to_string(e.depth); numeric = true; break;
            case 'm': {
                vfs::Mode m = st.mode & 07777;
                std::string o;
                do {
                    o.insert(o.begin(), static_cast<char>('0' + (m & 7)));
                    m >>= 3;
                } while (m);
                v = flags.find('#') != std::string::npos && o != "0" ? "0" + o : o;
                numeric = true;
                break;
            }
            case 'M': v = mode_string(st); break;
            case 'u': v = user_name(ctx_, st.uid); break;
            case 'g': v = group_name(ctx_, st.gid); break;
            case 'U': v = std::to_string(st.uid); numeric = true; break;
            case 'G': v = std::to_string(st.gid); numeric = true; break;
            case 'i': v = std::to_string(st.ino); numeric = true; break;
            case 'n': v = std::to_string(st.nlink); numeric = true; break;
            case 'k': v = std::to_string((st.blocks + 1) / 2); numeric = true; break;
            case 'b': v = std::to_string(st.blocks); numeric = true; break;
            case 'D': v = std::to_string(st.dev); numeric = true; break;
            case 'y': v = std::string(1, type_char(e.lst)); break;
            case 'Y': {
                if (e.lst.is_symlink()) {
                    auto t = ctx_.fs.stat(e.abs);
                    if (t) v = std::string(1, type_char(*t));
                    else v = t.error() == vfs::Errc::symlink_loop ? "L" : "N";
                } else {
                    v = std::string(1, type_char(e.lst));
                }
                break;
            }
            case 'l': {
                if (e.lst.is_symlink()) {
                    auto l = ctx_.fs.readlink(e.abs);
                    if (l) v = *l;
                }
                break;
            }
            case 'a': case 'c': case 't': {
                vfs::TimeSpec t = time_of(d == 't' ? 'm' : d);
                v = format_time("%a %b %e %H:%M:%S.", t.sec) + frac10(t) + format_time(" %Y", t.sec);
                break;
            }
            case 'A': case 'C': case 'T': {
                if (j + 1 >= fmt.size()) {
                    v = "";
                    break;
                }
                char k = fmt[++j];
                vfs::TimeSpec t = time_of(d == 'A' ? 'a' : (d == 'C' ? 'c' : 'm'));
                switch (k) {
                    case '@': v = std::to_string(t.sec) + "." + frac10(t); break;
                    case 'S': v = format_time("%S", t.sec) + "." + frac10(t); break;
                    case 'T': case '+':
                        v = format_time(k == '+' ? "%F+%T" : "%T", t.sec) + "." + frac10(t);
                        break;
                    case 'k': v = format_time("%H", t.sec); if (v[0] == '0') v[0] = ' '; break;
                    case 'l': {
                        int h = to_civil(t.sec).hour % 12;
                        v = std::to_string(h == 0 ? 12 : h);
                        if (v.size() < 2) v.insert(v.begin(), ' ');
                        break;
                    }
                    case 'r': v = format_time("%I:%M:%S %p", t.sec); break;
                    case 'X': v = format_time("%T", t.sec) + "." + frac10(t); break;
                    case 'x': v = format_time("%D", t.sec); break;
                    case 'c': v = format_time("%a %b %e %H:%M:%S %Y", t.sec); break;
                    case 'B': {
                        static constexpr std::string_view kFull[] = {"January", "February", "March", "April",
                                                                    "May", "June", "July", "August",
                                                                    "September", "October", "November", "December"};
                        v = std::string(kFull[to_civil(t.sec).mon - 1]);
                        break;
                    }
                    case 'A': {
                        static constexpr std::string_view kFull[] = {"Sunday", "Monday", "Tuesday", "Wednesday",
                                                                    "Thursday", "Friday", "Saturday"};
                        v = std::string(kFull[to_civil(t.sec).wday]);
                        break;
                    }
                    case 'U': case 'W': case 'V': case 'G': case 'g': case 'Z':
                        v = k == 'Z' ? "UTC" : "?";
                        break;
                    default: {
                        std::string f = "%";
                        f.push_back(k);
                        v = format_time(f, t.sec);
                    }
                }
                break;
            }
            default:
                out_.flush();
                ctx_.error("warning: unrecognized format directive `%" + std::string(1, d) + "'");
                v = "%" + std::string(1, d);
                break;
        }
        if (has_prec && !numeric) v = v.substr(0, prec);
        if (v.size() < width) {
            bool left = flags.find('-') != std::string::npos;
            // findutils zero-pads only %d and %m.
            bool zero = flags.find('0') != std::string::npos && (d == 'd' || d == 'm') && !left;
            std::string padding(width - v.size(), zero ? '0' : ' ');
            v = left ? v + padding : padding + v;
        }
        out += v;
        i = j;
    }
    return out;
}

bool Find::eval(Node& n, FindEntry& e, bool& prune) {
    const vfs::Stat& st = e.st;
    switch (n.kind) {
        case Kind::And:
            for (auto& k : n.kids)
                if (quit_ || !eval(*k, e, prune)) return false;
            return true;
        case Kind::Or:
            for (auto& k : n.kids) {
                if (quit_) return false;
                if (eval(*k, e, prune)) return true;
            }
            return false;
        case Kind::Comma: {
            bool r = false;
            for (auto& k : n.kids) {
                if (quit_) return false;
                r = eval(*k, e, prune);
            }
            return r;
        }
        case Kind::Not: return !eval(*n.kids[0], e, prune);
        case Kind::True: return true;
        case Kind::False: return false;
        case Kind::Name: case Kind::IName: return n.pattern->match(base_name(e.path));
        case Kind::Path: case Kind::IPath: return n.pattern->match(e.path);
        case Kind::LName: case Kind::ILName: {
            if (!e.lst.is_symlink()) return false;
            auto l = ctx_.fs.readlink(e.abs);
            return l && n.pattern->match(*l);
        }
        case Kind::Regex: return n.regex->match(e.path);
        case Kind::Type: return n.types.find(type_char(st)) != std::string::npos;
        case Kind::XType: {
            vfs::Stat other = st;
            if (follow_ == Follow::Never) {
                if (e.lst.is_symlink()) {
                    auto t = ctx_.fs.stat(e.abs);
                    if (t) other = *t;
                }
            } else {
                other = e.lst;
            }
            return n.types.find(type_char(other)) != std::string::npos;
        }
        case Kind::Size: {
            int64_t units = static_cast<int64_t>((st.size + static_cast<uint64_t>(n.unit) - 1) / static_cast<uint64_t>(n.unit));
            return cmp_num(n.cmp, units, n.num);
        }
        case Kind::Empty: {
            if (st.is_regular()) return st.size == 0;
            if (st.is_directory()) {
                auto ents = ctx_.fs.readdir(e.abs);
                return ents && ents->empty();
            }
            return false;
        }
        case Kind::Readable: return (st.mode & 0444) != 0;
        case Kind::Writable: return (st.mode & 0222) != 0;
        case Kind::Executable: return (st.mode & 0111) != 0;
        case Kind::Newer: {
            vfs::TimeSpec t = n.time_field == 'a' ? st.atime : (n.time_field == 'c' ? st.ctime : st.mtime);
            return t > n.ref;
        }
        case Kind::Time: {
            vfs::TimeSpec t = n.time_field == 'a' ? st.atime : (n.time_field == 'c' ? st.ctime : st.mtime);
            int64_t age = now_.sec - t.sec;
            if (now_.nsec < t.nsec) --age;
            int64_t units = age >= 0 ? age / n.time_unit : -((-age + n.time_unit - 1) / n.time_unit);
            return cmp_num(n.cmp, units, n.num);
        }
        case Kind::Links: return cmp_num(n.cmp, static_cast<int64_t>(st.nlink), n.num);
        case Kind::Inum: return cmp_num(n.cmp, static_cast<int64_t>(st.ino), n.num);
        case Kind::Uid: return cmp_num(n.cmp, st.uid, n.num);
        case Kind::Gid: return cmp_num(n.cmp, st.gid, n.num);
        case Kind::SameFile: return st.dev == n.dev && st.ino == n.ino;
        case Kind::Perm: {
            vfs::Mode m = st.mode & 07777;
            if (n.perm_kind == '-') return (m & n.mode) == n.mode;
            if (n.perm_kind == '/') return n.mode == 0 || (m & n.mode) != 0;
            return m == n.mode;
        }
        case Kind::Print: out_.put(e.path); out_.put('\n'); return true;
        case Kind::Print0: out_.put(e.path); out_.put('\0'); return true;
        case Kind::Printf: out_.put(printf_expand(n.text, e)); return true;
        case Kind::Fprint: {
            auto r = ctx_.fs.append_file(ctx_.resolve(n.text), e.path + "\n");
            if (!r) report(quote(n.text) + ": " + std::string(errstr(r.error())));
            return true;
        }
        case Kind::Ls: out_.put(ls_line(e)); return true;
        case Kind::Prune:
            if (!depth_first_) prune = true;
            return true;
        case Kind::Quit:
            quit_ = true;
            return true;
        case Kind::Delete: {
            if (e.path == "." || base_name(e.path) == ".") return true;
            auto r = e.lst.is_directory() ? ctx_.fs.rmdir(e.abs) : ctx_.fs.unlink(e.abs);
            if (!r) {
                report("cannot delete " + quote(e.path) + ": " + std::string(errstr(r.error())));
                return false;
            }
            return true;
        }
        case Kind::Exec: return run_exec(n, {e.path});
        case Kind::ExecPlus: {
            n.pending.push_back(e.path);
            n.pending_bytes += e.path.size() + 1;
            if (n.pending.size() >= kExecBatchArgs || n.pending_bytes >= kExecBatchBytes) flush_exec(n);
            return true;
        }
    }
    return false;
}

void Find::walk(const std::string& path, const std::string& abs, const std::string& start, int depth,
                std::vector<std::pair<uint64_t, uint64_t>>& ancestors) {
    if (quit_ || ctx_.cancelled() || out_.failed()) return;
    FindEntry e;
    e.path = path;
    e.abs = abs;
    e.start = start;
    e.depth = depth;
    auto l = ctx_.fs.lstat(abs);
    if (!l) {
        report(quote(path) + ": " + std::string(errstr(l.error())));
        return;
    }
    e.lst = *l;
    e.st = *l;
    bool follow = follow_ == Follow::Always || (follow_ == Follow::CommandLine && depth == 0);
    if (follow && l->is_symlink()) {
        auto t = ctx_.fs.stat(abs);
        if (t) e.st = *t;
    }
    bool is_dir = e.st.is_directory();
    bool descend = is_dir && (maxdepth_ < 0 || depth < maxdepth_) && depth < kMaxWalkDepth;
    if (is_dir && follow_ != Follow::Never) {
        for (const auto& a : ancestors)
            if (a.first == e.st.dev && a.second == e.st.ino) {
                report("File system loop detected; " + quote(path) + " is part of the same file system loop as " +
                       quote(start) + ".");
                return;
            }
    }
    bool prune = false;
    bool in_range = maxdepth_ < 0 || depth <= maxdepth_;
    if (!depth_first_ && in_range && depth >= mindepth_) {
        (void)eval(*expr_, e, prune);
        if (quit_) return;
    }
    if (descend && !prune) {
        auto ents = ctx_.fs.readdir(abs);
        if (!ents) {
            report(quote(path) + ": " + std::string(errstr(ents.error())));
        } else {
            std::vector<std::string> names;
            names.reserve(ents->size());
            for (auto& d : *ents) names.push_back(std::move(d.name));
            std::sort(names.begin(), names.end());
            ancestors.emplace_back(e.st.dev, e.st.ino);
            for (const auto& n : names) {
                std::string child = path;
                if (child.empty() || child.back() != '/') child.push_back('/');
                child += n;
                walk(child, join(abs, n), start, depth + 1, ancestors);
                if (quit_ || ctx_.cancelled() || out_.failed()) break;
            }
            ancestors.pop_back();
        }
    }
    if (depth_first_ && in_range && depth >= mindepth_ && !quit_) (void)eval(*expr_, e, prune);
}

void Find::flush_all_exec(Node* n) {
    for (Node* x : exec_plus_) flush_exec(*x);
    (void)n;
}

int Find::run() {
    if (!parse(ctx_.argv)) {
        ctx_.error(error_);
        return 1;
    }
    now_ = ctx_.clock.now();
    for (const auto& p : paths_) {
        if (quit_ || ctx_.cancelled() || out_.failed()) break;
        if (p.empty()) {
            report("'': No such file or directory");
            continue;
        }
        std::vector<std::pair<uint64_t, uint64_t>> ancestors;
        walk(p, ctx_.resolve(p), p, 0, ancestors);
    }
    out_.flush();
    flush_all_exec(expr_.get());
    return out_.status(status_);
}

int find_main(CommandContext& ctx) {
    if (ctx.argv.size() == 2 && ctx.argv[1] == "--help") {
        return print_help(ctx,
                          "Usage: find [-H] [-L] [-P] [path...] [expression]\n"
                          "\n"
                          "default path is the current directory; default expression is -print\n"
                          "expression may consist of: operators, options, tests, and actions:\n"
                          "operators (decreasing precedence; -and is implicit where no others are given):\n"
                          "      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2\n"
                          "      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2\n"
                          "normal options (always true, specified before other expressions):\n"
                          "      -depth -follow -maxdepth LEVELS -mindepth LEVELS -mount -xdev -regextype TYPE\n"
                          "tests (N can be +N or -N or N):\n"
                          "      -amin N -anewer FILE -atime N -cmin N -cnewer FILE -ctime N -empty -executable\n"
                          "      -gid N -group NAME -ilname PATTERN -iname PATTERN -inum N -ipath PATTERN\n"
                          "      -iregex PATTERN -links N -lname PATTERN -mmin N -mtime N -name PATTERN\n"
                          "      -newer FILE -path PATTERN -perm [-/]MODE -regex PATTERN -readable -writable\n"
                          "      -samefile FILE -size N[bcwkMG] -true -false -type [bcdpfls] -uid N -user NAME\n"
                          "      -xtype [bcdpfls]\n"
                          "actions: -delete -print0 -printf FORMAT -fprint FILE -print -ls -prune -quit\n"
                          "      -exec COMMAND ; -exec COMMAND {} +\n"
                          "\n"
                          "Entries are visited in name order.\n");
    }
    if (ctx.argv.size() == 2 && ctx.argv[1] == "--version") return print_help(ctx, "find (bashkit) 4.9.0\n");
    Find f(ctx);
    return f.run();
}

}  // namespace

void register_find(interp::CommandRegistry& r) {
    r.add("find", "find [-H|-L|-P] [PATH...] [EXPRESSION] (tests: -name -iname -path -ipath -wholename -regex -iregex -type -xtype -size -empty -perm -newer -anewer -cnewer -mtime -mmin -atime -amin -ctime -cmin -user -group -uid -gid -nouser -nogroup -links -inum -samefile -lname -ilname -readable -writable -executable -true -false; options: -maxdepth -mindepth -depth -daystart -follow -xdev -mount -regextype; actions: -print -print0 -printf -fprint -ls -delete -prune -quit -exec -execdir; operators: ! -not -a -and -o -or , ( )): search for files in a directory hierarchy", find_main);
}

}  // namespace bashkit::utils::files

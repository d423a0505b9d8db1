// The awk evaluator: statements, expressions, variables, fields and user functions.
#include "utils/awk/runtime.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <cstring>

#include "utils/awk/parser.hpp"

namespace bashkit::utils::awk {

namespace {

const Value kEmpty{};

bool simple_float_format(std::string_view f) {
    // %[-+ #0]*[0-9]*(.[0-9]*)?[eEfFgGaA] and nothing else
    size_t i = 0;
    if (f.empty() || f[0] != '%') return false;
    ++i;
    while (i < f.size() && std::strchr("-+ #0", f[i])) ++i;
    int w = 0;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i, ++w;
    if (i < f.size() && f[i] == '.') {
        ++i;
        while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    }
    if (i + 1 != f.size()) return false;
    return std::strchr("eEfFgGaA", f[i]) != nullptr && w < 4;
}

}  // namespace

interp::MemoryCharge*& awk_held() {
    thread_local interp::MemoryCharge* held = nullptr;
    return held;
}

std::vector<std::string> Array::keys() const {
    std::vector<std::pair<uint64_t, const std::string*>> v;
    v.reserve(map.size());
    bool all_int = true;
    for (const auto& [k, e] : map) {
        v.emplace_back(e.seq, &k);
        if (all_int) {
            if (k.empty() || k.size() > 15 || (k.size() > 1 && k[0] == '0')) {
                all_int = false;
            } else {
                for (char c : k)
                    if (c < '0' || c > '9') {
                        all_int = false;
                        break;
                    }
            }
        }
    }
    std::vector<std::string> out;
    out.reserve(v.size());
    if (all_int) {
        std::vector<std::pair<uint64_t, const std::string*>> w;
        w.reserve(v.size());
        for (auto& [s, k] : v) w.emplace_back(std::stoull(*k), k);
        std::sort(w.begin(), w.end());
        for (auto& [n, k] : w) out.push_back(*k);
        return out;
    }
    std::sort(v.begin(), v.end());
    for (auto& [s, k] : v) out.push_back(*k);
    return out;
}

Runtime::Runtime(interp::CommandContext& ctx, Program& prog, RuntimeOptions opts)
    : ctx_(ctx), prog_(prog), opts_(std::move(opts)), stdout_(ctx) {
    max_depth_ = std::max<uint32_t>(ctx.limits.max_call_depth, 1);
    globals_.resize(prog_.globals.size());
    fields_.resize(1);
    static_re_[0].resize(prog_.regexes.size());
    static_re_[1].resize(prog_.regexes.size());
    range_active_.assign(static_cast<size_t>(prog_.range_count), 0);
}

Runtime::~Runtime() = default;

void Runtime::warning(const std::string& msg) {
    flush_stdout();
    std::string line = "awk: " + opts_.source_name + ":" + std::to_string(cur_line_) + ": warning: " + msg + "\n";
    (void)ctx_.err.write(line);
}

void Runtime::fatal(const std::string& msg, int line) { throw AwkFatal{msg, line < 0 ? cur_line_ : line}; }

void Runtime::init_globals() {
    auto setn = [&](int slot, double d) {
        globals_[static_cast<size_t>(slot)].kind = Cell::kScalar;
        globals_[static_cast<size_t>(slot)].v.set_num(d);
    };
    auto sets = [&](int slot, std::string_view s) {
        globals_[static_cast<size_t>(slot)].kind = Cell::kScalar;
        globals_[static_cast<size_t>(slot)].v.set_str(s);
    };
    setn(kNR, 0);
    setn(kNF, 0);
    setn(kFNR, 0);
    sets(kFS, " ");
    sets(kOFS, " ");
    sets(kORS, "\n");
    sets(kRS, "\n");
    sets(kSUBSEP, "\034");
    sets(kCONVFMT, "%.6g");
    sets(kOFMT, "%.6g");
    setn(kRSTART, 0);
    setn(kRLENGTH, -1);
    sets(kFILENAME, "");
    setn(kIGNORECASE, 0);
    sets(kRT, "");
    sets(kFIELDWIDTHS, "");
    sets(kFPAT, "[^[:space:]]+");
    setn(kBINMODE, 0);
    setn(kLINT, 0);
    sets(kTEXTDOMAIN, "messages");
    sets(kERRNO, "");
    // ENVIRON
    Cell& env = globals_[kENVIRON];
    env.kind = Cell::kArray;
    env.arr = std::make_unique<Array>();
    for (const auto& [k, v] : ctx_.env.entries()) env.arr->get(k).set_strnum(v);
    // ARGV / ARGC
    Cell& argv = globals_[kARGV];
    argv.kind = Cell::kArray;
    argv.arr = std::make_unique<Array>();
    for (size_t i = 0; i < opts_.argv.size(); ++i) {
        Value& v = argv.arr->get(std::to_string(i));
        if (i == 0)
            v.set_str(opts_.argv[i]);
        else
            v.set_strnum(opts_.argv[i]);
    }
    setn(kARGC, static_cast<double>(opts_.argv.size()));
    Cell& pi = globals_[kPROCINFO];
    pi.kind = Cell::kArray;
    pi.arr = std::make_unique<Array>();
    pi.arr->get("version").set_str("5.2.1");
    pi.arr->get("FS").set_str("FS");
    pi.arr->get("pid").set_num(ctx_.identity ? static_cast<double>(ctx_.identity->pid) : 1000);
    pi.arr->get("ppid").set_num(ctx_.identity ? static_cast<double>(ctx_.identity->ppid) : 999);
    pi.arr->get("uid").set_num(ctx_.identity ? ctx_.identity->uid : 1000);
    pi.arr->get("gid").set_num(ctx_.identity ? ctx_.identity->gid : 1000);
    pi.arr->get("euid").set_num(ctx_.identity ? ctx_.identity->uid : 1000);
    pi.arr->get("egid").set_num(ctx_.identity ? ctx_.identity->gid : 1000);
    pi.arr->get("strftime").set_str("%a %b %e %H:%M:%S %Z %Y");
    for (auto& [name, value] : opts_.assigns) {
        auto it = prog_.global_index.find(name);
        if (it == prog_.global_index.end()) continue;  // never used by the program
        Cell& c = globals_[static_cast<size_t>(it->second)];
        if (c.kind == Cell::kArray) fatal("cannot use array `" + name + "' as a scalar", 0);
        if (prog_.function_index.count(name)) fatal("cannot use function `" + name + "' as variable name", 0);
        c.kind = Cell::kScalar;
        c.v.set_strnum(value);
        if (it->second < kSpecialCount) on_special(it->second);
    }
}

int Runtime::run() {
    int status = 0;
    // Arrays made and dropped while the program runs charge the session's budget through held_.
    struct HeldScope {
        interp::MemoryCharge* saved;
        explicit HeldScope(interp::MemoryCharge* h) : saved(awk_held()) { awk_held() = h; }
        ~HeldScope() { awk_held() = saved; }
    } held_scope(&held_);
    try {
        init_globals();
        // compile the regex literals up front so a bad one fails before anything runs
        for (size_t i = 0; i < prog_.regexes.size(); ++i) (void)static_regex(static_cast<int>(i));
        in_begin_ = true;
        bool has_begin_exit = false;
        for (auto& r : prog_.rules) {
            if (r.kind != PatternKind::Begin) continue;
            Flow f = Flow::Normal;
            try {
                f = exec(r.action);
            } catch (const FlowSignal& s) {
                f = s.flow;
            }
            if (f == Flow::Exit) {
                has_begin_exit = true;
                break;
            }
            if (f == Flow::Next || f == Flow::NextFile) fatal("`next' used in BEGIN action");
        }
        in_begin_ = false;
        if (!has_begin_exit && (prog_.has_main || prog_.has_end)) {
            in_main_ = true;
            main_loop();
        }
        if (!exiting_ || !in_end_) {
            in_end_ = true;
            exiting_ = false;
            for (auto& r : prog_.rules) {
                if (r.kind != PatternKind::End) continue;
                Flow f = Flow::Normal;
                try {
                    f = exec(r.action);
                } catch (const FlowSignal& s) {
                    f = s.flow;
                }
                if (f == Flow::Exit) break;
                if (f == Flow::Next || f == Flow::NextFile) fatal("`next' used in END action");
            }
        }
        close_all();
        flush_stdout();
        status = exit_code_;
    } catch (const AwkFatal& e) {
        try {
            flush_stdout();
        } catch (...) {
        }
        std::string where = e.line > 0 ? "awk: " + opts_.source_name + ":" + std::to_string(e.line) + ": " : "awk: ";
        if (e.line > 0 && in_main_ && !in_end_ && e.file_context) {
            std::string b;
            std::string fname(to_str(globals_[kFILENAME].v, b));
            std::string fnr;
            format_number(fnr_, "%.6g", fnr);
            where += "(FILENAME=" + (fname.empty() ? std::string("-") : fname) + " FNR=" + fnr + ") ";
        }
        (void)ctx_.err.write(where + "fatal: " + e.message + "\n");
        status = 2;
    } catch (const AwkCancelled& c) {
        status = c.status;
    }
    return status;
}

void Runtime::main_loop() {
    std::string rec, rt;
    while (true) {
        check_cancel();  // every 1024 records: reading the clock per record costs more than the record
        // With a one-character RS the record is read straight into $0 (set_record then sees it in place
        // and copies nothing); a failed read leaves it untouched, so END still sees the last record. Not with
        // BEGINFILE/ENDFILE rules, which run inside next_main_record and may change the fields.
        std::string& into = rs_mode_ == 0 && !record_dirty_ && !prog_.has_file_rules ? fields_[0].s : rec;
        if (!next_main_record(into, rt)) break;
        set_record(into);
        Flow f = Flow::Normal;
        for (auto& r : prog_.rules) {
            if (r.kind == PatternKind::Begin || r.kind == PatternKind::End || r.kind == PatternKind::BeginFile ||
                r.kind == PatternKind::EndFile)
                continue;
            try {
                if (r.pat) cur_line_ = r.pat->line;
                if (!match_pattern(r)) continue;
                if (r.action) {
                    f = exec(r.action);
                } else {
                    const Value& z = field(0);
                    print_stdout(z.s, ors_);
                }
            } catch (const FlowSignal& s) {
                f = s.flow;
            }
            if (f != Flow::Normal) break;
        }
        if (f == Flow::Exit) return;
        if (f == Flow::NextFile) {
            run_file_rules(PatternKind::EndFile);
            end_main_file();
        }
    }
}

bool Runtime::match_pattern(Rule& r) {
    switch (r.kind) {
        case PatternKind::Always:
            return true;
        case PatternKind::Expr:
            return cond(r.pat);
        case PatternKind::Range: {
            uint8_t& active = range_active_[static_cast<size_t>(r.range_index)];
            if (!active) {
                if (!cond(r.pat)) return false;
                active = 1;
            }
            if (cond(r.pat2)) active = 0;
            return true;
        }
        default:
            return false;
    }
}

// ------------------------------------------------------------------------------------------------ statements

Flow Runtime::exec_block(const std::vector<Stmt*>& list) {
    for (const Stmt* s : list) {
        Flow f = exec(s);
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

Flow Runtime::exec(const Stmt* s) {
    cur_line_ = s->line;
    switch (s->kind) {
        case SK::Block:
            return exec_block(s->list);
        case SK::Expr: {
            Value t;
            (void)eval(s->expr, t);
            return Flow::Normal;
        }
        case SK::Print:
        case SK::Printf: {
            std::string line;
            if (s->kind == SK::Print) {
                if (s->args.empty()) {
                    line = field(0).s;
                } else {
                    std::string buf;
                    for (size_t i = 0; i < s->args.size(); ++i) {
                        if (i) line += ofs_;
                        Value t;
                        const Value& v = eval(s->args[i], t);
                        if (v.type == Value::kNum) {
                            num_to_str(v.n, true, line);
                        } else {
                            line += v.s;
                        }
                    }
                }
                line += ors_;
            } else {
                std::vector<Value> args;
                args.reserve(s->args.size());
                for (const Node* a : s->args) {
                    Value t;
                    const Value& v = eval(a, t);
                    if (&v == &t)
                        args.push_back(std::move(t));
                    else
                        args.push_back(v);
                }
                std::string buf;
                std::string_view fmt = to_str(args[0], buf);
                std::string f(fmt);
                format(line, f, args, 1, s->line);
            }
            if (s->redir) {
                Value t;
                std::string buf;
                std::string name(to_str(eval(s->dest, t), buf));
                Output* o = output_for(s->redir, name);
                write_out(o, line);
            } else {
                print_stdout(line);
            }
            return Flow::Normal;
        }
        case SK::If:
            if (cond(s->expr)) return exec(s->body);
            if (s->other) return exec(s->other);
            return Flow::Normal;
        case SK::While:
            while (cond(s->expr)) {
                check_cancel();
                Flow f = exec(s->body);
                if (f == Flow::Break) break;
                if (f == Flow::Continue) continue;
                if (f != Flow::Normal) return f;
            }
            return Flow::Normal;
        case SK::Switch: {
            Value tv;
            const Value subject = eval(s->expr, tv);
            size_t start = s->list.size(), def = s->list.size();
            for (size_t i = 0; i < s->list.size(); ++i) {
                const Node* cv = s->list[i]->expr;
                if (!cv) {
                    def = i;
                    continue;
                }
                bool m;
                if (cv->kind == NK::Regex) {
                    std::string b;
                    m = re_match(cv, to_str(subject, b));
                } else {
                    Value tc;
                    m = compare(subject, eval(cv, tc)) == 0;
                }
                if (m) {
                    start = i;
                    break;
                }
            }
            if (start == s->list.size()) start = def;
            for (size_t i = start; i < s->list.size(); ++i) {
                for (Stmt* st : s->list[i]->list) {
                    Flow f = exec(st);
                    if (f == Flow::Break) return Flow::Normal;
                    if (f != Flow::Normal) return f;
                }
            }
            return Flow::Normal;
        }
        case SK::Do:
            do {
                check_cancel();
                Flow f = exec(s->body);
                if (f == Flow::Break) break;
                if (f == Flow::Continue) continue;
                if (f != Flow::Normal) return f;
            } while (cond(s->expr));
            return Flow::Normal;
        case SK::For: {
            if (s->other) {
                Flow f = exec(s->other);
                if (f != Flow::Normal) return f;
            }
            while (!s->expr || cond(s->expr)) {
                check_cancel();
                Flow f = exec(s->body);
                if (f == Flow::Break) break;
                if (f != Flow::Normal && f != Flow::Continue) return f;
                if (!s->list.empty()) (void)exec(s->list[0]);
            }
            return Flow::Normal;
        }
        case SK::ForIn: {
            Array& a = array_of(s->step);
            // The loop runs over a copy of the keys, held on the budget while it runs (nested loops add up).
            interp::MemoryCharge keys_held(ctx_.memory);
            keys_held.add(a.map.size() * (sizeof(std::string) + 16));
            std::vector<std::string> keys = sorted_keys(a);
            for (auto& k : keys) {
                check_cancel();
                if (!a.find(k)) continue;
                Value v;
                v.set_strnum(k);
                assign(s->init, std::move(v));
                Flow f = exec(s->body);
                if (f == Flow::Break) break;
                if (f == Flow::Continue) continue;
                if (f != Flow::Normal) return f;
            }
            return Flow::Normal;
        }
        case SK::Next:
            if (in_begin_ || in_end_) fatal(std::string("`next' used in ") + (in_begin_ ? "BEGIN" : "END") + " action");
            return Flow::Next;
        case SK::NextFile:
            if (in_begin_ || in_end_) fatal(std::string("`nextfile' used in ") + (in_begin_ ? "BEGIN" : "END") + " action");
            return Flow::NextFile;
        case SK::Exit:
            if (s->expr) {
                // gawk converts to a C long: a value out of its range (or NaN) is the x86 "indefinite"
                // INT64_MIN, so its status is 0 (a plain cast would be undefined behaviour).
                double d = num(s->expr);
                int64_t v = d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? static_cast<int64_t>(d)
                                                                                     : INT64_MIN;
                exit_code_ = static_cast<int>(v & 0xff);
            }
            exiting_ = true;
            return Flow::Exit;
        case SK::Return:
            if (s->expr) {
                Value t;
                const Value& v = eval(s->expr, t);
                if (&v == &t)
                    ret_ = std::move(t);
                else
                    ret_ = v;
            } else {
                ret_.set_uninit();
            }
            return Flow::Return;
        case SK::Break:
            return Flow::Break;
        case SK::Continue:
            return Flow::Continue;
        case SK::Delete: {
            Array& a = array_of(s->expr);
            if (s->args.empty()) {
                a.clear();
            } else {
                std::string key = subscript(s->args);
                a.erase(key);
            }
            return Flow::Normal;
        }
        case SK::Getline:
            return Flow::Normal;
    }
    return Flow::Normal;
}

// ------------------------------------------------------------------------------------------------ values

void Runtime::num_to_str(double d, bool output, std::string& out) {
    if (is_integral(d)) {
        format_number(d, "%d", out);
        return;
    }
    const std::string& f = output ? ofmt_ : convfmt_;
    bool simple = output ? ofmt_simple_ : convfmt_simple_;
    if (simple || std::isnan(d) || std::isinf(d)) {
        format_number(d, f, out);
        return;
    }
    std::vector<Value> args(1);
    args[0].set_num(d);
    format(out, f, args, 0, cur_line_);
}

std::string_view Runtime::to_str(const Value& v, std::string& buf) {
    switch (v.type) {
        case Value::kStr:
        case Value::kStrnum:
            return v.s;
        case Value::kUninit:
            return {};
        case Value::kNum:
            buf.clear();
            num_to_str(v.n, false, buf);
            return buf;
    }
    return {};
}

std::string_view Runtime::to_out_str(const Value& v, std::string& buf) {
    if (v.type == Value::kNum) {
        buf.clear();
        num_to_str(v.n, true, buf);
        return buf;
    }
    return v.s;
}

void Runtime::to_str_append(const Value& v, std::string& out) {
    if (v.type == Value::kNum)
        num_to_str(v.n, false, out);
    else
        out += v.s;
}

int Runtime::compare(const Value& a, const Value& b) {
    if (a.numeric() && b.numeric()) {
        double x = to_num(a), y = to_num(b);
        if (x < y) return -1;
        if (x > y) return 1;
        if (x == y) return 0;
        // NaN: gawk orders it as not equal
        return std::isnan(x) ? (std::isnan(y) ? 0 : 1) : -1;
    }
    std::string b1, b2;
    std::string_view s1 = to_str(a, b1), s2 = to_str(b, b2);
    if (icase_) {
        size_t n = std::min(s1.size(), s2.size());
        for (size_t i = 0; i < n; ++i) {
            int c1 = std::tolower(static_cast<unsigned char>(s1[i]));
            int c2 = std::tolower(static_cast<unsigned char>(s2[i]));
            if (c1 != c2) return c1 < c2 ? -1 : 1;
        }
        return s1.size() < s2.size() ? -1 : s1.size() > s2.size() ? 1 : 0;
    }
    int c = s1.compare(s2);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
}

void Runtime::subscript_into(const std::vector<Node*>& args, std::string& out) {
    out.clear();
    for (size_t i = 0; i < args.size(); ++i) {
        if (i) out += subsep_;
        Value t;
        const Value& v = eval(args[i], t);
        if (v.type == Value::kNum) {
            num_to_str(v.n, false, out);
        } else {
            out += v.s;
        }
    }
}

std::string Runtime::subscript(const std::vector<Node*>& args) {
    std::string s;
    subscript_into(args, s);
    return s;
}

// ------------------------------------------------------------------------------------------------ variables

Cell& Runtime::cell_of(const Node* n) {
    if (n->kind == NK::Var) return globals_[static_cast<size_t>(n->id)];
    return frame_->locals[static_cast<size_t>(n->id)];
}

Array& Runtime::array_of(const Node* n) {
    if (n->kind != NK::Var && n->kind != NK::Local) fatal("attempt to use a non-array as an array");
    Cell* c = &cell_of(n);
    while (c->kind == Cell::kRef) c = c->ref;
    if (c->kind == Cell::kUntyped) {
        if (n->kind == NK::Var && n->id < kSpecialCount && n->id != kENVIRON && n->id != kARGV &&
            n->id != kPROCINFO)
            fatal("attempt to use scalar `" + n->str + "' as an array");
        c->kind = Cell::kArray;
        c->arr = std::make_unique<Array>();
    } else if (c->kind == Cell::kScalar) {
        fatal("attempt to use scalar `" + n->str + "' as an array");
    }
    return *c->arr;
}

Value& Runtime::scalar_of(const Node* n) {
    Cell& c = cell_of(n);
    switch (c.kind) {
        case Cell::kScalar:
            return c.v;
        case Cell::kUntyped:
            c.kind = Cell::kScalar;
            return c.v;
        case Cell::kArray:
            fatal("attempt to use array `" + n->str + "' in a scalar context");
        case Cell::kRef: {
            Cell* t = c.ref;
            while (t->kind == Cell::kRef) t = t->ref;
            if (t->kind == Cell::kArray) fatal("attempt to use array `" + n->str + "' in a scalar context");
            c.kind = Cell::kScalar;
            c.ref = nullptr;
            if (t->kind == Cell::kScalar) c.v = t->v;
            return c.v;
        }
    }
    return c.v;
}

Value& Runtime::lref(const Node* n) {
    switch (n->kind) {
        case NK::Var:
            if (n->id == kNF && !split_done_) split_record();
            return scalar_of(n);
        case NK::Local:
            return scalar_of(n);
        case NK::Field: {
            return field_ref(field_number(num(n->a)));
        }
        case NK::Index: {
            std::string key;
            subscript_into(n->args, key);
            return array_of(n->a).get(key);
        }
        default:
            fatal("assignment to a non-lvalue");
    }
}

void Runtime::stored(const Node* n) {
    if (n->kind == NK::Var) {
        if (n->id < kSpecialCount) on_special(n->id);
    } else if (n->kind == NK::Field) {
        field_stored();
    }
}

void Runtime::field_stored() {
    {
        // field_ref marked the record; $0 assignment re-splits
        if (last_field_ == 0) {
            Value& z = fields_[0];
            if (z.type != Value::kStrnum) {
                std::string s;
                to_str_append(z, s);
                z.set_strnum(s);
            }
            std::string rec = std::move(z.s);
            set_record(rec);
        } else {
            Value& f = fields_[static_cast<size_t>(last_field_)];
            (void)f;
            record_dirty_ = true;
        }
    }
}

void Runtime::assign(const Node* lv, Value&& v) {
    Value& dst = lref(lv);
    if (lv->kind == NK::Var || lv->kind == NK::Index) {
        // Global variables and array elements hold their bytes on the budget (locals and fields are bounded
        // by the checks on the strings built for them).
        if (v.s.size() > dst.s.size()) held_.add(v.s.size() - dst.s.size());
        else held_.sub(dst.s.size() - v.s.size());
    }
    dst = std::move(v);
    stored(lv);
}

void Runtime::on_special(int slot) {
    Value& v = globals_[static_cast<size_t>(slot)].v;
    std::string buf;
    switch (slot) {
        case kNR:
            nr_ = to_num(v);
            break;
        case kFNR:
            fnr_ = to_num(v);
            break;
        case kNF: {
            double d = to_num(v);
            if (!(d >= 0)) fatal("NF set to negative value");  // NaN too, as gawk
            set_nf(d >= double(INT_MAX) ? INT_MAX : static_cast<int>(d));
            break;
        }
        case kOFS:
            // gawk rebuilds $0 when a field is assigned: a later OFS does not apply to it
            if (record_dirty_) rebuild_record();
            ofs_ = std::string(to_str(v, buf));
            break;
        case kORS:
            ors_ = std::string(to_str(v, buf));
            break;
        case kSUBSEP:
            subsep_ = std::string(to_str(v, buf));
            break;
        case kCONVFMT:
            convfmt_ = std::string(to_str(v, buf));
            convfmt_simple_ = simple_float_format(convfmt_);
            break;
        case kOFMT:
            ofmt_ = std::string(to_str(v, buf));
            ofmt_simple_ = simple_float_format(ofmt_);
            break;
        case kIGNORECASE:
            icase_ = to_bool(v);
            set_rs();
            break;
        case kRS:
            set_rs();
            break;
        case kFS:
            pending_field_mode_ = FieldMode::fs;
            break;
        case kFPAT:
            pending_field_mode_ = FieldMode::fpat;
            fpat_icase_ = icase_;  // gawk compiles FPAT when it is assigned: a later IGNORECASE does not apply
            break;
        case kFIELDWIDTHS:
            set_fieldwidths();
            pending_field_mode_ = FieldMode::widths;
            break;
        default:
            break;
    }
}

// Parses FIELDWIDTHS as gawk does: blank-separated `[SKIP:]WIDTH`, the last one may be `*` (the rest).
void Runtime::set_fieldwidths() {
    std::string buf;
    std::string_view v = to_str(globals_[kFIELDWIDTHS].v, buf);
    std::vector<std::pair<size_t, size_t>> w;
    size_t i = 0;
    auto blank = [&](size_t k) { return k < v.size() && (v[k] == ' ' || v[k] == '\t' || v[k] == '\n'); };
    auto number = [&](size_t& k, size_t& out) {
        if (k >= v.size() || v[k] < '0' || v[k] > '9') return false;
        out = 0;
        while (k < v.size() && v[k] >= '0' && v[k] <= '9') {
            out = std::min<size_t>(out * 10 + static_cast<size_t>(v[k] - '0'), size_t{1} << 40);
            ++k;
        }
        return true;
    };
    for (;;) {
        while (blank(i)) ++i;
        if (i >= v.size()) break;
        const size_t at = i;
        auto bad = [&]() {
            fatal("invalid FIELDWIDTHS value, for field " + std::to_string(w.size() + 1) + ", near `" +
                  std::string(v.substr(at)) + "'");
        };
        size_t skip = 0, width = 0;
        if (v[i] == '*') {
            ++i;
            while (blank(i)) ++i;
            if (i < v.size()) bad();
            w.emplace_back(0, SIZE_MAX);
            break;
        }
        if (!number(i, width)) bad();
        if (i < v.size() && v[i] == ':') {
            ++i;
            skip = width;
            if (i < v.size() && v[i] == '*') {
                ++i;
                width = SIZE_MAX;
            } else if (!number(i, width)) {
                bad();
            }
        }
        if (i < v.size() && !blank(i)) bad();
        w.emplace_back(skip, width);
        if (width == SIZE_MAX) {
            while (blank(i)) ++i;
            if (i < v.size()) bad();
            break;
        }
    }
    widths_ = std::move(w);
}

// gawk's FPAT splitting: each field is a match; a null match right after a non-null one is not a field.
int Runtime::split_fpat(std::string_view s, std::vector<std::string>& out) {
    out.clear();
    if (s.empty()) return 0;
    const bool saved = icase_;
    icase_ = fpat_icase_;
    const interp::Regex& re = dyn_regex(active_fpat_);
    icase_ = saved;
    std::vector<interp::RegexSpan> sp;
    size_t scan = 0;
    bool nonempty = false;
    while (scan <= s.size()) {
        if (!re.search(s, sp, scan)) break;
        const auto mb = static_cast<size_t>(sp[0].begin), me = static_cast<size_t>(sp[0].end);
        if (me == mb && nonempty && mb == scan) {
            ++scan;
            nonempty = false;
            continue;
        }
        out.emplace_back(s.substr(mb, me - mb));
        scan = me == mb ? mb + 1 : me;
        nonempty = me > mb;
    }
    return static_cast<int>(out.size());
}

int Runtime::split_widths(std::string_view s, std::vector<std::string>& out) {
    out.clear();
    size_t pos = 0;
    for (const auto& [skip, width] : widths_) {
        pos = std::min(s.size(), pos + skip);
        if (pos >= s.size()) break;
        out.emplace_back(s.substr(pos, width == SIZE_MAX ? std::string_view::npos : width));
        pos = width == SIZE_MAX ? s.size() : std::min(s.size(), pos + width);
    }
    return static_cast<int>(out.size());
}

// ------------------------------------------------------------------------------------------------ expressions

namespace {
// Whether evaluating n leaves every value the caller holds a reference to where it is. A field or NF may
// split the record, which can move every field ($0 included: `$0 < $1` held a dangling $0, found by the awk
// fuzzer).
bool pure(const Node* n) {
    switch (n->kind) {
        case NK::Num: case NK::Str: case NK::Local:
            return true;
        case NK::Var:
            return n->id != kNF;
        default:
            return false;
    }
}
}  // namespace

double Runtime::num(const Node* n) {
    switch (n->kind) {
        case NK::Num:
            return n->num;
        case NK::Var:
        case NK::Local: {
            if (n->kind == NK::Var) {
                if (n->id == kNF) {
                    if (!split_done_) split_record();
                    return nf_;
                }
                const Cell& c = globals_[static_cast<size_t>(n->id)];
                if (c.kind == Cell::kScalar) return to_num(c.v);
            }
            Value t;
            return to_num(eval(n, t));
        }
        case NK::Field: {
            return to_num(field(field_number(num(n->a))));
        }
        case NK::Binary: {
            double x = num(n->a);
            double y = num(n->b);
            switch (n->op) {
                case '+': return x + y;
                case '-': return x - y;
                case '*': return x * y;
                case '/':
                    if (y == 0) fatal("division by zero attempted", n->line);
                    return x / y;
                case '%':
                    if (y == 0) fatal("division by zero attempted in `%'", n->line);
                    return std::fmod(x, y);
                case '^': {
                    if (y == std::floor(y) && std::fabs(y) < 1024) {
                        // gawk: exact repeated multiplication for integral exponents
                        double r = 1, b = x;
                        long e = static_cast<long>(std::fabs(y));
                        while (e) {
                            if (e & 1) r *= b;
                            b *= b;
                            e >>= 1;
                        }
                        return y < 0 ? 1 / r : r;
                    }
                    return std::pow(x, y);
                }
            }
            return 0;
        }
        case NK::Neg:
            return -num(n->a);
        case NK::UPlus:
            return num(n->a);
        case NK::Compare: case NK::Match: case NK::And: case NK::Or: case NK::Not: case NK::In: case NK::Regex:
            return cond(n) ? 1 : 0;
        default: {
            Value t;
            return to_num(eval(n, t));
        }
    }
}

bool Runtime::cond(const Node* n) {
    switch (n->kind) {
        case NK::And:
            return cond(n->a) && cond(n->b);
        case NK::Or:
            return cond(n->a) || cond(n->b);
        case NK::Not:
            return !cond(n->a);
        case NK::Compare: {
            Value ta, tb;
            const Value* a = &eval(n->a, ta);
            if (a != &ta && !pure(n->b)) {
                ta = *a;
                a = &ta;
            }
            const Value& b = eval(n->b, tb);
            int c = compare(*a, b);
            switch (n->op) {
                case '<': return c < 0;
                case 'l': return c <= 0;
                case '>': return c > 0;
                case 'g': return c >= 0;
                case '=': return c == 0;
                case '!': return c != 0;
            }
            return false;
        }
        case NK::Match: {
            Value ta;
            const Value* a = &eval(n->a, ta);
            if (a != &ta && n->b->kind != NK::Regex && !pure(n->b)) {
                ta = *a;
                a = &ta;
            }
            std::string buf;
            std::string_view text = to_str(*a, buf);
            std::string keep;
            if (a == &ta && text.data() == ta.s.data()) {
                // text lives in ta: fine
            }
            Value tr;
            const interp::Regex& re = regex_for(n->b, tr);
            bool m = re.search(text);
            return n->op == 0 ? m : !m;
        }
        case NK::In: {
            std::string key;
            subscript_into(n->args, key);
            Array& a = array_of(n->a);
            return a.find(key) != nullptr;
        }
        case NK::Regex:
            return re_match(n, field(0).s);
        case NK::Num:
            return n->num != 0;
        default: {
            Value t;
            return to_bool(eval(n, t));
        }
    }
}

const Value& Runtime::eval(const Node* n, Value& tmp) {
    switch (n->kind) {
        case NK::Num:
        case NK::Str:
            return n->cv;
        case NK::Regex:
            tmp.set_num(re_match(n, field(0).s) ? 1 : 0);
            return tmp;
        case NK::Var: {
            if (n->id == kNF && !split_done_) split_record();
            Cell& c = globals_[static_cast<size_t>(n->id)];
            if (c.kind == Cell::kScalar || c.kind == Cell::kUntyped) return c.v;
            return scalar_of(n);
        }
        case NK::Local:
            return scalar_of(n);
        case NK::Field: {
            return field(field_number(num(n->a)));
        }
        case NK::Index: {
            std::string key;
            subscript_into(n->args, key);
            return array_of(n->a).get(key);
        }
        case NK::Group: {
            // (a, b) outside `in`: the subscript string (gawk rejects it at parse time)
            tmp.set_str(subscript(n->args));
            return tmp;
        }
        case NK::Assign: {
            if (n->op == 0) {
                const Value& r = eval(n->b, tmp);
                if (&r != &tmp) tmp = r;
                if (tmp.type == Value::kUninit) {
                    // assigning an uninitialised value keeps it untyped for comparisons
                }
                Value& dst = lref(n->a);
                dst = tmp;
                stored(n->a);
                return tmp;
            }
            double y = num(n->b);
            Value& dst = lref(n->a);
            double x = to_num(dst);
            double r = 0;
            switch (n->op) {
                case '+': r = x + y; break;
                case '-': r = x - y; break;
                case '*': r = x * y; break;
                case '/':
                    if (y == 0) fatal("division by zero attempted in `/='", n->line);
                    r = x / y;
                    break;
                case '%':
                    if (y == 0) fatal("division by zero attempted in `%='", n->line);
                    r = std::fmod(x, y);
                    break;
                case '^': r = std::pow(x, y); break;
            }
            dst.set_num(r);
            stored(n->a);
            tmp.set_num(r);
            return tmp;
        }
        case NK::Cond:
            return cond(n->a) ? eval(n->b, tmp) : eval(n->c, tmp);
        case NK::And: case NK::Or: case NK::Not: case NK::Compare: case NK::Match: case NK::In:
            tmp.set_num(cond(n) ? 1 : 0);
            return tmp;
        case NK::Neg: case NK::UPlus: case NK::Binary:
            tmp.set_num(num(n));
            return tmp;
        case NK::Concat: {
            std::string s;
            for (const Node* a : n->args) {
                Value t;
                const Value& v = eval(a, t);
                // Checked before the bytes are copied: `s = s s` near the budget must fail before a
                // string twice the size exists (it peaked at twice the budget in RSS).
                if (v.type != Value::kNum) need(s.size() + v.s.size());
                to_str_append(v, s);
                need(s.size());
            }
            tmp.set_str(std::move(s));
            return tmp;
        }
        case NK::PreInc: case NK::PreDec: case NK::PostInc: case NK::PostDec: {
            Value& v = lref(n->a);
            double old = to_num(v);
            double nv = (n->kind == NK::PreInc || n->kind == NK::PostInc) ? old + 1 : old - 1;
            v.set_num(nv);
            stored(n->a);
            tmp.set_num((n->kind == NK::PreInc || n->kind == NK::PreDec) ? nv : old);
            return tmp;
        }
        case NK::Call:
            return call(n, tmp);
        case NK::Builtin:
            return builtin(n, tmp);
        case NK::Getline:
            return getline(n, tmp);
    }
    return tmp;
}

const Value& Runtime::call(const Node* n, Value& tmp) {
    const Function& f = prog_.functions[static_cast<size_t>(n->id)];
    if (static_cast<uint32_t>(call_depth_) >= max_depth_)
        fatal("function call nesting too deep (limit " + std::to_string(max_depth_) + ")");
    check_cancel();
    Frame fr;
    fr.fn = &f;
    fr.locals.resize(static_cast<size_t>(f.nparams));
    for (size_t i = 0; i < n->args.size(); ++i) {
        const Node* a = n->args[i];
        if (i >= fr.locals.size()) {
            Value t;
            (void)eval(a, t);  // extra arguments are evaluated and dropped (gawk warned at parse time)
            continue;
        }
        Cell& lc = fr.locals[i];
        if (a->kind == NK::Var || a->kind == NK::Local) {
            Cell* c = &cell_of(a);
            while (c->kind == Cell::kRef) c = c->ref;
            if (c->kind == Cell::kArray || c->kind == Cell::kUntyped) {
                if (a->kind == NK::Var && a->id < kSpecialCount && c->kind == Cell::kUntyped) {
                    // special variables are scalars
                } else {
                    lc.kind = Cell::kRef;
                    lc.ref = c;
                    continue;
                }
            }
        }
        Value t;
        const Value& v = eval(a, t);
        lc.kind = Cell::kScalar;
        lc.v = v;
    }
    Frame* saved = frame_;
    frame_ = &fr;
    ++call_depth_;
    ret_.set_uninit();
    int saved_line = cur_line_;
    Flow fl = exec(f.body);
    --call_depth_;
    frame_ = saved;
    cur_line_ = saved_line;
    if (fl == Flow::Exit || fl == Flow::Next || fl == Flow::NextFile) throw FlowSignal{fl};
    tmp = std::move(ret_);
    ret_.set_uninit();
    return tmp;
}

// ------------------------------------------------------------------------------------------------ fields

void Runtime::set_record(std::string_view text) {
    Value& z = fields_[0];
    if (text.data() != z.s.data() || text.size() != z.s.size()) z.s.assign(text.data(), text.size());
    z.type = Value::kStrnum;
    z.flags = 0;
    split_done_ = false;
    partial_started_ = false;
    record_dirty_ = false;
    field_mode_ = pending_field_mode_;
    if (field_mode_ == FieldMode::fpat) {
        std::string b;
        std::string_view f = to_str(globals_[kFPAT].v, b);
        if (active_fpat_ != f) active_fpat_ = std::string(f);
    }
    Value& fsv = globals_[kFS].v;
    if (fsv.type == Value::kNum) {
        std::string b;
        active_fs_ = std::string(to_str(fsv, b));
    } else if (active_fs_ != fsv.s) {
        active_fs_ = fsv.s;
    }
}

void Runtime::prepare_split(std::string_view fs) {
    if (!split_forced_ && split_fs_key_ == fs && split_icase_ == icase_ && (split_mode_ != 3 || split_re_)) return;
    split_forced_ = false;
    split_fs_key_ = std::string(fs);
    split_icase_ = icase_;
    split_re_ = nullptr;
    if (fs == " ") {
        split_mode_ = 0;
    } else if (fs.empty()) {
        split_mode_ = 2;
    } else if (fs.size() == 1 && fs[0] != '\\') {
        split_mode_ = 1;
        split_char_ = fs[0];  // literal, even with IGNORECASE (as gawk)
    } else {
        split_mode_ = 3;
        split_re_ = &dyn_regex(fs);
    }
}

int Runtime::split_into(std::string_view s, std::string_view fs, const interp::Regex* force_re, bool paragraph,
                        std::vector<std::string>& out, std::vector<std::string>* seps) {
    out.clear();
    if (seps) seps->clear();
    if (force_re) {
        split_mode_ = 3;
        split_re_ = force_re;
        split_forced_ = true;
    } else if (paragraph && fs != " ") {
        // in paragraph mode a newline separates fields too
        std::string re;
        if (fs.size() == 1 && fs[0] != '\\') {
            char c = fs[0];
            if (c == ']') re = "[]\n]";
            else if (c == '^' || c == '-') re = std::string("[\n") + c + "]";
            else re = std::string("[") + c + "\n]";
        } else if (!fs.empty()) {
            re = "(" + std::string(fs) + ")|\n";
        }
        prepare_split(re);
    } else {
        prepare_split(fs);
    }
    if (s.empty()) return 0;
    switch (split_mode_) {
        case 0: {
            size_t i = 0;
            auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
            size_t lead = 0;
            while (i < s.size() && blank(s[i])) ++i;
            lead = i;
            (void)lead;
            while (i < s.size()) {
                size_t b = i;
                while (i < s.size() && !blank(s[i])) ++i;
                out.emplace_back(s.substr(b, i - b));
                size_t sb = i;
                while (i < s.size() && blank(s[i])) ++i;
                if (seps && i < s.size()) seps->emplace_back(s.substr(sb, i - sb));
            }
            break;
        }
        case 1: {
            size_t b = 0;
            while (true) {
                size_t e = s.find(split_char_, b);
                if (e == std::string_view::npos) {
                    out.emplace_back(s.substr(b));
                    break;
                }
                out.emplace_back(s.substr(b, e - b));
                if (seps) seps->emplace_back(1, split_char_);
                b = e + 1;
            }
            break;
        }
        case 2:
            for (char c : s) out.emplace_back(1, c);
            break;
        case 3: {
            size_t b = 0;
            size_t from = 0;
            std::vector<interp::RegexSpan> sp;
            while (from <= s.size()) {
                if (!split_re_->search(s, sp, from)) break;
                auto mb = static_cast<size_t>(sp[0].begin), me = static_cast<size_t>(sp[0].end);
                if (me == mb) {
                    // empty match: not a separator
                    if (mb >= s.size()) break;
                    from = mb + 1;
                    continue;
                }
                out.emplace_back(s.substr(b, mb - b));
                if (seps) seps->emplace_back(s.substr(mb, me - mb));
                b = me;
                from = me;
            }
            out.emplace_back(s.substr(b));
            break;
        }
    }
    return static_cast<int>(out.size());
}

bool Runtime::split_fast(int upto) {
    if (!partial_started_) {
        if (field_mode_ != FieldMode::fs) return false;
        if (rs_mode_ == 1 && active_fs_ != " ") return false;
        prepare_split(active_fs_);
        if (split_mode_ != 0 && split_mode_ != 1) return false;
        // Kept apart from split_mode_/split_char_, which split() may change before this record is done.
        partial_started_ = true;
        partial_blanks_ = split_mode_ == 0;
        partial_char_ = split_char_;
        partial_n_ = 0;
        partial_pos_ = 0;
        // Room for every field of the record now, so fields_ never moves while the record is split in
        // steps (an expression like `$1 $5` holds a reference to $1 while $5 is split).
        const std::string& r = fields_[0].s;
        size_t bound;
        if (!partial_blanks_) {
            bound = static_cast<size_t>(std::count(r.begin(), r.end(), partial_char_)) + 1;
        } else if (r.size() <= 65536) {
            bound = (r.size() + 1) / 2;
        } else {
            bound = 0;
            bool in = false;
            for (char c : r) {
                const bool b = c == ' ' || c == '\t' || c == '\n';
                bound += !b && !in;
                in = !b;
            }
        }
        if (fields_.capacity() < bound + 2) fields_.reserve(bound + 2);
    }
    // The fields are written in place, reusing their strings' storage (no vector of new strings per
    // record). $0 is moved out while fields_ may grow.
    std::string rec = std::move(fields_[0].s);
    const char* p = rec.data();
    const size_t size = rec.size();
    auto put = [&](size_t b, size_t e) {
        ++partial_n_;
        if (fields_.size() <= static_cast<size_t>(partial_n_)) fields_.resize(static_cast<size_t>(partial_n_) + 1);
        Value& f = fields_[static_cast<size_t>(partial_n_)];
        f.type = Value::kStrnum;
        f.flags = 0;
        f.s.assign(p + b, e - b);
    };
    constexpr size_t kDone = SIZE_MAX;
    size_t i = size == 0 ? kDone : partial_pos_;
    if (partial_blanks_) {
        auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
        while (i != kDone && partial_n_ < upto) {
            while (i < size && blank(p[i])) ++i;
            if (i == size) {
                i = kDone;
                break;
            }
            const size_t b = i;
            while (i < size && !blank(p[i])) ++i;
            put(b, i);
        }
        // A record that ends in blanks has no more fields.
        if (i != kDone) {
            size_t j = i;
            while (j < size && blank(p[j])) ++j;
            if (j == size) i = kDone;
        }
    } else {
        while (i != kDone && partial_n_ < upto) {
            const void* hit = std::memchr(p + i, partial_char_, size - i);
            if (!hit) {
                put(i, size);
                i = kDone;
                break;
            }
            const size_t e = static_cast<size_t>(static_cast<const char*>(hit) - p);
            put(i, e);
            i = e + 1;
        }
    }
    fields_[0].s = std::move(rec);
    partial_pos_ = i;
    if (i == kDone) {
        split_done_ = true;
        nf_ = partial_n_;
        globals_[kNF].kind = Cell::kScalar;
        globals_[kNF].v.set_num(nf_);
    }
    return true;
}

void Runtime::split_record() {
    if (split_fast(INT_MAX)) return;
    split_done_ = true;
    static thread_local std::vector<std::string> parts;
    std::string_view s = fields_[0].s;
    int n = field_mode_ == FieldMode::fpat     ? split_fpat(s, parts)
            : field_mode_ == FieldMode::widths ? split_widths(s, parts)
                                               : split_into(s, active_fs_, nullptr, rs_mode_ == 1, parts, nullptr);
    if (fields_.size() < static_cast<size_t>(n) + 1) fields_.resize(static_cast<size_t>(n) + 1);
    for (int i = 0; i < n; ++i) {
        Value& f = fields_[static_cast<size_t>(i) + 1];
        f.type = Value::kStrnum;
        f.flags = 0;
        f.s.swap(parts[static_cast<size_t>(i)]);
    }
    nf_ = n;
    globals_[kNF].kind = Cell::kScalar;
    globals_[kNF].v.set_num(n);
}

void Runtime::rebuild_record() {
    record_dirty_ = false;
    std::string r;
    for (int i = 1; i <= nf_; ++i) {
        if (i > 1) r += ofs_;
        to_str_append(fields_[static_cast<size_t>(i)], r);
    }
    fields_[0].s = std::move(r);
    fields_[0].type = Value::kStrnum;
    fields_[0].flags = 0;
}

int Runtime::field_number(double d) {
    // gawk converts through a 64-bit integer: NaN and anything below its range are its minimum.
    if (std::isnan(d) || d < -9223372036854775808.0) d = -9223372036854775808.0;
    if (d < 0) fatal("attempt to access field " + std::to_string(static_cast<int64_t>(d)));
    // No record has INT_MAX fields: reading one past the end is empty, assigning one runs out of memory.
    return d >= double(INT_MAX) ? INT_MAX : static_cast<int>(d);
}

const Value& Runtime::field(int i) {
    if (i == 0) {
        if (record_dirty_) rebuild_record();
        return fields_[0];
    }
    if (!split_done_) {
        // Only as far as field i (gawk does the same): `{ s += $3 }` never splits the rest of the line.
        if (partial_started_ && i <= partial_n_) return fields_[static_cast<size_t>(i)];
        if (!split_fast(i)) split_record();
        else if (!split_done_) return fields_[static_cast<size_t>(i)];
    }
    if (i > nf_) return kEmpty;
    return fields_[static_cast<size_t>(i)];
}

Value& Runtime::field_ref(int i) {
    last_field_ = i;
    if (i == 0) {
        if (record_dirty_) rebuild_record();
        return fields_[0];
    }
    if (!split_done_) split_record();
    if (i > nf_) set_nf(i);
    record_dirty_ = true;
    return fields_[static_cast<size_t>(i)];
}

void Runtime::set_nf(int nf) {
    if (!split_done_) split_record();
    need((static_cast<size_t>(nf) + 1) * sizeof(Value));
    if (fields_.size() < static_cast<size_t>(nf) + 1) fields_.resize(static_cast<size_t>(nf) + 1);
    for (int i = nf_ + 1; i <= nf; ++i) fields_[static_cast<size_t>(i)].set_uninit();
    nf_ = nf;
    globals_[kNF].kind = Cell::kScalar;
    globals_[kNF].v.set_num(nf);
    record_dirty_ = true;
}

}  // namespace bashkit::utils::awk

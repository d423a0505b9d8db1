// The AST as JSON, for `bashkit --dump-ast` and as the equality of trees in tests.
//
// Every node is an object {"kind": ..., "line": ..., "col": ..., fields...} with its fields in declaration
// order (ast.hpp); helper records (ArrayElem, IfClause, CaseItem, ArithPart) are objects too, with a kind
// when they carry a position. Absent nodes are null, lists are arrays, enums are their enumerator names,
// single characters are one-character strings ("" for none). Strings are byte strings: valid UTF-8 is
// copied, control bytes and bytes that are not part of valid UTF-8 become \u00XX, so the output is always
// valid JSON. The output is deterministic and has no whitespace.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::syntax {
namespace {

std::string_view kind_name(NodeKind k) {
    switch (k) {
        case NodeKind::Lit: return "Lit";
        case NodeKind::Escaped: return "Escaped";
        case NodeKind::SglQuoted: return "SglQuoted";
        case NodeKind::DblQuoted: return "DblQuoted";
        case NodeKind::AnsiCQuoted: return "AnsiCQuoted";
        case NodeKind::ParamExp: return "ParamExp";
        case NodeKind::CmdSubst: return "CmdSubst";
        case NodeKind::ArithSubst: return "ArithSubst";
        case NodeKind::ProcSubst: return "ProcSubst";
        case NodeKind::ExtGlob: return "ExtGlob";
        case NodeKind::Word: return "Word";
        case NodeKind::Assign: return "Assign";
        case NodeKind::Redirect: return "Redirect";
        case NodeKind::Stmt: return "Stmt";
        case NodeKind::Simple: return "Simple";
        case NodeKind::Pipeline: return "Pipeline";
        case NodeKind::AndOr: return "AndOr";
        case NodeKind::Brace: return "Brace";
        case NodeKind::Subshell: return "Subshell";
        case NodeKind::If: return "If";
        case NodeKind::While: return "While";
        case NodeKind::For: return "For";
        case NodeKind::ArithFor: return "ArithFor";
        case NodeKind::Select: return "Select";
        case NodeKind::Case: return "Case";
        case NodeKind::ArithCmd: return "ArithCmd";
        case NodeKind::CondCmd: return "CondCmd";
        case NodeKind::FuncDef: return "FuncDef";
        case NodeKind::Coproc: return "Coproc";
        case NodeKind::CondWord: return "CondWord";
        case NodeKind::CondUnary: return "CondUnary";
        case NodeKind::CondBinary: return "CondBinary";
        case NodeKind::CondNot: return "CondNot";
        case NodeKind::CondAnd: return "CondAnd";
        case NodeKind::CondOr: return "CondOr";
        case NodeKind::CondParen: return "CondParen";
        case NodeKind::ArithNum: return "ArithNum";
        case NodeKind::ArithVar: return "ArithVar";
        case NodeKind::ArithWord: return "ArithWord";
        case NodeKind::ArithUnary: return "ArithUnary";
        case NodeKind::ArithPostfix: return "ArithPostfix";
        case NodeKind::ArithBinary: return "ArithBinary";
        case NodeKind::ArithAssign: return "ArithAssign";
        case NodeKind::ArithTernary: return "ArithTernary";
        case NodeKind::ArithParen: return "ArithParen";
        case NodeKind::ArithError: return "ArithError";
        case NodeKind::ArithLookahead: return "ArithLookahead";
        case NodeKind::Script: return "Script";
    }
    return "Unknown";
}

std::string_view param_op_name(ParamOp op) {
    switch (op) {
        case ParamOp::None: return "None";
        case ParamOp::Length: return "Length";
        case ParamOp::Default: return "Default";
        case ParamOp::Assign: return "Assign";
        case ParamOp::Error: return "Error";
        case ParamOp::Alternate: return "Alternate";
        case ParamOp::RemPrefix: return "RemPrefix";
        case ParamOp::RemLongPrefix: return "RemLongPrefix";
        case ParamOp::RemSuffix: return "RemSuffix";
        case ParamOp::RemLongSuffix: return "RemLongSuffix";
        case ParamOp::Replace: return "Replace";
        case ParamOp::ReplaceAll: return "ReplaceAll";
        case ParamOp::ReplacePrefix: return "ReplacePrefix";
        case ParamOp::ReplaceSuffix: return "ReplaceSuffix";
        case ParamOp::Substring: return "Substring";
        case ParamOp::UpperFirst: return "UpperFirst";
        case ParamOp::UpperAll: return "UpperAll";
        case ParamOp::LowerFirst: return "LowerFirst";
        case ParamOp::LowerAll: return "LowerAll";
        case ParamOp::Transform: return "Transform";
        case ParamOp::PrefixNames: return "PrefixNames";
        case ParamOp::Keys: return "Keys";
    }
    return "Unknown";
}

std::string_view redir_op_name(RedirOp op) {
    switch (op) {
        case RedirOp::In: return "In";
        case RedirOp::Out: return "Out";
        case RedirOp::Append: return "Append";
        case RedirOp::Clobber: return "Clobber";
        case RedirOp::ReadWrite: return "ReadWrite";
        case RedirOp::DupIn: return "DupIn";
        case RedirOp::DupOut: return "DupOut";
        case RedirOp::OutErr: return "OutErr";
        case RedirOp::AppendOutErr: return "AppendOutErr";
        case RedirOp::HereDoc: return "HereDoc";
        case RedirOp::HereString: return "HereString";
    }
    return "Unknown";
}

std::string_view case_term_name(CaseTerm t) {
    switch (t) {
        case CaseTerm::Break: return "Break";
        case CaseTerm::FallThrough: return "FallThrough";
        case CaseTerm::Continue: return "Continue";
        case CaseTerm::None: return "None";
    }
    return "Unknown";
}

std::string_view arith_op_name(ArithOp op) {
    switch (op) {
        case ArithOp::Plus: return "Plus";
        case ArithOp::Minus: return "Minus";
        case ArithOp::Not: return "Not";
        case ArithOp::BitNot: return "BitNot";
        case ArithOp::PreInc: return "PreInc";
        case ArithOp::PreDec: return "PreDec";
        case ArithOp::PostInc: return "PostInc";
        case ArithOp::PostDec: return "PostDec";
        case ArithOp::Comma: return "Comma";
        case ArithOp::LogOr: return "LogOr";
        case ArithOp::LogAnd: return "LogAnd";
        case ArithOp::BitOr: return "BitOr";
        case ArithOp::BitXor: return "BitXor";
        case ArithOp::BitAnd: return "BitAnd";
        case ArithOp::Eq: return "Eq";
        case ArithOp::Ne: return "Ne";
        case ArithOp::Lt: return "Lt";
        case ArithOp::Le: return "Le";
        case ArithOp::Gt: return "Gt";
        case ArithOp::Ge: return "Ge";
        case ArithOp::Shl: return "Shl";
        case ArithOp::Shr: return "Shr";
        case ArithOp::Add: return "Add";
        case ArithOp::Sub: return "Sub";
        case ArithOp::Mul: return "Mul";
        case ArithOp::Div: return "Div";
        case ArithOp::Mod: return "Mod";
        case ArithOp::Pow: return "Pow";
        case ArithOp::AssignEq: return "AssignEq";
        case ArithOp::AddEq: return "AddEq";
        case ArithOp::SubEq: return "SubEq";
        case ArithOp::MulEq: return "MulEq";
        case ArithOp::DivEq: return "DivEq";
        case ArithOp::ModEq: return "ModEq";
        case ArithOp::ShlEq: return "ShlEq";
        case ArithOp::ShrEq: return "ShrEq";
        case ArithOp::AndEq: return "AndEq";
        case ArithOp::XorEq: return "XorEq";
        case ArithOp::OrEq: return "OrEq";
    }
    return "Unknown";
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
size_t utf8_sequence(std::string_view s, size_t i) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char b0 = byte(i);
    size_t len = 0;
    uint32_t min = 0;
    uint32_t cp = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        min = 0x80;
        cp = b0 & 0x1Fu;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        min = 0x800;
        cp = b0 & 0x0Fu;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        min = 0x10000;
        cp = b0 & 0x07u;
    } else {
        return 0;
    }
    if (i + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k) {
        unsigned char b = byte(i + k);
        if ((b & 0xC0u) != 0x80u) return 0;
        cp = (cp << 6) | (b & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
            ++i;
        } else if (c < 0x20 || c == 0x7F) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 0xF];
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else if (size_t n = utf8_sequence(s, i); n > 0) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 0xF];
            ++i;
        }
    }
    out += '"';
}

namespace {

class Json {
public:
    explicit Json(bool positions) : positions_(positions) {}
    std::string out;

    void script(const Script& s) {
        open(s);
        key("body");
        list(s.body);
        out += '}';
    }

private:
    bool positions_;

    // ------------------------------------------------------------ primitives

    void str(std::string_view s) { append_json_string(out, s); }

    void key(std::string_view k) {
        out += ',';
        out += '"';
        out += k;
        out += "\":";
    }

    void pos_fields(Pos p) {
        if (!positions_) return;
        out += ",\"line\":";
        out += std::to_string(p.line);
        out += ",\"col\":";
        out += std::to_string(p.col);
    }

    // `{"kind":"X"[,"line":..,"col":..]`; the caller adds fields and the closing brace.
    void open(const Node& n) { open_kind(kind_name(n.kind), n.pos); }
    void open_kind(std::string_view kind, Pos p) {
        out += "{\"kind\":\"";
        out += kind;
        out += '"';
        pos_fields(p);
    }

    void boolean(std::string_view k, bool v) {
        key(k);
        out += v ? "true" : "false";
    }
    void string(std::string_view k, std::string_view v) {
        key(k);
        str(v);
    }
    void character(std::string_view k, char c) {
        key(k);
        str(c == 0 ? std::string_view{} : std::string_view(&c, 1));
    }
    void enumerator(std::string_view k, std::string_view v) {
        key(k);
        out += '"';
        out += v;
        out += '"';
    }
    void integer(std::string_view k, long long v) {
        key(k);
        out += std::to_string(v);
    }
    void position(std::string_view k, Pos p) {
        if (!positions_) return;
        key(k);
        out += "{\"line\":";
        out += std::to_string(p.line);
        out += ",\"col\":";
        out += std::to_string(p.col);
        out += '}';
    }

    template <class T>
    void list(const List<T*>& items) {
        out += '[';
        for (uint32_t i = 0; i < items.size; ++i) {
            if (i > 0) out += ',';
            node(items[i]);
        }
        out += ']';
    }

    // ------------------------------------------------------------ nodes

    void node(const Node* n) {
        if (n == nullptr) {
            out += "null";
            return;
        }
        switch (n->kind) {
            case NodeKind::Lit:
                open(*n);
                string("text", n->as<Lit>()->text);
                break;
            case NodeKind::Escaped:
                open(*n);
                string("text", n->as<Escaped>()->text);
                break;
            case NodeKind::SglQuoted:
                open(*n);
                string("text", n->as<SglQuoted>()->text);
                break;
            case NodeKind::DblQuoted: {
                const DblQuoted& d = *n->as<DblQuoted>();
                open(*n);
                boolean("locale", d.locale);
                key("parts");
                list(d.parts);
                break;
            }
            case NodeKind::AnsiCQuoted: {
                const AnsiCQuoted& a = *n->as<AnsiCQuoted>();
                open(*n);
                string("value", a.value);
                string("raw", a.raw);
                break;
            }
            case NodeKind::ParamExp: {
                const ParamExp& p = *n->as<ParamExp>();
                open(*n);
                boolean("braced", p.braced);
                boolean("indirect", p.indirect);
                boolean("colon", p.colon);
                boolean("at_form", p.at_form);
                enumerator("op", param_op_name(p.op));
                character("transform", p.transform);
                string("name", p.name);
                key("index");
                node(p.index);
                character("index_all", p.index_all);
                key("arg");
                node(p.arg);
                key("arg2");
                node(p.arg2);
                break;
            }
            case NodeKind::CmdSubst: {
                const CmdSubst& c = *n->as<CmdSubst>();
                open(*n);
                boolean("backquote", c.backquote);
                key("body");
                list(c.body);
                if (!c.deferred_error.empty()) {
                    string("deferred_error", c.deferred_error);
                    string("raw", c.raw);
                }
                break;
            }
            case NodeKind::ArithSubst: {
                const ArithSubst& a = *n->as<ArithSubst>();
                open(*n);
                boolean("bracket", a.bracket);
                key("raw");
                node(a.raw);
                key("expr");
                node(a.expr);
                break;
            }
            case NodeKind::ProcSubst: {
                const ProcSubst& p = *n->as<ProcSubst>();
                open(*n);
                boolean("output", p.output);
                key("body");
                list(p.body);
                break;
            }
            case NodeKind::ExtGlob: {
                const ExtGlob& g = *n->as<ExtGlob>();
                open(*n);
                character("op", g.op);
                key("alternatives");
                list(g.alternatives);
                break;
            }
            case NodeKind::Word: {
                const Word& w = *n->as<Word>();
                open(*n);
                key("parts");
                list(w.parts);
                key("decl_assign");
                node(w.decl_assign);
                break;
            }
            case NodeKind::Assign: {
                const Assign& a = *n->as<Assign>();
                open(*n);
                string("name", a.name);
                key("index");
                node(a.index);
                boolean("append", a.append);
                boolean("is_array", a.is_array);
                key("value");
                node(a.value);
                key("elems");
                out += '[';
                for (uint32_t i = 0; i < a.elems.size; ++i) {
                    const ArrayElem& e = a.elems[i];
                    if (i > 0) out += ',';
                    open_kind("ArrayElem", e.pos);
                    key("key");
                    node(e.key);
                    boolean("append", e.append);
                    key("value");
                    node(e.value);
                    out += '}';
                }
                out += ']';
                break;
            }
            case NodeKind::Redirect: {
                const Redirect& r = *n->as<Redirect>();
                open(*n);
                enumerator("op", redir_op_name(r.op));
                integer("fd", r.fd);
                string("fd_var", r.fd_var);
                key("target");
                node(r.target);
                boolean("strip_tabs", r.strip_tabs);
                boolean("quoted_delim", r.quoted_delim);
                string("delim", r.delim);
                key("body");
                node(r.body);
                break;
            }
            case NodeKind::Stmt: {
                const Stmt& s = *n->as<Stmt>();
                open(*n);
                key("cmd");
                node(s.cmd);
                boolean("background", s.background);
                break;
            }
            case NodeKind::Simple:
            case NodeKind::Pipeline:
            case NodeKind::AndOr:
            case NodeKind::Brace:
            case NodeKind::Subshell:
            case NodeKind::If:
            case NodeKind::While:
            case NodeKind::For:
            case NodeKind::ArithFor:
            case NodeKind::Select:
            case NodeKind::Case:
            case NodeKind::ArithCmd:
            case NodeKind::CondCmd:
            case NodeKind::FuncDef:
            case NodeKind::Coproc:
                command(*static_cast<const Command*>(n));
                break;
            case NodeKind::CondWord:
            case NodeKind::CondUnary:
            case NodeKind::CondBinary:
            case NodeKind::CondNot:
            case NodeKind::CondAnd:
            case NodeKind::CondOr:
            case NodeKind::CondParen:
                cond(static_cast<const CondExpr*>(n));
                return;  // cond closes its own objects
            case NodeKind::ArithNum:
            case NodeKind::ArithVar:
            case NodeKind::ArithWord:
            case NodeKind::ArithUnary:
            case NodeKind::ArithPostfix:
            case NodeKind::ArithBinary:
            case NodeKind::ArithAssign:
            case NodeKind::ArithTernary:
            case NodeKind::ArithParen:
            case NodeKind::ArithError:
            case NodeKind::ArithLookahead:
                arith(static_cast<const ArithExpr*>(n));
                return;  // arith closes its own objects
            case NodeKind::Script:
                script(*n->as<Script>());
                return;
        }
        out += '}';
    }

    void arith_part(std::string_view k, const ArithPart& p) {
        key(k);
        out += "{\"raw\":";
        node(p.raw);
        key("expr");
        node(p.expr);
        out += '}';
    }

    // Fields of a command, then its redirections; closes nothing (node() adds the brace).
    void command(const Command& c) {
        open(c);
        switch (c.kind) {
            case NodeKind::Simple: {
                const Simple& s = *c.as<Simple>();
                key("assigns");
                list(s.assigns);
                key("words");
                list(s.words);
                break;
            }
            case NodeKind::Pipeline: {
                const Pipeline& p = *c.as<Pipeline>();
                boolean("negated", p.negated);
                boolean("timed", p.timed);
                boolean("time_posix", p.time_posix);
                key("stages");
                list(p.stages);
                key("stderr_too");
                out += '[';
                for (uint32_t i = 0; i < p.stderr_too.size; ++i) {
                    if (i > 0) out += ',';
                    out += p.stderr_too[i] ? "true" : "false";
                }
                out += ']';
                break;
            }
            case NodeKind::AndOr: {
                const AndOr& a = *c.as<AndOr>();
                key("items");
                list(a.items);
                key("ops");
                out += '[';
                for (uint32_t i = 0; i < a.ops.size; ++i) {
                    if (i > 0) out += ',';
                    out += a.ops[i] == AndOrOp::And ? "\"And\"" : "\"Or\"";
                }
                out += ']';
                break;
            }
            case NodeKind::Brace:
                key("body");
                list(c.as<Brace>()->body);
                break;
            case NodeKind::Subshell:
                key("body");
                list(c.as<Subshell>()->body);
                break;
            case NodeKind::If: {
                const If& f = *c.as<If>();
                key("clauses");
                out += '[';
                for (uint32_t i = 0; i < f.clauses.size; ++i) {
                    const IfClause& cl = f.clauses[i];
                    if (i > 0) out += ',';
                    open_kind("IfClause", cl.pos);
                    key("cond");
                    list(cl.cond);
                    key("body");
                    list(cl.body);
                    out += '}';
                }
                out += ']';
                boolean("has_else", f.has_else);
                key("else_body");
                list(f.else_body);
                break;
            }
            case NodeKind::While: {
                const While& w = *c.as<While>();
                boolean("until", w.until);
                key("cond");
                list(w.cond);
                key("body");
                list(w.body);
                break;
            }
            case NodeKind::For: {
                const For& f = *c.as<For>();
                string("var", f.var);
                position("var_pos", f.var_pos);
                boolean("has_in", f.has_in);
                key("items");
                list(f.items);
                boolean("brace_body", f.brace_body);
                key("body");
                list(f.body);
                break;
            }
            case NodeKind::Select: {
                const Select& s = *c.as<Select>();
                string("var", s.var);
                position("var_pos", s.var_pos);
                boolean("has_in", s.has_in);
                key("items");
                list(s.items);
                key("body");
                list(s.body);
                break;
            }
            case NodeKind::ArithFor: {
                const ArithFor& f = *c.as<ArithFor>();
                arith_part("init", f.init);
                arith_part("cond", f.cond);
                arith_part("step", f.step);
                boolean("brace_body", f.brace_body);
                key("body");
                list(f.body);
                break;
            }
            case NodeKind::Case: {
                const Case& cs = *c.as<Case>();
                key("subject");
                node(cs.subject);
                key("items");
                out += '[';
                for (uint32_t i = 0; i < cs.items.size; ++i) {
                    const CaseItem& it = cs.items[i];
                    if (i > 0) out += ',';
                    open_kind("CaseItem", it.pos);
                    key("patterns");
                    list(it.patterns);
                    key("body");
                    list(it.body);
                    enumerator("term", case_term_name(it.term));
                    out += '}';
                }
                out += ']';
                break;
            }
            case NodeKind::ArithCmd: {
                const ArithCmd& a = *c.as<ArithCmd>();
                key("raw");
                node(a.raw);
                key("expr");
                node(a.expr);
                break;
            }
            case NodeKind::CondCmd:
                key("expr");
                node(c.as<CondCmd>()->expr);
                break;
            case NodeKind::FuncDef: {
                const FuncDef& f = *c.as<FuncDef>();
                string("name", f.name);
                boolean("keyword", f.keyword);
                boolean("parens", f.parens);
                key("body");
                node(f.body);
                break;
            }
            case NodeKind::Coproc: {
                const Coproc& cp = *c.as<Coproc>();
                string("name", cp.name);
                key("body");
                node(cp.body);
                break;
            }
            default: break;
        }
        key("redirs");
        list(c.redirs);
    }

    // [[ ]] expressions; the left spine of && / || chains is walked without recursion.
    void cond(const CondExpr* e) {
        std::vector<const CondExpr*> spine;
        while (e != nullptr && (e->is<CondAnd>() || e->is<CondOr>())) {
            spine.push_back(e);
            open(*e);
            key("left");
            e = e->is<CondAnd>() ? e->as<CondAnd>()->left : e->as<CondOr>()->left;
        }
        cond_leaf(e);
        for (size_t i = spine.size(); i-- > 0;) {
            const CondExpr* n = spine[i];
            key("right");
            node(n->is<CondAnd>() ? n->as<CondAnd>()->right : n->as<CondOr>()->right);
            out += '}';
        }
    }

    void cond_leaf(const CondExpr* e) {
        if (e == nullptr) {
            out += "null";
            return;
        }
        open(*e);
        switch (e->kind) {
            case NodeKind::CondWord:
                key("word");
                node(e->as<CondWord>()->word);
                break;
            case NodeKind::CondUnary: {
                const CondUnary& u = *e->as<CondUnary>();
                string("op", u.op);
                key("arg");
                node(u.arg);
                break;
            }
            case NodeKind::CondBinary: {
                const CondBinary& b = *e->as<CondBinary>();
                string("op", b.op);
                key("left");
                node(b.left);
                key("right");
                node(b.right);
                break;
            }
            case NodeKind::CondNot:
                key("expr");
                node(e->as<CondNot>()->expr);
                break;
            case NodeKind::CondParen:
                key("expr");
                node(e->as<CondParen>()->expr);
                break;
            default: break;
        }
        out += '}';
    }

    // Arithmetic; the left spine of binary chains is walked without recursion.
    void arith(const ArithExpr* e) {
        std::vector<const ArithBinary*> spine;
        while (e != nullptr && e->is<ArithBinary>()) {
            const ArithBinary* b = e->as<ArithBinary>();
            spine.push_back(b);
            open(*b);
            enumerator("op", arith_op_name(b->op));
            key("left");
            e = b->left;
        }
        arith_leaf(e);
        for (size_t i = spine.size(); i-- > 0;) {
            key("right");
            node(spine[i]->right);
            out += '}';
        }
    }

    void arith_leaf(const ArithExpr* e) {
        if (e == nullptr) {
            out += "null";
            return;
        }
        open(*e);
        switch (e->kind) {
            case NodeKind::ArithNum: string("text", e->as<ArithNum>()->text); break;
            case NodeKind::ArithVar: {
                const ArithVar& v = *e->as<ArithVar>();
                string("name", v.name);
                key("index");
                node(v.index);
                break;
            }
            case NodeKind::ArithWord:
                key("word");
                node(e->as<ArithWord>()->word);
                break;
            case NodeKind::ArithUnary: {
                const ArithUnary& u = *e->as<ArithUnary>();
                enumerator("op", arith_op_name(u.op));
                key("operand");
                node(u.operand);
                break;
            }
            case NodeKind::ArithPostfix: {
                const ArithPostfix& p = *e->as<ArithPostfix>();
                enumerator("op", arith_op_name(p.op));
                key("operand");
                node(p.operand);
                break;
            }
            case NodeKind::ArithAssign: {
                const ArithAssign& a = *e->as<ArithAssign>();
                enumerator("op", arith_op_name(a.op));
                key("target");
                node(a.target);
                key("value");
                node(a.value);
                break;
            }
            case NodeKind::ArithTernary: {
                const ArithTernary& t = *e->as<ArithTernary>();
                key("cond");
                node(t.cond);
                key("then_expr");
                node(t.then_expr);
                key("else_expr");
                node(t.else_expr);
                break;
            }
            case NodeKind::ArithParen:
                key("inner");
                node(e->as<ArithParen>()->inner);
                break;
            default: break;
        }
        out += '}';
    }
};

}  // namespace

std::string to_json(const Script& script, bool with_positions) {
    Json j(with_positions);
    j.script(script);
    return std::move(j.out);
}

}  // namespace bashkit::syntax

// Test helper: a compact S-expression dump of the AST, to assert tree shapes in one string.
#pragma once

#include <string>

#include "interp/syntax/ast.hpp"

namespace bashkit::syntax::test {

inline void sexp_node(std::string& o, const Node* n);

inline void sexp_word(std::string& o, const Word* w) {
    if (!w) {
        o += "nil";
        return;
    }
    if (w->decl_assign) {
        o += "(decl ";
        sexp_node(o, w->decl_assign);
        o += ")";
        return;
    }
    if (w->parts.size == 1 && w->parts[0]->is<Lit>()) {
        o += w->parts[0]->as<Lit>()->text;
        return;
    }
    o += "(w";
    for (auto* p : w->parts) {
        o += ' ';
        sexp_node(o, p);
    }
    o += ")";
}

template <class T>
inline void sexp_list(std::string& o, const List<T*>& l) {
    for (auto* x : l) {
        o += ' ';
        sexp_node(o, x);
    }
}

inline void sexp_stmts(std::string& o, const char* tag, const List<Stmt*>& l) {
    o += "(";
    o += tag;
    sexp_list(o, l);
    o += ")";
}

inline const char* arith_op_name(ArithOp op) {
    static const char* names[] = {"+u", "-u", "!", "~", "++pre", "--pre", "post++", "post--", ",", "||", "&&", "|",
                                  "^",  "&",  "==", "!=", "<", "<=", ">", ">=", "<<", ">>", "+", "-", "*", "/", "%",
                                  "**", "=",  "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="};
    return names[static_cast<int>(op)];
}

inline const char* param_op_name(ParamOp op) {
    static const char* names[] = {"none", "len", "def", "assign", "err", "alt", "#", "##", "%", "%%", "/", "//",
                                  "/#", "/%", "sub", "^", "^^", ",", ",,", "@", "prefix", "keys"};
    return names[static_cast<int>(op)];
}

inline void sexp_node(std::string& o, const Node* n) {
    if (!n) {
        o += "nil";
        return;
    }
    switch (n->kind) {
    case NodeKind::Lit: o += "'" + std::string(n->as<Lit>()->text) + "'"; break;
    case NodeKind::Escaped: o += "\\" + std::string(n->as<Escaped>()->text); break;
    case NodeKind::SglQuoted: o += "(sq " + std::string(n->as<SglQuoted>()->text) + ")"; break;
    case NodeKind::DblQuoted: {
        auto* d = n->as<DblQuoted>();
        o += d->locale ? "(ldq" : "(dq";
        sexp_list(o, d->parts);
        o += ")";
        break;
    }
    case NodeKind::AnsiCQuoted: o += "(ansi " + std::string(n->as<AnsiCQuoted>()->value) + ")"; break;
    case NodeKind::ParamExp: {
        auto* p = n->as<ParamExp>();
        o += "($";
        if (p->braced) o += "{}";
        if (p->indirect) o += "!";
        if (p->colon) o += ":";
        o += " ";
        o += p->name;
        if (p->index_all) {
            o += "[";
            o += p->index_all;
            o += "]";
        }
        if (p->index) {
            o += " [";
            sexp_word(o, p->index);
            o += "]";
        }
        if (p->op != ParamOp::None) {
            o += " ";
            o += param_op_name(p->op);
        }
        if (p->op == ParamOp::PrefixNames) o += p->at_form ? "@" : "*";
        if (p->transform) o += p->transform;
        if (p->arg) {
            o += " ";
            sexp_word(o, p->arg);
        }
        if (p->arg2) {
            o += " ";
            sexp_word(o, p->arg2);
        }
        o += ")";
        break;
    }
    case NodeKind::CmdSubst: sexp_stmts(o, n->as<CmdSubst>()->backquote ? "bq" : "cs", n->as<CmdSubst>()->body); break;
    case NodeKind::ArithSubst: {
        auto* a = n->as<ArithSubst>();
        o += "(arith ";
        sexp_node(o, a->expr);
        o += ")";
        break;
    }
    case NodeKind::ProcSubst: sexp_stmts(o, n->as<ProcSubst>()->output ? "ps>" : "ps<", n->as<ProcSubst>()->body); break;
    case NodeKind::ExtGlob: {
        auto* g = n->as<ExtGlob>();
        o += "(eg";
        o += g->op;
        for (auto* w : g->alternatives) {
            o += " ";
            sexp_word(o, w);
        }
        o += ")";
        break;
    }
    case NodeKind::Word: sexp_word(o, n->as<Word>()); break;
    case NodeKind::Assign: {
        auto* a = n->as<Assign>();
        o += "(= ";
        o += a->name;
        if (a->index) {
            o += "[";
            sexp_word(o, a->index);
            o += "]";
        }
        if (a->append) o += " +";
        if (a->is_array) {
            o += " (arr";
            for (auto& e : a->elems) {
                o += " ";
                if (e.key) {
                    o += "[";
                    sexp_word(o, e.key);
                    o += e.append ? "]+=" : "]=";
                }
                sexp_word(o, e.value);
            }
            o += ")";
        } else {
            o += " ";
            sexp_word(o, a->value);
        }
        o += ")";
        break;
    }
    case NodeKind::Redirect: {
        auto* r = n->as<Redirect>();
        static const char* ops[] = {"<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<<"};
        o += "(r";
        if (r->fd >= 0) o += std::to_string(r->fd);
        if (!r->fd_var.empty()) o += "{" + std::string(r->fd_var) + "}";
        o += ops[static_cast<int>(r->op)];
        if (r->strip_tabs) o += "-";
        o += " ";
        sexp_word(o, r->target);
        if (r->op == RedirOp::HereDoc) {
            o += r->quoted_delim ? " q:" : " u:";
            o += r->delim;
            o += " ";
            sexp_word(o, r->body);
        }
        o += ")";
        break;
    }
    case NodeKind::Stmt: {
        auto* s = n->as<Stmt>();
        sexp_node(o, s->cmd);
        if (s->background) o += "&";
        break;
    }
    default: break;
    }
    const Command* c = nullptr;
    switch (n->kind) {
    case NodeKind::Simple: {
        auto* s = n->as<Simple>();
        o += "(cmd";
        sexp_list(o, s->assigns);
        for (auto* w : s->words) {
            o += " ";
            sexp_word(o, w);
        }
        c = s;
        break;
    }
    case NodeKind::Pipeline: {
        auto* p = n->as<Pipeline>();
        o += "(pipe";
        if (p->negated) o += "!";
        if (p->timed) o += p->time_posix ? " time-p" : " time";
        for (uint32_t i = 0; i < p->stages.size; ++i) {
            if (i > 0 && p->stderr_too[i - 1]) o += " |&";
            o += " ";
            sexp_node(o, p->stages[i]);
        }
        c = p;
        break;
    }
    case NodeKind::AndOr: {
        auto* a = n->as<AndOr>();
        o += "(andor ";
        sexp_node(o, a->items[0]);
        for (uint32_t i = 1; i < a->items.size; ++i) {
            o += a->ops[i - 1] == AndOrOp::And ? " && " : " || ";
            sexp_node(o, a->items[i]);
        }
        c = a;
        break;
    }
    case NodeKind::Brace: o += "(brace"; sexp_list(o, n->as<Brace>()->body); c = n->as<Brace>(); break;
    case NodeKind::Subshell: o += "(sub"; sexp_list(o, n->as<Subshell>()->body); c = n->as<Subshell>(); break;
    case NodeKind::If: {
        auto* f = n->as<If>();
        o += "(if";
        for (auto& cl : f->clauses) {
            o += " ";
            sexp_stmts(o, "cond", cl.cond);
            o += " ";
            sexp_stmts(o, "then", cl.body);
        }
        if (f->has_else) {
            o += " ";
            sexp_stmts(o, "else", f->else_body);
        }
        c = f;
        break;
    }
    case NodeKind::While: {
        auto* w = n->as<While>();
        o += w->until ? "(until " : "(while ";
        sexp_stmts(o, "cond", w->cond);
        o += " ";
        sexp_stmts(o, "do", w->body);
        c = w;
        break;
    }
    case NodeKind::For: {
        auto* f = n->as<For>();
        o += "(for " + std::string(f->var);
        if (f->has_in) {
            o += " in";
            for (auto* w : f->items) {
                o += " ";
                sexp_word(o, w);
            }
        }
        o += " ";
        sexp_stmts(o, f->brace_body ? "{" : "do", f->body);
        c = f;
        break;
    }
    case NodeKind::Select: {
        auto* f = n->as<Select>();
        o += "(select " + std::string(f->var);
        if (f->has_in) {
            o += " in";
            for (auto* w : f->items) {
                o += " ";
                sexp_word(o, w);
            }
        }
        o += " ";
        sexp_stmts(o, "do", f->body);
        c = f;
        break;
    }
    case NodeKind::ArithFor: {
        auto* f = n->as<ArithFor>();
        o += "(afor ";
        sexp_node(o, f->init.expr);
        o += " ";
        sexp_node(o, f->cond.expr);
        o += " ";
        sexp_node(o, f->step.expr);
        o += " ";
        sexp_stmts(o, f->brace_body ? "{" : "do", f->body);
        c = f;
        break;
    }
    case NodeKind::Case: {
        auto* k = n->as<Case>();
        o += "(case ";
        sexp_word(o, k->subject);
        for (auto& it : k->items) {
            o += " (";
            for (uint32_t i = 0; i < it.patterns.size; ++i) {
                if (i) o += "|";
                sexp_word(o, it.patterns[i]);
            }
            o += ")";
            sexp_list(o, it.body);
            static const char* terms[] = {" ;;", " ;&", " ;;&", ""};
            o += terms[static_cast<int>(it.term)];
        }
        c = k;
        break;
    }
    case NodeKind::ArithCmd: o += "((("; sexp_node(o, n->as<ArithCmd>()->expr); c = n->as<ArithCmd>(); break;
    case NodeKind::CondCmd: o += "([["; o += " "; sexp_node(o, n->as<CondCmd>()->expr); c = n->as<CondCmd>(); break;
    case NodeKind::FuncDef: {
        auto* f = n->as<FuncDef>();
        o += "(func " + std::string(f->name) + " ";
        sexp_node(o, f->body);
        c = f;
        break;
    }
    case NodeKind::Coproc: {
        auto* f = n->as<Coproc>();
        o += "(coproc " + std::string(f->name.empty() ? "-" : f->name) + " ";
        sexp_node(o, f->body);
        c = f;
        break;
    }
    case NodeKind::CondWord: sexp_word(o, n->as<CondWord>()->word); break;
    case NodeKind::CondUnary:
        o += "(" + std::string(n->as<CondUnary>()->op) + " ";
        sexp_word(o, n->as<CondUnary>()->arg);
        o += ")";
        break;
    case NodeKind::CondBinary:
        o += "(" + std::string(n->as<CondBinary>()->op) + " ";
        sexp_word(o, n->as<CondBinary>()->left);
        o += " ";
        sexp_word(o, n->as<CondBinary>()->right);
        o += ")";
        break;
    case NodeKind::CondNot: o += "(! "; sexp_node(o, n->as<CondNot>()->expr); o += ")"; break;
    case NodeKind::CondAnd:
        o += "(&& ";
        sexp_node(o, n->as<CondAnd>()->left);
        o += " ";
        sexp_node(o, n->as<CondAnd>()->right);
        o += ")";
        break;
    case NodeKind::CondOr:
        o += "(|| ";
        sexp_node(o, n->as<CondOr>()->left);
        o += " ";
        sexp_node(o, n->as<CondOr>()->right);
        o += ")";
        break;
    case NodeKind::CondParen: o += "(paren "; sexp_node(o, n->as<CondParen>()->expr); o += ")"; break;
    case NodeKind::ArithNum: o += n->as<ArithNum>()->text; break;
    case NodeKind::ArithVar:
        o += n->as<ArithVar>()->name;
        if (n->as<ArithVar>()->index) {
            o += "[";
            sexp_word(o, n->as<ArithVar>()->index);
            o += "]";
        }
        break;
    case NodeKind::ArithWord: sexp_word(o, n->as<ArithWord>()->word); break;
    case NodeKind::ArithUnary:
        o += "(" + std::string(arith_op_name(n->as<ArithUnary>()->op)) + " ";
        sexp_node(o, n->as<ArithUnary>()->operand);
        o += ")";
        break;
    case NodeKind::ArithPostfix:
        o += "(" + std::string(arith_op_name(n->as<ArithPostfix>()->op)) + " ";
        sexp_node(o, n->as<ArithPostfix>()->operand);
        o += ")";
        break;
    case NodeKind::ArithBinary:
        o += "(" + std::string(arith_op_name(n->as<ArithBinary>()->op)) + " ";
        sexp_node(o, n->as<ArithBinary>()->left);
        o += " ";
        sexp_node(o, n->as<ArithBinary>()->right);
        o += ")";
        break;
    case NodeKind::ArithAssign:
        o += "(" + std::string(arith_op_name(n->as<ArithAssign>()->op)) + " ";
        sexp_node(o, n->as<ArithAssign>()->target);
        o += " ";
        sexp_node(o, n->as<ArithAssign>()->value);
        o += ")";
        break;
    case NodeKind::ArithTernary:
        o += "(? ";
        sexp_node(o, n->as<ArithTernary>()->cond);
        o += " ";
        sexp_node(o, n->as<ArithTernary>()->then_expr);
        o += " ";
        sexp_node(o, n->as<ArithTernary>()->else_expr);
        o += ")";
        break;
    case NodeKind::ArithParen: o += "(paren "; sexp_node(o, n->as<ArithParen>()->inner); o += ")"; break;
    case NodeKind::Script: sexp_list(o, n->as<Script>()->body); break;
    default: break;
    }
    if (c) {
        for (auto* r : c->redirs) {
            o += " ";
            sexp_node(o, r);
        }
        o += ")";
    }
}

inline std::string sexp(const Node* n) {
    std::string o;
    sexp_node(o, n);
    if (!o.empty() && o[0] == ' ') o.erase(0, 1);
    return o;
}

}  // namespace bashkit::syntax::test

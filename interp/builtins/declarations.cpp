// Declaration builtins: declare/typeset, local, export, readonly, and how `declare -p` prints.
#include <algorithm>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- declarations

namespace {
std::string attr_flags(const Var& v) {
    std::string f;
    if (v.attrs & kAttrIndexed) f += 'a';
    if (v.attrs & kAttrAssoc) f += 'A';
    if (v.attrs & kAttrInteger) f += 'i';
    if (v.attrs & kAttrNameref) f += 'n';
    if (v.attrs & kAttrReadonly) f += 'r';
    if (v.attrs & kAttrTrace) f += 't';
    if (v.attrs & kAttrExport) f += 'x';
    if (v.attrs & kAttrCapital) f += 'c';
    if (v.attrs & kAttrLower) f += 'l';
    if (v.attrs & kAttrUpper) f += 'u';
    return f;
}

std::string assoc_key(const std::string& k) {
    bool plain = !k.empty();
    for (unsigned char c : k)
        if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '@' || c >= 0x80)) plain = false;
    if (plain) return k;
    return quote_declare_value(k);
}

}  // namespace

std::string array_body(const Var& v) {
    std::string out = "(";
    bool first = true;
    if (v.is_indexed() && v.idx) {
        for (const auto& [k, s] : *v.idx) {
            if (!first) out += ' ';
            first = false;
            out += "[" + to_dec(k) + "]=" + quote_declare_value(s);
        }
    } else if (v.is_assoc() && v.assoc) {
        for (const auto& [k, s] : v.assoc->ordered()) {
            out += "[" + assoc_key(*k) + "]=" + quote_declare_value(*s) + " ";
        }
    }
    out += ")";
    return out;
}

void Exec::print_declare(std::string_view name, const Var& v, std::string& out) {
    std::string flags = attr_flags(v);
    out += "declare -";
    out += flags.empty() ? "-" : flags;
    out += ' ';
    out += name;
    if (v.is_array()) {
        if (v.set || v.count() > 0) out += "=" + array_body(v);
    } else if (v.set) {
        out += "=" + quote_declare_value(v.str());
    }
    out += '\n';
}

void Exec::print_function(const Function& f, std::string& out) {
    // Re-print the definition through the syntax printer.
    sx::Arena arena;
    auto* script = arena.node<sx::Script>(f.def->pos);
    auto* stmt = arena.node<sx::Stmt>(f.def->pos);
    stmt->cmd = const_cast<sx::FuncDef*>(f.def);
    std::vector<sx::Stmt*> v{stmt};
    script->body = arena.list<sx::Stmt*>(v);
    std::string text = sx::print(*script);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    out += text;
    out += '\n';
}

// declare, typeset and local (local_mode: the variables are made in the function scope).
BuiltinResult declare_impl(BuiltinContext& ctx, std::string_view cmd, bool local_mode) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& argv = ctx.args;
    uint16_t add = 0, remove = 0;
    bool print = false, funcs = false, func_names = false, global = false;
    size_t i = 1;
    auto decl_at = [&](size_t k) -> const sx::Assign* { return ctx.decls ? ctx.decls->node(k) : nullptr; };
    for (; i < argv.size(); ++i) {
        const std::string& s = argv[i];
        if (decl_at(i)) break;
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || (s[0] != '-' && s[0] != '+')) break;
        bool on = s[0] == '-';
        for (size_t k = 1; k < s.size(); ++k) {
            uint16_t bit = 0;
            switch (s[k]) {
                case 'a': bit = kAttrIndexed; break;
                case 'A': bit = kAttrAssoc; break;
                case 'i': bit = kAttrInteger; break;
                case 'l': bit = kAttrLower; break;
                case 'u': bit = kAttrUpper; break;
                case 'n': bit = kAttrNameref; break;
                case 'r': bit = kAttrReadonly; break;
                case 'x': bit = kAttrExport; break;
                case 't': bit = kAttrTrace; break;
                case 'c': bit = kAttrCapital; break;
                case 'p': print = true; continue;
                case 'f': funcs = true; continue;
                case 'F': funcs = func_names = true; continue;
                case 'g': global = true; continue;
                case 'I': continue;
                default:
                    sh.builtin_error(cmd, std::string("-") + s[k] + ": invalid option");
                    sh.write_err(std::string(cmd) + ": usage: " + find_builtin(cmd)->help + "\n");
                    return 2;
            }
            if (on) add |= bit;
            else remove |= bit;
        }
    }
    if (local_mode && sh.state_.frames.size() <= 1 && sh.call_depth_ == 0) {
        return sh.builtin_error(cmd, "can only be used in a function");
    }
    bool in_function = sh.state_.scope > 0 && sh.state_.frames.size() > 1;
    uint32_t scope = (global || !in_function) ? 0 : sh.state_.frames.back().scope;
    if (local_mode) scope = sh.state_.frames.back().scope;

    if (funcs) {
        std::string out;
        int status = 0;
        if (i >= argv.size()) {
            std::vector<std::string> names;
            for (const auto& [k, f] : sh.state_.funcs) names.push_back(k);
            std::sort(names.begin(), names.end());
            for (const auto& n : names) {
                const auto& f = sh.state_.funcs[n];
                if (add && !(f->attrs & add)) continue;
                if (func_names) {
                    out += "declare -f" + std::string((f->attrs & kAttrExport) ? "x" : "") + " " + n + "\n";
                } else {
                    sh.print_function(*f, out);
                }
            }
        } else {
            for (; i < argv.size(); ++i) {
                auto it = sh.state_.funcs.find(argv[i]);
                if (it == sh.state_.funcs.end()) {
                    status = 1;
                    continue;
                }
                if (add || remove) {
                    auto nf = std::make_shared<Function>(*it->second);
                    nf->attrs = static_cast<uint16_t>((nf->attrs | (add & (kAttrExport | kAttrReadonly | kAttrTrace))) & ~remove);
                    it->second = nf;
                    continue;
                }
                if (func_names && sh.state_.opts[ShExtdebug])  // bash: the name, line and file of the definition
                    out += argv[i] + " " + std::to_string(it->second->line) + " " +
                           (it->second->source.empty() ? std::string("environment") : it->second->source) + "\n";
                else if (func_names)
                    out += argv[i] + "\n";
                else
                    sh.print_function(*it->second, out);
            }
        }
        sh.write_out(out);
        return status;
    }

    if (print || (i >= argv.size() && !add && !remove)) {
        std::string out;
        int status = 0;
        if (i >= argv.size()) {
            for (const auto& [name, v] : sh.state_.vars.visible()) {
                if (add && (v->attrs & add) != add) continue;
                if (v->dyn != DynVar::None) {
                    const Var* d = sh.lookup(*name);
                    if (!d) continue;
                    if (print || add) sh.print_declare(*name, *d, out);
                    else if (d->is_array()) out += *name + "=" + array_body(*d) + "\n";
                    else out += *name + "=" + quote_set_value(d->str()) + "\n";
                    continue;
                }
                if (!print && !add) {
                    if (!v->set && !v->is_array()) continue;
                    if (v->is_array())
                        out += *name + "=" + array_body(*v) + "\n";
                    else
                        out += *name + "=" + quote_set_value(v->str()) + "\n";
                    continue;
                }
                sh.print_declare(*name, *v, out);
            }
        } else {
            for (; i < argv.size(); ++i) {
                const std::string& n = argv[i];
                const Var* v = sh.state_.vars.find(n);
                if (v && v->dyn != DynVar::None) v = sh.lookup(n);
                if (!v) {
                    sh.builtin_error(cmd, n + ": not found");
                    status = 1;
                    continue;
                }
                sh.print_declare(n, *v, out);
            }
        }
        sh.write_out(out);
        return status;
    }

    int status = 0;
    for (; i < argv.size(); ++i) {
        const sx::Assign* as = decl_at(i);
        std::string name;
        std::string value;
        bool has_value = false;
        bool append = false;
        if (as) {
            name = std::string(as->name);
        } else {
            const std::string& s = argv[i];
            size_t eq = s.find('=');
            if (eq == std::string::npos) {
                name = s;
            } else {
                name = s.substr(0, eq);
                value = s.substr(eq + 1);
                has_value = true;
                if (!name.empty() && name.back() == '+') {
                    append = true;
                    name.pop_back();
                }
            }
        }
        size_t lb = name.find('[');
        std::string base = name.substr(0, lb);
        // NAME or NAME[SUBSCRIPT]: `a[`, `a[]` and `a[1]x` are no identifiers
        if (!valid_name(base) || (lb != std::string::npos && (name.back() != ']' || name.size() < lb + 3))) {
            sh.builtin_error(cmd, "`" + argv[i] + "': not a valid identifier");
            status = 1;
            continue;
        }
        // The value is expanded before the binding exists (`local a=("${a[@]}")` reads the outer a).
        // Expanded by the command line (ctx.decls, not copied: a value may be large) or here.
        Exec::AssignValue own_value;
        const Exec::AssignValue* preval = as ? ctx.decls->value(i) : nullptr;
        if (!preval && as) {
            preval = &own_value;
            Outcome r = sh.eval_assign_value(as, own_value, (add & kAttrAssoc) ? 1 : -1);
            if (r == Outcome::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Outcome::Ok) {
                status = 1;
                continue;
            }
        }
        // declare -n NAME=VALUE: VALUE must name a variable or an element, else nothing changes.
        if ((add & kAttrNameref) && !(remove & kAttrNameref) && (has_value || (as && !preval->is_array))) {
            const std::string& target = as ? preval->scalar : value;
            if (target.empty()) {
                sh.builtin_error(cmd, "`': not a valid identifier");
                status = 1;
                continue;
            }
            if (!valid_name(target.substr(0, target.find('[')))) {
                sh.builtin_error(cmd, "`" + target + "': invalid variable name for name reference");
                status = 1;
                continue;
            }
        }
        // The binding to work on.
        Var* v = nullptr;
        if (scope == 0 && !global) {
            v = sh.state_.vars.find(base);
            if (!v || (in_function && false)) v = &sh.state_.vars.global(base);
        } else if (scope == 0) {
            v = &sh.state_.vars.global(base);
        } else {
            bool created = false;
            Var* outer = sh.state_.vars.find(base);
            // A readonly global cannot get a local copy (a readonly local of a caller can).
            if (outer && outer->readonly() && sh.state_.vars.scope_of(base) == 0) {
                sh.builtin_error(cmd, base + ": readonly variable");
                status = 1;
                continue;
            }
            Var copy_from;
            bool inherit = outer && sh.state_.opts[ShLocalvarInherit];
            if (inherit) copy_from = *outer;
            v = &sh.state_.vars.declare_at(base, scope, &created);
            if (created && inherit) {
                *v = copy_from;
                v->attrs &= static_cast<uint16_t>(~kAttrReadonly);
            }
        }
        if (v->readonly() && (has_value || as || (remove & kAttrReadonly) || add)) {
            if (has_value || as) {
                sh.builtin_error(cmd, base + ": readonly variable");
                status = 1;
                continue;
            }
            if (remove & kAttrReadonly) {
                sh.builtin_error(cmd, base + ": readonly variable");
                status = 1;
                continue;
            }
        }
        if ((add & kAttrAssoc) && v->is_indexed()) {
            sh.builtin_error(cmd, base + ": cannot convert indexed to associative array");
            status = 1;
            continue;
        }
        if ((add & kAttrIndexed) && v->is_assoc()) {
            sh.builtin_error(cmd, base + ": cannot convert associative to indexed array");
            status = 1;
            continue;
        }
        if (v->dyn != DynVar::None && (add || remove)) v->dyn = DynVar::None;
        // Attributes first, so the value is converted.
        uint16_t newattrs = static_cast<uint16_t>((v->attrs | add) & ~remove & ~kAttrReadonly);
        if (add & kAttrUpper) newattrs &= static_cast<uint16_t>(~kAttrLower);
        if (add & kAttrLower) newattrs &= static_cast<uint16_t>(~kAttrUpper);
        if ((add & kAttrIndexed) && !v->is_indexed()) {
            auto arr = std::make_shared<IndexedArray>();
            if (v->set) arr->slot(0) = v->str();
            v->str_mut().clear();
            v->idx = std::move(arr);
        }
        if ((add & kAttrAssoc) && !v->is_assoc()) {
            v->assoc = std::make_shared<AssocArray>();
            if (v->set && !v->str().empty()) v->assoc->slot("0") = v->str();
            v->str_mut().clear();
        }
        if ((newattrs & kAttrNameref) && !(v->attrs & kAttrNameref) && !has_value && !as && v->set) {
            // declare -n on an existing variable: its value becomes the target name.
            if (!valid_name(v->str())) {
                sh.builtin_error(cmd, v->str() + ": invalid variable name for name reference");
                status = 1;
                continue;
            }
        }
        v->attrs = static_cast<uint16_t>(newattrs | (v->attrs & kAttrReadonly));
        if (as) {
            if (as->is_array && !v->is_array() && !(v->attrs & kAttrNameref)) {
                v->attrs |= kAttrIndexed;
                v->idx = std::make_shared<IndexedArray>();
                // `declare s+=(x)` at the top level keeps the scalar as [0]; in a function bash starts anew
                if (as->append && v->set && scope == 0) v->idx->slot(0) = v->str();
                v->str_mut().clear();
            }
            Outcome r = sh.do_assign(as, scope == 0 && !global ? (sh.state_.vars.scope_of(base) < 0 ? 0 : static_cast<uint32_t>(sh.state_.vars.scope_of(base))) : scope, 0, preval);
            if (r == Outcome::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Outcome::Ok) status = 1;
            v = sh.state_.vars.find(base);
            if (v && (add & kAttrNameref) && v->set && !valid_name(v->str().substr(0, v->str().find('[')))) {
                sh.builtin_error(cmd, "`" + v->str() + "': invalid variable name for name reference");
                v->attrs &= static_cast<uint16_t>(~kAttrNameref);
                status = 1;
            }
        } else if (has_value) {
            if (v->attrs & kAttrNameref) {
                v->set_str(value);
                v->set = true;
            } else if (name.find('[') != std::string::npos && name.back() == ']') {
                std::string key = name.substr(base.size() + 1, name.size() - base.size() - 2);
                if (!sh.assign_elem_text(base, key, value, append)) status = 1;
            } else if (v->is_array() && value.size() >= 2 && value.front() == '(' && value.back() == ')') {
                // `declare -a "x=(1 $y)"`: for an array, a value in parentheses is parsed and expanded as a
                // compound assignment, as bash does.
                sx::ParseResult pr = sx::parse(base + (append ? "+=" : "=") + value);
                const sx::Simple* simple = nullptr;
                if (pr.ok() && pr.script->body.size == 1 && pr.script->body[0]->cmd &&
                    pr.script->body[0]->cmd->kind == sx::NodeKind::Simple)
                    simple = pr.script->body[0]->cmd->as<sx::Simple>();
                if (!simple || simple->assigns.size != 1 || !simple->words.empty() || !simple->assigns[0]->is_array) {
                    if (!sh.assign_to(*v, base, value, append)) status = 1;
                } else {
                    Outcome r = sh.do_assign(simple->assigns[0],
                                        scope == 0 && !global ? (sh.state_.vars.scope_of(base) < 0
                                                                     ? 0
                                                                     : static_cast<uint32_t>(sh.state_.vars.scope_of(base)))
                                                              : scope);
                    if (r == Outcome::Fatal) return {1, Flow::Exit};
                    if (r != Outcome::Ok) status = 1;
                    v = sh.state_.vars.find(base);
                }
            } else if (!sh.assign_to(*v, base, value, append)) {
                status = 1;
            }
        } else if (v->is_array() && !v->set) {
            // `declare -a a` leaves it declared without elements.
        }
        if (v && (add & kAttrReadonly)) v->attrs |= kAttrReadonly;
    }
    return status;
}

BuiltinResult builtin_declare(BuiltinContext& ctx) {
    return declare_impl(ctx, ctx.args[0], false);
}

BuiltinResult builtin_local(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    if (sh.call_depth_ == 0 || sh.state_.frames.size() <= 1) return sh.builtin_error("local", "can only be used in a function");
    return declare_impl(ctx, "local", true);
}

BuiltinResult builtin_export(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool unexport = false, funcs = false, print = false;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (ctx.decls && ctx.decls->node(i)) break;
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'n') unexport = true;
            else if (s[k] == 'f') funcs = true;
            else if (s[k] == 'p') print = true;
            else {
                sh.builtin_error("export", std::string("-") + s[k] + ": invalid option");
                sh.write_err("export: usage: export [-fn] [name[=value] ...] or export -p\n");
                return 2;
            }
        }
    }
    if (i >= a.size() || (print && i >= a.size())) {
        std::string out;
        if (funcs) {
            for (const auto& [k, f] : sh.state_.funcs)
                if (f->attrs & kAttrExport) sh.print_function(*f, out);
        } else {
            for (const auto& [name, v] : sh.state_.vars.visible())
                if (v->attrs & kAttrExport) sh.print_declare(*name, *v, out);
        }
        sh.write_out(out);
        return 0;
    }
    if (funcs) {
        int status = 0;
        for (; i < a.size(); ++i) {
            auto it = sh.state_.funcs.find(a[i]);
            if (it == sh.state_.funcs.end()) {
                sh.builtin_error("export", a[i] + ": not a function");
                status = 1;
                continue;
            }
            auto nf = std::make_shared<Function>(*it->second);
            if (unexport) nf->attrs &= static_cast<uint16_t>(~kAttrExport);
            else nf->attrs |= kAttrExport;
            it->second = nf;
        }
        return status;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        const sx::Assign* as = ctx.decls ? ctx.decls->node(i) : nullptr;
        std::string name;
        if (as) {
            name = std::string(as->name);
            Outcome r = sh.do_assign(as, UINT32_MAX, 0, ctx.decls->value(i));
            if (r == Outcome::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Outcome::Ok) {
                status = 1;
                continue;
            }
        } else {
            const std::string& s = a[i];
            size_t eq = s.find('=');
            name = s.substr(0, eq);
            bool append = false;
            if (eq != std::string::npos && !name.empty() && name.back() == '+') {
                append = true;
                name.pop_back();
            }
            if (!valid_name(name)) {
                sh.builtin_error("export", "`" + s + "': not a valid identifier");
                status = 1;
                continue;
            }
            if (eq != std::string::npos && !sh.assign(name, s.substr(eq + 1), append)) {
                status = 1;
                continue;
            }
        }
        Var* v = sh.lookup_mut(name);
        if (!v) v = &sh.state_.vars.lookup_or_create(name);
        if (unexport)
            v->attrs &= static_cast<uint16_t>(~kAttrExport);
        else
            v->attrs |= kAttrExport;
    }
    return status;
}

BuiltinResult builtin_readonly(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool funcs = false, print = false;
    uint16_t type = 0;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (ctx.decls && ctx.decls->node(i)) break;
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'f') funcs = true;
            else if (s[k] == 'p') print = true;
            else if (s[k] == 'a') type = kAttrIndexed;
            else if (s[k] == 'A') type = kAttrAssoc;
            else {
                sh.builtin_error("readonly", std::string("-") + s[k] + ": invalid option");
                return 2;
            }
        }
    }
    if (i >= a.size()) {
        std::string out;
        if (funcs) {
            for (const auto& [k, f] : sh.state_.funcs)
                if (f->attrs & kAttrReadonly) sh.print_function(*f, out);
        } else {
            for (const auto& [name, v] : sh.state_.vars.visible())
                if (v->attrs & kAttrReadonly) sh.print_declare(*name, *v, out);
        }
        (void)print;
        sh.write_out(out);
        return 0;
    }
    if (funcs) {
        int status = 0;
        for (; i < a.size(); ++i) {
            auto it = sh.state_.funcs.find(a[i]);
            if (it == sh.state_.funcs.end()) {
                sh.builtin_error("readonly", a[i] + ": not a function");
                status = 1;
                continue;
            }
            auto nf = std::make_shared<Function>(*it->second);
            nf->attrs |= kAttrReadonly;
            it->second = nf;
        }
        return status;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        const sx::Assign* as = ctx.decls ? ctx.decls->node(i) : nullptr;
        std::string name;
        if (as) {
            name = std::string(as->name);
            Var* cur = sh.lookup_mut(name);
            if (type && (!cur || !cur->is_array())) {
                Var& nv = cur ? *cur : sh.state_.vars.lookup_or_create(name);
                nv.attrs |= type;
                if (type == kAttrAssoc) nv.assoc = std::make_shared<AssocArray>();
                else nv.idx = std::make_shared<IndexedArray>();
            }
            Outcome r = sh.do_assign(as, UINT32_MAX, 0, ctx.decls->value(i));
            if (r == Outcome::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Outcome::Ok) {
                status = 1;
                continue;
            }
        } else {
            const std::string& s = a[i];
            size_t eq = s.find('=');
            name = s.substr(0, eq);
            if (!valid_name(name)) {
                sh.builtin_error("readonly", "`" + s + "': not a valid identifier");
                status = 1;
                continue;
            }
            if (eq != std::string::npos && !sh.assign(name, s.substr(eq + 1))) {
                status = 1;
                continue;
            }
        }
        Var* v = sh.lookup_mut(name);
        if (!v) v = &sh.state_.vars.lookup_or_create(name);
        // `readonly -a name` without a value only makes name readonly (bash 5.2: `declare -r name`).
        const bool bare = !as && a[i].find('=') == std::string::npos;
        if (type && !v->is_array() && !bare) {
            v->attrs |= type;
            if (type == kAttrAssoc) v->assoc = std::make_shared<AssocArray>();
            else v->idx = std::make_shared<IndexedArray>();
        }
        v->attrs |= kAttrReadonly;
    }
    return status;
}

}  // namespace bashkit::interp

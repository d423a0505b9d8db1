// jq 1.7.1's modules: `import`/`include` directives resolved along its search rules (linker.c: the
// directive's `search` metadata or "." and the -L folders; `~/` is $HOME, `$ORIGIN/` the folder of the jq
// binary, taken as /usr/bin; a relative folder is relative to the importing module's folder; for each folder
// PATH.jq, PATH/jq/main.jq, then PATH/BASENAME.jq), read from the sandbox's files through the Host.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "utils/jq/engine_impl.hpp"

namespace bashkit::utils::jq {

namespace {

constexpr int kMaxModuleDepth = 64;  // nested imports (a cycle would never end)

// Lexical normalisation of an absolute path: no ".", "..", or repeated "/".
std::string normalize(const std::string& path) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i <= path.size()) {
        size_t e = path.find('/', i);
        if (e == std::string::npos) e = path.size();
        std::string c = path.substr(i, e - i);
        if (c == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!c.empty() && c != ".") {
            parts.push_back(c);
        }
        i = e + 1;
    }
    std::string out;
    for (const auto& p : parts) out += "/" + p;
    return out.empty() ? "/" : out;
}

std::string absolute(const Host& h, const std::string& p) {
    if (!p.empty() && p[0] == '/') return normalize(p);
    return normalize(h.cwd + "/" + p);
}

std::string dirname_of(const std::string& p) {
    size_t s = p.rfind('/');
    if (s == std::string::npos) return ".";
    if (s == 0) return "/";
    return p.substr(0, s);
}

// validate_relpath: the message, or "" when the name is usable.
std::string check_relpath(const std::string& name) {
    if (name.find('\\') != std::string::npos)
        return "Modules must be named by relative paths using '/', not '\\' (" + name + ")";
    std::string prev;
    size_t i = 0, k = 0;
    while (i <= name.size()) {
        size_t e = name.find('/', i);
        if (e == std::string::npos) e = name.size();
        std::string c = name.substr(i, e - i);
        if (c == "..") return "Relative paths to modules may not traverse to parent directories (" + name + ")";
        if (k > 0 && c == prev) return "module names must not have equal consecutive components: " + name;
        prev = c;
        ++k;
        i = e + 1;
    }
    return "";
}

// find_lib: the module's absolute path and text; false with the message.
bool find_lib(Host& h, const std::string& rel, const Value& search, const char* suffix, const std::string* origin,
              std::string& found, std::string& text, int& read_err, std::string& err) {
    err = check_relpath(rel);
    if (!err.empty()) return false;
    if (!search.is_array()) {
        err = "Module search path must be an array";
        return false;
    }
    std::string bname = rel;
    if (size_t s = rel.rfind('/'); s != std::string::npos) bname = rel.substr(s);
    for (const Value& sp : search.arr()) {
        if (!sp.is_string()) continue;
        std::string dir(sp.str());
        if (dir == "~" || dir.rfind("~/", 0) == 0) {
            if (h.home.empty()) continue;
            dir = h.home + dir.substr(1);
        }
        if (dir.rfind("$ORIGIN/", 0) == 0) {
            dir = "/usr/bin/" + dir.substr(8);
        } else if (dir != "." && origin && dir[0] != '/') {
            dir = *origin + "/" + dir;
        }
        if (dir.empty()) continue;
        for (const std::string& cand :
             {dir + "/" + rel + suffix, dir + "/" + rel + "/jq/main" + suffix, dir + "/" + rel + "/" + bname + suffix}) {
            std::string path = absolute(h, cand);
            int e = h.read_file(path, text);
            if (e == ENOENT || e == ENOTDIR) continue;
            found = path;
            read_err = e;
            return true;
        }
    }
    err = "module not found: " + rel;
    return false;
}

Value default_search(const Host& h, const Import& imp) {
    const Value* s = imp.meta.is_object() ? imp.meta.get("search") : nullptr;
    if (!s) {
        Value a = Value::array({Value::string(".")});
        for (const auto& d : h.lib_dirs) a.arr_mut().push_back(Value::string(d));
        return a;
    }
    if (!s->is_array()) return Value::array({*s});
    return *s;
}

struct Linker {
    Host& h;
    std::string& errors;
    int& nerrors;
    std::map<std::string, std::shared_ptr<Program>> loaded;  // code modules by path
    std::vector<std::string> linking;                         // the modules being linked (a cycle is an error)
};

bool link(Linker& L, Program& p, const std::string& origin, int depth) {
    if (depth > kMaxModuleDepth) {
        L.errors += "jq: error: modules nested too deeply\n";
        ++L.nerrors;
        return false;
    }
    for (Import& imp : p.imports) {
        const bool optional = imp.meta.is_object() && imp.meta.get("optional") &&
                              imp.meta.get("optional")->kind() == Kind::True;
        std::string path, text, err;
        int read_err = 0;
        if (!find_lib(L.h, imp.relpath, default_search(L.h, imp), imp.is_data ? ".json" : ".jq", &origin, path, text,
                      read_err, err)) {
            if (optional) continue;
            L.errors += "jq: error: " + err + "\n\n";  // jq reports it with a newline, then prints one
            ++L.nerrors;
            return false;
        }
        if (read_err != 0) {
            if (optional) continue;
            L.errors += "jq: error loading data file " + path + ": " + std::strerror(read_err) + "\n\n";
            ++L.nerrors;
            return false;
        }
        if (imp.is_data) {
            const bool raw = imp.meta.is_object() && imp.meta.get("raw") && imp.meta.get("raw")->kind() == Kind::True;
            if (raw) {
                imp.data = Value::string(fix_utf8(std::move(text)));
                continue;
            }
            std::vector<Value> all;
            if (!parse_json_all(text, all, err)) {
                L.errors += "jq: error loading data file " + path + ": " + err + "\n\n";
                ++L.nerrors;
                return false;
            }
            imp.data = Value::array(std::move(all));
            continue;
        }
        if (auto it = L.loaded.find(path); it != L.loaded.end()) {
            imp.module = it->second;
            continue;
        }
        if (std::find(L.linking.begin(), L.linking.end(), path) != L.linking.end()) {
            L.errors += "jq: error: circular import of " + path + "\n\n";
            ++L.nerrors;
            return false;
        }
        std::string errs;
        int n = 0;
        auto m = parse_program(text, errs, n, path);
        if (!m) {
            L.errors += errs;
            L.nerrors += n;
            return false;
        }
        if (!m->library()) {
            L.errors += "jq: error: library should only have function definitions, not a main expression at " +
                        path + ", line 1:\n";
            ++L.nerrors;
            return false;
        }
        L.linking.push_back(path);
        const bool ok = link(L, *m, dirname_of(path), depth + 1);
        L.linking.pop_back();
        if (!ok) return false;
        L.loaded[path] = m;
        imp.module = m;
    }
    return true;
}

}  // namespace

bool link_program(Program& p, Host& host, std::string& errors, int& nerrors) {
    Linker L{host, errors, nerrors, {}};
    // jq includes ~/.jq, when it is a file, into the main program.
    if (!host.home.empty()) {
        std::string text;
        if (host.read_file(absolute(host, host.home + "/.jq"), text) == 0) {
            Import imp;
            imp.relpath = "";
            imp.meta = Value::object();
            imp.meta.set("optional", Value::boolean(true));
            imp.meta.set("search", Value::string(host.home));
            p.imports.insert(p.imports.begin(), std::move(imp));
        }
    }
    const std::string origin = host.prog_origin.empty() ? absolute(host, ".") : absolute(host, host.prog_origin);
    return link(L, p, origin, 0);
}

Value module_meta(Host& host, const Value& name) {
    if (!name.is_string()) jq_error("modulemeta input module not a string");
    Value dirs = Value::array();
    for (const auto& d : host.lib_dirs) dirs.arr_mut().push_back(Value::string(d));
    std::string path, text, err;
    int read_err = 0;
    if (!find_lib(host, std::string(name.str()), dirs, ".jq", nullptr, path, text, read_err, err)) jq_error(err);
    if (read_err != 0) return Value();
    std::string errs;
    int n = 0;
    auto m = parse_program(text, errs, n, path);
    if (!m) return Value();
    Value meta = m->module_meta.is_object() ? m->module_meta : Value::object();
    Value deps = Value::array();
    for (const Import& imp : m->imports) {
        Value d = imp.meta.is_object() ? imp.meta : Value::object();
        if (!imp.as.empty()) d.set("as", Value::string(imp.as));
        d.set("is_data", Value::boolean(imp.is_data));
        d.set("relpath", Value::string(imp.relpath));
        deps.arr_mut().push_back(std::move(d));
    }
    meta.set("deps", std::move(deps));
    Value defs = Value::array();
    for (const Node* r = m->root; r && r->op == Op::FuncDefs; r = r->kids.back()) {
        for (size_t i = 0; i + 1 < r->kids.size(); ++i) {
            defs.arr_mut().push_back(
                Value::string(r->kids[i]->name + "/" + std::to_string(r->kids[i]->params.size())));
        }
    }
    meta.set("defs", std::move(defs));
    return meta;
}

}  // namespace bashkit::utils::jq

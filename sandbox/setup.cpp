#include "sandbox/setup.hpp"

#include <string>
#include <utility>
#include <vector>

#include "builtins/registry.hpp"

namespace bashkit::sandbox {
namespace {

// ~/.gitconfig as (section, key, value) in file order; only the "[section]" and "key = value" forms.
using Entries = std::vector<std::pair<std::string, std::string>>;  // "section.key" -> value

std::string setup_trim(std::string s) {
    size_t b = s.find_first_not_of(" \t\r");
    size_t e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string unquote(std::string v) {
    v = setup_trim(v);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        std::string out;
        for (size_t i = 1; i + 1 < v.size(); ++i) {
            if (v[i] == '\\' && i + 2 < v.size()) ++i;
            out += v[i];
        }
        return out;
    }
    return v;
}

Entries parse_config(const std::string& text) {
    Entries e;
    std::string section;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        std::string line = setup_trim(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        start = nl == std::string::npos ? text.size() : nl + 1;
        if (line.empty() || line[0] == '#' || line[0] == ';') continue;
        if (line[0] == '[') {
            section = setup_trim(line.substr(1, line.find(']') - 1));
            continue;
        }
        size_t eq = line.find('=');
        std::string key = setup_trim(line.substr(0, eq));
        std::string value = eq == std::string::npos ? "true" : unquote(line.substr(eq + 1));
        e.emplace_back(section + "." + key, value);
    }
    return e;
}

std::string format_config(const Entries& e) {
    std::vector<std::string> sections;
    for (const auto& [k, v] : e) {
        std::string s = k.substr(0, k.rfind('.'));
        bool seen = false;
        for (const auto& x : sections) seen = seen || x == s;
        if (!seen) sections.push_back(s);
    }
    std::string out;
    for (const auto& s : sections) {
        out += "[" + s + "]\n";
        for (const auto& [k, v] : e) {
            if (k.substr(0, k.rfind('.')) != s) continue;
            bool quote = v.empty() || v.front() == ' ' || v.back() == ' ' || v.find_first_of(";#\"\\") != std::string::npos;
            std::string val = v;
            if (quote) {
                val = "\"";
                for (char c : v) {
                    if (c == '"' || c == '\\') val += '\\';
                    val += c;
                }
                val += "\"";
            }
            out += "\t" + k.substr(k.rfind('.') + 1) + " = " + val + "\n";
        }
    }
    return out;
}

int git_command(interp::CommandContext& ctx) {
    const auto& argv = ctx.argv;
    if (argv.size() < 2 || argv[1] != "config") {
        ctx.error(argv.size() < 2 ? "usage: git config [--global] [--get|--unset|--list] [KEY [VALUE]]"
                                  : "'" + argv[1] + "' is not available in this sandbox (only git config)");
        return 1;
    }
    enum class Op { get_or_set, get, unset, list } op = Op::get_or_set;
    std::vector<std::string> rest;
    for (size_t i = 2; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--global") continue;
        if (a == "--get") op = Op::get;
        else if (a == "--unset") op = Op::unset;
        else if (a == "--list" || a == "-l") op = Op::list;
        else if (a.size() > 1 && a[0] == '-') {
            ctx.error("config: unsupported option '" + a + "'");
            return 129;
        } else rest.push_back(a);
    }
    const std::string* home = ctx.env.get("HOME");
    if (!home || home->empty()) {
        ctx.error("config: $HOME is not set");
        return 128;
    }
    std::string path = ctx.resolve(*home + "/.gitconfig");
    std::string text;
    if (auto r = ctx.fs.read_file(path, 1u << 20)) text = *r;
    Entries e = parse_config(text);
    auto key_ok = [&](const std::string& k) {
        size_t dot = k.rfind('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == k.size()) {
            ctx.error("config: key does not contain a section: " + k);
            return false;
        }
        return true;
    };
    auto lower = [](std::string s) {
        for (char& c : s) c = char(c >= 'A' && c <= 'Z' ? c + 32 : c);
        return s;
    };
    if (op == Op::list) {
        for (const auto& [k, v] : e) (void)ctx.out.write(lower(k) + "=" + v + "\n");
        return 0;
    }
    if (rest.empty() || rest.size() > 2 || (op != Op::get_or_set && rest.size() != 1)) {
        ctx.error("usage: git config [--global] [--get|--unset|--list] [KEY [VALUE]]");
        return 129;
    }
    if (!key_ok(rest[0])) return 1;
    std::string key = lower(rest[0]);
    if (rest.size() == 1 && op != Op::unset) {
        std::optional<std::string> found;
        for (const auto& [k, v] : e)
            if (lower(k) == key) found = v;
        if (!found) return 1;
        (void)ctx.out.write(*found + "\n");
        return 0;
    }
    Entries next;
    bool replaced = false;
    for (auto& [k, v] : e) {
        if (lower(k) != key) {
            next.emplace_back(k, v);
        } else if (op == Op::get_or_set && !replaced) {
            next.emplace_back(k, rest[1]);
            replaced = true;
        }
    }
    if (op == Op::get_or_set && !replaced) next.emplace_back(rest[0], rest[1]);
    if (op == Op::unset && next.size() == e.size()) return 5;
    if (auto s = ctx.fs.write_file(path, format_config(next)); !s) {
        ctx.error("config: could not write " + path + ": " + std::string(vfs::error_message(s.error())));
        return 4;
    }
    return 0;
}

}  // namespace

void register_commands(interp::CommandRegistry& registry, bool git_config) {
    builtins::register_all(registry);
    if (git_config && !registry.find("git")) {
        registry.add("git", "git config [--global] [--get|--unset|--list] [KEY [VALUE]]: ~/.gitconfig only", git_command);
    }
}

const interp::CommandRegistry& default_registry() {
    static const interp::CommandRegistry r = [] {
        interp::CommandRegistry reg;
        register_commands(reg);
        return reg;
    }();
    return r;
}

std::unique_ptr<net::HttpClient> make_http_client(net::ClientOptions options) {
    return std::make_unique<net::HttpClient>(std::move(options));
}

}  // namespace bashkit::sandbox

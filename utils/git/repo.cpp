// Repository discovery, refs (loose, packed, symbolic HEAD, reflogs), revision parsing, config files,
// identity, and the index file (read v2-v4, written as v2).
#include <algorithm>
#include <cstring>

#include "utils/git/core.hpp"

namespace bashkit::utils::git {

Repo::Repo(CommandContext& c, std::string gd, std::string wt)
    : ctx(c), fs(c.fs), gitdir(std::move(gd)), worktree(std::move(wt)) {}

void Repo::write_file_atomic(const std::string& path, std::string_view data) {
    std::string tmp = path + ".lock";
    if (auto s = fs.open(tmp, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive, 0644); !s) {
        if (s.error() == vfs::Errc::file_exists)
            throw Fatal{"Unable to create '" + tmp + "': File exists.\n\nAnother git process seems to be running in this repository, e.g.\nan editor opened by 'git commit'. Please make sure all processes\nare terminated then try again. If it still fails, a git process\nmay have crashed in this repository earlier:\nremove the file manually to continue."};
        throw Fatal{"Unable to create '" + tmp + "': " + std::string(vfs::error_message(s.error()))};
    }
    if (auto s = fs.write_file(tmp, data); !s) {
        (void)fs.unlink(tmp);
        throw Fatal{"unable to write " + path + ": " + std::string(vfs::error_message(s.error()))};
    }
    if (auto s = fs.rename(tmp, path); !s) {
        (void)fs.unlink(tmp);
        throw Fatal{"unable to write " + path + ": " + std::string(vfs::error_message(s.error()))};
    }
}

// ---------------------------------------------------------------------------------------------------------
// Refs

bool Repo::valid_ref_name(const std::string& name) {
    if (name.empty() || name.front() == '/' || name.back() == '/' || name.back() == '.' || name.find("..") != std::string::npos ||
        name.find("//") != std::string::npos || name.find("@{") != std::string::npos || name == "@")
        return false;
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\')
            return false;
    for (size_t i = 0; i < name.size();) {
        size_t e = name.find('/', i);
        if (e == std::string::npos) e = name.size();
        std::string_view comp(name.data() + i, e - i);
        if (comp.empty() || comp.front() == '.' || comp.ends_with(".lock")) return false;
        i = e + 1;
    }
    return true;
}

void Repo::load_packed_refs() {
    if (packed_loaded_) return;
    packed_loaded_ = true;
    auto text = fs.read_file(gitdir + "/packed-refs", kMaxIndexBytes);
    if (!text) return;
    size_t i = 0;
    while (i < text->size()) {
        check_cancel(ctx);
        size_t nl = text->find('\n', i);
        if (nl == std::string::npos) nl = text->size();
        std::string_view line(text->data() + i, nl - i);
        i = nl + 1;
        if (line.empty() || line[0] == '#' || line[0] == '^') continue;
        if (line.size() > 41 && line[40] == ' ' && is_hex_oid(line.substr(0, 40)))
            packed_refs_[std::string(line.substr(41))] = std::string(line.substr(0, 40));
    }
}

std::optional<std::string> Repo::read_ref_raw(const std::string& name) {
    if (name != "HEAD" && !valid_ref_name(name)) return std::nullopt;
    if (auto r = fs.read_file(gitdir + "/" + name, 4096)) {
        std::string v = *r;
        while (!v.empty() && (v.back() == '\n' || v.back() == '\r' || v.back() == ' ')) v.pop_back();
        return v;
    }
    load_packed_refs();
    auto it = packed_refs_.find(name);
    if (it != packed_refs_.end()) return it->second;
    return std::nullopt;
}

std::optional<std::string> Repo::resolve_ref(const std::string& name, int depth) {
    if (depth > 5) return std::nullopt;
    auto raw = read_ref_raw(name);
    if (!raw) return std::nullopt;
    if (raw->starts_with("ref: ")) return resolve_ref(raw->substr(5), depth + 1);
    if (is_hex_oid(*raw)) return *raw;
    return std::nullopt;
}

std::string Repo::head_ref() {
    auto raw = read_ref_raw("HEAD");
    if (raw && raw->starts_with("ref: ")) return raw->substr(5);
    return "";
}

std::string Repo::reflog_identity() {
    Signature s = identity(true, false);
    return s.raw;
}

void Repo::update_ref(const std::string& name, const std::string& oid, const std::string& old_oid,
                      const std::string& msg, RefWrite how) {
    if (name != "HEAD" && !valid_ref_name(name)) throw Fatal{"'" + name + "' is not a valid ref name"};
    std::string target = name;
    if (name == "HEAD" && how.deref) {
        std::string h = head_ref();
        if (!h.empty()) target = h;
    }
    std::string path = gitdir + "/" + target;
    std::string failed;
    if (auto s = fs.mkdir_all(vfs::path_dirname(path), 0755, &failed); !s)
        throw Fatal{"cannot lock ref '" + target + "': unable to create directory for " + path};
    write_file_atomic(path, oid + "\n");
    auto logged_without_message = [&] {
        return target == "HEAD" || target.starts_with("refs/heads/") || target.starts_with("refs/remotes/") ||
               target.starts_with("refs/notes/") || fs.lstat(gitdir + "/logs/" + target);
    };
    if ((!msg.empty() || (how.log_without_message && logged_without_message())) &&
        config.get_bool("core.logallrefupdates", !worktree.empty())) {
        std::string line = (old_oid.empty() ? kNullOid : old_oid) + " " + oid + " " + reflog_identity() +
                           (msg.empty() ? "" : "\t" + msg) + "\n";
        auto log = [&](const std::string& ref) {
            std::string lp = gitdir + "/logs/" + ref;
            (void)fs.mkdir_all(vfs::path_dirname(lp), 0755);
            (void)fs.append_file(lp, line);
        };
        log(target);
        if (target != "HEAD" && (name == "HEAD" || head_ref() == target)) log("HEAD");
    }
}

void Repo::delete_ref(const std::string& name) {
    (void)fs.unlink(gitdir + "/" + name);
    (void)fs.unlink(gitdir + "/logs/" + name);
    load_packed_refs();
    if (packed_refs_.erase(name)) {
        auto text = fs.read_file(gitdir + "/packed-refs", kMaxIndexBytes);
        if (text) {
            std::string out;
            size_t i = 0;
            bool skip_peel = false;
            while (i < text->size()) {
                size_t nl = text->find('\n', i);
                if (nl == std::string::npos) nl = text->size();
                std::string line = text->substr(i, nl - i);
                i = nl + 1;
                if (line.size() > 41 && line[40] == ' ' && line.substr(41) == name) {
                    skip_peel = true;
                    continue;
                }
                if (skip_peel && !line.empty() && line[0] == '^') continue;
                skip_peel = false;
                out += line + "\n";
            }
            write_file_atomic(gitdir + "/packed-refs", out);
        }
    }
}

void Repo::set_symref(const std::string& name, const std::string& target) {
    write_file_atomic(gitdir + "/" + name, "ref: " + target + "\n");
}

std::map<std::string, std::string> Repo::refs(const std::string& prefix) {
    std::map<std::string, std::string> out;
    load_packed_refs();
    for (auto& [k, v] : packed_refs_)
        if (k.starts_with(prefix)) out[k] = v;
    std::vector<std::string> stack{prefix.empty() ? "refs" : (prefix.back() == '/' ? prefix.substr(0, prefix.size() - 1) : prefix)};
    int guard = 0;
    while (!stack.empty()) {
        check_cancel(ctx);
        if (++guard > 1000000) break;
        std::string dir = stack.back();
        stack.pop_back();
        auto entries = fs.readdir(gitdir + "/" + dir);
        if (!entries) continue;
        for (auto& e : *entries) {
            std::string name = dir + "/" + e.name;
            auto st = fs.lstat(gitdir + "/" + name);
            if (!st) continue;
            if (st->is_directory()) stack.push_back(name);
            else if (st->is_regular() && !e.name.ends_with(".lock")) {
                if (auto oid = resolve_ref(name)) out[name] = *oid;
            }
        }
    }
    return out;
}

static std::optional<std::string> peel_to(Repo& r, std::string oid, ObjType want) {
    for (int i = 0; i < 100; ++i) {
        Object o = r.read(oid);
        if (want == ObjType::none && o.type != ObjType::tag) return oid;
        if (o.type == want) return oid;
        if (o.type == ObjType::tag) {
            oid = parse_tag(o.data).object;
            continue;
        }
        if (o.type == ObjType::commit && want == ObjType::tree) return parse_commit(o.data, oid).tree;
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<std::string> Repo::rev_parse(const std::string& spec_in) {
    std::string spec = spec_in;
    // Split the base from its suffixes (~N, ^N, ^{...}).
    size_t cut = spec.find_first_of("~^");
    std::string base = spec.substr(0, cut);
    std::string rest = cut == std::string::npos ? "" : spec.substr(cut);
    // <rev>:<path>
    size_t colon = spec.find(':');
    if (colon != std::string::npos && colon > 0) {
        auto c = rev_parse(spec.substr(0, colon));
        if (!c) return std::nullopt;
        auto t = peel_to(*this, *c, ObjType::tree);
        if (!t) return std::nullopt;
        std::string path = spec.substr(colon + 1);
        if (path.empty()) return t;
        auto flat = flatten(*t);
        auto it = flat.find(path);
        if (it != flat.end()) return it->second.second;
        // a directory
        std::string cur = *t;
        size_t i = 0;
        while (i <= path.size()) {
            size_t e = path.find('/', i);
            if (e == std::string::npos) e = path.size();
            std::string comp = path.substr(i, e - i);
            bool found = false;
            for (auto& te : tree(cur))
                if (te.name == comp && te.is_tree()) {
                    cur = te.oid;
                    found = true;
                }
            if (!found) return std::nullopt;
            i = e + 1;
        }
        return cur;
    }
    std::optional<std::string> oid;
    if (base == "HEAD" || base == "@" || base.empty()) {
        if (base.empty() && rest.empty()) return std::nullopt;
        oid = resolve_ref("HEAD");
    } else {
        for (const std::string& cand : {base, "refs/" + base, "refs/tags/" + base, "refs/heads/" + base,
                                        "refs/remotes/" + base, "refs/remotes/" + base + "/HEAD"}) {
            // a name in the git directory itself only when it is spelled as a pseudo-ref (HEAD, ORIG_HEAD, FOO)
            const bool pseudo = std::all_of(cand.begin(), cand.end(), [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; });
            if (cand.starts_with("refs/") || pseudo) {
                if ((oid = resolve_ref(cand))) break;
            }
        }
        if (!oid) {
            if (is_hex_oid(base) && has(base)) oid = base;
            else if (base.size() >= 4 && base.size() < 40) {
                auto m = find_prefix(base);
                if (m.size() > 1) throw Fatal{"ambiguous argument '" + spec + "': unknown revision or path not in the working tree."};
                if (m.size() == 1) oid = m[0];
            } else if (is_hex_oid(base)) {
                oid = base;
            }
        }
    }
    if (!oid) return std::nullopt;
    size_t i = 0;
    while (i < rest.size()) {
        check_cancel(ctx);
        char op = rest[i++];
        if (op == '^' && i < rest.size() && rest[i] == '{') {
            size_t close = rest.find('}', i);
            if (close == std::string::npos) return std::nullopt;
            std::string what = rest.substr(i + 1, close - i - 1);
            i = close + 1;
            ObjType want = what.empty() ? ObjType::none : type_from_name(what);
            if (!what.empty() && want == ObjType::none) return std::nullopt;
            oid = peel_to(*this, *oid, want);
            if (!oid) return std::nullopt;
            continue;
        }
        long n = 1;
        if (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') {
            n = 0;
            while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && n < 1000000) n = n * 10 + (rest[i++] - '0');
        }
        auto c = peel_to(*this, *oid, ObjType::commit);
        if (!c) return std::nullopt;
        oid = c;
        if (op == '^') {
            if (n == 0) continue;
            Commit cm = commit(*oid);
            if (size_t(n) > cm.parents.size()) return std::nullopt;
            oid = cm.parents[size_t(n - 1)];
        } else {
            for (long k = 0; k < n; ++k) {
                check_cancel(ctx);
                Commit cm = commit(*oid);
                if (cm.parents.empty()) return std::nullopt;
                oid = cm.parents[0];
            }
        }
    }
    return oid;
}

std::string Repo::must_rev(const std::string& spec) {
    auto r = rev_parse(spec);
    if (!r)
        throw Fatal{"ambiguous argument '" + spec +
                    "': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"};
    return *r;
}

// ---------------------------------------------------------------------------------------------------------
// Config

std::string normalize_key(std::string_view key) {
    size_t first = key.find('.'), last = key.rfind('.');
    if (first == std::string_view::npos || first == 0 || last + 1 == key.size()) return {};
    auto lower = [](std::string_view s) {
        std::string o(s);
        for (char& c : o) c = char(c >= 'A' && c <= 'Z' ? c + 32 : c);
        return o;
    };
    std::string out = lower(key.substr(0, first));
    if (last != first) out += std::string(key.substr(first, last - first));
    out += "." + lower(key.substr(last + 1));
    return out;
}

namespace {
struct ConfigLine {
    std::string section;  // normalised "section" or "section.sub"
    std::string key;      // lower-case; empty for a header/comment line
    std::string value;
    bool header = false;
};

std::string lower(std::string s) {
    for (char& c : s) c = char(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return s;
}

// Parses text into lines (one per physical line, continuation lines joined into the first).
std::vector<std::pair<ConfigLine, std::string>> parse_lines(std::string_view text) {
    std::vector<std::pair<ConfigLine, std::string>> out;
    std::string section;
    size_t i = 0;
    while (i < text.size()) {
        size_t nl = text.find('\n', i);
        if (nl == std::string_view::npos) nl = text.size();
        std::string raw(text.substr(i, nl - i));
        i = nl + 1;
        ConfigLine cl;
        size_t p = raw.find_first_not_of(" \t\r");
        if (p != std::string::npos && raw[p] == '[') {
            size_t close = raw.find(']', p);
            std::string inner = raw.substr(p + 1, close == std::string::npos ? std::string::npos : close - p - 1);
            size_t q = inner.find('"');
            if (q != std::string::npos) {
                std::string name = lower(inner.substr(0, q));
                while (!name.empty() && name.back() == ' ') name.pop_back();
                std::string sub;
                for (size_t k = q + 1; k < inner.size() && inner[k] != '"'; ++k) {
                    if (inner[k] == '\\' && k + 1 < inner.size()) ++k;
                    sub += inner[k];
                }
                section = name + "." + sub;
            } else {
                size_t dot = inner.find('.');
                section = dot == std::string::npos ? lower(inner) : lower(inner.substr(0, dot)) + inner.substr(dot);
            }
            cl.section = section;
            cl.header = true;
            // "[section] key = value" on the same line
            std::string after = close == std::string::npos ? "" : raw.substr(close + 1);
            size_t ap = after.find_first_not_of(" \t\r");
            if (ap == std::string::npos || after[ap] == '#' || after[ap] == ';') {
                out.push_back({cl, raw});
                continue;
            }
            out.push_back({cl, raw.substr(0, close + 1)});
            raw = after;
            p = ap;
            cl = ConfigLine{};
        }
        cl.section = section;
        if (p == std::string::npos || raw[p] == '#' || raw[p] == ';') {
            out.push_back({cl, raw});
            continue;
        }
        size_t k = p;
        while (k < raw.size() && (isalnum(static_cast<unsigned char>(raw[k])) || raw[k] == '-')) ++k;
        cl.key = lower(raw.substr(p, k - p));
        size_t eq = raw.find_first_not_of(" \t", k);
        if (eq == std::string::npos || raw[eq] != '=') {
            cl.value = "true";
            out.push_back({cl, raw});
            continue;
        }
        // value with quotes, escapes, comments and continuation lines
        std::string v, full = raw;
        bool quoted = false;
        size_t j = eq + 1;
        std::string pending_ws;
        for (;;) {
            if (j >= raw.size()) break;
            char c = raw[j++];
            if (c == '\r' && j == raw.size()) break;
            if (!quoted && (c == '#' || c == ';')) break;
            if (c == '"') {
                quoted = !quoted;
                v += pending_ws;
                pending_ws.clear();
                continue;
            }
            if (c == '\\') {
                if (j >= raw.size()) {
                    // continuation
                    if (i >= text.size()) break;
                    size_t nl2 = text.find('\n', i);
                    if (nl2 == std::string_view::npos) nl2 = text.size();
                    raw = std::string(text.substr(i, nl2 - i));
                    full += "\n" + raw;
                    i = nl2 + 1;
                    j = 0;
                    continue;
                }
                char e = raw[j++];
                v += pending_ws;
                pending_ws.clear();
                v += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e;
                continue;
            }
            if (!quoted && (c == ' ' || c == '\t')) {
                if (!v.empty()) pending_ws += c;
                continue;
            }
            v += pending_ws;
            pending_ws.clear();
            v += c;
        }
        cl.value = v;
        out.push_back({cl, full});
    }
    return out;
}

std::string quote_value(const std::string& v) {
    bool quote = !v.empty() && (v.front() == ' ' || v.back() == ' ' || v.front() == '\t' || v.back() == '\t' ||
                                v.find_first_of(";#") != std::string::npos);
    std::string out = quote ? "\"" : "";
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\', out += c;
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else out += c;
    }
    if (quote) out += '"';
    return out;
}
}  // namespace

std::vector<std::pair<std::string, std::string>> parse_config_text(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& [cl, raw] : parse_lines(text))
        if (!cl.key.empty()) out.emplace_back(cl.section + "." + cl.key, cl.value);
    return out;
}

void Config::load_text(std::string_view text) {
    for (auto& e : parse_config_text(text)) entries_.push_back(std::move(e));
}

void Config::set_override(const std::string& key, const std::string& value) {
    entries_.emplace_back(normalize_key(key), value);
}

std::optional<std::string> Config::get(const std::string& key) const {
    std::string k = normalize_key(key);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
        if (it->first == k) return it->second;
    return std::nullopt;
}

std::vector<std::string> Config::get_all(const std::string& key) const {
    std::string k = normalize_key(key);
    std::vector<std::string> out;
    for (auto& [kk, v] : entries_)
        if (kk == k) out.push_back(v);
    return out;
}

bool Config::get_bool(const std::string& key, bool fallback) const {
    auto v = get(key);
    if (!v) return fallback;
    std::string l = lower(*v);
    if (l == "true" || l == "yes" || l == "on" || l == "1") return true;
    if (l == "false" || l == "no" || l == "off" || l == "0" || l.empty()) return false;
    return fallback;
}

std::string config_edit(std::string_view text, const std::string& key_in, const std::optional<std::string>& value,
                        bool* found) {
    std::string key = normalize_key(key_in);
    size_t last = key.rfind('.');
    std::string section = key.substr(0, last), name = key.substr(last + 1);
    auto lines = parse_lines(text);
    int last_match = -1, last_section_line = -1;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].first.section == section) last_section_line = int(i);
        if (lines[i].first.section == section && lines[i].first.key == name) last_match = int(i);
    }
    if (found) *found = last_match >= 0;
    std::string out;
    auto emit = [&](const std::string& raw) { out += raw + "\n"; };
    std::string assignment = "\t" + key_in.substr(key_in.rfind('.') + 1) + " = " + (value ? quote_value(*value) : "");
    for (size_t i = 0; i < lines.size(); ++i) {
        const auto& [cl, raw] = lines[i];
        if (int(i) == last_match) {
            if (value) emit(assignment);
            else if (!cl.header) continue;
            else emit(raw);
            continue;
        }
        if (!value && cl.section == section && cl.key == name) continue;
        emit(raw);
        if (value && last_match < 0 && int(i) == last_section_line) emit(assignment);
    }
    if (!text.empty() && text.back() != '\n' && !out.empty() && lines.size() && last_match != int(lines.size()) - 1 &&
        last_section_line != int(lines.size()) - 1)
        out.pop_back();
    if (!value && last_match >= 0) {
        // git drops a section header left without any line under it
        auto kept = parse_lines(out);
        std::string pruned;
        for (size_t i = 0; i < kept.size(); ++i) {
            if (kept[i].first.header && kept[i].first.section == section &&
                (i + 1 == kept.size() || kept[i + 1].first.header))
                continue;
            pruned += kept[i].second + "\n";
        }
        out = pruned;
    }
    if (value && last_match < 0 && last_section_line < 0) {
        if (!out.empty() && out.back() != '\n') out += '\n';
        size_t dot = section.find('.');
        if (dot == std::string::npos) out += "[" + section + "]\n";
        else {
            std::string sub = section.substr(dot + 1), q;
            for (char c : sub) {
                if (c == '"' || c == '\\') q += '\\';
                q += c;
            }
            out += "[" + section.substr(0, dot) + " \"" + q + "\"]\n";
        }
        out += assignment + "\n";
    }
    return out;
}

std::string global_config_path(CommandContext& ctx) {
    const std::string* home = ctx.env.get("HOME");
    if (!home || home->empty()) return "";
    return ctx.resolve(*home + "/.gitconfig");
}

void load_global_config(CommandContext& ctx, Config& cfg) {
    std::string p = global_config_path(ctx);
    if (p.empty()) return;
    if (auto t = ctx.fs.read_file(p, kMaxConfigBytes)) cfg.load_text(*t);
}

std::unique_ptr<Repo> discover(CommandContext& ctx, const std::vector<std::pair<std::string, std::string>>& overrides) {
    auto finish = [&](std::unique_ptr<Repo> r) {
        load_global_config(ctx, r->config);
        if (auto t = ctx.fs.read_file(r->gitdir + "/config", kMaxConfigBytes)) r->config.load_text(*t);
        for (auto& [k, v] : overrides) r->config.set_override(k, v);
        if (r->config.get_bool("core.bare", false)) r->worktree.clear();
        if (!r->worktree.empty()) {
            std::string cwd = vfs::normalize_path(ctx.cwd);
            if (cwd.size() > r->worktree.size() && cwd.starts_with(r->worktree) &&
                (r->worktree == "/" || cwd[r->worktree.size()] == '/'))
                r->prefix = cwd.substr(r->worktree == "/" ? 1 : r->worktree.size() + 1) + "/";
        }
        return r;
    };
    auto is_gitdir = [&](const std::string& d) {
        auto h = ctx.fs.stat(d + "/HEAD");
        auto o = ctx.fs.stat(d + "/objects");
        return h && h->is_regular() && o && o->is_directory();
    };
    if (const std::string* gd = ctx.env.get("GIT_DIR"); gd && !gd->empty()) {
        std::string d = vfs::normalize_path(ctx.resolve(*gd));
        if (!is_gitdir(d)) return nullptr;
        std::string wt;
        if (const std::string* w = ctx.env.get("GIT_WORK_TREE")) wt = vfs::normalize_path(ctx.resolve(*w));
        else wt = vfs::normalize_path(ctx.cwd);
        return finish(std::make_unique<Repo>(ctx, d, wt));
    }
    std::string dir = vfs::normalize_path(ctx.cwd);
    for (int guard = 0; guard < 4096; ++guard) {
        std::string dotgit = dir == "/" ? "/.git" : dir + "/.git";
        auto st = ctx.fs.stat(dotgit);
        if (st && st->is_directory() && is_gitdir(dotgit)) return finish(std::make_unique<Repo>(ctx, dotgit, dir));
        if (st && st->is_regular()) {
            auto t = ctx.fs.read_file(dotgit, 4096);
            if (t && t->starts_with("gitdir: ")) {
                std::string g = t->substr(8);
                while (!g.empty() && (g.back() == '\n' || g.back() == '\r')) g.pop_back();
                g = vfs::normalize_path(vfs::join_path(dir, g));
                if (is_gitdir(g)) return finish(std::make_unique<Repo>(ctx, g, dir));
            }
        }
        // A bare repository (the cwd itself is a git dir).
        if (dir == vfs::normalize_path(ctx.cwd) && is_gitdir(dir)) {
            auto cfg = ctx.fs.read_file(dir + "/config", kMaxConfigBytes);
            Config c;
            if (cfg) c.load_text(*cfg);
            if (c.get_bool("core.bare", false)) return finish(std::make_unique<Repo>(ctx, dir, ""));
        }
        if (dir == "/") break;
        dir = vfs::path_dirname(dir);
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------------------
// Identity

Signature Repo::identity(bool committer, bool strict) {
    const char* pre = committer ? "GIT_COMMITTER_" : "GIT_AUTHOR_";
    auto env = [&](const char* what) -> std::optional<std::string> {
        if (const std::string* v = ctx.env.get(std::string(pre) + what)) return *v;
        return std::nullopt;
    };
    std::string name, email;
    if (auto v = env("NAME")) name = *v;
    else if (auto c = config.get("user.name")) name = *c;
    if (auto v = env("EMAIL")) email = *v;
    else if (auto c = config.get("user.email")) email = *c;
    else if (const std::string* e = ctx.env.get("EMAIL")) email = *e;
    if (name.empty() || email.empty()) {
        if (strict && !env("NAME") && !config.get("user.name") && !env("EMAIL") && !config.get("user.email"))
            throw Fatal{"Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n  git config --global user.email \"you@example.com\"\n  git config --global user.name \"Your Name\"\n\nto set your account's default identity.\nOmit --global to set the identity only in this repository.\n\nfatal: unable to auto-detect email address (root@bashkit)",
                        128, false};
        if (name.empty()) {
            const std::string* u = ctx.env.get("USER");
            name = u ? *u : "user";
        }
        if (email.empty()) email = (ctx.env.get("USER") ? *ctx.env.get("USER") : std::string("user")) + "@bashkit";
    }
    int64_t t = ctx.clock.now().sec;
    int tz = 0;
    if (auto d = env("DATE")) {
        if (!parse_date(*d, t, tz)) throw Fatal{"invalid date format: " + *d};
    }
    Signature s;
    s.name = name;
    s.email = email;
    s.time = t;
    s.tz = tz;
    char buf[32];
    int a = (tz < 0 ? -tz : tz) % 6000;
    snprintf(buf, sizeof buf, "%c%02d%02d", tz < 0 ? '-' : '+', a / 60, a % 60);
    s.tz_text = buf;
    s.raw = name + " <" + email + "> " + std::to_string(t) + " " + s.tz_text;
    return s;
}

// ---------------------------------------------------------------------------------------------------------
// The index

static uint32_t be32(const unsigned char* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

std::vector<IndexEntry> Repo::read_index(std::unordered_map<std::string, std::string>* cache_tree) {
    std::vector<IndexEntry> out;
    auto file = fs.read_file(gitdir + "/index", kMaxIndexBytes);
    if (!file) {
        if (file.error() == vfs::Errc::no_such_file) return out;
        throw Fatal{"index file open failed: " + std::string(vfs::error_message(file.error()))};
    }
    interp::MemoryCharge held(ctx.memory);
    held.add(file->size() * 2);
    const std::string& d = *file;
    const auto* u = reinterpret_cast<const unsigned char*>(d.data());
    if (d.size() < 12 + 20 || d.compare(0, 4, "DIRC") != 0) throw Fatal{"index file corrupt"};
    uint32_t version = be32(u + 4), count = be32(u + 8);
    if (version < 2 || version > 4) throw Fatal{"index file corrupt (bad version " + std::to_string(version) + ")"};
    if (sha1_raw(std::string_view(d).substr(0, d.size() - 20)) != d.substr(d.size() - 20))
        throw Fatal{"index file corrupt (bad signature)"};
    size_t end = d.size() - 20;
    size_t i = 12;
    std::string prev;
    if (count > end / 40) throw Fatal{"index file corrupt (entry count)"};
    out.reserve(count);
    for (uint32_t n = 0; n < count; ++n) {
        if ((n & 0xfff) == 0) check_cancel(ctx);
        if (i + 62 > end) throw Fatal{"index file corrupt"};
        IndexEntry e;
        uint32_t* f[] = {&e.ctime_s, &e.ctime_ns, &e.mtime_s, &e.mtime_ns, &e.dev, &e.ino, &e.mode, &e.uid, &e.gid, &e.size};
        for (int k = 0; k < 10; ++k) *f[k] = be32(u + i + 4 * size_t(k));
        e.oid = to_hex(d.substr(i + 40, 20));
        e.flags = uint16_t((u[i + 60] << 8) | u[i + 61]);
        size_t p = i + 62;
        if (version >= 3 && (e.flags & 0x4000)) {
            if (p + 2 > end) throw Fatal{"index file corrupt"};
            e.extended = uint16_t((u[p] << 8) | u[p + 1]);
            p += 2;
        }
        if (version == 4) {
            uint64_t strip = 0;
            unsigned char c = u[p++];
            strip = c & 0x7f;
            while (c & 0x80) {
                if (p >= end || strip > (1u << 20)) throw Fatal{"index file corrupt"};
                c = u[p++];
                strip = ((strip + 1) << 7) | (c & 0x7f);
            }
            if (strip > prev.size()) throw Fatal{"index file corrupt"};
            size_t nul = d.find('\0', p);
            if (nul == std::string::npos || nul >= end) throw Fatal{"index file corrupt"};
            e.path = prev.substr(0, prev.size() - strip) + d.substr(p, nul - p);
            i = nul + 1;
        } else {
            size_t nul = d.find('\0', p);
            if (nul == std::string::npos || nul >= end) throw Fatal{"index file corrupt"};
            e.path = d.substr(p, nul - p);
            size_t len = nul - i;  // entry bytes before the NUL
            i += (len + 8) & ~size_t(7);
        }
        if (!verify_path(e.path)) throw Fatal{"invalid path '" + e.path + "' in the index"};
        prev = e.path;
        out.push_back(std::move(e));
    }
    if (!cache_tree) return out;
    // Extensions: a signature, a 32-bit size, the data. The cache-tree is its directories in pre-order:
    // "name\0entries subtrees\n" then the tree's id when entries is not -1 (the directory changed since).
    while (i + 8 <= end) {
        uint32_t size = be32(u + i + 4);
        if (size > end - i - 8) break;
        if (d.compare(i, 4, "TREE") == 0) {
            size_t p = i + 8, stop = i + 8 + size;
            struct Level {
                std::string prefix;
                long left;
            };
            std::vector<Level> stack;
            while (p < stop) {
                check_cancel(ctx);
                size_t nul = d.find('\0', p);
                if (nul == std::string::npos || nul >= stop) break;
                std::string name = d.substr(p, nul - p);
                size_t nl = d.find('\n', nul + 1);
                if (nl == std::string::npos || nl >= stop) break;
                long entries = 0, subtrees = 0;
                if (std::sscanf(d.substr(nul + 1, nl - nul - 1).c_str(), "%ld %ld", &entries, &subtrees) != 2 || subtrees < 0 ||
                    stack.size() > 4096)
                    break;
                p = nl + 1;
                std::string path = stack.empty() ? "" : stack.back().prefix + name + "/";
                if (!stack.empty()) --stack.back().left;
                if (entries >= 0) {
                    if (p + 20 > stop) break;
                    (*cache_tree)[path] = to_hex(d.substr(p, 20));
                    p += 20;
                }
                stack.push_back({std::move(path), subtrees});
                while (!stack.empty() && stack.back().left <= 0) stack.pop_back();
            }
            if (p != stop) cache_tree->clear();  // not as git writes it: not used
        }
        i += 8 + size;
    }
    return out;
}

void Repo::write_index(std::vector<IndexEntry> entries) {
    std::stable_sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) {
        if (a.path != b.path) return a.path < b.path;
        return a.stage() < b.stage();
    });
    std::string d = "DIRC";
    put32(d, 2);
    put32(d, uint32_t(entries.size()));
    interp::MemoryCharge held(ctx.memory);
    for (auto& e : entries) {
        check_cancel(ctx);
        size_t start = d.size();
        for (uint32_t v : {e.ctime_s, e.ctime_ns, e.mtime_s, e.mtime_ns, e.dev, e.ino, e.mode, e.uid, e.gid, e.size}) put32(d, v);
        d += from_hex(e.oid);
        uint16_t flags = uint16_t((e.flags & 0x3000) | std::min<size_t>(e.path.size(), 0xfff));
        d += char(flags >> 8);
        d += char(flags & 0xff);
        d += e.path;
        size_t len = d.size() - start;
        size_t padded = (len + 8) & ~size_t(7);
        d.append(padded - len, '\0');
        held.add(padded);
    }
    d += sha1_raw(d);
    write_file_atomic(gitdir + "/index", d);
}

}  // namespace bashkit::utils::git

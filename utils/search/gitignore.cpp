#include "utils/search/gitignore.hpp"

#include <re2/re2.h>

namespace bashkit::utils::search {

GlobList::GlobList() = default;
GlobList::GlobList(GlobList&&) noexcept = default;
GlobList& GlobList::operator=(GlobList&&) noexcept = default;
GlobList::~GlobList() = default;

namespace {

void literal(std::string& out, char c) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80) {
        out += c;
    } else if (u < 0x20 || u == 0x7F) {
        static constexpr char kDigits[] = "0123456789abcdef";
        out += "\\x";
        out += kDigits[u >> 4];
        out += kDigits[u & 15];
    } else {
        out += '\\';
        out += c;
    }
}

}  // namespace

std::string glob_to_regex(std::string_view g) {
    std::string out;
    size_t i = 0;
    if (g.starts_with("**/")) {
        out += "(?:.*/)?";
        i = 3;
    }
    while (i < g.size()) {
        const char c = g[i];
        if (c == '/' && g.substr(i).starts_with("/**/")) {
            out += "/(?:.*/)?";
            i += 4;
            continue;
        }
        if (c == '/' && g.substr(i) == "/**") {
            out += "/.*";
            i += 3;
            continue;
        }
        if (c == '*') {
            while (i < g.size() && g[i] == '*') ++i;
            out += "[^/]*";
            continue;
        }
        if (c == '?') {
            out += "[^/]";
            ++i;
            continue;
        }
        if (c == '\\' && i + 1 < g.size()) {
            literal(out, g[i + 1]);
            i += 2;
            continue;
        }
        if (c == '[') {
            size_t j = i + 1;
            std::string cls = "[";
            if (j < g.size() && (g[j] == '!' || g[j] == '^')) {
                cls += '^';
                ++j;
            }
            bool first = true;
            bool closed = false;
            while (j < g.size()) {
                const char d = g[j];
                if (d == ']' && !first) {
                    closed = true;
                    ++j;
                    break;
                }
                first = false;
                if (d == '\\' && j + 1 < g.size()) {
                    literal(cls, g[j + 1]);
                    j += 2;
                    continue;
                }
                if (d == '-' ) {
                    cls += '-';
                } else if (d == '/') {
                    cls += "\\/";
                } else {
                    literal(cls, d);
                }
                ++j;
            }
            if (closed) {
                if (cls[1] == '^') cls += "/";  // a negated class never matches a slash
                out += cls + "]";
                i = j;
                continue;
            }
            literal(out, c);
            ++i;
            continue;
        }
        literal(out, c);
        ++i;
    }
    return out;
}

void GlobList::add_line(std::string_view line, bool case_insensitive) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Trailing unescaped spaces are dropped.
    while (!line.empty() && line.back() == ' ' && !(line.size() >= 2 && line[line.size() - 2] == '\\'))
        line.remove_suffix(1);
    if (line.empty() || line.front() == '#') return;
    Rule r;
    if (line.front() == '!') {
        r.negate = true;
        line.remove_prefix(1);
    } else if (line.starts_with("\\!") || line.starts_with("\\#")) {
        line.remove_prefix(1);
    }
    if (line.empty()) return;
    if (line.back() == '/') {
        r.dir_only = true;
        line.remove_suffix(1);
        if (line.empty()) return;
    }
    bool anchored = false;
    if (line.front() == '/') {
        anchored = true;
        line.remove_prefix(1);
    } else {
        anchored = line.find('/') != std::string_view::npos;
    }
    if (line.starts_with("**/")) anchored = true;  // matches at any depth by itself
    r.basename = !anchored;
    RE2::Options o;
    o.set_log_errors(false);
    o.set_case_sensitive(!case_insensitive);
    o.set_dot_nl(true);
    r.re = std::make_unique<RE2>(glob_to_regex(line), o);
    if (!r.re->ok()) return;
    rules_.push_back(std::move(r));
}

void GlobList::add_file(std::string_view text) {
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        add_line(text.substr(start, nl - start));
        start = nl + 1;
    }
}

IgnoreMatch GlobList::match(std::string_view path, bool is_dir) const {
    const size_t slash = path.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    for (size_t k = rules_.size(); k > 0; --k) {
        const Rule& r = rules_[k - 1];
        if (r.dir_only && !is_dir) continue;
        const std::string_view subject = r.basename ? base : path;
        if (RE2::FullMatch(re2::StringPiece(subject.data(), subject.size()), *r.re))
            return r.negate ? IgnoreMatch::kWhitelist : IgnoreMatch::kIgnore;
    }
    return IgnoreMatch::kNone;
}

bool GlobList::has_positive() const {
    for (const auto& r : rules_)
        if (!r.negate) return true;
    return false;
}

}  // namespace bashkit::utils::search

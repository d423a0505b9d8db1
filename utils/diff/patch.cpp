// patch (GNU patch 2.7 under LC_ALL=C) for unified diffs: -p N, -R, -N, --dry-run, -i FILE, -o FILE, a FILE
// operand, the patch on stdin. Hunks apply where they match exactly, at the stated line or at an offset
// (searched outwards from it); there is no fuzz. Failed hunks are saved to FILE.rej and, as GNU's default
// --backup-if-mismatch does, the original is kept as FILE.orig when a hunk failed or applied at an offset.
// File names are confined to the working directory tree: an absolute name or one with a `..` component
// is refused ("Ignoring potentially dangerous file name").
#include <algorithm>

#include "utils/diff/tools.hpp"

namespace bashkit::utils::diffutil {

namespace {

struct PatchHunk {
    int64_t old_start = 0, old_count = 0, new_start = 0, new_count = 0;
    std::vector<std::string> old_lines, new_lines;
    bool old_incomplete = false, new_incomplete = false;  // the last line has no newline
    size_t leading = 0, trailing = 0;                      // context lines before the first / after the last change
    std::string text;                                      // as written in the patch, for the .rej file
};

struct FilePatch {
    std::string old_name, new_name;
    std::string header;  // the ---/+++ lines, for the .rej file
    int header_line = 0; // line number of the first hunk header (messages)
    std::string preamble;  // lines from the previous patch's end to the first hunk (messages)
    std::vector<PatchHunk> hunks;
    bool malformed = false;  // parsing stopped inside this patch: only its "patching file" line is printed
};

struct Error {
    std::string message;
};

// The name on a ---/+++ line: up to a tab (a timestamp follows), without surrounding spaces.
std::string header_name(std::string_view rest) {
    size_t tab = rest.find('\t');
    if (tab != std::string_view::npos) rest = rest.substr(0, tab);
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"') rest = rest.substr(1, rest.size() - 2);
    return std::string(rest);
}

bool parse_num(std::string_view s, size_t& i, int64_t& v) {
    size_t st = i;
    v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + (s[i] - '0');
        if (v > (int64_t{1} << 40)) return false;
        ++i;
    }
    return i > st;
}

// "@@ -a[,b] +c[,d] @@"
bool parse_hunk_header(std::string_view l, PatchHunk& h) {
    if (!l.starts_with("@@ -")) return false;
    size_t i = 4;
    if (!parse_num(l, i, h.old_start)) return false;
    h.old_count = 1;
    if (i < l.size() && l[i] == ',') {
        ++i;
        if (!parse_num(l, i, h.old_count)) return false;
    }
    if (l.substr(i, 2) != " +") return false;
    i += 2;
    if (!parse_num(l, i, h.new_start)) return false;
    h.new_count = 1;
    if (i < l.size() && l[i] == ',') {
        ++i;
        if (!parse_num(l, i, h.new_count)) return false;
    }
    return l.substr(i, 3) == " @@";
}

// Splits the patch into lines (keeping whether each ended with a newline).
std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> r;
    size_t pos = 0;
    while (pos < s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string_view::npos) {
            r.push_back(s.substr(pos));
            break;
        }
        r.push_back(s.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return r;
}

bool parse_patch(std::string_view text, std::vector<FilePatch>& out, Error& err) {
    auto lines = split(text);
    size_t i = 0;
    std::string preamble;
    while (i < lines.size()) {
        std::string_view l = lines[i];
        if (l.starts_with("--- ") && i + 1 < lines.size() && lines[i + 1].starts_with("+++ ") &&
            i + 2 < lines.size() && lines[i + 2].starts_with("@@ -")) {
            FilePatch fp;
            fp.old_name = header_name(l.substr(4));
            fp.new_name = header_name(lines[i + 1].substr(4));
            fp.header = std::string(l) + "\n" + std::string(lines[i + 1]) + "\n";
            fp.preamble = preamble + fp.header;
            preamble.clear();
            i += 2;
            fp.header_line = static_cast<int>(i) + 1;
            while (i < lines.size() && lines[i].starts_with("@@ -")) {
                PatchHunk h;
                if (!parse_hunk_header(lines[i], h)) {
                    err.message = "malformed patch at line " + std::to_string(i + 1) + ": " + std::string(lines[i]) + "\n";
                    fp.malformed = true;
                    out.push_back(std::move(fp));
                    return false;
                }
                h.text = std::string(lines[i]) + "\n";
                ++i;
                int64_t need_old = h.old_count, need_new = h.new_count;
                bool seen_change = false;
                char last = 0;
                while (need_old > 0 || need_new > 0 || (i < lines.size() && lines[i].starts_with("\\"))) {
                    if (i >= lines.size()) {
                        err.message = "malformed patch at line " + std::to_string(i + 1) + ":  \n";
                        fp.malformed = true;
                        out.push_back(std::move(fp));
                        return false;
                    }
                    std::string_view b = lines[i];
                    char kind = b.empty() ? ' ' : b[0];
                    std::string body(b.empty() ? std::string_view() : b.substr(1));
                    if (kind == '\\') {
                        if (last == '-' || last == ' ') h.old_incomplete = true;
                        if (last == '+' || last == ' ') h.new_incomplete = true;
                        h.text += std::string(b) + "\n";
                        ++i;
                        if (need_old <= 0 && need_new <= 0) break;
                        continue;
                    }
                    if (kind == ' ' && need_old > 0 && need_new > 0) {
                        h.old_lines.push_back(body);
                        h.new_lines.push_back(body);
                        --need_old;
                        --need_new;
                        if (seen_change) ++h.trailing;
                        else ++h.leading;
                    } else if (kind == '-' && need_old > 0) {
                        h.old_lines.push_back(body);
                        --need_old;
                        seen_change = true;
                        h.trailing = 0;
                    } else if (kind == '+' && need_new > 0) {
                        h.new_lines.push_back(body);
                        --need_new;
                        seen_change = true;
                        h.trailing = 0;
                    } else {
                        err.message = "malformed patch at line " + std::to_string(i + 1) + ": " + std::string(b) + "\n";
                        fp.malformed = true;
                        out.push_back(std::move(fp));
                        return false;
                    }
                    last = kind;
                    h.text += std::string(b) + "\n";
                    ++i;
                }
                fp.hunks.push_back(std::move(h));
            }
            out.push_back(std::move(fp));
            continue;
        }
        preamble += std::string(l) + "\n";
        ++i;
    }
    return true;
}

// A file's lines.
struct Lines {
    std::vector<std::string> v;
    bool incomplete = false;
};

Lines to_lines(std::string_view data) {
    Lines r;
    for (auto l : split(data)) r.v.emplace_back(l);
    r.incomplete = !data.empty() && data.back() != '\n';
    return r;
}

std::string join(const Lines& l) {
    std::string s;
    for (size_t i = 0; i < l.v.size(); ++i) {
        s += l.v[i];
        if (i + 1 < l.v.size() || !l.incomplete) s += '\n';
    }
    return s;
}

void reverse_hunk(PatchHunk& h) {
    std::swap(h.old_start, h.new_start);
    std::swap(h.old_count, h.new_count);
    std::swap(h.old_lines, h.new_lines);
    std::swap(h.old_incomplete, h.new_incomplete);
}

// Where hunk h matches in `lines` at or after `from`, searched outwards from `want`; -1 when nowhere.
int64_t find_hunk(const Lines& lines, const PatchHunk& h, int64_t want, int64_t from) {
    const int64_t n = static_cast<int64_t>(lines.v.size());
    const int64_t len = static_cast<int64_t>(h.old_lines.size());
    auto matches = [&](int64_t at) {
        if (at < from || at + len > n) return false;
        for (int64_t k = 0; k < len; ++k)
            if (lines.v[static_cast<size_t>(at + k)] != h.old_lines[static_cast<size_t>(k)]) return false;
        return true;
    };
    if (len == 0) return std::clamp<int64_t>(want, from, n);
    for (int64_t d = 0; d <= n; ++d) {
        if (matches(want + d)) return want + d;
        if (d > 0 && matches(want - d)) return want - d;
        if (want + d > n && want - d < from) break;
    }
    return -1;
}

struct Result {
    Lines lines;
    std::vector<size_t> failed;  // hunk indices
    bool mismatch = false;       // a hunk applied at an offset
};

// Applies the hunks; messages for offsets and failures go to `msg`.
Result apply_hunks(const Lines& in, const std::vector<PatchHunk>& hunks, std::string& msg) {
    Result r;
    int64_t pos = 0;       // next unconsumed line of `in`
    int64_t delta = 0;     // lines added minus removed so far (output line = input line + delta)
    int64_t offset = 0;    // the last hunk's offset from its stated place
    for (size_t k = 0; k < hunks.size(); ++k) {
        const PatchHunk& h = hunks[k];
        int64_t want = (h.old_count == 0 ? h.old_start : h.old_start - 1) + offset;
        int64_t at = find_hunk(in, h, want, pos);
        if (at < 0) {
            r.failed.push_back(k);
            msg += "Hunk #" + std::to_string(k + 1) + " FAILED at " +
                   std::to_string((h.old_count == 0 ? h.old_start + 1 : h.old_start) + offset + delta) + ".\n";
            continue;
        }
        for (; pos < at; ++pos) r.lines.v.push_back(in.v[static_cast<size_t>(pos)]);
        int64_t off = at - (h.old_count == 0 ? h.old_start : h.old_start - 1);
        if (off != 0) {
            r.mismatch = true;
            int64_t shown = at + 1 + delta;
            msg += "Hunk #" + std::to_string(k + 1) + " succeeded at " + std::to_string(shown) + " (offset " +
                   std::to_string(off) + (off == 1 || off == -1 ? " line).\n" : " lines).\n");
        }
        offset = off;
        for (const auto& l : h.new_lines) r.lines.v.push_back(l);
        pos = at + static_cast<int64_t>(h.old_lines.size());
        delta += static_cast<int64_t>(h.new_lines.size()) - static_cast<int64_t>(h.old_lines.size());
        if (pos == static_cast<int64_t>(in.v.size()) && !h.new_lines.empty()) r.lines.incomplete = h.new_incomplete;
    }
    for (; pos < static_cast<int64_t>(in.v.size()); ++pos) r.lines.v.push_back(in.v[static_cast<size_t>(pos)]);
    return r;
}

class Patcher {
public:
    Patcher(CommandContext& ctx) : ctx_(ctx), out_(ctx) {}

    int strip = -1;  // -p; -1: basename
    bool reverse = false, forward = false, dry_run = false, quiet = false;
    std::string output;   // -o
    std::string operand;  // FILE

    int run(std::vector<FilePatch>& patches) {
        int status = 0;
        for (auto& fp : patches) {
            int s = apply(fp);
            if (s == 130) return out_.status(130);
            status = std::max(status, s);
        }
        return out_.status(status);
    }

    void fatal(const std::string& m) {
        out_.flush();
        (void)ctx_.err.write("patch: **** " + m + "\n");
    }

    text::Output& out() { return out_; }

private:
    // The name after -p stripping; empty when -p strips it all away.
    std::string stripped(const std::string& name) const {
        if (name.empty() || name == "/dev/null") return {};
        if (strip < 0) return vfs::path_basename(name);
        std::string_view s = name;
        for (int k = 0; k < strip; ++k) {
            size_t slash = s.find('/');
            if (slash == std::string_view::npos) return {};
            s = s.substr(slash + 1);
            while (!s.empty() && s.front() == '/') s.remove_prefix(1);
        }
        return std::string(s);
    }

    static bool dangerous(const std::string& name) {
        if (name.starts_with("/")) return true;
        for (auto c : vfs::split_path(name))
            if (c == "..") return true;
        return false;
    }

    bool exists(const std::string& name) { return ctx_.fs.is_regular_file(ctx_.resolve(name)); }

    // Whether the deepest existing directory on the way to name resolves outside the working directory.
    bool escapes_cwd(const std::string& name) {
        auto root = ctx_.fs.realpath(ctx_.cwd);
        if (!root) return false;
        std::string dir = vfs::path_dirname(ctx_.resolve(name));
        std::string full = ctx_.resolve(name);
        // The file itself when it is a symlink, else the nearest existing parent.
        std::string probe = ctx_.fs.is_symlink(full) ? full : dir;
        while (!ctx_.fs.exists(probe) && probe != "/") probe = vfs::path_dirname(probe);
        auto real = ctx_.fs.realpath(probe);
        if (!real) return true;
        const std::string& r = real.value();
        const std::string& c = root.value();
        if (r == c) return false;
        std::string prefix = c == "/" ? c : c + "/";
        return r.compare(0, prefix.size(), prefix) != 0;
    }

    static size_t components(const std::string& n) { return vfs::split_path(n).size(); }

    // Picks the file to patch, GNU style: an existing file among the names, preferring fewer path
    // components, then the shorter base name, then the shorter name.
    std::string pick(FilePatch& fp, bool& create, bool& remove, bool& refused) {
        create = remove = refused = false;
        std::string old_raw = reverse ? fp.new_name : fp.old_name;
        std::string new_raw = reverse ? fp.old_name : fp.new_name;
        std::string o = stripped(old_raw), n = stripped(new_raw);
        std::string warned;
        for (std::string* s : {&o, &n}) {
            if (!s->empty() && dangerous(*s)) {
                if (*s != warned) out_.put("Ignoring potentially dangerous file name " + *s + "\n");
                warned = *s;
                s->clear();
                refused = true;
            }
        }
        if (old_raw == "/dev/null") create = true;
        if (new_raw == "/dev/null") remove = true;
        // Ties go to the name of the `---` line, with -R too (GNU keeps the header's order).
        std::vector<std::string> cands;
        for (const auto& c : reverse ? std::vector<std::string>{n, o} : std::vector<std::string>{o, n})
            if (!c.empty() && exists(c)) cands.push_back(c);
        if (!cands.empty()) {
            std::string best = cands[0];
            for (const auto& c : cands) {
                auto key = [&](const std::string& x) {
                    return std::make_tuple(components(x), vfs::path_basename(x).size(), x.size());
                };
                if (key(c) < key(best)) best = c;
            }
            return best;
        }
        // Nothing exists: a patch that creates the file (all hunks from an empty old side).
        bool creates = !fp.hunks.empty();
        for (const auto& h : fp.hunks) creates &= (reverse ? h.new_count : h.old_count) == 0 && (reverse ? h.new_start : h.old_start) == 0;
        if (create || creates) {
            create = true;
            return !n.empty() ? n : o;
        }
        return {};
    }

    static std::string hunks_word(size_t n) { return n == 1 ? "hunk" : "hunks"; }

    void write_rej(const std::string& target, const FilePatch& fp, const std::vector<size_t>& which,
                   std::string& summary) {
        if (dry_run) return;
        std::string rej = fp.header;
        for (size_t k : which) rej += fp.hunks[k].text;
        std::string name = target + ".rej";
        summary += " -- saving rejects to file " + name;
        (void)ctx_.fs.write_file(ctx_.resolve(name), rej);
    }

    int apply(FilePatch& fp) {
        if (ctx_.cancelled()) return 130;
        bool create = false, remove = false, refused = false;
        std::string target = operand.empty() ? pick(fp, create, remove, refused) : operand;
        if (!operand.empty()) {
            std::string old_raw = reverse ? fp.new_name : fp.old_name;
            create = old_raw == "/dev/null" && !exists(operand);
            remove = (reverse ? fp.old_name : fp.new_name) == "/dev/null";
        }
        const size_t total = fp.hunks.size();
        if (target.empty()) {
            out_.put("can't find file to patch at input line " + std::to_string(fp.header_line) + "\n");
            out_.put("Perhaps you used the wrong -p or --strip option?\n");
            out_.put("The text leading up to this was:\n--------------------------\n");
            for (auto l : split(fp.preamble)) out_.put("|" + std::string(l) + "\n");
            out_.put("--------------------------\n");
            out_.put("File to patch: \nSkip this patch? [y] \nSkipping patch.\n");
            out_.put(std::to_string(total) + " out of " + std::to_string(total) + " " + hunks_word(total) +
                     " ignored\n");
            return 1;
        }
        if (operand.empty() && escapes_cwd(target)) {
            // A name from the patch that reaches outside the working directory through a symbolic link.
            out_.flush();
            ctx_.error("**** Refusing to patch " + target + ": it resolves outside the working directory");
            out_.put(std::to_string(total) + " out of " + std::to_string(total) + " " + hunks_word(total) +
                     " ignored\n");
            return 1;
        }
        std::vector<PatchHunk> hunks = fp.hunks;
        if (reverse)
            for (auto& h : hunks) reverse_hunk(h);
        std::string shown = output.empty() ? target : output;
        if (!quiet)
            out_.put((dry_run ? "checking file " : "patching file ") + shown +
                     (output.empty() ? std::string() : " (read from " + target + ")") + "\n");
        if (fp.malformed) return 2;
        Lines in;
        std::string original;
        const std::string path = ctx_.resolve(target);
        if (!create || exists(target)) {
            auto r = ctx_.fs.read_file(path);
            if (!r) {
                if (create) {
                    original.clear();
                } else {
                    out_.flush();
                    fatal("Can't open file " + target + " : " + std::string(vfs::error_message(r.error())));
                    return 2;
                }
            } else {
                original = std::move(r).value();
            }
        }
        in = to_lines(original);
        std::string msg;
        Result res = apply_hunks(in, hunks, msg);
        if (!res.failed.empty() && res.failed.front() == 0 && res.failed.size() == total) {
            // Does the patch apply the other way round (already applied, or reversed)?
            std::vector<PatchHunk> rev = hunks;
            for (auto& h : rev) reverse_hunk(h);
            std::string m2;
            Result back = apply_hunks(in, rev, m2);
            bool all_context = true;
            for (const auto& h : hunks) all_context &= h.old_lines == h.new_lines;
            if (back.failed.empty() && !all_context) {
                std::string what = reverse ? "Unreversed patch detected!" : "Reversed (or previously applied) patch detected!";
                if (forward) {
                    out_.put(what + "  Skipping patch.\n");
                } else {
                    out_.put(what + (reverse ? "  Ignore -R? [n] \n" : "  Assume -R? [n] \n"));
                    out_.put("Apply anyway? [n] \nSkipping patch.\n");
                }
                std::string summary = std::to_string(total) + " out of " + std::to_string(total) + " " +
                                      hunks_word(total) + " ignored";
                std::vector<size_t> all;
                for (size_t k = 0; k < total; ++k) all.push_back(k);
                write_rej(output.empty() ? target : output, fp, all, summary);
                out_.put(summary + "\n");
                return 1;
            }
        }
        if (!quiet || !res.failed.empty()) out_.put(msg);
        // The last line's newline: the input's, unless a hunk rewrote the end.
        if (!res.lines.v.empty()) {
            bool end_touched = false;
            bool inc = in.incomplete;
            int64_t n = static_cast<int64_t>(in.v.size());
            for (size_t k = 0; k < hunks.size(); ++k) {
                if (std::find(res.failed.begin(), res.failed.end(), k) != res.failed.end()) continue;
                const PatchHunk& h = hunks[k];
                int64_t end = (h.old_count == 0 ? h.old_start : h.old_start - 1) + static_cast<int64_t>(h.old_lines.size());
                if (h.old_incomplete || h.new_incomplete || end >= n) {
                    if (!h.new_lines.empty()) {
                        end_touched = true;
                        inc = h.new_incomplete;
                    }
                }
            }
            res.lines.incomplete = end_touched ? inc : in.incomplete;
        }
        std::string result = join(res.lines);
        int status = 0;
        if (!res.failed.empty()) {
            status = 1;
            std::string summary = std::to_string(res.failed.size()) + " out of " + std::to_string(total) + " " +
                                  hunks_word(total) + " FAILED";
            write_rej(output.empty() ? target : output, fp, res.failed, summary);
            out_.put(summary + "\n");
        }
        if (dry_run) return status;
        if ((res.mismatch || !res.failed.empty()) && output.empty() && !create) {
            (void)ctx_.fs.write_file(ctx_.resolve(target + ".orig"), original);
        }
        std::string dest = ctx_.resolve(output.empty() ? target : output);
        if (remove && !result.empty() && output.empty()) {
            out_.put("Not deleting file " + target + " as content differs from patch\n");
            status = 1;
        }
        if (remove && result.empty() && output.empty()) {
            auto s = ctx_.fs.unlink(dest);
            if (!s) {
                fatal("Can't remove file " + target + " : " + std::string(vfs::error_message(s.error())));
                return 2;
            }
            return status;
        }
        std::string parent = vfs::path_dirname(dest);
        if (!ctx_.fs.is_directory(parent)) (void)ctx_.fs.mkdir_all(parent);
        auto w = ctx_.fs.write_file(dest, result);
        if (!w) {
            fatal("Can't create file " + (output.empty() ? target : output) + " : " +
                  std::string(vfs::error_message(w.error())));
            return 2;
        }
        return status;
    }

    CommandContext& ctx_;
    text::Output out_;
};

constexpr OptionSpec kPatchSpecs[] = {
    {'p', 'p', "strip", ArgKind::required},
    {'R', 'R', "reverse"},
    {'N', 'N', "forward"},
    {'i', 'i', "input", ArgKind::required},
    {'o', 'o', "output", ArgKind::required},
    {'s', 's', "quiet"},
    {'s', 's', "silent"},
    {'f', 'f', "force"},
    {'t', 't', "batch"},
    {'u', 'u', "unified"},
    {kOptFirstLongOnly, 0, "dry-run"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

}  // namespace

int cmd_patch(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kPatchSpecs);
    Patcher pt(ctx);
    std::string input;
    for (const auto& opt : p.options) {
        switch (opt.id) {
        case kOptHelp:
            return text::print_help(ctx, "[OPTION]... [ORIGFILE [PATCHFILE]]\nApply a unified diff.\n");
        case kOptVersion:
            (void)ctx.out.write("GNU patch 2.7.6 (bashkit)\n");
            return 0;
        case 'p': {
            uint64_t v = 0;
            if (!text::parse_uint(opt.value, v) || v > 1000) {
                (void)ctx.err.write("patch: **** strip count " + opt.value + " is not a number\n");
                return 2;
            }
            pt.strip = static_cast<int>(v);
            break;
        }
        case 'R': pt.reverse = true; break;
        case 'N': pt.forward = true; break;
        case 'i': input = opt.value; break;
        case 'o': pt.output = opt.value; break;
        case 's': pt.quiet = true; break;
        case kOptFirstLongOnly: pt.dry_run = true; break;
        default: break;
        }
    }
    if (!p.ok()) {
        ctx.error(p.error);
        (void)ctx.err.write("patch: Try 'patch --help' for more information.\n");
        return 2;
    }
    if (!p.operands.empty()) pt.operand = p.operands[0];
    if (p.operands.size() >= 2 && input.empty()) input = p.operands[1];
    if (p.operands.size() > 2) {
        ctx.error(p.operands[2] + ": extra operand");
        (void)ctx.err.write("patch: Try 'patch --help' for more information.\n");
        return 2;
    }
    std::string text;
    {
        text::Input in;
        vfs::Errc e = input.empty() || input == "-" ? (in.open_stdin(ctx), vfs::Errc::ok) : in.open_input(ctx, input);
        if (e == vfs::Errc::ok) e = text::read_all(ctx, in, text);
        if (e != vfs::Errc::ok) {
            pt.fatal("Can't open patch file " + input + " : " + std::string(vfs::error_message(e)));
            return 2;
        }
    }
    std::vector<FilePatch> patches;
    Error err;
    bool ok = parse_patch(text, patches, err);
    if (!ok && patches.empty()) {
        pt.fatal(err.message);
        return 2;
    }
    if (!ok) {
        // Everything before the malformed hunk is applied; the broken file patch is not.
        int status = pt.run(patches);
        (void)status;
        pt.fatal(err.message);
        return 2;
    }
    if (ok && patches.empty()) {
        if (text.find_first_not_of(" \t\n") == std::string::npos) return 0;
        if (!text.empty() && text.back() != '\n') pt.out().put("patch unexpectedly ends in middle of line\n");
        pt.fatal("Only garbage was found in the patch input.");
        return 2;
    }
    return pt.run(patches);
}

}  // namespace bashkit::utils::diffutil

// file: basic kinds from the first bytes of a file (no magic database): empty, directory, symbolic
// links, scripts by their #! line, JSON, HTML, XML, PDF, ASCII / UTF-8 / ISO-8859 text with GNU's line
// remarks, and data.
#include <algorithm>
#include <cctype>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

constexpr size_t kSniffBytes = 64 * 1024;

// A small JSON validator: true when the whole text is one object or array (what file calls JSON).
class JsonCheck {
public:
    explicit JsonCheck(std::string_view s) : s_(s) {}
    bool run() {
        ws();
        if (i_ >= s_.size() || (s_[i_] != '{' && s_[i_] != '[')) return false;
        if (!value(0)) return false;
        ws();
        return i_ == s_.size();
    }

private:
    void ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool lit(std::string_view w) {
        if (s_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }
    bool str() {
        if (i_ >= s_.size() || s_[i_] != '"') return false;
        ++i_;
        while (i_ < s_.size()) {
            unsigned char c = static_cast<unsigned char>(s_[i_]);
            if (c == '"') {
                ++i_;
                return true;
            }
            if (c < 0x20) return false;
            if (c == '\\') {
                ++i_;
                if (i_ >= s_.size()) return false;
                char e = s_[i_];
                if (e == 'u') {
                    for (int k = 0; k < 4; ++k)
                        if (++i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return false;
                } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                    return false;
                }
            }
            ++i_;
        }
        return false;
    }
    bool num() {
        size_t start = i_;
        if (i_ < s_.size() && s_[i_] == '-') ++i_;
        size_t d = i_;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
        if (i_ == d) return false;
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            size_t f = i_;
            while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
            if (i_ == f) return false;
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
            size_t f = i_;
            while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
            if (i_ == f) return false;
        }
        return i_ > start;
    }
    bool value(int depth) {
        if (depth > 256) return false;
        ws();
        if (i_ >= s_.size()) return false;
        char c = s_[i_];
        if (c == '{') {
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == '}') {
                ++i_;
                return true;
            }
            while (true) {
                ws();
                if (!str()) return false;
                ws();
                if (i_ >= s_.size() || s_[i_] != ':') return false;
                ++i_;
                if (!value(depth + 1)) return false;
                ws();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == '}') {
                    ++i_;
                    return true;
                }
                return false;
            }
        }
        if (c == '[') {
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == ']') {
                ++i_;
                return true;
            }
            while (true) {
                if (!value(depth + 1)) return false;
                ws();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == ']') {
                    ++i_;
                    return true;
                }
                return false;
            }
        }
        if (c == '"') return str();
        if (c == 't') return lit("true");
        if (c == 'f') return lit("false");
        if (c == 'n') return lit("null");
        return num();
    }
    std::string_view s_;
    size_t i_ = 0;
};

enum class Charset { Ascii, Utf8, Latin1, Binary };

Charset charset_of(std::string_view s) {
    bool high = false;
    for (unsigned char c : s) {
        if (c == 0) return Charset::Binary;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\b' && c != 0x1b && c != '\a' &&
            c != '\v')
            return Charset::Binary;
        if (c == 0x7f) return Charset::Binary;
        if (c >= 0x80) high = true;
    }
    if (!high) return Charset::Ascii;
    // Valid UTF-8?
    size_t i = 0;
    bool utf8 = true;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (n < 0) {
            utf8 = false;
            break;
        }
        if (i + static_cast<size_t>(n) >= s.size() && n > 0) {
            // A sequence cut by the sniff window still counts as UTF-8.
            break;
        }
        for (int k = 1; k <= n; ++k)
            if ((static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xc0) != 0x80) utf8 = false;
        if (!utf8) break;
        i += static_cast<size_t>(n) + 1;
    }
    if (utf8) return Charset::Utf8;
    for (unsigned char c : s)
        if (c >= 0x80 && c < 0xa0) return Charset::Binary;
    return Charset::Latin1;
}

std::string script_kind(std::string_view first_line) {
    std::string_view l = first_line.substr(2);
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    // The interpreter: the last component of the first word, or of the word after env.
    auto word = [](std::string_view& s) {
        size_t e = 0;
        while (e < s.size() && s[e] != ' ' && s[e] != '\t' && s[e] != '\r') ++e;
        std::string_view w = s.substr(0, e);
        s.remove_prefix(e);
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        return w;
    };
    std::string_view prog = word(l);
    size_t slash = prog.rfind('/');
    std::string_view base = slash == std::string_view::npos ? prog : prog.substr(slash + 1);
    if (base == "env") {
        std::string_view w = word(l);
        while (!w.empty() && w[0] == '-') w = word(l);
        base = w;
    }
    std::string b(base);
    if (b == "sh" || b == "dash" || b == "ash") return "POSIX shell script";
    if (b == "bash") return "Bourne-Again shell script";
    if (b == "zsh") return "Paul Falstad's zsh script";
    if (b.rfind("python", 0) == 0) return "Python script";
    if (b.rfind("perl", 0) == 0) return "Perl script";
    if (b.rfind("ruby", 0) == 0) return "Ruby script";
    if (b == "node" || b == "nodejs") return "Node.js script";
    if (b == "awk" || b == "gawk") return "awk or perl script";
    if (b.empty()) return "a script";
    return "a " + std::string(prog) + " script";
}

struct Info {
    std::string desc;
    std::string mime;
};

Info describe_text(std::string_view head, const vfs::Stat& st, Charset cs) {
    std::string enc = cs == Charset::Ascii ? "ASCII text" : cs == Charset::Utf8 ? "Unicode text, UTF-8 text" : "ISO-8859 text";
    std::string charset = cs == Charset::Ascii ? "us-ascii" : cs == Charset::Utf8 ? "utf-8" : "iso-8859-1";
    // Line remarks.
    size_t longest = 0, cur = 0;
    bool crlf = false, cr_only = false, lf = false;
    for (size_t i = 0; i < head.size(); ++i) {
        char c = head[i];
        if (c == '\n') {
            lf = true;
            longest = std::max(longest, cur);
            cur = 0;
        } else if (c == '\r') {
            if (i + 1 < head.size() && head[i + 1] == '\n') crlf = true;
            else cr_only = true;
        } else {
            ++cur;
        }
    }
    longest = std::max(longest, cur);
    std::string remarks;
    if (longest > 300) remarks += ", with very long lines (" + std::to_string(longest) + ")";
    if (crlf) remarks += ", with CRLF line terminators";
    else if (cr_only && !lf) remarks += ", with CR line terminators";
    if (!lf && !crlf && !cr_only) remarks += ", with no line terminators";
    bool exec_script = head.size() >= 2 && head[0] == '#' && head[1] == '!';
    if (exec_script) {
        size_t nl = head.find('\n');
        std::string kind = script_kind(head.substr(0, nl));
        std::string mime = "text/x-shellscript";
        if (kind == "Perl script") return {"Perl script text executable" + remarks, "text/x-perl; charset=" + charset};
        if (kind == "Python script") mime = "text/x-script.python";
        else if (kind == "Perl script") mime = "text/x-perl";
        return {kind + ", " + enc + " executable" + remarks, mime + "; charset=" + charset};
    }
    std::string_view t = head;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    if (head.size() < kSniffBytes || st.size <= kSniffBytes) {
        if (JsonCheck(head).run()) return {"JSON text data", "application/json; charset=" + charset};
    }
    auto starts_ci = [&](std::string_view p) {
        if (t.size() < p.size()) return false;
        for (size_t i = 0; i < p.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(t[i])) != std::tolower(static_cast<unsigned char>(p[i]))) return false;
        return true;
    };
    if (starts_ci("<?xml")) {
        std::string ver = "1.0";
        size_t v = t.find("version=\"");
        if (v != std::string_view::npos && v < 100) {
            size_t e = t.find('"', v + 9);
            if (e != std::string_view::npos) ver = std::string(t.substr(v + 9, e - v - 9));
        }
        return {"XML " + ver + " document, " + enc + remarks, "text/xml; charset=" + charset};
    }
    if (starts_ci("<!doctype html") || starts_ci("<html") || starts_ci("<head") || starts_ci("<body"))
        return {"HTML document, " + enc + remarks, "text/html; charset=" + charset};
    return {enc + remarks, "text/plain; charset=" + charset};
}

Info describe(CommandContext& ctx, const std::string& abs, const vfs::Stat& st) {
    if (st.is_directory()) return {"directory", "inode/directory; charset=binary"};
    if (!st.is_regular()) {
        switch (st.type) {
            case vfs::FileType::fifo: return {"fifo (named pipe)", "inode/fifo; charset=binary"};
            case vfs::FileType::socket: return {"socket", "inode/socket; charset=binary"};
            case vfs::FileType::char_device: return {"character special", "inode/chardevice; charset=binary"};
            case vfs::FileType::block_device: return {"block special", "inode/blockdevice; charset=binary"};
            default: return {"data", "application/octet-stream; charset=binary"};
        }
    }
    if (st.size == 0) return {"empty", "inode/x-empty; charset=binary"};
    auto h = ctx.fs.open_read(abs);
    if (!h) return {"", ""};
    std::string head(kSniffBytes, '\0');
    size_t got = 0;
    while (got < head.size()) {
        auto n = (*h)->read(head.data() + got, head.size() - got);
        if (!n || *n == 0) break;
        got += *n;
    }
    head.resize(got);
    if (head.rfind("%PDF-", 0) == 0) {
        std::string ver;
        for (size_t i = 5; i < head.size() && (std::isdigit(static_cast<unsigned char>(head[i])) || head[i] == '.'); ++i)
            ver.push_back(head[i]);
        return {"PDF document, version " + ver, "application/pdf; charset=binary"};
    }
    Charset cs = charset_of(head);
    if (cs == Charset::Binary) return {"data", "application/octet-stream; charset=binary"};
    return describe_text(head, st, cs);
}

enum : int { kOptMimeType = kOptFirstLongOnly, kOptMimeEncoding };

constexpr OptionSpec kFileSpecs[] = {
    {'b', 'b', "brief"},
    {'L', 'L', "dereference"},
    {'h', 'h', "no-dereference"},
    {'i', 'i', "mime"},
    {kOptMimeType, 0, "mime-type"},
    {kOptMimeEncoding, 0, "mime-encoding"},
    {'N', 'N', "no-pad"},
    {'F', 'F', "separator", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kUsage =
    "Usage: file [-bchiLN] [--mime-type] [--mime-encoding] [-F separator] file ...\n"
    "       file [--help]\n";

int file_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kFileSpecs);
    bool brief = false, follow = false, no_pad = false;
    int mime = 0;  // 0 none, 1 full (-i), 2 type only, 3 encoding only
    std::string sep = ":";
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'b': brief = true; break;
            case 'L': follow = true; break;
            case 'h': follow = false; break;
            case 'i': mime = 1; break;
            case kOptMimeType: mime = 2; break;
            case kOptMimeEncoding: mime = 3; break;
            case 'N': no_pad = true; break;
            case 'F': sep = opt.value; break;
            case kOptHelp:
                return print_help(ctx, std::string(kUsage) +
                                           "Determine type of FILEs.\n"
                                           "\n"
                                           "  -b, --brief                do not prepend filenames to output lines\n"
                                           "  -i, --mime                 output MIME type strings\n"
                                           "      --mime-type            output the MIME type\n"
                                           "      --mime-encoding        output the MIME encoding\n"
                                           "  -L, --dereference          follow symlinks\n"
                                           "  -h, --no-dereference       don't follow symlinks (default)\n"
                                           "  -N, --no-pad               do not pad output\n"
                                           "  -F, --separator STRING     use string as separator instead of `:'\n"
                                           "      --help                 display this help and exit\n");
            case kOptVersion: return print_help(ctx, "file-5.44 (bashkit)\n");
            default: break;
        }
    }
    if (!p.ok()) {
        ctx.error(p.error);
        (void)ctx.err.write(kUsage);
        return 1;
    }
    if (p.operands.empty()) {
        (void)ctx.err.write(kUsage);
        return 1;
    }
    size_t width = 0;
    for (const auto& op : p.operands) width = std::max(width, op.size() + sep.size());
    Output out(ctx);
    for (const auto& op : p.operands) {
        if (ctx.cancelled()) break;
        std::string abs = ctx.resolve(op);
        Info info;
        auto l = ctx.fs.lstat(abs);
        if (!l) {
            info.desc = "cannot open `" + op + "' (" + std::string(errstr(l.error())) + ")";
            info.mime = info.desc;
        } else if (l->is_symlink() && !follow) {
            auto target = ctx.fs.readlink(abs);
            std::string t = target ? *target : std::string();
            bool ok = ctx.fs.exists(abs);
            info.desc = (ok ? "symbolic link to " : "broken symbolic link to ") + t;
            info.mime = "inode/symlink; charset=binary";
        } else {
            auto st = ctx.fs.stat(abs);
            if (!st) {
                info.desc = "cannot open `" + op + "' (" + std::string(errstr(st.error())) + ")";
                info.mime = info.desc;
            } else {
                info = describe(ctx, abs, *st);
                if (info.desc.empty()) {
                    info.desc = "cannot open `" + op + "' (Permission denied)";
                    info.mime = info.desc;
                }
            }
        }
        std::string text = info.desc;
        if (mime != 0 && info.mime.find("cannot open") == std::string::npos) {
            size_t semi = info.mime.find("; charset=");
            if (mime == 1) text = info.mime;
            else if (mime == 2) text = info.mime.substr(0, semi);
            else text = semi == std::string::npos ? "binary" : info.mime.substr(semi + 10);
        }
        if (!brief) {
            std::string head = op + sep;
            if (!no_pad && head.size() < width) head.append(width - head.size(), ' ');
            out.put(head + " ");
        }
        out.put(text + "\n");
    }
    return out.status(0);
}

}  // namespace

void register_file(interp::CommandRegistry& r) {
    r.add("file", "file [-bLhi] FILE...: determine file type", file_main);
}

}  // namespace bashkit::utils::files

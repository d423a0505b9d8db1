// curl: the options agents use, over the sandbox's HTTP client, with curl's messages and exit codes.
//
// The network is reached only through CommandContext::http (null: every request is refused, exit 7).
// Bodies stream into stdout or a file of the virtual filesystem as they arrive, except when curl must see
// the response headers before the first body byte (-f, -i, -D, -J, --compressed, --retry): those buffer
// the body, which the client caps (10 MiB by default).
#include <zlib.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <random>

#include "utils/net/common.hpp"
#include "utils/net/commands.hpp"

namespace bashkit::utils {

namespace {

using netutil::iequals;
using std::chrono::milliseconds;

constexpr std::string_view kCurlVersion = "7.88.1";
constexpr std::string_view kTryHelp = "curl: try 'curl --help' or 'curl --manual' for more information\n";
// Transfers one command may make (URLs given; there is no URL globbing here, "[1-9]" is sent as written):
// past it the command is refused before any request, so one line cannot fire an unbounded request storm.
constexpr std::size_t kMaxTransfersPerCommand = 1000;

enum class Opt {
    silent, show_error, fail, fail_with_body, location, output, remote_name, remote_name_all, remote_header_name,
    output_dir, create_dirs, head, include, request, header, data, data_raw, data_binary, data_urlencode, json,
    form, form_string, user, user_agent, referer, write_out, max_time, connect_timeout, retry, retry_delay,
    retry_max_time, retry_connrefused, retry_all_errors, insecure, verbose, compressed, get, url, dump_header,
    oauth2_bearer, cookie, range, upload_file, help, version, noop, noop_arg, refused, refused_arg,
};

struct OptSpec {
    std::string_view name;  // long name
    char short_name;        // 0: none
    Opt opt;
    bool takes_arg;
};

constexpr OptSpec kOptions[] = {
    {"silent", 's', Opt::silent, false},
    {"show-error", 'S', Opt::show_error, false},
    {"fail", 'f', Opt::fail, false},
    {"fail-with-body", 0, Opt::fail_with_body, false},
    {"location", 'L', Opt::location, false},
    {"location-trusted", 0, Opt::location, false},
    {"output", 'o', Opt::output, true},
    {"remote-name", 'O', Opt::remote_name, false},
    {"remote-name-all", 0, Opt::remote_name_all, false},
    {"remote-header-name", 'J', Opt::remote_header_name, false},
    {"output-dir", 0, Opt::output_dir, true},
    {"create-dirs", 0, Opt::create_dirs, false},
    {"head", 'I', Opt::head, false},
    {"include", 'i', Opt::include, false},
    {"request", 'X', Opt::request, true},
    {"header", 'H', Opt::header, true},
    {"data", 'd', Opt::data, true},
    {"data-ascii", 0, Opt::data, true},
    {"data-raw", 0, Opt::data_raw, true},
    {"data-binary", 0, Opt::data_binary, true},
    {"data-urlencode", 0, Opt::data_urlencode, true},
    {"json", 0, Opt::json, true},
    {"form", 'F', Opt::form, true},
    {"form-string", 0, Opt::form_string, true},
    {"user", 'u', Opt::user, true},
    {"user-agent", 'A', Opt::user_agent, true},
    {"referer", 'e', Opt::referer, true},
    {"write-out", 'w', Opt::write_out, true},
    {"max-time", 'm', Opt::max_time, true},
    {"connect-timeout", 0, Opt::connect_timeout, true},
    {"retry", 0, Opt::retry, true},
    {"retry-delay", 0, Opt::retry_delay, true},
    {"retry-max-time", 0, Opt::retry_max_time, true},
    {"retry-connrefused", 0, Opt::retry_connrefused, false},
    {"retry-all-errors", 0, Opt::retry_all_errors, false},
    {"insecure", 'k', Opt::insecure, false},
    {"verbose", 'v', Opt::verbose, false},
    {"compressed", 0, Opt::compressed, false},
    {"get", 'G', Opt::get, false},
    {"url", 0, Opt::url, true},
    {"dump-header", 'D', Opt::dump_header, true},
    {"oauth2-bearer", 0, Opt::oauth2_bearer, true},
    {"cookie", 'b', Opt::cookie, true},
    {"range", 'r', Opt::range, true},
    {"upload-file", 'T', Opt::upload_file, true},
    {"help", 'h', Opt::help, false},
    {"version", 'V', Opt::version, false},
    // Accepted and without effect here (no progress meter is drawn; HTTP version is libcurl's; no URL
    // globbing is done, so --globoff changes nothing).
    {"no-progress-meter", 0, Opt::noop, false},
    {"progress-bar", '#', Opt::noop, false},
    {"globoff", 'g', Opt::noop, false},
    {"no-buffer", 'N', Opt::noop, false},
    {"http1.1", 0, Opt::noop, false},
    {"http2", 0, Opt::noop, false},
    {"ipv4", '4', Opt::noop, false},
    {"ipv6", '6', Opt::noop, false},
    {"fail-early", 0, Opt::noop, false},
    {"raw", 0, Opt::noop, false},
    {"tcp-nodelay", 0, Opt::noop, false},
    {"no-keepalive", 0, Opt::noop, false},
    {"max-redirs", 0, Opt::noop_arg, true},
    {"keepalive-time", 0, Opt::noop_arg, true},
    // Options that would step around the sandbox: refused.
    {"proxy", 'x', Opt::refused_arg, true},
    {"preproxy", 0, Opt::refused_arg, true},
    {"socks5", 0, Opt::refused_arg, true},
    {"socks5-hostname", 0, Opt::refused_arg, true},
    {"noproxy", 0, Opt::refused_arg, true},
    {"cacert", 0, Opt::refused_arg, true},
    {"capath", 0, Opt::refused_arg, true},
    {"cert", 'E', Opt::refused_arg, true},
    {"key", 0, Opt::refused_arg, true},
    {"resolve", 0, Opt::refused_arg, true},
    {"connect-to", 0, Opt::refused_arg, true},
    {"unix-socket", 0, Opt::refused_arg, true},
    {"abstract-unix-socket", 0, Opt::refused_arg, true},
    {"interface", 0, Opt::refused_arg, true},
    {"doh-url", 0, Opt::refused_arg, true},
    {"trace", 0, Opt::refused_arg, true},
    {"trace-ascii", 0, Opt::refused_arg, true},
    {"proxy-insecure", 0, Opt::refused, false},
    {"ssl-no-revoke", 0, Opt::refused, false},
};

enum class DataKind { ascii, raw, binary, urlencode, json };

struct OutputSpec {
    bool remote_name = false;
    std::string path;  // as given
};

struct Config {
    bool silent = false, show_error = false, fail = false, fail_with_body = false, follow = false;
    bool head = false, include = false, verbose = false, compressed = false, get = false;
    bool create_dirs = false, remote_name_all = false, remote_header_name = false;
    bool retry_connrefused = false, retry_all = false;
    std::optional<std::string> method, user, user_agent, referer, write_out, dump_header, bearer, cookie, range;
    std::optional<std::string> upload_file, output_dir;
    std::vector<std::string> headers;
    std::vector<std::pair<DataKind, std::string>> data;
    std::vector<std::pair<std::string, bool>> forms;  // (spec, literal string)
    std::optional<double> max_time, connect_timeout, retry_delay;
    double retry_max_time = 0;
    long retry = 0;
    std::vector<std::string> urls;
    std::vector<OutputSpec> outputs;

    bool show_errors() const { return !silent || show_error; }
};

// ---------------------------------------------------------------- option parsing

enum class ParseStatus { ok, exit_ok, error };

bool parse_number(std::string_view s, double& out) {
    if (s.empty()) return false;
    std::string str(s);
    char* end = nullptr;
    double v = std::strtod(str.c_str(), &end);
    if (end != str.c_str() + str.size() || !std::isfinite(v) || v < 0) return false;
    out = v;
    return true;
}

bool parse_long(std::string_view s, long& out) {
    if (s.empty() || s.size() > 9) return false;
    long v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

void usage(interp::CommandContext& ctx) {
    ctx.out.write(
        "Usage: curl [options...] <url>\n"
        " -d, --data <data>          HTTP POST data\n"
        "     --data-binary <data>   HTTP POST binary data (@file reads a file)\n"
        "     --data-raw <data>      HTTP POST data, '@' allowed\n"
        "     --data-urlencode <data> HTTP POST data url encoded\n"
        " -f, --fail                 Fail fast with no output on HTTP errors\n"
        " -F, --form <name=content>  Specify multipart MIME data\n"
        " -G, --get                  Put the post data in the URL and use GET\n"
        " -H, --header <header>      Pass custom header(s) to server\n"
        " -I, --head                 Show document info only\n"
        " -i, --include              Include protocol response headers in the output\n"
        "     --json <data>          HTTP POST JSON\n"
        " -L, --location             Follow redirects\n"
        " -m, --max-time <seconds>   Maximum time allowed for transfer\n"
        " -o, --output <file>        Write to file instead of stdout\n"
        " -O, --remote-name          Write output to a file named as the remote file\n"
        "     --retry <num>          Retry request if transient problems occur\n"
        " -s, --silent               Silent mode\n"
        " -S, --show-error           Show error even when -s is used\n"
        " -u, --user <user:password> Server user and password\n"
        " -A, --user-agent <name>    Send User-Agent <name> to server\n"
        " -v, --verbose              Make the operation more talkative\n"
        " -w, --write-out <format>   Use output FORMAT after completion\n"
        " -X, --request <method>     Specify request method to use\n"
        "In this sandbox requests go through the network policy; -k, proxies and custom CAs are refused.\n");
}

ParseStatus apply(interp::CommandContext& ctx, Config& c, const OptSpec& spec, const std::string& shown,
                  std::string value) {
    auto bad_number = [&]() {
        ctx.err.write("curl: option " + shown + ": expected a proper numerical parameter\n");
        ctx.err.write(kTryHelp);
        return ParseStatus::error;
    };
    switch (spec.opt) {
        case Opt::silent: c.silent = true; break;
        case Opt::show_error: c.show_error = true; break;
        case Opt::fail: c.fail = true; break;
        case Opt::fail_with_body: c.fail_with_body = true; break;
        case Opt::location: c.follow = true; break;
        case Opt::output: c.outputs.push_back({false, std::move(value)}); break;
        case Opt::remote_name: c.outputs.push_back({true, {}}); break;
        case Opt::remote_name_all: c.remote_name_all = true; break;
        case Opt::remote_header_name: c.remote_header_name = true; break;
        case Opt::output_dir: c.output_dir = std::move(value); break;
        case Opt::create_dirs: c.create_dirs = true; break;
        case Opt::head: c.head = true; break;
        case Opt::include: c.include = true; break;
        case Opt::request: c.method = std::move(value); break;
        case Opt::header: c.headers.push_back(std::move(value)); break;
        case Opt::data: c.data.emplace_back(DataKind::ascii, std::move(value)); break;
        case Opt::data_raw: c.data.emplace_back(DataKind::raw, std::move(value)); break;
        case Opt::data_binary: c.data.emplace_back(DataKind::binary, std::move(value)); break;
        case Opt::data_urlencode: c.data.emplace_back(DataKind::urlencode, std::move(value)); break;
        case Opt::json: c.data.emplace_back(DataKind::json, std::move(value)); break;
        case Opt::form: c.forms.emplace_back(std::move(value), false); break;
        case Opt::form_string: c.forms.emplace_back(std::move(value), true); break;
        case Opt::user: c.user = std::move(value); break;
        case Opt::user_agent: c.user_agent = std::move(value); break;
        case Opt::referer: c.referer = std::move(value); break;
        case Opt::write_out: c.write_out = std::move(value); break;
        case Opt::max_time: {
            double v;
            if (!parse_number(value, v)) return bad_number();
            c.max_time = v;
            break;
        }
        case Opt::connect_timeout: {
            double v;
            if (!parse_number(value, v)) return bad_number();
            c.connect_timeout = v;
            break;
        }
        case Opt::retry: {
            long v;
            if (!parse_long(value, v)) return bad_number();
            c.retry = v;
            break;
        }
        case Opt::retry_delay: {
            long v;
            if (!parse_long(value, v)) return bad_number();
            c.retry_delay = double(v);
            break;
        }
        case Opt::retry_max_time: {
            long v;
            if (!parse_long(value, v)) return bad_number();
            c.retry_max_time = double(v);
            break;
        }
        case Opt::retry_connrefused: c.retry_connrefused = true; break;
        case Opt::retry_all_errors: c.retry_all = true; break;
        case Opt::insecure:
        case Opt::refused:
        case Opt::refused_arg:
            ctx.err.write("curl: option " + shown + ": not allowed in the sandbox" +
                          (spec.opt == Opt::insecure ? " (TLS certificates are always verified)" : "") + "\n");
            return ParseStatus::error;
        case Opt::verbose: c.verbose = true; break;
        case Opt::compressed: c.compressed = true; break;
        case Opt::get: c.get = true; break;
        case Opt::url: c.urls.push_back(std::move(value)); break;
        case Opt::dump_header: c.dump_header = std::move(value); break;
        case Opt::oauth2_bearer: c.bearer = std::move(value); break;
        case Opt::cookie: c.cookie = std::move(value); break;
        case Opt::range: c.range = std::move(value); break;
        case Opt::upload_file: c.upload_file = std::move(value); break;
        case Opt::help: usage(ctx); return ParseStatus::exit_ok;
        case Opt::version:
            ctx.out.write("curl " + std::string(kCurlVersion) +
                          " (bashkit sandbox)\nProtocols: http https\nFeatures: libz\n");
            return ParseStatus::exit_ok;
        case Opt::noop:
        case Opt::noop_arg: break;
    }
    return ParseStatus::ok;
}

const OptSpec* find_long(std::string_view name, bool& ambiguous) {
    ambiguous = false;
    const OptSpec* hit = nullptr;
    int hits = 0;
    for (const auto& o : kOptions) {
        if (o.name == name) return &o;
        if (o.name.substr(0, name.size()) == name) {
            hit = &o;
            ++hits;
        }
    }
    if (hits > 1) {
        ambiguous = true;
        return nullptr;
    }
    return hit;
}

ParseStatus parse_args(interp::CommandContext& ctx, Config& c) {
    const auto& argv = ctx.argv;
    bool options_done = false;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (options_done || a.size() < 2 || a[0] != '-') {
            c.urls.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        if (a[1] == '-') {
            std::string name = a.substr(2);
            bool ambiguous = false;
            const OptSpec* spec = find_long(name, ambiguous);
            bool negated = false;
            if (!spec && !ambiguous && name.substr(0, 3) == "no-") {
                spec = find_long(name.substr(3), ambiguous);
                if (spec && spec->takes_arg) spec = nullptr;
                negated = spec != nullptr;
            }
            if (!spec) {
                ctx.err.write("curl: option " + a + (ambiguous ? ": is ambiguous\n" : ": is unknown\n"));
                ctx.err.write(kTryHelp);
                return ParseStatus::error;
            }
            if (negated) {
                // --no-FLAG turns a boolean back off; only the common ones matter.
                switch (spec->opt) {
                    case Opt::silent: c.silent = false; break;
                    case Opt::show_error: c.show_error = false; break;
                    case Opt::fail: c.fail = false; break;
                    case Opt::location: c.follow = false; break;
                    case Opt::include: c.include = false; break;
                    case Opt::verbose: c.verbose = false; break;
                    case Opt::compressed: c.compressed = false; break;
                    default: break;
                }
                continue;
            }
            std::string value;
            if (spec->takes_arg) {
                if (i + 1 >= argv.size()) {
                    ctx.err.write("curl: option " + a + ": requires parameter\n");
                    ctx.err.write(kTryHelp);
                    return ParseStatus::error;
                }
                value = argv[++i];
            }
            auto st = apply(ctx, c, *spec, a, std::move(value));
            if (st != ParseStatus::ok) return st;
            continue;
        }
        for (size_t j = 1; j < a.size(); ++j) {
            char ch = a[j];
            const OptSpec* spec = nullptr;
            for (const auto& o : kOptions) {
                if (o.short_name == ch) {
                    spec = &o;
                    break;
                }
            }
            std::string shown = std::string("-") + ch;
            if (!spec) {
                ctx.err.write("curl: option " + shown + ": is unknown\n");
                ctx.err.write(kTryHelp);
                return ParseStatus::error;
            }
            std::string value;
            bool consumed_rest = false;
            if (spec->takes_arg) {
                if (j + 1 < a.size()) {
                    value = a.substr(j + 1);
                } else if (i + 1 < argv.size()) {
                    value = argv[++i];
                } else {
                    ctx.err.write("curl: option " + shown + ": requires parameter\n");
                    ctx.err.write(kTryHelp);
                    return ParseStatus::error;
                }
                consumed_rest = true;
            }
            auto st = apply(ctx, c, *spec, shown, std::move(value));
            if (st != ParseStatus::ok) return st;
            if (consumed_rest) break;
        }
    }
    return ParseStatus::ok;
}

// ---------------------------------------------------------------- request building

void warn(interp::CommandContext& ctx, const Config& c, const std::string& msg) {
    if (!c.silent) ctx.err.write("Warning: " + msg + "\n");
}

// Reads the file behind "@name" for -d and friends.
std::optional<std::string> read_at_file(interp::CommandContext& ctx, const Config& c, const std::string& name) {
    auto data = netutil::read_input(ctx, name, nullptr);
    if (!data) warn(ctx, c, "Couldn't read data from file \"" + name + "\", this makes an empty POST.");
    return data;
}

std::string build_data(interp::CommandContext& ctx, const Config& c, bool& is_json) {
    std::string out;
    bool first = true;
    is_json = false;
    for (const auto& [kind, arg] : c.data) {
        std::string piece;
        switch (kind) {
            case DataKind::ascii:
            case DataKind::binary:
            case DataKind::json:
                if (!arg.empty() && arg[0] == '@') {
                    piece = read_at_file(ctx, c, arg.substr(1)).value_or("");
                    if (kind == DataKind::ascii) std::erase_if(piece, [](char ch) { return ch == '\r' || ch == '\n'; });
                } else {
                    piece = arg;
                }
                break;
            case DataKind::raw: piece = arg; break;
            case DataKind::urlencode: {
                size_t eq = arg.find('=');
                size_t sep = eq != std::string::npos ? eq : arg.find('@');
                std::string name, content;
                if (sep == std::string::npos) {
                    content = arg;
                } else {
                    name = arg.substr(0, sep);
                    std::string rest = arg.substr(sep + 1);
                    if (arg[sep] == '@') {
                        content = read_at_file(ctx, c, rest).value_or("");
                    } else {
                        content = rest;
                    }
                }
                piece = name.empty() ? netutil::form_urlencode(content) : name + "=" + netutil::form_urlencode(content);
                break;
            }
        }
        if (kind == DataKind::json) {
            is_json = true;
            out += piece;  // --json pieces are concatenated as they are
        } else {
            if (!first) out += '&';
            out += piece;
        }
        first = false;
    }
    return out;
}

std::string mime_type_for(std::string_view filename) {
    size_t dot = filename.rfind('.');
    if (dot == std::string_view::npos) return "application/octet-stream";
    std::string ext = netutil::to_lower(filename.substr(dot + 1));
    static const std::pair<std::string_view, std::string_view> kTypes[] = {
        {"gif", "image/gif"}, {"jpg", "image/jpeg"}, {"jpeg", "image/jpeg"},  {"png", "image/png"},
        {"svg", "image/svg+xml"}, {"txt", "text/plain"}, {"htm", "text/html"}, {"html", "text/html"},
        {"pdf", "application/pdf"}, {"xml", "application/xml"}, {"json", "application/json"},
    };
    for (const auto& [e, t] : kTypes) {
        if (ext == e) return std::string(t);
    }
    return "application/octet-stream";
}

std::string make_boundary() {
    static constexpr char kChars[] = "0123456789abcdef";
    std::random_device rd;
    std::string b(24, '-');
    for (int i = 0; i < 16; ++i) b += kChars[rd() % 16];
    return b;
}

// A multipart/form-data body for the -F fields; nullopt (with *code set) when a file cannot be read.
std::optional<std::string> build_multipart(interp::CommandContext& ctx, const Config& c, const std::string& boundary,
                                           int* code) {
    std::string body;
    for (const auto& [spec, literal] : c.forms) {
        size_t eq = spec.find('=');
        if (eq == std::string::npos) {
            ctx.err.write("Warning: Illegally formatted input field!\n");
            ctx.err.write("curl: option -F: is badly used here\n");
            ctx.err.write(kTryHelp);
            *code = 2;
            return std::nullopt;
        }
        std::string name = spec.substr(0, eq);
        std::string value = spec.substr(eq + 1);
        std::optional<std::string> filename, type;
        std::string content;
        if (!literal && !value.empty() && (value[0] == '@' || value[0] == '<')) {
            char how = value[0];
            std::string rest = value.substr(1);
            std::vector<std::string> parts;
            size_t pos = 0;
            while (true) {
                size_t semi = rest.find(';', pos);
                parts.push_back(rest.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos));
                if (semi == std::string::npos) break;
                pos = semi + 1;
            }
            std::string path = parts[0];
            for (size_t i = 1; i < parts.size(); ++i) {
                if (parts[i].rfind("type=", 0) == 0) type = parts[i].substr(5);
                if (parts[i].rfind("filename=", 0) == 0) filename = parts[i].substr(9);
            }
            auto data = netutil::read_input(ctx, path, nullptr);
            if (!data) {
                if (c.show_errors()) ctx.err.write("curl: (26) Failed to open/read local data from file/application\n");
                *code = 26;
                return std::nullopt;
            }
            content = std::move(*data);
            if (how == '@') {
                if (!filename) filename = path == "-" ? std::string() : vfs::path_basename(path);
                if (!type) type = mime_type_for(*filename);
            }
        } else if (!literal) {
            size_t semi = value.find(";type=");
            if (semi != std::string::npos) {
                type = value.substr(semi + 6);
                value.resize(semi);
            }
            content = value;
        } else {
            content = value;
        }
        body += "--" + boundary + "\r\n";
        body += "Content-Disposition: form-data; name=\"" + name + "\"";
        if (filename) body += "; filename=\"" + *filename + "\"";
        body += "\r\n";
        if (type) body += "Content-Type: " + *type + "\r\n";
        body += "\r\n" + content + "\r\n";
    }
    body += "--" + boundary + "--\r\n";
    return body;
}

bool has_header(const std::vector<std::pair<std::string, std::string>>& hs, std::string_view name) {
    return std::any_of(hs.begin(), hs.end(), [&](const auto& h) { return iequals(h.first, name); });
}

std::string with_scheme(const std::string& url) {
    if (url.find("://") != std::string::npos) return url;
    return "http://" + url;
}

// The last path segment of a URL (curl -O), without the query.
std::string remote_file_name(const std::string& url) {
    auto p = net::parse_url(url);
    std::string path = p ? p->path : url;
    size_t q = path.find('?');
    if (q != std::string::npos) path.resize(q);
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---------------------------------------------------------------- response handling

std::optional<std::string> inflate_body(std::string_view in) {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return std::nullopt;
    std::string out;
    char buf[65536];
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = uInt(in.size());
    int rc = Z_OK;
    while (rc == Z_OK) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        out.append(buf, sizeof buf - zs.avail_out);
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;
        if (out.size() > (size_t(1) << 30)) {
            rc = Z_MEM_ERROR;
            break;
        }
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END && rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) return std::nullopt;
    return out;
}

std::string http_version_of(std::string_view status_line) {
    if (status_line.substr(0, 5) != "HTTP/") return "0";
    size_t sp = status_line.find(' ');
    std::string v(status_line.substr(5, sp == std::string_view::npos ? std::string_view::npos : sp - 5));
    if (v == "1.0") return "1";
    return v;
}

// What a finished (or failed) transfer leaves for -w and the messages.
struct Outcome {
    int code = 0;
    std::string errormsg;
    std::optional<net::HttpResponse> response;
    std::string url;     // as requested
    std::string method;  // as sent first
    size_t download_bytes = 0;
    size_t upload_bytes = 0;
    milliseconds elapsed{0};
    std::string filename;
};

std::string format_seconds(milliseconds ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", double(ms.count()) / 1000.0);
    return buf;
}

std::string resolve_redirect(const std::string& base, const std::string& loc) {
    if (loc.find("://") != std::string::npos) return loc;
    auto p = net::parse_url(base);
    if (!p) return loc;
    std::string origin = base.substr(0, base.find('/', base.find("://") + 3));
    if (!loc.empty() && loc[0] == '/') return origin + loc;
    std::string dir = p->path.substr(0, p->path.find('?'));
    dir = dir.substr(0, dir.rfind('/') + 1);
    return origin + dir + loc;
}

// Expands a --write-out format. Unknown variables are reported on stderr, as curl does.
void write_out(interp::CommandContext& ctx, const std::string& format, const Outcome& o) {
    std::string out;
    bool to_err = false;
    auto flush = [&]() {
        if (out.empty()) return;
        (to_err ? ctx.err : ctx.out).write(out);
        out.clear();
    };
    const net::HttpResponse* r = o.response ? &*o.response : nullptr;
    auto var = [&](const std::string& name) -> std::optional<std::string> {
        char buf[64];
        if (name == "http_code" || name == "response_code") {
            std::snprintf(buf, sizeof buf, "%03ld", r ? r->status : 0L);
            return std::string(buf);
        }
        if (name == "http_version") return r ? http_version_of(r->status_line) : "0";
        if (name == "size_download") return std::to_string(o.download_bytes);
        if (name == "size_upload") return std::to_string(o.upload_bytes);
        if (name == "size_header") return std::to_string(r ? r->raw_headers.size() : 0);
        if (name == "size_request") {
            size_t n = o.upload_bytes;
            if (r) {
                for (const auto& s : r->sent_headers) n += s.size();
            }
            return std::to_string(n);
        }
        if (name == "url_effective") return r ? r->effective_url : o.url;
        if (name == "url") return o.url;
        if (name == "content_type") return r ? netutil::find_header(r->headers, "Content-Type").value_or("") : "";
        if (name == "num_redirects") return std::to_string(r ? r->redirects : 0);
        if (name == "num_connects") return std::to_string(r ? r->redirects + 1 : 0);
        if (name == "redirect_url") {
            if (!r || r->status < 300 || r->status > 399) return std::string();
            auto loc = netutil::find_header(r->headers, "Location");
            return loc ? resolve_redirect(r->effective_url, *loc) : std::string();
        }
        if (name == "time_total" || name == "time_starttransfer") return format_seconds(o.elapsed);
        if (name == "time_namelookup" || name == "time_connect" || name == "time_appconnect" ||
            name == "time_pretransfer" || name == "time_redirect") {
            return format_seconds(milliseconds(0));
        }
        if (name == "speed_download") {
            double secs = std::max(0.001, double(o.elapsed.count()) / 1000.0);
            return std::to_string(uint64_t(double(o.download_bytes) / secs));
        }
        if (name == "speed_upload") return std::string("0");
        if (name == "exitcode") return std::to_string(o.code);
        if (name == "errormsg") return o.errormsg;
        if (name == "method") return o.method;
        if (name == "scheme") {
            if (!r) return std::string();
            auto p = net::parse_url(r->effective_url);
            std::string s = p ? p->scheme : "";
            for (char& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
            return s;
        }
        if (name == "remote_port") {
            auto p = net::parse_url(r ? r->effective_url : o.url);
            return std::to_string(r && p ? p->port : 0);
        }
        if (name == "remote_ip") {
            auto p = net::parse_url(r ? r->effective_url : o.url);
            return r && p && net::parse_ip(p->host) ? p->host : std::string();
        }
        if (name == "filename_effective") return o.filename;
        if (name == "ssl_verify_result") return std::string("0");
        if (name == "local_ip") return std::string();
        if (name == "local_port") return std::string("0");
        return std::nullopt;
    };
    for (size_t i = 0; i < format.size(); ++i) {
        char ch = format[i];
        if (ch == '\\' && i + 1 < format.size()) {
            char n = format[i + 1];
            if (n == 'n' || n == 'r' || n == 't') {
                out += n == 'n' ? '\n' : n == 'r' ? '\r' : '\t';
                ++i;
                continue;
            }
            out += ch;
            continue;
        }
        if (ch != '%') {
            out += ch;
            continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '%') {
            out += '%';
            ++i;
            continue;
        }
        if (format.compare(i, 8, "%header{") == 0) {
            size_t close = format.find('}', i + 8);
            if (close != std::string::npos) {
                std::string name = format.substr(i + 8, close - i - 8);
                if (r) out += netutil::find_header(r->headers, name).value_or("");
                i = close;
                continue;
            }
        }
        if (i + 1 < format.size() && format[i + 1] == '{') {
            size_t close = format.find('}', i + 2);
            if (close != std::string::npos) {
                std::string name = format.substr(i + 2, close - i - 2);
                i = close;
                if (name == "stdout" || name == "stderr") {
                    flush();
                    to_err = name == "stderr";
                    continue;
                }
                if (auto v = var(name)) {
                    out += *v;
                } else {
                    flush();
                    ctx.err.write("curl: unknown --write-out variable: '" + name + "'\n");
                }
                continue;
            }
        }
        out += ch;
    }
    flush();
}

// -v: the request headers of each hop (as sent, with bound secrets redacted by the client) and the
// response headers that came back.
void print_verbose(interp::CommandContext& ctx, const net::HttpResponse& r) {
    auto blocks = netutil::split_header_blocks(r.raw_headers);
    size_t next_block = 0;
    std::string text;
    auto prefixed = [&](std::string_view block, std::string_view prefix) {
        size_t pos = 0;
        while (pos < block.size()) {
            size_t nl = block.find('\n', pos);
            size_t end = nl == std::string_view::npos ? block.size() : nl + 1;
            text += prefix;
            text.append(block.substr(pos, end - pos));
            if (nl == std::string_view::npos) text += '\n';
            pos = end;
        }
    };
    for (size_t hop = 0; hop < r.sent_headers.size(); ++hop) {
        prefixed(r.sent_headers[hop], "> ");
        while (next_block < blocks.size()) {
            const std::string& b = blocks[next_block++];
            prefixed(b, "< ");
            // 1xx answers (100 Continue) come before the real one of the same hop.
            size_t sp = b.find(' ');
            bool informational = sp != std::string::npos && sp + 1 < b.size() && b[sp + 1] == '1';
            if (!informational) break;
        }
        if (hop + 1 < r.sent_headers.size()) text += "* Following redirect\n";
    }
    ctx.err.write(text);
}

bool transient_status(long s) { return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504; }

class Curl {
public:
    Curl(interp::CommandContext& ctx, Config& c) : ctx_(ctx), c_(c) {}

    int run() {
        if (c_.urls.empty()) {
            ctx_.err.write("curl: no URL specified!\n");
            ctx_.err.write(kTryHelp);
            return 2;
        }
        if (c_.urls.size() > kMaxTransfersPerCommand) {
            ctx_.err.write("curl: (2) " + std::to_string(c_.urls.size()) + " URLs in one command: the sandbox allows " +
                           std::to_string(kMaxTransfersPerCommand) + "\n");
            return 2;
        }
        if (!c_.forms.empty() && (!c_.data.empty() || c_.get)) {
            ctx_.err.write("Warning: You can only select one HTTP request method! You asked for both POST \n");
            ctx_.err.write("Warning: (-d, --data) and multipart formpost (-F, --form).\n");
            return 2;
        }
        if (c_.write_out && !c_.write_out->empty() && (*c_.write_out)[0] == '@') {
            std::string name = c_.write_out->substr(1);
            vfs::Errc e = vfs::Errc::ok;
            auto fmt = netutil::read_input(ctx_, name, &e);
            if (!fmt) {
                ctx_.err.write("Warning: Failed to read " + name + "\n");
                c_.write_out.reset();
            } else {
                c_.write_out = *fmt;
            }
        }
        // The request body is the same for every URL.
        if (!c_.forms.empty()) {
            boundary_ = make_boundary();
            int code = 0;
            auto body = build_multipart(ctx_, c_, boundary_, &code);
            if (!body) return code;
            body_ = std::move(*body);
            has_body_ = true;
            multipart_ = true;
        } else if (!c_.data.empty()) {
            body_ = build_data(ctx_, c_, is_json_);
            has_body_ = !c_.get;
        } else if (c_.upload_file) {
            auto data = netutil::read_input(ctx_, *c_.upload_file, nullptr);
            if (!data) {
                if (c_.show_errors()) ctx_.err.write("curl: Can't open '" + *c_.upload_file + "'!\n");
                if (c_.show_errors()) ctx_.err.write("curl: try 'curl --help' or 'curl --manual' for more information\n");
                return 26;
            }
            body_ = std::move(*data);
            has_body_ = true;
        }
        int last = 0;
        for (size_t i = 0; i < c_.urls.size(); ++i) {
            if (ctx_.cancelled()) return 130;
            const OutputSpec* out = i < c_.outputs.size() ? &c_.outputs[i] : nullptr;
            OutputSpec remote{true, {}};
            if (!out && c_.remote_name_all) out = &remote;
            last = run_url(c_.urls[i], out);
            if (last == 130 && ctx_.cancelled()) return last;
        }
        return last;
    }

private:
    net::HttpRequest build_request(const std::string& url_arg) {
        net::HttpRequest req;
        req.url = with_scheme(url_arg);
        if (c_.get && !c_.data.empty()) {
            req.url += req.url.find('?') == std::string::npos ? '?' : '&';
            req.url += body_;
        }
        if (c_.upload_file && !req.url.empty() && req.url.back() == '/') {
            req.url += vfs::path_basename(*c_.upload_file);
        }
        std::string method = has_body_ ? (c_.upload_file && c_.data.empty() && c_.forms.empty() ? "PUT" : "POST") : "GET";
        if (c_.head) method = "HEAD";
        if (c_.method) method = *c_.method;
        req.method = method;
        req.head_only = c_.head || method == "HEAD";
        if (has_body_) {
            req.body = body_;
            req.has_body = true;
        }
        req.follow_redirects = c_.follow;
        if (c_.max_time && *c_.max_time > 0) req.timeout = milliseconds(int64_t(*c_.max_time * 1000));
        if (c_.connect_timeout && *c_.connect_timeout > 0) {
            req.connect_timeout = milliseconds(int64_t(*c_.connect_timeout * 1000));
        }

        // The script's -H headers: "Name: value", "Name:" removes a default, "Name;" sends it empty.
        std::vector<std::pair<std::string, std::string>> hs;
        for (std::string h : c_.headers) {
            h.resize(std::min(h.find_first_of("\r\n"), h.size()));  // one header per -H, never a second line
            size_t colon = h.find(':');
            if (colon == std::string::npos) {
                if (!h.empty() && h.back() == ';') hs.emplace_back(h.substr(0, h.size() - 1), "");
                continue;
            }
            std::string name = netutil::trim(h.substr(0, colon));
            std::string value = netutil::trim(h.substr(colon + 1));
            // libcurl leaves out a header whose value is blank and suppresses its own of that name.
            hs.emplace_back(name, value.empty() ? " " : value);
        }
        auto add_default = [&](std::string name, std::string value) {
            if (!has_header(hs, name)) hs.emplace_back(std::move(name), std::move(value));
        };
        if (c_.user) {
            std::string cred = c_.user->find(':') == std::string::npos ? *c_.user + ":" : *c_.user;
            add_default("Authorization", "Basic " + netutil::base64(cred));
        } else if (c_.bearer) {
            add_default("Authorization", "Bearer " + *c_.bearer);
        }
        if (c_.user_agent) {
            add_default("User-Agent", c_.user_agent->empty() ? " " : *c_.user_agent);
        } else {
            add_default("User-Agent", "curl/" + std::string(kCurlVersion));
        }
        if (c_.referer) {
            std::string ref = *c_.referer;
            size_t semi = ref.find(";auto");
            if (semi != std::string::npos) ref.resize(semi);
            if (!ref.empty()) add_default("Referer", ref);
        }
        if (c_.cookie && c_.cookie->find('=') != std::string::npos) add_default("Cookie", *c_.cookie);
        if (c_.range) add_default("Range", "bytes=" + *c_.range);
        if (c_.compressed) add_default("Accept-Encoding", "deflate, gzip");
        if (has_body_) {
            if (multipart_) {
                add_default("Content-Type", "multipart/form-data; boundary=" + boundary_);
            } else if (is_json_) {
                add_default("Content-Type", "application/json");
                add_default("Accept", "application/json");
            } else if (!c_.upload_file || !c_.data.empty()) {
                add_default("Content-Type", "application/x-www-form-urlencoded");
            } else {
                add_default("Content-Type", " ");  // an upload has none (libcurl would add the form type)
            }
        }
        req.headers = std::move(hs);
        return req;
    }

    void report(const Outcome& o, bool blocked) {
        if (o.code == 0) return;
        if (blocked || c_.show_errors()) {
            ctx_.err.write("curl: (" + std::to_string(o.code) + ") " + o.errormsg + "\n");
        }
    }

    int run_url(const std::string& url_arg, const OutputSpec* out_spec) {
        net::HttpRequest req = build_request(url_arg);
        Outcome o;
        o.url = req.url;
        o.method = req.method;
        o.upload_bytes = req.has_body ? req.body.size() : 0;

        // Where the body goes.
        std::string shown_path;  // as the user wrote it
        bool remote = out_spec && out_spec->remote_name;
        if (out_spec && !remote && out_spec->path != "-") shown_path = out_spec->path;
        if (remote) {
            shown_path = remote_file_name(req.url);
            if (shown_path.empty() && !c_.remote_header_name) {
                if (c_.show_errors()) {
                    ctx_.err.write("curl: Remote file name has no length!\n");
                    ctx_.err.write("curl: (23) Failed writing received data to disk/application\n");
                }
                return 23;
            }
        }
        if (!shown_path.empty() && c_.output_dir) shown_path = vfs::join_path(*c_.output_dir, shown_path);

        if (!ctx_.http) {
            o.code = 7;
            o.errormsg = "blocked by the sandbox: network access is disabled in this sandbox";
            report(o, true);
            if (c_.write_out) write_out(ctx_, *c_.write_out, o);
            return o.code;
        }

        bool buffered = c_.fail || c_.fail_with_body || c_.include || c_.dump_header || c_.retry > 0 ||
                        c_.compressed || c_.remote_header_name;
        std::unique_ptr<netutil::Output> output;
        auto make_output = [&](const std::string& shown) {
            if (shown.empty()) return std::make_unique<netutil::Output>(ctx_);
            return std::make_unique<netutil::Output>(ctx_, ctx_.resolve(shown), c_.create_dirs);
        };
        if (!buffered) output = make_output(shown_path);

        double delay_s = c_.retry_delay.value_or(1.0);
        auto start = std::chrono::steady_clock::now();
        netutil::Transfer t;
        bool blocked = false;
        for (long attempt = 0;; ++attempt) {
            std::atomic<bool> abort{false};
            size_t received = 0;
            std::function<void(std::string_view)> on_body;
            if (output) {
                on_body = [&](std::string_view chunk) {
                    received += chunk.size();
                    if (!output->write(chunk)) abort = true;
                };
            }
            t = netutil::perform(ctx_, *ctx_.http, req, abort, on_body);
            o.elapsed = t.elapsed;
            if (t.cancelled) return 130;
            if (output && output->failed()) {
                return write_failed(o, *output, shown_path);
            }
            o.download_bytes = output ? received : (t.result.ok() ? t.result.response->body.size() : 0);
            blocked = !t.result.ok() && t.result.error->blocked;
            // Transient problems are tried again (--retry), never a refusal by the sandbox.
            std::string why;
            if (!t.result.ok() && !blocked) {
                int code = t.result.error->curl_code;
                if (code == 28 || code == 6) why = ": timeout";
                else if (code == 7 && c_.retry_connrefused) why = ": connection refused";
                else if (c_.retry_all) why = "(retrying all errors)";
            } else if (t.result.ok()) {
                long s = t.result.response->status;
                if (transient_status(s)) why = ": HTTP error";
                else if (c_.retry_all && s >= 400 && (c_.fail || c_.fail_with_body)) why = "(retrying all errors)";
            }
            auto spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            bool time_left = c_.retry_max_time <= 0 || spent + delay_s < c_.retry_max_time;
            if (why.empty() || attempt >= c_.retry || !time_left) break;
            char msg[160];
            std::snprintf(msg, sizeof msg, "Problem %s. Will retry in %ld seconds. %ld retries left.", why.c_str(),
                          long(delay_s), c_.retry - attempt);
            warn(ctx_, c_, msg);
            if (!netutil::sleep_for(ctx_, milliseconds(int64_t(delay_s * 1000)))) return 130;
            if (output && !output->reset()) return write_failed(o, *output, shown_path);
            if (!c_.retry_delay) delay_s = std::min(delay_s * 2, 600.0);
        }

        if (!t.result.ok()) {
            const auto& e = *t.result.error;
            o.code = e.curl_code;
            o.errormsg = e.message;
            if (o.code == 7 && !e.blocked && o.errormsg.rfind("Failed to connect to ", 0) == 0) {
                o.errormsg += " after " + std::to_string(t.elapsed.count()) + " ms: Couldn't connect to server";
            } else if (o.code == 28 && o.errormsg == "Operation timed out") {
                o.errormsg += " after " + std::to_string(t.elapsed.count()) + " milliseconds with " +
                              std::to_string(o.download_bytes) + " bytes received";
            }
            if (c_.verbose) ctx_.err.write("* " + o.errormsg + "\n");
            report(o, e.blocked);
            // What arrived before the failure stays (curl keeps a partial file), ahead of any -w text.
            if (output && (output->to_stdout() || output->opened())) (void)output->finish();
            if (c_.write_out) write_out(ctx_, *c_.write_out, o);
            return o.code;
        }
        o.response = std::move(t.result.response);
        net::HttpResponse& r = *o.response;
        if (c_.verbose) print_verbose(ctx_, r);

        bool http_error = (c_.fail || c_.fail_with_body) && r.status >= 400;
        if (http_error) {
            o.code = 22;
            o.errormsg = "The requested URL returned error: " + std::to_string(r.status);
        }
        if (buffered && !(http_error && !c_.fail_with_body)) {
            if (c_.remote_header_name && remote) {
                if (auto cd = netutil::find_header(r.headers, "Content-Disposition")) {
                    if (auto name = disposition_filename(*cd)) {
                        shown_path = c_.output_dir ? vfs::join_path(*c_.output_dir, *name) : *name;
                    }
                }
                if (shown_path.empty()) {
                    if (c_.show_errors()) ctx_.err.write("curl: (23) Failed writing received data to disk/application\n");
                    return 23;
                }
            }
            if (c_.dump_header) {
                if (*c_.dump_header == "-") {
                    ctx_.out.write(r.raw_headers);
                } else {
                    (void)ctx_.fs.write_file(ctx_.resolve(*c_.dump_header), r.raw_headers);
                }
            }
            output = make_output(shown_path);
            if (c_.include || c_.head) output->write(r.raw_headers);
            std::string body = std::move(r.body);
            if (c_.compressed) {
                // Every coding listed (in one header or several) was applied in order: undo them backwards.
                std::vector<std::string> codings;
                for (const auto& [k, v] : r.headers) {
                    if (!iequals(k, "Content-Encoding")) continue;
                    size_t pos = 0;
                    while (pos <= v.size()) {
                        size_t comma = v.find(',', pos);
                        std::string one = netutil::to_lower(netutil::trim(v.substr(pos, comma - pos)));
                        if (!one.empty() && one != "identity") codings.push_back(one);
                        if (comma == std::string::npos) break;
                        pos = comma + 1;
                    }
                }
                for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
                    if (*it != "gzip" && *it != "x-gzip" && *it != "deflate") break;  // not asked for: left as is
                    auto plain = inflate_body(body);
                    if (!plain) {
                        o.code = 61;
                        o.errormsg = "Error while processing content unencoding: invalid compressed data";
                        report(o, false);
                        if (c_.write_out) write_out(ctx_, *c_.write_out, o);
                        return o.code;
                    }
                    body = std::move(*plain);
                }
            }
            output->write(body);
        } else if (output && c_.head) {
            output->write(r.raw_headers);
        }
        if (output && !output->finish()) return write_failed(o, *output, shown_path);
        o.filename = shown_path;
        report(o, false);
        if (c_.write_out) write_out(ctx_, *c_.write_out, o);
        return o.code;
    }

    static std::optional<std::string> disposition_filename(const std::string& cd) {
        size_t at = netutil::to_lower(cd).find("filename=");
        if (at == std::string::npos) return std::nullopt;
        std::string v = cd.substr(at + 9);
        if (!v.empty() && v[0] == '"') {
            size_t end = v.find('"', 1);
            v = v.substr(1, end == std::string::npos ? std::string::npos : end - 1);
        } else {
            v = v.substr(0, v.find(';'));
        }
        v = vfs::path_basename(netutil::trim(v));
        if (v.empty() || v == "/" || v == "." || v == "..") return std::nullopt;
        return v;
    }

    int write_failed(Outcome& o, const netutil::Output& out, const std::string& shown) {
        if (out.open_failed()) {
            warn(ctx_, c_, "Failed to open the file " + shown + ": " + std::string(vfs::error_message(out.error())));
        }
        o.code = 23;
        o.errormsg = "Failure writing output to destination";
        report(o, false);
        if (c_.write_out) write_out(ctx_, *c_.write_out, o);
        return 23;
    }

    interp::CommandContext& ctx_;
    Config& c_;
    std::string body_;
    bool has_body_ = false;
    bool is_json_ = false;
    bool multipart_ = false;
    std::string boundary_;
};

}  // namespace

int curl_main(interp::CommandContext& ctx) {
    Config c;
    switch (parse_args(ctx, c)) {
        case ParseStatus::exit_ok: return 0;
        case ParseStatus::error: return 2;
        case ParseStatus::ok: break;
    }
    Curl curl(ctx, c);
    return curl.run();
}

}  // namespace bashkit::utils

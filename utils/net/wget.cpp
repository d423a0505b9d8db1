// wget: download URLs into the virtual filesystem (or stdout with -O-), with wget's messages (LC_ALL=C
// quoting) and exit codes: 1 generic, 2 usage, 3 file I/O, 4 network, 5 TLS, 8 server error answer.
//
// Output to a file streams as it arrives; a file wget would not keep (an error answer) is emptied (-O FILE,
// which wget creates before the transfer) or removed (a name taken from the URL). -O- buffers the answer,
// which the client caps, so that an error page never reaches stdout.
#include <algorithm>
#include <cstdio>

#include "utils/net/commands.hpp"
#include "utils/net/common.hpp"

namespace bashkit::utils {

namespace {

using netutil::iequals;
using std::chrono::milliseconds;

constexpr std::string_view kUserAgent = "Wget/1.21.3";
constexpr std::string_view kUsageTail = "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n";

struct Config {
    bool quiet = false, no_verbose = false, server_response = false, no_clobber = false, content_on_error = false;
    bool retry_connrefused = false;
    std::optional<std::string> output_document, post_data, post_file, method, body_data, user_agent, prefix;
    std::optional<std::string> http_user, http_password;
    std::vector<std::string> headers;
    std::optional<double> timeout;
    long tries = 20;
    std::vector<std::string> urls;
};

enum class W {
    quiet, no_verbose, verbose, server_response, output_document, header, post_data, post_file, method, body_data,
    timeout, tries, user_agent, prefix, no_clobber, content_on_error, retry_connrefused, user, password, help,
    version, no_check_certificate, noop, noop_arg,
};

struct WSpec {
    std::string_view name;
    char short_name;
    W opt;
    bool takes_arg;
};

constexpr WSpec kOptions[] = {
    {"quiet", 'q', W::quiet, false},
    {"no-verbose", 0, W::no_verbose, false},
    {"verbose", 'v', W::verbose, false},
    {"server-response", 'S', W::server_response, false},
    {"output-document", 'O', W::output_document, true},
    {"header", 0, W::header, true},
    {"post-data", 0, W::post_data, true},
    {"post-file", 0, W::post_file, true},
    {"method", 0, W::method, true},
    {"body-data", 0, W::body_data, true},
    {"timeout", 'T', W::timeout, true},
    {"read-timeout", 0, W::timeout, true},
    {"connect-timeout", 0, W::timeout, true},
    {"tries", 't', W::tries, true},
    {"user-agent", 'U', W::user_agent, true},
    {"directory-prefix", 'P', W::prefix, true},
    {"no-clobber", 0, W::no_clobber, false},
    {"content-on-error", 0, W::content_on_error, false},
    {"retry-connrefused", 0, W::retry_connrefused, false},
    {"user", 0, W::user, true},
    {"http-user", 0, W::user, true},
    {"password", 0, W::password, true},
    {"http-password", 0, W::password, true},
    {"help", 'h', W::help, false},
    {"version", 'V', W::version, false},
    {"no-check-certificate", 0, W::no_check_certificate, false},
    {"continue", 'c', W::noop, false},
    {"no-cache", 0, W::noop, false},
    {"inet4-only", '4', W::noop, false},
    {"inet6-only", '6', W::noop, false},
    {"max-redirect", 0, W::noop_arg, true},
    {"waitretry", 0, W::noop_arg, true},
    {"progress", 0, W::noop_arg, true},
    {"show-progress", 0, W::noop, false},
};

void usage_error(interp::CommandContext& ctx, const std::string& first) {
    ctx.err.write(first);
    ctx.err.write(kUsageTail);
}

enum class Parse { ok, exit_ok, error };

Parse apply(interp::CommandContext& ctx, Config& c, const WSpec& s, std::string value) {
    switch (s.opt) {
        case W::quiet: c.quiet = true; break;
        case W::no_verbose: c.no_verbose = true; break;
        case W::verbose: c.no_verbose = false; c.quiet = false; break;
        case W::server_response: c.server_response = true; break;
        case W::output_document: c.output_document = std::move(value); break;
        case W::header: c.headers.push_back(std::move(value)); break;
        case W::post_data: c.post_data = std::move(value); break;
        case W::post_file: c.post_file = std::move(value); break;
        case W::method: c.method = std::move(value); break;
        case W::body_data: c.body_data = std::move(value); break;
        case W::timeout: {
            char* end = nullptr;
            double v = std::strtod(value.c_str(), &end);
            if (value.empty() || *end || v < 0 || v > 1e9) {
                ctx.err.write("wget: --timeout: Invalid time period '" + value + "'\n");
                return Parse::error;
            }
            c.timeout = v;
            break;
        }
        case W::tries: {
            if (value == "inf") {
                c.tries = 0;
                break;
            }
            char* end = nullptr;
            long v = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || *end || v < 0 || v > 1000000) {
                ctx.err.write("wget: --tries: Invalid number '" + value + "'\n");
                return Parse::error;
            }
            c.tries = v;
            break;
        }
        case W::user_agent: c.user_agent = std::move(value); break;
        case W::prefix: c.prefix = std::move(value); break;
        case W::no_clobber: c.no_clobber = true; break;
        case W::content_on_error: c.content_on_error = true; break;
        case W::retry_connrefused: c.retry_connrefused = true; break;
        case W::user: c.http_user = std::move(value); break;
        case W::password: c.http_password = std::move(value); break;
        case W::help:
            ctx.out.write(
                "GNU Wget 1.21.3 (bashkit sandbox), a non-interactive network retriever.\n"
                "Usage: wget [OPTION]... [URL]...\n\n"
                "  -q,  --quiet                     quiet (no output)\n"
                "  -nv, --no-verbose                turn off verboseness, without being quiet\n"
                "  -O,  --output-document=FILE      write documents to FILE ('-' for stdout)\n"
                "  -P,  --directory-prefix=PREFIX   save files to PREFIX/..\n"
                "  -S,  --server-response           print server response\n"
                "  -T,  --timeout=SECONDS           set all timeout values to SECONDS\n"
                "  -t,  --tries=NUMBER              set number of retries to NUMBER (0 unlimits)\n"
                "  -U,  --user-agent=AGENT          identify as AGENT instead of Wget/VERSION\n"
                "       --header=STRING             insert STRING among the headers\n"
                "       --post-data=STRING          use the POST method; send STRING as the data\n"
                "       --post-file=FILE            use the POST method; send contents of FILE\n"
                "In this sandbox requests go through the network policy; --no-check-certificate is refused.\n");
            return Parse::exit_ok;
        case W::version:
            ctx.out.write("GNU Wget 1.21.3 (bashkit sandbox)\n");
            return Parse::exit_ok;
        case W::no_check_certificate:
            ctx.err.write("wget: option --no-check-certificate: not allowed in the sandbox (TLS certificates are always verified)\n");
            return Parse::error;
        case W::noop:
        case W::noop_arg: break;
    }
    return Parse::ok;
}

Parse parse_args(interp::CommandContext& ctx, Config& c) {
    const auto& argv = ctx.argv;
    bool done = false;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (done || a.size() < 2 || a[0] != '-') {
            c.urls.push_back(a);
            continue;
        }
        if (a == "--") {
            done = true;
            continue;
        }
        if (a[1] == '-') {
            std::string body = a.substr(2);
            size_t eq = body.find('=');
            std::string name = body.substr(0, eq);
            const WSpec* hit = nullptr;
            int hits = 0;
            for (const auto& o : kOptions) {
                if (o.name == name) {
                    hit = &o;
                    hits = 1;
                    break;
                }
                if (o.name.substr(0, name.size()) == name) {
                    hit = &o;
                    ++hits;
                }
            }
            if (hits != 1) {
                usage_error(ctx, hits > 1 ? "wget: option '" + a + "' is ambiguous\n"
                                          : "wget: unrecognized option '" + a + "'\n");
                return Parse::error;
            }
            std::string value;
            if (hit->takes_arg) {
                if (eq != std::string::npos) {
                    value = body.substr(eq + 1);
                } else if (i + 1 < argv.size()) {
                    value = argv[++i];
                } else {
                    usage_error(ctx, "wget: option '--" + std::string(hit->name) + "' requires an argument\n");
                    return Parse::error;
                }
            } else if (eq != std::string::npos) {
                usage_error(ctx, "wget: option '--" + std::string(hit->name) + "' doesn't allow an argument\n");
                return Parse::error;
            }
            auto st = apply(ctx, c, *hit, std::move(value));
            if (st != Parse::ok) return st;
            continue;
        }
        for (size_t j = 1; j < a.size(); ++j) {
            char ch = a[j];
            if (ch == 'n' && j + 1 < a.size()) {  // -nv, -nc, -nd, -nH: two-letter flags
                char n = a[j + 1];
                if (n == 'v') c.no_verbose = true;
                else if (n == 'c') c.no_clobber = true;
                else if (n != 'd' && n != 'H') {
                    usage_error(ctx, std::string("wget: invalid option -- 'n'\n"));
                    return Parse::error;
                }
                ++j;
                continue;
            }
            const WSpec* hit = nullptr;
            for (const auto& o : kOptions) {
                if (o.short_name == ch) {
                    hit = &o;
                    break;
                }
            }
            if (!hit) {
                usage_error(ctx, std::string("wget: invalid option -- '") + ch + "'\n");
                return Parse::error;
            }
            std::string value;
            if (hit->takes_arg) {
                if (j + 1 < a.size()) {
                    value = a.substr(j + 1);
                } else if (i + 1 < argv.size()) {
                    value = argv[++i];
                } else {
                    usage_error(ctx, std::string("wget: option requires an argument -- '") + ch + "'\n");
                    return Parse::error;
                }
            }
            auto st = apply(ctx, c, *hit, std::move(value));
            if (st != Parse::ok) return st;
            if (hit->takes_arg) break;
        }
    }
    return Parse::ok;
}

// "2026-12-02 15:01:56" (UTC) from the session clock.
std::string timestamp(const interp::CommandContext& ctx) {
    int64_t secs = ctx.clock.now().sec;
    int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t rem = secs - days * 86400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) ++y;
    char buf[128];
    std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", (long long)y, (long long)m,
                  (long long)d, (long long)(rem / 3600), (long long)(rem / 60 % 60), (long long)(rem % 60));
    return buf;
}

// 1234567 -> "1.2M", as wget shows sizes and rates.
std::string human(double v, const char* const* units) {
    int u = 0;
    while (v >= 1024 && units[u + 1]) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 && u > 0 ? "%.1f%s" : "%.0f%s", v, units[u]);
    return buf;
}

std::string size_text(uint64_t n) {
    static const char* const kUnits[] = {"", "K", "M", "G", "T", nullptr};
    return human(double(n), kUnits);
}

std::string rate_text(uint64_t bytes, milliseconds elapsed) {
    static const char* const kUnits[] = {" B/s", " KB/s", " MB/s", " GB/s", nullptr};
    double secs = std::max(0.001, double(elapsed.count()) / 1000.0);
    double v = double(bytes) / secs;
    int u = 0;
    while (v >= 1024 && kUnits[u + 1]) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, kUnits[u]);
    return buf;
}

std::string with_scheme(const std::string& url) {
    if (url.find("://") != std::string::npos) return url;
    return "http://" + url;
}

// wget's file name for a URL: the last path segment with its query, "index.html" for a directory.
std::string local_name(const std::string& url) {
    auto p = net::parse_url(url);
    std::string path = p ? p->path : "/";
    size_t q = path.find('?');
    std::string query = q == std::string::npos ? "" : path.substr(q);
    if (q != std::string::npos) path.resize(q);
    std::string name = path.substr(path.rfind('/') + 1);
    if (name.empty()) name = "index.html";
    return name + query;
}

std::string host_port(const std::string& url) {
    auto p = net::parse_url(url);
    if (!p) return url;
    std::string h = p->host.find(':') != std::string::npos ? "[" + p->host + "]" : p->host;
    return h + ":" + std::to_string(p->port);
}

std::string resolve_location(const std::string& base, const std::string& loc) {
    if (loc.find("://") != std::string::npos) return loc;
    size_t scheme_end = base.find("://");
    if (scheme_end == std::string::npos) return loc;
    size_t path_start = base.find('/', scheme_end + 3);
    std::string origin = base.substr(0, path_start);
    if (!loc.empty() && loc[0] == '/') return origin + loc;
    std::string path = path_start == std::string::npos ? "/" : base.substr(path_start);
    path = path.substr(0, path.find('?'));
    return origin + path.substr(0, path.rfind('/') + 1) + loc;
}

class Wget {
public:
    Wget(interp::CommandContext& ctx, Config& c) : ctx_(ctx), c_(c) {}

    int run() {
        if (c_.urls.empty()) {
            usage_error(ctx_, "wget: missing URL\n");
            return 1;
        }
        std::string body;
        bool has_body = false;
        if (c_.post_data || c_.body_data) {
            body = c_.post_data ? *c_.post_data : *c_.body_data;
            has_body = true;
        } else if (c_.post_file) {
            auto data = netutil::read_input(ctx_, *c_.post_file, nullptr);
            if (!data) {
                ctx_.err.write("wget: " + *c_.post_file + ": No such file or directory\n");
                return 3;
            }
            body = std::move(*data);
            has_body = true;
        }
        // One -O file takes every document, created (emptied) before the first transfer, as wget does.
        std::unique_ptr<netutil::Output> shared_out;
        if (c_.output_document && *c_.output_document != "-") {
            shared_out = std::make_unique<netutil::Output>(ctx_, ctx_.resolve(*c_.output_document));
            if (!shared_out->open_now()) {
                ctx_.err.write(*c_.output_document + ": " + std::string(vfs::error_message(shared_out->error())) + "\n");
                return 1;
            }
        }
        int status = 0;
        for (const auto& u : c_.urls) {
            if (ctx_.cancelled()) return 130;
            int rc = fetch(with_scheme(u), body, has_body, shared_out.get());
            if (rc == 130 && ctx_.cancelled()) return rc;
            // wget reports the most serious failure: the lowest non-zero code wins, except that later
            // codes are kept when none came before.
            if (rc != 0 && (status == 0 || rc < status)) status = rc;
        }
        if (shared_out && !shared_out->finish()) {
            ctx_.err.write("wget: write error\n");
            return 3;
        }
        return status;
    }

private:
    bool verbose() const { return !c_.quiet && !c_.no_verbose; }
    void say(const std::string& s) {
        if (verbose()) ctx_.err.write(s);
    }

    net::HttpRequest build(const std::string& url, const std::string& body, bool has_body) {
        net::HttpRequest req;
        req.url = url;
        req.follow_redirects = true;
        req.method = c_.method ? *c_.method : has_body ? "POST" : "GET";
        if (has_body) {
            req.body = body;
            req.has_body = true;
        }
        if (c_.timeout && *c_.timeout > 0) {
            req.timeout = milliseconds(int64_t(*c_.timeout * 1000));
            req.connect_timeout = req.timeout;
        }
        std::vector<std::pair<std::string, std::string>> hs;
        for (std::string h : c_.headers) {
            h.resize(std::min(h.find_first_of("\r\n"), h.size()));  // one header per --header
            size_t colon = h.find(':');
            if (colon == std::string::npos) continue;
            std::string value = netutil::trim(h.substr(colon + 1));
            hs.emplace_back(netutil::trim(h.substr(0, colon)), value.empty() ? " " : value);
        }
        auto add_default = [&](std::string k, std::string v) {
            bool have = std::any_of(hs.begin(), hs.end(), [&](const auto& h) { return iequals(h.first, k); });
            if (!have) hs.emplace_back(std::move(k), std::move(v));
        };
        add_default("User-Agent", c_.user_agent ? *c_.user_agent : std::string(kUserAgent));
        add_default("Accept-Encoding", "identity");
        if (c_.http_user) {
            add_default("Authorization",
                        "Basic " + netutil::base64(*c_.http_user + ":" + c_.http_password.value_or("")));
        }
        if (has_body) add_default("Content-Type", "application/x-www-form-urlencoded");
        req.headers = std::move(hs);
        return req;
    }

    // The file a document goes to when -O is not given: the URL's name, made unique with .1, .2, ...
    std::string pick_name(const std::string& url, bool& exists_already) {
        std::string name = local_name(url);
        if (c_.prefix) name = vfs::join_path(*c_.prefix, name);
        std::string base = ctx_.resolve(name);
        exists_already = ctx_.fs.lexists(base);
        if (!exists_already || c_.no_clobber) return name;
        for (int i = 1; i < 100000; ++i) {
            std::string cand = name + "." + std::to_string(i);
            if (!ctx_.fs.lexists(ctx_.resolve(cand))) return cand;
        }
        return name;
    }

    // The hops of a followed redirect chain, as wget reports them while it goes.
    void report_hops(const std::string& first_url, const net::HttpResponse& r, std::string& url) {
        auto blocks = netutil::split_header_blocks(r.raw_headers);
        url = first_url;
        for (size_t i = 0; i < blocks.size(); ++i) {
            const std::string& b = blocks[i];
            std::string status_line = b.substr(0, b.find('\n'));
            status_line = netutil::trim(status_line);
            size_t sp = status_line.find(' ');
            if (sp != std::string::npos && sp + 1 < status_line.size() && status_line[sp + 1] == '1') continue;
            say("HTTP request sent, awaiting response... ");
            if (c_.server_response && verbose()) {
                std::string text = "\n";
                size_t pos = 0;
                while (pos < b.size()) {
                    size_t nl = b.find('\n', pos);
                    std::string line = netutil::trim(b.substr(pos, nl == std::string::npos ? nl : nl - pos));
                    if (!line.empty()) text += "  " + line + "\n";
                    if (nl == std::string::npos) break;
                    pos = nl + 1;
                }
                ctx_.err.write(text);
            } else {
                say(status_line.substr(sp == std::string::npos ? 0 : sp + 1) + "\n");
            }
            if (i + 1 < blocks.size()) {
                std::string loc;
                size_t at = netutil::to_lower(b).find("\nlocation:");
                if (at != std::string::npos) {
                    size_t end = b.find('\n', at + 1);
                    loc = netutil::trim(b.substr(at + 10, end == std::string::npos ? end : end - at - 10));
                }
                say("Location: " + loc + " [following]\n");
                url = resolve_location(url, loc);
                say("--" + timestamp(ctx_) + "--  " + url + "\n");
                say("Connecting to " + host_port(url) + "... connected.\n");
            }
        }
    }

    int fetch(const std::string& url, const std::string& body, bool has_body, netutil::Output* shared_out) {
        net::HttpRequest req = build(url, body, has_body);
        bool to_stdout = c_.output_document && *c_.output_document == "-";
        bool existed = false;
        std::string name;  // the file as shown in messages
        if (c_.output_document) {
            name = to_stdout ? "STDOUT" : *c_.output_document;
        } else {
            name = pick_name(url, existed);
            if (existed && c_.no_clobber) {
                say("File '" + name + "' already there; not retrieving.\n\n");
                return 1;
            }
        }

        std::unique_ptr<netutil::Output> own;
        netutil::Output* out = shared_out;
        if (!to_stdout && !shared_out) {
            own = std::make_unique<netutil::Output>(ctx_, ctx_.resolve(name), c_.prefix.has_value());
            out = own.get();
        }
        uint64_t start_bytes = out ? out->bytes() : 0;

        if (!ctx_.http) {
            say("--" + timestamp(ctx_) + "--  " + url + "\n");
            ctx_.err.write("wget: blocked by the sandbox: network access is disabled in this sandbox\n");
            return 4;
        }

        long tries = c_.tries;
        netutil::Transfer t;
        for (long attempt = 1;; ++attempt) {
            say("--" + timestamp(ctx_) + "--  " + (attempt > 1 ? "(try:" + std::string(attempt < 10 ? " " : "") +
                                                                    std::to_string(attempt) + ")  "
                                                              : "") +
                url + "\n");
            std::atomic<bool> abort{false};
            std::function<void(std::string_view)> on_body;
            if (out) {
                on_body = [&](std::string_view chunk) {
                    if (!out->write(chunk)) abort = true;
                };
            }
            t = netutil::perform(ctx_, *ctx_.http, req, abort, on_body);
            if (t.cancelled) return 130;
            if (out && out->failed()) {
                ctx_.err.write(name + ": " + std::string(vfs::error_message(out->error())) + "\n");
                if (out->open_failed()) return own ? 1 : 3;
                ctx_.err.write("Cannot write to '" + name + "' (" + std::string(vfs::error_message(out->error())) + ").\n");
                return 3;
            }
            if (t.result.ok()) break;
            const auto& e = *t.result.error;
            auto p = net::parse_url(url);
            std::string host = p ? p->host : url;
            if (e.blocked) {
                ctx_.err.write("wget: " + e.message + "\n");
                return 4;
            }
            if (e.curl_code == 6) {
                say("Resolving " + host + " (" + host + ")... failed: Name or service not known.\n");
                if (!c_.quiet) ctx_.err.write("wget: unable to resolve host address '" + host + "'\n");
                return 4;
            }
            bool retry = false;
            if (e.curl_code == 7) {
                say("Connecting to " + host_port(url) + "... failed: Connection refused.\n");
                retry = c_.retry_connrefused;
                if (!retry) return 4;
            } else if (e.curl_code == 28) {
                say("Connecting to " + host_port(url) + "... connected.\n");
                say("HTTP request sent, awaiting response... Read error (Connection timed out) in headers.\n");
                retry = true;
            } else if (e.curl_code == 47) {
                say("Connecting to " + host_port(url) + "... connected.\n");
                if (!c_.quiet) ctx_.err.write(std::to_string(10) + " redirections exceeded.\n");
                return 8;
            } else if (e.curl_code == 60 || e.curl_code == 35 || e.curl_code == 51) {
                if (!c_.quiet) ctx_.err.write("ERROR: cannot verify " + host + "'s certificate: " + e.message + "\n");
                return 5;
            } else {
                if (!c_.quiet) ctx_.err.write("wget: " + e.message + "\n");
                return 4;
            }
            if (!retry || (tries != 0 && attempt >= tries)) {
                say("Giving up.\n\n");
                return 4;
            }
            say("Retrying.\n\n");
            if (out) (void)out->reset();
            if (!netutil::sleep_for(ctx_, milliseconds(std::min<long>(attempt, 10) * 1000))) return 130;
        }

        net::HttpResponse& r = *t.result.response;
        say("Connecting to " + host_port(url) + "... connected.\n");
        std::string final_url;
        report_hops(url, r, final_url);

        if (r.status >= 400) {
            if (!c_.quiet) {
                std::string line = timestamp(ctx_) + " ERROR " + std::to_string(r.status) + ": " +
                                   netutil::reason_phrase(r.status_line) + ".\n";
                ctx_.err.write(c_.no_verbose ? line : line + "\n");
            }
            if (!c_.content_on_error) {
                if (own) {
                    // The name came from the URL and was free: take the file away again.
                    own.reset();
                    (void)ctx_.fs.unlink(ctx_.resolve(name));
                } else if (out) {
                    (void)out->reset();
                }
            } else if (to_stdout) {
                netutil::Output o(ctx_);
                o.write(r.body);
                (void)o.finish();
            }
            return 8;
        }

        uint64_t got = out ? out->bytes() - start_bytes : r.body.size();
        auto length = netutil::find_header(r.headers, "Content-Length");
        auto type = netutil::find_header(r.headers, "Content-Type");
        if (verbose()) {
            std::string len_line = "Length: ";
            if (length) {
                uint64_t n = std::strtoull(length->c_str(), nullptr, 10);
                len_line += *length + (n >= 1024 ? " (" + size_text(n) + ")" : "");
            } else {
                len_line += "unspecified";
            }
            if (type) len_line += " [" + *type + "]";
            ctx_.err.write(len_line + "\n");
            ctx_.err.write("Saving to: '" + name + "'\n\n");
        }
        if (to_stdout) {
            netutil::Output o(ctx_);
            o.write(r.body);
            if (!o.finish()) return 3;
        } else if (own && !own->finish()) {
            ctx_.err.write("Cannot write to '" + name + "' (" + std::string(vfs::error_message(own->error())) + ").\n");
            return 3;
        }
        std::string counts = "[" + std::to_string(got) + (length ? "/" + *length : "") + "]";
        if (verbose()) {
            std::string where = to_stdout ? "written to stdout " : "'" + name + "' saved ";
            ctx_.err.write(timestamp(ctx_) + " (" + rate_text(got, t.elapsed) + ") - " + where + counts + "\n\n");
        } else if (c_.no_verbose && !c_.quiet) {
            ctx_.err.write(timestamp(ctx_) + " URL:" + final_url + " " + counts + " -> \"" +
                           (to_stdout ? std::string("-") : name) + "\" [1]\n");
        }
        return 0;
    }

    interp::CommandContext& ctx_;
    Config& c_;
};

}  // namespace

int wget_main(interp::CommandContext& ctx) {
    Config c;
    switch (parse_args(ctx, c)) {
        case Parse::exit_ok: return 0;
        case Parse::error: return 2;
        case Parse::ok: break;
    }
    Wget w(ctx, c);
    return w.run();
}

}  // namespace bashkit::utils

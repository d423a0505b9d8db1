// touch (-a -m -c -d -r -t -h).
#include <cctype>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum : int { kOptTime = kOptFirstLongOnly };

constexpr OptionSpec kTouchSpecs[] = {
    {'a', 'a'},
    {'m', 'm'},
    {'c', 'c', "no-create"},
    {'d', 'd', "date", ArgKind::required},
    {'r', 'r', "reference", ArgKind::required},
    {'t', 't', {}, ArgKind::required},
    {'h', 'h', "no-dereference"},
    {'f', 'f'},
    {kOptTime, 0, "time", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kTouchHelp =
    "Usage: touch [OPTION]... FILE...\n"
    "Update the access and modification times of each FILE to the current time.\n"
    "\n"
    "A FILE argument that does not exist is created empty, unless -c or -h is supplied.\n"
    "\n"
    "  -a                     change only the access time\n"
    "  -c, --no-create        do not create any files\n"
    "  -d, --date=STRING      parse STRING and use it instead of current time\n"
    "  -h, --no-dereference   affect each symbolic link instead of any referenced file\n"
    "  -m                     change only the modification time\n"
    "  -r, --reference=FILE   use this file's times instead of current time\n"
    "  -t STAMP               use [[CC]YY]MMDDhhmm[.ss] instead of current time\n"
    "      --help             display this help and exit\n";

// [[CC]YY]MMDDhhmm[.ss]
std::optional<vfs::TimeSpec> parse_stamp(std::string_view s, vfs::TimeSpec now) {
    std::string_view main = s, secs;
    size_t dot = s.find('.');
    if (dot != std::string_view::npos) {
        main = s.substr(0, dot);
        secs = s.substr(dot + 1);
        if (secs.size() != 2) return std::nullopt;
    }
    for (char c : main)
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    for (char c : secs)
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    auto num = [](std::string_view v) {
        int64_t n = 0;
        for (char c : v) n = n * 10 + (c - '0');
        return n;
    };
    int64_t year;
    std::string_view rest;
    if (main.size() == 12) {
        year = num(main.substr(0, 4));
        rest = main.substr(4);
    } else if (main.size() == 10) {
        int64_t yy = num(main.substr(0, 2));
        year = yy < 69 ? 2000 + yy : 1900 + yy;
        rest = main.substr(2);
    } else if (main.size() == 8) {
        year = to_civil(now.sec).year;
        rest = main;
    } else {
        return std::nullopt;
    }
    int mon = static_cast<int>(num(rest.substr(0, 2))), day = static_cast<int>(num(rest.substr(2, 2)));
    int hour = static_cast<int>(num(rest.substr(4, 2))), min = static_cast<int>(num(rest.substr(6, 2)));
    int sec = secs.empty() ? 0 : static_cast<int>(num(secs));
    if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) return std::nullopt;
    return vfs::TimeSpec{from_civil(year, mon, day, hour, min, sec), 0};
}

int touch_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kTouchSpecs);
    bool only_a = false, only_m = false, no_create = false, no_deref = false;
    std::optional<vfs::TimeSpec> atime, mtime;
    bool explicit_time = false;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'a': only_a = true; break;
            case 'm': only_m = true; break;
            case 'c': no_create = true; break;
            case 'h': no_deref = true; no_create = true; break;
            case 'f': break;
            case 'd': {
                auto t = parse_date(opt.value, ctx.clock.now());
                if (!t) {
                    ctx.error("invalid date format " + quote(opt.value));
                    return 1;
                }
                atime = mtime = *t;
                explicit_time = true;
                break;
            }
            case 't': {
                auto t = parse_stamp(opt.value, ctx.clock.now());
                if (!t) {
                    ctx.error("invalid date format " + quote(opt.value));
                    return 1;
                }
                atime = mtime = *t;
                explicit_time = true;
                break;
            }
            case 'r': {
                auto st = ctx.fs.stat(ctx.resolve(opt.value));
                if (!st) {
                    ctx.error("failed to get attributes of " + quote(opt.value) + ": " +
                              std::string(errstr(st.error())));
                    return 1;
                }
                atime = st->atime;
                mtime = st->mtime;
                explicit_time = true;
                break;
            }
            case kOptTime:
                if (opt.value == "atime" || opt.value == "access" || opt.value == "use") only_a = true;
                else if (opt.value == "mtime" || opt.value == "modify") only_m = true;
                else {
                    ctx.error("invalid argument " + quote(opt.value) + " for '--time'");
                    return usage_error(ctx, "");
                }
                break;
            case kOptHelp: return print_help(ctx, kTouchHelp);
            case kOptVersion: return print_help(ctx, "touch (bashkit) 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing file operand");
    bool set_a = !only_m || only_a, set_m = !only_a || only_m;
    auto ts = [&](const std::optional<vfs::TimeSpec>& t, bool set) {
        if (!set) return vfs::TimeSet::omit();
        return explicit_time ? vfs::TimeSet::at(*t) : vfs::TimeSet::now();
    };
    int status = 0;
    for (const auto& op : p.operands) {
        std::string abs = ctx.resolve(op);
        bool exists = no_deref ? ctx.fs.lexists(abs) : ctx.fs.exists(abs);
        if (!exists) {
            if (no_create) continue;
            auto h = ctx.fs.open(abs, vfs::OpenFlags::write | vfs::OpenFlags::create, 0666 & ~ctx.umask);
            if (!h) {
                ctx.error("cannot touch " + quote(op) + ": " + std::string(errstr(h.error())));
                status = 1;
                continue;
            }
            if (!explicit_time && set_a && set_m) continue;
        }
        auto r = ctx.fs.utimes(abs, ts(atime, set_a), ts(mtime, set_m), !no_deref);
        if (!r) {
            ctx.error("setting times of " + quote(op) + ": " + std::string(errstr(r.error())));
            status = 1;
        }
    }
    return status;
}

}  // namespace

void register_touch(interp::CommandRegistry& r) {
    r.add("touch", "touch [-acm] [-d DATE] [-r FILE] FILE...: change file timestamps", touch_main);
}

}  // namespace bashkit::utils::files

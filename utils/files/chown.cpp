// chown and chgrp (GNU coreutils) over FileSystem::chown: numeric ids, and the names the session knows
// (root, nobody, the session's user and group). -R, -h, -v, -c, -f, --reference.
#include <string>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

bool lookup_id(const CommandContext& ctx, const std::string& s, bool group, uint32_t& out) {
    if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        out = static_cast<uint32_t>(std::stoul(s.substr(0, 10)));
        return true;
    }
    if (s == "root") return out = 0, true;
    if (s == "nobody" && !group) return out = 65534, true;
    if (s == "nogroup" && group) return out = 65534, true;
    if (ctx.identity) {
        if (!group && s == ctx.identity->user) return out = ctx.identity->uid, true;
        if (group && s == ctx.identity->user) return out = ctx.identity->gid, true;
    }
    return false;
}

int chown_common(CommandContext& ctx, bool is_chgrp) {
    static constexpr OptionSpec specs[] = {
        {'R', 'R', "recursive"}, {'h', 'h', "no-dereference"}, {'v', 'v', "verbose"}, {'c', 'c', "changes"},
        {'f', 'f', "silent"}, {'H', 'H'}, {'L', 'L'}, {'P', 'P'}, {kOptFirstLongOnly, 0, "quiet"},
        {kOptFirstLongOnly + 1, 0, "reference", ArgKind::required}, {kOptFirstLongOnly + 2, 0, "dereference"},
        {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool recursive = false, no_deref = false, verbose = false, changes = false, silent = false;
    std::string reference;
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'R': recursive = true; break;
            case 'h': no_deref = true; break;
            case 'v': verbose = true; break;
            case 'c': changes = true; break;
            case 'f': case kOptFirstLongOnly: silent = true; break;
            case kOptFirstLongOnly + 1: reference = o.value; break;
            case kOptHelp:
                return print_help(ctx, is_chgrp ? "Usage: chgrp [OPTION]... GROUP FILE...\nChange the group of each FILE to GROUP.\n"
                                                : "Usage: chown [OPTION]... [OWNER][:[GROUP]] FILE...\nChange the owner and/or group of each FILE to OWNER and/or GROUP.\n");
            case kOptVersion: return write_out(ctx, std::string(is_chgrp ? "chgrp" : "chown") + " (GNU coreutils) 9.1\n") ? 0 : 1;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    const auto& ops = p.operands;
    size_t first_file = reference.empty() ? 1 : 0;
    if (ops.empty()) return usage_error(ctx, "missing operand");
    if (ops.size() <= first_file) return usage_error(ctx, "missing operand after " + quote(ops[0]));
    int64_t uid = -1, gid = -1;
    if (!reference.empty()) {
        auto st = ctx.fs.stat(ctx.resolve(reference));
        if (!st.ok()) {
            ctx.error("failed to get attributes of " + quote(reference) + ": " + std::string(errstr(st.error())));
            return 1;
        }
        uid = is_chgrp ? -1 : st->uid;
        gid = st->gid;
    } else if (is_chgrp) {
        uint32_t g;
        if (!lookup_id(ctx, ops[0], true, g)) {
            ctx.error("invalid group: " + quote(ops[0]));
            return 1;
        }
        gid = g;
    } else {
        std::string spec = ops[0], user, group;
        size_t sep = spec.find(':');
        if (sep == std::string::npos && spec.find('.') != std::string::npos) {
            sep = spec.find('.');
            ctx.error("warning: '.' should be ':': " + quote(spec));
        }
        user = spec.substr(0, sep);
        if (sep != std::string::npos) group = spec.substr(sep + 1);
        if (!user.empty()) {
            uint32_t u;
            if (!lookup_id(ctx, user, false, u)) {
                ctx.error("invalid user: " + quote(spec));
                return 1;
            }
            uid = u;
        }
        if (!group.empty()) {
            uint32_t g;
            if (!lookup_id(ctx, group, true, g)) {
                ctx.error("invalid group: " + quote(spec));
                return 1;
            }
            gid = g;
        }
    }
    int status = 0;
    std::vector<std::string> stack;
    auto apply = [&](const std::string& shown, const std::string& path, bool top) {
        auto st = (no_deref || (!top && recursive)) ? ctx.fs.lstat(path) : ctx.fs.stat(path);
        if (!st.ok()) {
            if (!silent)
                ctx.error(std::string(is_chgrp ? "cannot access " : "cannot access ") + quote(shown) + ": " +
                          std::string(errstr(st.error())));
            status = 1;
            return;
        }
        const uint32_t nu = uid < 0 ? st->uid : static_cast<uint32_t>(uid);
        const uint32_t ng = gid < 0 ? st->gid : static_cast<uint32_t>(gid);
        auto r = ctx.fs.chown(path, nu, ng);
        if (!r.ok()) {
            if (!silent)
                ctx.error(std::string("changing ") + (is_chgrp ? "group" : "ownership") + " of " + quote(shown) + ": " +
                          std::string(errstr(r.error())));
            status = 1;
            return;
        }
        const bool changed = nu != st->uid || ng != st->gid;
        if (verbose || (changes && changed)) {
            std::string msg;
            if (!changed) msg = std::string(is_chgrp ? "group of " : "ownership of ") + quote(shown) + " retained as " +
                                (is_chgrp ? group_name(ctx, ng) : user_name(ctx, nu) + (gid >= 0 ? ":" + group_name(ctx, ng) : ""));
            else if (is_chgrp) msg = "changed group of " + quote(shown) + " from " + group_name(ctx, st->gid) + " to " + group_name(ctx, ng);
            else msg = "changed ownership of " + quote(shown) + " from " + user_name(ctx, st->uid) + (gid >= 0 ? ":" + group_name(ctx, st->gid) : "") +
                       " to " + user_name(ctx, nu) + (gid >= 0 ? ":" + group_name(ctx, ng) : "");
            (void)write_out(ctx, msg + "\n");
        }
        if (recursive && st->is_directory()) {
            auto ents = ctx.fs.readdir(path);
            if (ents.ok())
                for (const auto& e : *ents) stack.push_back(shown + (shown.back() == '/' ? "" : "/") + e.name);
        }
    };
    for (size_t i = first_file; i < ops.size(); ++i) {
        apply(ops[i], ctx.resolve(ops[i]), true);
        while (!stack.empty()) {
            if (ctx.cancelled()) return 130;
            const std::string s = stack.back();
            stack.pop_back();
            apply(s, ctx.resolve(s), false);
        }
    }
    return status;
}

int chown_main(CommandContext& ctx) { return chown_common(ctx, false); }
int chgrp_main(CommandContext& ctx) { return chown_common(ctx, true); }

}  // namespace

void register_chown(interp::CommandRegistry& r) {
    r.add("chown", "chown [-Rhvcf] [--reference=RFILE] [OWNER][:[GROUP]] FILE... : change file owner and group", chown_main);
    r.add("chgrp", "chgrp [-Rhvcf] [--reference=RFILE] GROUP FILE... : change file group", chgrp_main);
}

}  // namespace bashkit::utils::files

// tree (tree 2.x): -a -d -L -I -P -f -i -F -l --noreport --dirsfirst. ASCII lines unless the locale is
// UTF-8. Counting follows tree 2.1: every directory entry listed (symlinks to directories included) and
// each starting directory that lists at least one entry count as directories.
#include <algorithm>
#include <cctype>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"
#include "interp/pattern.hpp"

namespace bashkit::utils::files {

namespace {

struct TreeOpts {
    bool all = false, dirs_only = false, full_path = false, no_indent = false, classify = false;
    bool follow = false, no_report = false, dirs_first = false, utf8 = false, reverse = false;
    int max_level = -1;
    std::vector<std::string> ignore, include;
};

bool matches_any(const std::vector<std::string>& pats, const std::string& name) {
    for (const auto& p : pats) {
        size_t start = 0;
        while (true) {
            size_t bar = p.find('|', start);
            std::string alt = p.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
            if (interp::pattern_match(alt, name)) return true;
            if (bar == std::string::npos) break;
            start = bar + 1;
        }
    }
    return false;
}

class Tree {
public:
    Tree(CommandContext& ctx, TreeOpts o) : ctx_(ctx), o_(std::move(o)), out_(ctx) {}
    // Lists a starting point; returns false when it could not be opened.
    bool root(const std::string& shown);
    void report() {
        if (o_.no_report) return;
        std::string s = "\n" + std::to_string(dirs_) + (dirs_ == 1 ? " directory" : " directories");
        if (!o_.dirs_only) s += ", " + std::to_string(files_) + (files_ == 1 ? " file" : " files");
        out_.put(s + "\n");
    }
    // Flushes; the status to exit with given the own one (141 after a closed pipe).
    int finish(int own) { return out_.status(own); }

private:
    struct Item {
        std::string name;
        vfs::Stat lst{};
        bool is_dir = false;  // a directory, or a symlink to one
        std::string target;
    };
    size_t list(const std::string& shown, const std::string& abs, const std::string& prefix, int level,
                std::vector<std::pair<uint64_t, uint64_t>>& ancestors);
    std::string suffix(const Item& it) const;

    CommandContext& ctx_;
    TreeOpts o_;
    Output out_;
    uint64_t dirs_ = 0, files_ = 0;
};

std::string Tree::suffix(const Item& it) const {
    if (!o_.classify) return {};
    if (it.lst.is_directory()) return "/";
    if (it.lst.is_symlink()) return "";
    if (it.lst.is_regular() && (it.lst.mode & 0111)) return "*";
    return {};
}

size_t Tree::list(const std::string& shown, const std::string& abs, const std::string& prefix, int level,
                  std::vector<std::pair<uint64_t, uint64_t>>& ancestors) {
    if (ctx_.cancelled() || out_.failed() || level > 4096) return 0;
    auto ents = ctx_.fs.readdir(abs);
    if (!ents) return 0;
    std::vector<Item> items;
    for (auto& e : *ents) {
        if (!o_.all && !e.name.empty() && e.name[0] == '.') continue;
        Item it;
        it.name = e.name;
        std::string p = join(abs, e.name);
        auto l = ctx_.fs.lstat(p);
        if (!l) continue;
        it.lst = *l;
        it.is_dir = l->is_directory();
        if (l->is_symlink()) {
            auto t = ctx_.fs.stat(p);
            it.is_dir = t.ok() && t->is_directory();
            auto r = ctx_.fs.readlink(p);
            if (r) it.target = *r;
        }
        if (o_.dirs_only && !it.is_dir) continue;
        if (!o_.ignore.empty() && matches_any(o_.ignore, it.name)) continue;
        if (!o_.include.empty() && !it.is_dir && !matches_any(o_.include, it.name)) continue;
        items.push_back(std::move(it));
    }
    std::sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
        if (o_.dirs_first && a.is_dir != b.is_dir) return a.is_dir;
        return o_.reverse ? b.name < a.name : a.name < b.name;
    });
    const char* tee = o_.utf8 ? "\xe2\x94\x9c\xe2\x94\x80\xe2\x94\x80 " : "|-- ";
    const char* elbow = o_.utf8 ? "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80 " : "`-- ";
    const char* pipe = o_.utf8 ? "\xe2\x94\x82\xc2\xa0\xc2\xa0 " : "|   ";
    for (size_t i = 0; i < items.size(); ++i) {
        const Item& it = items[i];
        bool last = i + 1 == items.size();
        std::string child_shown = join(shown, it.name);
        std::string line;
        if (!o_.no_indent) line += prefix + (last ? elbow : tee);
        line += o_.full_path ? child_shown : it.name;
        if (it.lst.is_symlink()) {
            line += " -> " + it.target;
            if (o_.classify && it.is_dir) line += "/";
        } else {
            line += suffix(it);
        }
        bool recurse = it.is_dir && (o_.max_level < 0 || level < o_.max_level) &&
                       (!it.lst.is_symlink() || o_.follow);
        if (it.is_dir) ++dirs_;
        else ++files_;
        if (recurse && it.lst.is_symlink()) {
            auto t = ctx_.fs.stat(join(abs, it.name));
            if (t) {
                for (const auto& a : ancestors)
                    if (a.first == t->dev && a.second == t->ino) {
                        line += "  [recursive, not followed]";
                        recurse = false;
                        break;
                    }
            }
        }
        out_.put(line + "\n");
        if (recurse) {
            auto st = ctx_.fs.stat(join(abs, it.name));
            if (st) ancestors.emplace_back(st->dev, st->ino);
            std::string next_prefix = o_.no_indent ? "" : prefix + (last ? "    " : pipe);
            list(child_shown, join(abs, it.name), next_prefix, level + 1, ancestors);
            if (st) ancestors.pop_back();
        }
    }
    return items.size();
}

bool Tree::root(const std::string& shown) {
    std::string abs = ctx_.resolve(shown);
    auto st = ctx_.fs.stat(abs);
    if (!st || !st->is_directory()) {
        out_.put(shown + "  [error opening dir]\n");
        if (st) {
            ++files_;
            return true;
        }
        return false;
    }
    out_.put(shown + (o_.classify ? "/" : "") + "\n");
    std::vector<std::pair<uint64_t, uint64_t>> ancestors{{st->dev, st->ino}};
    if (list(shown, abs, "", 1, ancestors) > 0) ++dirs_;
    return true;
}

enum : int { kOptNoReport = kOptFirstLongOnly, kOptDirsFirst, kOptCharset };

constexpr OptionSpec kTreeSpecs[] = {
    {'a', 'a'},
    {'d', 'd'},
    {'L', 'L', {}, ArgKind::required},
    {'I', 'I', {}, ArgKind::required},
    {'P', 'P', {}, ArgKind::required},
    {'f', 'f'},
    {'i', 'i'},
    {'F', 'F'},
    {'l', 'l'},
    {'r', 'r'},
    {'n', 'n'},
    {'C', 'C'},
    {kOptNoReport, 0, "noreport"},
    {kOptDirsFirst, 0, "dirsfirst"},
    {kOptCharset, 0, "charset", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

bool locale_is_utf8(const CommandContext& ctx) {
    for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
        const std::string* v = ctx.env.get(name);
        if (v && !v->empty()) {
            std::string s = *v;
            for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return s.find("utf-8") != std::string::npos || s.find("utf8") != std::string::npos;
        }
    }
    return false;
}

int tree_main(CommandContext& ctx) {
    // tree's own option parser: no bundling of options that take a value, and its own messages.
    ParsedArgs p = parse_args(ctx.argv, kTreeSpecs);
    TreeOpts o;
    o.utf8 = locale_is_utf8(ctx);
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'a': o.all = true; break;
            case 'd': o.dirs_only = true; break;
            case 'L': {
                const std::string& v = opt.value;
                bool num = !v.empty() && v.size() < 9 &&
                           std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
                if (!num || std::stoi(v) < 1) {
                    ctx.error("Invalid level, must be greater than 0.");
                    return 1;
                }
                o.max_level = std::stoi(v);
                break;
            }
            case 'I': o.ignore.push_back(opt.value); break;
            case 'P': o.include.push_back(opt.value); break;
            case 'f': o.full_path = true; break;
            case 'i': o.no_indent = true; break;
            case 'F': o.classify = true; break;
            case 'l': o.follow = true; break;
            case 'r': o.reverse = true; break;
            case 'n': case 'C': break;
            case kOptNoReport: o.no_report = true; break;
            case kOptDirsFirst: o.dirs_first = true; break;
            case kOptCharset: {
                std::string v = opt.value;
                for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                o.utf8 = v == "utf-8" || v == "utf8";
                break;
            }
            case kOptHelp:
                return print_help(ctx,
                                  "usage: tree [-adfilrFC] [-L level] [-P pattern] [-I pattern] [--noreport]\n"
                                  "\t[--dirsfirst] [--charset X] [--] [directory ...]\n"
                                  "  -a            All files are listed.\n"
                                  "  -d            List directories only.\n"
                                  "  -l            Follow symbolic links like directories.\n"
                                  "  -f            Print the full path prefix for each file.\n"
                                  "  -L level      Descend only level directories deep.\n"
                                  "  -P pattern    List only those files that match the pattern given.\n"
                                  "  -I pattern    Do not list files that match the given pattern.\n"
                                  "  --noreport    Turn off file/directory count at end of tree listing.\n"
                                  "  -i            Don't print indentation lines.\n"
                                  "  -F            Appends '/', '=', '*', '@', '|' or '>' as per ls -F.\n"
                                  "  -r            Reverse the order of the sort.\n"
                                  "  --dirsfirst   List directories before files.\n");
            case kOptVersion: return print_help(ctx, "tree v2.1.0 (bashkit)\n");
            default: break;
        }
    }
    if (!p.ok()) {
        std::string bad = p.error;
        // tree words it: tree: Invalid argument -`z'.
        size_t q = bad.find("-- '");
        size_t u = bad.find("option '");
        if (q != std::string::npos && bad.rfind("invalid option", 0) == 0)
            ctx.error("Invalid argument -`" + bad.substr(q + 4, 1) + "'.");
        else if (u != std::string::npos && bad.rfind("unrecognized option", 0) == 0 && bad.back() == '\'')
            ctx.error("Invalid argument `" + bad.substr(u + 8, bad.size() - u - 9) + "'.");
        else
            ctx.error(bad);
        (void)ctx.err.write("usage: tree [-adfilrFC] [-L level] [-P pattern] [-I pattern] [--noreport]\n"
                            "\t[--dirsfirst] [--charset X] [--] [directory ...]\n");
        return 1;
    }
    std::vector<std::string> roots = p.operands;
    if (roots.empty()) roots.push_back(".");
    Tree t(ctx, o);
    bool ok = true;
    for (const auto& r : roots)
        if (!t.root(r)) ok = false;
    t.report();
    return t.finish(ok ? 0 : 2);
}

}  // namespace

void register_tree(interp::CommandRegistry& r) {
    r.add("tree", "tree [-adfiF] [-L level] [-I pattern] [DIR]...: list directories as a tree", tree_main);
}

}  // namespace bashkit::utils::files

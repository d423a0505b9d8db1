// Tools over two sorted files: comm and join.
#include <algorithm>
#include <cstring>
#include <optional>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

int bytes_cmp(std::string_view a, std::string_view b) {
    size_t n = std::min(a.size(), b.size());
    int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (a.size() > b.size()) - (a.size() < b.size());
}

int icase_cmp(std::string_view a, std::string_view b) {
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        int x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
        if (x >= 'a' && x <= 'z') x -= 32;
        if (y >= 'a' && y <= 'z') y -= 32;
        if (x != y) return x < y ? -1 : 1;
    }
    return (a.size() > b.size()) - (a.size() < b.size());
}

// A line source holding the current line as an owned string.
struct Source {
    Input in;
    std::unique_ptr<LineReader> lr;
    std::string name;
    std::string cur;
    bool have = false;
    uint64_t lineno = 0;
    bool next() {
        std::string_view l;
        if (lr->next(l)) {
            cur.assign(l);
            have = true;
            ++lineno;
        } else {
            have = false;
        }
        return have;
    }
};

}  // namespace

int cmd_comm(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {300, 0, "check-order"}, {301, 0, "nocheck-order"}, {302, 0, "output-delimiter", ArgKind::required},
        {303, 0, "total"}, {'z', 0, "zero-terminated"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "123z", kLong, opts, files)) return 1;
    bool show[3] = {true, true, true};
    int check = 0;  // 0 default, 1 enabled, -1 disabled
    std::string delim = "\t";
    bool total = false, have_delim = false;
    char eol = '\n';
    for (auto& o : opts) {
        switch (o.id) {
            case '1': show[0] = false; break;
            case '2': show[1] = false; break;
            case '3': show[2] = false; break;
            case 300: check = 1; break;
            case 301: check = -1; break;
            case 302:
                if (have_delim && delim != o.value) {
                    ctx.error("multiple output delimiters specified");
                    return 1;
                }
                delim = o.value.empty() ? std::string(1, '\0') : o.value;
                have_delim = true;
                break;
            case 303: total = true; break;
            case 'z': eol = '\0'; break;
            case kOptHelp: return print_help(ctx, "[OPTION]... FILE1 FILE2\nCompare sorted files FILE1 and FILE2 line by line.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.size() < 2) {
        usage_error(ctx, files.empty() ? "missing operand" : "missing operand after " + quote(files[0]));
        return 1;
    }
    if (files.size() > 2) {
        usage_error(ctx, "extra operand " + quote(files[2]));
        return 1;
    }
    Source src[2];
    for (int i = 0; i < 2; ++i) {
        if (auto e = src[i].in.open_input(ctx, files[static_cast<size_t>(i)]); e != vfs::Errc::ok) {
            file_error(ctx, files[static_cast<size_t>(i)], e);
            return 1;
        }
        src[i].lr = std::make_unique<LineReader>(src[i].in, eol);
        src[i].name = files[static_cast<size_t>(i)];
    }
    Output out(ctx);
    src[0].next();
    src[1].next();
    std::string prev[2];
    bool has_prev[2] = {false, false};
    bool pending[2] = {false, false};  // the current line has not been order-checked yet
    bool warned[2] = {false, false};
    bool seen_unpairable = false;
    uint64_t counts[3] = {0, 0, 0};
    auto emit = [&](int col, const std::string& line) {
        ++counts[col];
        if (!show[col]) return;
        for (int k = 0; k < col; ++k)
            if (show[k]) out.put(delim);
        out.put(line);
        out.put(eol);
    };
    while (src[0].have || src[1].have) {
        if (ctx.cancelled()) return out.status(130);
        int order;
        if (!src[0].have) order = 1;
        else if (!src[1].have) order = -1;
        else order = bytes_cmp(src[0].cur, src[1].cur);
        if (order != 0) seen_unpairable = true;
        if (check > 0) {
            // --check-order: a line is checked as soon as it is read, and disorder is fatal.
            for (int i = 0; i < 2; ++i) {
                if (!pending[i] || !src[i].have) continue;
                pending[i] = false;
                if (has_prev[i] && bytes_cmp(prev[i], src[i].cur) > 0) {
                    out.flush();
                    ctx.error("file " + std::to_string(i + 1) + " is not in sorted order");
                    return out.status(1);
                }
            }
        }
        if (order == 0) emit(2, src[1].cur);
        else if (order < 0) emit(0, src[0].cur);
        else emit(1, src[1].cur);
        for (int i = 0; i < 2; ++i) {
            bool step = i == 0 ? order <= 0 : order >= 0;
            if (!step) continue;
            // By default a line is checked against its predecessor when it is left behind, once an
            // unpairable line has been seen; the warning is given once per file.
            if (check == 0 && seen_unpairable && !warned[i] && has_prev[i] && bytes_cmp(prev[i], src[i].cur) > 0) {
                out.flush();
                ctx.error("file " + std::to_string(i + 1) + " is not in sorted order");
                warned[i] = true;
            }
            prev[i] = src[i].cur;
            has_prev[i] = true;
            src[i].next();
            pending[i] = true;
        }
        if (out.failed()) break;
    }
    int status = 0;
    for (int i = 0; i < 2; ++i) {
        if (src[i].lr->error() != vfs::Errc::ok && src[i].lr->error() != vfs::Errc::cancelled) {
            out.flush();
            file_error(ctx, src[i].name, src[i].lr->error());
            status = 1;
        }
    }
    if (total) {
        std::string t = std::to_string(counts[0]) + delim + std::to_string(counts[1]) + delim +
                        std::to_string(counts[2]) + delim + "total";
        out.put(t);
        out.put(eol);
    }
    if (warned[0] || warned[1]) {
        out.flush();
        ctx.error("input is not in sorted order");
        return out.status(1);
    }
    return out.status(status);
}

// ---------------------------------------------------------------------------------------------------------
// join

namespace {

struct JoinLine {
    std::string text;
    std::vector<std::string> fields;  // owned copies, so a JoinLine can be copied and moved freely
};

void split_fields(JoinLine& l, int tab) {
    l.fields.clear();
    std::string_view s = l.text;
    if (tab >= 0) {
        size_t i = 0;
        for (;;) {
            size_t j = s.find(static_cast<char>(tab), i);
            if (j == std::string_view::npos) {
                l.fields.emplace_back(s.substr(i));
                break;
            }
            l.fields.emplace_back(s.substr(i, j - i));
            i = j + 1;
        }
        return;
    }
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        if (i >= s.size()) break;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
        l.fields.emplace_back(s.substr(i, j - i));
        i = j;
    }
}

struct OutSpec {
    int file;  // 0: join field; 1 or 2
    size_t field;
};

}  // namespace

int cmd_join(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'i', 0, "ignore-case"}, {300, 0, "check-order"}, {301, 0, "nocheck-order"}, {'z', 0, "zero-terminated"},
        {302, 0, "header"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "a:e:ij:1:2:o:t:v:z", kLong, opts, files)) return 1;
    size_t key[2] = {0, 0};
    bool print_unpaired[2] = {false, false}, print_paired = true, icase = false, header = false;
    std::string empty;
    bool have_empty = false;
    int tab = -1;
    int check = 0;
    char eol = '\n';
    std::vector<OutSpec> format;
    bool auto_format = false, have_format = false;
    auto field_num = [&](const std::string& v, size_t& out) {
        uint64_t n;
        if (!parse_uint(v, n) || n == 0) {
            ctx.error("invalid field number: " + quote(v));
            return false;
        }
        out = static_cast<size_t>(std::min<uint64_t>(n, SIZE_MAX / 2)) - 1;
        return true;
    };
    for (auto& o : opts) {
        switch (o.id) {
            case 'a':
            case 'v':
                if (o.value != "1" && o.value != "2") {
                    ctx.error("invalid field number: " + quote(o.value));
                    return 1;
                }
                print_unpaired[o.value == "2"] = true;
                if (o.id == 'v') print_paired = false;
                break;
            case 'e': empty = o.value; have_empty = true; break;
            case 'i': icase = true; break;
            case 'j':
                if (!field_num(o.value, key[0])) return 1;
                key[1] = key[0];
                break;
            case '1': if (!field_num(o.value, key[0])) return 1; break;
            case '2': if (!field_num(o.value, key[1])) return 1; break;
            case 'o': {
                have_format = true;
                if (o.value == "auto") {
                    auto_format = true;
                    break;
                }
                size_t i = 0;
                const std::string& v = o.value;
                while (i < v.size()) {
                    size_t j = v.find_first_of(", \t", i);
                    if (j == std::string::npos) j = v.size();
                    std::string item = v.substr(i, j - i);
                    i = j + 1;
                    if (item.empty()) continue;
                    if (item == "0") {
                        format.push_back({0, 0});
                        continue;
                    }
                    if (item.size() < 3 || (item[0] != '1' && item[0] != '2') || item[1] != '.') {
                        ctx.error("invalid field specifier: " + quote(item));
                        return 1;
                    }
                    size_t f;
                    if (!field_num(item.substr(2), f)) return 1;
                    format.push_back({item[0] - '0', f});
                }
                break;
            }
            case 't':
                if (o.value.size() > 1) {
                    if (o.value == "\\0") tab = 0;
                    else {
                        ctx.error("multi-character tab " + quote(o.value));
                        return 1;
                    }
                } else {
                    tab = o.value.empty() ? '\n' : static_cast<unsigned char>(o.value[0]);
                }
                break;
            case 300: check = 1; break;
            case 301: check = -1; break;
            case 302: header = true; break;
            case 'z': eol = '\0'; break;
            case kOptHelp: return print_help(ctx, "[OPTION]... FILE1 FILE2\nFor each pair of input lines with identical join fields, write a line to\nstandard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.size() < 2) {
        usage_error(ctx, files.empty() ? "missing operand" : "missing operand after " + quote(files[0]));
        return 1;
    }
    if (files.size() > 2) {
        usage_error(ctx, "extra operand " + quote(files[2]));
        return 1;
    }
    Source src[2];
    for (int i = 0; i < 2; ++i) {
        if (auto e = src[i].in.open_input(ctx, files[static_cast<size_t>(i)]); e != vfs::Errc::ok) {
            file_error(ctx, files[static_cast<size_t>(i)], e);
            return 1;
        }
        src[i].lr = std::make_unique<LineReader>(src[i].in, eol);
        src[i].name = files[static_cast<size_t>(i)];
    }
    Output out(ctx);
    std::string sep = tab >= 0 ? std::string(1, static_cast<char>(tab)) : " ";
    size_t auto_count[2] = {0, 0};
    auto cmp = [&](std::string_view a, std::string_view b) { return icase ? icase_cmp(a, b) : bytes_cmp(a, b); };
    auto keyof = [&](const JoinLine& l, int i) -> std::string_view {
        size_t k = key[i];
        return k < l.fields.size() ? l.fields[k] : std::string_view();
    };
    auto write_line = [&](const JoinLine* a, const JoinLine* b) {
        std::string line;
        bool first = true;
        auto add = [&](std::string_view v) {
            if (!first) line += sep;
            line.append(v);
            first = false;
        };
        auto field_or_empty = [&](const JoinLine* l, size_t f) {
            if (l && f < l->fields.size()) add(l->fields[f]);
            else add(empty);
        };
        if (have_format && !auto_format) {
            for (const OutSpec& s : format) {
                if (s.file == 0) {
                    if (a && key[0] < a->fields.size()) add(a->fields[key[0]]);
                    else if (b && key[1] < b->fields.size()) add(b->fields[key[1]]);
                    else add(empty);
                } else {
                    field_or_empty(s.file == 1 ? a : b, s.field);
                }
            }
        } else {
            const JoinLine* kl = a ? a : b;
            int ki = a ? 0 : 1;
            if (kl && key[ki] < kl->fields.size()) add(kl->fields[key[ki]]);
            else add(auto_format ? std::string_view(empty) : std::string_view());
            for (int i = 0; i < 2; ++i) {
                const JoinLine* l = i == 0 ? a : b;
                if (auto_format) {
                    for (size_t f = 0; f < auto_count[i]; ++f) {
                        if (f == key[i]) continue;
                        field_or_empty(l, f);
                    }
                } else if (l) {
                    for (size_t f = 0; f < l->fields.size(); ++f)
                        if (f != key[i]) add(l->fields[f]);
                }
            }
        }
        (void)have_empty;
        line += eol;
        out.put(line);
    };
    bool seen_unpairable = false, warned[2] = {false, false};
    JoinLine prevkey[2];
    bool has_prev[2] = {false, false};
    // Reads the next line of file i into l, checking order like GNU join (after an unpairable line).
    auto read = [&](int i, JoinLine& l) -> bool {
        if (!src[i].next()) return false;
        l.text = src[i].cur;
        split_fields(l, tab);
        if (has_prev[i] && check >= 0 && (check > 0 || seen_unpairable) && !warned[i]) {
            if (cmp(keyof(prevkey[i], i), keyof(l, i)) > 0) {
                out.flush();
                std::string m = std::string(prog(ctx)) + ": " + src[i].name + ":" + std::to_string(src[i].lineno) +
                                ": is not sorted: " + l.text + "\n";
                (void)ctx.err.write(m);
                warned[i] = true;
            }
        }
        prevkey[i] = l;
        has_prev[i] = true;
        return true;
    };
    JoinLine cur[2];
    bool have[2];
    have[0] = read(0, cur[0]);
    have[1] = read(1, cur[1]);
    if (auto_format) {
        for (int i = 0; i < 2; ++i) auto_count[i] = have[i] ? cur[i].fields.size() : 0;
    }
    if (header) {
        if (have[0] || have[1]) write_line(have[0] ? &cur[0] : nullptr, have[1] ? &cur[1] : nullptr);
        if (have[0]) have[0] = read(0, cur[0]);
        if (have[1]) have[1] = read(1, cur[1]);
        has_prev[0] = has_prev[1] = false;
    }
    if (check > 0 && (warned[0] || warned[1])) return out.status(1);
    while (have[0] && have[1]) {
        if (ctx.cancelled()) return out.status(130);
        int d = cmp(keyof(cur[0], 0), keyof(cur[1], 1));
        if (d < 0) {
            seen_unpairable = true;
            if (print_unpaired[0]) write_line(&cur[0], nullptr);
            have[0] = read(0, cur[0]);
        } else if (d > 0) {
            seen_unpairable = true;
            if (print_unpaired[1]) write_line(nullptr, &cur[1]);
            have[1] = read(1, cur[1]);
        } else {
            // Gather the runs with this key on both sides.
            std::vector<JoinLine> g[2];
            interp::MemoryCharge held(ctx.memory);  // the runs, on the session's budget
            std::string k(keyof(cur[0], 0));
            for (int i = 0; i < 2; ++i) {
                do {
                    held.add(2 * cur[i].text.size() + 32 * (cur[i].fields.size() + 2));
                    g[i].push_back(cur[i]);
                    have[i] = read(i, cur[i]);
                } while (have[i] && cmp(keyof(cur[i], i), k) == 0);
            }
            if (check > 0 && (warned[0] || warned[1])) return out.status(1);
            if (print_paired)
                for (auto& a : g[0]) {
                    if (ctx.cancelled()) return out.status(130);
                    for (auto& b : g[1]) write_line(&a, &b);
                    if (out.failed()) break;
                }
        }
        if (check > 0 && (warned[0] || warned[1])) return out.status(1);
        if (out.failed()) break;
    }
    for (int i = 0; i < 2; ++i) {
        while (have[i]) {
            if (print_unpaired[i]) write_line(i == 0 ? &cur[0] : nullptr, i == 1 ? &cur[1] : nullptr);
            else seen_unpairable = true;
            have[i] = read(i, cur[i]);
            if (check > 0 && warned[i]) return out.status(1);
        }
    }
    int status = 0;
    for (int i = 0; i < 2; ++i) {
        if (src[i].lr->error() != vfs::Errc::ok && src[i].lr->error() != vfs::Errc::cancelled) {
            out.flush();
            file_error(ctx, src[i].name, src[i].lr->error());
            status = 1;
        }
    }
    if (warned[0] || warned[1]) {
        out.flush();
        ctx.error("input is not in sorted order");
        return out.status(1);
    }
    return out.status(status);
}

}  // namespace bashkit::utils::text

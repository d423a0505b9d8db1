#include "utils/search/searcher.hpp"

#include <algorithm>
#include <cstring>
#include <deque>

#include "interp/limits.hpp"

namespace bashkit::utils::search {

ReadFn read_from(vfs::FileHandle& file) {
    return [&file](char* buf, size_t n, int& err) -> size_t {
        auto r = file.read(buf, n);
        if (!r.ok()) {
            err = vfs::to_errno(r.error());
            return 0;
        }
        return *r;
    };
}

ReadFn read_from(interp::ByteStream& stream) {
    return [&stream](char* buf, size_t n, int& err) -> size_t {
        auto r = stream.read(buf, n);
        if (!r.ok()) {
            err = r.err;
            return 0;
        }
        return r.n;
    };
}

vfs::Errc read_pattern_file(interp::CommandContext& ctx, const std::string& name, std::string& text) {
    if (name == "-") {
        (void)ctx.in.read_all(text);
        return vfs::Errc::ok;
    }
    auto r = ctx.fs.read_file(ctx.resolve(name));
    if (!r.ok()) return r.error();
    text = std::move(r).value();
    return vfs::Errc::ok;
}

vfs::Errc read_dir_frame(vfs::FileSystem& fs, std::string display, std::string abs, const vfs::Stat& st,
                         DirFrame& frame) {
    auto list = fs.readdir(abs);
    if (!list.ok()) return list.error();
    frame.display = std::move(display);
    frame.abs = std::move(abs);
    frame.entries = std::move(list).value();
    std::sort(frame.entries.begin(), frame.entries.end(),
              [](const vfs::DirEntry& a, const vfs::DirEntry& b) { return a.name < b.name; });
    frame.next = 0;
    frame.dev = st.dev;
    frame.ino = st.ino;
    return vfs::Errc::ok;
}

bool on_stack(const std::vector<DirFrame>& stack, const vfs::Stat& st) {
    return std::any_of(stack.begin(), stack.end(),
                       [&](const DirFrame& f) { return f.dev == st.dev && f.ino == st.ino; });
}

std::string join_display(const std::string& base, const std::string& name) {
    if (base.empty()) return name;
    if (base.back() == '/') return base + name;
    return base + "/" + name;
}

namespace {

constexpr size_t kChunk = 256 * 1024;

size_t count_byte(const char* b, const char* e, char c) {
    size_t n = 0;
    while (b < e) {
        const void* p = std::memchr(b, c, static_cast<size_t>(e - b));
        if (!p) break;
        ++n;
        b = static_cast<const char*>(p) + 1;
    }
    return n;
}

class Engine {
public:
    Engine(const SearchConfig& cfg, std::string_view name, Output& out)
        : cfg_(cfg), name_(name), out_(out) {
        print_lines_ = !(cfg.count || cfg.list_matching || cfg.list_missing || cfg.quiet);
        context_ = cfg.before > 0 || cfg.after > 0;
        need_lineno_ = print_lines_ && (cfg.line_numbers || context_ || cfg.separator_always);
    }

    // data[0, n) holds complete lines. Returns false once the input need not be read further.
    bool process(char* data, size_t n);

    uint64_t selected() const { return selected_; }
    uint64_t selected_after_binary() const { return selected_after_binary_; }
    bool finished() const { return finished_; }
    // Binary input found: lines are no longer printed and the first selected line ends the search.
    void set_binary_quiet() {
        binary_ = true;
        if (print_lines_) quiet_out_ = true;
    }

private:
    void prefix(uint64_t lineno, char sep) {
        if (cfg_.with_filename) {
            out_.put(name_);
            out_.put(cfg_.null_after_name ? '\0' : sep);
        }
        if (cfg_.line_numbers) {
            char num[24];
            char* p = num + sizeof num;
            uint64_t v = lineno;
            do {
                *--p = static_cast<char>('0' + v % 10);
                v /= 10;
            } while (v);
            out_.put(std::string_view(p, static_cast<size_t>(num + sizeof num - p)));
            out_.put(sep);
        }
    }

    void separator_before(uint64_t lineno) {
        const bool gap = printed_any_ ? lineno > last_printed_ + 1 : out_.group_printed;
        if (context_or_sep() && gap && cfg_.separator) {
            out_.put(cfg_.group_separator);
            out_.put('\n');
        }
    }
    bool context_or_sep() const { return context_ || cfg_.separator_always; }

    void print_context(std::string_view line, uint64_t lineno) {
        if (quiet_out_) return;
        if (!cfg_.only_matching) {
            separator_before(lineno);
            put_line('-', lineno, line);
        }
        printed(lineno);
    }

    // One line out: its prefix (sep is ':' for a selected line, '-' for context), the text, the end of line.
    void put_line(char sep, uint64_t lineno, std::string_view text) {
        prefix(lineno, sep);
        out_.put(text);
        out_.put(cfg_.eol);
    }
    void printed(uint64_t lineno) {
        last_printed_ = lineno;
        printed_any_ = true;
        out_.group_printed = true;
    }

    void print_selected(std::string_view line, uint64_t lineno) {
        for (auto& [n, text] : ring_)
            if (n > last_printed_ || !printed_any_) print_context(text, n);
        ring_.clear();
        separator_before(lineno);
        if (cfg_.only_matching) {
            if (!cfg_.invert) {
                size_t from = 0, b = 0, e = 0;
                while (from <= line.size() && cfg_.matcher->next_match(line, from, b, e)) {
                    if (e == b) {
                        from = b + 1;
                        continue;
                    }
                    put_line(':', lineno, line.substr(b, e - b));
                    from = e;
                }
            }
        } else {
            put_line(':', lineno, line);
        }
        printed(lineno);
        pending_after_ = cfg_.after;
    }

    // A line that is not selected.
    void context_line(std::string_view line, uint64_t lineno) {
        if (!print_lines_ || quiet_out_) return;
        if (pending_after_ > 0) {
            --pending_after_;
            print_context(line, lineno);
        } else if (cfg_.before > 0) {
            if (ring_.size() == cfg_.before) ring_.pop_front();
            ring_.emplace_back(lineno, std::string(line));
        }
    }

    void select(std::string_view line, uint64_t lineno) {
        ++selected_;
        if (binary_) ++selected_after_binary_;
        if (cfg_.quiet || cfg_.list_matching || cfg_.list_missing) {
            finished_ = true;
            return;
        }
        if (!cfg_.count && !quiet_out_) print_selected(line, lineno);
        if (quiet_out_) {
            finished_ = true;
            return;
        }
        if (selected_ >= cfg_.max_count) {
            max_reached_ = true;
            if (cfg_.count || pending_after_ == 0) finished_ = true;
        }
    }

    // Lines [b, e) of data that are not selected (the pattern does not match them, without -v).
    void gap(const char* b, const char* e) {
        if (!need_lineno_) return;
        if (pending_after_ == 0 && cfg_.before == 0) {
            lineno_ += count_byte(b, e, cfg_.eol);
            return;
        }
        while (b < e && pending_after_ > 0) {
            const char* le = static_cast<const char*>(std::memchr(b, cfg_.eol, static_cast<size_t>(e - b)));
            context_line(std::string_view(b, static_cast<size_t>(le - b)), ++lineno_);
            b = le + 1;
        }
        if (b >= e) return;
        const size_t lines = count_byte(b, e, cfg_.eol);
        const uint64_t end_lineno = lineno_ + lines;
        if (cfg_.before > 0 && print_lines_ && !quiet_out_) {
            // The last `before` lines of the gap.
            const size_t keep = std::min(lines, cfg_.before);
            const char* start = e;
            for (size_t k = 0; k < keep; ++k) {
                const char* p = start - 1;  // the eol of the line before start
                while (p > b && p[-1] != cfg_.eol) --p;
                start = p;
            }
            if (keep == cfg_.before) ring_.clear();
            uint64_t n = end_lineno - keep;
            while (start < e) {
                const char* le = static_cast<const char*>(std::memchr(start, cfg_.eol, static_cast<size_t>(e - start)));
                if (ring_.size() == cfg_.before) ring_.pop_front();
                ring_.emplace_back(++n, std::string(start, static_cast<size_t>(le - start)));
                start = le + 1;
            }
        }
        lineno_ = end_lineno;
    }

    const SearchConfig& cfg_;
    std::string_view name_;
    Output& out_;
    bool print_lines_ = true;
    bool context_ = false;
    bool need_lineno_ = false;
    uint64_t lineno_ = 0;  // lines before the current position
    uint64_t selected_ = 0;
    uint64_t selected_after_binary_ = 0;
    size_t pending_after_ = 0;
    uint64_t last_printed_ = 0;
    bool printed_any_ = false;
    bool max_reached_ = false;
    bool finished_ = false;
    bool binary_ = false;
    bool quiet_out_ = false;
    std::deque<std::pair<uint64_t, std::string>> ring_;
};

bool Engine::process(char* data, size_t n) {
    const std::string_view buf(data, n);
    const Matcher& m = *cfg_.matcher;
    size_t pos = 0;
    size_t next_b = 0, next_e = 0;
    bool have_next = false;
    int streak = 0;  // matching lines found right where the search started
    const bool bulk_invert_count = cfg_.invert && !print_lines_ && cfg_.max_count == UINT64_MAX && !cfg_.quiet &&
                                   !cfg_.list_matching && !cfg_.list_missing;
    while (pos < n && !finished_) {
        if (max_reached_) {
            // Only the trailing context of the last selected line is left.
            if (pending_after_ == 0 || cfg_.count) {
                finished_ = true;
                break;
            }
            const size_t le = buf.find(cfg_.eol, pos);
            // GNU grep prints them as context even when they would be selected.
            context_line(buf.substr(pos, le - pos), ++lineno_);
            pos = le + 1;
            continue;
        }
        if (!have_next) {
            // Where matching lines come one after another, testing the next line by itself is cheaper than
            // a buffer search (which also has to find where its match starts).
            bool found = false;
            if (streak >= 8) {
                const char* le = static_cast<const char*>(std::memchr(data + pos, cfg_.eol, n - pos));
                const size_t e = static_cast<size_t>(le - data);
                if (m.line_matches(buf.substr(pos, e - pos))) {
                    next_b = pos;
                    next_e = e;
                    found = true;
                } else {
                    streak = 0;
                    // This line does not match: the search goes on after it.
                    if (!m.find_line(buf, e + 1, next_b, next_e)) next_b = next_e = n;
                    found = true;
                }
            }
            if (!found && !m.find_line(buf, pos, next_b, next_e)) next_b = next_e = n;
            if (m.failed()) {  // grep -P: a limit of PCRE2, or cancelled
                finished_ = true;
                break;
            }
            streak = next_b == pos ? streak + 1 : 0;
            have_next = true;
        }
        if (pos < next_b) {
            if (!cfg_.invert) {
                gap(data + pos, data + next_b);
                pos = next_b;
            } else if (bulk_invert_count) {
                selected_ += count_byte(data + pos, data + next_b, cfg_.eol);
                pos = next_b;
            } else {
                const size_t le = buf.find(cfg_.eol, pos);
                select(buf.substr(pos, le - pos), ++lineno_);
                pos = le + 1;
            }
            continue;
        }
        if (next_b >= n) break;
        const std::string_view line = buf.substr(next_b, next_e - next_b);
        ++lineno_;
        if (cfg_.invert)
            context_line(line, lineno_);
        else
            select(line, lineno_);
        pos = next_e + 1;
        have_next = false;
    }
    return !finished_;
}

}  // namespace

SearchResult search_input(const SearchConfig& cfg, const ReadFn& read, std::string_view name, Output& out,
                          interp::ByteStream& err, const interp::CancelToken* cancel,
                          interp::MemoryBudget* memory) {
    SearchResult res;
    interp::MemoryCharge held(memory);  // the buffer: it grows to hold the longest line
    Engine eng(cfg, name, out);
    std::string buf;
    buf.resize(kChunk);
    size_t have = 0;
    bool binary = false;
    uint64_t offset = 0;        // bytes of the input before buf[0]
    uint64_t first_nul = 0;     // offset of the first NUL (rg's message)
    bool rg_binary_stop = false;
    const bool detect = cfg.binary != BinaryMode::kText && cfg.eol == '\n';
    bool more = true;
    while (more) {
        if (cancel && cancel->cancelled()) {
            res.stopped = true;
            break;
        }
        if (have == buf.size()) {
            held.set(buf.size() * 2);
            buf.resize(buf.size() * 2);
        }
        int rerr = 0;
        const size_t got = read(buf.data() + have, buf.size() - have, rerr);
        if (rerr) {
            res.read_error = rerr;
            break;
        }
        size_t upto;  // bytes of complete lines to process
        if (got == 0) {
            more = false;
            if (have == 0) break;
            if (buf[have - 1] != cfg.eol) {
                if (have == buf.size()) buf.resize(buf.size() + 1);
                buf[have++] = cfg.eol;
            }
            upto = have;
        } else {
            char* fresh = buf.data() + have;
            if (detect) {
                void* nul = std::memchr(fresh, '\0', got);
                if (nul && !binary) {
                    binary = true;
                    first_nul = offset + have + static_cast<size_t>(static_cast<char*>(nul) - fresh);
                    if (cfg.binary == BinaryMode::kWithoutMatch) {
                        // A binary file does not match (lines printed before stay printed).
                        have = 0;
                        more = false;
                        break;
                    }
                    if (cfg.binary == BinaryMode::kRgQuit) {
                        have = 0;
                        more = false;
                        rg_binary_stop = true;
                        break;
                    }
                    eng.set_binary_quiet();
                }
                if (binary)
                    for (char* p = fresh; p < fresh + got; ++p)
                        if (*p == '\0') *p = '\n';
            }
            // The bytes kept from before hold no end of line (they follow the last one processed): only the
            // fresh ones are searched, or a long line read in small pieces would be scanned again per piece.
            const void* last = memrchr(fresh, cfg.eol, got);
            have += got;
            if (!last) continue;
            upto = static_cast<size_t>(static_cast<const char*>(last) - buf.data()) + 1;
        }
        const bool go_on = eng.process(buf.data(), upto);
        if (cfg.matcher->failed()) {
            res.match_error = !cfg.matcher->failure().empty();
            if (!res.match_error) {  // cancelled
                res.stopped = true;
                break;
            }
            out.flush();
            if (cfg.program == "rg") {
                // ripgrep reports the file and goes on with the next one (status 2 at the end).
                err.write(std::string(name) + ": PCRE2: error matching: " + cfg.matcher->pcre_failure() + "\n");
                cfg.matcher->clear_failure();
                return res;
            }
            // GNU grep 3.8 dies here: status 2 with "grep: FILE: exceeded PCRE's backtracking limit".
            res.stopped = true;
            err.write(cfg.program + ": " + std::string(name) + ": " + cfg.matcher->failure() + "\n");
            break;
        }
        std::memmove(buf.data(), buf.data() + upto, have - upto);
        offset += upto;
        have -= upto;
        if (out.failed()) {
            res.stopped = true;
            break;
        }
        if (!go_on) break;
    }
    (void)rg_binary_stop;
    res.selected = eng.selected();
    if (res.stopped) return res;
    if (cfg.count && (cfg.count_zero || res.selected > 0)) {
        if (cfg.with_filename) {
            out.put(name);
            out.put(cfg.null_after_name ? '\0' : ':');
        }
        out.put(std::to_string(res.selected));
        out.put('\n');
    } else if ((cfg.list_matching && res.selected > 0) || (cfg.list_missing && res.selected == 0 && !res.read_error)) {
        out.put(name);
        out.put(cfg.null_after_name ? '\0' : '\n');
    }
    if (binary && eng.selected_after_binary() > 0 && !cfg.count && !cfg.list_matching && !cfg.list_missing &&
        !cfg.quiet) {
        if (cfg.binary == BinaryMode::kGrep) {
            out.flush();
            err.write(cfg.program + ": " + std::string(name) + ": binary file matches\n");
        } else if (cfg.binary == BinaryMode::kRgConvert) {
            if (cfg.with_filename) {
                out.put(name);
                out.put(": ");
            }
            out.put("binary file matches (found \"\\0\" byte around offset " + std::to_string(first_nul) + ")\n");
        }
    }
    return res;
}

}  // namespace bashkit::utils::search

// sqlite3: the SQLite command-line shell's everyday interface over our VFS (vfs.hpp). Output is byte-for-byte
// what the sqlite3 3.40 shell prints for what is supported (tests/utils_sqlite/cases compares with it);
// README.md lists what is not.
#include <sqlite3.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "utils/sqlite/sqlite.hpp"
#include "utils/sqlite/sqlite_api.hpp"
#include "utils/sqlite/vfs.hpp"
#include "utils/text/util.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::sqlite {

namespace {

using interp::CommandContext;

enum class Mode { list, csv, json, line, column, box, markdown, table, quote, tabs, html, ascii };

struct ModeName {
    std::string_view name;
    Mode mode;
};
constexpr ModeName kModes[] = {
    {"list", Mode::list},   {"csv", Mode::csv},       {"json", Mode::json},   {"line", Mode::line},
    {"lines", Mode::line},  {"column", Mode::column}, {"columns", Mode::column}, {"box", Mode::box},
    {"markdown", Mode::markdown}, {"table", Mode::table}, {"quote", Mode::quote}, {"tabs", Mode::tabs},
    {"html", Mode::html},   {"ascii", Mode::ascii},
};

bool columnar(Mode m) { return m == Mode::column || m == Mode::box || m == Mode::markdown || m == Mode::table; }

// A stop requested by the script's input (.quit, -bail) rather than an error.
struct Stop {
    int status;
};

class Shell {
public:
    explicit Shell(CommandContext& ctx) : ctx_(ctx), out_(std::make_unique<text::Output>(ctx)) {}
    ~Shell() { close_db(); }

    int main();

private:
    // --- output
    void put(std::string_view s) {
        if (out_->failed() && !broken_) broken_ = true;
        out_->put(s);
    }
    // stderr is not buffered and stdout is (the real shell's stdout into a pipe is fully buffered, and it
    // flushes after each line of input only): an error in the arguments shows before their output.
    void errline(std::string_view s) { (void)ctx_.err.write(std::string(s) + "\n"); }

    // --- the database
    bool open_db();
    void close_db();
    void configure_db();
    static int progress(void* self);
    static int authorize(void* self, int action, const char* a, const char* b, const char*, const char*);

    // --- SQL
    // Runs every statement of sql; false on an error (message in err).
    bool exec_sql(const std::string& sql, std::string& err, int& rc);
    void print_rows(sqlite3_stmt* st, int& rc);
    void print_columnar(sqlite3_stmt* st, int& rc);
    std::string value_text(sqlite3_stmt* st, int i, bool& is_null);
    std::string float_literal(double r, bool json);
    std::string quoted_value(sqlite3_stmt* st, int i);  // quote mode and .dump
    void csv_field(std::string_view s, bool is_null);
    std::string error_context(const char* sql);

    // --- input
    int process_input(interp::ByteStream& in, const std::string& name);
    int run_sql_line(const std::string& sql, int startline, bool from_input);
    int meta(const std::string& line);  // 0 ok, 1 error, 2 exit
    int meta_import(const std::vector<std::string>& a);
    int meta_dump(const std::vector<std::string>& a);
    int meta_schema(const std::vector<std::string>& a);
    int meta_tables(const std::vector<std::string>& a);
    void set_mode(Mode m, bool from_dot);
    bool query_strings(const std::string& sql, std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& binds = {});

    CommandContext& ctx_;
    std::unique_ptr<text::Output> out_;
    std::unique_ptr<text::OutputFile> out_file_;
    std::unique_ptr<SessionVfs> vfs_;
    sqlite3* db_ = nullptr;
    std::string db_name_ = ":memory:";
    bool readonly_ = false;
    bool opened_ = false;
    bool broken_ = false;

    Mode mode_ = Mode::list;
    std::string colsep_ = "|", rowsep_ = "\n", nullvalue_;
    bool header_ = false, header_set_ = false;
    bool bail_ = false, echo_ = false;
    int wrap_ = 0;
    std::vector<int> widths_;
    int exit_code_ = -1;  // .quit / .exit
};

// ---------------------------------------------------------------------------------------------------------
// The database

int Shell::progress(void* self) {
    auto* s = static_cast<Shell*>(self);
    return s->ctx_.cancelled() ? 1 : 0;
}

int Shell::authorize(void*, int action, const char* a, const char* b, const char*, const char*) {
    // Every file goes through our VFS, except a URI filename naming another VFS ("file:x?vfs=unix"): SQLite
    // is built with URI filenames on, so ATTACH and VACUUM INTO (both reach here as SQLITE_ATTACH) may only
    // name plain paths. A computed file name (no literal) is refused too.
    if (action == SQLITE_ATTACH) {
        if (!a) return SQLITE_DENY;
        std::string_view f(a);
        while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
        if (f.size() >= 5) {
            std::string head(f.substr(0, 5));
            for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (head == "file:") return SQLITE_DENY;
        }
        return SQLITE_OK;
    }
    // fts3_tokenizer(NAME, POINTER) installs a tokenizer from a raw pointer (built with
    // SQLITE_ENABLE_FTS3_TOKENIZER): never from a script.
    if (action == SQLITE_FUNCTION && b && std::string_view(b) == "fts3_tokenizer") return SQLITE_DENY;
    // Process-wide knobs: the embedding process's other connections must not feel a script.
    if (action == SQLITE_PRAGMA && a) {
        std::string p(a);
        for (char& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if ((p == "soft_heap_limit" || p == "hard_heap_limit") && b) return SQLITE_DENY;
    }
    return SQLITE_OK;
}

void Shell::configure_db() {
    const auto& api = sq();
    api.sqlite3_progress_handler(db_, 1000, &Shell::progress, this);
    api.sqlite3_set_authorizer(db_, &Shell::authorize, this);
    // A value (string or blob) is bounded by the memory budget: zeroblob(1e9) and repeat-until-huge strings
    // fail with "string or blob too big" instead of allocating past it.
    const size_t budget = ctx_.memory && ctx_.memory->limit() ? ctx_.memory->limit() : ctx_.limits.max_memory_bytes;
    if (budget != 0) {
        const size_t lim = std::max<size_t>(budget / 4, 1 << 20);
        api.sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, static_cast<int>(std::min<size_t>(lim, 1000000000)));
        api.sqlite3_limit(db_, SQLITE_LIMIT_SQL_LENGTH, static_cast<int>(std::min<size_t>(lim, 1000000000)));
    }
    int ignored = 0;
    api.sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &ignored);
    api.sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored);
    api.sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &ignored);
}

bool Shell::open_db() {
    if (opened_) return db_ != nullptr;
    opened_ = true;
    vfs_ = std::make_unique<SessionVfs>(ctx_);
    if (!vfs_->registered()) {
        errline("Error: cannot register the virtual filesystem");
        return false;
    }
    int flags = readonly_ ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    flags |= SQLITE_OPEN_NOMUTEX;
    std::string name = db_name_;
    // A URI could name another VFS (vfs=unix): a leading "file:" is taken as a plain file name.
    if (name.rfind("file:", 0) == 0) name = "./" + name;
    const int rc = sq().sqlite3_open_v2(name.c_str(), &db_, flags, vfs_->name());
    if (rc != SQLITE_OK) {
        errline("Error: unable to open database \"" + db_name_ + "\": " +
                (db_ ? sq().sqlite3_errmsg(db_) : "out of memory"));
        close_db();
        return false;
    }
    configure_db();
    return true;
}

void Shell::close_db() {
    if (db_) sq().sqlite3_close_v2(db_);
    db_ = nullptr;
}

// ---------------------------------------------------------------------------------------------------------
// Values

std::string Shell::float_literal(double r, bool json) {
    uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    if (json && bits == 0x7ff0000000000000ULL) return "1e999";
    if (json && bits == 0xfff0000000000000ULL) return "-1e999";
    if (std::isfinite(r) && std::fabs(r) < 9.2e18) {
        const auto ir = static_cast<int64_t>(r);
        if (r == static_cast<double>(ir)) return std::to_string(ir) + ".0";
    }
    char buf[64];
    sq().sqlite3_snprintf(sizeof buf, buf, "%!.20g", r);
    return buf;
}

std::string Shell::value_text(sqlite3_stmt* st, int i, bool& is_null) {
    const auto& api = sq();
    is_null = api.sqlite3_column_type(st, i) == SQLITE_NULL;
    if (is_null) return nullvalue_;
    const auto* t = reinterpret_cast<const char*>(api.sqlite3_column_text(st, i));
    const int n = api.sqlite3_column_bytes(st, i);
    return t ? std::string(t, static_cast<size_t>(n)) : std::string();
}

std::string sql_quote(std::string_view s) {
    std::string o = "'";
    for (char c : s) {
        if (c == '\'') o += '\'';
        o += c;
    }
    return o + "'";
}

std::string hex_blob(const unsigned char* p, int n) {
    static const char* d = "0123456789abcdef";
    std::string o = "X'";
    for (int i = 0; i < n; ++i) {
        o += d[p[i] >> 4];
        o += d[p[i] & 15];
    }
    return o + "'";
}

std::string Shell::quoted_value(sqlite3_stmt* st, int i) {
    const auto& api = sq();
    switch (api.sqlite3_column_type(st, i)) {
        case SQLITE_NULL: return "NULL";
        case SQLITE_INTEGER: return std::to_string(api.sqlite3_column_int64(st, i));
        case SQLITE_FLOAT: return float_literal(api.sqlite3_column_double(st, i), false);
        case SQLITE_BLOB:
            return hex_blob(static_cast<const unsigned char*>(api.sqlite3_column_blob(st, i)),
                            api.sqlite3_column_bytes(st, i));
        default: {
            bool n;
            return sql_quote(value_text(st, i, n));
        }
    }
}

std::string json_string(std::string_view s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\b': o += "\\b"; break;
            case '\f': o += "\\f"; break;
            case '\n': o += "\\n"; break;
            case '\r': o += "\\r"; break;
            case '\t': o += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    o += buf;
                } else {
                    o += static_cast<char>(c);
                }
        }
    }
    return o + "\"";
}

void Shell::csv_field(std::string_view s, bool is_null) {
    if (is_null) {
        put(nullvalue_);
        return;
    }
    bool q = s.empty() || (!colsep_.empty() && s.find(colsep_) != std::string_view::npos);
    for (unsigned char c : s)
        if (c <= ' ' || c == '"' || c == '\'' || c == ',' || c >= 0x7f) q = true;
    if (!q) {
        put(s);
        return;
    }
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    o += '"';
    put(o);
}

std::string html_escape(std::string_view s) {
    std::string o;
    for (char c : s) {
        switch (c) {
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '&': o += "&amp;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&#39;"; break;
            default: o += c;
        }
    }
    return o;
}

// Characters (not bytes) of UTF-8 text.
size_t chars(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xc0) != 0x80) ++n;
    return n;
}

// ---------------------------------------------------------------------------------------------------------
// Printing a statement's rows

void Shell::print_rows(sqlite3_stmt* st, int& rc) {
    const auto& api = sq();
    if (columnar(mode_)) {
        print_columnar(st, rc);
        return;
    }
    const int n = api.sqlite3_column_count(st);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
        const char* c = api.sqlite3_column_name(st, i);
        names.emplace_back(c ? c : "");
    }
    size_t row = 0;
    size_t line_w = 5;
    for (const auto& nm : names) line_w = std::max(line_w, chars(nm));
    const bool list_like = mode_ == Mode::list || mode_ == Mode::tabs || mode_ == Mode::ascii;
    while ((rc = api.sqlite3_step(st)) == SQLITE_ROW) {
        if (ctx_.cancelled()) {
            rc = SQLITE_INTERRUPT;
            break;
        }
        bool is_null;
        if (row == 0 && header_ && (list_like || mode_ == Mode::csv || mode_ == Mode::quote)) {
            for (int i = 0; i < n; ++i) {
                if (i) put(colsep_);
                if (mode_ == Mode::csv)
                    csv_field(names[i], false);
                else if (mode_ == Mode::quote)
                    put(sql_quote(names[i]));
                else
                    put(names[i]);
            }
            put(rowsep_);
        }
        if (row == 0 && header_ && mode_ == Mode::html) {
            put("<TR>");
            for (int i = 0; i < n; ++i) put("<TH>" + html_escape(names[i]) + "</TH>\n");
            put("</TR>\n");
        }
        switch (mode_) {
            case Mode::json:
                put(row == 0 ? "[{" : ",\n{");
                for (int i = 0; i < n; ++i) {
                    if (i) put(",");
                    put(json_string(names[i]));
                    put(":");
                    switch (api.sqlite3_column_type(st, i)) {
                        case SQLITE_NULL: put("null"); break;
                        case SQLITE_FLOAT: put(float_literal(api.sqlite3_column_double(st, i), true)); break;
                        case SQLITE_INTEGER: put(value_text(st, i, is_null)); break;
                        default: put(json_string(value_text(st, i, is_null)));
                    }
                }
                put("}");
                break;
            case Mode::line:
                if (row > 0) put(rowsep_);
                for (int i = 0; i < n; ++i) {
                    const std::string v = value_text(st, i, is_null);
                    put(std::string(line_w - std::min(line_w, chars(names[i])), ' '));
                    put(names[i]);
                    put(" = ");
                    put(v);
                    put(rowsep_);
                }
                break;
            case Mode::csv:
                for (int i = 0; i < n; ++i) {
                    if (i) put(colsep_);
                    const std::string v = value_text(st, i, is_null);
                    csv_field(v, is_null);
                }
                put(rowsep_);
                break;
            case Mode::quote:
                for (int i = 0; i < n; ++i) {
                    if (i) put(colsep_);
                    put(quoted_value(st, i));
                }
                put(rowsep_);
                break;
            case Mode::html:
                put("<TR>");
                for (int i = 0; i < n; ++i) put("<TD>" + html_escape(value_text(st, i, is_null)) + "</TD>\n");
                put("</TR>\n");
                break;
            default:
                for (int i = 0; i < n; ++i) {
                    if (i) put(colsep_);
                    put(value_text(st, i, is_null));
                }
                put(rowsep_);
        }
        ++row;
    }
    if (mode_ == Mode::json && row > 0) put("]\n");
}

// One cell of a columnar mode split into display lines: newlines break lines, tabs go to the next multiple of
// 8, a line longer than the wrap width is cut at it.
std::vector<std::string> cell_lines(std::string_view s, size_t wrap) {
    std::vector<std::string> lines(1);
    size_t col = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == '\n') {
            lines.emplace_back();
            col = 0;
            continue;
        }
        if (c == '\r') continue;
        if (wrap && col >= wrap && (c & 0xc0) != 0x80) {
            lines.emplace_back();
            col = 0;
        }
        if (c == '\t') {
            do {
                lines.back() += ' ';
                ++col;
            } while (col % 8 != 0);
            continue;
        }
        lines.back() += static_cast<char>(c);
        if ((c & 0xc0) != 0x80) ++col;
    }
    return lines;
}

void Shell::print_columnar(sqlite3_stmt* st, int& rc) {
    const auto& api = sq();
    const int n = api.sqlite3_column_count(st);
    rc = api.sqlite3_step(st);
    if (rc != SQLITE_ROW) return;
    interp::MemoryCharge held(ctx_.memory);
    // cells[r][c] lines; row 0 is the header.
    std::vector<std::vector<std::vector<std::string>>> cells;
    auto wrap_of = [&](int i) -> size_t {
        if (static_cast<size_t>(i) < widths_.size() && widths_[i] != 0) return static_cast<size_t>(std::abs(widths_[i]));
        return static_cast<size_t>(wrap_);
    };
    cells.emplace_back();
    for (int i = 0; i < n; ++i) {
        const char* c = api.sqlite3_column_name(st, i);
        cells.back().push_back(cell_lines(c ? c : "", wrap_of(i)));
    }
    while (rc == SQLITE_ROW) {
        if (ctx_.cancelled()) {
            rc = SQLITE_INTERRUPT;
            return;
        }
        cells.emplace_back();
        for (int i = 0; i < n; ++i) {
            bool is_null;
            const std::string v = value_text(st, i, is_null);
            held.add(v.size() + 32);
            cells.back().push_back(cell_lines(v, wrap_of(i)));
        }
        rc = api.sqlite3_step(st);
    }
    std::vector<size_t> w(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        if (static_cast<size_t>(i) < widths_.size() && widths_[i] != 0) {
            w[i] = static_cast<size_t>(std::abs(widths_[i]));
            continue;
        }
        for (const auto& r : cells)
            for (const auto& l : r[i]) w[i] = std::max(w[i], chars(l));
    }
    auto right = [&](int i) { return static_cast<size_t>(i) < widths_.size() && widths_[i] < 0; };
    auto pad = [&](const std::string& s, size_t width, int align) {  // -1 left, 0 center, 1 right
        const size_t len = chars(s);
        const size_t gap = width > len ? width - len : 0;
        if (align < 0) return s + std::string(gap, ' ');
        if (align > 0) return std::string(gap, ' ') + s;
        return std::string(gap / 2, ' ') + s + std::string(gap - gap / 2, ' ');
    };
    auto rule = [&](std::string_view l, std::string_view fill, std::string_view mid, std::string_view r) {
        std::string o(l);
        for (int i = 0; i < n; ++i) {
            if (i) o += mid;
            for (size_t k = 0; k < w[i] + 2; ++k) o += fill;
        }
        o += r;
        o += "\n";
        put(o);
    };
    auto emit = [&](const std::vector<std::vector<std::string>>& r, bool is_header) {
        size_t height = 1;
        for (const auto& c : r) height = std::max(height, c.size());
        for (size_t k = 0; k < height; ++k) {
            std::string o;
            if (mode_ == Mode::box) o = "│ ";
            else if (mode_ != Mode::column) o = "| ";
            for (int i = 0; i < n; ++i) {
                if (i) o += mode_ == Mode::box ? " │ " : mode_ == Mode::column ? "  " : " | ";
                const std::string s = k < r[i].size() ? r[i][k] : std::string();
                const int align = is_header && mode_ != Mode::column ? 0 : right(i) ? 1 : -1;
                o += pad(s, w[i], align);
            }
            if (mode_ == Mode::box) o += " │";
            else if (mode_ != Mode::column) o += " |";
            o += "\n";
            put(o);
        }
    };
    switch (mode_) {
        case Mode::column:
            if (header_) {
                emit(cells[0], true);
                std::string o;
                for (int i = 0; i < n; ++i) {
                    if (i) o += "  ";
                    o += std::string(w[i], '-');
                }
                put(o + "\n");
            }
            break;
        case Mode::box:
            rule("┌", "─", "┬", "┐");
            emit(cells[0], true);
            rule("├", "─", "┼", "┤");
            break;
        case Mode::table:
            rule("+", "-", "+", "+");
            emit(cells[0], true);
            rule("+", "-", "+", "+");
            break;
        default:
            emit(cells[0], true);
            rule("|", "-", "|", "|");
    }
    // Box and table put a rule between the rows when a row spans several lines.
    bool multiline = false;
    for (size_t r = 1; r < cells.size() && !multiline; ++r)
        for (const auto& c : cells[r]) multiline = multiline || c.size() > 1;
    for (size_t r = 1; r < cells.size(); ++r) {
        if (r > 1 && multiline && mode_ == Mode::box) rule("├", "─", "┼", "┤");
        if (r > 1 && multiline && mode_ == Mode::table) rule("+", "-", "+", "+");
        emit(cells[r], false);
    }
    if (mode_ == Mode::box) rule("└", "─", "┴", "┘");
    if (mode_ == Mode::table) rule("+", "-", "+", "+");
}

// ---------------------------------------------------------------------------------------------------------
// Running SQL

std::string Shell::error_context(const char* sql) {
    int off = sq().sqlite3_error_offset(db_);
    if (off < 0 || !sql) return "";
    const char* z = sql;
    while (off > 50) {
        --off;
        ++z;
        while ((static_cast<unsigned char>(*z) & 0xc0) == 0x80) {
            ++z;
            --off;
        }
    }
    // A run of UTF-8 continuation bytes (invalid text) is skipped whole and can take the offset below 0.
    if (off < 0) off = 0;
    size_t len = std::strlen(z);
    if (len > 78) {
        len = 78;
        while (len > 0 && (static_cast<unsigned char>(z[len]) & 0xc0) == 0x80) --len;
    }
    std::string code(z, len);
    for (char& c : code)
        if (c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') c = ' ';
    if (off < 25) return "\n  " + code + "\n  " + std::string(static_cast<size_t>(off), ' ') + "^--- error here";
    return "\n  " + code + "\n  " + std::string(static_cast<size_t>(off - 14), ' ') + "error here ---^";
}

bool Shell::exec_sql(const std::string& sql, std::string& err, int& rc) {
    const auto& api = sq();
    const char* z = sql.c_str();
    rc = SQLITE_OK;
    while (*z) {
        if (ctx_.cancelled()) {
            err = "interrupted";
            rc = SQLITE_INTERRUPT;
            return false;
        }
        sqlite3_stmt* st = nullptr;
        const char* tail = nullptr;
        rc = api.sqlite3_prepare_v2(db_, z, -1, &st, &tail);
        if (rc != SQLITE_OK) {
            err = std::string("in prepare, ") + api.sqlite3_errmsg(db_);
            if (rc != SQLITE_ERROR) err += " (" + std::to_string(rc) + ")";
            err += error_context(z);
            return false;
        }
        if (st) {
            if (api.sqlite3_column_count(st) == 0) {
                while ((rc = api.sqlite3_step(st)) == SQLITE_ROW) {
                }
            } else {
                print_rows(st, rc);
            }
            if (rc != SQLITE_DONE) {
                rc = api.sqlite3_finalize(st);
                if (rc == SQLITE_OK) rc = SQLITE_ERROR;
                err = std::string("stepping, ") + api.sqlite3_errmsg(db_);
                if (rc != SQLITE_ERROR) err += " (" + std::to_string(rc) + ")";
                return false;
            }
            api.sqlite3_finalize(st);
        }
        z = tail;
        while (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r' || *z == '\f' || *z == '\v') ++z;
    }
    rc = SQLITE_OK;
    return true;
}

int Shell::run_sql_line(const std::string& sql, int startline, bool from_input) {
    if (!open_db()) return 1;
    std::string err;
    int rc;
    if (exec_sql(sql, err, rc)) return 0;
    std::string type = "Error", tail = err;
    if (err.rfind("in prepare, ", 0) == 0) {
        type = "Parse error";
        tail = err.substr(12);
    } else if (err.rfind("stepping, ", 0) == 0) {
        type = "Runtime error";
        tail = err.substr(10);
    }
    if (from_input)
        errline(type + " near line " + std::to_string(startline) + ": " + tail);
    else
        errline("Error: " + err);
    return rc ? rc : 1;
}

bool Shell::query_strings(const std::string& sql, std::vector<std::vector<std::string>>& rows,
                          const std::vector<std::string>& binds) {
    const auto& api = sq();
    sqlite3_stmt* st = nullptr;
    if (api.sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return false;
    for (size_t i = 0; i < binds.size(); ++i)
        api.sqlite3_bind_text(st, static_cast<int>(i + 1), binds[i].c_str(), static_cast<int>(binds[i].size()),
                              SQLITE_TRANSIENT);
    int rc;
    while ((rc = api.sqlite3_step(st)) == SQLITE_ROW) {
        if (ctx_.cancelled()) break;
        auto& r = rows.emplace_back();
        for (int i = 0; i < api.sqlite3_column_count(st); ++i) {
            const auto* t = reinterpret_cast<const char*>(api.sqlite3_column_text(st, i));
            r.emplace_back(t ? std::string(t, static_cast<size_t>(api.sqlite3_column_bytes(st, i))) : "");
        }
    }
    api.sqlite3_finalize(st);
    return rc == SQLITE_DONE;
}

// ---------------------------------------------------------------------------------------------------------
// Input

bool all_space(std::string_view s) {
    for (char c : s)
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) return false;
    return true;
}

int Shell::process_input(interp::ByteStream& in, const std::string&) {
    // Lines split from the stream's chunks.
    std::string buf, sql;
    interp::MemoryCharge held(ctx_.memory);
    int lineno = 0, startline = 0, errors = 0;
    bool eof = false;
    size_t pos = 0;
    char chunk[65536];
    auto next_line = [&](std::string& line) -> bool {
        for (;;) {
            const size_t nl = buf.find('\n', pos);
            if (nl != std::string::npos) {
                line.assign(buf, pos, nl - pos);
                pos = nl + 1;
                return true;
            }
            if (eof) {
                if (pos < buf.size()) {
                    line.assign(buf, pos, std::string::npos);
                    pos = buf.size();
                    return true;
                }
                return false;
            }
            buf.erase(0, pos);
            pos = 0;
            if (ctx_.cancelled()) return false;
            auto r = in.read(chunk, sizeof chunk);
            if (r.n == 0) {
                eof = true;
            } else {
                buf.append(chunk, r.n);
                held.set(buf.size() + sql.size());
            }
        }
    };
    std::string line;
    while (next_line(line)) {
        ++lineno;
        if (ctx_.cancelled()) return 130;
        if (echo_) put(line + "\n");
        if (sql.empty() && all_space(line)) continue;
        if (sql.empty() && !line.empty() && (line[0] == '.' || line[0] == '#')) {
            if (line[0] == '.') {
                const int rc = meta(line);
                (void)out_->flush();
                if (rc == 2) return exit_code_ < 0 ? (errors ? 1 : 0) : exit_code_;
                if (rc) ++errors;
                if (rc && bail_) return 1;
            }
            continue;
        }
        if (sql.empty()) startline = lineno;
        sql += line;
        sql += '\n';
        held.set(buf.size() + sql.size());
        if (sq().sqlite3_complete(sql.c_str())) {
            while (!sql.empty() && all_space(std::string_view(sql).substr(sql.size() - 1))) sql.pop_back();
            const int bad = run_sql_line(sql, startline, true);
            (void)out_->flush();
            if (bad) {
                ++errors;
                if (bail_) return 1;
            }
            sql.clear();
        }
    }
    if (!sql.empty() && !all_space(sql)) {
        while (!sql.empty() && all_space(std::string_view(sql).substr(sql.size() - 1))) sql.pop_back();
        if (run_sql_line(sql, startline, true)) ++errors;
        (void)out_->flush();
    }
    return errors ? 1 : 0;
}

// Splits a dot-command into words: whitespace separates, '...' and "..." quote ("..." with C escapes).
std::vector<std::string> split_meta(std::string_view line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i >= line.size()) break;
        const char q = line[i];
        std::string w;
        if (q == '\'' || q == '"') {
            ++i;
            while (i < line.size() && line[i] != q) {
                if (q == '"' && line[i] == '\\' && i + 1 < line.size()) {
                    ++i;
                    switch (line[i]) {
                        case 'n': w += '\n'; break;
                        case 't': w += '\t'; break;
                        case 'r': w += '\r'; break;
                        case '\\': w += '\\'; break;
                        case '"': w += '"'; break;
                        default: w += '\\'; w += line[i];
                    }
                    ++i;
                    continue;
                }
                w += line[i++];
            }
            if (i < line.size()) ++i;
        } else {
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) w += line[i++];
        }
        out.push_back(std::move(w));
    }
    return out;
}

// An unquoted separator argument: \t \n \r \\ as escapes.
std::string unescape_sep(std::string_view s) {
    std::string o;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            ++i;
            switch (s[i]) {
                case 't': o += '\t'; break;
                case 'n': o += '\n'; break;
                case 'r': o += '\r'; break;
                case '\\': o += '\\'; break;
                default: o += '\\'; o += s[i];
            }
        } else {
            o += s[i];
        }
    }
    return o;
}

void Shell::set_mode(Mode m, bool from_dot) {
    mode_ = m;
    switch (m) {
        case Mode::list: colsep_ = "|"; rowsep_ = "\n"; break;
        case Mode::csv:
            colsep_ = ",";
            if (from_dot) rowsep_ = "\r\n";
            break;
        case Mode::tabs: colsep_ = "\t"; rowsep_ = "\n"; break;
        case Mode::quote: colsep_ = ","; rowsep_ = "\n"; break;
        case Mode::line: rowsep_ = "\n"; break;
        case Mode::ascii: colsep_ = "\x1f"; rowsep_ = "\x1e"; break;
        default: break;
    }
    if (columnar(m)) {
        if (from_dot) {
            wrap_ = 60;
            if (!header_set_) header_ = true;
        } else {
            wrap_ = 0;
        }
    }
}

bool bool_arg(std::string_view s) {
    if (s == "on" || s == "yes" || s == "true") return true;
    if (s == "off" || s == "no" || s == "false") return false;
    return std::atoi(std::string(s).c_str()) != 0;
}

int Shell::meta(const std::string& line) {
    std::vector<std::string> a = split_meta(std::string_view(line).substr(1));
    if (a.empty()) return 0;
    const std::string& c = a[0];
    auto unknown = [&]() {
        errline("Error: unknown command or invalid arguments:  \"" + c + "\". Enter \".help\" for help");
        return 1;
    };
    auto is = [&](std::string_view full, size_t min) {
        return c.size() >= min && c.size() <= full.size() && full.compare(0, c.size(), c) == 0;
    };
    if (is("quit", 1) || is("exit", 2)) {
        if (c[0] == 'e' && a.size() > 1) exit_code_ = std::atoi(a[1].c_str());
        return 2;
    }
    if (is("headers", 2) || is("header", 2)) {
        if (a.size() != 2) {
            errline("Usage: .headers on|off");
            return 1;
        }
        header_ = bool_arg(a[1]);
        header_set_ = true;
        return 0;
    }
    if (is("mode", 3)) {
        if (a.size() < 2) {
            put("current output mode: ");
            for (const auto& m : kModes)
                if (m.mode == mode_) {
                    put(m.name);
                    break;
                }
            put("\n");
            return 0;
        }
        for (const auto& m : kModes)
            if (m.name == a[1]) {
                set_mode(m.mode, true);
                for (size_t i = 2; i < a.size(); ++i) {
                    if (a[i] == "--wrap" && i + 1 < a.size()) wrap_ = std::atoi(a[++i].c_str());
                    else if (a[i] == "--noquote" || a[i] == "--wordwrap") {
                        if (a[i] == "--wordwrap" && i + 1 < a.size()) ++i;
                    } else if (mode_ == Mode::csv || mode_ == Mode::list) {
                        // .mode list SEP is not in 3.40; ignore other words like the shell does for tables
                    }
                }
                return 0;
            }
        errline("Error: mode should be one of: ascii box column csv html insert json line list markdown qbox quote table tabs tcl");
        return 1;
    }
    if (is("separator", 4)) {
        if (a.size() < 2 || a.size() > 3) {
            errline("Usage: .separator COL ?ROW?");
            return 1;
        }
        colsep_ = unescape_sep(a[1]);
        if (a.size() == 3) rowsep_ = unescape_sep(a[2]);
        return 0;
    }
    if (is("nullvalue", 1)) {
        if (a.size() != 2) {
            errline("Usage: .nullvalue STRING");
            return 1;
        }
        nullvalue_ = a[1];
        return 0;
    }
    if (is("bail", 1)) {
        if (a.size() != 2) {
            errline("Usage: .bail on|off");
            return 1;
        }
        bail_ = bool_arg(a[1]);
        return 0;
    }
    if (is("echo", 2)) {
        if (a.size() != 2) {
            errline("Usage: .echo on|off");
            return 1;
        }
        echo_ = bool_arg(a[1]);
        return 0;
    }
    if (is("width", 1)) {
        widths_.clear();
        for (size_t i = 1; i < a.size(); ++i) widths_.push_back(std::atoi(a[i].c_str()));
        return 0;
    }
    if (is("print", 2)) {
        std::string o;
        for (size_t i = 1; i < a.size(); ++i) {
            if (i > 1) o += ' ';
            o += a[i];
        }
        put(o + "\n");
        return 0;
    }
    if (is("output", 3) || is("once", 2)) {
        (void)out_->flush();
        if (a.size() > 2) {
            errline("Usage: .output [FILE]");
            return 1;
        }
        if (a.size() == 1 || a[1] == "stdout" || a[1] == "-") {
            out_ = std::make_unique<text::Output>(ctx_);
            out_file_.reset();
            return 0;
        }
        auto f = std::make_unique<text::OutputFile>();
        if (f->open_output(ctx_, a[1]) != vfs::Errc::ok) {
            errline("Error: cannot open \"" + a[1] + "\"");
            out_ = std::make_unique<text::Output>(ctx_);
            out_file_.reset();
            return 1;
        }
        out_ = std::make_unique<text::Output>(ctx_, f->stream());
        out_file_ = std::move(f);
        return 0;
    }
    if (is("read", 3)) {
        if (a.size() != 2) {
            errline("Usage: .read FILE");
            return 1;
        }
        auto h = ctx_.fs.open(ctx_.resolve(a[1]), vfs::OpenFlags::read);
        if (!h.ok()) {
            errline("Error: cannot open \"" + a[1] + "\"");
            return 1;
        }
        struct FileStream : interp::ByteStream {
            vfs::FileHandle& f;
            explicit FileStream(vfs::FileHandle& h) : f(h) {}
            interp::IoResult read(char* buf, size_t n) override {
                auto r = f.read(buf, n);
                return {r.ok() ? *r : 0, r.ok() ? 0 : vfs::to_errno(r.error())};
            }
        } fsin(**h);
        const int rc = process_input(fsin, a[1]);
        return rc ? 1 : 0;
    }
    if (is("tables", 2)) return open_db() ? meta_tables(a) : 1;
    if (is("schema", 2)) return open_db() ? meta_schema(a) : 1;
    if (is("dump", 1)) return open_db() ? meta_dump(a) : 1;
    if (is("import", 3)) return open_db() ? meta_import(a) : 1;
    return unknown();
}

bool plain_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

std::string quote_ident(std::string_view s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    return o + "\"";
}

int Shell::meta_tables(const std::vector<std::string>& a) {
    std::vector<std::vector<std::string>> rows;
    const std::string pat = a.size() > 1 ? a[1] : "%";
    if (!query_strings("SELECT name FROM sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE "
                       "'sqlite!_%' ESCAPE '!' AND name LIKE ?1 ORDER BY 1",
                       rows, {pat}))
        return 1;
    size_t maxlen = 0;
    for (const auto& r : rows) maxlen = std::max(maxlen, r[0].size());
    if (rows.empty()) return 0;
    const size_t cols = std::max<size_t>(1, 80 / (maxlen + 2));
    const size_t nrows = (rows.size() + cols - 1) / cols;
    for (size_t i = 0; i < nrows; ++i) {
        std::string o;
        for (size_t j = i; j < rows.size(); j += nrows) {
            if (j != i) o += "  ";
            o += rows[j][0];
            o += std::string(maxlen - rows[j][0].size(), ' ');
        }
        put(o + "\n");
    }
    return 0;
}

// "CREATE TABLE 'x'" / "CREATE TABLE \"x\"" print as "CREATE TABLE IF NOT EXISTS ..." (as the shell does).
std::string schema_line(const std::string& sql) {
    if (sql.size() > 13 && sql.compare(0, 13, "CREATE TABLE ") == 0 && (sql[13] == '"' || sql[13] == '\''))
        return "CREATE TABLE IF NOT EXISTS " + sql.substr(13);
    return sql;
}

int Shell::meta_schema(const std::vector<std::string>& a) {
    std::vector<std::vector<std::string>> rows;
    std::string q = "SELECT sql, type, name FROM sqlite_schema WHERE sql NOTNULL";
    std::vector<std::string> binds;
    if (a.size() > 1) {
        q += " AND (name LIKE ?1 OR tbl_name LIKE ?1)";
        binds.push_back(a[1]);
    }
    q += " ORDER BY rowid";
    if (!query_strings(q, rows, binds)) return 1;
    for (const auto& r : rows) {
        std::string s = schema_line(r[0]);
        if (r[1] == "view") {
            std::vector<std::vector<std::string>> cols;
            if (query_strings("SELECT name FROM pragma_table_info(?1)", cols, {r[2]}) && !cols.empty()) {
                s += "\n/* " + (plain_identifier(r[2]) ? r[2] : quote_ident(r[2])) + "(";
                for (size_t i = 0; i < cols.size(); ++i) {
                    if (i) s += ",";
                    s += plain_identifier(cols[i][0]) ? cols[i][0] : quote_ident(cols[i][0]);
                }
                s += ") */";
            }
        }
        put(s + ";\n");
    }
    return 0;
}

int Shell::meta_dump(const std::vector<std::string>& a) {
    const auto& api = sq();
    put("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n");
    std::vector<std::vector<std::string>> tables;
    std::string q = "SELECT name, sql FROM sqlite_schema WHERE type='table' AND sql NOTNULL";
    std::vector<std::string> binds;
    if (a.size() > 1) {
        q += " AND tbl_name LIKE ?1";
        binds.push_back(a[1]);
    }
    q += " ORDER BY tbl_name='sqlite_sequence', rowid";
    if (!query_strings(q, tables, binds)) return 1;
    for (const auto& t : tables) {
        const std::string& name = t[0];
        if (name == "sqlite_sequence") {
            put("DELETE FROM sqlite_sequence;\n");
        } else if (name.rfind("sqlite_stat", 0) == 0) {
            put("ANALYZE sqlite_schema;\n");
        } else if (name.rfind("sqlite_", 0) == 0) {
            continue;
        } else {
            put(schema_line(t[1]) + ";\n");
        }
        const std::string qn = plain_identifier(name) ? name : quote_ident(name);
        sqlite3_stmt* st = nullptr;
        if (api.sqlite3_prepare_v2(db_, ("SELECT * FROM " + quote_ident(name)).c_str(), -1, &st, nullptr) != SQLITE_OK)
            continue;
        const int n = api.sqlite3_column_count(st);
        while (api.sqlite3_step(st) == SQLITE_ROW) {
            if (ctx_.cancelled()) break;
            std::string o = "INSERT INTO " + qn + " VALUES(";
            for (int i = 0; i < n; ++i) {
                if (i) o += ",";
                if (api.sqlite3_column_type(st, i) == SQLITE_TEXT) {
                    bool nul;
                    const std::string v = value_text(st, i, nul);
                    const bool nl = v.find('\n') != std::string::npos, cr = v.find('\r') != std::string::npos;
                    std::string lit;
                    for (char c : v) {
                        if (c == '\'') lit += "''";
                        else if (c == '\n') lit += "\\n";
                        else if (c == '\r') lit += "\\r";
                        else lit += c;
                    }
                    lit = "'" + lit + "'";
                    if (nl) lit = "replace(" + lit + ",'\\n',char(10))";
                    if (cr) lit = "replace(" + lit + ",'\\r',char(13))";
                    o += lit;
                } else {
                    o += quoted_value(st, i);
                }
            }
            put(o + ");\n");
        }
        api.sqlite3_finalize(st);
    }
    std::vector<std::vector<std::string>> rest;
    q = "SELECT sql FROM sqlite_schema WHERE sql NOTNULL AND type IN ('index','trigger','view')";
    if (a.size() > 1) q += " AND tbl_name LIKE ?1";
    q += " ORDER BY rowid";
    if (!query_strings(q, rest, binds)) return 1;
    for (const auto& r : rest) put(r[0] + ";\n");
    put("COMMIT;\n");
    return 0;
}

int Shell::meta_import(const std::vector<std::string>& a) {
    const auto& api = sq();
    std::string file, table;
    bool csv = mode_ == Mode::csv;
    bool ascii = mode_ == Mode::ascii;
    long skip = 0;
    std::string schema;
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& w = a[i];
        if (w == "--csv") csv = true, ascii = false;
        else if (w == "--ascii") ascii = true, csv = false;
        else if (w == "--skip" && i + 1 < a.size()) skip = std::atol(a[++i].c_str());
        else if (w == "--schema" && i + 1 < a.size()) schema = a[++i];
        else if (w == "-v") continue;
        else if (!w.empty() && w[0] == '-' && w.size() > 1) {
            errline("ERROR: unknown option: \"" + w + "\".  Usage:");
            errline(".import FILE TABLE");
            return 1;
        } else if (file.empty()) file = w;
        else if (table.empty()) table = w;
        else {
            errline("ERROR: extra argument: \"" + w + "\".  Usage:");
            errline(".import FILE TABLE");
            return 1;
        }
    }
    if (table.empty()) {
        errline("ERROR: missing " + std::string(file.empty() ? "FILE" : "TABLE") + " argument. Usage:");
        errline(".import FILE TABLE");
        return 1;
    }
    char colsep, rowsep;
    if (csv) {
        colsep = ',';
        rowsep = '\n';
    } else if (ascii) {
        colsep = '\x1f';
        rowsep = '\x1e';
    } else {
        if (colsep_.size() != 1) {
            errline("Error: non-null column separator required for import");
            return 1;
        }
        std::string rs = rowsep_ == "\r\n" ? "\n" : rowsep_;
        if (rs.size() != 1) {
            errline("Error: multi-character row separators not allowed for import");
            return 1;
        }
        colsep = colsep_[0];
        rowsep = rs[0];
        csv = true;  // the CSV reader with the mode's separators
    }
    std::string data;
    {
        text::Input in;
        if (in.open_input(ctx_, file) != vfs::Errc::ok) {
            errline("Error: cannot open \"" + file + "\"");
            return 1;
        }
        if (text::read_all(ctx_, in, data) != vfs::Errc::ok) {
            errline("Error: cannot open \"" + file + "\"");
            return 1;
        }
    }
    interp::MemoryCharge held(ctx_.memory);
    held.add(data.size() * 2);
    // Records of fields, with the line each record starts on.
    struct Rec {
        std::vector<std::string> f;
        int line;
    };
    size_t i = 0;
    int line = 1;
    auto read_record = [&](Rec& r) -> bool {
        r.f.clear();
        r.line = line;
        if (i >= data.size()) return false;
        for (;;) {
            std::string f;
            if (csv && i < data.size() && data[i] == '"') {
                ++i;
                for (;;) {
                    if (i >= data.size()) break;
                    if (data[i] == '"') {
                        if (i + 1 < data.size() && data[i + 1] == '"') {
                            f += '"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    if (data[i] == '\n') ++line;
                    f += data[i++];
                }
                while (i < data.size() && data[i] != colsep && data[i] != rowsep) f += data[i++];
            } else {
                while (i < data.size() && data[i] != colsep && data[i] != rowsep) f += data[i++];
                if (csv && rowsep == '\n' && !f.empty() && f.back() == '\r' &&
                    (i >= data.size() || data[i] == '\n'))
                    f.pop_back();
            }
            r.f.push_back(std::move(f));
            if (i >= data.size()) return true;
            if (data[i] == colsep) {
                ++i;
                continue;
            }
            ++i;  // rowsep
            if (rowsep == '\n') ++line;
            return true;
        }
    };
    const std::string qtable = (schema.empty() ? "" : quote_ident(schema) + ".") + quote_ident(table);
    Rec rec;
    while (skip > 0 && read_record(rec)) --skip;
    std::vector<std::vector<std::string>> exists;
    query_strings("SELECT 1 FROM " + (schema.empty() ? std::string("") : quote_ident(schema) + ".") +
                      "sqlite_schema WHERE name=?1 AND type IN ('table','view')",
                  exists, {table});
    if (exists.empty()) {
        if (!read_record(rec)) {
            errline(file + ": empty file");
            return 1;
        }
        std::string create = "CREATE TABLE " + qtable + "(";
        for (size_t k = 0; k < rec.f.size(); ++k) {
            create += k ? ", " : "\n";
            create += quote_ident(rec.f[k]) + " TEXT";
        }
        create += ")";
        char* em = nullptr;
        if (api.sqlite3_exec(db_, create.c_str(), nullptr, nullptr, &em) != SQLITE_OK) {
            errline("CREATE TABLE " + qtable + "(...) failed: " + (em ? em : ""));
            api.sqlite3_free(em);
            return 1;
        }
    }
    std::vector<std::vector<std::string>> cols;
    query_strings("SELECT count(*) FROM pragma_table_info(?1" + std::string(schema.empty() ? "" : ",?2") + ")",
                  cols, schema.empty() ? std::vector<std::string>{table} : std::vector<std::string>{table, schema});
    const int ncol = cols.empty() ? 0 : std::atoi(cols[0][0].c_str());
    if (ncol == 0) {
        errline("Error: no such table: " + table);
        return 1;
    }
    std::string ins = "INSERT INTO " + qtable + " VALUES(?";
    for (int k = 1; k < ncol; ++k) ins += ",?";
    ins += ")";
    sqlite3_stmt* st = nullptr;
    if (api.sqlite3_prepare_v2(db_, ins.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        errline(std::string("Error: ") + api.sqlite3_errmsg(db_));
        return 1;
    }
    const bool autocommit = api.sqlite3_get_autocommit(db_) != 0;
    if (autocommit) api.sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
    int status = 0;
    while (read_record(rec)) {
        if (ctx_.cancelled()) {
            status = 1;
            break;
        }
        if (rec.f.size() == 1 && rec.f[0].empty() && i >= data.size()) break;
        const int got = static_cast<int>(rec.f.size());
        if (got < ncol)
            errline(file + ":" + std::to_string(rec.line) + ": expected " + std::to_string(ncol) +
                    " columns but found " + std::to_string(got) + " - filling the rest with NULL");
        else if (got > ncol)
            errline(file + ":" + std::to_string(rec.line) + ": expected " + std::to_string(ncol) +
                    " columns but found " + std::to_string(got) + " - extras ignored");
        for (int k = 0; k < ncol; ++k) {
            if (k < got)
                api.sqlite3_bind_text(st, k + 1, rec.f[k].c_str(), static_cast<int>(rec.f[k].size()), SQLITE_TRANSIENT);
            else
                api.sqlite3_bind_null(st, k + 1);
        }
        api.sqlite3_step(st);
        if (api.sqlite3_reset(st) != SQLITE_OK) {
            errline(file + ":" + std::to_string(rec.line) + ": INSERT failed: " + api.sqlite3_errmsg(db_));
        }
    }
    api.sqlite3_finalize(st);
    if (autocommit) api.sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    return status;
}

// ---------------------------------------------------------------------------------------------------------
// main

constexpr std::string_view kHelp =
    "Usage: sqlite3 [OPTIONS] FILENAME [SQL]\n"
    "FILENAME is the name of an SQLite database. A new database is created\n"
    "if the file does not previously exist.\n"
    "OPTIONS include:\n"
    "   -ascii               set output mode to 'ascii'\n"
    "   -bail                stop after hitting an error\n"
    "   -batch               force batch I/O\n"
    "   -box                 set output mode to 'box'\n"
    "   -column              set output mode to 'column'\n"
    "   -cmd COMMAND         run \"COMMAND\" before reading stdin\n"
    "   -csv                 set output mode to 'csv'\n"
    "   -echo                print inputs before execution\n"
    "   -[no]header          turn headers on or off\n"
    "   -help                show this message\n"
    "   -html                set output mode to HTML\n"
    "   -json                set output mode to 'json'\n"
    "   -line                set output mode to 'line'\n"
    "   -list                set output mode to 'list'\n"
    "   -markdown            set output mode to 'markdown'\n"
    "   -newline SEP         set output row separator. Default: '\\n'\n"
    "   -nullvalue TEXT      set text string for NULL values. Default ''\n"
    "   -quote               set output mode to 'quote'\n"
    "   -readonly            open the database read-only\n"
    "   -separator SEP       set output column separator. Default: '|'\n"
    "   -table               set output mode to 'table'\n"
    "   -tabs                set output mode to 'tabs'\n"
    "   -version             show SQLite version\n";

int Shell::main() {
    const auto& argv = ctx_.argv;
    std::vector<std::string> cmds, pre;
    bool have_name = false;
    for (size_t i = 1; i < argv.size(); ++i) {
        std::string z = argv[i];
        if (z.size() < 2 || z[0] != '-') {
            if (!have_name) {
                db_name_ = z;
                have_name = true;
            } else {
                cmds.push_back(z);
            }
            continue;
        }
        if (z[1] == '-') z.erase(0, 1);
        auto need = [&]() -> const std::string* {
            if (i + 1 >= argv.size()) {
                errline("sqlite3: Error: missing argument to " + argv[i]);
                return nullptr;
            }
            return &argv[++i];
        };
        bool mode_set = false;
        for (const auto& m : kModes)
            if (z.substr(1) == m.name && m.name != "lines" && m.name != "columns") {
                set_mode(m.mode, false);
                mode_set = true;
            }
        if (mode_set) continue;
        if (z == "-header" || z == "-headers") header_ = true, header_set_ = true;
        else if (z == "-noheader" || z == "-noheaders") header_ = false, header_set_ = true;
        else if (z == "-bail") bail_ = true;
        else if (z == "-echo") echo_ = true;
        else if (z == "-readonly") readonly_ = true;
        else if (z == "-batch" || z == "-interactive" || z == "-nofollow" || z == "-safe") continue;
        else if (z == "-separator") {
            const std::string* v = need();
            if (!v) return 1;
            colsep_ = unescape_sep(*v);
        } else if (z == "-newline") {
            const std::string* v = need();
            if (!v) return 1;
            rowsep_ = unescape_sep(*v);
        } else if (z == "-nullvalue") {
            const std::string* v = need();
            if (!v) return 1;
            nullvalue_ = unescape_sep(*v);
        } else if (z == "-cmd") {
            const std::string* v = need();
            if (!v) return 1;
            pre.push_back(*v);
        } else if (z == "-version") {
            put(std::string(sq().sqlite3_libversion()) + " " + sq().sqlite3_sourceid() + "\n");
            return out_->status(0);
        } else if (z == "-help") {
            (void)ctx_.err.write(kHelp);
            return 1;
        } else {
            errline("sqlite3: Error: unknown option: " + argv[i]);
            errline("Use -help for a list of options.");
            return 1;
        }
    }
    auto run_one = [&](const std::string& c) -> int {
        if (!c.empty() && c[0] == '.') {
            const int rc = meta(c);
            return rc == 2 ? -2 : rc;
        }
        return run_sql_line(c, 0, false);
    };
    for (const auto& c : pre) {
        const int rc = run_one(c);
        if (rc == -2) return out_->status(exit_code_ < 0 ? 0 : exit_code_);
        if (rc && bail_) return out_->status(rc);
    }
    if (!cmds.empty()) {
        for (const auto& c : cmds) {
            const int rc = run_one(c);
            if (rc == -2) return out_->status(exit_code_ < 0 ? 0 : exit_code_);
            if (rc) return out_->status(rc);
        }
        if (!open_db()) return out_->status(1);
        return out_->status(0);
    }
    const int rc = process_input(ctx_.in, "stdin");
    if (!opened_ && !open_db()) return out_->status(1);
    return out_->status(rc);
}

}  // namespace

int cmd_sqlite3(CommandContext& ctx) {
    if (!need_sqlite(ctx)) return 1;
    Shell shell(ctx);
    return shell.main();
}

}  // namespace bashkit::utils::sqlite

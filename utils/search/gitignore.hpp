// .gitignore-style globs, for rg's ignore files (.gitignore, .ignore, .rgignore) and its -g globs.
//
// Supported: blank lines and `#` comments; `\#` `\!` and `\ ` escapes; trailing spaces dropped; `!` negation
// (re-includes what an earlier line excluded); a trailing `/` matches directories only; a pattern with a
// `/` at its start or in its middle is anchored to the directory of the ignore file, one without matches
// the name at any depth; `*` `?` `[...]` (with `!` or `^` negation) never match `/`; `**/` at the start,
// `/**` at the end and `/**/` in the middle match any number of directories. The last matching line wins.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace bashkit::utils::search {

enum class IgnoreMatch { kNone, kIgnore, kWhitelist };

class GlobList {
public:
    GlobList();
    GlobList(GlobList&&) noexcept;
    GlobList& operator=(GlobList&&) noexcept;
    ~GlobList();

    // Adds one line of an ignore file (or one -g glob: then `!` means exclude and no `!` include, which
    // the caller expresses with `invert`). Comments and blank lines are skipped.
    void add_line(std::string_view line, bool case_insensitive = false);
    // Parses a whole ignore file.
    void add_file(std::string_view text);
    // `path` is relative to the directory the globs belong to (no leading "./" or "/").
    IgnoreMatch match(std::string_view path, bool is_dir) const;
    bool empty() const { return rules_.empty(); }
    // Whether some rule is a positive (not negated) one.
    bool has_positive() const;

private:
    struct Rule {
        std::unique_ptr<re2::RE2> re;
        bool negate = false;
        bool dir_only = false;
        bool basename = false;  // matches the last component only
    };
    std::vector<Rule> rules_;
};

// The regex source for one glob (exposed for tests).
std::string glob_to_regex(std::string_view glob);

}  // namespace bashkit::utils::search

// Writes every parser table case's script as one file: the seed corpus for the parser fuzzer.
//
//   dump_corpus OUTPUT_DIR [CASES_DIR]
//
// CASES_DIR defaults to BASHKIT_SOURCE_DIR/tests/syntax/cases when the macro is defined. Each file is named
// after its test (<file>_<case>) and holds exactly the case's script.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/syntax/case_file.hpp"

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s OUTPUT_DIR [CASES_DIR]\n", argv[0]);
        return 2;
    }
    std::filesystem::path out_dir = argv[1];
    std::filesystem::path cases_dir;
    if (argc == 3) {
        cases_dir = argv[2];
    } else {
#ifdef BASHKIT_SOURCE_DIR
        cases_dir = std::filesystem::path(BASHKIT_SOURCE_DIR) / "tests/syntax/cases";
#else
        std::fprintf(stderr, "%s: no CASES_DIR given and BASHKIT_SOURCE_DIR is not defined\n", argv[0]);
        return 2;
#endif
    }
    bashkit::testing::SyntaxCaseSet set = bashkit::testing::load_syntax_cases(cases_dir);
    for (const std::string& p : set.problems) std::fprintf(stderr, "%s\n", p.c_str());
    if (set.cases.empty()) {
        std::fprintf(stderr, "%s: no cases found in %s\n", argv[0], cases_dir.string().c_str());
        return 1;
    }
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
        std::fprintf(stderr, "%s: %s: %s\n", argv[0], out_dir.string().c_str(), ec.message().c_str());
        return 1;
    }
    for (const bashkit::testing::SyntaxCase& c : set.cases) {
        std::filesystem::path file = out_dir / bashkit::testing::syntax_case_id(c);
        std::ofstream os(file, std::ios::binary | std::ios::trunc);
        os.write(c.script.data(), static_cast<std::streamsize>(c.script.size()));
        if (!os) {
            std::fprintf(stderr, "%s: cannot write %s\n", argv[0], file.string().c_str());
            return 1;
        }
    }
    std::printf("%zu cases written to %s\n", set.cases.size(), out_dir.string().c_str());
    return set.problems.empty() ? 0 : 1;
}

#include "utils/data/data.hpp"

#include "utils/data/tools.hpp"

namespace bashkit::utils {

void register_data_utils(interp::CommandRegistry& registry) {
    struct Entry {
        const char* name;
        const char* help;
        interp::CommandFn fn;
    };
    const Entry entries[] = {
        {"base64", "base64 [-d] [-i] [-w COLS] [FILE] : base64 encode or decode", data::cmd_base64},
        {"basenc", "basenc --base64|--base64url|--base32|--base32hex|--base16|--base2msbf|--base2lsbf|--z85 [-d] [-i] [-w COLS] [FILE] : encode or decode in one of RFC 4648's encodings, bit strings or Z85", data::cmd_basenc},
        {"base32", "base32 [-d] [-i] [-w COLS] [FILE] : base32 encode or decode", data::cmd_base32},
        {"iconv", "iconv [-cs] [-f FROM] [-t TO[//TRANSLIT|//IGNORE]] [-o FILE] [FILE]... : convert text between character encodings (glibc's converters)", data::cmd_iconv},
        {"md5sum", "md5sum [-bctwz] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : MD5 checksums", data::cmd_md5sum},
        {"sha1sum", "sha1sum [-bctwz] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : SHA-1 checksums", data::cmd_sha1sum},
        {"sha224sum", "sha224sum [-bctwz] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : SHA-224 checksums", data::cmd_sha224sum},
        {"sha256sum", "sha256sum [-bctwz] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : SHA-256 checksums", data::cmd_sha256sum},
        {"sha384sum", "sha384sum [-bctwz] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : SHA-384 checksums", data::cmd_sha384sum},
        {"sha512sum", "sha512sum [-bctwz] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : SHA-512 checksums", data::cmd_sha512sum},
        {"b2sum", "b2sum [-bctwz] [-l BITS] [--tag] [--quiet|--status] [--strict] [--ignore-missing] [FILE]... : BLAKE2b checksums", data::cmd_b2sum},
        {"cksum", "cksum [FILE]... : POSIX CRC checksum and byte count", data::cmd_cksum},
        {"expr", "expr EXPRESSION : evaluate an expression (| & < <= = != >= > + - * / % : match substr index length)", data::cmd_expr},
        {"bc", "bc [-lqsw] [FILE]... : arbitrary-precision calculator", data::cmd_bc},
        {"factor", "factor [NUMBER]... : print the prime factors of numbers below 2^128", data::cmd_factor},
        {"shasum", "shasum [-bctUqsw] [-a 1|224|256|384|512|512224|512256] [--tag] [--strict] [--ignore-missing] [FILE]... : SHA checksums (Perl's shasum)", data::cmd_shasum},
        {"sum", "sum [-r|-s] [FILE]... : BSD or System V 16-bit checksums and block counts", data::cmd_sum},
        {"numfmt", "numfmt [--from=UNIT] [--to=UNIT] [--format=FMT] [--field=FIELDS] [OPTION]... [NUMBER]... : convert numbers to and from human-readable strings", data::cmd_numfmt},
        {"tsort", "tsort [FILE] : topological sort of the pairs in FILE", data::cmd_tsort},
    };
    for (const auto& e : entries) registry.add(e.name, e.help, e.fn);
}

}  // namespace bashkit::utils

#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the existing case tables.

    fuzz/seeds.py OUT_DIR [MAX_PER_TARGET]

OUT_DIR/<target>/ gets one file per seed in the target's input format (see each fuzz/<target>_fuzzer.cpp):
the C++ tables of tests/interp (arithmetic, patterns, regexes, printf) give structured seeds, the text tables
(tests/*/cases/*.txt) give scripts for the evaluator and the snapshot targets and programs for jq, and the
network tests give URLs and allow-list entries; fuzz/corpus/<target>/ adds small committed seeds. Seeds are named by content hash, so rerunning is idempotent
and adds nothing to a corpus that already has them. At most MAX_PER_TARGET (default 300) per target, picked
deterministically (a third of it for the script targets), so that loading the seeds stays a small part of the fuzzing budget.
"""
import hashlib
import os
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def c_unescape(body):
    """The bytes of a C string literal's body."""
    out = bytearray()
    i = 0
    simple = {'n': 10, 't': 9, 'r': 13, 'a': 7, 'b': 8, 'f': 12, 'v': 11, 'e': 27, '\\': 92, '"': 34,
              "'": 39, '?': 63}
    while i < len(body):
        c = body[i]
        if c != '\\' or i + 1 == len(body):
            out += c.encode()
            i += 1
            continue
        d = body[i + 1]
        if d in simple:
            out.append(simple[d])
            i += 2
        elif d == 'x':
            m = re.match(r'[0-9a-fA-F]+', body[i + 2:])
            out.append(int(m.group(0), 16) & 0xff if m else 0)
            i += 2 + (len(m.group(0)) if m else 0)
        elif d in '01234567':
            m = re.match(r'[0-7]{1,3}', body[i + 1:])
            out.append(int(m.group(0), 8) & 0xff)
            i += 1 + len(m.group(0))
        else:
            out += d.encode()
            i += 2
    return bytes(out)


TOKEN = re.compile(r'R"([^(]*)\((.*?)\)\1"|"((?:[^"\\]|\\.)*)"|([{}])', re.S)


def table_rows(path, vector=None):
    """(vector name, nested list of literals) for each `    {...},` row of a C++ table file."""
    current = None
    rows = []
    for line in path.read_text(errors='replace').splitlines():
        m = re.match(r'\s*(?:static )?const .*?\b(k\w+|cases)\b', line)
        if m:
            current = m.group(1)
        if not line.startswith('    {'):
            continue
        if vector and current != vector:
            continue
        stack = [[]]
        for t in TOKEN.finditer(line):
            if t.group(4) == '{':
                stack.append([])
            elif t.group(4) == '}':
                if len(stack) > 1:
                    top = stack.pop()
                    stack[-1].append(top)
            elif t.group(3) is not None:
                stack[-1].append(c_unescape(t.group(3)))
            else:
                stack[-1].append(t.group(2).encode())
        row = stack[0][0] if stack[0] and isinstance(stack[0][0], list) else None
        if row:
            rows.append((current, row))
    return rows


def strings(row):
    return [x for x in row if isinstance(x, bytes)]


def case_scripts(paths):
    """The script of each case of the text tables (=== name, the script, --- sections)."""
    for path in paths:
        script = None
        for line in path.read_text(errors='replace').splitlines(keepends=True):
            if line.startswith('=== '):
                script = []
            elif line.startswith('--- '):
                if script:
                    yield ''.join(script).encode()
                script = None
            elif script is not None:
                script.append(line)


def case_files(paths):
    """(script, {name: content}) of each case of the text tables (`--- file NAME` sections give the files)."""
    for path in paths:
        cur = None
        section = None
        for line in path.read_text(errors='replace').splitlines(keepends=True):
            if line.startswith('=== '):
                if cur:
                    yield cur[0], cur[1]
                cur = ('', {})
                section = 'script'
            elif line.startswith('--- ') and cur is not None:
                words = line.split()
                section = words[2] if len(words) > 2 and words[1] == 'file' else None
                if section:
                    cur[1][section] = ''
            elif cur is not None and section == 'script':
                cur = (cur[0] + line, cur[1])
            elif cur is not None and section:
                cur[1][section] += line
        if cur:
            yield cur[0], cur[1]


def archive_seeds():
    """Small archives, ordinary and hostile, made with Python's tarfile, zipfile and gzip."""
    import gzip
    import io
    import tarfile
    import zipfile

    def tar(members, compress=''):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w:' + compress, format=tarfile.GNU_FORMAT) as t:
            for name, kind, data in members:
                info = tarfile.TarInfo(name)
                info.mtime = 1700000000
                if kind == 'file':
                    info.size = len(data)
                    t.addfile(info, io.BytesIO(data))
                    continue
                if kind == 'dir':
                    info.type = tarfile.DIRTYPE
                elif kind == 'sym':
                    info.type, info.linkname = tarfile.SYMTYPE, data.decode()
                elif kind == 'hard':
                    info.type, info.linkname = tarfile.LNKTYPE, data.decode()
                elif kind == 'fifo':
                    info.type = tarfile.FIFOTYPE
                t.addfile(info)
        data = buf.getvalue()
        if not compress:  # the end: two zero blocks, without tarfile's padding to 10 KiB
            data = data.rstrip(b'\0')
            data += bytes(-len(data) % 512 + 1024)
        return data

    def zipped(members):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
            for name, data in members:
                info = zipfile.ZipInfo(name, (2023, 11, 14, 22, 13, 20))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
        return buf.getvalue()

    plain = [('d', 'dir', b''), ('d/a.txt', 'file', b'hello\n'), ('d/l', 'sym', b'a.txt'), ('d/h', 'hard', b'd/a.txt')]
    hostile = [
        [('../escape', 'file', b'x')],
        [('/abs/file', 'file', b'x'), ('a/../../b', 'file', b'x')],
        [('s', 'sym', b'/'), ('s/outside/secret', 'file', b'pwned')],
        [('s', 'sym', b'../outside'), ('s/new', 'file', b'pwned')],
        [('up/secret', 'file', b'pwned'), ('rel/new', 'file', b'pwned')],
        [('h', 'hard', b'../outside/secret'), ('h2', 'hard', b'/outside/secret')],
        [('a', 'sym', b'up/..'), ('a/outside/secret', 'file', b'pwned')],
        [('c', 'sym', b'b/..'), ('b', 'sym', b'.'), ('c/outside/new', 'file', b'pwned')],
        [('f', 'fifo', b''), ('d', 'dir', b''), ('d', 'file', b'replace a dir')],
        [('big', 'file', b'x' * 2000)],
    ]
    out = [bytes([0]) + tar(plain), bytes([1]) + tar(plain, 'gz'), bytes([4]) + tar(plain, 'gz'),
           bytes([5]) + tar(plain), bytes([0]) + tar(plain, 'bz2'), bytes([0]) + tar(plain, 'xz')]
    out += [bytes([0]) + tar(h) for h in hostile]
    out.append(bytes([1]) + tar([('zeros', 'file', bytes(12 << 20))], 'gz'))  # expands past the 8 MiB limit
    z = zipped([('a.txt', b'hello\n'), ('d/', b''), ('d/b.txt', b'b' * 100)])
    out += [bytes([2]) + z, bytes([6]) + z]
    out += [bytes([2]) + zipped([('../escape', b'x'), ('/abs', b'x'), ('up/secret', b'pwned')])]
    out.append(bytes([2]) + zipped([('zeros', bytes(12 << 20))]))
    gz = gzip.compress(b'hello\n' * 10, mtime=0)
    out += [bytes([3]) + gz, bytes([7]) + gz, bytes([3]) + gz + gz, bytes([3]) + gz[:-4]]
    return out


VFS_SEEDS = [
    b'w /f hello\nr /f\np /f\ne /\n',
    b'M /a/b/c\ns /a/b /l\nw /l/c/x data\np /l/c/x\nR /a\ne /\n',
    b'r /host/a\nw /host/new x\nr /host/esc/secret\nr /host/abs/secret\nr /host/abs-secret\nk /host/abs\n',
    b'w /host/hard x\nc /host/hard 777\nt /host/hard 0\nU /host/hard\nv /host/hard /host/moved\nu /host/moved\n',
    b's /host/esc /host/l2\nw /host/l2/secret pwned\ns ../../.. /host/d/up\nr /host/d/up/outside/secret\n',
    b'v /lower/a /lower/b\nu /lower/esc\ne /lower\nm /lower/d\nR /lower\nM /lower/d/e\ne /lower\n',
    b'r /lower/d/up\np /lower/esc\np /lower/d/up\no /lower/a 3\no /lower/a 7\n',
    b'n /m\nw /m/f x\nv /m/f /g\nl /m/f /m/h\nN /m\nr /m/f\nn /host/d ro\nw /host/d/f x\n',
    b'w /ro/f x\nu /ro/f\nv /ro /r2\nN /ro\nN /\nR /\ne /\n',
    b'o /host/new 22\no /host/abs 22\no /host/esc/x 22\no /host/abs-secret 70\nh /host/a 0\n',
    b'M /host/d/e/f\ns /host/d /host/d/e/f/loop\np /host/d/e/f/loop/e/f/loop/e\nR /host/d\n',
    b'w /.wh.x x\nw /lower/.wh.a x\ne /lower\nm /.wh..wh..opq\n',
]


SERVE_SEEDS = [
    b'POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 2\r\n\r\n{}'
    b'\0POST /v1/sessions/@ID/exec HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Type: application/json\r\n'
    b'Content-Length: 40\r\n\r\n{"command": "echo hi", "timeout_seconds": 1}'
    b'\0GET /v1/sessions/@ID HTTP/1.1\r\nAuthorization: Bearer @TOK\r\n\r\n',
    b'POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 63\r\n\r\n'
    b'{"name": "n", "ttl_seconds": 60, "idle_timeout_seconds": 5, "network": "none"}'
    b'\0PUT /v1/sessions/@ID/files?path=/tmp/a HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 5\r\n\r\nhello'
    b'\0GET /v1/sessions/@ID/files?path=/tmp/a HTTP/1.1\r\nAuthorization: Bearer @TOK\r\n\r\n'
    b'\0GET /v1/sessions/@ID/list?path=/&recursive=1&max_entries=10 HTTP/1.1\r\nAuthorization: Bearer @TOK\r\n\r\n'
    b'\0DELETE /v1/sessions/@ID HTTP/1.1\r\nAuthorization: Bearer @TOK\r\n\r\n',
    b'POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 2\r\n\r\n{}'
    b'\0POST /v1/sessions/@ID/processes HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 21\r\n\r\n{"command": "cat -n"}'
    b'\0POST /v1/sessions/@ID/processes/1/input HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 37\r\n\r\n'
    b'{"input": "a\\nb\\n", "close_stdin": true}'
    b'\0POST /v1/sessions/@ID/processes/1/read HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 0\r\n\r\n'
    b'\0POST /v1/sessions/@ID/processes/1/kill HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 0\r\n\r\n',
    b'POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nContent-Length: 120\r\n\r\n'
    b'{"egress": {"kind": "custom", "allow": ["example.com"]}, "header_bindings": [{"type": "GitHubBinding", "repos": "all"}]}',
    b'POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer wrong\r\nContent-Length: 2\r\n\r\n{}'
    b'\0GET /v1/nowhere HTTP/1.1\r\n\r\n\0POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer @TOK\r\n'
    b'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\n{x}',
    b'POST /v1/sessions HTTP/1.1\r\nAuthorization: Bearer @TOK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'
    b'GET /v1/sessions/@ID HTTP/1.1\r\nAuthorization: Bearer @TOK\r\n\r\n',
]


def main():
    out = Path(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seeds = {}

    def add(target, data):
        seeds.setdefault(target, {})[hashlib.sha1(data).hexdigest()[:16]] = data

    tests = ROOT / 'tests'
    interp_scripts = list(case_scripts(sorted((tests / 'interp/cases').glob('*.txt'))))
    other_scripts = list(case_scripts(sorted(tests.glob('utils_*/cases/*.txt'))))

    for _, row in table_rows(tests / 'interp/arith_test.cpp'):
        s = strings(row)
        if s:
            add('arith', s[0])
    for script in interp_scripts:
        for m in re.finditer(rb'\$?\(\((.*?)\)\)', script):
            add('arith', m.group(1))
    add('arith', b'a+b*c\0' b'b+1\0' b'3\0' b'c=7')

    for vec, row in table_rows(tests / 'interp/pattern_test.cpp'):
        s = strings(row)
        if len(s) < 2:
            continue
        flags = 0
        if vec in ('kGlob', 'kPathname') and len(s) > 2:
            flags = sum(bit for ch, bit in ((b'x', 1), (b'i', 2), (b'p', 4), (b'd', 8)) if ch in s[2])
        if vec == 'kPathname':
            flags |= 4
        add('glob', bytes([flags]) + b'\0' + s[0] + b'\0' + s[1])

    regex_flags = {'kEre': 0, 'kGnuEre': 4, 'kBre': 1, 'kBreDialect': 1, 'kErrors': 0}
    for vec, row in table_rows(tests / 'interp/regex_test.cpp'):
        s = strings(row)
        if s:
            add('regex', bytes([regex_flags.get(vec, 0)]) + b'\0' + s[0] + b'\0' + (s[1] if len(s) > 1 else b''))

    for _, row in table_rows(tests / 'interp/printf_test.cpp'):
        if not row or not isinstance(row[0], bytes):
            continue
        args = row[1] if len(row) > 1 and isinstance(row[1], list) else []
        add('printf', b'\0'.join([b'\0' + row[0]] + [a for a in args if isinstance(a, bytes)]))

    jq_re = re.compile(rb"jq(?:\s+-[-\w]+(?:\s+\w+\s+'[^']*')?)*\s+'([^']*)'(?:.*?<<'?E'?\n(.*?)\nE\n)?", re.S)
    for script in case_scripts(sorted((tests / 'utils_jq/cases').glob('*.txt'))):
        for m in jq_re.finditer(script):
            add('jq', m.group(1) + b'\0' + (m.group(2) or b'null'))

    urls = set()
    entries = {b'api.github.com', b'example.com:8443', b'[2606:4700::1111]', b'127.0.0.1:8443'}
    for f in list((tests / 'net').glob('*.cpp')) + list((tests / 'utils_net').glob('*.cpp')):
        text = f.read_bytes()
        urls.update(re.findall(rb'https?://[^"\' \\$]+', text))
    for i, u in enumerate(sorted(urls)):
        nets = [b'10.0.0.0/8', b'::1', b'169.254.169.254', b'fd00::/8', b'2606:4700::1111']
        add('url', b','.join(sorted(entries)[: 1 + i % 4]) + b'\0' + u + b'\0/api\0' + nets[i % len(nets)])

    for script in interp_scripts:
        add('state', script)
    for script in interp_scripts + other_scripts:
        add('eval', script)

    awk_re = re.compile(r"(?:^|[|;&(]\s*)g?awk((?:\s+-[vF]\s*\S+|\s+-\w+)*)\s+'([^']*)'", re.M)
    for script, files in case_files(sorted((tests / 'utils_awk/cases').glob('*.txt'))):
        data = next(iter(files.values()), 'a b c\n1 2 3\nx:y:z\n\nlast line\n').encode()
        for m in awk_re.finditer(script):
            flags = (1 if '-F:' in m.group(1) else 0) | (2 if '-v' in m.group(1) else 0)
            add('awk', bytes([flags]) + b'\0' + m.group(2).encode() + b'\0' + data)
    sed_re = re.compile(r"(?:^|[|;&(]\s*)sed((?:\s+-[a-zA-Z]+)*)\s+(?:-e\s+)?'([^']*)'", re.M)
    for script, files in case_files(sorted((tests / 'utils_sed/cases').glob('*.txt'))):
        data = next(iter(files.values()), 'one\ntwo\nthree\nfour\n').encode()
        for m in sed_re.finditer(script):
            o = m.group(1)
            flags = sum(bit for ch, bit in (('E', 1), ('r', 1), ('n', 8), ('z', 16), ('s', 32)) if ch in o)
            add('sed', bytes([flags]) + b'\0' + m.group(2).encode() + b'\0' + data)
    for a in archive_seeds():
        add('archive', a)
    for v in VFS_SEEDS:
        add('vfs', v)
    for r in SERVE_SEEDS:
        add('serve', r)

    # Small committed seeds no table gives (a full snapshot for the state target).
    committed = {}
    for f in sorted((ROOT / 'fuzz/corpus').glob('*/*')):
        committed.setdefault(f.parent.name, {})[hashlib.sha1(f.read_bytes()).hexdigest()[:16]] = f.read_bytes()

    for target, found in sorted(seeds.items()):
        items = sorted(found.items())
        # A script seed runs a whole session (tens of ms under the sanitizers): fewer of them.
        cap = limit // 3 if target in ('eval', 'state') else limit // 8 if target in ('awk', 'sed') else limit
        if len(items) > cap:
            items = sorted(random.Random(target).sample(items, cap))
        items += sorted(committed.get(target, {}).items())
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        for name, data in items:
            p = d / ('seed-' + name)
            if not p.exists():
                p.write_bytes(data)
        print(f'{target}: {len(items)} seeds of {len(found)}')


if __name__ == '__main__':
    main()

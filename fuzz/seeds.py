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


def main():
    out = Path(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seeds = {}

    def add(target, data):
        seeds.setdefault(target, {})[hashlib.sha1(data).hexdigest()[:16]] = data

    tests = ROOT / 'tests'
    interp_scripts = list(case_scripts(sorted((tests / 'interp/cases').glob('*.txt'))))
    other_scripts = list(case_scripts(sorted(tests.glob('builtins_*/cases/*.txt'))))

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
    for script in case_scripts(sorted((tests / 'builtins_jq/cases').glob('*.txt'))):
        for m in jq_re.finditer(script):
            add('jq', m.group(1) + b'\0' + (m.group(2) or b'null'))

    urls = set()
    entries = {b'api.github.com', b'example.com:8443', b'[2606:4700::1111]', b'127.0.0.1:8443'}
    for f in list((tests / 'net').glob('*.cpp')) + list((tests / 'builtins_net').glob('*.cpp')):
        text = f.read_bytes()
        urls.update(re.findall(rb'https?://[^"\' \\$]+', text))
    for i, u in enumerate(sorted(urls)):
        nets = [b'10.0.0.0/8', b'::1', b'169.254.169.254', b'fd00::/8', b'2606:4700::1111']
        add('url', b','.join(sorted(entries)[: 1 + i % 4]) + b'\0' + u + b'\0/api\0' + nets[i % len(nets)])

    for script in interp_scripts:
        add('state', script)
    for script in interp_scripts + other_scripts:
        add('eval', script)

    # Small committed seeds no table gives (a full snapshot for the state target).
    committed = {}
    for f in sorted((ROOT / 'fuzz/corpus').glob('*/*')):
        committed.setdefault(f.parent.name, {})[hashlib.sha1(f.read_bytes()).hexdigest()[:16]] = f.read_bytes()

    for target, found in sorted(seeds.items()):
        items = sorted(found.items())
        # A script seed runs a whole session (tens of ms under the sanitizers): fewer of them.
        cap = limit // 3 if target in ('eval', 'state') else limit
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

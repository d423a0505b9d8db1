#!/usr/bin/env python3
"""Differential fuzzer: bash scripts of the kind an agent writes, run in /bin/bash and in bashkit.

    fuzz/difffuzz.py [--bashkit PATH] [--seconds N] [--seed N] [--out DIR] [--jobs N]

Each script is generated from a grammar (variables, expansions, quoting, arrays, associative arrays,
arithmetic, here-docs, loops, functions, redirections, conditionals, and common utilities over a small
fixture of files), then run twice from a fresh copy of the fixture: by `/bin/bash -c` (under `env -i`,
LC_ALL=C, umask 022) and by the bashkit CLI (`bashkit --mount DIR:/w --cwd /w -c`). Compared: stdout, the
first line of stderr (with the `bash: line N: ` prefix removed on both sides), the exit status, and the tree
the script leaves (paths, types, contents, symlink targets, permission bits). A difference is minimized by
removing top-level statements, then lines, while the same parts still differ and bash still parses the
script; each distinct minimized script is written to OUT/diff-NNN.txt (default build/difffuzz) with both
sides, and listed in OUT/summary.txt. The run is not part of CI (its time is not in scripts/fuzz's budget).

The grammar keeps scripts deterministic: no $RANDOM, dates, PIDs, $PWD, $HOME, `ls -l`, or the order of an
associative array's keys (always piped through sort).
"""
import argparse
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIXTURE = {
    'data.csv': 'name,age,city\nalice,31,paris\nbob,27,berlin\ncarol,45,paris\ndave,27,rome\n',
    'log.txt': 'INFO start\nWARN disk low\nINFO step 1\nERROR failed: x=1\nINFO step 2\nERROR failed: y=2\n',
    'notes.md': '# Title\n\nSome *text* here.\n- item one\n- item two\n\n## End\n',
    'numbers.txt': '5\n3\n10\n3\n-2\n7\n',
    'words.txt': 'apple banana\ncherry  apple\n\tdate banana apple\nEgg\n',
    'conf.json': '{"name": "demo", "version": 3, "tags": ["a", "b"], "deps": {"x": 1, "y": 2}}\n',
    'src/main.py': 'import sys\n\ndef main():\n    print("hi")\n',
    'src/util.py': 'def helper(x):\n    return x * 2\n',
    'src/README': 'source files\n',
    'empty.txt': '',
    'space name.txt': 'a file with spaces\n',
}
FILES = [f for f in FIXTURE if f != 'src/README'] + ['missing.txt']
DIRS = ['src', '.', 'out', 'nodir']


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.vars = ['x', 'name', 'n', 'msg', 'f']
        self.arrays = ['arr', 'list']
        self.depth = 0
        self.in_function = False

    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p):
        return self.r.random() < p

    # ---------------------------------------------------------------- words
    def literal(self):
        return self.pick(['hello', 'a b', 'foo.txt', 'x=1', '42', '-n', '', '*', 'a*b', 'it\'s', 'tab\there',
                          'path/to/file.tar.gz', 'UPPER lower', ' lead', 'trail ', 'a,b,c', '3.14', '007', '$x',
                          '\\n', 'é', '"q"', '[x]', '~', 'a\nb'])

    def quote(self, s):
        kind = self.r.randrange(4)
        if kind == 0:
            return "'" + s.replace("'", "'\\''") + "'"
        if kind == 1:
            return '"' + re.sub(r'(["\\$`])', r'\\\1', s) + '"'
        if kind == 2:
            return "$'" + s.replace('\\', '\\\\').replace("'", "\\'").replace('\n', '\\n').replace('\t', '\\t') + "'"
        if re.fullmatch(r'[A-Za-z0-9_.,/=+-]+', s):
            return s
        return "'" + s.replace("'", "'\\''") + "'"

    def pattern(self):
        return self.pick(['*.', '*/', '.*', 'a', '[ab]*', '?', '*a', 'o*', '[[:digit:]]', '*[0-9]', 'x', '/', '.',
                          '\\*', "'*'"])

    def var_expansion(self):
        v = self.pick(self.vars)
        forms = ['$' + v, '${' + v + '}', '${#' + v + '}', '${' + v + ':-default}', '${' + v + ':=set}',
                 '${' + v + '-unset}', '${' + v + ':+alt}', '${' + v + '#' + self.pattern() + '}',
                 '${' + v + '##' + self.pattern() + '}', '${' + v + '%' + self.pattern() + '}',
                 '${' + v + '%%' + self.pattern() + '}', '${' + v + '/' + self.pattern() + '/R}',
                 '${' + v + '//' + self.pattern() + '/_}', '${' + v + '^^}', '${' + v + ',,}', '${' + v + '^}',
                 '${' + v + ':1}', '${' + v + ':1:2}', '${' + v + ': -2}', '${' + v + '@Q}', '${!' + v + '}',
                 '${' + v + '/#a/A}', '${' + v + '/%?/Z}']
        return self.pick(forms)

    def array_expansion(self):
        a = self.pick(self.arrays)
        return self.pick(['${' + a + '[@]}', '${' + a + '[*]}', '${#' + a + '[@]}', '${!' + a + '[@]}',
                          '${' + a + '[0]}', '${' + a + '[-1]}', '${' + a + '[@]:1}', '${' + a + '[@]:1:1}',
                          '${' + a + '[@]/a/A}', '${' + a + '[@]^^}', '${' + a + '[1]:-none}',
                          '${' + a + '[@]#?}'])

    def word(self):
        k = self.r.randrange(10)
        if k == 0:
            return self.quote(self.literal())
        if k == 1:
            return '"' + self.var_expansion() + '"'
        if k == 2:
            return self.var_expansion()
        if k == 3:
            return '"' + self.array_expansion() + '"'
        if k == 4:
            return self.array_expansion()
        if k == 5:
            return '"$(' + self.simple_command(pipe_ok=True) + ')"'
        if k == 6:
            return '$((' + self.arith() + '))'
        if k == 7:
            return '"pre-${' + self.pick(self.vars) + '}-post"'
        if k == 8:
            return self.pick(['*.txt', 'src/*', '*.{txt,md}', '{a,b}{1,2}', '{1..4}', '{a..e..2}', '[dn]*',
                              '"*.txt"', '?????.txt', 'src/*.py'])
        return self.quote(self.literal())

    def words(self, lo=1, hi=3):
        return ' '.join(self.word() for _ in range(self.r.randint(lo, hi)))

    # ---------------------------------------------------------------- arithmetic
    def arith(self, d=0):
        if d > 2 or self.chance(0.3):
            return self.pick(['1', '2', '7', '0', '-3', 'n', 'i', 'n+1', '16#ff', '0x10', '010', '2#101',
                              '${#arr[@]}', 'arr[0]', '(RANDOM*0)', 'x'])
        op = self.pick(['+', '-', '*', '/', '%', '**', '<<', '>>', '&', '|', '^', '<', '<=', '==', '!=', '&&',
                        '||', ','])
        e = self.arith(d + 1) + ' ' + op + ' ' + self.arith(d + 1)
        if self.chance(0.15):
            e = '(' + e + ') ? ' + self.arith(d + 1) + ' : ' + self.arith(d + 1)
        if self.chance(0.1):
            e = self.pick(['n', 'i']) + self.pick(['+=', '-=', '*=', '=']) + '(' + e + ')'
        if self.chance(0.1):
            e = self.pick(['n++', '++n', 'i--', '!n', '~n', '-n']) + ' + ' + e
        return e

    # ---------------------------------------------------------------- commands
    def file(self):
        f = self.pick(FILES)
        return self.quote(f) if ' ' in f else f

    def utility(self):
        f = self.file()
        u = self.r.randrange(34)
        return [
            lambda: 'cat ' + f,
            lambda: 'cat -n ' + f,
            lambda: 'grep ' + self.pick(['-n', '-c', '-v', '-i', '-o', '-E', '-w', '-x', '-l', '-h', '-q', '']) +
                    ' ' + self.quote(self.pick(['a', 'ERROR', 'in?fo', '^I', '[0-9]+', 'apple|date', 'e$', '.'])) +
                    ' ' + self.pick([f, '*.txt', '-r src | sort', f + ' ' + self.file()]),
            lambda: 'sed ' + self.pick(["'s/a/A/'", "'s/a/A/g'", "-n '2p'", "'1d'", "-n '/ERROR/p'", "'$d'",
                                        "-E 's/([a-z]+) ([a-z]+)/\\2 \\1/'", "'s/^/> /'", "'2,3!d'", "'y/abc/ABC/'",
                                        "'=' ", "-n '$='", "'1i\\\\\nheader'", "'/^$/d'", "'s/[0-9]/<&>/2'"]) + ' ' + f,
            lambda: 'awk ' + self.pick(["'{print $1}'", "-F, '{print $2}'", "'{s+=$1} END {print s}'", "'NR==2'",
                                        "'{print NF}'", "-F, 'NR>1 {c[$3]++} END {for (k in c) print k, c[k]}' ",
                                        "'length > 8'", "'{print toupper($0)}'", "'/ERROR/ {n++} END {print n+0}'",
                                        "'{ $1=\"\"; print }'", "'BEGIN{OFS=\"-\"} {$1=$1; print}'",
                                        "'{printf \"%5.1f|%s\\n\", $1, $2}'"]) + ' ' + f,
            lambda: 'sort ' + self.pick(['', '-n', '-r', '-u', '-t, -k2,2n', '-k2', '-rn', '-f']) + ' ' + f,
            lambda: 'sort ' + f + ' | uniq ' + self.pick(['', '-c', '-d', '-u']),
            lambda: 'wc ' + self.pick(['-l', '-w', '-c', '']) + ' ' + self.pick([f, '< ' + f]),
            lambda: 'head -n ' + self.pick(['1', '2', '-1', '0', '+2']) + ' ' + f,
            lambda: 'tail -n ' + self.pick(['1', '2', '+2', '0']) + ' ' + f,
            lambda: 'cut -d, -f' + self.pick(['1', '2', '1,3', '2-', '-2']) + ' ' + f,
            lambda: 'cut -c' + self.pick(['1-3', '2', '5-']) + ' ' + f,
            lambda: 'tr ' + self.pick(["a-z A-Z", "-d 'aeiou'", "-s ' '", "',' '\\t'", "-cd '[:digit:]\\n'",
                                       "'[:lower:]' '[:upper:]'"]) + ' < ' + f,
            lambda: 'printf ' + self.quote(self.pick(['%s\\n', '%5s|%-5s|\\n', '%d\\n', '%05.2f\\n', '%x %o\\n',
                                                       '%q\\n', '[%s]', '%b\\n', '%c\\n', '%s=%s\\n'])) +
                    ' ' + self.words(0, 3),
            lambda: 'basename ' + self.pick(['path/to/file.tar.gz', 'src/main.py .py', '/', 'a/b/']),
            lambda: 'dirname ' + self.pick(['path/to/file', 'file', '/a', 'a/b/']),
            lambda: 'find ' + self.pick(['.', 'src', 'nodir']) + ' ' +
                    self.pick(["-name '*.py'", '-type f', '-type d', "-name '*.txt' -size -1k", '-maxdepth 1',
                               "-path './src/*'", '-empty']) + ' | sort',
            lambda: 'ls ' + self.pick(['', '-1', '-a', '-R', 'src', '*.txt', '-d */', 'nodir']),
            lambda: 'mkdir ' + self.pick(['-p out/a/b', 'out', 'src', '-p src']),
            lambda: 'cp ' + self.pick([f + ' out/', f + ' copy.txt', '-r src out', 'data.csv data.bak']),
            lambda: 'mv ' + self.pick([f + ' moved.txt', 'src/util.py src/u.py', 'nodir x']),
            lambda: 'rm ' + self.pick(['-f ' + f, '-rf out', f, '-r src', 'nodir']),
            lambda: 'touch ' + self.pick(['new.txt', f, 'out/x']),
            lambda: 'seq ' + self.pick(['3', '2 5', '5 -2 1', '0.5 0.5 2', '-w 8 10', "-s, 4"]),
            lambda: 'echo ' + self.pick(['', '-n ', '-e ', '-E ']) + self.words(0, 3),
            lambda: 'xargs ' + self.pick(['', '-n1', '-I{} echo [{}]', 'echo pre']) + ' < ' + f,
            lambda: 'jq ' + self.pick(['.name', '-r .tags[]', "'.deps | keys'", '-c .', "'.version + 1'",
                                       "-r '.deps | to_entries[] | \"\\(.key)=\\(.value)\"'"]) + ' conf.json',
            lambda: 'tee ' + self.pick(['out.txt', '-a log.txt', 'nodir/x']) + ' < ' + f,
            lambda: 'paste -sd, ' + f,
            lambda: 'rev ' + f,
            lambda: 'nl ' + f,
            lambda: 'comm -12 <(sort ' + f + ') <(sort ' + self.file() + ')',
            lambda: 'diff ' + f + ' ' + self.file(),
            lambda: 'md5sum ' + f,
        ][u]()

    def simple_command(self, pipe_ok=False):
        k = self.r.randrange(12)
        if k < 6:
            c = self.utility()
        elif k < 9:
            c = 'echo ' + self.words(1, 3)
        elif k == 9:
            c = 'printf "%s\\n" ' + self.words(1, 3)
        elif k == 10:
            c = self.pick(['true', 'false', ':', 'type ' + self.pick(['echo', 'f1', 'cat', 'nosuch']),
                           'declare -p ' + self.pick(self.vars + self.arrays), 'set -- ' + self.words(1, 3),
                           'shift', 'echo "$# $1 ${2:-}"', 'echo "$@"', 'return 3', 'nosuch_cmd',
                           'local x=' + self.word(), 'unset ' + self.pick(self.vars), 'echo "$?"',
                           'read -r a b <<< ' + self.word() + '; echo "[$a][$b]"'])
        elif self.in_function:
            c = 'echo "in function: $#"'
        else:
            c = self.pick(['f1 ' + self.words(0, 2), 'f2 ' + self.words(0, 2), 'f1 "$(f2 a)"'])
        if pipe_ok and self.chance(0.3):
            c += ' | ' + self.pick(['sort', 'wc -l', 'head -n 2', 'tr a-z A-Z', 'grep a', 'cat -A', 'sed s/a/@/g',
                                    'awk \'{print NR": "$0}\'', 'uniq -c', 'tail -n 1', 'rev'])
        return c

    def redirect(self):
        return self.pick(['> out.txt', '>> out.txt', '2>&1', '2>/dev/null', '&> all.txt', '> "$f"',
                          '< data.csv', '2> err.txt', '>/dev/null 2>&1', '| cat', '> nodir/f', '<<< "$x"'])

    def condition(self):
        k = self.r.randrange(9)
        if k == 0:
            return '[[ ' + self.word() + ' ' + self.pick(['==', '!=', '<', '>', '=~']) + ' ' + self.pick(
                ['a*', '"a*"', '^[0-9]+$', '$x', 'hello', '*.txt', '(a|b)c']) + ' ]]'
        if k == 1:
            return '[ ' + self.pick(['-f', '-d', '-e', '-s', '-z', '-n', '-r', '-L']) + ' ' + self.word() + ' ]'
        if k == 2:
            return '[ ' + self.word() + ' ' + self.pick(['=', '!=', '-eq', '-lt', '-ge', '-ne']) + ' ' + \
                self.word() + ' ]'
        if k == 3:
            return '(( ' + self.arith() + ' ))'
        if k == 4:
            return self.simple_command(pipe_ok=True) + ' >/dev/null'
        if k == 5:
            return 'grep -q ' + self.quote(self.pick(['ERROR', 'zzz', 'apple'])) + ' ' + self.file()
        if k == 6:
            return '[[ -n ${' + self.pick(self.vars) + '+set} ]]'
        if k == 7:
            return '! ' + self.condition()
        return self.condition() + ' ' + self.pick(['&&', '||']) + ' ' + self.condition()

    def assignment(self):
        k = self.r.randrange(14)
        v = self.pick(self.vars)
        if k < 4:
            return v + '=' + self.word()
        if k == 4:
            return v + '+=' + self.word()
        if k == 5:
            a = self.pick(self.arrays)
            return a + '=(' + self.words(0, 4) + ')'
        if k == 6:
            a = self.pick(self.arrays)
            return a + '+=(' + self.words(1, 2) + ')'
        if k == 7:
            a = self.pick(self.arrays)
            return a + '[' + self.pick(['0', '1', '5', '-1', 'n', '$((n+1))']) + ']=' + self.word()
        if k == 8:
            return 'declare -A m=([k1]=v1 ["k 2"]=' + self.word() + ' [k3]=)' + '; m[new]=' + self.word()
        if k == 9:
            return 'declare ' + self.pick(['-i', '-u', '-l', '-r', '-x', '-a', '']) + ' ' + v + '=' + self.word()
        if k == 10:
            return 'read -r ' + v + ' < ' + self.file()
        if k == 11:
            return 'mapfile -t ' + self.pick(self.arrays) + ' < ' + self.file()
        if k == 12:
            return "IFS=, read -r -a " + self.pick(self.arrays) + " <<< 'a,b,,c'"
        return v + '=$(' + self.simple_command(pipe_ok=True) + ')'

    def statement(self):
        self.depth += 1
        try:
            deep = self.depth > 2
            k = self.r.randrange(20 if not deep else 10)
            if k < 3:
                return self.assignment()
            if k < 6:
                s = self.simple_command(pipe_ok=True)
                if self.chance(0.3):
                    s += ' ' + self.redirect()
                return s
            if k == 6:
                return 'echo ' + self.words(1, 4)
            if k == 7:
                return self.condition() + ' ' + self.pick(['&&', '||']) + ' ' + self.simple_command()
            if k == 8:
                return 'echo "' + self.pick(['$x', '${n}', '$(( n * 2 ))', '${arr[*]}', '${#list[@]}', '$?',
                                              '${m[k1]}', "${name:-'q'}", '\\$x', '`echo bt`']) + '"'
            if k == 9:
                return '(( ' + self.arith() + ' ))'
            if k == 10:
                return 'if ' + self.condition() + '; then\n' + self.block() + '\n' + self.pick(
                    ['', 'elif ' + self.condition() + '; then\n' + self.block() + '\n', 'else\n' + self.block() + '\n']) + 'fi'
            if k == 11:
                return 'for ' + self.pick(['i', 'w', 'f']) + ' in ' + self.pick(
                    [self.words(1, 4), '"${arr[@]}"', '*.txt', '$(seq 3)', '{1..3}', '"$@"', '$(cat words.txt)',
                     '"${!m[@]}"']) + '; do\n' + self.block() + '\ndone' + self.pick(['', ' | sort', ' > loop.txt'])
            if k == 12:
                return 'for (( i = 0; i < ' + self.pick(['3', 'n', '${#arr[@]}']) + '; i++ )); do\n' + self.block() + \
                    '\ndone'
            if k == 13:
                return 'while ' + self.pick(['IFS= read -r line', 'IFS=, read -r a b c', 'read -r a rest']) + \
                    '; do\n' + self.block(extra=['echo "[$line]"', 'echo "$a|$b|${c:-}"', 'n=$((n+1))']) + \
                    '\ndone < ' + self.pick([self.file(), '<(sort ' + self.file() + ')'])
            if k == 14:
                tag = self.pick(['EOF', "'EOF'", '"END"'])
                body = '\n'.join(self.pick(['line $x', 'tab\there', 'n=$((n+1))', '$(echo sub)', "'single'",
                                            '\\$escaped', '${arr[0]}', 'plain text', '`echo bt`'])
                                 for _ in range(self.r.randint(1, 3)))
                end = tag.strip("'\"")
                return self.pick(['cat', 'wc -l', 'sed s/e/E/', 'grep a', 'while read -r l; do echo "<$l>"; done']) + \
                    ' <<' + tag + self.pick(['', ' > here.txt']) + '\n' + body + '\n' + end
            if k == 15:
                return 'case ' + self.word() + ' in\n  ' + self.pick(['a*', '*.txt', '[0-9]*', '"x"', 'a?b']) + \
                    ') ' + self.simple_command() + ' ;;\n  ' + self.pick(['*)', 'hello|world)', '"")']) + ' ' + \
                    self.simple_command() + ' ' + self.pick([';;', ';&', ';;&']) + '\nesac'
            if k == 16:
                return 'until ' + self.pick(['(( n > 3 ))', '[ -f stop ]', 'false']) + '; do\n n=$((n+1))\n' + \
                    self.block() + '\n [ "$n" -gt 5 ] && break\ndone'
            if k == 17:
                return '{\n' + self.block() + '\n} ' + self.redirect()
            if k == 18:
                return '(\n' + self.block() + '\n)' + self.pick(['', ' | cat', '; echo "sub=$?"'])
            return self.pick(['set -e', 'set +e', 'set -u', 'set +u', 'set -o pipefail', 'shopt -s nullglob',
                              'shopt -s extglob', 'shopt -s failglob', 'shopt -u nullglob', 'IFS=,', 'IFS=$\' \\t\\n\'',
                              "trap 'echo trapped' EXIT", 'cd src', 'cd ..', 'cd nodir', 'export x',
                              'readonly n', 'n=5', 'unset arr', 'echo "${PIPESTATUS[@]}"', 'alias ll=echo'])
        finally:
            self.depth -= 1

    def block(self, extra=()):
        lines = [self.statement() for _ in range(self.r.randint(1, 2))]
        if extra and self.chance(0.7):
            lines.insert(0, self.pick(list(extra)))
        if self.chance(0.15):
            lines.append(self.pick(['break', 'continue', 'return 1', 'echo "in: $i"']))
        return '\n'.join('  ' + l for l in lines)

    def function(self, name):
        self.in_function = True
        body = self.block()
        self.in_function = False
        return name + '() {\n  ' + self.pick(['local x="$1"', 'local -a tmp=("$@")', 'echo "args: $#"',
                                                'local n=${1:-0}']) + '\n' + body + '\n  ' + \
            self.pick(['echo "$x"', 'return $#', 'printf "%s\\n" "$@"', 'echo done', ':']) + '\n}'

    def script(self):
        stmts = ['x=' + self.quote(self.literal()), 'n=' + self.pick(['0', '2', '10']),
                 'arr=(' + self.words(1, 3) + ')']
        if self.chance(0.5):
            stmts.append(self.function('f1'))
        if self.chance(0.3):
            stmts.append(self.function('f2'))
        for _ in range(self.r.randint(2, 7)):
            stmts.append(self.statement())
        return stmts


# ---------------------------------------------------------------------- running


def make_fixture(d):
    for name, content in FIXTURE.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
    (d / 'link.txt').symlink_to('data.csv')


def tree(d):
    out = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for name in sorted(dirs + files):
            p = Path(root) / name
            rel = str(p.relative_to(d))
            st = p.lstat()
            if p.is_symlink():
                out.append(f'{rel} -> {os.readlink(p)}')
            elif p.is_dir():
                out.append(f'{rel}/ {oct(st.st_mode & 0o7777)}')
            else:
                try:
                    data = p.read_bytes()
                except OSError as e:
                    data = str(e).encode()
                out.append(f'{rel} {oct(st.st_mode & 0o7777)} {hashlib.sha1(data).hexdigest()[:10]} {data[:60]!r}')
    return '\n'.join(out)


def first_err(s):
    line = s.split('\n', 1)[0]
    # bash names a function's messages "environment: line N" (N counted in the function) when it runs in $(...)
    return re.sub(r'^(bash|bashkit|environment): (-c: )?(line \d+: )?', '', line)


def run_one(bashkit, script, timeout=10):
    res = {}
    with tempfile.TemporaryDirectory(prefix='difffuzz-') as tmp:
        for side in ('bash', 'bashkit'):
            d = Path(tmp) / side
            d.mkdir()
            make_fixture(d)
            if side == 'bash':
                cmd = ['env', '-i', 'PATH=/usr/bin:/bin', 'LC_ALL=C', 'HOME=/nonexistent', 'USER=user', 'bash',
                       '-c', script, 'bash']
                cwd = d
            else:
                cmd = [bashkit, '--mount', f'{d}:/w', '--cwd', '/w', '--timeout', str(timeout), '-c', script, 'bash']
                cwd = tmp
            # The umask is the process's, not a command of the script: a `umask 022; ` before it was a command
            # bash ran first ($PIPESTATUS, $_ and $? differed from the start). Each run is a process group of
            # its own, killed whole at the end: a runaway job or subshell of bash's outlived the timeout of
            # its parent and kept a core busy for the rest of the run.
            p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, umask=0o022, start_new_session=True)
            status = None
            try:
                out, err_bytes = p.communicate(timeout=timeout + 5)
                err, status = err_bytes.decode(errors='replace'), p.returncode
            except subprocess.TimeoutExpired:
                out, err, status = b'', 'TIMEOUT', -1
            finally:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                if status == -1:
                    p.communicate()
            # Leave everything removable.
            for root, dirs, _ in os.walk(d):
                for x in dirs:
                    try:
                        os.chmod(Path(root) / x, 0o755, follow_symlinks=False)
                    except OSError:
                        pass
            if side == 'bashkit':  # its messages are named by $0 (bash); an older CLI named them bashkit
                out = out.replace(b'bashkit: ', b'bash: ')
            res[side] = {'stdout': out, 'stderr1': first_err(err), 'stderr': err, 'status': status, 'tree': tree(d)}
    return res


def differs(res):
    a, b = res['bash'], res['bashkit']
    if a['status'] == -1 or b['status'] == -1:
        return ()
    return tuple(k for k in ('stdout', 'stderr1', 'status', 'tree') if a[k] != b[k])


def cluster(sig, res):
    """What a difference looks like, for grouping: the parts that differ, the first lines of stderr, the first
    differing stdout lines, and the status pair (digits folded)."""
    a, b = res['bash'], res['bashkit']
    parts = [','.join(sig)]
    if 'stderr1' in sig:
        parts += [a['stderr1'], b['stderr1']]
    if 'stdout' in sig:
        la, lb = a['stdout'].decode(errors='replace').split('\n'), b['stdout'].decode(errors='replace').split('\n')
        i = next((i for i in range(min(len(la), len(lb))) if la[i] != lb[i]), min(len(la), len(lb)))
        parts += [la[i] if i < len(la) else '<end>', lb[i] if i < len(lb) else '<end>']
    if 'status' in sig:
        parts += [str(a['status']), str(b['status'])]
    return re.sub(r'[0-9]+', 'N', '|'.join(parts))


def parses(script):
    p = subprocess.run(['bash', '-n', '-c', script], capture_output=True)
    return p.returncode == 0


def minimize(bashkit, stmts, sig):
    def still(candidate):
        script = '\n'.join(candidate)
        if not parses(script):
            return False
        return differs(run_one(bashkit, script)) == sig

    # Whole statements first (ddmin by halves, then one by one), then single lines.
    n = 2
    while len(stmts) >= 2:
        chunk = max(1, len(stmts) // n)
        removed = False
        for i in range(0, len(stmts), chunk):
            cand = stmts[:i] + stmts[i + chunk:]
            if cand and still(cand):
                stmts, removed = cand, True
                n = max(n - 1, 2)
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(stmts), n * 2)
    lines = '\n'.join(stmts).split('\n')
    i = 0
    while i < len(lines):
        cand = lines[:i] + lines[i + 1:]
        if cand and still(cand):
            lines = cand
        else:
            i += 1
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bashkit', default=str(ROOT / 'build/release/cli/bashkit'))
    ap.add_argument('--seconds', type=float, default=3600)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', default=str(ROOT / 'build/difffuzz'))
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--show', type=int, help='print the script of this seed and exit')
    args = ap.parse_args()
    args.bashkit = str(Path(args.bashkit).resolve())  # the runs' working directory is the fixture's copy
    if args.show is not None:
        print('\n'.join(Gen(random.Random(args.show)).script()))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seen = {}
    start = time.time()
    runs = 0
    seed = args.seed
    summary = out / 'summary.txt'

    def attempt(s):
        stmts = Gen(random.Random(s)).script()
        script = '\n'.join(stmts)
        if not parses(script):
            return s, stmts, None
        return s, stmts, differs(run_one(args.bashkit, script))

    with ThreadPoolExecutor(args.jobs) as pool:
        while time.time() - start < args.seconds:
            batch = list(pool.map(attempt, range(seed, seed + args.jobs)))
            seed += args.jobs
            for s, stmts, sig in batch:
                runs += 1
                if not sig:
                    continue
                small = minimize(args.bashkit, stmts, sig)
                res = run_one(args.bashkit, small)
                key = cluster(sig, res)
                if key in seen:
                    seen[key][1] += 1
                    continue
                n = len(seen) + 1
                seen[key] = [n, 1]
                with open(out / f'diff-{n:03d}.txt', 'w') as f:
                    f.write(f'# seed {s}, differs in: {", ".join(sig)}\n{small}\n')
                    for side in ('bash', 'bashkit'):
                        r = res[side]
                        f.write(f'\n--- {side}: status {r["status"]}\n--- stdout\n'
                                f'{r["stdout"].decode(errors="replace")}--- stderr\n{r["stderr"]}\n--- tree\n{r["tree"]}\n')
                with open(summary, 'a') as f:
                    f.write(f'diff-{n:03d} seed {s} [{", ".join(sig)}]: ' + small.replace('\n', '\\n')[:300] + '\n')
                print(f'diff-{n:03d} (seed {s}, {", ".join(sig)}): {small[:120]!r}', flush=True)
    print(f'{runs} scripts in {time.time() - start:.0f} s, {len(seen)} distinct minimized differences in {out}')
    with open(summary, 'a') as f:
        f.write(f'# {runs} scripts in {time.time() - start:.0f} s; occurrences of each: ' +
                ', '.join(f'diff-{n:03d} x{c}' for n, c in sorted(seen.values())) + '\n')


if __name__ == '__main__':
    main()

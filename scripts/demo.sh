#!/usr/bin/env bash
# A small script of the kind an agent writes. `scripts/demo` runs it inside the sandbox: every file below
# lives in the session's in-memory file system, and every command runs in-process.
set -euo pipefail
mkdir -p notes && cd notes
printf 'alpha\nbeta\ngamma\n' > a.txt
seq 1 5 > b.txt
echo "just one line" > c.txt

count=0
for f in *.txt; do
    lines=$(wc -l < "$f")
    printf '%-6s %3d lines\n' "${f%.txt}" "$lines"
    (( count += lines ))
done
case $count in
    0) echo "no text files" ;;
    *) echo "total: $count lines in $(ls | wc -l) files" ;;
esac

declare -A seen=()
for word in $(cat a.txt c.txt); do seen[${word:0:1}]=1; done
echo "first letters: $(printf '%s\n' "${!seen[@]}" | sort | tr -d '\n')"
grep -n 'a$' a.txt | sed 's/^/match /'
cat <<EOT
done in $PWD as $USER
EOT

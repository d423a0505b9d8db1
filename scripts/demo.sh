#!/usr/bin/env bash
# A small script of the kind an agent writes.
set -euo pipefail
count=0
for f in *.txt; do
    [[ -f $f ]] || continue
    lines=$(wc -l < "$f")
    printf '%-20s %5d\n' "${f%.txt}" "$lines"
    (( count += lines ))
done
case $count in
    0) echo "no text files" ;;
    *) echo "total: $count" ;;
esac
cat <<EOT
done in ${PWD##*/}
EOT

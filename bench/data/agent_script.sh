#!/usr/bin/env bash
# A realistic script of the kind agents write: setup, functions, loops, pipelines, here-docs, arrays.
set -euo pipefail
shopt -s nullglob

readonly PROJECT_DIR="${PROJECT_DIR:-/workspace}"
LOG_FILE="${TMPDIR:-/tmp}/build-$$.log"
declare -a FAILED=()
declare -A COUNTS=([ok]=0 [fail]=0)

log() {
    local level="$1"; shift
    printf '%s [%s] %s\n' "$(date +%H:%M:%S)" "$level" "$*" >>"$LOG_FILE"
}

die() {
    echo "error: $*" >&2
    exit 1
}

count_lines() {
    local f total=0
    for f in "$@"; do
        [[ -f "$f" ]] || continue
        total=$(( total + $(wc -l < "$f") ))
    done
    echo "$total"
}

check_file() {
    local path=$1
    case "${path##*.}" in
        py)  python3 -m py_compile "$path" 2>/dev/null ;;
        sh|bash) bash -n "$path" ;;
        json) jq empty "$path" >/dev/null 2>&1 ;;
        *) return 0 ;;
    esac
}

cd "$PROJECT_DIR" || die "no project dir: $PROJECT_DIR"
for f in src/*.py scripts/*.sh config/*.json; do
    if check_file "$f"; then
        COUNTS[ok]=$(( ${COUNTS[ok]} + 1 ))
    else
        FAILED+=("$f")
        (( COUNTS[fail]++ )) || true
        log WARN "check failed: $f"
    fi
done

grep -rn --include='*.py' 'TODO\|FIXME' src/ | sed -E 's/^([^:]+):([0-9]+):.*/\1 line \2/' | sort -u > todo.txt || true
awk -F: '{ n[$1]++ } END { for (k in n) printf "%s %d\n", k, n[k] }' todo.txt | sort -k2 -nr | head -n 10

if (( ${#FAILED[@]} > 0 )); then
    printf 'failed: %s\n' "${FAILED[@]}"
elif [[ -s todo.txt && $(wc -l < todo.txt) -gt 100 ]]; then
    echo "too many TODOs"
else
    echo "all ${COUNTS[ok]} checks passed"
fi

cat > report.md <<REPORT
# Build report
- project: ${PROJECT_DIR##*/}
- checked: ${COUNTS[ok]}
- failed: ${#FAILED[@]}
- todo lines: $(wc -l < todo.txt)
REPORT

for ((i = 0; i < 3; i++)); do
    name=$(printf 'run-%02d' "$i")
    mkdir -p "out/$name" && touch "out/$name/.keep"
done

while IFS= read -r line; do
    [[ $line =~ ^([a-z]+)=(.*)$ ]] && export "${BASH_REMATCH[1]^^}=${BASH_REMATCH[2]}"
done < <(grep -v '^#' .env 2>/dev/null || true)

files=$(find . -type f -name '*.log' -mtime +7 -print0 | xargs -0 -r ls -1 | wc -l)
echo "old logs: ${files}"
git status --porcelain | awk '$1 == "M" { print $2 }' | while read -r changed; do
    echo "modified: ${changed#./}"
done
trap 'rm -f "$LOG_FILE"' EXIT

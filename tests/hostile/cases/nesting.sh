#% category: deep nesting
#### nested-parens
eval "$(printf '(%.0s' {1..100000})"
#### nested-braces
eval "$(printf '{ %.0s' {1..100000}) :; $(printf '}%.0s' {1..100000})"
#### nested-if
eval "$(printf 'if true; then %.0s' {1..50000}) :; $(printf 'fi; %.0s' {1..50000})"
#### nested-cmdsubst
eval "x=$(printf '$(%.0s' {1..10000})$(printf ')%.0s' {1..10000})"
#### nested-arith
eval "echo \$(( $(printf '(%.0s' {1..100000})1$(printf ')%.0s' {1..100000}) ))"
#### nested-param
eval "echo \${x:-$(printf '${x:-%.0s' {1..50000})$(printf '}%.0s' {1..50000})}"
#### nested-eval
s=':'; for i in {1..5000}; do s="eval '${s//\'/\'\\\'\'}'"; done; eval "$s"
#### nested-functions-def
eval "$(printf 'f() { %.0s' {1..50000})$(printf '}; %.0s' {1..50000})"
#### nested-while
eval "$(printf 'while false; do %.0s' {1..50000}) :; $(printf 'done; %.0s' {1..50000})"
#### nested-brace-expansion
eval "echo $(printf '{a,%.0s' {1..5000})$(printf '}%.0s' {1..5000})"
#### nested-cond
eval "[[ $(printf '( %.0s' {1..100000}) x $(printf ') %.0s' {1..100000}) ]]"
#### nested-extglob
shopt -s extglob; p=$(printf '@(%.0s' {1..10000})x$(printf ')%.0s' {1..10000}); [[ x == $p ]]
#### long-pipeline-parse
eval "$(printf 'true | %.0s' {1..100000}) true"
#### long-andor
eval "$(printf 'true && %.0s' {1..200000}) true"
#### glob-star-deep
mkdir -p /tmp/$(printf 'd/%.0s' {1..200}); shopt -s globstar; echo /tmp/** | wc -c
#### glob-many-stars
x=$(printf 'a%.0s' {1..3000}); [[ $x == $(printf '*a%.0s' {1..500})b ]]
#### jq-nested-program
jq -n "$(printf '[(%.0s' {1..100000})1$(printf ')]%.0s' {1..100000})"
#### jq-nested-value
jq -n 'reduce range(1e6) as $i (null; [.]) | ([., .] | sort), flatten, (. == .)'

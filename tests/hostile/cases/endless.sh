#% category: bc, awk, sed and jq programs that never end
#### bc-loop
echo 'while (1) { }' | bc
#### bc-scale
echo 'scale=100000; 4*a(1)' | bc -l
#### bc-huge-power
echo '2^100000000' | bc
#### bc-recursion
echo 'define f(x) { return f(x+1); }; f(1)' | bc
#### bc-factorial
echo 'define f(n) { if (n<2) return 1; return n*f(n-1); }; f(100000)' | bc
#### awk-loop
awk 'BEGIN { while (1) {} }'
#### awk-string-doubling
awk 'BEGIN { s = "x"; while (1) s = s s }'
#### awk-array-flood
awk 'BEGIN { for (i = 0; ; i++) a[i] = i i i i }'
#### awk-recursion
awk 'function f(n) { return f(n+1) } BEGIN { f(1) }'
#### awk-sprintf-width
awk 'BEGIN { s = sprintf("%2000000000d", 1) }'
#### sed-loop
echo x | sed ':a; ba'
#### sed-doubling
echo x | sed ':a; s/x/xx/g; ba'
#### jq-loop
jq -n 'def f: f; f'
#### jq-doubling
jq -n '"x" | until(false; . + .)'
#### jq-range
jq -n '[range(1e10)] | length'
#### jq-while-branching
jq -n '[0 | while(. < 100; ., "in" * 1)]'
#### jq-recurse-branching
jq -n '[0 | recurse(., . + 1)] | length'
#### expr-loop
while :; do expr 1 + 1 > /dev/null; done
#### let-loop
while :; do let i++; done
#### arith-for-endless
for ((;;)); do :; done
#### until-false
until false; do :; done
#### regex-backtracking
x=$(printf 'a%.0s' {1..5000}); [[ $x =~ (a*)*b ]]; grep -E '(a*)*b' <<< "$x"

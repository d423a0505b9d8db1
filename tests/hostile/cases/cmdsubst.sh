#% category: command substitution
#### subst-yes
x=$(yes)
#### subst-zero
x=$(cat /dev/zero)
#### subst-nested-doubling
x=a; while :; do x=$(echo "$x$x"); done
#### subst-deep-nesting
f() { echo $(f); }; f
#### subst-backticks-loop
while :; do x=`echo hi`; done
#### subst-in-loop-accumulate
s=; while :; do s+=$(printf '%*s' 100000 ''); done
#### subst-parallel
for i in {1..50}; do x=$(yes | head -c 50000000) & done; wait
#### subst-parallel-large
for i in {1..10}; do x=$(yes | head -c 50000000) & done; wait
#### subst-of-pipeline-flood
x=$(yes | cat | cat | cat)
#### subst-with-trap
x=$(trap 'yes' EXIT; :)
#### subst-proc-subst
cat <(yes) > /dev/null
#### subst-proc-subst-many
for i in {1..500}; do exec {fd}< <(yes); done; wait
#### subst-arith-loop
while :; do x=$(( $(echo 1) + 1 )); done

#% category: aliases, functions and arrays
#### alias-flood
for ((i=0;;i++)); do alias a$i="$(printf '%*s' 1000 '')"; done
#### alias-big-values
x=$(printf '%*s' 10000000 ''); for ((i=0;;i++)); do alias a$i="$x"; done
#### function-flood
for ((i=0;;i++)); do eval "f$i() { echo $i; }"; done
#### function-big-bodies
x=$(printf 'echo %*s;' 100000 ''); for ((i=0;;i++)); do eval "f$i() { $x }"; done
#### array-sparse-flood
a=(); for ((i=0;;i++)); do a[i*1000]=x; done
#### array-many-arrays
for ((i=0;;i++)); do eval "a$i=({1..1000})"; done
#### assoc-big-keys
declare -A m; k=$(printf '%*s' 100000 ''); for ((i=0;;i++)); do m[$i$k]=1; done
#### var-flood
for ((i=0;;i++)); do printf -v v$i '%*s' 10000 ''; done
#### readonly-flood
for ((i=0;;i++)); do readonly r$i=$i$i$i$i; done
#### local-flood-in-function
f() { for ((i=0;;i++)); do local v$i=$(printf '%*s' 10000 ''); done; }; f
#### array-slice-doubling
a=(1 2); while :; do a=("${a[@]}" "${a[@]:0}"); done
#### array-from-glob
for i in {1..2000}; do : > /tmp/f$i; done; while :; do a=(/tmp/*); done
#### declare-p-huge
a=({1..1000000}); while :; do x=$(declare -p a); done
#### unset-and-redefine
while :; do a=({1..100000}); unset a; done
#### function-redefine-loop
while :; do f() { :; }; unset -f f; done

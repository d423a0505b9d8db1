#% category: globs, braces and patterns
#### glob-many-files
for i in {1..50000}; do : > /tmp/f$i; done; while :; do echo /tmp/* > /dev/null; done
#### glob-pathological
mkdir -p /tmp/a; : > /tmp/a/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; echo /tmp/a/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b
#### case-pathological
x=$(printf 'a%.0s' {1..10000}); case $x in *a*a*a*a*a*a*a*a*a*a*a*a*a*a*b) echo y;; esac
#### patsub-loop-slow
x=$(printf 'a%.0s' {1..100000}); while :; do y=${x//a/b}; done
#### remove-pattern-slow
x=$(printf 'a%.0s' {1..200000}); y=${x%%*b}
#### brace-seq-step
echo {1..1000000000..1}
#### brace-letters-many
a=( {a..z}{a..z}{a..z}{a..z} ); echo ${#a[@]}
#### globstar-loop
mkdir -p /tmp/d; cd /tmp/d; ln -s . loop; shopt -s globstar; echo ** | wc -c

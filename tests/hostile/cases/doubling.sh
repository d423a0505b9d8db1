#% category: argument and string doubling
#### args-doubling
f() { f "$@" "$@"; }; f 1
#### args-doubling-quoted-join
f() { f "$*$*"; }; f abc
#### var-doubling-loop
x=x; while :; do x=$x$x; done
#### var-doubling-append
x=x; while :; do x+=$x; done
#### patsub-square
x=abcdefgh; while :; do x=${x//?/$x}; done
#### patsub-square-once-big
x=$(printf '%*s' 100000 ''); y=${x// /$x}
#### patsub-amp
shopt -s patsub_replacement; x=ab; while :; do x=${x//?/&&}; done
#### array-doubling
a=(1); while :; do a=("${a[@]}" "${a[@]}"); done
#### array-append-forever
a=(); while :; do a+=("$RANDOM$RANDOM$RANDOM"); done
#### assoc-forever
declare -A m; i=0; while :; do m[k$((i++))]=$i$i$i$i; done
#### printf-width
printf '%*s' 2000000000 x
#### printf-repeat-format
x=$(printf '%.0s-' {1..100000}); while :; do x=$(printf '%s%s' "$x" "$x"); done
#### brace-huge
echo {1..100000000}
#### brace-product
echo {a..z}{a..z}{a..z}{a..z}{a..z}
#### brace-nested-product
echo {1..1000}{1..1000}{1..1000}
#### set-args-doubling
set -- x; while :; do set -- "$@" "$@"; done
#### read-N-huge
read -N 2000000000 x < /dev/zero
#### mapfile-endless
mapfile a < /dev/zero
#### mapfile-yes
yes | mapfile a
#### local-doubling
f() { local x=$1; f "$x$x"; }; f y
#### string-repeat-tr
x=$(head -c 100000000 /dev/zero | tr '\0' a); echo ${#x}
#### export-doubling
x=x; while :; do export x=$x$x; done
#### env-doubling-command
x=x; while :; do x=$x$x; env > /dev/null; done
#### declare-doubling
declare x=x; while :; do declare x=$x$x; done
#### case-mod-doubling
declare -u x=a; while :; do x=$x$x; done
#### pattern-ops-on-a-big-value
x=a; for i in {1..25}; do x=$x$x; done; y=${x%%b*}; z=${x//b/c}; w=${x##*b}; echo ${#y} ${#z} ${#w}

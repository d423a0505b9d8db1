#% category: recursion - functions, sources, evals and traps that call themselves
#### plain-recursion
f() { f; }; f
#### recursion-with-args
f() { f "$1$1"; }; f x
#### mutual-recursion
a() { b; }; b() { a; }; a
#### recursion-in-pipeline
f() { echo x | f; }; f
#### recursion-in-subshell
f() { ( f ); }; f
#### recursion-in-cmdsubst
f() { x=$(f); }; f
#### recursion-background
f() { f & f; }; f
#### fork-bomb
:(){ :|:& };:
#### eval-recursion
e='eval "$e"'; eval "$e"
#### source-recursion
echo 'source /tmp/self.sh' > /tmp/self.sh; source /tmp/self.sh
#### bash-c-recursion
echo 'bash /tmp/r.sh' > /tmp/r.sh; bash /tmp/r.sh
#### trap-recursion
trap 'kill -USR1 $$' USR1; kill -USR1 $$
#### return-trap-recursion
f() { :; }; trap 'f' RETURN; f
#### recursion-with-locals
f() { local -a a=(1 2 3 4 5 6 7 8); local s=$RANDOM$RANDOM; f; }; f
#### recursion-debug-trap
set -T; trap 'g' DEBUG; g() { :; }; g
#### recursive-alias-like
shopt -s expand_aliases; alias r='r'; eval r
#### recursion-through-xargs
f() { echo f | xargs bash -c 'f'; }; export -f f; f
#### recursion-in-arith
a='a+1'; echo $((a))
#### recursive-nameref
declare -n r=r; echo $r
#### err-trap-recursion
trap 'false' ERR; false

#% category: background jobs and subshells
#### jobs-flood
while :; do sleep 100 & done
#### jobs-yes-flood
for i in {1..1000}; do yes > /dev/null & done; wait
#### subshell-flood
while :; do ( : ); done
#### subshell-nesting
f() { ( ( ( f ) ) ); }; f
#### job-holding-memory
for i in {1..20}; do ( x=$(head -c 60000000 /dev/zero | tr '\0' a); sleep 100 ) & done; wait
#### subshell-copies-memory
x=$(head -c 60000000 /dev/zero | tr '\0' a); for i in {1..30}; do ( sleep 100 ) & done; wait
#### pipeline-copies-memory
x=$(head -c 60000000 /dev/zero | tr '\0' a); sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10 | sleep 10
#### wait-forever
sleep 1000 & wait
#### wait-on-yes
yes > /dev/null & wait $!
#### coproc-flood
while :; do coproc yes; done
#### disowned-jobs
for i in {1..50}; do yes > /dev/null & disown; done; sleep 100
#### background-recursion
f() { f & }; f; wait
#### pipeline-long
eval "$(printf 'yes | '; for i in {1..300}; do printf 'cat | '; done; echo cat)" > /dev/null
#### job-kill-loop
while :; do sleep 5 & kill $!; done
#### timeout-builtin-nesting
timeout 100 timeout 100 timeout 100 bash -c 'while :; do :; done'

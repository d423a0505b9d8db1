#% category: output floods
#### stdout-yes
yes
#### stderr-yes
yes >&2
#### echo-loop
while :; do echo flood; done
#### printf-loop-stderr
while :; do printf 'err\n' >&2; done
#### cat-zero
cat /dev/zero
#### urandom
cat /dev/urandom
#### huge-line
printf '%*s' 1000000 '' ; while :; do printf '%*s' 1000000 ''; done
#### seq-huge
seq 1 100000000000
#### both-streams
yes & yes >&2
#### xtrace-flood
set -x; while :; do :; done
